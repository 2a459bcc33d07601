// SPDX-License-Identifier: GPL-2.0
//
// `wgx top` without the terminal: rates from counter deltas, sorting, and
// the text of one line per peer.  The live view (top_ui.cpp) and `--once`
// both print what is computed here.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "encoding.hpp"
#include "format.hpp"
#include "telemetry.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {

namespace {

struct SortName {
    TopSort key;
    const char *name;
};

constexpr SortName kSortNames[] = {
    {TopSort::Rx, "rx"},
    {TopSort::Tx, "tx"},
    {TopSort::Rtt, "rtt"},
    {TopSort::Loss, "loss"},
    {TopSort::Retrans, "retrans"},
    {TopSort::Drops, "drops"},
    {TopSort::Handshake, "handshake"},
    {TopSort::Name, "name"},
};

constexpr std::uint16_t kDropStats[] = {
    WGX_PEER_STATS_A_RX_DROP_AUTH,        WGX_PEER_STATS_A_RX_DROP_REPLAY,    WGX_PEER_STATS_A_RX_DROP_ALLOWEDIPS,
    WGX_PEER_STATS_A_RX_DROP_NO_KEYPAIR,  WGX_PEER_STATS_A_RX_DROP_MALFORMED, WGX_PEER_STATS_A_TX_DROP_STAGED_OVERFLOW,
    WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT, WGX_PEER_STATS_A_TX_DROP_ERROR,
};

// Per-second rate of a counter between two samples; nullopt when either is
// unknown or the counter went backwards (a new peer under the same key).
std::optional<double> rate(std::optional<std::uint64_t> before, std::optional<std::uint64_t> now, double elapsed)
{
    if (!before || !now || *now < *before || elapsed <= 0)
        return std::nullopt;
    return static_cast<double>(*now - *before) / elapsed;
}

std::string peer_id(const std::string &iface, const Key &k)
{
    return iface + '\0' + std::string(reinterpret_cast<const char *>(k.data()), k.size());
}

std::string first_allowed_ip(const Peer &p)
{
    if (p.allowed_ips.empty())
        return "(none)";
    std::string s = format_allowed_ip(p.allowed_ips[0]);
    if (p.allowed_ips.size() > 1)
        s += "+" + std::to_string(p.allowed_ips.size() - 1);
    return s;
}

// The value a row sorts by (larger = nearer the top); nullopt = unknown.
std::optional<double> sort_value(const TopRow &r, TopSort key)
{
    switch (key) {
    case TopSort::Rx:
        return r.rx_mbps;
    case TopSort::Tx:
        return r.tx_mbps;
    case TopSort::Rtt:
        if (r.tcp_srtt_us)
            return static_cast<double>(*r.tcp_srtt_us);
        if (r.handshake_srtt_us)
            return static_cast<double>(*r.handshake_srtt_us);
        return std::nullopt;
    case TopSort::Loss:
        return r.loss_percent;
    case TopSort::Retrans:
        return r.retrans_per_s;
    case TopSort::Drops:
        if (r.drops)
            return static_cast<double>(*r.drops);
        return std::nullopt;
    case TopSort::Handshake:
        // Never handshaked sorts above any age: the stalest peers first.
        return r.handshake_age ? static_cast<double>(*r.handshake_age) : 1e300;
    case TopSort::Name:
        return std::nullopt;
    }
    return std::nullopt;
}

std::string num(const std::optional<double> &v, const char *f)
{
    if (!v)
        return "-";
    char buf[32];
    snprintf(buf, sizeof(buf), f, *v);
    return buf;
}

std::string ms(const std::optional<std::uint64_t> &us)
{
    if (!us)
        return "-";
    char buf[32];
    snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(*us) / 1000.0);
    return buf;
}

// Columns of the table; a cell wider than its column is cut only where
// @cut is set (the interface name is never cut: it would be ambiguous).
struct Column {
    const char *title;
    int width;
    bool left;
    bool cut;
};

constexpr Column kColumns[] = {
    {"INTERFACE", 9, true, false},  {"PEER", 8, true, true},        {"ALLOWED IPS", 22, true, true},
    {"RX Mbit/s", 9, false, false}, {"TX Mbit/s", 9, false, false}, {"RX pkt/s", 9, false, false},
    {"TX pkt/s", 9, false, false},  {"RTT ms", 8, false, false},    {"HS RTT ms", 9, false, false},
    {"LOSS %", 6, false, false},    {"RETX/s", 7, false, false},    {"DROPS", 8, false, false},
    {"HANDSHAKE", 9, false, false},
};

std::string columns(const std::vector<std::string> &cells)
{
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const Column &c = kColumns[i];
        std::string cell = cells[i];
        if (c.cut && static_cast<int>(cell.size()) > c.width)
            cell.resize(static_cast<std::size_t>(c.width));
        char buf[96];
        snprintf(buf, sizeof(buf), c.left ? "%-*s" : "%*s", c.width, cell.c_str());
        if (i)
            s += ' ';
        s += buf;
    }
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

}  // namespace

const char *top_sort_name(TopSort s)
{
    for (const SortName &n : kSortNames)
        if (n.key == s)
            return n.name;
    return "?";
}

