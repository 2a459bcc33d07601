// SPDX-License-Identifier: GPL-2.0
//
// `wgx show --json`: the stable JSON document described in format.hpp.
#include <cstdio>

#include "encoding.hpp"
#include "format.hpp"
#include "json_writer.hpp"
#include "options.hpp"
#include "uapi/linux/wgx.h"
#include "values.hpp"

namespace wgx {

std::string json_quote(std::string_view s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"':
            o += "\\\"";
            break;
        case '\\':
            o += "\\\\";
            break;
        case '\n':
            o += "\\n";
            break;
        case '\r':
            o += "\\r";
            break;
        case '\t':
            o += "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                snprintf(buf, sizeof(buf), "\\u%04x", c);
                o += buf;
            } else {
                o += static_cast<char>(c);
            }
        }
    }
    return o + "\"";
}

namespace {

void counters(JsonWriter &w, const std::optional<Counters> &c, const char *(*name)(std::uint16_t))
{
    if (!c) {
        w.null();
        return;
    }
    w.open('{');
    for (const auto &[attr, value] : *c) {
        std::string n = name(attr);
        if (n.empty())
            n = "counter_" + std::to_string(attr);
        w.key(n.c_str());
        w.num(value);
    }
    w.close('}');
}

void optional_key(JsonWriter &w, const std::optional<Key> &k, bool show)
{
    if (k && !key_is_zero(*k) && show)
        w.str(key_to_base64(*k));
    else
        w.null();
}

}  // namespace

std::string format_json(const std::vector<Device> &devs, bool hide_keys)
{
    JsonWriter w;
    w.open('{');
    w.key("version");
    w.num(1);
    w.key("interfaces");
    w.open('[');
    for (const Device &d : devs) {
        w.open('{');
        w.key("name");
        w.str(d.name);
        w.key("kind");
        w.str(kind_name(d.kind));
        w.key("ifindex");
        w.num(d.ifindex);
        w.key("public_key");
        optional_key(w, d.public_key, true);
        w.key("has_private_key");
        w.boolean(d.private_key && !key_is_zero(*d.private_key));
        w.key("private_key");
        optional_key(w, d.private_key, !hide_keys);
        w.key("listen_port");
        w.num(d.listen_port.value_or(0));
        for (const DeviceOption &opt : device_options())
            if (opt.json)
                opt.json(w, d);
        w.key("previous_public_key");
        if (d.previous_public_key)
            w.str(key_to_base64(*d.previous_public_key));
        else
            w.null();
        w.key("fwmark");
        w.num(d.fwmark.value_or(0));
        w.key("mtu");
        if (d.mtu)
            w.num(*d.mtu);
        else
            w.null();
        // Whether the MTU follows the underlay (null: not wgx, or a module without it).
        w.key("mtu_auto");
        if (d.mtu_auto)
            w.boolean(*d.mtu_auto);
        else
            w.null();
        w.key("stats");
        counters(w, d.stats, device_counter_name);
        w.key("peers");
        w.open('[');
        for (const Peer &p : d.peers) {
            w.open('{');
            w.key("public_key");
            w.str(key_to_base64(p.public_key));
            w.key("has_preshared_key");
            w.boolean(p.preshared_key && !key_is_zero(*p.preshared_key));
            w.key("preshared_key");
            optional_key(w, p.preshared_key, !hide_keys);
            w.key("endpoint");
            if (p.endpoint && p.endpoint->size())
                w.str(format_endpoint(*p.endpoint));
            else
                w.null();
            w.key("allowed_ips");
            w.open('[');
            for (const AllowedIp &ip : p.allowed_ips)
                w.str(format_allowed_ip(ip));
            w.close(']');
            w.key("latest_handshake");
            w.snum(p.last_handshake_sec);
            w.key("rx_bytes");
            w.num(p.rx_bytes);
            w.key("tx_bytes");
            w.num(p.tx_bytes);
            w.key("persistent_keepalive");
            w.num(p.persistent_keepalive.value_or(0));
            w.key("protocol_version");
            w.num(p.protocol_version);
            w.key("stats");
            counters(w, p.stats, peer_counter_name);
            // Which keys made the current session (null: no session, or not wgx).
            w.key("session_keys");
            if (p.session_keys) {
                w.open('{');
                w.key("local");
                w.str(*p.session_keys & WGX_SESSION_F_LOCAL_PREVIOUS ? "previous" : "current");
                w.key("peer");
                w.str(*p.session_keys & WGX_SESSION_F_PEER_PREVIOUS ? "previous" : "current");
                w.close('}');
            } else {
                w.null();
            }
            // The outer path MTU and how it was learned (null: unknown, or not wgx).
            w.key("path_mtu");
            if (p.path_mtu)
                w.num(*p.path_mtu);
            else
                w.null();
            w.key("path_mtu_source");
            if (p.path_mtu)
                w.str(path_mtu_source_name(p.path_mtu_source));
            else
                w.null();
            for (const PeerOption &opt : peer_options())
                if (opt.json)
                    opt.json(w, p);
            w.close('}');
        }
        w.close(']');
        w.close('}');
    }
    w.close(']');
    w.close('}');
    return w.take();
}

}  // namespace wgx
