// SPDX-License-Identifier: GPL-2.0
//
// The Prometheus text exposition of `wgx exporter` and `wgx show
// --prometheus` (format: prometheus.io, "Exposition formats", text format
// 0.0.4), and read_devices() which both use.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <functional>

#include "encoding.hpp"
#include "format.hpp"
#include "ipc.hpp"
#include "telemetry.hpp"

namespace wgx {

Status read_devices(const std::vector<std::string> &names, std::vector<Device> &out)
{
    out.clear();
    if (names.empty() || (names.size() == 1 && names[0] == "all")) {
        std::vector<LinkInfo> links;
        Status st = list_devices(links);
        if (!st.is_ok()) {
            st.msg = "unable to list interfaces" + (st.msg.empty() ? "" : ": " + st.msg);
            return st;
        }
        for (const LinkInfo &l : links) {
            Device d;
            st = get_device(l.name, d);
            if (st.err == ENODEV)
                continue;       // gone since the listing
            if (!st.is_ok()) {  // e.g. EPERM: an empty answer would hide it
                st.msg = "unable to access interface " + l.name + (st.msg.empty() ? "" : ": " + st.msg);
                return st;
            }
            out.push_back(std::move(d));
        }
        return Status::ok();
    }
    for (const std::string &n : names) {
        Device d;
        Status st = get_device(n, d);
        if (!st.is_ok()) {
            st.msg = "unable to access interface " + n + (st.msg.empty() ? "" : ": " + st.msg);
            return st;
        }
        out.push_back(std::move(d));
    }
    return Status::ok();
}

std::string prometheus_label_value(std::string_view s)
{
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        if (c == '\\')
            o += "\\\\";
        else if (c == '"')
            o += "\\\"";
        else if (c == '\n')
            o += "\\n";
        else
            o += c;
    }
    return o;
}

std::string prometheus_help_text(std::string_view s)
{
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        if (c == '\\')
            o += "\\\\";
        else if (c == '\n')
            o += "\\n";
        else
            o += c;
    }
    return o;
}

std::string prometheus_peer_metric(const StatInfo &s)
{
    std::string n = s.name;
    if (s.kind == StatKind::GaugeUsec) {
        if (n.size() > 3 && n.compare(n.size() - 3, 3, "_us") == 0)
            n.resize(n.size() - 3);
        return "wgx_peer_" + n + "_seconds";
    }
    return "wgx_peer_" + n + "_total";
}

std::string prometheus_device_metric(const StatInfo &s)
{
    return std::string("wgx_device_") + s.name + "_total";
}

namespace {

// Exact decimal seconds from microseconds: 20512 -> "0.020512", 3000000 -> "3".
std::string usec_as_seconds(std::uint64_t us)
{
    std::string s = std::to_string(us / 1000000);
    unsigned frac = static_cast<unsigned>(us % 1000000);
    if (frac) {
        char buf[8];
        snprintf(buf, sizeof(buf), "%06u", frac);
        std::string f = buf;
        while (f.back() == '0')
            f.pop_back();
        s += "." + f;
    }
    return s;
}

// One metric family under construction: header once, then its samples.
class Family {
public:
    Family(std::string name, const char *type, std::string help)
        : name_(std::move(name)), type_(type), help_(std::move(help))
    {
    }
    void sample(const std::string &labels, const std::string &value)
    {
        body_ += name_ + "{" + labels + "} " + value + "\n";
        ++samples_;
    }
    // Appends the family to @out; an empty one only when @always.
    void emit(std::string &out, bool always = false) const
    {
        if (!samples_ && !always)
            return;
        out += "# HELP " + name_ + " " + prometheus_help_text(help_) + "\n";
        out += "# TYPE " + name_ + " " + type_ + "\n";
        out += body_;
    }

private:
    std::string name_;
    const char *type_;
    std::string help_;
    std::string body_;
    std::size_t samples_ = 0;
};

std::string label(const char *name, std::string_view value)
{
    return std::string(name) + "=\"" + prometheus_label_value(value) + "\"";
}

std::string allowed_ips_label(const Peer &p)
{
    if (p.allowed_ips.empty())
        return "(none)";  // as `wg show dump` prints it
    std::string s;
    for (std::size_t i = 0; i < p.allowed_ips.size(); ++i)
        s += (i ? "," : "") + format_allowed_ip(p.allowed_ips[i]);
    return s;
}

std::string stat_text(const StatInfo *info, std::uint64_t v)
{
    return info && info->kind == StatKind::GaugeUsec ? usec_as_seconds(v) : std::to_string(v);
}

}  // namespace

