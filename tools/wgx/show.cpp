// SPDX-License-Identifier: GPL-2.0
//
// `wgx show`: wg's human format, its tab-separated `dump` and single-field
// formats, and the JSON document.
#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "encoding.hpp"
#include "format.hpp"
#include "ipc.hpp"
#include "options.hpp"
#include "subcommands.hpp"
#include "values.hpp"
#include "telemetry.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {
namespace {

constexpr const char *kReset = "\x1b[0m";
constexpr const char *kBold = "\x1b[1m";
constexpr const char *kRed = "\x1b[31m";
constexpr const char *kGreen = "\x1b[32m";
constexpr const char *kYellow = "\x1b[33m";
constexpr const char *kCyan = "\x1b[36m";

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return std::string(buf, n < 0 ? 0 : std::min<std::size_t>(n, sizeof(buf) - 1));
}

std::string maybe_key(const std::optional<Key> &k)
{
    return k && !key_is_zero(*k) ? key_to_base64(*k) : "(none)";
}

bool has_key(const std::optional<Key> &k)
{
    return k && !key_is_zero(*k);
}

std::string fwmark_text(const Device &d)
{
    std::uint32_t m = d.fwmark.value_or(0);
    return m ? fmt("0x%x", m) : "off";
}

std::string allowed_ips_joined(const Peer &p, const char *sep, const char *last)
{
    if (p.allowed_ips.empty())
        return std::string("(none)") + last;
    std::string s;
    for (std::size_t i = 0; i < p.allowed_ips.size(); ++i) {
        s += format_allowed_ip(p.allowed_ips[i]);
        s += i + 1 < p.allowed_ips.size() ? sep : last;
    }
    return s;
}

std::string endpoint_or_none(const Peer &p)
{
    return p.endpoint && p.endpoint->size() ? format_endpoint(*p.endpoint) : "(none)";
}

}  // namespace

// ---------------------------------------------------------------- pieces

std::string format_endpoint(const Endpoint &ep)
{
    char host[NI_MAXHOST + 1], serv[NI_MAXSERV + 1];
    socklen_t len = static_cast<socklen_t>(ep.size());
    if (!len)
        return "(none)";
    int ret =
        getnameinfo(&ep.addr, len, host, sizeof(host), serv, sizeof(serv), NI_DGRAM | NI_NUMERICSERV | NI_NUMERICHOST);
    if (ret)
        return gai_strerror(ret);
    if (ep.family() == AF_INET6 && strchr(host, ':'))
        return std::string("[") + host + "]:" + serv;
    return std::string(host) + ":" + serv;
}

std::string format_allowed_ip(const AllowedIp &ip)
{
    char buf[INET6_ADDRSTRLEN] = "";
    if (ip.family == AF_INET || ip.family == AF_INET6)
        inet_ntop(ip.family, ip.addr.data(), buf, sizeof(buf));
    return std::string(buf) + "/" + std::to_string(ip.cidr);
}

std::string format_duration(std::uint64_t left, bool color)
{
    struct Unit {
        const char *name;
        std::uint64_t seconds;
    };
    static constexpr Unit units[] = {
        {"year", 365ULL * 24 * 60 * 60}, {"day", 24 * 60 * 60}, {"hour", 60 * 60}, {"minute", 60}, {"second", 1}};
    std::string s;
    for (const Unit &u : units) {
        std::uint64_t n = left / u.seconds;
        left %= u.seconds;
        if (!n)
            continue;
        if (!s.empty())
            s += ", ";
        s += std::to_string(n) + " " + (color ? kCyan : "") + u.name + (n == 1 ? "" : "s") + (color ? kReset : "");
    }
    return s;
}

std::string format_bytes(std::uint64_t b, bool color)
{
    std::string unit_on = color ? kCyan : "", off = color ? kReset : "";
    if (b < 1024ULL)
        return fmt("%u ", static_cast<unsigned>(b)) + unit_on + "B" + off;
    if (b < 1024ULL * 1024)
        return fmt("%.2f ", static_cast<double>(b) / 1024) + unit_on + "KiB" + off;
    if (b < 1024ULL * 1024 * 1024)
        return fmt("%.2f ", static_cast<double>(b) / (1024 * 1024)) + unit_on + "MiB" + off;
    if (b < 1024ULL * 1024 * 1024 * 1024)
        return fmt("%.2f ", static_cast<double>(b) / (1024 * 1024 * 1024)) + unit_on + "GiB" + off;
    return fmt("%.2f ", static_cast<double>(b) / (1024 * 1024 * 1024) / 1024) + unit_on + "TiB" + off;
}

