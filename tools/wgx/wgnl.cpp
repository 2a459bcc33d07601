// SPDX-License-Identifier: GPL-2.0
#include "wgnl.hpp"

#include <linux/genetlink.h>
#include <linux/wireguard.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "options.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {

// One code path serves both families: the numbers must agree.
static_assert((int)WGX_CMD_GET_DEVICE == (int)WG_CMD_GET_DEVICE);
static_assert((int)WGX_CMD_SET_DEVICE == (int)WG_CMD_SET_DEVICE);
static_assert(WGX_GENL_VERSION == WG_GENL_VERSION);
static_assert(WGX_NL_KEY_LEN == WG_KEY_LEN && WGX_NL_KEY_LEN == kKeyLen);
static_assert((int)WGX_DEVICE_A_IFINDEX == (int)WGDEVICE_A_IFINDEX);
static_assert((int)WGX_DEVICE_A_IFNAME == (int)WGDEVICE_A_IFNAME);
static_assert((int)WGX_DEVICE_A_PRIVATE_KEY == (int)WGDEVICE_A_PRIVATE_KEY);
static_assert((int)WGX_DEVICE_A_PUBLIC_KEY == (int)WGDEVICE_A_PUBLIC_KEY);
static_assert((int)WGX_DEVICE_A_FLAGS == (int)WGDEVICE_A_FLAGS);
static_assert((int)WGX_DEVICE_A_LISTEN_PORT == (int)WGDEVICE_A_LISTEN_PORT);
static_assert((int)WGX_DEVICE_A_FWMARK == (int)WGDEVICE_A_FWMARK);
static_assert((int)WGX_DEVICE_A_PEERS == (int)WGDEVICE_A_PEERS);
static_assert((int)WGX_DEVICE_A_STATS == (int)WGDEVICE_A_MAX + 1);
static_assert((int)WGX_DEVICE_F_REPLACE_PEERS == (int)WGDEVICE_F_REPLACE_PEERS);
static_assert((int)WGX_PEER_A_PUBLIC_KEY == (int)WGPEER_A_PUBLIC_KEY);
static_assert((int)WGX_PEER_A_PRESHARED_KEY == (int)WGPEER_A_PRESHARED_KEY);
static_assert((int)WGX_PEER_A_FLAGS == (int)WGPEER_A_FLAGS);
static_assert((int)WGX_PEER_A_ENDPOINT == (int)WGPEER_A_ENDPOINT);
static_assert((int)WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL == (int)WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL);
static_assert((int)WGX_PEER_A_LAST_HANDSHAKE_TIME == (int)WGPEER_A_LAST_HANDSHAKE_TIME);
static_assert((int)WGX_PEER_A_RX_BYTES == (int)WGPEER_A_RX_BYTES);
static_assert((int)WGX_PEER_A_TX_BYTES == (int)WGPEER_A_TX_BYTES);
static_assert((int)WGX_PEER_A_ALLOWEDIPS == (int)WGPEER_A_ALLOWEDIPS);
static_assert((int)WGX_PEER_A_PROTOCOL_VERSION == (int)WGPEER_A_PROTOCOL_VERSION);
static_assert((int)WGX_PEER_A_STATS == (int)WGPEER_A_MAX + 1);
static_assert((int)WGX_PEER_F_REMOVE_ME == (int)WGPEER_F_REMOVE_ME);
static_assert((int)WGX_PEER_F_REPLACE_ALLOWEDIPS == (int)WGPEER_F_REPLACE_ALLOWEDIPS);
static_assert((int)WGX_PEER_F_UPDATE_ONLY == (int)WGPEER_F_UPDATE_ONLY);
static_assert((int)WGX_ALLOWEDIP_A_FAMILY == (int)WGALLOWEDIP_A_FAMILY);
static_assert((int)WGX_ALLOWEDIP_A_IPADDR == (int)WGALLOWEDIP_A_IPADDR);
static_assert((int)WGX_ALLOWEDIP_A_CIDR_MASK == (int)WGALLOWEDIP_A_CIDR_MASK);
// Newer <linux/wireguard.h> (6.16+) also has WGALLOWEDIP_A_FLAGS = 4.
static_assert((int)WGX_ALLOWEDIP_A_FLAGS == (int)WGALLOWEDIP_A_CIDR_MASK + 1);
// RxSpread carries the uapi's values, so it is sent and read unchanged.
static_assert((int)RxSpread::Off == (int)WGX_RX_SPREAD_OFF);
static_assert((int)RxSpread::On == (int)WGX_RX_SPREAD_ON);
static_assert((int)RxSpread::Auto == (int)WGX_RX_SPREAD_AUTO);

