// SPDX-License-Identifier: GPL-2.0
//
// format.hpp - the printers behind `show`, `showconf` and `show --json`.
// Pure functions from the data model to text: no netlink, no clock (the
// current time is a parameter), no environment (options are parameters).
// Text formats are byte-for-byte those of wg(8).
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace wgx {

struct ShowOptions {
    std::time_t now = 0;    // wall-clock seconds, for "N seconds ago"
    bool color = false;     // ANSI colours as wg uses on a terminal
    bool hide_keys = true;  // private/preshared keys print as "(hidden)" (WG_HIDE_KEYS)
};

/** "1.2.3.4:51820" or "[2001:db8::1]:51820" (numeric, as wg prints). */
std::string format_endpoint(const Endpoint &ep);
/** "10.0.0.0/24", "fd00::/64". */
std::string format_allowed_ip(const AllowedIp &ip);
/** wg's duration: "1 year, 2 days, 3 hours, 4 minutes, 5 seconds" (zero parts omitted). */
std::string format_duration(std::uint64_t seconds, bool color = false);
/** wg's byte counts: "512 B", "1.50 KiB", "3.00 MiB", "1.00 GiB", "2.00 TiB". */
std::string format_bytes(std::uint64_t bytes, bool color = false);

/** Microseconds as milliseconds with three decimals: "20.512 ms". */
std::string format_usec(std::uint64_t us, bool color = false);
/** @part / @whole as "0.42%"; "-" when @whole is 0. */
std::string format_percent(std::uint64_t part, std::uint64_t whole);

/**
 * format_peer_telemetry - wgx's lines after wg's for one peer in `show`:
 * "handshake rtt", "tcp rtt", "packet loss", "tcp retransmits", "drops" and
 * "handshakes paced", each only when it has something known and non-zero
 * to say (as wg omits an empty transfer line).  "" for a peer without
 * statistics (an in-tree WireGuard device), so that output stays wg's.
 */
std::string format_peer_telemetry(const Peer &p, bool color);

/** Peers in the order wg's pretty printer uses: most recent handshake first, never last. */
std::vector<const Peer *> peers_by_handshake(const Device &dev);

/** `wg show IF` human format for one device. */
std::string format_show(const Device &dev, const ShowOptions &opts);

/**
 * `wg show IF dump`: tab-separated device line then one line per peer, as wg
 * prints them (a peer line has wg's eight fields, whatever the device).
 * With @telemetry (`show IF dump-telemetry`, a wgx extension) each peer line
 * continues with one column per statistic of peer_stats(): column 8 +
 * attribute number (9 + with the interface), the value or "-" when unknown
 * (every column of an in-tree WireGuard peer); the device line stays wg's.
 */
std::string format_dump(const Device &dev, bool with_interface, bool telemetry = false);

/**
 * `wg show IF <field>` for field in public-key, private-key, listen-port,
 * fwmark, peers, preshared-keys, endpoints, allowed-ips, latest-handshakes,
 * persistent-keepalive, transfer, dump, and wgx's dump-telemetry.  nullopt
 * for an unknown field.
 */
std::optional<std::string> format_show_field(const Device &dev, std::string_view field, bool with_interface);

/** The field names format_show_field() accepts, in wg's usage order. */
const std::vector<std::string> &show_fields();

/**
 * Whether format_show_field() prints counters for @field (Device::stats,
 * Peer::stats): only "dump-telemetry", whose columns after wg's are the
 * peer's counters.  The others can be read without them (WGX_GET_F_NO_STATS).
 */
bool show_field_needs_stats(std::string_view field);

/**
 * `showconf`: the configuration in wg(8) file grammar.  Zero private and
 * preshared keys count as absent.  `MTU = ` is printed only for kind wgx
 * with a known MTU, so that for an in-tree WireGuard device the output is
 * byte-identical to `wg showconf` (the MTU key is a wgx extension that wg
 * would refuse).
 */
std::string format_showconf(const Device &dev);

/**
 * `show --json`: one JSON document for @devs, format version 1:
 *
 *   { "version": 1, "interfaces": [ {
 *       "name": string, "kind": "wgx" | "wireguard", "ifindex": number,
 *       "public_key": base64 | null, "has_private_key": bool,
 *       "private_key": base64 | null  (null unless hide_keys is false),
 *       "listen_port": number, "fwmark": number (0 = off),
 *       "mtu": number | null,
 *       "stats": { "<counter>": number, ... } | null   (wgx only),
 *       "peers": [ {
 *           "public_key": base64, "has_preshared_key": bool,
 *           "preshared_key": base64 | null  (null unless hide_keys is false),
 *           "endpoint": "ip:port" | "[ip6]:port" | null,
 *           "allowed_ips": [ "addr/cidr", ... ],
 *           "latest_handshake": unix seconds (0 = never),
 *           "rx_bytes": number, "tx_bytes": number,
 *           "persistent_keepalive": seconds (0 = off),
 *           "protocol_version": number (0 = not reported),
 *           "stats": { "<counter>": number, ... } | null } ] } ] }
 *
 * Counter names are those of peer_counter_name()/device_counter_name();
 * numbers the tool does not know appear as "counter_<n>".  Fields are only
 * ever added, never renamed or removed, while "version" stays 1.  Peers keep
 * kernel order.  Numbers are exact 64-bit integers.
 */
std::string format_json(const std::vector<Device> &devs, bool hide_keys);

/** JSON string literal (with quotes) for @s; control characters escaped. */
std::string json_quote(std::string_view s);

}  // namespace wgx
