// SPDX-License-Identifier: GPL-2.0
#include "rtnl.hpp"

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cerrno>
#include <cstring>

namespace wgx {

Kind kind_from_string(const std::string &kind)
{
    if (kind == "wgx")
        return Kind::Wgx;
    if (kind == "wireguard")
        return Kind::WireGuard;
    return Kind::Unknown;
}

NlMessage build_link_dump_request()
{
    NlMessage m(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 256);
    auto *ifm = static_cast<ifinfomsg *>(m.put_extra_header(sizeof(ifinfomsg)));
    ifm->ifi_family = AF_UNSPEC;
    return m;
}

NlMessage build_link_get_request(const std::string &name)
{
    NlMessage m(RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, 256);
    auto *ifm = static_cast<ifinfomsg *>(m.put_extra_header(sizeof(ifinfomsg)));
    ifm->ifi_family = AF_UNSPEC;
    m.put_strz(IFLA_IFNAME, name);
    return m;
}

NlMessage build_set_mtu_request(std::uint32_t ifindex, std::uint32_t mtu)
{
    NlMessage m(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, 256);
    auto *ifm = static_cast<ifinfomsg *>(m.put_extra_header(sizeof(ifinfomsg)));
    ifm->ifi_family = AF_UNSPEC;
    ifm->ifi_index = static_cast<int>(ifindex);
    m.put_u32(IFLA_MTU, mtu);
    return m;
}

bool parse_link_message(const nlmsghdr *nlh, LinkInfo &out)
{
    if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(ifinfomsg)))
        return false;
    const auto *ifm = static_cast<const ifinfomsg *>(mnl_nlmsg_get_payload(nlh));
    out = LinkInfo{};
    out.ifindex = static_cast<std::uint32_t>(ifm->ifi_index);
    for_each_attr(nlh, sizeof(ifinfomsg), [&](const nlattr *a) {
        switch (mnl_attr_get_type(a)) {
        case IFLA_IFNAME:
            if (mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
                out.name.assign(mnl_attr_get_str(a), strnlen(mnl_attr_get_str(a), mnl_attr_get_payload_len(a)));
            break;
        case IFLA_MTU:
            if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
                out.mtu = mnl_attr_get_u32(a);
            break;
        case IFLA_LINKINFO:
            for_each_nested(a, [&](const nlattr *li) {
                if (mnl_attr_get_type(li) == IFLA_INFO_KIND && mnl_attr_validate(li, MNL_TYPE_STRING) == 0)
                    out.kind.assign(mnl_attr_get_str(li), strnlen(mnl_attr_get_str(li), mnl_attr_get_payload_len(li)));
            });
            break;
        default:
            break;
        }
    });
    return !out.name.empty();
}

Status rtnl_list_links(std::vector<LinkInfo> &out)
{
    out.clear();
    NlSocket sock;
    Status st = sock.open(NETLINK_ROUTE);
    if (!st.is_ok())
        return st;
    NlMessage req = build_link_dump_request();
    // A link set that changes during the dump sets NLM_F_DUMP_INTR; like wg,
    // work with what we got rather than retrying forever.
    bool intr = false;
    return sock.request(
        req,
        [&](const nlmsghdr *nlh) {
            LinkInfo li;
            if (parse_link_message(nlh, li))
                out.push_back(std::move(li));
            return Status::ok();
        },
        &intr);
}

Status rtnl_get_link(const std::string &name, LinkInfo &out)
{
    if (name.empty() || name.size() >= IFNAMSIZ)
        return Status::error(name.empty() ? EINVAL : ENAMETOOLONG, "invalid interface name `" + name + "'");
    NlSocket sock;
    Status st = sock.open(NETLINK_ROUTE);
    if (!st.is_ok())
        return st;
    NlMessage req = build_link_get_request(name);
    bool found = false;
    st = sock.request(req, [&](const nlmsghdr *nlh) {
        if (parse_link_message(nlh, out))
            found = true;
        return Status::ok();
    });
    if (!st.is_ok())
        return st;
    if (!found)
        return Status::error(ENODEV);
    return Status::ok();
}

Status rtnl_set_mtu(std::uint32_t ifindex, std::uint32_t mtu)
{
    NlSocket sock;
    Status st = sock.open(NETLINK_ROUTE);
    if (!st.is_ok())
        return st;
    NlMessage req = build_set_mtu_request(ifindex, mtu);
    return sock.request(req, nullptr);
}

}  // namespace wgx
