// SPDX-License-Identifier: GPL-2.0
// The table of device and peer settings (tools/wgx/options.hpp): every
// entry reads back what it prints, names nothing twice, is taken by `set`
// and by configuration files alike, and is listed in the usage.
#include <functional>
#include <set>
#include <sstream>

#include "../../../tools/wgx/format.hpp"
#include "../../../tools/wgx/options.hpp"
#include "../../../tools/wgx/wgnl.hpp"
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

// `show` has a line for a setting at its example value and none at its default.
TEST(ToolOptions, ShowLinesForTheExampleNotTheDefault)
{
    unsigned shown = 0;
    for (const DeviceOption &o : device_options()) {
        if (!o.show)
            continue;
        ++shown;
        ASSERT_NE(o.show_label, nullptr) << o.keyword;
        Device d = wgx_device();
        d.listen_port = 51820;  // the range of listen-ports starts there
        std::string expected;
        ASSERT_TRUE(o.parse(o.example, d, expected)) << o.keyword;
        EXPECT_NE(o.show(d, d), "") << o.keyword;
        EXPECT_NE(format_show(d, ShowOptions{}).find(std::string("  ") + o.show_label + ": " + o.show(d, d) + "\n"),
                  std::string::npos)
            << o.keyword;
        if (o.reset) {
            Device r = wgx_device();
            o.reset(r);
            EXPECT_EQ(o.show(r, r), "") << o.keyword;
        }
    }
    for (const PeerOption &o : peer_options()) {
        if (!o.show)
            continue;
        ++shown;
        Peer p;
        std::string expected;
        ASSERT_TRUE(o.parse(o.example, p, expected)) << o.keyword;
        EXPECT_NE(o.show(wgx_device(), p), "") << o.keyword;
    }
    EXPECT_GT(shown, 0u);
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
    std::set<std::uint16_t> device_attrs, peer_attrs;
    for (const DeviceOption &o : device_options()) {
        EXPECT_TRUE(device_attrs.insert(o.wire.attr).second) << o.keyword;
        EXPECT_EQ(find_device_attr(o.wire.attr), &o);
    }
    for (const PeerOption &o : peer_options()) {
        EXPECT_TRUE(peer_attrs.insert(o.wire.attr).second) << o.keyword;
        EXPECT_EQ(find_peer_attr(o.wire.attr), &o);
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

// The bytes of the SET_DEVICE message of @d ("" when it is not one message).
std::string set_message(const Device &d)
{
    std::vector<NlMessage> msgs;
    if (!build_set_device_messages(d, 0x1d, 8192, msgs).is_ok() || msgs.size() != 1)
        return "";
    return std::string(reinterpret_cast<const char *>(msgs[0].hdr()), msgs[0].hdr()->nlmsg_len);
}

// @d through its SET_DEVICE message and back (the attribute parser is the
// one of GET_DEVICE replies).
Device through_netlink(const Device &d)
{
    std::vector<NlMessage> msgs;
    Device back;
    EXPECT_TRUE(build_set_device_messages(d, 0x1d, 8192, msgs).is_ok());
    EXPECT_EQ(msgs.size(), 1u);
    if (msgs.size() == 1) {
        EXPECT_TRUE(parse_set_device_message(msgs[0].hdr(), back).is_ok());
    }
    back.kind = Kind::Wgx;
    return back;
}

std::vector<std::string> sample_values(const char *example, const char *completion)
{
    std::vector<std::string> v = {example};
    std::istringstream in(completion);
    for (std::string w; in >> w;)
        v.push_back(w);
    return v;
}

// Each entry's example or value words are carried by its attribute, and
// what is parsed back makes the same message and prints the same.
TEST(ToolOptions, EveryEntryTravelsInItsAttribute)
{
    for (const DeviceOption &o : device_options()) {
        unsigned carried = 0;
        for (const std::string &text : sample_values(o.example, o.completion)) {
            Device d = wgx_device();
            d.name = "wgx0";
            std::string expected;
            ASSERT_TRUE(o.parse(text, d, expected)) << o.keyword << " " << text;
            if (!o.wire.has(d))
                continue;  // the MTU in bytes is a link setting (rtnetlink), not in SET_DEVICE
            ++carried;
            EXPECT_TRUE(has_genl_changes(d)) << o.keyword;
            Device back = through_netlink(d);
            EXPECT_TRUE(o.wire.has(back)) << o.keyword << " " << text;
            EXPECT_EQ(set_message(back), set_message(d)) << o.keyword << " " << text;
            EXPECT_EQ(o.format(back, back), o.format(d, d)) << o.keyword << " " << text;
        }
        EXPECT_GT(carried, 0u) << o.keyword;
    }
    for (const PeerOption &o : peer_options()) {
        for (const std::string &text : sample_values(o.example, o.completion)) {
            Device d = wgx_device();
            d.name = "wgx0";
            d.peers.emplace_back();
            d.peers[0].public_key = test::key(test::kPub2);
            std::string expected;
            ASSERT_TRUE(o.parse(text, d.peers[0], expected)) << o.keyword << " " << text;
            ASSERT_TRUE(o.wire.has(d.peers[0])) << o.keyword << " " << text;
            Device back = through_netlink(d);
            ASSERT_EQ(back.peers.size(), 1u);
            EXPECT_TRUE(o.wire.has(back.peers[0])) << o.keyword << " " << text;
            back.name = "wgx0";
            EXPECT_EQ(set_message(back), set_message(d)) << o.keyword << " " << text;
            EXPECT_EQ(o.format(back, back.peers[0]), o.format(d, d.peers[0])) << o.keyword << " " << text;
        }
    }
}

// A WireGuard device: setconf's defaults of the wgx settings are dropped,
// any other value refused naming the setting and the device.
TEST(ToolOptions, WireGuardDeviceTakesOnlyWireGuardsBehaviour)
{
    ParseResult defaults = parse_config(
        "[Interface]\nListenPort = 51820\n[Peer]\nPublicKey = " + std::string(test::kPub2) + "\nMTU = auto\n",
        "wg0.conf", test::test_options());
    ASSERT_TRUE(defaults.ok()) << defaults.errors[0];
    Device d = defaults.device;
    d.name = "wg0";
    d.rx_spread = RxSpread::Off;  // WireGuard's behaviour too
    ASSERT_TRUE(wireguard_settings(d).is_ok());
    for (const DeviceOption &o : device_options())
        EXPECT_EQ(o.wire.has(d), o.refusal == nullptr) << o.keyword;  // wg's own stay, the wgx ones go
    EXPECT_FALSE(d.peers[0].mtu);
    EXPECT_EQ(d.listen_port, 51820);

    const std::vector<std::pair<std::function<void(Device &)>, std::string>> refused = {
        {[](Device &x) { x.listen_ports = 4; }, "listen-ports 4: several listen ports are a wgx extension"},
        {[](Device &x) { x.rx_spread = RxSpread::On; }, "rx-spread on: receive spreading is a wgx extension"},
        {[](Device &x) { x.dscp_copy = true; }, "dscp copy: copying the inner DSCP is a wgx extension"},
        {[](Device &x) { x.priority_dscp = 0; }, "priority-dscp: the priority lane is a wgx extension"},
        {[](Device &x) { x.handshake_budget = 20; },
         "handshake-budget: pacing handshake initiations is a wgx extension"},
        {[](Device &x) { x.key_grace = 30; }, "key-grace: keeping the previous private key is a wgx extension"},
        {[](Device &x) { x.mtu_auto = true; }, "mtu auto: an MTU that follows the underlay is a wgx extension"},
        {[](Device &x) { x.peers[0].mtu = 1300; }, "mtu 1300: a per-peer MTU is a wgx extension"},
    };
    for (const auto &[set, message] : refused) {
        Device x = defaults.device;
        x.name = "wg0";
        set(x);
        Status st = wireguard_settings(x);
        EXPECT_EQ(st.err, EOPNOTSUPP) << message;
        EXPECT_EQ(st.msg, message + "; `wg0' is a WireGuard device");
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
