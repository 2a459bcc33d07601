// SPDX-License-Identifier: GPL-2.0
//
// options.cpp - the table of device and peer settings (options.hpp).  A new
// setting is one entry here: the parsers, showconf, the usage, the netlink
// messages and the tests pick it up.
#include "options.hpp"

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

std::string format_listen_ports(const Device &, const Device &d)
{
    return d.listen_ports.value_or(1) > 1 ? std::to_string(*d.listen_ports) : "";
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
    static const std::vector<DeviceOption> t = {
        {"listen-port", "ListenPort", "<port>", nullptr, "", "51820", false,
         parse_into<Device, std::uint16_t, &Device::listen_port, parse_port>,
         nonzero<Device, std::uint16_t, &Device::listen_port>, [](Device &d) { d.listen_port = 0; },
         wire_number<Device, std::uint16_t, &Device::listen_port, std::uint16_t, WGX_DEVICE_A_LISTEN_PORT>()},
        {"listen-ports", "ListenPorts", "<count>", "send a peer's flows from several UDP ports, for the receiver's RSS",
         "", "4", false, parse_into<Device, std::uint16_t, &Device::listen_ports, parse_listen_ports>,
         format_listen_ports, [](Device &d) { d.listen_ports = 1; },
         wire_number<Device, std::uint16_t, &Device::listen_ports, std::uint16_t, WGX_DEVICE_A_LISTEN_PORTS>()},
        {"rx-spread", "RxSpread", "auto|on|off",
         "decrypt a one-port peer on every CPU, deliver in order (auto, the default, does so for a peer that needs it)",
         "auto on off", "on", false, parse_into<Device, RxSpread, &Device::rx_spread, parse_rx_spread>,
         format_rx_spread, [](Device &d) { d.rx_spread = RxSpread::Auto; },
         wire_number<Device, RxSpread, &Device::rx_spread, std::uint8_t, WGX_DEVICE_A_RX_SPREAD>()},
        {"dscp", "DSCP", "copy|clear", "the inner DSCP on the outer header", "copy clear", "copy", false,
         parse_into<Device, bool, &Device::dscp_copy, parse_dscp_mode>, format_dscp,
         [](Device &d) { d.dscp_copy = false; }, wire_dscp()},
        {"priority-dscp", "PriorityDSCP", "<list>", "the DSCP values of the priority lane",
         "none EF CS5 CS6 CS7 AF41 AF42 AF43", "EF,CS6", false,
         parse_into<Device, std::uint64_t, &Device::priority_dscp, parse_dscp_set>, format_priority_dscp,
         [](Device &d) { d.priority_dscp = WGX_PRIORITY_DSCP_DEFAULT; },
         wire_number<Device, std::uint64_t, &Device::priority_dscp, std::uint64_t, WGX_DEVICE_A_PRIORITY_DSCP>()},
        {"handshake-budget", "HandshakeBudget", "<per second>|auto", "pace handshake initiations", "auto", "200", false,
         parse_into<Device, std::uint32_t, &Device::handshake_budget, parse_handshake_budget>,
         nonzero<Device, std::uint32_t, &Device::handshake_budget>, [](Device &d) { d.handshake_budget = 0; },
         wire_number<Device, std::uint32_t, &Device::handshake_budget, std::uint32_t, WGX_DEVICE_A_HANDSHAKE_BUDGET>()},
        {"key-grace", "KeyGrace", "<seconds>", "keep accepting the previous private key after a change", "", "30",
         false, parse_into<Device, std::uint32_t, &Device::key_grace, parse_key_grace>,
         nonzero<Device, std::uint32_t, &Device::key_grace>, [](Device &d) { d.key_grace = 0; },
         wire_number<Device, std::uint32_t, &Device::key_grace, std::uint32_t, WGX_DEVICE_A_KEY_GRACE>()},
        {"fwmark", "FwMark", "<mark>", nullptr, "", "0x1234", false,
         parse_into<Device, std::uint32_t, &Device::fwmark, parse_fwmark>, format_fwmark,
         [](Device &d) { d.fwmark = 0; },
         wire_number<Device, std::uint32_t, &Device::fwmark, std::uint32_t, WGX_DEVICE_A_FWMARK>()},
        {"private-key", "PrivateKey", "<file path>", nullptr, "", "6OhdF6DJ6fK2AXgitAO7qxhIem6hVWgBG6Sf3bMm7kM=", true,
         parse_into<Device, Key, &Device::private_key, parse_key>, format_private_key,
         [](Device &d) { d.private_key = Key{}; }, wire_key<Device, &Device::private_key, WGX_DEVICE_A_PRIVATE_KEY>()},
        {"mtu", "MTU", "<bytes>|auto", "auto (the default until an MTU is set) follows the underlay", "auto", "1380",
         false, parse_device_mtu, format_device_mtu, nullptr,
         // The MTU itself is a link setting (rtnetlink); genetlink carries only "follow the underlay".
         wire_number<Device, bool, &Device::mtu_auto, std::uint8_t, WGX_DEVICE_A_MTU_AUTO>()},
    };
    return t;
}

const std::vector<PeerOption> &peer_options()
{
    static const std::vector<PeerOption> t = {
        {"persistent-keepalive", "PersistentKeepalive", "<interval seconds>|off", nullptr, "off", "25", false,
         parse_into<Peer, std::uint16_t, &Peer::persistent_keepalive, parse_keepalive>,
         nonzero<Peer, std::uint16_t, &Peer::persistent_keepalive>, nullptr,
         wire_number<Peer, std::uint16_t, &Peer::persistent_keepalive, std::uint16_t,
                     WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL>()},
        {"mtu", "MTU", "<bytes>|auto", "fix a peer's MTU (auto, the default, learns its path MTU)", "auto", "1300",
         false, parse_into<Peer, std::uint32_t, &Peer::mtu, parse_peer_mtu>, format_peer_mtu, nullptr,
         wire_number<Peer, std::uint32_t, &Peer::mtu, std::uint32_t, WGX_PEER_A_MTU>()},
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

std::string format_config_lines(const Device &dev, const Device &obj)
{
    return config_lines(dev, obj, device_options());
}

std::string format_config_lines(const Device &dev, const Peer &obj)
{
    return config_lines(dev, obj, peer_options());
}

}  // namespace wgx
