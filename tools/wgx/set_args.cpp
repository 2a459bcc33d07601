// SPDX-License-Identifier: GPL-2.0
//
// set_args.cpp - the argument parser of `wgx set` (set_args.hpp).  The
// single values are parsed by values.cpp.
#include "set_args.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "encoding.hpp"

namespace wgx {

const std::vector<std::string> &offload_names()
{
    static const std::vector<std::string> names = {"gso", "gro", "tx-checksum", "rx-checksum"};
    return names;
}

const std::vector<SetKeyword> &set_keywords()
{
    static const std::vector<SetKeyword> k = {
        {"listen-port", "<port>", false, false},
        {"listen-ports", "<count>", false, false},
        {"rx-spread", "auto|on|off", false, false},
        {"dscp", "copy|clear", false, false},
        {"priority-dscp", "<list>", false, false},
        {"handshake-budget", "<per second>|auto", false, false},
        {"key-grace", "<seconds>", false, false},
        {"fwmark", "<mark>", false, false},
        {"private-key", "<file path>", false, false},
        {"mtu", "<bytes>|auto", false, false},
        {"offload", "{gso|gro|tx-checksum|rx-checksum} {on|off}", false, true},
        {"peer", "<base64 public key>", false, true},
        {"remove", "", true, false},
        {"public-key", "<new base64 public key>", true, false},
        {"preshared-key", "<file path>", true, false},
        {"endpoint", "<host>:<port>", true, false},
        {"persistent-keepalive", "<interval seconds>|off", true, false},
        {"mtu", "<bytes>|auto", true, false},
        {"allowed-ips", "[+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...", true, false},
    };
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

        if (a == "listen-port") {
            std::uint16_t p;
            if (!parse_port(value, p, expected))
                return invalid(a, value, expected);
            d.listen_port = p;
            i += 2;
        } else if (a == "listen-ports") {
            std::uint16_t n;
            if (!parse_listen_ports(value, n, expected))
                return invalid(a, value, expected);
            d.listen_ports = n;
            i += 2;
        } else if (a == "rx-spread") {
            RxSpread mode;
            if (!parse_rx_spread(value, mode, expected))
                return invalid(a, value, expected);
            d.rx_spread = mode;
            i += 2;
        } else if (a == "dscp") {
            bool copy;
            if (!parse_dscp_mode(value, copy, expected))
                return invalid(a, value, expected);
            d.dscp_copy = copy;
            i += 2;
        } else if (a == "priority-dscp") {
            std::uint64_t set;
            if (!parse_dscp_set(value, set, expected))
                return invalid(a, value, expected);
            d.priority_dscp = set;
            i += 2;
        } else if (a == "handshake-budget") {
            std::uint32_t n;
            if (!parse_handshake_budget(value, n, expected))
                return invalid(a, value, expected);
            d.handshake_budget = n;
            i += 2;
        } else if (a == "key-grace") {
            std::uint32_t n;
            if (!parse_key_grace(value, n, expected))
                return invalid(a, value, expected);
            d.key_grace = n;
            i += 2;
        } else if (a == "fwmark") {
            std::uint32_t m;
            if (!parse_fwmark(value, m, expected))
                return invalid(a, value, expected);
            d.fwmark = m;
            i += 2;
        } else if (a == "private-key") {
            Key k;
            if (!read_key_file(value, k, err, r.warnings))
                return fail("private-key: " + err);
            d.private_key = k;
            i += 2;
        } else if (a == "mtu" && is_peer_arg) {
            std::uint32_t m;
            if (!parse_peer_mtu(value, m, expected))
                return invalid("peer mtu", value, expected);
            peer->mtu = m;
            i += 2;
        } else if (a == "mtu" && value == "auto") {
            d.mtu_auto = true;
            i += 2;
        } else if (a == "mtu") {
            std::uint32_t m;
            if (!parse_mtu(value, m, expected))
                return invalid(a, value, expected + " or auto");
            d.mtu = m;
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
        } else if (a == "persistent-keepalive") {
            std::uint16_t k;
            if (!parse_keepalive(value, k, expected))
                return invalid(a, value, expected);
            peer->persistent_keepalive = k;
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