std::size_t default_set_message_size()
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || page > 8192)
        page = 8192;
    return static_cast<std::size_t>(page);
}

NlMessage build_get_device_request(std::uint16_t family, const std::string &ifname, std::uint32_t get_flags)
{
    NlMessage m(family, NLM_F_REQUEST | NLM_F_DUMP, 256);
    m.put_genl_header(WGX_CMD_GET_DEVICE, WGX_GENL_VERSION);
    m.put_strz(WGX_DEVICE_A_IFNAME, ifname);
    if (get_flags)
        m.put_u32(WGX_DEVICE_A_GET_FLAGS, get_flags);
    return m;
}

bool has_genl_changes(const Device &dev)
{
    const auto &opts = device_options();
    return dev.replace_peers || !dev.peers.empty() ||
           std::any_of(opts.begin(), opts.end(), [&](const DeviceOption &o) { return o.wire.has(dev); });
}

namespace {

std::size_t addr_len(int family)
{
    return family == AF_INET ? 4 : 16;
}

// Puts the attributes of a peer's first fragment. False if they do not fit.
bool put_peer_head(NlMessage &m, const Peer &p, bool first_fragment)
{
    std::uint32_t flags = 0;
    if (p.remove)
        flags |= WGX_PEER_F_REMOVE_ME;
    if (p.update_only)
        flags |= WGX_PEER_F_UPDATE_ONLY;
    if (first_fragment && p.replace_allowed_ips)
        flags |= WGX_PEER_F_REPLACE_ALLOWEDIPS;
    if (!m.put(WGX_PEER_A_PUBLIC_KEY, p.public_key.data(), kKeyLen))
        return false;
    if (flags && !m.put_u32(WGX_PEER_A_FLAGS, flags))
        return false;
    if (!first_fragment)
        return true;
    if (p.preshared_key && !m.put(WGX_PEER_A_PRESHARED_KEY, p.preshared_key->data(), kKeyLen))
        return false;
    if (p.endpoint && p.endpoint->size() && !m.put(WGX_PEER_A_ENDPOINT, &p.endpoint->addr6, p.endpoint->size()))
        return false;
    if (p.new_public_key && !m.put(WGX_PEER_A_NEW_PUBLIC_KEY, p.new_public_key->data(), kKeyLen))
        return false;
    for (const PeerOption &o : peer_options())
        if (o.wire.has(p) && !o.wire.put(m, p))
            return false;
    return true;
}

/*
 * A peer re-keyed in place (`public-key NEW`) becomes two entries: its other
 * settings under the old key (UPDATE_ONLY: never create the peer the re-key
 * needs to exist), then an entry with only the old and the new key, which
 * fits one message whatever the number of allowed IPs before it.  The kernel
 * re-keys when that entry applies, after the settings.
 */
std::vector<Peer> expand_rekeys(const std::vector<Peer> &peers)
{
    std::vector<Peer> out;
    out.reserve(peers.size());
    for (const Peer &p : peers) {
        if (!p.new_public_key) {
            out.push_back(p);
            continue;
        }
        Peer settings = p;
        settings.new_public_key.reset();
        settings.update_only = true;
        const auto &opts = peer_options();
        if (settings.remove || settings.preshared_key || settings.endpoint || !settings.allowed_ips.empty() ||
            settings.replace_allowed_ips ||
            std::any_of(opts.begin(), opts.end(), [&](const PeerOption &o) { return o.wire.has(settings); }))
            out.push_back(std::move(settings));
        Peer rekey;
        rekey.public_key = p.public_key;
        rekey.new_public_key = p.new_public_key;
        out.push_back(std::move(rekey));
    }
    return out;
}

bool put_allowed_ip(NlMessage &m, const AllowedIp &ip)
{
    nlattr *n = m.nest_start(0);
    if (!n)
        return false;
    bool ok = m.put_u16(WGX_ALLOWEDIP_A_FAMILY, static_cast<std::uint16_t>(ip.family)) &&
              m.put(WGX_ALLOWEDIP_A_IPADDR, ip.addr.data(), addr_len(ip.family)) &&
              m.put_u8(WGX_ALLOWEDIP_A_CIDR_MASK, ip.cidr) &&
              (!ip.remove || m.put_u32(WGX_ALLOWEDIP_A_FLAGS, WGX_ALLOWEDIP_F_REMOVE_ME));
    if (!ok) {
        m.nest_cancel(n);
        return false;
    }
    m.nest_end(n);
    return true;
}

}  // namespace

