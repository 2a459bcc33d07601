// SPDX-License-Identifier: GPL-2.0
//
// config.cpp - the configuration-file parser (config.hpp): wg(8) grammar,
// every problem reported with FILE:LINE.  The settings of options.hpp are
// parsed by its table, the other single values by values.cpp.
#include "config.hpp"

#include <algorithm>
#include <iterator>

#include "options.hpp"

namespace wgx {
namespace {

constexpr const char *kWgQuickKeys[] = {"Address", "DNS",     "Table",    "PreUp",
                                        "PostUp",  "PreDown", "PostDown", "SaveConfig"};

std::string wg_quick_message(std::string_view key)
{
    return quoted(key) + " is a wg-quick(8) key, not a wg/wgx one: set addresses, DNS, routing tables and hooks "
                         "with wg-quick or ip(8), or remove the line (`wg-quick strip' prints the file "
                         "without them)";
}

const char *canonical_wg_quick_key(std::string_view key)
{
    for (const char *k : kWgQuickKeys)
        if (iequals(key, k))
            return k;
    return nullptr;
}

class ConfigParser {
public:
    ConfigParser(std::string_view filename, const ParseOptions &opts) : filename_(filename), opts_(opts)
    {
        if (!opts.append) {
            r_.device.replace_peers = true;
            for (const DeviceOption &o : device_options())
                if (o.reset)
                    o.reset(r_.device);
        }
    }

    void line(std::string_view raw, unsigned lineno)
    {
        lineno_ = lineno;
        if (auto hash = raw.find('#'); hash != std::string_view::npos)
            raw = raw.substr(0, hash);
        std::string l = strip_spaces(raw);
        if (l.empty())
            return;
        if (l[0] == '[') {
            section(l);
            return;
        }
        auto eq = l.find('=');
        if (eq == std::string::npos) {
            error("unrecognized line " + quoted(l) + ": expected [Interface], [Peer] or Key = Value");
            return;
        }
        std::string key = l.substr(0, eq);
        std::string value = l.substr(eq + 1);
        if (key.empty()) {
            error("missing key before '=' in " + quoted(l) + ": expected Key = Value");
            return;
        }
        if (const char *wq = canonical_wg_quick_key(key)) {
            error(wg_quick_message(wq));
            return;
        }
        if (section_ == Section::None) {
            error(quoted(key) + " outside of a section: expected [Interface] or [Peer] before it");
            return;
        }
        if (section_ == Section::Interface)
            interface_key(key, value);
        else
            peer_key(key, value);
    }

