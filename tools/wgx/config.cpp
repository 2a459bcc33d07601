// SPDX-License-Identifier: GPL-2.0
#include "config.hpp"

#include "uapi/linux/wgx.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "encoding.hpp"

namespace wgx {
namespace {

bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool iequals(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = static_cast<char>(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}

std::string strip_spaces(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s)
        if (!is_space(c))
            out.push_back(c);
    return out;
}

// Digits only, no sign, no leading/trailing junk; base 10 or 16.
bool parse_uint(std::string_view s, unsigned base, std::uint64_t max, std::uint64_t &out)
{
    if (s.empty())
        return false;
    std::uint64_t v = 0;
    for (char c : s) {
        unsigned d;
        if (c >= '0' && c <= '9')
            d = static_cast<unsigned>(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f')
            d = static_cast<unsigned>(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F')
            d = static_cast<unsigned>(c - 'A' + 10);
        else
            return false;
        if (d >= base)
            return false;
        v = v * base + d;
        if (v > max)
            return false;
    }
    out = v;
    return true;
}

// Tick-quoted value as wg prints it: `value'.
std::string q(std::string_view v)
{
    std::string s = "`";
    s += v;
    s += "'";
    return s;
}

constexpr const char *kWgQuickKeys[] = {"Address", "DNS",	  "Table",   "PreUp",
                                        "PostUp",  "PreDown", "PostDown", "SaveConfig"};

std::string wg_quick_message(std::string_view key)
{
    return q(key) +
           " is a wg-quick(8) key, not a wg/wgx one: set addresses, DNS, routing tables and hooks "
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

}  // namespace

// ---------------------------------------------------------------- values

bool parse_port(std::string_view v, std::uint16_t &out, std::string &expected)
{
    expected = "expected a port number 0-65535, a UDP service name or \"off\"";
    std::uint64_t n;
    if (iequals(v, "off")) {
        out = 0;
        return true;
    }
    if (!v.empty() && is_digit(v[0])) {
        if (!parse_uint(v, 10, 65535, n))
            return false;
        out = static_cast<std::uint16_t>(n);
        return true;
    }
    if (v.empty())
        return false;
    std::string name(v);
    servent *se = getservbyname(name.c_str(), "udp");
    if (!se)
        return false;
    out = ntohs(static_cast<std::uint16_t>(se->s_port));
    return true;
}

bool parse_listen_ports(std::string_view v, std::uint16_t &out, std::string &expected)
{
    expected = "expected a number of ports 1-" + std::to_string(WGX_MAX_LISTEN_PORTS);
    std::uint64_t n;
    if (v.empty() || !is_digit(v[0]) || !parse_uint(v, 10, WGX_MAX_LISTEN_PORTS, n) || n < 1)
        return false;
    out = static_cast<std::uint16_t>(n);
    return true;
}

bool parse_fwmark(std::string_view v, std::uint32_t &out, std::string &expected)
{
    expected = "expected \"off\" or a number 0-0xffffffff (decimal or 0x-prefixed hexadecimal)";
    std::uint64_t n;
    if (iequals(v, "off")) {
        out = 0;
        return true;
    }
    if (v.empty() || !is_digit(v[0]))
        return false;
    bool ok;
    if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
        ok = parse_uint(v.substr(2), 16, 0xffffffffULL, n);
    else
        ok = parse_uint(v, 10, 0xffffffffULL, n);
    if (!ok)
        return false;
    out = static_cast<std::uint32_t>(n);
    return true;
}

bool parse_keepalive(std::string_view v, std::uint16_t &out, std::string &expected)
{
    expected = "expected \"off\" or an interval in seconds 0-65535";
    std::uint64_t n;
    if (iequals(v, "off")) {
        out = 0;
        return true;
    }
    if (!parse_uint(v, 10, 65535, n))
        return false;
    out = static_cast<std::uint16_t>(n);
    return true;
}

bool parse_mtu(std::string_view v, std::uint32_t &out, std::string &expected)
{
    expected = "expected an MTU in bytes 68-65535";
    std::uint64_t n;
    if (!parse_uint(v, 10, 65535, n) || n < 68)
        return false;
    out = static_cast<std::uint32_t>(n);
    return true;
}

bool parse_allowed_ip(std::string_view v, AllowedIp &out, char &sign, bool &host_bits,
                      std::string &expected)
{
    expected = "expected ADDRESS[/PREFIX] with an IPv4 address and prefix 0-32 or an IPv6 "
               "address and prefix 0-128";
    out = AllowedIp{};
    sign = 0;
    host_bits = false;
    if (!v.empty() && (v[0] == '+' || v[0] == '-')) {
        sign = v[0];
        v.remove_prefix(1);
    }
    std::string_view addr = v, prefix;
    bool has_prefix = false;
    if (auto slash = v.find('/'); slash != std::string_view::npos) {
        addr = v.substr(0, slash);
        prefix = v.substr(slash + 1);
        has_prefix = true;
    }
    std::string a(addr);
    unsigned max;
    if (a.find(':') != std::string::npos) {
        if (inet_pton(AF_INET6, a.c_str(), out.addr.data()) != 1)
            return false;
        out.family = AF_INET6;
        max = 128;
    } else {
        if (inet_pton(AF_INET, a.c_str(), out.addr.data()) != 1)
            return false;
        out.family = AF_INET;
        max = 32;
    }
    std::uint64_t cidr = max;
    if (has_prefix && !parse_uint(prefix, 10, max, cidr))
        return false;
    out.cidr = static_cast<std::uint8_t>(cidr);
    out.remove = sign == '-';
    unsigned bytes = max / 8;
    for (unsigned bit = out.cidr; bit < bytes * 8; ++bit)
        if (out.addr[bit / 8] & (0x80 >> (bit % 8)))
            host_bits = true;
    return true;
}

bool resolve_endpoint_getaddrinfo(const std::string &host, const std::string &port, Endpoint &out,
                                  std::string &error)
{
    int retries = 15;
    if (const char *env = getenv("WG_ENDPOINT_RESOLUTION_RETRIES")) {
        std::uint64_t n;
        if (!strcmp(env, "infinity"))
            retries = -1;
        else if (parse_uint(env, 10, 1000000, n))
            retries = static_cast<int>(n);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_protocol = IPPROTO_UDP;
    addrinfo *res = nullptr;
    unsigned delay_us = 1000000;
    for (;;) {
        int ret = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
        if (!ret)
            break;
        bool permanent = ret == EAI_NONAME || ret == EAI_FAIL || ret == EAI_SERVICE ||
#ifdef EAI_NODATA
                         ret == EAI_NODATA ||
#endif
                         ret == EAI_FAMILY || ret == EAI_SOCKTYPE;
        error = ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret);
        if (permanent || retries == 0)
            return false;
        if (retries > 0)
            --retries;
        usleep(delay_us);
        delay_us = std::min(20000000u, delay_us * 6 / 5);
    }
    bool ok = false;
    for (addrinfo *ai = res; ai; ai = ai->ai_next) {
        if ((ai->ai_family == AF_INET && ai->ai_addrlen == sizeof(sockaddr_in)) ||
            (ai->ai_family == AF_INET6 && ai->ai_addrlen == sizeof(sockaddr_in6))) {
            out = Endpoint{};
            std::memcpy(&out.addr6, ai->ai_addr, ai->ai_addrlen);
            ok = true;
            break;
        }
    }
    freeaddrinfo(res);
    if (!ok)
        error = "neither an IPv4 nor an IPv6 address found";
    return ok;
}

bool parse_endpoint(std::string_view v, Endpoint &out, const EndpointResolver &resolve,
                    std::string &expected, std::string &error)
{
    expected.clear();
    error.clear();
    const char *syntax = "expected HOST:PORT, IPV4:PORT or [IPV6]:PORT";
    std::string host, port;
    if (!v.empty() && v[0] == '[') {
        auto close = v.find(']');
        if (close == std::string_view::npos || close + 1 >= v.size() || v[close + 1] != ':' ||
            close + 2 >= v.size()) {
            expected = syntax;
            return false;
        }
        host = std::string(v.substr(1, close - 1));
        port = std::string(v.substr(close + 2));
    } else {
        auto colon = v.rfind(':');
        if (colon == std::string_view::npos || colon == 0 || colon + 1 >= v.size()) {
            expected = syntax;
            return false;
        }
        host = std::string(v.substr(0, colon));
        port = std::string(v.substr(colon + 1));
    }
    if (host.empty()) {
        expected = syntax;
        return false;
    }
    if (!resolve) {
        error = "no resolver";
        return false;
    }
    Endpoint ep;
    if (!resolve(host, port, ep, error))
        return false;
    out = ep;
    return true;
}

std::string world_accessible_warning(const std::string &path, unsigned mode, bool regular)
{
    if (!regular || !(mode & S_IRWXO))
        return {};
    return "Warning: " + q(path) + " is world accessible";
}

bool read_key_file(const std::string &path, Key &out, std::string &error,
                   std::vector<std::string> &warnings)
{
    out.fill(0);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "unable to open key file " + q(path) + ": " + strerror(errno);
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) == 0) {
        std::string w = world_accessible_warning(path, st.st_mode, S_ISREG(st.st_mode));
        if (!w.empty())
            warnings.push_back(w);
    }
    // A key file is tiny; anything beyond 4 KiB is not a key file.
    std::string buf;
    char chunk[512];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = "unable to read key file " + q(path) + ": " + strerror(errno);
            close(fd);
            return false;
        }
        if (n == 0)
            break;
        buf.append(chunk, static_cast<std::size_t>(n));
        if (buf.size() > 4096)
            break;
    }
    close(fd);
    std::string_view text(buf);
    if (text.empty())
        return true;  // empty file or /dev/null: the all-zero key, i.e. "remove"
    bool ok = true;
    if (text.size() < kKeyBase64Len) {
        error = "key file " + q(path) + " is too short: expected a 44-character base64 key";
        ok = false;
    } else {
        for (char c : text.substr(kKeyBase64Len)) {
            if (!is_space(c)) {
                error = "key file " + q(path) + " has a trailing character " +
                        q(std::string(1, c)) + " after the key: expected only whitespace";
                ok = false;
                break;
            }
        }
        if (ok && !key_from_base64(out, text.substr(0, kKeyBase64Len))) {
            error = "key file " + q(path) +
                    " does not hold a valid key: expected 44 base64 characters ending in '='";
            ok = false;
        }
    }
    std::fill(buf.begin(), buf.end(), '\0');
    if (!ok)
        out.fill(0);
    return ok;
}