Status build_set_device_messages(const Device &requested, std::uint16_t family, std::size_t max_len,
                                 std::vector<NlMessage> &out)
{
    Device expanded;
    const bool rekeys = std::any_of(requested.peers.begin(), requested.peers.end(),
                                    [](const Peer &p) { return p.new_public_key.has_value(); });
    if (rekeys) {
        expanded = requested;
        expanded.peers = expand_rekeys(requested.peers);
    }
    const Device &dev = rekeys ? expanded : requested;
    out.clear();
    std::size_t pi = 0;  // next peer
    std::size_t ai = 0;  // next allowed IP of that peer
    bool first = true;
    do {
        NlMessage m(family, NLM_F_REQUEST | NLM_F_ACK, max_len);
        m.put_genl_header(WGX_CMD_SET_DEVICE, WGX_GENL_VERSION);
        if (!m.put_strz(WGX_DEVICE_A_IFNAME, dev.name))
            return Status::error(EMSGSIZE, "message size too small for the interface name");
        bool progress = false;
        if (first) {
            std::uint32_t flags = dev.replace_peers ? WGX_DEVICE_F_REPLACE_PEERS : 0;
            bool ok = !flags || m.put_u32(WGX_DEVICE_A_FLAGS, flags);
            for (const DeviceOption &o : device_options())
                ok = ok && (!o.wire.has(dev) || o.wire.put(m, dev));
            if (!ok)
                return Status::error(EMSGSIZE, "message size too small for the device attributes");
            progress = true;
        }
        if (pi < dev.peers.size()) {
            nlattr *peers = m.nest_start(WGX_DEVICE_A_PEERS);
            bool any_peer = false;
            while (peers && pi < dev.peers.size()) {
                const Peer &p = dev.peers[pi];
                nlattr *pn = m.nest_start(0);
                if (!pn)
                    break;
                if (!put_peer_head(m, p, ai == 0)) {
                    m.nest_cancel(pn);
                    break;
                }
                bool complete = true;
                if (ai < p.allowed_ips.size()) {
                    nlattr *an = m.nest_start(WGX_PEER_A_ALLOWEDIPS);
                    std::size_t added = 0;
                    while (an && ai < p.allowed_ips.size() && put_allowed_ip(m, p.allowed_ips[ai])) {
                        ++ai;
                        ++added;
                    }
                    if (!an || !added) {
                        m.nest_cancel(pn);  // nothing of this fragment fits; retry in the next message
                        break;
                    }
                    m.nest_end(an);
                    complete = ai == p.allowed_ips.size();
                }
                m.nest_end(pn);
                any_peer = true;
                if (!complete)
                    break;  // message full in the middle of this peer's allowed IPs
                ++pi;
                ai = 0;
            }
            if (any_peer) {
                m.nest_end(peers);
                progress = true;
            } else if (peers) {
                m.nest_cancel(peers);
            }
        }
        if (!progress)
            return Status::error(EMSGSIZE, "a peer does not fit in one netlink message");
        out.push_back(std::move(m));
        first = false;
    } while (pi < dev.peers.size());
    return Status::ok();
}

// ---------------------------------------------------------------- parsing