    ParseResult finish()
    {
        for (std::size_t i = 0; i < peer_lines_.size(); ++i) {
            if (!peer_has_key_[i]) {
                lineno_ = peer_lines_[i];
                error("[Peer] section without a PublicKey: expected PublicKey = <base64 key>");
            }
        }
        std::stable_sort(errs_.begin(), errs_.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
        for (auto &e : errs_)
            r_.errors.push_back(std::move(e.second));
        return std::move(r_);
    }

private:
    enum class Section { None, Interface, Peer };
    void error(const std::string &msg)
    {
        errs_.emplace_back(lineno_, std::string(filename_) + ":" + std::to_string(lineno_) + ": " + msg);
    }

    void invalid(const char *key, std::string_view value, const std::string &expected)
    {
        if (value.empty())
            error(std::string("empty value for ") + key + ": " + expected);
        else
            error(std::string("invalid ") + key + " " + quoted(value) + ": " + expected);
    }

    void section(const std::string &l)
    {
        if (iequals(l, "[Interface]")) {
            section_ = Section::Interface;
        } else if (iequals(l, "[Peer]")) {
            section_ = Section::Peer;
            r_.device.peers.emplace_back();
            r_.device.peers.back().replace_allowed_ips = true;
            peer_lines_.push_back(lineno_);
            peer_has_key_.push_back(false);
            peer_incremental_.push_back(false);
        } else {
            section_ = Section::None;
            error("unknown section " + quoted(l) + ": expected [Interface] or [Peer]");
        }
    }

    void interface_key(const std::string &key, const std::string &value)
    {
        std::string expected;
        if (const DeviceOption *o = find_device_config_key(key)) {
            if (!o->parse(value, r_.device, expected))
                invalid(o->config_key, value, expected);
        } else if (is_peer_key(key)) {
            error("unknown key " + quoted(key) +
                  " in [Interface]: it belongs in a [Peer] section; [Interface] accepts " + interface_keys_list("and"));
        } else {
            error("unknown key " + quoted(key) + " in [Interface]: expected " + interface_keys_list("or"));
        }
    }

    void peer_key(const std::string &key, const std::string &value)
    {
        Peer &p = r_.device.peers.back();
        std::size_t idx = r_.device.peers.size() - 1;
        std::string expected, err;
        Key k;
        if (iequals(key, "PublicKey")) {
            if (parse_key(value, k, expected)) {
                p.public_key = k;
                peer_has_key_[idx] = true;
            } else {
                invalid("PublicKey", value, expected);
            }
        } else if (iequals(key, "PresharedKey")) {
            if (parse_key(value, k, expected))
                p.preshared_key = k;
            else
                invalid("PresharedKey", value, expected);
        } else if (iequals(key, "AllowedIPs")) {
            allowed_ips(p, idx, value);
        } else if (iequals(key, "Endpoint")) {
            Endpoint ep;
            if (parse_endpoint(value, ep, opts_.resolve, expected, err)) {
                p.endpoint = ep;
                p.endpoint_text = value;
            } else if (!expected.empty()) {
                invalid("Endpoint", value, expected);
            } else {
                error("unable to resolve Endpoint " + quoted(value) + ": " + err);
            }
        } else if (const PeerOption *o = find_peer_config_key(key)) {
            if (!o->parse(value, p, expected))
                invalid(o->config_key, value, expected);
        } else if (find_device_config_key(key)) {
            error("unknown key " + quoted(key) + " in [Peer]: it belongs in the [Interface] section; [Peer] accepts " +
                  peer_keys_list());
        } else {
            error("unknown key " + quoted(key) + " in [Peer]: expected " + peer_keys_list());
        }
    }

    void allowed_ips(Peer &p, std::size_t idx, const std::string &value)
    {
        if (value.empty())
            return;  // "AllowedIPs =" : no prefixes (the peer's list is still replaced)
        std::size_t start = 0;
        for (;;) {
            std::size_t comma = value.find(',', start);
            std::string entry = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            AllowedIp ip;
            char sign;
            bool host_bits;
            std::string expected;
            if (entry.empty()) {
                error("empty entry in AllowedIPs " + quoted(value) +
                      ": expected comma-separated ADDRESS/PREFIX entries");
            } else if (parse_allowed_ip(entry, ip, sign, host_bits, expected)) {
                if (sign)
                    peer_incremental_[idx] = true;
                if (host_bits)
                    r_.warnings.push_back(std::string(filename_) + ":" + std::to_string(lineno_) +
                                          ": warning: AllowedIPs entry " + quoted(entry) +
                                          " has host bits set beyond its prefix");
                p.allowed_ips.push_back(ip);
            } else {
                error("invalid AllowedIPs entry " + quoted(entry) + ": " + expected);
            }
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        if (peer_incremental_[idx])
            p.replace_allowed_ips = false;
    }

    // The [Peer] keys with a grammar of their own, before those of peer_options().
    static constexpr const char *kPeerKeys[] = {"PublicKey", "PresharedKey", "AllowedIPs", "Endpoint"};

    static bool is_peer_key(const std::string &k)
    {
        return std::any_of(std::begin(kPeerKeys), std::end(kPeerKeys), [&](const char *p) { return iequals(k, p); }) ||
               find_peer_config_key(k);
    }
    // "PublicKey, PresharedKey, AllowedIPs, Endpoint, PersistentKeepalive or MTU"
    static std::string peer_keys_list()
    {
        std::vector<std::string> keys(std::begin(kPeerKeys), std::end(kPeerKeys));
        for (const PeerOption &o : peer_options())
            keys.push_back(o.config_key);
        return key_list(keys, "or");
    }
    // The [Interface] keys with the private key first, as wg(8)'s CONFIGURATION FILE FORMAT lists them.
    static std::string interface_keys_list(const char *last)
    {
        std::vector<std::string> keys;
        for (const DeviceOption &o : device_options())
            keys.insert(o.key_file ? keys.begin() : keys.end(), o.config_key);
        return key_list(keys, last);
    }
    // "a, b, c LAST d"
    static std::string key_list(const std::vector<std::string> &keys, const char *last)
    {
        std::string s;
        for (std::size_t i = 0; i < keys.size(); ++i)
            s += (i == 0 ? "" : i + 1 < keys.size() ? ", " : std::string(" ") + last + " ") + keys[i];
        return s;
    }

    std::string_view filename_;
    const ParseOptions &opts_;
    ParseResult r_;
    Section section_ = Section::None;
    unsigned lineno_ = 0;
    std::vector<unsigned> peer_lines_;
    std::vector<bool> peer_has_key_;
    std::vector<bool> peer_incremental_;
    std::vector<std::pair<unsigned, std::string>> errs_;
};

}  // namespace

ParseResult parse_config(std::string_view text, std::string_view filename, const ParseOptions &opts)
{
    ConfigParser p(filename, opts);
    // A UTF-8 byte order mark (Windows editors) is not part of the grammar.
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    unsigned lineno = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        p.line(l, ++lineno);
        if (nl == std::string_view::npos)
            break;
        pos = nl + 1;
    }
    ParseResult r = p.finish();
    if (!r.ok())
        r.device = Device{};
    return r;
}

}  // namespace wgx