std::vector<const Peer *> peers_by_handshake(const Device &dev)
{
    std::vector<const Peer *> v;
    for (const Peer &p : dev.peers)
        v.push_back(&p);
    auto never = [](const Peer *p) { return !p->last_handshake_sec && !p->last_handshake_nsec; };
    std::stable_sort(v.begin(), v.end(), [&](const Peer *a, const Peer *b) {
        if (never(a) != never(b))
            return never(b);  // peers with a handshake first
        if (a->last_handshake_sec != b->last_handshake_sec)
            return a->last_handshake_sec > b->last_handshake_sec;
        return a->last_handshake_nsec > b->last_handshake_nsec;
    });
    return v;
}

// ---------------------------------------------------------------- human

std::string format_usec(std::uint64_t us, bool color)
{
    return fmt("%" PRIu64 ".%03u ", us / 1000, static_cast<unsigned>(us % 1000)) + (color ? kCyan : "") + "ms" +
           (color ? kReset : "");
}

std::string format_percent(std::uint64_t part, std::uint64_t whole)
{
    if (!whole)
        return "-";
    return fmt("%.2f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

namespace {

// "1.520 ms, min 1.200 ms, smoothed 1.480 ms (4 samples)" from whichever of
// the four are known; "" when there is no sample.
std::string rtt_text(const Peer &p, std::uint16_t last, std::uint16_t min, std::uint16_t srtt, std::uint16_t var,
                     std::uint16_t samples, bool color)
{
    auto v_last = stat_value(p.stats, last), v_min = stat_value(p.stats, min), v_srtt = stat_value(p.stats, srtt),
         v_n = stat_value(p.stats, samples);
    auto v_var = var ? stat_value(p.stats, var) : std::nullopt;
    if ((v_n && !*v_n) || (!v_last && !v_min && !v_srtt))
        return "";
    std::string s;
    auto add = [&](const char *what, const std::optional<std::uint64_t> &v) {
        if (!v)
            return;
        if (!s.empty())
            s += ", ";
        s += std::string(what) + format_usec(*v, color);
    };
    add("", v_last);
    add("min ", v_min);
    add("smoothed ", v_srtt);
    add("variation ", v_var);
    if (v_n)
        s += fmt(" (%" PRIu64 " sample%s)", *v_n, *v_n == 1 ? "" : "s");
    return s;
}

struct DropName {
    std::uint16_t attr;
    const char *text;
};

constexpr DropName kRxDrops[] = {
    {WGX_PEER_STATS_A_RX_DROP_AUTH, "authentication"},    {WGX_PEER_STATS_A_RX_DROP_REPLAY, "replay"},
    {WGX_PEER_STATS_A_RX_DROP_ALLOWEDIPS, "allowed ips"}, {WGX_PEER_STATS_A_RX_DROP_NO_KEYPAIR, "no keypair"},
    {WGX_PEER_STATS_A_RX_DROP_MALFORMED, "malformed"},
};
constexpr DropName kTxDrops[] = {
    {WGX_PEER_STATS_A_TX_DROP_STAGED_OVERFLOW, "staged queue full"},
    {WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT, "no endpoint"},
    {WGX_PEER_STATS_A_TX_DROP_ERROR, "send error"},
};

template <std::size_t N> std::string drop_list(const Peer &p, const DropName (&names)[N])
{
    std::string s;
    for (const DropName &d : names) {
        std::uint64_t v = stat_value(p.stats, d.attr).value_or(0);
        if (!v)
            continue;
        s += (s.empty() ? "" : ", ") + std::to_string(v) + " " + d.text;
    }
    return s;
}

}  // namespace

std::string format_peer_telemetry(const Peer &p, bool color)
{
    if (!p.stats)
        return "";
    auto label = [&](const char *l) {
        return std::string("  ") + (color ? kBold : "") + l + (color ? kReset : "") + ": ";
    };
    std::string s, t;
    t = rtt_text(p, WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US, WGX_PEER_STATS_A_HANDSHAKE_RTT_MIN_US,
                 WGX_PEER_STATS_A_HANDSHAKE_SRTT_US, 0, WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES, color);
    if (!t.empty())
        s += label("handshake rtt") + t + "\n";
    t = rtt_text(p, WGX_PEER_STATS_A_TCP_RTT_LAST_US, WGX_PEER_STATS_A_TCP_RTT_MIN_US, WGX_PEER_STATS_A_TCP_SRTT_US,
                 WGX_PEER_STATS_A_TCP_RTTVAR_US, WGX_PEER_STATS_A_TCP_RTT_SAMPLES, color);
    if (!t.empty())
        s += label("tcp rtt") + t + "\n";

    auto lost = stat_value(p.stats, WGX_PEER_STATS_A_RX_LOST);
    auto reordered = stat_value(p.stats, WGX_PEER_STATS_A_RX_REORDERED);
    auto rx_packets = stat_value(p.stats, WGX_PEER_STATS_A_RX_PACKETS);
    if (lost.value_or(0) || reordered.value_or(0)) {
        s += label("packet loss");
        if (lost) {
            s += std::to_string(*lost) + " lost";
            if (rx_packets)
                s += " (" + format_percent(*lost, *lost + *rx_packets) + ")";
        }
        if (reordered)
            s += std::string(lost ? ", " : "") + std::to_string(*reordered) + " reordered";
        s += "\n";
    }

    auto retx = stat_value(p.stats, WGX_PEER_STATS_A_TX_TCP_RETRANSMITS);
    auto segs = stat_value(p.stats, WGX_PEER_STATS_A_TX_TCP_SEGMENTS);
    if (retx.value_or(0)) {
        s += label("tcp retransmits") + std::to_string(*retx);
        if (segs)
            s += " of " + std::to_string(*segs) + " segments (" + format_percent(*retx, *segs) + ", approximate)\n";
        else
            s += " (approximate)\n";
    }

    std::string rx = drop_list(p, kRxDrops), tx = drop_list(p, kTxDrops);
    if (!rx.empty() || !tx.empty()) {
        s += label("drops");
        if (!rx.empty())
            s += "received " + rx;
        if (!tx.empty())
            s += (rx.empty() ? "" : "; ") + std::string("sent ") + tx;
        s += "\n";
    }

    if (std::uint64_t paced = stat_value(p.stats, WGX_PEER_STATS_A_HANDSHAKES_PACED).value_or(0))
        s += label("handshakes paced") + std::to_string(paced) + "\n";
    return s;
}

std::string format_show(const Device &dev, const ShowOptions &o)
{
    auto c = [&](const char *code) { return o.color ? code : ""; };
    auto label = [&](const char *l) { return std::string("  ") + c(kBold) + l + c(kReset) + ": "; };
    auto secret = [&](const Key &k) { return o.hide_keys ? std::string("(hidden)") : key_to_base64(k); };

    std::string s;
    s += c(kReset);
    s += std::string(c(kGreen)) + c(kBold) + "interface" + c(kReset) + ": " + c(kGreen) + dev.name + c(kReset) + "\n";
    if (dev.public_key)
        s += label("public key") + key_to_base64(*dev.public_key) + "\n";
    if (dev.private_key)
        s += label("private key") + secret(*dev.private_key) + "\n";
    if (dev.listen_port.value_or(0))
        s += label("listening port") + std::to_string(*dev.listen_port) + "\n";
    for (const DeviceOption &opt : device_options())
        if (std::string v = opt.show ? opt.show(dev, dev) : ""; !v.empty())
            s += label(opt.show_label) + v + "\n";
    if (dev.previous_public_key)
        s += label("previous public key") + key_to_base64(*dev.previous_public_key) +
             " (still accepted: grace period)\n";
    if (dev.fwmark.value_or(0))
        s += label("fwmark") + fmt("0x%x", *dev.fwmark) + "\n";
    std::vector<const Peer *> peers = peers_by_handshake(dev);
    if (!peers.empty())
        s += "\n";
    for (std::size_t i = 0; i < peers.size(); ++i) {
        const Peer &p = *peers[i];
        s += std::string(c(kYellow)) + c(kBold) + "peer" + c(kReset) + ": " + c(kYellow) + key_to_base64(p.public_key) +
             c(kReset) + "\n";
        if (has_key(p.preshared_key))
            s += label("preshared key") + secret(*p.preshared_key) + "\n";
        if (p.endpoint && p.endpoint->size())
            s += label("endpoint") + format_endpoint(*p.endpoint) + "\n";
        s += label("allowed ips");
        if (p.allowed_ips.empty()) {
            s += "(none)\n";
        } else {
            for (std::size_t j = 0; j < p.allowed_ips.size(); ++j) {
                const AllowedIp &ip = p.allowed_ips[j];
                char buf[INET6_ADDRSTRLEN] = "";
                inet_ntop(ip.family, ip.addr.data(), buf, sizeof(buf));
                s += std::string(buf) + c(kCyan) + "/" + c(kReset) + std::to_string(ip.cidr) +
                     (j + 1 < p.allowed_ips.size() ? ", " : "\n");
            }
        }
        if (p.last_handshake_sec) {
            s += label("latest handshake");
            if (o.now == p.last_handshake_sec)
                s += "Now";
            else if (o.now < p.last_handshake_sec)
                s += std::string("(") + c(kRed) + "System clock wound backward; connection problems may ensue." +
                     c(kReset) + ")";
            else
                s += format_duration(static_cast<std::uint64_t>(o.now - p.last_handshake_sec), o.color) + " ago";
            s += "\n";
        }
        if (p.rx_bytes || p.tx_bytes)
            s += label("transfer") + format_bytes(p.rx_bytes, o.color) + " received, " +
                 format_bytes(p.tx_bytes, o.color) + " sent\n";
        if (p.persistent_keepalive.value_or(0))
            s += label("persistent keepalive") + "every " + format_duration(*p.persistent_keepalive, o.color) + "\n";
        // During a rotation (ours, or this peer re-keyed): which keys made the session.
        if (p.session_keys && (*p.session_keys || dev.previous_public_key)) {
            s += label("session made with");
            s += *p.session_keys & WGX_SESSION_F_LOCAL_PREVIOUS ? "our previous key" : "our current key";
            s += *p.session_keys & WGX_SESSION_F_PEER_PREVIOUS ? ", the peer's previous key\n"
                                                               : ", the peer's current key\n";
        }
        for (const PeerOption &opt : peer_options())
            if (std::string v = opt.show ? opt.show(dev, p) : ""; !v.empty())
                s += label(opt.show_label) + v + "\n";
        if (p.path_mtu)
            s += label("path mtu") + std::to_string(*p.path_mtu) + " (" + path_mtu_source_name(p.path_mtu_source) +
                 ")\n";
        s += format_peer_telemetry(p, o.color);
        if (i + 1 < peers.size())
            s += "\n";
    }
    return s;
}

// ---------------------------------------------------------------- machine

std::string format_dump(const Device &dev, bool with_interface, bool telemetry)
{
    std::string pre = with_interface ? dev.name + "\t" : "";
    std::string s = pre + maybe_key(dev.private_key) + "\t" + maybe_key(dev.public_key) + "\t" +
                    std::to_string(dev.listen_port.value_or(0)) + "\t" + fwmark_text(dev) + "\n";
    for (const Peer &p : dev.peers) {
        s += pre + key_to_base64(p.public_key) + "\t" + maybe_key(p.preshared_key) + "\t" + endpoint_or_none(p) + "\t" +
             allowed_ips_joined(p, ",", "\t") + std::to_string(static_cast<unsigned long long>(p.last_handshake_sec)) +
             "\t" + std::to_string(p.rx_bytes) + "\t" + std::to_string(p.tx_bytes) + "\t" +
             (p.persistent_keepalive.value_or(0) ? std::to_string(*p.persistent_keepalive) : std::string("off"));
        if (telemetry) {
            for (const StatInfo &st : peer_stats()) {
                auto v = stat_value(p.stats, st.attr);
                s += "\t" + (v ? std::to_string(*v) : std::string("-"));
            }
        }
        s += "\n";
    }
    return s;
}

bool show_field_needs_stats(std::string_view field)
{
    return field == "dump-telemetry";
}

const std::vector<std::string> &show_fields()
{
    static const std::vector<std::string> f = {"public-key",
                                               "private-key",
                                               "listen-port",
                                               "fwmark",
                                               "peers",
                                               "preshared-keys",
                                               "endpoints",
                                               "allowed-ips",
                                               "latest-handshakes",
                                               "transfer",
                                               "persistent-keepalive",
                                               "dump",
                                               "dump-telemetry"};
    return f;
}

std::optional<std::string> format_show_field(const Device &dev, std::string_view field, bool with_interface)
{
    std::string pre = with_interface ? dev.name + "\t" : "";
    std::string s;
    if (field == "public-key") {
        s = pre + maybe_key(dev.public_key) + "\n";
    } else if (field == "private-key") {
        s = pre + maybe_key(dev.private_key) + "\n";
    } else if (field == "listen-port") {
        s = pre + std::to_string(dev.listen_port.value_or(0)) + "\n";
    } else if (field == "fwmark") {
        s = pre + fwmark_text(dev) + "\n";
    } else if (field == "endpoints") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\t" + endpoint_or_none(p) + "\n";
    } else if (field == "allowed-ips") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\t" + allowed_ips_joined(p, " ", "\n");
    } else if (field == "latest-handshakes") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\t" +
                 std::to_string(static_cast<unsigned long long>(p.last_handshake_sec)) + "\n";
    } else if (field == "transfer") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\t" + std::to_string(p.rx_bytes) + "\t" +
                 std::to_string(p.tx_bytes) + "\n";
    } else if (field == "persistent-keepalive") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\t" +
                 (p.persistent_keepalive.value_or(0) ? std::to_string(*p.persistent_keepalive) : std::string("off")) +
                 "\n";
    } else if (field == "preshared-keys") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\t" + maybe_key(p.preshared_key) + "\n";
    } else if (field == "peers") {
        for (const Peer &p : dev.peers)
            s += pre + key_to_base64(p.public_key) + "\n";
    } else if (field == "dump") {
        s = format_dump(dev, with_interface, false);
    } else if (field == "dump-telemetry") {
        s = format_dump(dev, with_interface, true);
    } else {
        return std::nullopt;
    }
    return s;
}