namespace {

Status bad(const std::string &what)
{
    return Status::error(EBADMSG, what);
}

Status parse_counters(const nlattr *nest, Counters &out)
{
    out.clear();
    Status st;
    for_each_nested(nest, [&](const nlattr *a) {
        std::uint16_t t = mnl_attr_get_type(a);
        if (t == 0)
            return;  // padding
        if (mnl_attr_validate(a, MNL_TYPE_U64) == 0)
            out.emplace_back(t, mnl_attr_get_u64(a));
        else if (st.is_ok())
            st = bad("counter " + std::to_string(t) + " is not a u64");
    });
    return st;
}

Status parse_allowed_ip(const nlattr *nest, AllowedIp &ip)
{
    bool have_family = false, have_addr = false, have_cidr = false;
    std::size_t alen = 0;
    for_each_nested(nest, [&](const nlattr *a) {
        switch (mnl_attr_get_type(a)) {
        case WGX_ALLOWEDIP_A_FAMILY:
            if (mnl_attr_validate(a, MNL_TYPE_U16) == 0) {
                ip.family = mnl_attr_get_u16(a);
                have_family = true;
            }
            break;
        case WGX_ALLOWEDIP_A_IPADDR:
            alen = mnl_attr_get_payload_len(a);
            if (alen == 4 || alen == 16) {
                std::memcpy(ip.addr.data(), mnl_attr_get_payload(a), alen);
                have_addr = true;
            }
            break;
        case WGX_ALLOWEDIP_A_CIDR_MASK:
            if (mnl_attr_validate(a, MNL_TYPE_U8) == 0) {
                ip.cidr = mnl_attr_get_u8(a);
                have_cidr = true;
            }
            break;
        case WGX_ALLOWEDIP_A_FLAGS:
            if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                ip.remove = mnl_attr_get_u32(a) & WGX_ALLOWEDIP_F_REMOVE_ME;
            break;
        default:
            break;
        }
    });
    if (!have_family || !have_addr || !have_cidr)
        return bad("allowed IP without family, address or prefix length");
    if (!((ip.family == AF_INET && alen == 4 && ip.cidr <= 32) ||
          (ip.family == AF_INET6 && alen == 16 && ip.cidr <= 128)))
        return bad("allowed IP with inconsistent family, address length or prefix length");
    return Status::ok();
}

Status parse_peer(const nlattr *nest, Peer &p, bool set_mode)
{
    bool have_key = false;
    Status st;
    for_each_nested(nest, [&](const nlattr *a) {
        if (!st.is_ok())
            return;
        std::size_t len = mnl_attr_get_payload_len(a);
        const void *data = mnl_attr_get_payload(a);
        switch (mnl_attr_get_type(a)) {
        case WGX_PEER_A_PUBLIC_KEY:
            if (len == kKeyLen) {
                std::memcpy(p.public_key.data(), data, kKeyLen);
                have_key = true;
            }
            break;
        case WGX_PEER_A_PRESHARED_KEY:
            if (len == kKeyLen) {
                Key k;
                std::memcpy(k.data(), data, kKeyLen);
                if (set_mode || !key_is_zero(k))
                    p.preshared_key = k;
            }
            break;
        case WGX_PEER_A_NEW_PUBLIC_KEY:
            if (set_mode && len == kKeyLen) {
                Key k;
                std::memcpy(k.data(), data, kKeyLen);
                p.new_public_key = k;
            }
            break;
        case WGX_PEER_A_SESSION_KEYS:
            if (!set_mode && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                p.session_keys = mnl_attr_get_u32(a);
            break;
        case WGX_PEER_A_PATH_MTU:
            if (!set_mode && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                p.path_mtu = mnl_attr_get_u32(a);
            break;
        case WGX_PEER_A_PATH_MTU_SOURCE:
            if (!set_mode && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                p.path_mtu_source = mnl_attr_get_u32(a);
            break;
        case WGX_PEER_A_FLAGS:
            if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
                std::uint32_t f = mnl_attr_get_u32(a);
                p.remove = f & WGX_PEER_F_REMOVE_ME;
                p.replace_allowed_ips = f & WGX_PEER_F_REPLACE_ALLOWEDIPS;
                p.update_only = f & WGX_PEER_F_UPDATE_ONLY;
            }
            break;
        case WGX_PEER_A_ENDPOINT: {
            Endpoint ep;
            sockaddr sa;
            if (len < sizeof(sa))
                break;
            std::memcpy(&sa, data, sizeof(sa));
            if ((sa.sa_family == AF_INET && len == sizeof(sockaddr_in)) ||
                (sa.sa_family == AF_INET6 && len == sizeof(sockaddr_in6))) {
                std::memcpy(&ep.addr6, data, len);
                p.endpoint = ep;
            }
            break;
        }
        case WGX_PEER_A_LAST_HANDSHAKE_TIME:
            if (len == 16) {
                std::int64_t ts[2];
                std::memcpy(ts, data, sizeof(ts));
                p.last_handshake_sec = ts[0];
                p.last_handshake_nsec = ts[1];
            }
            break;
        case WGX_PEER_A_RX_BYTES:
            if (mnl_attr_validate(a, MNL_TYPE_U64) == 0)
                p.rx_bytes = mnl_attr_get_u64(a);
            break;
        case WGX_PEER_A_TX_BYTES:
            if (mnl_attr_validate(a, MNL_TYPE_U64) == 0)
                p.tx_bytes = mnl_attr_get_u64(a);
            break;
        case WGX_PEER_A_ALLOWEDIPS:
            for_each_nested(a, [&](const nlattr *e) {
                if (!st.is_ok())
                    return;
                AllowedIp ip;
                st = parse_allowed_ip(e, ip);
                if (st.is_ok())
                    p.allowed_ips.push_back(ip);
            });
            break;
        case WGX_PEER_A_PROTOCOL_VERSION:
            if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                p.protocol_version = mnl_attr_get_u32(a);
            break;
        case WGX_PEER_A_STATS: {
            Counters c;
            st = parse_counters(a, c);
            p.stats = std::move(c);
            break;
        }
        default:
            if (const PeerOption *o = find_peer_attr(mnl_attr_get_type(a)))
                o->wire.get(a, p);
            break;  // unknown (newer) attributes are skipped
        }
    });
    if (!st.is_ok())
        return st;
    if (!have_key)
        return bad("peer without a public key");
    return Status::ok();
}

Status parse_device(const nlmsghdr *nlh, Device &dev, bool set_mode)
{
    Status st;
    std::uint16_t auto_ports = 0;
    for_each_attr(nlh, sizeof(genlmsghdr), [&](const nlattr *a) {
        if (!st.is_ok())
            return;
        std::size_t len = mnl_attr_get_payload_len(a);
        const void *data = mnl_attr_get_payload(a);
        switch (mnl_attr_get_type(a)) {
        case WGX_DEVICE_A_IFINDEX:
            if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                dev.ifindex = mnl_attr_get_u32(a);
            break;
        case WGX_DEVICE_A_IFNAME:
            if (mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
                dev.name.assign(static_cast<const char *>(data), strnlen(static_cast<const char *>(data), len));
            break;
        case WGX_DEVICE_A_PUBLIC_KEY:
            if (len == kKeyLen) {
                Key k;
                std::memcpy(k.data(), data, kKeyLen);
                dev.public_key = k;
            }
            break;
        case WGX_DEVICE_A_FLAGS:
            if (set_mode && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                dev.replace_peers = mnl_attr_get_u32(a) & WGX_DEVICE_F_REPLACE_PEERS;
            break;
        case WGX_DEVICE_A_LISTEN_PORTS_AUTO:
            dev.listen_ports_auto = true;
            if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
                auto_ports = mnl_attr_get_u16(a);
            break;
        case WGX_DEVICE_A_PREVIOUS_PUBLIC_KEY:
            if (mnl_attr_get_payload_len(a) == kKeyLen) {
                Key k;
                std::memcpy(k.data(), mnl_attr_get_payload(a), kKeyLen);
                dev.previous_public_key = k;
            }
            break;
        case WGX_DEVICE_A_PEERS:
            for_each_nested(a, [&](const nlattr *pa) {
                if (!st.is_ok())
                    return;
                Peer p;
                st = parse_peer(pa, p, set_mode);
                if (st.is_ok())
                    dev.peers.push_back(std::move(p));
            });
            break;
        case WGX_DEVICE_A_STATS: {
            Counters c;
            st = parse_counters(a, c);
            dev.stats = std::move(c);
            break;
        }
        default:
            if (const DeviceOption *o = find_device_attr(mnl_attr_get_type(a)))
                o->wire.get(a, dev);
            break;
        }
    });
    // Automatic: the count is LISTEN_PORTS_AUTO's (LISTEN_PORTS says 1 for old parsers);
    // a count without it is a fixed one.
    if (!set_mode && dev.listen_ports_auto && auto_ports)
        dev.listen_ports = auto_ports;
    if (!set_mode && dev.listen_ports && !dev.listen_ports_auto)
        dev.listen_ports_auto = false;
    return st;
}

}  // namespace

Status parse_get_device_message(const nlmsghdr *nlh, Device &dev)
{
    return parse_device(nlh, dev, false);
}

Status parse_set_device_message(const nlmsghdr *nlh, Device &dev)
{
    return parse_device(nlh, dev, true);
}

void coalesce_peers(Device &dev)
{
    std::vector<Peer> merged;
    merged.reserve(dev.peers.size());
    for (Peer &p : dev.peers) {
        if (!merged.empty() && merged.back().public_key == p.public_key) {
            auto &dst = merged.back().allowed_ips;
            dst.insert(dst.end(), p.allowed_ips.begin(), p.allowed_ips.end());
        } else {
            merged.push_back(std::move(p));
        }
    }
    dev.peers = std::move(merged);
}

}  // namespace wgx
