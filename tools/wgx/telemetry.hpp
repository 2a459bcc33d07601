// SPDX-License-Identifier: GPL-2.0
//
// telemetry.hpp - what `wgx top`, `wgx exporter` and `wgx show --prometheus`
// share: reading several devices, the Prometheus text exposition, and the
// rate and sorting logic of top.  Everything here except read_devices() is
// a pure function of the data model (and of times passed in), unit-tested
// without a kernel.  docs/telemetry.md explains every figure.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"
#include "netlink.hpp"

namespace wgx {

// ---------------------------------------------------------------- devices

/**
 * read_devices - the state of the interfaces @names (get_device() each), or
 * of every wgx and wireguard interface when @names is empty or is just
 * "all".  With explicit names every one must be readable, else the first
 * error is returned naming the interface.  With "all", an interface that
 * disappears between listing and reading (ENODEV) is skipped; any other
 * error (EPERM, ...) is returned, so that "no access" never reads as "no
 * peers".
 */
Status read_devices(const std::vector<std::string> &names, std::vector<Device> &out);

// ---------------------------------------------------------------- Prometheus

/**
 * prometheus_label_value - @s escaped for a label value of the text
 * exposition format (backslash, double quote and line feed become \\, \"
 * and \n), without the surrounding quotes.
 */
std::string prometheus_label_value(std::string_view s);

/** @s escaped for a HELP line (backslash and line feed). */
std::string prometheus_help_text(std::string_view s);

/** Metric name of a per-peer statistic: "wgx_peer_<name>_total", gauges "..._seconds". */
std::string prometheus_peer_metric(const StatInfo &s);
/** Metric name of a per-device statistic: "wgx_device_<name>_total". */
std::string prometheus_device_metric(const StatInfo &s);

/**
 * format_prometheus - the Prometheus text exposition format (version 0.0.4)
 * of @devs, every metric family with its HELP and TYPE lines and its
 * samples together:
 *  - prometheus_wireguard_exporter's families, same names, labels and
 *    meaning: wireguard_sent_bytes_total, wireguard_received_bytes_total
 *    (counters) and wireguard_latest_handshake_seconds (gauge: UNIX time of
 *    the latest handshake, 0 = never) with labels interface, public_key,
 *    allowed_ips (comma-joined as `wg show dump` prints them);
 *  - wgx_device_peers{interface} (gauge), the number of peers (that
 *    exporter's newer wireguard_peers_total, a gauge named like a counter,
 *    is left out: promtool check metrics refuses it);
 *  - wgx_peer_<stat> for every per-peer statistic of peer_stats(), labels
 *    interface and public_key: counters as "..._total", RTT gauges in
 *    seconds as "..._seconds"; numbers the tool does not know as untyped
 *    wgx_peer_stat_<n>;
 *  - wgx_device_<stat>_total{interface} for every per-device statistic.
 * A statistic the kernel does not report has no sample (unknown is never
 * exported as 0); a family without samples is left out, except the
 * wireguard_* ones and wgx_device_peers.
 */
std::string format_prometheus(const std::vector<Device> &devs);

// ---------------------------------------------------------------- exporter

/**
 * resolve_listen_address - `wgx exporter --listen` text: "HOST:PORT" with
 * HOST an IPv4 address or a host name, or "[IPv6]:PORT"; PORT 1-65535.
 * Fills @out with the addresses to listen on: the literal one, or each
 * address getaddrinfo() gives for the name (e.g. 127.0.0.1 and ::1 for
 * localhost), duplicates dropped, in its order.  May block on the resolver.
 * False with a reason in @error otherwise.
 */
bool resolve_listen_address(const std::string &text, std::vector<Endpoint> &out, std::string &error);

/** The options `wgx exporter` accepts: "--listen" (also as --listen=VALUE). */
const std::vector<std::string> &exporter_options();

// ---------------------------------------------------------------- top

/** The options `wgx top` accepts: "--once", "--sort", "--interval" (those with a value also as --opt=VALUE). */
const std::vector<std::string> &top_options();

/** Sort keys of `wgx top`. */
enum class TopSort { Rx, Tx, Rtt, Loss, Retrans, Drops, Handshake, Name };

/** "rx", "tx", "rtt", "loss", "retrans", "drops", "handshake", "name". */
const char *top_sort_name(TopSort s);
/** The key for @name (as top_sort_name() spells it), nullopt if unknown. */
std::optional<TopSort> parse_top_sort(std::string_view name);

/** One peer's line in `wgx top`: what is known at the latest sample. */
struct TopRow {
    std::string iface;
    std::string public_key;   // base64
    std::string allowed_ips;  // first allowed IP, "+N" more; "(none)"
    // Rates over the last interval; nullopt when unknown (first sample of
    // the peer, counter went backwards, statistic not reported).
    std::optional<double> rx_mbps, tx_mbps;          // 10^6 bit/s of tunnel (UDP payload) bytes
    std::optional<double> rx_pps, tx_pps;            // transport data packets / s
    std::optional<double> loss_percent;              // lost / (lost + received) over the interval
    std::optional<double> retrans_per_s;             // inner TCP retransmissions / s (approximate)
    std::optional<std::uint64_t> tcp_srtt_us;        // smoothed passive TCP RTT
    std::optional<std::uint64_t> handshake_srtt_us;  // smoothed handshake RTT
    std::optional<std::uint64_t> drops;              // sum of the per-peer drop counters, cumulative
    std::optional<std::uint64_t> handshake_age;      // seconds since the latest handshake; nullopt = never
};

/**
 * top_rows - one row per peer of @cur (devices in order, peers in kernel
 * order), its rates derived from the counter deltas against the same peer
 * (same interface and public key) in @prev over @elapsed seconds (> 0).
 * A peer missing from @prev, or whose counter is lower than before (the
 * peer was removed and added again), gets no rate for that figure.  @now
 * is the wall-clock time for handshake ages.
 */
std::vector<TopRow> top_rows(const std::vector<Device> &prev, const std::vector<Device> &cur, double elapsed,
                             std::time_t now);

/**
 * top_sort - order @rows by @key: largest first for every numeric key (the
 * busiest, slowest, lossiest peers on top; for handshake the oldest, "never"
 * first), alphabetical (interface, then public key) for name; @reverse
 * turns it around.  Unknown values always sort last.  Ties keep interface
 * and public key order, so the order is total and stable between refreshes.
 */
void top_sort(std::vector<TopRow> &rows, TopSort key, bool reverse = false);

/** The column header line of top (no line feed). */
std::string top_header();
/** One row formatted in the columns of top_header() (no line feed); "-" for unknown. */
std::string top_format_row(const TopRow &r);
/** "12s", "3m04s", "2h05m", "3d04h", or "never" for nullopt. */
std::string top_format_age(std::optional<std::uint64_t> seconds);

/**
 * top_once_text - what `wgx top --once` prints: the header line and every
 * row of @rows (already sorted), each ending in a line feed, plain text.
 */
std::string top_once_text(const std::vector<TopRow> &rows);

}  // namespace wgx
