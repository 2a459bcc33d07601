// SPDX-License-Identifier: GPL-2.0
//
// model.hpp - the wgx tool's data model: a device, its peers and their
// allowed IPs, with "which fields are set" expressed by std::optional and
// flags.  The same structures describe what GET_DEVICE returned and what a
// SET_DEVICE (or `set`/`setconf`) wants to change.  Field meanings follow
// include/uapi/linux/wgx.h.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wgx {

inline constexpr std::size_t kKeyLen = 32;        // bytes, Curve25519 / preshared key
inline constexpr std::size_t kKeyBase64Len = 44;  // characters, without NUL
inline constexpr std::size_t kIfNameMax = 15;     // IFNAMSIZ - 1

using Key = std::array<std::uint8_t, kKeyLen>;

/** True when every byte of @k is zero (constant time). */
bool key_is_zero(const Key &k);

/** Link kind of an interface, from rtnetlink IFLA_INFO_KIND. */
enum class Kind { Unknown, Wgx, WireGuard };

/** "wgx", "wireguard" or "unknown". */
const char *kind_name(Kind k);
/** The generic netlink family serving @k ("wgx" / "wireguard"), nullptr for Unknown. */
const char *kind_family(Kind k);

/** One allowed-IP prefix. @addr is in network byte order; IPv4 uses bytes 0..3. */
struct AllowedIp {
    int family = AF_UNSPEC;  // AF_INET or AF_INET6
    std::array<std::uint8_t, 16> addr{};
    std::uint8_t cidr = 0;  // 0..32 / 0..128
    bool remove = false;    // SET only: WGX_ALLOWEDIP_F_REMOVE_ME

    bool operator==(const AllowedIp &) const = default;
};

/** A UDP endpoint: sockaddr_in or sockaddr_in6 (network byte order). */
struct Endpoint {
    union {
        sockaddr addr;
        sockaddr_in addr4;
        sockaddr_in6 addr6;
    };
    Endpoint();
    int family() const { return addr.sa_family; }
    /** Size of the sockaddr in bytes (16 or 28), 0 for an empty endpoint. */
    std::size_t size() const;
    bool operator==(const Endpoint &o) const;
};

/**
 * Counters nested in WGX_PEER_A_STATS / WGX_DEVICE_A_STATS: (attribute
 * number, value) in the order received.  Numbers the tool does not know are
 * kept and printed by number.
 */
using Counters = std::vector<std::pair<std::uint16_t, std::uint64_t>>;

/** How a statistic's value reads (include/uapi/linux/wgx.h, "Per-peer statistics"). */
enum class StatKind {
    Counter,    // monotonically increasing count of events
    GaugeUsec,  // current value in microseconds (an RTT figure)
};

/** One statistic of WGX_PEER_A_STATS or WGX_DEVICE_A_STATS that the tool knows. */
struct StatInfo {
    std::uint16_t attr;  // WGX_PEER_STATS_A_* / WGX_DEVICE_STATS_A_*
    const char *name;    // stable name: JSON key, dump column, Prometheus metric stem
    StatKind kind;
    const char *help;  // one line: what it counts, for Prometheus HELP and docs
};

/**
 * Every per-peer statistic the tool knows, in attribute-number order with
 * no gaps (entry i has attr i + 1).  Names are the uapi names in lower case
 * without the prefix; gauges end in "_us".
 */
const std::vector<StatInfo> &peer_stats();
/** Every per-device statistic the tool knows, same rules. */
const std::vector<StatInfo> &device_stats();

/** JSON name of a per-peer counter ("rx_packets", ...), or "" if unknown. */
const char *peer_counter_name(std::uint16_t attr);
/** JSON name of a per-device counter, or "" if unknown. */
const char *device_counter_name(std::uint16_t attr);

/**
 * stat_value - the value of statistic @attr in @c; nullopt when @c is absent
 * or does not carry @attr (unknown: the kernel does not track it, or for an
 * RTT gauge, has no sample yet), never a made-up 0.
 */
std::optional<std::uint64_t> stat_value(const std::optional<Counters> &c, std::uint16_t attr);

struct Peer {
    Key public_key{};
    std::optional<Key> preshared_key;  // GET: present if non-zero; SET: zero removes
    std::optional<Endpoint> endpoint;
    std::optional<std::uint16_t> persistent_keepalive;  // seconds, 0 = off
    std::vector<AllowedIp> allowed_ips;
    std::optional<std::uint32_t> mtu;  // wgx only: WGX_PEER_A_MTU, fixed inner bytes, 0 = auto

