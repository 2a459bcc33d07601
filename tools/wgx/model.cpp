// SPDX-License-Identifier: GPL-2.0
#include "model.hpp"

#include <cstring>

#include "uapi/linux/wgx.h"

namespace wgx {

bool key_is_zero(const Key &k)
{
    volatile std::uint8_t acc = 0;
    for (std::uint8_t b : k)
        acc = acc | b;
    return acc == 0;
}

const char *kind_name(Kind k)
{
    switch (k) {
    case Kind::Wgx:
        return "wgx";
    case Kind::WireGuard:
        return "wireguard";
    default:
        return "unknown";
    }
}

const char *kind_family(Kind k)
{
    switch (k) {
    case Kind::Wgx:
        return WGX_GENL_NAME;
    case Kind::WireGuard:
        return "wireguard";
    default:
        return nullptr;
    }
}

const char *rx_spread_name(RxSpread mode)
{
    switch (mode) {
    case RxSpread::Off:
        return "off";
    case RxSpread::On:
        return "on";
    case RxSpread::Auto:
        return "auto";
    }
    return nullptr;
}

const char *path_mtu_source_name(std::uint32_t source)
{
    switch (source) {
    case WGX_PATH_MTU_SOURCE_ROUTE:
        return "route";
    case WGX_PATH_MTU_SOURCE_ICMP:
        return "icmp";
    case WGX_PATH_MTU_SOURCE_PROBE:
        return "probe";
    case WGX_PATH_MTU_SOURCE_FRAGMENTING:
        return "fragmenting";
    case WGX_PATH_MTU_SOURCE_FIXED:
        return "fixed";
    default:
        return "unknown";
    }
}

Endpoint::Endpoint()
{
    std::memset(&addr6, 0, sizeof(addr6));
}

std::size_t Endpoint::size() const
{
    if (addr.sa_family == AF_INET)
        return sizeof(sockaddr_in);
    if (addr.sa_family == AF_INET6)
        return sizeof(sockaddr_in6);
    return 0;
}

bool Endpoint::operator==(const Endpoint &o) const
{
    if (family() != o.family())
        return false;
    if (family() == AF_INET)
        return addr4.sin_port == o.addr4.sin_port && addr4.sin_addr.s_addr == o.addr4.sin_addr.s_addr;
    if (family() == AF_INET6)
        return addr6.sin6_port == o.addr6.sin6_port && std::memcmp(&addr6.sin6_addr, &o.addr6.sin6_addr, 16) == 0 &&
               addr6.sin6_scope_id == o.addr6.sin6_scope_id;
    return true;
}

namespace {

using K = StatKind;

// Help texts say what an operator reads off the figure; units in the name.
const std::vector<StatInfo> kPeerStats = {
    {WGX_PEER_STATS_A_RX_PACKETS, "rx_packets", K::Counter,
     "Authenticated transport data packets received from the peer (keepalives included)"},
    {WGX_PEER_STATS_A_TX_PACKETS, "tx_packets", K::Counter,
     "Transport data packets sent to the peer (keepalives included)"},
    {WGX_PEER_STATS_A_RX_DROP_AUTH, "rx_drop_auth", K::Counter,
     "Transport data from the peer dropped: AEAD authentication failed"},
    {WGX_PEER_STATS_A_RX_DROP_REPLAY, "rx_drop_replay", K::Counter,
     "Transport data from the peer dropped: counter already seen or left of the replay window"},
    {WGX_PEER_STATS_A_RX_DROP_ALLOWEDIPS, "rx_drop_allowedips", K::Counter,
     "Transport data from the peer dropped: inner source not among its allowed IPs"},
    {WGX_PEER_STATS_A_RX_DROP_NO_KEYPAIR, "rx_drop_no_keypair", K::Counter,
     "Transport data from the peer dropped: keypair expired or not confirmed"},
    {WGX_PEER_STATS_A_RX_DROP_MALFORMED, "rx_drop_malformed", K::Counter,
     "Transport data from the peer dropped: decrypted payload not a valid IP packet"},
    {WGX_PEER_STATS_A_TX_DROP_STAGED_OVERFLOW, "tx_drop_staged_overflow", K::Counter,
     "Packets to the peer dropped: staged queue (waiting for a keypair) full"},
    {WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT, "tx_drop_no_endpoint", K::Counter,
     "Packets to the peer dropped: the peer has no endpoint"},
    {WGX_PEER_STATS_A_TX_DROP_ERROR, "tx_drop_error", K::Counter, "Packets to the peer dropped by the UDP send path"},
    {WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_TX, "handshake_initiations_tx", K::Counter,
     "Handshake initiations sent to the peer"},
    {WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_RX, "handshake_initiations_rx", K::Counter,
     "Valid handshake initiations received from the peer"},
    {WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_TX, "handshake_responses_tx", K::Counter,
     "Handshake responses sent to the peer"},
    {WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_RX, "handshake_responses_rx", K::Counter,
     "Valid handshake responses received from the peer"},
    {WGX_PEER_STATS_A_COOKIE_REPLIES_RX, "cookie_replies_rx", K::Counter,
     "Valid cookie replies received from the peer"},
    {WGX_PEER_STATS_A_HANDSHAKES_COMPLETED, "handshakes_completed", K::Counter,
     "Handshakes completed with the peer (keypairs derived)"},
    {WGX_PEER_STATS_A_HANDSHAKE_TIMEOUTS, "handshake_timeouts", K::Counter,
     "Handshake initiations retransmitted after REKEY_TIMEOUT without a response"},
    {WGX_PEER_STATS_A_HANDSHAKE_DROP_INVALID, "handshake_drop_invalid", K::Counter,
     "Handshake messages naming the peer that failed to decrypt or were replayed"},
    {WGX_PEER_STATS_A_KEEPALIVES_TX, "keepalives_tx", K::Counter, "Keepalive packets sent to the peer"},
    {WGX_PEER_STATS_A_KEEPALIVES_RX, "keepalives_rx", K::Counter, "Keepalive packets received from the peer"},
    {WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US, "handshake_rtt_last_us", K::GaugeUsec,
     "Latest handshake round-trip time sample"},
    {WGX_PEER_STATS_A_HANDSHAKE_RTT_MIN_US, "handshake_rtt_min_us", K::GaugeUsec,
     "Lowest handshake round-trip time since the peer's endpoint was set"},
    {WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, "handshake_srtt_us", K::GaugeUsec,
     "Smoothed handshake round-trip time (RFC 6298 SRTT)"},
    {WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES, "handshake_rtt_samples", K::Counter,
     "Handshake round-trip time samples taken"},
    {WGX_PEER_STATS_A_TCP_RTT_LAST_US, "tcp_rtt_last_us", K::GaugeUsec,
     "Latest passive round-trip time sample from inner TCP timestamps"},
    {WGX_PEER_STATS_A_TCP_RTT_MIN_US, "tcp_rtt_min_us", K::GaugeUsec,
     "Lowest passive inner-TCP round-trip time since the peer's endpoint was set"},
    {WGX_PEER_STATS_A_TCP_SRTT_US, "tcp_srtt_us", K::GaugeUsec,
     "Smoothed passive inner-TCP round-trip time (RFC 6298 SRTT)"},
    {WGX_PEER_STATS_A_TCP_RTTVAR_US, "tcp_rttvar_us", K::GaugeUsec,
     "Passive inner-TCP round-trip time variation, i.e. jitter (RFC 6298 RTTVAR)"},
    {WGX_PEER_STATS_A_TCP_RTT_SAMPLES, "tcp_rtt_samples", K::Counter,
     "Passive inner-TCP round-trip time samples taken"},
    {WGX_PEER_STATS_A_RX_LOST, "rx_lost", K::Counter,
     "Transport data counters of the peer that left the replay window unreceived (lost packets)"},
    {WGX_PEER_STATS_A_RX_REORDERED, "rx_reordered", K::Counter,
     "Transport data accepted below the highest counter received so far (reordered packets)"},
    {WGX_PEER_STATS_A_TX_TCP_RETRANSMITS, "tx_tcp_retransmits", K::Counter,
     "Inner TCP retransmissions seen on transmit (approximate, sampled)"},
    {WGX_PEER_STATS_A_TX_TCP_SEGMENTS, "tx_tcp_segments", K::Counter,
     "Inner TCP segments with payload examined by the retransmission sampler"},
    {WGX_PEER_STATS_A_HANDSHAKES_PACED, "handshakes_paced", K::Counter,
     "Handshake initiations to the peer deferred by the device's handshake budget"},
    {WGX_PEER_STATS_A_HANDSHAKES_PREVIOUS_KEY, "handshakes_previous_key", K::Counter,
     "Sessions with the peer made with the device's previous private key during a grace period"},
    {WGX_PEER_STATS_A_PMTU_ICMP, "pmtu_icmp", K::Counter,
     "ICMP fragmentation-needed / packet-too-big messages for the peer's outer flow accepted"},
    {WGX_PEER_STATS_A_TX_DROP_TOO_BIG, "tx_drop_too_big", K::Counter,
     "Inner packets larger than the peer's path MTU, answered with ICMP to their sender"},
    {WGX_PEER_STATS_A_PMTU_BLACKHOLES, "pmtu_blackholes", K::Counter,
     "Times packets to the peer went unanswered and its path MTU was lowered (or DF cleared)"},
};

const std::vector<StatInfo> kDeviceStats = {
    {WGX_DEVICE_STATS_A_RX_HANDSHAKE_PACKETS, "rx_handshake_packets", K::Counter,
     "Handshake messages (initiation, response, cookie reply) received"},
    {WGX_DEVICE_STATS_A_RX_DROP_MALFORMED, "rx_drop_malformed", K::Counter,
     "UDP payloads dropped: unknown message type or wrong size"},
    {WGX_DEVICE_STATS_A_RX_DROP_MAC1, "rx_drop_mac1", K::Counter, "Handshake messages dropped: invalid MAC1"},
    {WGX_DEVICE_STATS_A_RX_DROP_MAC2, "rx_drop_mac2", K::Counter,
     "Handshake messages dropped under load without a valid MAC2 (answered by a cookie reply)"},
    {WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_PEER, "rx_drop_unknown_peer", K::Counter,
     "Handshake initiations dropped: unknown static public key"},
    {WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_INDEX, "rx_drop_unknown_index", K::Counter,
     "Transport data or responses dropped: unknown receiver index"},
    {WGX_DEVICE_STATS_A_RX_DROP_RATELIMITED, "rx_drop_ratelimited", K::Counter,
     "Handshake messages dropped by the per-source rate limiter"},
    {WGX_DEVICE_STATS_A_RX_DROP_HANDSHAKE_QUEUE, "rx_drop_handshake_queue", K::Counter,
     "Handshake messages dropped: handshake queue full"},
    {WGX_DEVICE_STATS_A_COOKIE_REPLIES_TX, "cookie_replies_tx", K::Counter, "Cookie replies sent (under load)"},
    {WGX_DEVICE_STATS_A_TX_DROP_NO_PEER, "tx_drop_no_peer", K::Counter,
     "Outgoing packets dropped: destination matches no peer's allowed IPs"},
    {WGX_DEVICE_STATS_A_UNDER_LOAD_ENTERED, "under_load_entered", K::Counter,
     "Times the device entered the under-load state (whitepaper 5.3)"},
    {WGX_DEVICE_STATS_A_HANDSHAKES_PACED, "handshakes_paced", K::Counter,
     "Handshake initiations (all peers) deferred by the device's handshake budget"},
    {WGX_DEVICE_STATS_A_TX_LANE, "tx_lane", K::Counter, "Priority packets queued on a tx queue's priority lane"},
    {WGX_DEVICE_STATS_A_TX_LANE_INLINE, "tx_lane_inline", K::Counter,
     "Priority packets sent at once by the transmit path, their lane empty"},
    {WGX_DEVICE_STATS_A_RX_DROP_DELAY, "rx_drop_delay", K::Counter,
     "Transport data dropped on arrival: its peer's receive queue stood longer than the delay target"},
    {WGX_DEVICE_STATS_A_PMTU_ICMP_IGNORED, "pmtu_icmp_ignored", K::Counter,
     "Path MTU ICMP for the device's sockets refused (below the floor, forged, no peer, rate limit)"},
    {WGX_DEVICE_STATS_A_TX_EXPRESS, "tx_express", K::Counter,
     "Small packets of sparse flows sent with the express mark"},
    {WGX_DEVICE_STATS_A_RX_EXPRESS, "rx_express", K::Counter,
     "Marked messages delivered ahead of their peer's receive queue"},
    {WGX_DEVICE_STATS_A_TX_DROP_DELAY, "tx_drop_delay", K::Counter,
     "Packets dropped leaving a tx queue that stood longer than the delay target"},
    {WGX_DEVICE_STATS_A_RX_MARK_DELAY, "rx_mark_delay", K::Counter,
     "Transport data marked CE on arrival instead of dropped: its peer's receive queue stood longer than the delay target"},
    {WGX_DEVICE_STATS_A_TX_MARK_DELAY, "tx_mark_delay", K::Counter,
     "ECN-capable packets marked CE instead of dropped leaving a tx queue that stood longer than the delay target"},
};

const StatInfo *find_stat(const std::vector<StatInfo> &table, std::uint16_t attr)
{
    // Dense table: entry i is attribute i + 1 (checked by the unit tests).
    if (attr == 0 || attr > table.size())
        return nullptr;
    return &table[attr - 1];
}

}  // namespace

const std::vector<StatInfo> &peer_stats()
{
    return kPeerStats;
}

const std::vector<StatInfo> &device_stats()
{
    return kDeviceStats;
}

const char *peer_counter_name(std::uint16_t attr)
{
    const StatInfo *s = find_stat(kPeerStats, attr);
    return s ? s->name : "";
}

const char *device_counter_name(std::uint16_t attr)
{
    const StatInfo *s = find_stat(kDeviceStats, attr);
    return s ? s->name : "";
}

std::optional<std::uint64_t> stat_value(const std::optional<Counters> &c, std::uint16_t attr)
{
    if (!c)
        return std::nullopt;
    for (const auto &[a, v] : *c)
        if (a == attr)
            return v;
    return std::nullopt;
}

const Peer *find_peer(const Device &dev, const Key &key)
{
    for (const Peer &p : dev.peers)
        if (p.public_key == key)
            return &p;
    return nullptr;
}

}  // namespace wgx