std::optional<TopSort> parse_top_sort(std::string_view name)
{
    for (const SortName &n : kSortNames)
        if (name == n.name)
            return n.key;
    return std::nullopt;
}

std::vector<TopRow> top_rows(const std::vector<Device> &prev, const std::vector<Device> &cur, double elapsed,
                             std::time_t now)
{
    std::unordered_map<std::string, const Peer *> before;
    for (const Device &d : prev)
        for (const Peer &p : d.peers)
            before.emplace(peer_id(d.name, p.public_key), &p);

    std::vector<TopRow> rows;
    for (const Device &d : cur) {
        for (const Peer &p : d.peers) {
            TopRow r;
            r.iface = d.name;
            r.public_key = key_to_base64(p.public_key);
            r.allowed_ips = first_allowed_ip(p);
            auto st = [&](const Peer &q, std::uint16_t a) { return stat_value(q.stats, a); };
            auto it = before.find(peer_id(d.name, p.public_key));
            if (it != before.end()) {
                const Peer &o = *it->second;
                if (auto v = rate(o.rx_bytes, p.rx_bytes, elapsed))
                    r.rx_mbps = *v * 8 / 1e6;
                if (auto v = rate(o.tx_bytes, p.tx_bytes, elapsed))
                    r.tx_mbps = *v * 8 / 1e6;
                r.rx_pps = rate(st(o, WGX_PEER_STATS_A_RX_PACKETS), st(p, WGX_PEER_STATS_A_RX_PACKETS), elapsed);
                r.tx_pps = rate(st(o, WGX_PEER_STATS_A_TX_PACKETS), st(p, WGX_PEER_STATS_A_TX_PACKETS), elapsed);
                r.retrans_per_s = rate(st(o, WGX_PEER_STATS_A_TX_TCP_RETRANSMITS),
                                       st(p, WGX_PEER_STATS_A_TX_TCP_RETRANSMITS), elapsed);
                auto lost = rate(st(o, WGX_PEER_STATS_A_RX_LOST), st(p, WGX_PEER_STATS_A_RX_LOST), elapsed);
                if (lost && r.rx_pps && *lost + *r.rx_pps > 0)
                    r.loss_percent = 100.0 * *lost / (*lost + *r.rx_pps);
            }
            r.tcp_srtt_us = st(p, WGX_PEER_STATS_A_TCP_SRTT_US);
            r.handshake_srtt_us = st(p, WGX_PEER_STATS_A_HANDSHAKE_SRTT_US);
            for (std::uint16_t a : kDropStats)
                if (auto v = st(p, a))
                    r.drops = r.drops.value_or(0) + *v;
            if (p.last_handshake_sec)
                r.handshake_age =
                    now > p.last_handshake_sec ? static_cast<std::uint64_t>(now - p.last_handshake_sec) : 0;
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

void top_sort(std::vector<TopRow> &rows, TopSort key, bool reverse)
{
    auto by_name = [](const TopRow &a, const TopRow &b) {
        if (a.iface != b.iface)
            return a.iface < b.iface;
        return a.public_key < b.public_key;
    };
    std::sort(rows.begin(), rows.end(), [&](const TopRow &a, const TopRow &b) {
        if (key != TopSort::Name) {
            auto va = sort_value(a, key), vb = sort_value(b, key);
            if (va.has_value() != vb.has_value())
                return va.has_value();  // unknown last, in either direction
            if (va && *va != *vb)
                return reverse ? *va < *vb : *va > *vb;
            return by_name(a, b);
        }
        return reverse ? by_name(b, a) : by_name(a, b);
    });
}

std::string top_format_age(std::optional<std::uint64_t> s)
{
    if (!s)
        return "never";
    char buf[32];
    std::uint64_t v = *s;
    if (v < 60)
        snprintf(buf, sizeof(buf), "%" PRIu64 "s", v);
    else if (v < 3600)
        snprintf(buf, sizeof(buf), "%" PRIu64 "m%02" PRIu64 "s", v / 60, v % 60);
    else if (v < 86400)
        snprintf(buf, sizeof(buf), "%" PRIu64 "h%02" PRIu64 "m", v / 3600, v % 3600 / 60);
    else
        snprintf(buf, sizeof(buf), "%" PRIu64 "d%02" PRIu64 "h", v / 86400, v % 86400 / 3600);
    return buf;
}

std::string top_header()
{
    std::vector<std::string> cells;
    for (const Column &c : kColumns)
        cells.emplace_back(c.title);
    return columns(cells);
}

std::string top_format_row(const TopRow &r)
{
    return columns({
        r.iface,
        r.public_key,
        r.allowed_ips,
        num(r.rx_mbps, "%.2f"),
        num(r.tx_mbps, "%.2f"),
        num(r.rx_pps, "%.0f"),
        num(r.tx_pps, "%.0f"),
        ms(r.tcp_srtt_us),
        ms(r.handshake_srtt_us),
        num(r.loss_percent, "%.2f"),
        num(r.retrans_per_s, "%.1f"),
        r.drops ? std::to_string(*r.drops) : "-",
        top_format_age(r.handshake_age),
    });
}

std::string top_once_text(const std::vector<TopRow> &rows)
{
    std::string s = top_header() + "\n";
    for (const TopRow &r : rows)
        s += top_format_row(r) + "\n";
    return s;
}

}  // namespace wgx