// ---------------------------------------------------------------- command

bool color_mode()
{
    const char *v = getenv("WG_COLOR_MODE");
    if (v && !strcmp(v, "always"))
        return true;
    if (v && !strcmp(v, "never"))
        return false;
    return isatty(STDOUT_FILENO);
}

bool hide_keys_mode()
{
    const char *v = getenv("WG_HIDE_KEYS");
    return !(v && !strcmp(v, "never"));
}

namespace {

void show_usage(const char *cmd, FILE *f = stderr)
{
    std::string first = std::string("Usage: ") + prog_name + " " + cmd + " { <interface> | all | interfaces }";
    std::vector<std::string> items;
    const std::vector<std::string> &fields = show_fields();
    for (std::size_t i = 0; i < fields.size(); ++i)
        items.push_back((i ? "" : "[") + fields[i] + (i + 1 < fields.size() ? " |" : "]"));
    fputs(wrap_items(first, items, "         ").c_str(), f);
    fprintf(f,
            "       %s %s --json [<interface> | all]\n"
            "       %s %s --prometheus [<interface> | all]\n"
            "dump-telemetry (wgx extension): dump, each peer line followed by one column per\n"
            "peer statistic (column 8 + n for statistic n, \"-\" when unknown).\n",
            prog_name, cmd, prog_name, cmd);
}

// The wgx and WireGuard links; false after saying why they cannot be listed.
bool list_links(std::vector<LinkInfo> &links)
{
    Status st = list_devices(links);
    if (!st.is_ok())
        fprintf(stderr, "Unable to list interfaces: %s\n", st.text().c_str());
    return st.is_ok();
}

int show_json(const std::vector<std::string> &args)
{
    std::vector<Device> devs;
    if (args.empty() || args[0] == "all") {
        std::vector<LinkInfo> links;
        if (!list_links(links))
            return 1;
        for (const LinkInfo &l : links) {
            Device d;
            Status st = get_device(l.name, d);
            if (!st.is_ok()) {
                fprintf(stderr, "Unable to access interface %s: %s\n", l.name.c_str(), st.text().c_str());
                continue;
            }
            devs.push_back(std::move(d));
        }
    } else {
        Device d;
        Status st = get_device(args[0], d);
        if (!st.is_ok()) {
            fprintf(stderr, "Unable to access interface %s: %s\n", args[0].c_str(), st.text().c_str());
            return 1;
        }
        devs.push_back(std::move(d));
    }
    fputs(format_json(devs, hide_keys_mode()).c_str(), stdout);
    return 0;
}

// `show --prometheus`: the exporter's exposition, for node_exporter's textfile collector.
int show_prometheus(const std::vector<std::string> &args)
{
    std::vector<Device> devs;
    Status st = read_devices(args, devs);
    if (!st.is_ok()) {
        fprintf(stderr, "%s: %s\n", prog_name, st.text().c_str());
        return 1;
    }
    fputs(format_prometheus(devs).c_str(), stdout);
    return 0;
}

}  // namespace