const std::vector<std::string> &offload_names()
{
    static const std::vector<std::string> names = {"gso", "gro", "tx-checksum", "rx-checksum"};
    return names;
}

// ---------------------------------------------------------------- files

namespace {

class ConfigParser {
  public:
    ConfigParser(std::string_view filename, const ParseOptions &opts)
        : filename_(filename), opts_(opts)
    {
        if (!opts.append) {
            r_.device.replace_peers = true;
            r_.device.private_key = Key{};
            r_.device.listen_port = 0;
            r_.device.listen_ports = 1;
            r_.device.fwmark = 0;
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
            error("unrecognized line " + q(l) + ": expected [Interface], [Peer] or Key = Value");
            return;
        }
        std::string key = l.substr(0, eq);
        std::string value = l.substr(eq + 1);
        if (key.empty()) {
            error("missing key before '=' in " + q(l) + ": expected Key = Value");
            return;
        }
        if (const char *wq = canonical_wg_quick_key(key)) {
            error(wg_quick_message(wq));
            return;
        }
        if (section_ == Section::None) {
            error(q(key) + " outside of a section: expected [Interface] or [Peer] before it");
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
        std::stable_sort(errs_.begin(), errs_.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        for (auto &e : errs_)
            r_.errors.push_back(std::move(e.second));
        return std::move(r_);
    }

  private:
    enum class Section { None, Interface, Peer };
    void error(const std::string &msg)
    {
        errs_.emplace_back(lineno_,
                           std::string(filename_) + ":" + std::to_string(lineno_) + ": " + msg);
    }

    void invalid(const char *key, std::string_view value, const std::string &expected)
    {
        if (value.empty())
            error(std::string("empty value for ") + key + ": " + expected);
        else
            error(std::string("invalid ") + key + " " + q(value) + ": " + expected);
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
            error("unknown section " + q(l) + ": expected [Interface] or [Peer]");
        }
    }

    void interface_key(const std::string &key, const std::string &value)
    {
        Device &d = r_.device;
        std::string expected;
        if (iequals(key, "PrivateKey")) {
            Key k;
            if (key_from_base64(k, value))
                d.private_key = k;
            else
                invalid("PrivateKey", value, key_expected());
        } else if (iequals(key, "ListenPort")) {
            std::uint16_t p;
            if (parse_port(value, p, expected))
                d.listen_port = p;
            else
                invalid("ListenPort", value, expected);
        } else if (iequals(key, "ListenPorts")) {
            std::uint16_t n;
            if (parse_listen_ports(value, n, expected))
                d.listen_ports = n;
            else
                invalid("ListenPorts", value, expected);
        } else if (iequals(key, "FwMark")) {
            std::uint32_t m;
            if (parse_fwmark(value, m, expected))
                d.fwmark = m;
            else
                invalid("FwMark", value, expected);
        } else if (iequals(key, "MTU")) {
            std::uint32_t m;
            if (parse_mtu(value, m, expected))
                d.mtu = m;
            else
                invalid("MTU", value, expected);
        } else if (is_peer_key(key)) {
            error("unknown key " + q(key) +
                  " in [Interface]: it belongs in a [Peer] section; [Interface] accepts "
                  "PrivateKey, ListenPort, ListenPorts, FwMark and MTU");
        } else {
            error("unknown key " + q(key) +
                  " in [Interface]: expected PrivateKey, ListenPort, ListenPorts, FwMark or MTU");
        }
    }

    void peer_key(const std::string &key, const std::string &value)
    {
        Peer &p = r_.device.peers.back();
        std::size_t idx = r_.device.peers.size() - 1;
        std::string expected, err;
        if (iequals(key, "PublicKey")) {
            Key k;
            if (key_from_base64(k, value)) {
                p.public_key = k;
                peer_has_key_[idx] = true;
            } else {
                invalid("PublicKey", value, key_expected());
            }
        } else if (iequals(key, "PresharedKey")) {
            Key k;
            if (key_from_base64(k, value))
                p.preshared_key = k;
            else
                invalid("PresharedKey", value, key_expected());
        } else if (iequals(key, "AllowedIPs")) {
            allowed_ips(p, idx, value);
        } else if (iequals(key, "Endpoint")) {
            Endpoint ep;
            if (parse_endpoint(value, ep, opts_.resolve, expected, err))
                p.endpoint = ep;
            else if (!expected.empty())
                invalid("Endpoint", value, expected);
            else
                error("unable to resolve Endpoint " + q(value) + ": " + err);
        } else if (iequals(key, "PersistentKeepalive")) {
            std::uint16_t k;
            if (parse_keepalive(value, k, expected))
                p.persistent_keepalive = k;
            else
                invalid("PersistentKeepalive", value, expected);
        } else if (iequals(key, "PrivateKey") || iequals(key, "ListenPort") ||
                   iequals(key, "ListenPorts") || iequals(key, "FwMark") || iequals(key, "MTU")) {
            error("unknown key " + q(key) +
                  " in [Peer]: it belongs in the [Interface] section; [Peer] accepts " +
                  peer_keys_list());
        } else {
            error("unknown key " + q(key) + " in [Peer]: expected " + peer_keys_list());
        }
    }

    void allowed_ips(Peer &p, std::size_t idx, const std::string &value)
    {
        if (value.empty())
            return;  // "AllowedIPs =" : no prefixes (the peer's list is still replaced)
        std::size_t start = 0;
        for (;;) {
            std::size_t comma = value.find(',', start);
            std::string entry =
                value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            AllowedIp ip;
            char sign;
            bool host_bits;
            std::string expected;
            if (entry.empty()) {
                error("empty entry in AllowedIPs " + q(value) +
                      ": expected comma-separated ADDRESS/PREFIX entries");
            } else if (parse_allowed_ip(entry, ip, sign, host_bits, expected)) {
                if (sign)
                    peer_incremental_[idx] = true;
                if (host_bits)
                    r_.warnings.push_back(std::string(filename_) + ":" +
                                          std::to_string(lineno_) +
                                          ": warning: AllowedIPs entry " + q(entry) +
                                          " has host bits set beyond its prefix");
                p.allowed_ips.push_back(ip);
            } else {
                error("invalid AllowedIPs entry " + q(entry) + ": " + expected);
            }
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        if (peer_incremental_[idx])
            p.replace_allowed_ips = false;
    }

    static bool is_peer_key(const std::string &k)
    {
        return iequals(k, "PublicKey") || iequals(k, "PresharedKey") || iequals(k, "AllowedIPs") ||
               iequals(k, "Endpoint") || iequals(k, "PersistentKeepalive");
    }
    static std::string peer_keys_list()
    {
        return "PublicKey, PresharedKey, AllowedIPs, Endpoint or PersistentKeepalive";
    }
    static std::string key_expected()
    {
        return "expected a base64 key of 44 characters ending in '=' (as printed by `wgx "
               "genkey')";
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
        std::string_view l =
            text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
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

// ---------------------------------------------------------------- set

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
    auto invalid = [&](const std::string &arg, const std::string &value,
                       const std::string &expected) {
        return fail("invalid " + arg + " " + q(value) + ": " + expected);
    };
    static const char *device_args[] = {"listen-port", "listen-ports", "fwmark", "private-key", "mtu",
                                        "offload"};
    static const char *peer_args[] = {"remove",	  "preshared-key",	  "endpoint",
                                      "allowed-ips", "persistent-keepalive"};

    for (std::size_t i = 0; i < args.size();) {
        const std::string &a = args[i];
        bool have_value = i + 1 < args.size();
        const std::string value = have_value ? args[i + 1] : std::string();
        std::string expected, err;

        bool is_device_arg = std::find_if(std::begin(device_args), std::end(device_args),
                                          [&](const char *x) { return a == x; }) !=
                             std::end(device_args);
        bool is_peer_arg = std::find_if(std::begin(peer_args), std::end(peer_args),
                                        [&](const char *x) { return a == x; }) !=
                           std::end(peer_args);
        if (is_device_arg && peer)
            return fail(q(a) + " is an interface setting and must come before the first `peer'");
        if (is_peer_arg && !peer)
            return fail(q(a) + " is a peer setting: expected `peer <base64 public key>' before it");
        if (a != "remove" && (is_device_arg || is_peer_arg || a == "peer") && !have_value)
            return fail(q(a) + " needs a value");

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
        } else if (a == "mtu") {
            std::uint32_t m;
            if (!parse_mtu(value, m, expected))
                return invalid(a, value, expected);
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
                return invalid("peer public key", value,
                               "expected a base64 key of 44 characters ending in '='");
            d.peers.emplace_back();
            peer = &d.peers.back();
            peer->public_key = k;
            incremental = false;
            i += 2;
        } else if (a == "remove") {
            peer->remove = true;
            i += 1;
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
                return fail("unable to resolve endpoint " + q(value) + ": " + err);
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
                std::string entry = list.substr(
                    start, comma == std::string::npos ? std::string::npos : comma - start);
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
                    r.warnings.push_back("Warning: allowed-ips entry " + q(entry) +
                                         " has host bits set beyond its prefix");
                peer->allowed_ips.push_back(ip);
                if (comma == std::string::npos)
                    break;
                start = comma + 1;
            }
            i += 2;
        } else {
            std::string what = peer ? "expected a peer setting (remove, preshared-key, endpoint, "
                                      "persistent-keepalive, allowed-ips) or `peer'"
                                    : "expected listen-port, listen-ports, fwmark, private-key, mtu, offload "
                                      "or peer";
            return fail("invalid argument " + q(a) + ": " + what);
        }
    }
    return r;
}

}  // namespace wgx
