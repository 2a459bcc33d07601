// SPDX-License-Identifier: GPL-2.0
// The table of device and peer settings (tools/wgx/options.hpp): every
// entry reads back what it prints, names nothing twice, is taken by `set`
// and by configuration files alike, and is listed in the usage.
#include <set>

#include "../../../tools/wgx/options.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

using test::TempFile;

std::string lower(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    return s;
}

Device wgx_device()
{
    Device d;
    d.kind = Kind::Wgx;  // showconf prints the wgx-only settings of a wgx device
    return d;
}

// The value @o formats for @obj after parsing @text into it ("" when @text is refused).
template <class T> std::string parse_and_format(const Option<T> &o, const std::string &text, T obj)
{
    std::string expected;
    Device dev = wgx_device();
    if (!o.parse(text, obj, expected))
        return "";
    if constexpr (std::is_same_v<T, Device>) {
        obj.kind = Kind::Wgx;
        return o.format(obj, obj);
    } else {
        return o.format(dev, obj);
    }
}

template <class T> void expect_round_trip(const std::vector<Option<T>> &table, const T &empty)
{
    for (const Option<T> &o : table) {
        const std::string printed = parse_and_format(o, o.example, empty);
        ASSERT_FALSE(printed.empty()) << o.keyword << ": example `" << o.example << "' not taken or not printed";
        EXPECT_EQ(parse_and_format(o, printed, empty), printed)
            << o.keyword << " does not read back `" << printed << "'";
    }
}

TEST(ToolOptions, EveryEntryReadsBackWhatItPrints)
{
    expect_round_trip(device_options(), wgx_device());
    expect_round_trip(peer_options(), Peer{});
}

// A file without the key (setconf) means the default, and showconf leaves the default out.
TEST(ToolOptions, TheResetValueIsNotPrinted)
{
    for (const DeviceOption &o : device_options()) {
        if (!o.reset)
            continue;
        Device d = wgx_device();
        o.reset(d);
        EXPECT_EQ(o.format(d, d), "") << o.keyword;
    }
}

TEST(ToolOptions, ARefusedValueSaysWhatIsExpected)
{
    for (const DeviceOption &o : device_options()) {
        Device d;
        std::string expected;
        EXPECT_FALSE(o.parse("no-such-value", d, expected)) << o.keyword;
        EXPECT_EQ(expected.rfind("expected ", 0), 0u) << o.keyword << ": " << expected;
    }
    for (const PeerOption &o : peer_options()) {
        Peer p;
        std::string expected;
        EXPECT_FALSE(o.parse("no-such-value", p, expected)) << o.keyword;
        EXPECT_EQ(expected.rfind("expected ", 0), 0u) << o.keyword << ": " << expected;
    }
}

TEST(ToolOptions, KeywordsAndConfigKeysAreUnique)
{
    std::set<std::string> keywords, keys;
    for (const DeviceOption &o : device_options()) {
        EXPECT_TRUE(keywords.insert(o.keyword).second) << o.keyword;
        EXPECT_TRUE(keys.insert(lower(o.config_key)).second) << o.config_key;  // wg reads keys in any case
        EXPECT_EQ(find_device_option(o.keyword), &o);
        EXPECT_EQ(find_device_config_key(lower(o.config_key)), &o);
    }
    keywords.clear();
    keys.clear();
    for (const PeerOption &o : peer_options()) {
        EXPECT_TRUE(keywords.insert(o.keyword).second) << o.keyword;
        EXPECT_TRUE(keys.insert(lower(o.config_key)).second) << o.config_key;
        EXPECT_EQ(find_peer_option(o.keyword), &o);
        EXPECT_EQ(find_peer_config_key(lower(o.config_key)), &o);
    }
    EXPECT_EQ(find_device_option("peer"), nullptr);
    EXPECT_EQ(find_device_config_key("PublicKey"), nullptr);
}

// `set IF KEYWORD VALUE` and `KEY = VALUE` in a file set the same field to the same value.
TEST(ToolOptions, SetAndConfigFilesTakeEveryEntryAlike)
{
    for (const DeviceOption &o : device_options()) {
        TempFile file(std::string(o.example) + "\n", 0600);
        ParseResult set = parse_set_args({o.keyword, o.key_file ? file.path() : o.example}, test::test_options());
        ParseResult conf = parse_config(std::string("[Interface]\n") + o.config_key + " = " + o.example + "\n",
                                        "t.conf", test::test_options(true));
        ASSERT_TRUE(set.ok()) << set.errors[0];
        ASSERT_TRUE(conf.ok()) << conf.errors[0];
        set.device.kind = conf.device.kind = Kind::Wgx;
        EXPECT_EQ(o.format(set.device, set.device), parse_and_format(o, o.example, wgx_device())) << o.keyword;
        EXPECT_EQ(o.format(conf.device, conf.device), o.format(set.device, set.device)) << o.keyword;
    }
    for (const PeerOption &o : peer_options()) {
        ParseResult set = parse_set_args({"peer", test::kPub2, o.keyword, o.example}, test::test_options());
        ParseResult conf = parse_config(std::string("[Peer]\nPublicKey = ") + test::kPub2 + "\n" + o.config_key +
                                            " = " + o.example + "\n",
                                        "t.conf", test::test_options(true));
        ASSERT_TRUE(set.ok()) << set.errors[0];
        ASSERT_TRUE(conf.ok()) << conf.errors[0];
        ASSERT_EQ(set.device.peers.size(), 1u);
        ASSERT_EQ(conf.device.peers.size(), 1u);
        const Device dev = wgx_device();
        EXPECT_EQ(o.format(dev, set.device.peers[0]), parse_and_format(o, o.example, Peer{})) << o.keyword;
        EXPECT_EQ(o.format(dev, conf.device.peers[0]), o.format(dev, set.device.peers[0])) << o.keyword;
    }
}

// The keywords of `set` (its usage, its messages, the completion test) are the table's.
TEST(ToolOptions, SetKeywordsListEveryEntry)
{
    std::set<std::pair<std::string, bool>> listed;
    for (const SetKeyword &k : set_keywords())
        listed.insert({k.name, k.peer});
    for (const DeviceOption &o : device_options())
        EXPECT_TRUE(listed.count({o.keyword, false})) << o.keyword;
    for (const PeerOption &o : peer_options())
        EXPECT_TRUE(listed.count({o.keyword, true})) << o.keyword;
}

}  // namespace
}  // namespace wgx