std::string format_prometheus(const std::vector<Device> &devs)
{
    Family sent("wireguard_sent_bytes_total", "counter",
                "Bytes sent to the peer (WireGuard messages, as `wg show` transfer)");
    Family received("wireguard_received_bytes_total", "counter",
                    "Bytes received from the peer (WireGuard messages, as `wg show` transfer)");
    Family handshake("wireguard_latest_handshake_seconds", "gauge",
                     "UNIX time in seconds of the latest handshake with the peer, 0 if none");
    // Not prometheus_wireguard_exporter's wireguard_peers_total: promtool
    // refuses "_total" on a gauge.
    Family peers("wgx_device_peers", "gauge", "Peers configured on the interface");

    std::vector<Family> peer_families, device_families;
    for (const StatInfo &s : peer_stats())
        peer_families.emplace_back(prometheus_peer_metric(s), s.kind == StatKind::Counter ? "counter" : "gauge",
                                   std::string(s.help) + (s.kind == StatKind::GaugeUsec ? ", in seconds" : ""));
    for (const StatInfo &s : device_stats())
        device_families.emplace_back(prometheus_device_metric(s), "counter", s.help);
    // Statistics of a newer kernel, by number, in order of first appearance.
    std::vector<std::pair<std::string, Family>> unknown;
    auto unknown_family = [&](const std::string &name, const std::string &what) -> Family & {
        for (auto &[n, f] : unknown)
            if (n == name)
                return f;
        unknown.emplace_back(
            name, Family(name, "untyped", "Statistic " + what + " not known to this wgx tool (see the kernel's uapi)"));
        return unknown.back().second;
    };

    for (const Device &d : devs) {
        std::string iface = label("interface", d.name);
        peers.sample(iface, std::to_string(d.peers.size()));
        if (d.stats) {
            for (const auto &[attr, v] : *d.stats) {
                if (attr >= 1 && attr <= device_families.size())
                    device_families[attr - 1].sample(iface, std::to_string(v));
                else
                    unknown_family("wgx_device_stat_" + std::to_string(attr), "per-device " + std::to_string(attr))
                        .sample(iface, std::to_string(v));
            }
        }
        for (const Peer &p : d.peers) {
            std::string key = key_to_base64(p.public_key);
            std::string peer = iface + "," + label("public_key", key);
            std::string wg = peer + "," + label("allowed_ips", allowed_ips_label(p));
            sent.sample(wg, std::to_string(p.tx_bytes));
            received.sample(wg, std::to_string(p.rx_bytes));
            handshake.sample(wg, std::to_string(p.last_handshake_sec));
            if (!p.stats)
                continue;
            for (const auto &[attr, v] : *p.stats) {
                if (attr >= 1 && attr <= peer_families.size())
                    peer_families[attr - 1].sample(peer, stat_text(&peer_stats()[attr - 1], v));
                else
                    unknown_family("wgx_peer_stat_" + std::to_string(attr), "per-peer " + std::to_string(attr))
                        .sample(peer, std::to_string(v));
            }
        }
    }

    std::string out;
    sent.emit(out, true);
    received.emit(out, true);
    handshake.emit(out, true);
    peers.emit(out, true);
    for (const Family &f : peer_families)
        f.emit(out);
    for (const Family &f : device_families)
        f.emit(out);
    for (const auto &[n, f] : unknown)
        f.emit(out);
    return out;
}

}  // namespace wgx
