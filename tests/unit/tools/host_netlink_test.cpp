// SPDX-License-Identifier: GPL-2.0
// The netlink layer against the host kernel, read-only: family resolution,
// a link dump, a single-link request, error mapping.  Skipped where the
// sandbox has no netlink.  Nothing here changes host state.
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>

#include "../../../tools/wgx/ethtool.hpp"
#include "../../../tools/wgx/ipc.hpp"
#include "../../../tools/wgx/rtnl.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

bool have_netlink()
{
    NlSocket s;
    return s.open(NETLINK_ROUTE).is_ok();
}

TEST(ToolHostNetlink, GenericFamilyResolution)
{
    if (!have_netlink())
        GTEST_SKIP() << "no netlink in this sandbox";
    NlSocket s;
    ASSERT_TRUE(s.open(NETLINK_GENERIC).is_ok());
    std::uint16_t id = 0;
    ASSERT_TRUE(genl_family_id(s, "nlctrl", id).is_ok());
    EXPECT_EQ(id, GENL_ID_CTRL);
    // The same socket keeps working after an error reply.
    Status st = genl_family_id(s, "wgxnofamily", id);
    EXPECT_EQ(st.err, ENOENT);
    EXPECT_EQ(st.msg, "generic netlink family `wgxnofamily' is not registered");
    ASSERT_TRUE(genl_family_id(s, "nlctrl", id).is_ok());
}

// The family dump finds what the by-name lookup finds, and reports an absent
// family as the by-name lookup does (without asking the kernel to load it).
TEST(ToolHostNetlink, GenericFamilyFoundInDump)
{
    if (!have_netlink())
        GTEST_SKIP() << "no netlink in this sandbox";
    NlSocket s;
    ASSERT_TRUE(s.open(NETLINK_GENERIC).is_ok());
    std::uint16_t id = 0, by_name = 0;
    std::uint32_t maxattr = 0, by_name_max = 0;
    ASSERT_TRUE(genl_family_id_registered(s, "nlctrl", id, &maxattr).is_ok());
    EXPECT_EQ(id, GENL_ID_CTRL);
    ASSERT_TRUE(genl_family_id(s, "nlctrl", by_name, &by_name_max).is_ok());
    EXPECT_EQ(maxattr, by_name_max);
    Status st = genl_family_id_registered(s, "wgxnofamily", id);
    EXPECT_EQ(st.err, ENOENT);
    EXPECT_EQ(st.msg, "generic netlink family `wgxnofamily' is not registered");
}

TEST(ToolHostNetlink, LinksDumpAndSingleRequestAgree)
{
    if (!have_netlink())
        GTEST_SKIP() << "no netlink in this sandbox";
    std::vector<LinkInfo> all;
    ASSERT_TRUE(rtnl_list_links(all).is_ok());
    ASSERT_FALSE(all.empty());
    auto lo = std::find_if(all.begin(), all.end(), [](const LinkInfo &l) { return l.name == "lo"; });
    ASSERT_NE(lo, all.end());
    LinkInfo one;
    ASSERT_TRUE(rtnl_get_link("lo", one).is_ok());
    EXPECT_EQ(one.ifindex, lo->ifindex);
    EXPECT_EQ(one.mtu, lo->mtu);
    EXPECT_EQ(one.kind, "");

    Status st = rtnl_get_link("wgxnope0", one);
    EXPECT_EQ(st.err, ENODEV);
    EXPECT_EQ(rtnl_get_link("a-name-that-is-too-long", one).err, ENAMETOOLONG);
}

TEST(ToolHostNetlink, DeviceAccessErrorsName)
{
    if (!have_netlink())
        GTEST_SKIP() << "no netlink in this sandbox";
    Device d;
    Status st = get_device("lo", d);
    EXPECT_EQ(st.err, EOPNOTSUPP);
    EXPECT_EQ(st.msg, "`lo' is not a wgx or wireguard interface (no link kind)");
    st = get_device("wgxnope0", d);
    EXPECT_EQ(st.err, ENODEV);
    EXPECT_EQ(st.text(), "no interface named `wgxnope0' (No such device)");
    Device set;
    set.name = "lo";
    set.mtu = 1000;
    EXPECT_EQ(set_device(set).err, EOPNOTSUPP);  // refused before anything is sent
}

TEST(ToolHostNetlink, EthtoolFeaturesOfLoopback)
{
    if (!have_netlink())
        GTEST_SKIP() << "no netlink in this sandbox";
    FeatureMap f;
    Status st = ethtool_get_features("lo", f);
    if (st.err == ENOENT)
        GTEST_SKIP() << "no ethtool netlink: " << st.text();
    ASSERT_TRUE(st.is_ok()) << st.text();
    ASSERT_TRUE(f.count("rx-gro"));
    EXPECT_TRUE(f.count("tx-generic-segmentation"));
}

}  // namespace
}  // namespace wgx
