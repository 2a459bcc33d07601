// SPDX-License-Identifier: GPL-2.0
#include "ipc.hpp"

#include <linux/netlink.h>

#include <cerrno>

#include "ethtool.hpp"
#include "options.hpp"
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
    Status st = genl_family_id(sock, kind_family(kind), family, maxattr);
    if (!st.is_ok() && st.err == ENOENT)
        st.msg += kind == Kind::Wgx ? " (is the wgx module loaded?)" : " (is wireguard loaded?)";
    return st;
}

// The lookup errors of a family that does not serve the device (uapi/linux/wgx.h,
// "Device lookup"): another module's device of the same link kind.
bool not_served(const Status &st)
{
    return st.err == EOPNOTSUPP || st.err == ENODEV;
}

/*
 * served_family - whose generic netlink family to speak to a device of link
 * kind @kind on the open @sock: @family (and its @maxattr) and the kind of
 * module it is, Kind::Wgx or Kind::WireGuard.  A wgx device is wgx's; for
 * kind wireguard it is wgx's family when the wgx module is loaded (in
 * drop-in mode it owns the kind and its own family serves those devices),
 * found without having the kernel load it, else WireGuard's.  The caller
 * falls back to WireGuard's when wgx's answers not_served().
 */
Status served_family(NlSocket &sock, Kind kind, Kind &served, std::uint16_t &family, std::uint32_t &maxattr)
{
    served = kind;
    if (kind == Kind::WireGuard && genl_family_id_registered(sock, kind_family(Kind::Wgx), family, &maxattr).is_ok()) {
        served = Kind::Wgx;
        return Status::ok();
    }
    return open_family(sock, kind, family, &maxattr);
}

/*
 * wgx_family_probe - whether the "wgx" family (@family on @sock) serves
 * device @name: an empty SET_DEVICE, which changes nothing.  Success when
 * it does, not_served() when the device is another module's.
 */
Status wgx_family_probe(NlSocket &sock, std::uint16_t family, const std::string &name)
{
    NlMessage probe(family, NLM_F_REQUEST | NLM_F_ACK, 256);
    probe.put_genl_header(WGX_CMD_SET_DEVICE, WGX_GENL_VERSION);
    probe.put_strz(WGX_DEVICE_A_IFNAME, name);
    return sock.request(probe, nullptr);
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
    std::uint32_t maxattr = 0;
    // Whose family is asked: wgx's for its own kind; for kind wireguard,
    // wgx's first if that module is loaded (drop-in mode), and WireGuard's
    // when wgx's answers that the device is not one of its own.
    Kind served;
    if (!(st = sock.open(NETLINK_GENERIC)).is_ok() ||
        !(st = served_family(sock, kind, served, family, maxattr)).is_ok())
        return st;
    for (int attempt = 0;; ++attempt) {
        // A wgx.ko older than WGX_DEVICE_A_GET_FLAGS refuses it (strict
        // validation, EINVAL): such a module is asked for everything.
        const bool brief = served == Kind::Wgx && !stats && maxattr >= WGX_DEVICE_A_GET_FLAGS;
        Device dev;
        NlMessage req = build_get_device_request(family, name, brief ? WGX_GET_F_NO_STATS : 0);
        bool interrupted = false;
        st = sock.request(
            req, [&](const nlmsghdr *nlh) { return parse_get_device_message(nlh, dev); }, &interrupted);
        if (!st.is_ok() && served != kind && not_served(st)) {
            served = kind;
            if (!(st = open_family(sock, kind, family, &maxattr)).is_ok())
                return st;
            continue;
        }
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
    // The family first: whether wgx's options apply depends on the module
    // that serves the device, not on its link kind (drop-in mode).
    bool genl = has_genl_changes(requested) || (!requested.mtu && requested.offloads.empty());
    NlSocket sock;
    std::uint16_t family = 0;
    std::uint32_t maxattr = 0;
    Kind served = kind;
    if (genl) {
        if (!(st = sock.open(NETLINK_GENERIC)).is_ok() ||
            !(st = served_family(sock, kind, served, family, maxattr)).is_ok())
            return st;
        if (served != kind && !(st = wgx_family_probe(sock, family, requested.name)).is_ok()) {
            if (!not_served(st))
                return st;
            served = kind;
            if (!(st = open_family(sock, kind, family)).is_ok())
                return st;
        }
    }
    Device dev = requested;
    if (served != Kind::Wgx && !(st = wireguard_settings(dev)).is_ok())
        return st;
    if (served != Kind::Wgx) {
        for (const Peer &p : dev.peers)
            if (p.new_public_key)
                return Status::error(EOPNOTSUPP,
                                     "public-key: re-keying a peer in place is a wgx extension; `" + dev.name +
                                         "' is a WireGuard device (remove the peer and add it with the new key)");
    }
    if (!dev.offloads.empty() && !(st = ethtool_check_offloads(dev.name, dev.offloads)).is_ok())
        return st;

    // An MTU given is the user's: the device stops following the underlay,
    // also when it has that size already (no RTM_SETLINK is sent then).
    if (served == Kind::Wgx && dev.mtu && !dev.mtu_auto)
        dev.mtu_auto = false;

    // What is left for generic netlink once WireGuard's defaults are dropped.
    genl = genl && (has_genl_changes(dev) || (!dev.mtu && dev.offloads.empty()));
    std::vector<NlMessage> msgs;
    if (genl && !(st = build_set_device_messages(dev, family, default_set_message_size(), msgs)).is_ok())
        return st;
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