    // SET-only flags.
    bool remove = false;                // WGX_PEER_F_REMOVE_ME
    bool replace_allowed_ips = false;   // WGX_PEER_F_REPLACE_ALLOWEDIPS
    bool update_only = false;           // WGX_PEER_F_UPDATE_ONLY
    std::optional<Key> new_public_key;  // WGX_PEER_A_NEW_PUBLIC_KEY: re-key in place (wgx only)
    std::string endpoint_text;          // parsed files only: the Endpoint as written, for `reresolve`

    // GET-only (read-only) values.
    std::int64_t last_handshake_sec = 0;  // CLOCK_REALTIME seconds, 0 = never
    std::int64_t last_handshake_nsec = 0;
    std::uint64_t rx_bytes = 0;
    std::uint64_t tx_bytes = 0;
    std::uint32_t protocol_version = 0;         // 0 = not reported
    std::optional<Counters> stats;              // wgx only
    std::optional<std::uint32_t> session_keys;  // wgx only: WGX_SESSION_F_* of the current session
    std::optional<std::uint32_t> path_mtu;      // wgx only: outer path MTU, bytes (WGX_PEER_A_PATH_MTU)
    std::uint32_t path_mtu_source = 0;          // enum wgx_path_mtu_source, with path_mtu
};

/**
 * Receive spreading (WGX_DEVICE_A_RX_SPREAD), with the values of enum
 * wgx_rx_spread_mode.  A value from a newer kernel that has no name here is
 * kept as it came (rx_spread_name() returns nullptr for it).
 */
enum class RxSpread : std::uint8_t {
    Off = 0,   // decrypt on the CPU a packet arrives on (WireGuard's behaviour)
    On = 1,    // decrypt every peer on all CPUs, deliver in order
    Auto = 2,  // the kernel decides per peer (its default)
};

/** "off", "on" or "auto"; nullptr for a value without a name. */
const char *rx_spread_name(RxSpread mode);

/** "route", "icmp", "probe", "fragmenting" or "fixed" (enum wgx_path_mtu_source); "unknown" for others. */
const char *path_mtu_source_name(std::uint32_t source);

/** An offload toggle requested by `set IF offload NAME on|off`. */
struct OffloadSetting {
    std::string name;  // gso, gro, tx-checksum, rx-checksum
    bool on = false;
    bool operator==(const OffloadSetting &) const = default;
};

struct Device {
    std::string name;
    std::uint32_t ifindex = 0;
    Kind kind = Kind::Unknown;

    std::optional<Key> private_key;  // GET: present if set; SET: zero removes
    std::optional<Key> public_key;   // GET only
    std::optional<std::uint16_t> listen_port;
    std::optional<std::uint16_t> listen_ports;      // wgx only: SET 0 = auto, N = N consecutive ports
                                                    // (1 = WireGuard); GET the ports listened on
    std::optional<bool> listen_ports_auto;          // GET, wgx only: the number of ports is automatic
    std::optional<RxSpread> rx_spread;              // wgx only: decrypt on every CPU, deliver in order
    std::optional<bool> dscp_copy;                  // wgx only: outer DSCP = inner (false = 0, WireGuard's)
    std::optional<std::uint64_t> priority_dscp;     // wgx only: priority lane DSCP set, bit n = DSCP n
    std::optional<std::uint32_t> handshake_budget;  // wgx only: initiations/s, 0 = automatic
    std::optional<std::uint32_t> key_grace;         // wgx only: seconds the previous private key stays valid
    std::optional<Key> previous_public_key;         // GET, wgx only: during a key change's grace period
    std::optional<std::uint32_t> fwmark;
    std::optional<bool> mtu_auto;  // wgx only: WGX_DEVICE_A_MTU_AUTO (SET: true = follow the underlay again)
    bool replace_peers = false;  // SET only: WGX_DEVICE_F_REPLACE_PEERS
    std::vector<Peer> peers;
    std::optional<Counters> stats;  // GET, wgx only

    // Link-level settings (rtnetlink / ethtool), not part of genetlink.
    std::optional<std::uint32_t> mtu;      // bytes
    std::vector<OffloadSetting> offloads;  // SET only
};

/** Find the peer with @key in @dev, or nullptr. */
const Peer *find_peer(const Device &dev, const Key &key);

}  // namespace wgx
