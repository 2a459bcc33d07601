// SPDX-License-Identifier: GPL-2.0
//
// values.cpp - the single values of configuration files and `wgx set`
// arguments (values.hpp), and the text helpers both parsers share.
#include "values.hpp"

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

}  // namespace

// ---------------------------------------------------------------- text

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

std::string quoted(std::string_view v)
{
    std::string s = "`";
    s += v;
    s += "'";
    return s;
}

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
    expected = "expected auto or a number of ports 1-" + std::to_string(WGX_MAX_LISTEN_PORTS);
    std::uint64_t n;
    if (v == "auto") {
        out = 0;
        return true;
    }
    if (v.empty() || !is_digit(v[0]) || !parse_uint(v, 10, WGX_MAX_LISTEN_PORTS, n) || n < 1)
        return false;
    out = static_cast<std::uint16_t>(n);
    return true;
}

bool parse_handshake_budget(std::string_view v, std::uint32_t &out, std::string &expected)
{
    expected =
        "expected \"auto\" or initiations per second 0-" + std::to_string(WGX_MAX_HANDSHAKE_BUDGET) + " (0 = auto)";
    std::uint64_t n;
    if (iequals(v, "auto"))
        n = 0;
    else if (v.empty() || !is_digit(v[0]) || !parse_uint(v, 10, WGX_MAX_HANDSHAKE_BUDGET, n))
        return false;
    out = static_cast<std::uint32_t>(n);
    return true;
}

bool parse_key_grace(std::string_view v, std::uint32_t &out, std::string &expected)
{
    expected = "expected seconds 0-" + std::to_string(WGX_MAX_KEY_GRACE);
    std::uint64_t n;
    if (v.empty() || !is_digit(v[0]) || !parse_uint(v, 10, WGX_MAX_KEY_GRACE, n))
        return false;
    out = static_cast<std::uint32_t>(n);
    return true;
}

bool parse_rx_spread(std::string_view v, RxSpread &out, std::string &expected)
{
    expected = "expected auto, on or off";
    if (iequals(v, "auto"))
        out = RxSpread::Auto;
    else if (iequals(v, "on"))
        out = RxSpread::On;
    else if (iequals(v, "off"))
        out = RxSpread::Off;
    else
        return false;
    return true;
}

bool parse_dscp_mode(std::string_view v, bool &copy, std::string &expected)
{
    expected = "expected copy or clear";
    if (iequals(v, "copy"))
        copy = true;
    else if (iequals(v, "clear"))
        copy = false;
    else
        return false;
    return true;
}

namespace {

// The DSCP value named @name (RFC 2474 class selectors, RFC 2597 AF, RFC 3246 EF), or -1.
int dscp_by_name(std::string_view name)
{
    auto digit = [&](std::size_t i, char lo, char hi) { return name[i] >= lo && name[i] <= hi ? name[i] - '0' : -1; };
    if (iequals(name, "EF"))
        return 46;
    if (name.size() == 3 && iequals(name.substr(0, 2), "CS") && digit(2, '0', '7') >= 0)
        return digit(2, '0', '7') * 8;
    if (name.size() == 4 && iequals(name.substr(0, 2), "AF") && digit(2, '1', '4') >= 0 && digit(3, '1', '3') >= 0)
        return digit(2, '1', '4') * 8 + digit(3, '1', '3') * 2;
    return -1;
}

}  // namespace

bool parse_dscp_set(std::string_view v, std::uint64_t &out, std::string &expected)
{
    expected = "expected \"none\" or a comma-separated list of DSCP values: EF, CS0-CS7, "
               "AF11-AF43 or 0-63";
    if (iequals(v, "none")) {
        out = 0;
        return true;
    }
    std::uint64_t set = 0;
    for (;;) {
        std::size_t comma = v.find(',');
        std::string_view item = v.substr(0, comma);
        std::uint64_t n;
        int named = dscp_by_name(item);
        if (named >= 0)
            n = static_cast<std::uint64_t>(named);
        else if (item.empty() || !is_digit(item[0]) || !parse_uint(item, 10, 63, n))
            return false;
        set |= std::uint64_t{1} << n;
        if (comma == std::string_view::npos)
            break;
        v.remove_prefix(comma + 1);
    }
    out = set;
    return true;
}

