// SPDX-License-Identifier: GPL-2.0
//
// systemd-networkd .netdev files for `wgx reresolve` (netdev.hpp).
#include "netdev.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "encoding.hpp"
#include "format.hpp"

namespace wgx {
namespace {

std::string_view trim(std::string_view s)
{
    const char *ws = " \t\r";
    auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos)
        return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// The key and value of a "Key=Value" line, each trimmed; false without '='.
bool split_key_value(std::string_view l, std::string_view &key, std::string_view &value)
{
    auto eq = l.find('=');
    if (eq == std::string_view::npos)
        return false;
    key = trim(l.substr(0, eq));
    value = trim(l.substr(eq + 1));
    return true;
}

class NetdevParser {
public:
    NetdevParser(std::string_view filename, const ParseOptions &opts) : filename_(filename), opts_(opts) {}

    void line(std::string_view raw)
    {
        ++lineno_;
        std::string_view l = trim(raw);
        if (l.empty() || l[0] == '#' || l[0] == ';')
            return;
        if (l[0] == '[') {
            finish_peer();
            section_ = std::string(l);
            if (section_ == "[WireGuardPeer]") {
                peer_ = Peer{};
                peer_line_ = lineno_;
                peer_has_key_ = peer_bad_key_ = false;
            }
            return;
        }
        std::string_view key, value;
        if (!split_key_value(l, key, value)) {
            error(lineno_, "unrecognized line " + quoted(l) + ": expected [Section] or Key=Value");
            return;
        }
        if (section_ == "[NetDev]") {
            if (key == "Name") {
                r_.device.name = std::string(value);
                has_name_ = true;
            } else if (key == "Kind" && value != "wireguard") {
                error(lineno_, "Kind=" + std::string(value) + ": not a WireGuard device (expected Kind=wireguard)");
            }
        } else if (section_ == "[WireGuardPeer]") {
            peer_key(key, value);
        }
    }

    ParseResult finish()
    {
        finish_peer();
        if (!has_name_)
            error(lineno_ ? lineno_ : 1, "no Name= in a [NetDev] section: expected the interface name");
        return std::move(r_);
    }

private:
    void error(int line, const std::string &msg)
    {
        r_.errors.push_back(std::string(filename_) + ":" + std::to_string(line) + ": " + msg);
    }

    void peer_key(std::string_view key, std::string_view value)
    {
        std::string expected, err;
        if (key == "PublicKey") {
            Key k;
            if (key_from_base64(k, value)) {
                peer_.public_key = k;
                peer_has_key_ = true;
            } else {
                error(lineno_, "invalid PublicKey= " + quoted(value) + ": expected a base64 key of 44 characters");
                peer_bad_key_ = true;
            }
        } else if (key == "Endpoint") {
            Endpoint ep;
            if (parse_endpoint(value, ep, opts_.resolve, expected, err)) {
                peer_.endpoint = ep;
                peer_.endpoint_text = std::string(value);
            } else if (!expected.empty()) {
                error(lineno_, "invalid Endpoint= " + quoted(value) + ": " + expected);
            } else {
                error(lineno_, "unable to resolve Endpoint= " + quoted(value) + ": " + err);
            }
        }
    }

    void finish_peer()
    {
        if (section_ != "[WireGuardPeer]")
            return;
        if (peer_has_key_)
            r_.device.peers.push_back(std::move(peer_));
        else if (!peer_bad_key_)  // an invalid key is reported already
            error(peer_line_, "[WireGuardPeer] section without a PublicKey=: expected PublicKey=<base64 key>");
        section_.clear();
    }

    std::string_view filename_;
    const ParseOptions &opts_;
    ParseResult r_;
    std::string section_;
    Peer peer_;
    int lineno_ = 0, peer_line_ = 0;
    bool peer_has_key_ = false, peer_bad_key_ = false, has_name_ = false;
};

// The interface name a .netdev file gives ("" when none or unreadable).
std::string netdev_name(const std::string &path)
{
    std::ifstream in(path);
    std::string l;
    bool netdev = false;
    std::string name;
    while (std::getline(in, l)) {
        std::string_view t = trim(l), key, value;
        if (!t.empty() && t[0] == '[')
            netdev = t == "[NetDev]";
        else if (netdev && split_key_value(t, key, value) && key == "Name")
            name = std::string(value);
    }
    return name;
}

}  // namespace

ParseResult parse_netdev(std::string_view text, std::string_view filename, const ParseOptions &opts)
{
    NetdevParser p(filename, opts);
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        p.line(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return p.finish();
}

bool is_netdev_path(std::string_view path)
{
    constexpr std::string_view suffix = ".netdev";
    return path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
}

std::string find_netdev_file(std::string_view ifname, const std::vector<std::string> &dirs)
{
    std::map<std::string, std::string> files;  // file name -> path of its highest-priority copy
    for (const std::string &d : dirs) {
        DIR *dir = opendir(d.c_str());
        if (!dir)
            continue;
        while (const dirent *e = readdir(dir)) {
            std::string n = e->d_name;
            if (is_netdev_path(n))
                files.emplace(n, d + "/" + n);
        }
        closedir(dir);
    }
    for (const auto &[name, path] : files)
        if (netdev_name(path) == ifname)
            return path;
    return {};
}

}  // namespace wgx