const std::vector<std::string> &show_options()
{
    static const std::vector<std::string> o = {"--json", "--prometheus"};
    return o;
}

int show_main(int argc, const char *argv[])
{
    const char *cmd = argv[0];
    std::vector<std::string> args;
    bool json = false, prometheus = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--prometheus"))
            prometheus = true;
        else
            args.push_back(argv[i]);
    }
    if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help")) {
        show_usage(cmd, stdout);
        return 0;
    }
    if (prometheus) {
        if (json || args.size() > 1 || (!args.empty() && args[0] == "interfaces")) {
            show_usage(cmd);
            return 1;
        }
        return show_prometheus(args);
    }
    if (json) {
        if (args.size() > 1 || (!args.empty() && args[0] == "interfaces")) {
            show_usage(cmd);
            return 1;
        }
        return show_json(args);
    }
    if (args.size() > 2) {
        show_usage(cmd);
        return 1;
    }
    ShowOptions opts;
    opts.color = color_mode();
    opts.hide_keys = hide_keys_mode();

    if (args.empty() || args[0] == "all") {
        std::vector<LinkInfo> links;
        if (!list_links(links))
            return 1;
        int ret = 0;
        for (std::size_t i = 0; i < links.size(); ++i) {
            Device d;
            // One field (wg's scripting interface): most need no counters.
            Status st = get_device(links[i].name, d, args.size() != 2 || show_field_needs_stats(args[1]));
            if (!st.is_ok()) {
                fprintf(stderr, "Unable to access interface %s: %s\n", links[i].name.c_str(), st.text().c_str());
                continue;
            }
            if (args.size() == 2) {
                auto out = format_show_field(d, args[1], true);
                if (!out) {
                    fprintf(stderr, "Invalid parameter: `%s'\n", args[1].c_str());
                    show_usage(cmd);
                    return 1;
                }
                fputs(out->c_str(), stdout);
            } else {
                opts.now = time(nullptr);
                fputs(format_show(d, opts).c_str(), stdout);
                if (i + 1 < links.size())
                    fputs("\n", stdout);
            }
        }
        return ret;
    }
    if (args[0] == "interfaces") {
        if (args.size() > 1) {
            show_usage(cmd);
            return 1;
        }
        std::vector<LinkInfo> links;
        if (!list_links(links))
            return 1;
        for (std::size_t i = 0; i < links.size(); ++i)
            printf("%s%c", links[i].name.c_str(), i + 1 < links.size() ? ' ' : '\n');
        return 0;
    }
    if (args.size() == 2 && !format_show_field(Device{}, args[1], false)) {
        fprintf(stderr, "Invalid parameter: `%s'\n", args[1].c_str());
        show_usage(cmd);
        return 1;
    }
    Device d;
    Status st = get_device(args[0], d, args.size() != 2 || show_field_needs_stats(args[1]));
    if (!st.is_ok()) {
        fprintf(stderr, "Unable to access interface %s: %s\n", args[0].c_str(), st.text().c_str());
        return 1;
    }
    if (args.size() == 2) {
        fputs(format_show_field(d, args[1], false)->c_str(), stdout);
    } else {
        opts.now = time(nullptr);
        fputs(format_show(d, opts).c_str(), stdout);
    }
    return 0;
}

}  // namespace wgx
