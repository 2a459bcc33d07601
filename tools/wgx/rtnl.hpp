// SPDX-License-Identifier: GPL-2.0
//
// rtnl.hpp - the rtnetlink side of the tool: listing links and their kind
// (IFLA_INFO_KIND), reading one link, and setting its MTU (RTM_NEWLINK with
// IFLA_MTU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"
#include "netlink.hpp"

namespace wgx {

struct LinkInfo {
    std::string name;
    std::uint32_t ifindex = 0;
    std::string kind;       // IFLA_INFO_KIND, "" if none
    std::uint32_t mtu = 0;  // bytes
};

/** Kind::Wgx for "wgx", Kind::WireGuard for "wireguard", else Unknown. */
Kind kind_from_string(const std::string &kind);

/** RTM_GETLINK dump of all links. */
NlMessage build_link_dump_request();
/** RTM_GETLINK for one link by name. */
NlMessage build_link_get_request(const std::string &name);
/** RTM_NEWLINK on an existing link @ifindex setting IFLA_MTU to @mtu bytes. */
NlMessage build_set_mtu_request(std::uint32_t ifindex, std::uint32_t mtu);
/** Decode an RTM_NEWLINK message; false if it is not one or has no name. */
bool parse_link_message(const nlmsghdr *nlh, LinkInfo &out);

/** All links, in kernel (ifindex) order. */
Status rtnl_list_links(std::vector<LinkInfo> &out);
/** One link by name; ENODEV if it does not exist. */
Status rtnl_get_link(const std::string &name, LinkInfo &out);
/** Set the MTU of link @ifindex (bytes); the kernel's extack explains refusals. */
Status rtnl_set_mtu(std::uint32_t ifindex, std::uint32_t mtu);

}  // namespace wgx
