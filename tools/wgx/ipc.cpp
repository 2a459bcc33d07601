// SPDX-License-Identifier: GPL-2.0
#include "ipc.hpp"

#include <linux/netlink.h>

#include <cerrno>

#include "ethtool.hpp"
#include "uapi/linux/wgx.h"
#include "wgnl.hpp"

namespace wgx {
namespace {

Status link_of_kind(const std::string &name, LinkInfo &link, Kind &kind)
{
    Status st = rtnl_get_link(name, link);
    if (!st.is_ok()) {
        if (st.err == ENODEV && st.msg.empty())
            st.msg = "no interface named `" + name + "'";
        return st;
    }
    kind = kind_from_string(link.kind);
    if (kind == Kind::Unknown)
        return Status::error(
            EOPNOTSUPP, "`" + name + "' is not a wgx or wireguard interface (" +
                            (link.kind.empty() ? std::string("no link kind") : "link kind `" + link.kind + "'") + ")");
    return Status::ok();
}

Status open_family(NlSocket &sock, Kind kind, std::uint16_t &family, std::uint32_t *maxattr = nullptr)
{
    Status st = sock.open(NETLINK_GENERIC);
    if (!st.is_ok())
        return st;
    st = genl_family_id(sock, kind_family(kind), family, maxattr);
    if (!st.is_ok() && st.err == ENOENT)
        st.msg += kind == Kind::Wgx ? " (is the wgx module loaded?)" : " (is wireguard loaded?)";
    return st;
}

}  // namespace

Status list_devices(std::vector<LinkInfo> &out)
{
    std::vector<LinkInfo> all;
    Status st = rtnl_list_links(all);
    out.clear();
    for (LinkInfo &l : all)
        if (kind_from_string(l.kind) != Kind::Unknown)
            out.push_back(std::move(l));
    return st;
}

Status get_device(const std::string &name, Device &out, bool stats)
{
    LinkInfo link;
    Kind kind;
    Status st = link_of_kind(name, link, kind);
    if (!st.is_ok())
        return st;
    NlSocket sock;
    std::uint16_t family;
    std::uint32_t maxattr;
    if (!(st = open_family(sock, kind, family, &maxattr)).is_ok())
        return st;
    // A wgx.ko older than WGX_DEVICE_A_GET_FLAGS refuses it (strict
    // validation, EINVAL): such a module is asked for everything.
    const bool brief = kind == Kind::Wgx && !stats && maxattr >= WGX_DEVICE_A_GET_FLAGS;
    for (int attempt = 0;; ++attempt) {
        Device dev;
        NlMessage req = build_get_device_request(family, name, brief ? WGX_GET_F_NO_STATS : 0);
        bool interrupted = false;
        st = sock.request(
            req, [&](const nlmsghdr *nlh) { return parse_get_device_message(nlh, dev); }, &interrupted);
        if (!st.is_ok())
            return st;
        if (interrupted && attempt < 100)
            continue;
        coalesce_peers(dev);
        dev.kind = kind;
        if (dev.name.empty())
            dev.name = name;
        if (!dev.ifindex)
            dev.ifindex = link.ifindex;
        dev.mtu = link.mtu;
        out = std::move(dev);
        return Status::ok();
    }
}

Status set_device(const Device &requested)
{
    LinkInfo link;
    Kind kind;
    Status st = link_of_kind(requested.name, link, kind);
    if (!st.is_ok())
        return st;
    Device dev = requested;
    if (kind != Kind::Wgx && dev.listen_ports) {
        // A wgx extension; WireGuard listens on one port, which is what 1 asks for.
        if (*dev.listen_ports != 1)
            return Status::error(EOPNOTSUPP, "listen-ports " + std::to_string(*dev.listen_ports) +
                                                 ": several listen ports are a wgx extension; `" + dev.name +
                                                 "' is a WireGuard device");
        dev.listen_ports.reset();
    }
    if (kind != Kind::Wgx && dev.rx_spread) {
        // Off is WireGuard's behaviour; auto is setconf's default.
        if (*dev.rx_spread == RxSpread::On)
            return Status::error(EOPNOTSUPP, "rx-spread on: receive spreading is a wgx extension; `" + dev.name +
                                                 "' is a WireGuard device");
        dev.rx_spread.reset();
    }
    if (kind != Kind::Wgx && dev.dscp_copy) {
        if (*dev.dscp_copy)
            return Status::error(EOPNOTSUPP, "dscp copy: copying the inner DSCP is a wgx extension; `" + dev.name +
                                                 "' is a WireGuard device");
        dev.dscp_copy.reset();
    }
    if (kind != Kind::Wgx && dev.priority_dscp) {
        // setconf's default; WireGuard has no priority lane to configure.
        if (*dev.priority_dscp != WGX_PRIORITY_DSCP_DEFAULT)
            return Status::error(EOPNOTSUPP, "priority-dscp: the priority lane is a wgx extension; `" + dev.name +
                                                 "' is a WireGuard device");
        dev.priority_dscp.reset();
    }
    if (kind != Kind::Wgx && dev.handshake_budget) {
        // setconf's default (automatic); WireGuard has no handshake budget.
        if (*dev.handshake_budget)
            return Status::error(EOPNOTSUPP, "handshake-budget: pacing handshake initiations is a wgx "
                                             "extension; `" +
                                                 dev.name + "' is a WireGuard device");
        dev.handshake_budget.reset();
    }
    if (kind != Kind::Wgx && dev.key_grace) {
        if (*dev.key_grace)
            return Status::error(EOPNOTSUPP, "key-grace: keeping the previous private key is a wgx "
                                             "extension; `" +
                                                 dev.name + "' is a WireGuard device");
        dev.key_grace.reset();
    }
    if (kind != Kind::Wgx && dev.mtu_auto)
        return Status::error(EOPNOTSUPP, "mtu auto: an MTU that follows the underlay is a wgx extension; `" +
                                             dev.name + "' is a WireGuard device");
    if (kind != Kind::Wgx) {
        for (Peer &p : dev.peers) {
            // auto is setconf's default; WireGuard has no per-peer MTU.
            if (p.mtu.value_or(0))
                return Status::error(EOPNOTSUPP, "mtu " + std::to_string(*p.mtu) +
                                                     ": a per-peer MTU is a wgx extension; `" + dev.name +
                                                     "' is a WireGuard device");
            p.mtu.reset();
        }
        for (const Peer &p : dev.peers)
            if (p.new_public_key)
                return Status::error(EOPNOTSUPP,
                                     "public-key: re-keying a peer in place is a wgx extension; `" + dev.name +
                                         "' is a WireGuard device (remove the peer and add it with the new key)");
    }
    if (!dev.offloads.empty() && !(st = ethtool_check_offloads(dev.name, dev.offloads)).is_ok())
        return st;

    bool genl = has_genl_changes(dev) || (!dev.mtu && dev.offloads.empty());
    std::vector<NlMessage> msgs;
    NlSocket sock;
    std::uint16_t family = 0;
    if (genl) {
        if (!(st = open_family(sock, kind, family)).is_ok())
            return st;
        if (!(st = build_set_device_messages(dev, family, default_set_message_size(), msgs)).is_ok())
            return st;
    }
    if (dev.mtu && *dev.mtu != link.mtu) {
        if (!(st = rtnl_set_mtu(link.ifindex, *dev.mtu)).is_ok()) {
            st.msg = "unable to set MTU " + std::to_string(*dev.mtu) + (st.msg.empty() ? std::string() : ": " + st.msg);
            return st;
        }
    }
    for (NlMessage &m : msgs)
        if (!(st = sock.request(m, nullptr)).is_ok())
            return st;
    if (!dev.offloads.empty())
        return ethtool_apply_offloads(dev.name, dev.offloads);
    return Status::ok();
}

}  // namespace wgx
