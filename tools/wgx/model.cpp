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
        return addr4.sin_port == o.addr4.sin_port &&
               addr4.sin_addr.s_addr == o.addr4.sin_addr.s_addr;
    if (family() == AF_INET6)
        return addr6.sin6_port == o.addr6.sin6_port &&
               std::memcmp(&addr6.sin6_addr, &o.addr6.sin6_addr, 16) == 0 &&
               addr6.sin6_scope_id == o.addr6.sin6_scope_id;
    return true;
}

const char *peer_counter_name(std::uint16_t attr)
{
    switch (attr) {
    case WGX_PEER_STATS_A_RX_PACKETS: return "rx_packets";
    case WGX_PEER_STATS_A_TX_PACKETS: return "tx_packets";
    case WGX_PEER_STATS_A_RX_DROP_AUTH: return "rx_drop_auth";
    case WGX_PEER_STATS_A_RX_DROP_REPLAY: return "rx_drop_replay";
    case WGX_PEER_STATS_A_RX_DROP_ALLOWEDIPS: return "rx_drop_allowedips";
    case WGX_PEER_STATS_A_RX_DROP_NO_KEYPAIR: return "rx_drop_no_keypair";
    case WGX_PEER_STATS_A_RX_DROP_MALFORMED: return "rx_drop_malformed";
    case WGX_PEER_STATS_A_TX_DROP_STAGED_OVERFLOW: return "tx_drop_staged_overflow";
    case WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT: return "tx_drop_no_endpoint";
    case WGX_PEER_STATS_A_TX_DROP_ERROR: return "tx_drop_error";
    case WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_TX: return "handshake_initiations_tx";
    case WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_RX: return "handshake_initiations_rx";
    case WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_TX: return "handshake_responses_tx";
    case WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_RX: return "handshake_responses_rx";
    case WGX_PEER_STATS_A_COOKIE_REPLIES_RX: return "cookie_replies_rx";
    case WGX_PEER_STATS_A_HANDSHAKES_COMPLETED: return "handshakes_completed";
    case WGX_PEER_STATS_A_HANDSHAKE_TIMEOUTS: return "handshake_timeouts";
    case WGX_PEER_STATS_A_HANDSHAKE_DROP_INVALID: return "handshake_drop_invalid";
    case WGX_PEER_STATS_A_KEEPALIVES_TX: return "keepalives_tx";
    case WGX_PEER_STATS_A_KEEPALIVES_RX: return "keepalives_rx";
    default: return "";
    }
}

const char *device_counter_name(std::uint16_t attr)
{
    switch (attr) {
    case WGX_DEVICE_STATS_A_RX_HANDSHAKE_PACKETS: return "rx_handshake_packets";
    case WGX_DEVICE_STATS_A_RX_DROP_MALFORMED: return "rx_drop_malformed";
    case WGX_DEVICE_STATS_A_RX_DROP_MAC1: return "rx_drop_mac1";
    case WGX_DEVICE_STATS_A_RX_DROP_MAC2: return "rx_drop_mac2";
    case WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_PEER: return "rx_drop_unknown_peer";
    case WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_INDEX: return "rx_drop_unknown_index";
    case WGX_DEVICE_STATS_A_RX_DROP_RATELIMITED: return "rx_drop_ratelimited";
    case WGX_DEVICE_STATS_A_RX_DROP_HANDSHAKE_QUEUE: return "rx_drop_handshake_queue";
    case WGX_DEVICE_STATS_A_COOKIE_REPLIES_TX: return "cookie_replies_tx";
    case WGX_DEVICE_STATS_A_TX_DROP_NO_PEER: return "tx_drop_no_peer";
    case WGX_DEVICE_STATS_A_UNDER_LOAD_ENTERED: return "under_load_entered";
    default: return "";
    }
}

const Peer *find_peer(const Device &dev, const Key &key)
{
    for (const Peer &p : dev.peers)
        if (p.public_key == key)
            return &p;
    return nullptr;
}

}  // namespace wgx
