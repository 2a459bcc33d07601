// SPDX-License-Identifier: GPL-2.0
//
// options.cpp - the table of device and peer settings (options.hpp).  A new
// setting is one entry here: the parsers, showconf, show, --json, the usage
// and completion, the netlink messages, what a WireGuard device is refused
// and the tests pick it up.
#include "options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "encoding.hpp"
#include "uapi/linux/wgx.h"
#include "values.hpp"

namespace wgx {
namespace {

// parse: one values.hpp parser filling one std::optional field.
template <class T, class V, std::optional<V> T::*field, bool (*parser)(std::string_view, V &, std::string &)>
bool parse_into(std::string_view v, T &obj, std::string &expected)
{
    V x;
    if (!parser(v, x, expected))
        return false;
    obj.*field = x;
    return true;
}

// format: a number printed unless unset or 0 (0 is the default: off, automatic).
template <class T, class V, std::optional<V> T::*field> std::string nonzero(const Device &, const T &obj)
{
    const V n = (obj.*field).value_or(0);
    return n ? std::to_string(n) : "";
}

// MTU in [Interface] and `set IF mtu`: bytes, or auto (follow the underlay again).
bool parse_device_mtu(std::string_view v, Device &d, std::string &expected)
{
    if (v == "auto") {
        d.mtu_auto = true;
        return true;
    }
    std::uint32_t m;
    if (!parse_mtu(v, m, expected)) {
        expected += " or auto";
        return false;
    }
    d.mtu = m;
    return true;
}

// Auto, the default, is not printed (a device's count then is only what got bound); 1 is.
std::string format_listen_ports(const Device &, const Device &d)
{
    if (!d.listen_ports.value_or(0) || d.listen_ports_auto.value_or(false))
        return "";
    return std::to_string(*d.listen_ports);
}

// Auto, the default, is not printed; nor is a mode this tool cannot name.
std::string format_rx_spread(const Device &, const Device &d)
{
    const char *name = d.rx_spread && *d.rx_spread != RxSpread::Auto ? rx_spread_name(*d.rx_spread) : nullptr;
    return name ? name : "";
}

std::string format_dscp(const Device &, const Device &d)
{
    return d.dscp_copy.value_or(false) ? "copy" : "";
}

std::string format_priority_dscp(const Device &, const Device &d)
{
    return d.priority_dscp && *d.priority_dscp != WGX_PRIORITY_DSCP_DEFAULT ? format_dscp_set(*d.priority_dscp) : "";
}

std::string format_fwmark(const Device &, const Device &d)
{
    char buf[16];
    if (!d.fwmark.value_or(0))
        return "";
    snprintf(buf, sizeof(buf), "0x%x", *d.fwmark);
    return buf;
}

std::string format_private_key(const Device &, const Device &d)
{
    return d.private_key && !key_is_zero(*d.private_key) ? key_to_base64(*d.private_key) : "";
}

// An MTU that follows the underlay is no setting: setconf of the output keeps it following.
std::string format_device_mtu(const Device &, const Device &d)
{
    return d.kind == Kind::Wgx && d.mtu && !d.mtu_auto.value_or(false) ? std::to_string(*d.mtu) : "";
}

std::string format_peer_mtu(const Device &dev, const Peer &p)
{
    return dev.kind == Kind::Wgx && p.mtu.value_or(0) ? std::to_string(*p.mtu) : "";
}

// show: a formatter's text followed by a unit ("200/s"), "" when it prints nothing.
template <std::size_t N> struct Literal {
    constexpr Literal(const char (&s)[N]) { std::copy_n(s, N, text); }
    char text[N];
};

template <class T, std::string (*format)(const Device &, const T &), Literal unit>
std::string with_unit(const Device &dev, const T &obj)
{
    std::string v = format(dev, obj);
    return v.empty() ? v : v + unit.text;
}

// "auto (8)": the ports bound (not consecutive); "4 (51820-51823)": a fixed run;
// nothing for a request's auto (0, the default).
std::string show_listen_ports(const Device &, const Device &d)
{
    if (!d.listen_ports.value_or(0))
        return "";
    const std::string n = std::to_string(*d.listen_ports);
    if (d.listen_ports_auto.value_or(false))
        return "auto (" + n + ")";
    if (*d.listen_ports <= 1 || !d.listen_port.value_or(0))
        return n;
    return n + " (" + std::to_string(*d.listen_port) + "-" + std::to_string(*d.listen_port + *d.listen_ports - 1) +
           ")";
}

// "listen_ports": the number listened on (1 when unset); "listen_ports_auto": null when unknown.
void json_listen_ports(JsonWriter &w, const Device &d)
{
    w.key("listen_ports");
    w.num(d.listen_ports.value_or(1));
    w.key("listen_ports_auto");
    if (d.listen_ports_auto)
        w.boolean(*d.listen_ports_auto);
    else
        w.null();
}

// Auto, the default, is not shown; a mode this tool cannot name is shown by number.
std::string show_rx_spread(const Device &, const Device &d)
{
    if (!d.rx_spread || *d.rx_spread == RxSpread::Auto)
        return "";
    const char *mode = rx_spread_name(*d.rx_spread);
    return mode ? mode : "unknown mode " + std::to_string(static_cast<unsigned>(*d.rx_spread));
}

// json: "key": the number, or @dflt when unset.
template <class T, class V, std::optional<V> T::*field, V dflt, Literal key>
void json_number(JsonWriter &w, const T &obj)
{
    w.key(key.text);
    w.num((obj.*field).value_or(dflt));
}

// rx_spread: true exactly when spreading is forced on, as before auto
// existed; rx_spread_mode names the mode ("off" without one: a WireGuard
// device never spreads).
void json_rx_spread(JsonWriter &w, const Device &d)
{
    const RxSpread rx_spread = d.rx_spread.value_or(RxSpread::Off);
    const char *mode = rx_spread_name(rx_spread);
    w.key("rx_spread");
    w.boolean(rx_spread == RxSpread::On);
    w.key("rx_spread_mode");
    w.str(mode ? mode : "unknown");
}

void json_dscp(JsonWriter &w, const Device &d)
{
    w.key("dscp");
    w.str(d.dscp_copy.value_or(false) ? "copy" : "clear");
}

void json_priority_dscp(JsonWriter &w, const Device &d)
{
    w.key("priority_dscp");
    w.open('[');
    for (unsigned n = 0; n < 64; ++n)
        if (d.priority_dscp.value_or(WGX_PRIORITY_DSCP_DEFAULT) & (std::uint64_t{1} << n))
            w.num(n);
    w.close(']');
}

// The configured MTU: "auto" or fixed inner bytes (null: not wgx).
void json_peer_mtu(JsonWriter &w, const Peer &p)
{
    w.key("mtu");
    if (p.mtu.value_or(0))
        w.num(*p.mtu);
    else if (p.mtu)
        w.str("auto");
    else
        w.null();
}

// The libmnl type of an attribute holding a W.
template <class W> constexpr mnl_attr_data_type mnl_type()
{
    static_assert(sizeof(W) == 1 || sizeof(W) == 2 || sizeof(W) == 4 || sizeof(W) == 8);
    return sizeof(W) == 1 ? MNL_TYPE_U8 : sizeof(W) == 2 ? MNL_TYPE_U16 : sizeof(W) == 4 ? MNL_TYPE_U32 : MNL_TYPE_U64;
}

// wire: a field of type V (a number, an enum or bool) carried as the unsigned number W in @attr.
template <class T, class V, std::optional<V> T::*field, class W, std::uint16_t attr> Wire<T> wire_number()
{
    return {
        attr,
        [](const T &obj) { return (obj.*field).has_value(); },
        [](T &obj) { (obj.*field).reset(); },
        [](NlMessage &m, const T &obj) {
            const W w = static_cast<W>(*(obj.*field));
            return m.put(attr, &w, sizeof(w));
        },
        [](const nlattr *a, T &obj) {
            W w;
            if (mnl_attr_validate(a, mnl_type<W>()) != 0)
                return;
            std::memcpy(&w, mnl_attr_get_payload(a), sizeof(w));
            obj.*field = static_cast<V>(w);
        },
    };
}

// wire: a key as its 32 bytes.
template <class T, std::optional<Key> T::*field, std::uint16_t attr> Wire<T> wire_key()
{
    return {
        attr,
        [](const T &obj) { return (obj.*field).has_value(); },
        [](T &obj) { (obj.*field).reset(); },
        [](NlMessage &m, const T &obj) { return m.put(attr, (obj.*field)->data(), kKeyLen); },
        [](const nlattr *a, T &obj) {
            if (mnl_attr_get_payload_len(a) != kKeyLen)
                return;
            Key k;
            std::memcpy(k.data(), mnl_attr_get_payload(a), kKeyLen);
            obj.*field = k;
        },
    };
}

// wire: DSCP as enum wgx_dscp_mode.
Wire<Device> wire_dscp()
{
    return {
        WGX_DEVICE_A_DSCP,
        [](const Device &d) { return d.dscp_copy.has_value(); },
        [](Device &d) { d.dscp_copy.reset(); },
        [](NlMessage &m, const Device &d) {
            return m.put_u8(WGX_DEVICE_A_DSCP, *d.dscp_copy ? WGX_DSCP_COPY : WGX_DSCP_CLEAR);
        },
        [](const nlattr *a, Device &d) {
            if (mnl_attr_validate(a, MNL_TYPE_U8) == 0)
                d.dscp_copy = mnl_attr_get_u8(a) == WGX_DSCP_COPY;
        },
    };
}

template <class T> const Option<T> *find_by(const std::vector<Option<T>> &table, std::string_view name, bool config_key)
{
    for (const Option<T> &o : table)
        if (config_key ? iequals(name, o.config_key) : name == o.keyword)
            return &o;
    return nullptr;
}

template <class T> const Option<T> *find_attr(const std::vector<Option<T>> &table, std::uint16_t attr)
{
    for (const Option<T> &o : table)
        if (o.wire.attr == attr)
            return &o;
    return nullptr;
}

template <class T> std::string config_lines(const Device &dev, const T &obj, const std::vector<Option<T>> &table)
{
    std::string s;
    for (const Option<T> &o : table)
        if (std::string v = o.format(dev, obj); !v.empty())
            s += std::string(o.config_key) + " = " + v + "\n";
    return s;
}

}  // namespace

const std::vector<DeviceOption> &device_options()
{
    using D = Device;
    static const std::vector<DeviceOption> t = {
        {
            .keyword = "listen-port",
            .config_key = "ListenPort",
            .usage = "<port>",
            .example = "51820",
            .parse = parse_into<D, std::uint16_t, &D::listen_port, parse_port>,
            .format = nonzero<D, std::uint16_t, &D::listen_port>,
            .reset = [](D &d) { d.listen_port = 0; },
            .wire = wire_number<D, std::uint16_t, &D::listen_port, std::uint16_t, WGX_DEVICE_A_LISTEN_PORT>(),
        },
        {
            .keyword = "listen-ports",
            .config_key = "ListenPorts",
            .usage = "auto|<count>",
            .purpose = "send a peer's flows from several UDP ports, for the receiver's RSS (auto, the default: 8 "
                       "with several CPUs; 1 is WireGuard's)",
            .completion = "auto",
            .example = "4",
            .parse = parse_into<D, std::uint16_t, &D::listen_ports, parse_listen_ports>,
            .format = format_listen_ports,
            .reset = [](D &d) { d.listen_ports = 0; },
            .wire = wire_number<D, std::uint16_t, &D::listen_ports, std::uint16_t, WGX_DEVICE_A_LISTEN_PORTS>(),
            .show_label = "listening ports",
            .show = show_listen_ports,
            .json = json_listen_ports,
            .refusal = [](const D &d) -> std::string {
                // WireGuard listens on one port: what 1 asks for, and all that auto (setconf's default) gets.
                return *d.listen_ports <= 1 ? ""
                                            : "listen-ports " + std::to_string(*d.listen_ports) +
                                                  ": several listen ports are a wgx extension";
            },
        },
        {
            .keyword = "rx-spread",
            .config_key = "RxSpread",
            .usage = "auto|on|off",
            .purpose = "decrypt a one-port peer on every CPU, deliver in order (auto, the default, does so for a "
                       "peer that needs it)",
            .completion = "auto on off",
            .example = "on",
            .parse = parse_into<D, RxSpread, &D::rx_spread, parse_rx_spread>,
            .format = format_rx_spread,
            .reset = [](D &d) { d.rx_spread = RxSpread::Auto; },
            // A newer kernel's mode is kept as it came.
            .wire = wire_number<D, RxSpread, &D::rx_spread, std::uint8_t, WGX_DEVICE_A_RX_SPREAD>(),
            .show_label = "rx spread",
            .show = show_rx_spread,
            .json = json_rx_spread,
            .refusal = [](const D &d) -> std::string {
                // Off is WireGuard's behaviour; auto is setconf's default.
                return *d.rx_spread == RxSpread::On ? "rx-spread on: receive spreading is a wgx extension" : "";
            },
        },
        {
            .keyword = "dscp",
            .config_key = "DSCP",
            .usage = "copy|clear",
            .purpose = "the inner DSCP on the outer header",
            .completion = "copy clear",
            .example = "copy",
            .parse = parse_into<D, bool, &D::dscp_copy, parse_dscp_mode>,
            .format = format_dscp,
            .reset = [](D &d) { d.dscp_copy = false; },
            .wire = wire_dscp(),
            .show_label = "dscp",
            .show = format_dscp,
            .json = json_dscp,
            .refusal = [](const D &d) -> std::string {
                return *d.dscp_copy ? "dscp copy: copying the inner DSCP is a wgx extension" : "";
            },
        },
        {
            .keyword = "priority-dscp",
            .config_key = "PriorityDSCP",
            .usage = "<list>",
            .purpose = "the DSCP values of the priority lane",
            .completion = "none EF CS5 CS6 CS7 AF41 AF42 AF43",
            .example = "EF,CS6",
            .parse = parse_into<D, std::uint64_t, &D::priority_dscp, parse_dscp_set>,
            .format = format_priority_dscp,
            .reset = [](D &d) { d.priority_dscp = WGX_PRIORITY_DSCP_DEFAULT; },
            .wire = wire_number<D, std::uint64_t, &D::priority_dscp, std::uint64_t, WGX_DEVICE_A_PRIORITY_DSCP>(),
            .show_label = "priority dscp",
            .show = format_priority_dscp,
            .json = json_priority_dscp,
            .refusal = [](const D &d) -> std::string {
                // setconf's default; WireGuard has no priority lane to configure.
                return *d.priority_dscp != WGX_PRIORITY_DSCP_DEFAULT
                           ? "priority-dscp: the priority lane is a wgx extension"
                           : "";
            },
        },
        {
            .keyword = "handshake-budget",
            .config_key = "HandshakeBudget",
            .usage = "<per second>|auto",
            .purpose = "pace handshake initiations",
            .completion = "auto",
            .example = "200",
            .parse = parse_into<D, std::uint32_t, &D::handshake_budget, parse_handshake_budget>,
            .format = nonzero<D, std::uint32_t, &D::handshake_budget>,
            .reset = [](D &d) { d.handshake_budget = 0; },
            .wire = wire_number<D, std::uint32_t, &D::handshake_budget, std::uint32_t, WGX_DEVICE_A_HANDSHAKE_BUDGET>(),
            .show_label = "handshake budget",
            .show = with_unit<D, nonzero<D, std::uint32_t, &D::handshake_budget>, "/s">,
            .json = json_number<D, std::uint32_t, &D::handshake_budget, 0, "handshake_budget">,
            .refusal = [](const D &d) -> std::string {
                // setconf's default (automatic); WireGuard has no handshake budget.
                return *d.handshake_budget ? "handshake-budget: pacing handshake initiations is a wgx extension" : "";
            },
        },
        {
            .keyword = "key-grace",
            .config_key = "KeyGrace",
            .usage = "<seconds>",
            .purpose = "keep accepting the previous private key after a change",
            .example = "30",
            .parse = parse_into<D, std::uint32_t, &D::key_grace, parse_key_grace>,
            .format = nonzero<D, std::uint32_t, &D::key_grace>,
            .reset = [](D &d) { d.key_grace = 0; },
            .wire = wire_number<D, std::uint32_t, &D::key_grace, std::uint32_t, WGX_DEVICE_A_KEY_GRACE>(),
            .show_label = "key grace",
            .show = with_unit<D, nonzero<D, std::uint32_t, &D::key_grace>, " s">,
            .json = json_number<D, std::uint32_t, &D::key_grace, 0, "key_grace">,
            .refusal = [](const D &d) -> std::string {
                return *d.key_grace ? "key-grace: keeping the previous private key is a wgx extension" : "";
            },
        },
        {
            .keyword = "fwmark",
            .config_key = "FwMark",
            .usage = "<mark>",
            .example = "0x1234",
            .parse = parse_into<D, std::uint32_t, &D::fwmark, parse_fwmark>,
            .format = format_fwmark,
            .reset = [](D &d) { d.fwmark = 0; },
            .wire = wire_number<D, std::uint32_t, &D::fwmark, std::uint32_t, WGX_DEVICE_A_FWMARK>(),
        },
        {
            .keyword = "private-key",
            .config_key = "PrivateKey",
            .usage = "<file path>",
            .example = "6OhdF6DJ6fK2AXgitAO7qxhIem6hVWgBG6Sf3bMm7kM=",
            .key_file = true,
            .parse = parse_into<D, Key, &D::private_key, parse_key>,
            .format = format_private_key,
            .reset = [](D &d) { d.private_key = Key{}; },
            .wire = wire_key<D, &D::private_key, WGX_DEVICE_A_PRIVATE_KEY>(),
        },
        {
            .keyword = "mtu",
            .config_key = "MTU",
            .usage = "<bytes>|auto",
            .purpose = "auto (the default until an MTU is set) follows the underlay",
            .completion = "auto",
            .example = "1380",
            .parse = parse_device_mtu,
            .format = format_device_mtu,
            // The MTU itself is a link setting (rtnetlink); genetlink carries only "follow the underlay".
            .wire = wire_number<D, bool, &D::mtu_auto, std::uint8_t, WGX_DEVICE_A_MTU_AUTO>(),
            .refusal = [](const D &) -> std::string {
                return "mtu auto: an MTU that follows the underlay is a wgx extension";
            },
        },
    };
    return t;
}

const std::vector<PeerOption> &peer_options()
{
    static const std::vector<PeerOption> t = {
        {
            .keyword = "persistent-keepalive",
            .config_key = "PersistentKeepalive",
            .usage = "<interval seconds>|off",
            .completion = "off",
            .example = "25",
            .parse = parse_into<Peer, std::uint16_t, &Peer::persistent_keepalive, parse_keepalive>,
            .format = nonzero<Peer, std::uint16_t, &Peer::persistent_keepalive>,
            .wire = wire_number<Peer, std::uint16_t, &Peer::persistent_keepalive, std::uint16_t,
                                WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL>(),
        },
        {
            .keyword = "mtu",
            .config_key = "MTU",
            .usage = "<bytes>|auto",
            .purpose = "fix a peer's MTU (auto, the default, learns its path MTU)",
            .completion = "auto",
            .example = "1300",
            .parse = parse_into<Peer, std::uint32_t, &Peer::mtu, parse_peer_mtu>,
            .format = format_peer_mtu,
            .wire = wire_number<Peer, std::uint32_t, &Peer::mtu, std::uint32_t, WGX_PEER_A_MTU>(),
            .show_label = "mtu",
            .show = with_unit<Peer, nonzero<Peer, std::uint32_t, &Peer::mtu>, " (fixed)">,
            .json = json_peer_mtu,
            .refusal = [](const Peer &p) -> std::string {
                // auto is setconf's default; WireGuard has no per-peer MTU.
                return *p.mtu ? "mtu " + std::to_string(*p.mtu) + ": a per-peer MTU is a wgx extension" : "";
            },
        },
    };
    return t;
}

const DeviceOption *find_device_option(std::string_view keyword)
{
    return find_by(device_options(), keyword, false);
}

const PeerOption *find_peer_option(std::string_view keyword)
{
    return find_by(peer_options(), keyword, false);
}

const DeviceOption *find_device_attr(std::uint16_t attr)
{
    return find_attr(device_options(), attr);
}

const PeerOption *find_peer_attr(std::uint16_t attr)
{
    return find_attr(peer_options(), attr);
}

const DeviceOption *find_device_config_key(std::string_view key)
{
    return find_by(device_options(), key, true);
}

const PeerOption *find_peer_config_key(std::string_view key)
{
    return find_by(peer_options(), key, true);
}

namespace {

// Drop @obj's WireGuard-compatible wgx settings; the first refusal, or "".
template <class T> std::string drop_wgx_settings(T &obj, const std::vector<Option<T>> &table)
{
    for (const Option<T> &o : table) {
        if (!o.refusal || !o.wire.has(obj))
            continue;
        if (std::string r = o.refusal(obj); !r.empty())
            return r;
        o.wire.clear(obj);
    }
    return "";
}

}  // namespace

Status wireguard_settings(Device &dev)
{
    std::string r = drop_wgx_settings(dev, device_options());
    for (std::size_t i = 0; r.empty() && i < dev.peers.size(); ++i)
        r = drop_wgx_settings(dev.peers[i], peer_options());
    if (r.empty())
        return Status::ok();
    return Status::error(EOPNOTSUPP, r + "; `" + dev.name + "' is a WireGuard device");
}

std::string format_config_lines(const Device &dev, const Device &obj)
{
    return config_lines(dev, obj, device_options());
}

std::string format_config_lines(const Device &dev, const Peer &obj)
{
    return config_lines(dev, obj, peer_options());
}

}  // namespace wgx