std::string format_dscp_set(std::uint64_t set)
{
    if (!set)
        return "none";
    std::string s;
    for (unsigned n = 0; n < 64; ++n) {
        if (!(set & (std::uint64_t{1} << n)))
            continue;
        if (!s.empty())
            s += ",";
        if (n == 46)
            s += "EF";
        else if (n % 8 == 0)
            s += "CS" + std::to_string(n / 8);
        else if (n / 8 >= 1 && n / 8 <= 4 && n % 8 >= 2 && n % 8 <= 6 && n % 2 == 0)
            s += "AF" + std::to_string(n / 8) + std::to_string(n % 8 / 2);
        else
            s += std::to_string(n);
    }
    return s;
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

bool parse_key(std::string_view v, Key &out, std::string &expected)
{
    if (key_from_base64(out, v))
        return true;
    expected = "expected a base64 key of 44 characters ending in '=' (as printed by `wgx genkey')";
    return false;
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

bool parse_peer_mtu(std::string_view v, std::uint32_t &out, std::string &expected)
{
    expected = "expected auto or an MTU in bytes " + std::to_string(WGX_MIN_PEER_MTU) + "-" +
               std::to_string(WGX_MAX_PEER_MTU);
    if (v == "auto") {
        out = 0;
        return true;
    }
    std::uint64_t n;
    if (!parse_uint(v, 10, WGX_MAX_PEER_MTU, n) || n < WGX_MIN_PEER_MTU)
        return false;
    out = static_cast<std::uint32_t>(n);
    return true;
}

bool parse_allowed_ip(std::string_view v, AllowedIp &out, char &sign, bool &host_bits, std::string &expected)
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

bool resolve_endpoint_getaddrinfo(const std::string &host, const std::string &port, Endpoint &out, std::string &error)
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

bool parse_endpoint(std::string_view v, Endpoint &out, const EndpointResolver &resolve, std::string &expected,
                    std::string &error)
{
    expected.clear();
    error.clear();
    const char *syntax = "expected HOST:PORT, IPV4:PORT or [IPV6]:PORT";
    std::string host, port;
    if (!v.empty() && v[0] == '[') {
        auto close = v.find(']');
        if (close == std::string_view::npos || close + 1 >= v.size() || v[close + 1] != ':' || close + 2 >= v.size()) {
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
    // A number is a port 1-65535 (getaddrinfo would take 99999 modulo 65536);
    // anything else is a UDP service name for the resolver.
    std::uint64_t n;
    if ((is_digit(port[0]) || port[0] == '-' || port[0] == '+') && (!parse_uint(port, 10, 65535, n) || !n)) {
        expected = "expected HOST:PORT with a port number 1-65535";
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
    return "Warning: " + quoted(path) + " is world accessible";
}

bool read_key_file(const std::string &path, Key &out, std::string &error, std::vector<std::string> &warnings)
{
    out.fill(0);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "unable to open key file " + quoted(path) + ": " + strerror(errno);
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
            error = "unable to read key file " + quoted(path) + ": " + strerror(errno);
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
        error = "key file " + quoted(path) + " is too short: expected a 44-character base64 key";
        ok = false;
    } else {
        for (char c : text.substr(kKeyBase64Len)) {
            if (!is_space(c)) {
                error = "key file " + quoted(path) + " has a trailing character " + quoted(std::string(1, c)) +
                        " after the key: expected only whitespace";
                ok = false;
                break;
            }
        }
        if (ok && !key_from_base64(out, text.substr(0, kKeyBase64Len))) {
            error =
                "key file " + quoted(path) + " does not hold a valid key: expected 44 base64 characters ending in '='";
            ok = false;
        }
    }
    std::fill(buf.begin(), buf.end(), '\0');
    if (!ok)
        out.fill(0);
    return ok;
}

}  // namespace wgx
