// SPDX-License-Identifier: GPL-2.0
//
// set_args.cpp - the argument parser of `wgx set` (set_args.hpp).  The
// settings of options.hpp are parsed by its table, the other single values
// by values.cpp.
#include "set_args.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "encoding.hpp"
#include "options.hpp"

namespace wgx {

const std::vector<std::string> &offload_names()
{
    static const std::vector<std::string> names = {"gso", "gro", "tx-checksum", "rx-checksum"};
    return names;
}

const std::vector<SetKeyword> &set_keywords()
{
    static const std::vector<SetKeyword> k = [] {
        std::vector<SetKeyword> v;
        for (const DeviceOption &o : device_options())
            v.push_back({o.keyword, o.usage, false, false});
        v.insert(v.end(), {
                              {"offload", "{gso|gro|tx-checksum|rx-checksum} {on|off}", false, true},
                              {"peer", "<base64 public key>", false, true},
                              {"remove", "", true, false},
                              {"public-key", "<new base64 public key>", true, false},
                              {"preshared-key", "<file path>", true, false},
                              {"endpoint", "<host>:<port>", true, false},
                          });
        for (const PeerOption &o : peer_options())
            v.push_back({o.keyword, o.usage, true, false});
        v.push_back({"allowed-ips", "[+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...", true, false});
        return v;
    }();
    return k;
}

namespace {

// "a, b, c or LAST" (or "a, b, c" when @last is "") from the names of the keywords of one side (peer or interface).
std::string keyword_list(bool peer, const char *last)
{
    std::vector<std::string> names;
    for (const SetKeyword &k : set_keywords())
        if (k.peer == peer && strcmp(k.name, "peer"))
            names.push_back(k.name);
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i)
        s += (i ? ", " : "") + names[i];
    return *last ? s + " or " + last : s;
}

// Parse @value of the setting @o into @obj: "" or the error message.  The
// value of a key_file setting is the name of the file holding it.
template <class T>
std::string set_option(const Option<T> &o, const std::string &value, T &obj, std::vector<std::string> &warnings)
{
    // A peer setting whose keyword is also an interface one (mtu) is called `peer mtu' in messages.
    const std::string name =
        std::string(std::is_same_v<T, Peer> && find_device_option(o.keyword) ? "peer " : "") + o.keyword;
    std::string text = value, expected, err;
    if (o.key_file) {
        Key k;
        if (!read_key_file(value, k, err, warnings))
            return name + ": " + err;
        text = key_to_base64(k);
    }
    if (!o.parse(text, obj, expected))
        return "invalid " + name + " " + quoted(value) + ": " + expected;
    return "";
}

}  // namespace

ParseResult parse_set_args(const std::vector<std::string> &args, const ParseOptions &opts)
{
    ParseResult r;
    Device &d = r.device;
    Peer *peer = nullptr;
    bool incremental = false;
    auto fail = [&](const std::string &msg) {
        r.errors.push_back(msg);
        r.device = Device{};
        return r;
    };
    auto invalid = [&](const std::string &arg, const std::string &value, const std::string &expected) {
        return fail("invalid " + arg + " " + quoted(value) + ": " + expected);
    };

    for (std::size_t i = 0; i < args.size();) {
        const std::string &a = args[i];
        bool have_value = i + 1 < args.size();
        const std::string value = have_value ? args[i + 1] : std::string();
        std::string expected, err;

        // A name may be both (mtu): after `peer KEY` the peer's, before it the interface's.
        const auto &kw = set_keywords();
        auto side = [&](bool of_peer) {
            return std::any_of(kw.begin(), kw.end(),
                               [&](const SetKeyword &k) { return a == k.name && k.peer == of_peer; });
        };
        bool is_device_arg = side(false) && a != "peer" && !(peer && side(true));
        bool is_peer_arg = side(true) && !is_device_arg;
        if (is_device_arg && peer)
            return fail(quoted(a) + " is an interface setting and must come before the first `peer'");
        if (is_peer_arg && !peer)
            return fail(quoted(a) + " is a peer setting: expected `peer <base64 public key>' before it");
        if (a != "remove" && (is_device_arg || is_peer_arg || a == "peer") && !have_value)
            return fail(quoted(a) + " needs a value");

        if (const DeviceOption *o = is_device_arg ? find_device_option(a) : nullptr) {
            if (std::string msg = set_option(*o, value, d, r.warnings); !msg.empty())
                return fail(msg);
            i += 2;
        } else if (const PeerOption *po = is_peer_arg ? find_peer_option(a) : nullptr) {
            if (std::string msg = set_option(*po, value, *peer, r.warnings); !msg.empty())
                return fail(msg);
            i += 2;
        } else if (a == "offload") {
            const auto &names = offload_names();
            if (std::find(names.begin(), names.end(), value) == names.end())
                return invalid("offload", value, "expected gso, gro, tx-checksum or rx-checksum");
            if (i + 2 >= args.size())
                return fail("`offload " + value + "' needs a value: expected on or off");
            const std::string &onoff = args[i + 2];
            if (onoff != "on" && onoff != "off")
                return invalid("offload " + value + " setting", onoff, "expected on or off");
            d.offloads.push_back({value, onoff == "on"});
            i += 3;
        } else if (a == "peer") {
            Key k;
            if (!key_from_base64(k, value))
                return invalid("peer public key", value, "expected a base64 key of 44 characters ending in '='");
            d.peers.emplace_back();
            peer = &d.peers.back();
            peer->public_key = k;
            incremental = false;
            i += 2;
        } else if (a == "remove") {
            peer->remove = true;
            i += 1;
        } else if (a == "public-key") {
            Key k;
            if (!key_from_base64(k, value))
                return invalid("public-key", value, "expected a base64 key of 44 characters ending in '='");
            if (k == peer->public_key)
                return invalid("public-key", value, "expected a key other than the peer's current one");
            peer->new_public_key = k;
            i += 2;
        } else if (a == "preshared-key") {
            Key k;
            if (!read_key_file(value, k, err, r.warnings))
                return fail("preshared-key: " + err);
            peer->preshared_key = k;
            i += 2;
        } else if (a == "endpoint") {
            Endpoint ep;
            if (!parse_endpoint(value, ep, opts.resolve, expected, err)) {
                if (!expected.empty())
                    return invalid(a, value, expected);
                return fail("unable to resolve endpoint " + quoted(value) + ": " + err);
            }
            peer->endpoint = ep;
            i += 2;
        } else if (a == "allowed-ips") {
            std::string list = strip_spaces(value);
            if (!incremental)
                peer->replace_allowed_ips = true;
            std::size_t start = 0;
            while (!list.empty()) {
                std::size_t comma = list.find(',', start);
                std::string entry = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                AllowedIp ip;
                char sign;
                bool host_bits;
                if (!parse_allowed_ip(entry, ip, sign, host_bits, expected))
                    return invalid("allowed-ips entry", entry, expected);
                if (sign) {
                    incremental = true;
                    peer->replace_allowed_ips = false;
                }
                if (host_bits)
                    r.warnings.push_back("Warning: allowed-ips entry " + quoted(entry) +
                                         " has host bits set beyond its prefix");
                peer->allowed_ips.push_back(ip);
                if (comma == std::string::npos)
                    break;
                start = comma + 1;
            }
            i += 2;
        } else {
            std::string what = peer ? "expected a peer setting (" + keyword_list(true, "") + ") or `peer'"
                                    : "expected " + keyword_list(false, "peer");
            return fail("invalid argument " + quoted(a) + ": " + what);
        }
    }
    return r;
}

}  // namespace wgx
