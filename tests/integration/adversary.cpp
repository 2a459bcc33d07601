// SPDX-License-Identifier: GPL-2.0
//
// wgx-adversary - hostile input for tests/integration/adversarial.sh, built
// from the project's own host core (kmod/core + host/) and tool library
// (tools/wgx), never with hand-made crypto:
//
//   wgx-adversary garbage --to ADDR:PORT [--to ADDR:PORT...] --count N [--seed S] [--pps N]
//       N UDP payloads of every size class (0..65507 bytes, with the exact
//       message sizes and their off-by-one neighbours) and every type byte
//       (1..4, 0, 5, 255, random), reserved bytes zero or not, to the
//       listen ports.  Prints how many of them wgx_msg_classify() rejects
//       ("malformed N"): the receiver must count exactly those as
//       rx_drop_malformed.
//
//   wgx-adversary flood --peer PUBKEY --to ADDR:PORT [--to6 ADDR:PORT]
//                       [--src4 BASE --n4 N] [--src6 PREFIX --n6 N]
//                       --seconds S [--pps N] [--burst N] [--gso N] [--pool N]
//       genuine handshake initiations (valid MAC1 for the responder's public
//       key @PUBKEY, created by wgx_noise_create_initiation() for random
//       unknown identities) from N IPv4 sources BASE+1.. and N IPv6 sources
//       PREFIX:i::1 (one /64 each), one UDP socket per source (the namespace
//       must own the addresses, e.g. `ip route add local BASE/16 dev lo`).
//       Sent in back-to-back bursts of --burst messages, --pps on average,
//       so that the responder's queue fills past its under-load mark with
//       each burst and drains in between.  --gso N sends N initiations per
//       system call as one UDP GSO packet (UDP_SEGMENT), which the receiver
//       splits into N datagrams: the attacker's cost per message drops well
//       below the responder's (one Curve25519 operation each).  Cookie replies are read back and checked with
//       wgx_cookie_consume_reply().  Prints sent / replies / valid cookies.
//
//   wgx-adversary nlfuzz --dev IFNAME --seconds S [--seed S]
//       mutated SET_DEVICE and GET_DEVICE requests to the "wgx" generic
//       netlink family: valid messages (tools/wgx's encoder, random peers,
//       allowed IPs, keys, endpoints, flags) with bits flipped, lengths,
//       types and nesting flags changed, truncated, attributes duplicated,
//       random attribute trees added.  After every request the device is
//       read back: a request the kernel refused (or a GET) must leave it
//       exactly as it was (atomicity).  Exit 1 on a change by a refused
//       request, a request without answer, or a failed read-back.
//
// Exit status 0 on success, 1 on a finding, 2 on bad usage or setup errors.
#include <wgx/core.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "encoding.hpp"
#include "ipc.hpp"
#include "model.hpp"
#include "netlink.hpp"
#include "wgnl.hpp"

#include "uapi/linux/wgx.h"

namespace {

[[noreturn]] void usage(const char *why)
{
    std::fprintf(stderr, "wgx-adversary: %s (see the header of tests/integration/adversary.cpp)\n", why);
    std::exit(2);
}

[[noreturn]] void fatal(const char *what)
{
    std::fprintf(stderr, "wgx-adversary: %s: %s\n", what, std::strerror(errno));
    std::exit(2);
}

std::uint64_t now_ns(clockid_t clock = CLOCK_MONOTONIC)
{
    timespec ts;
    clock_gettime(clock, &ts);
    return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

// Paces a send loop at @pps packets per second (0 = as fast as possible).
struct Pacer {
    std::uint64_t start = now_ns(), pps, n = 0;
    explicit Pacer(std::uint64_t p) : pps(p) {}
    void tick(std::uint64_t k = 1)
    {
        if (!pps)
            return;
        n += k;
        std::uint64_t due = start + n * 1000000000ull / pps;
        std::uint64_t t = now_ns();
        if (due > t + 200000) {
            timespec ts{time_t((due - t) / 1000000000ull), long((due - t) % 1000000000ull)};
            nanosleep(&ts, nullptr);
        }
    }
};

struct Addr {
    sockaddr_storage ss{};
    socklen_t len = 0;
    int family() const { return ss.ss_family; }
};

// "192.0.2.1:51820" or "[2001:db8::1]:51820".
Addr parse_addr_port(const std::string &s)
{
    Addr a;
    std::string host, port;
    if (!s.empty() && s[0] == '[') {
        auto e = s.find("]:");
        if (e == std::string::npos)
            usage(("bad address " + s).c_str());
        host = s.substr(1, e - 1);
        port = s.substr(e + 2);
    } else {
        auto e = s.rfind(':');
        if (e == std::string::npos)
            usage(("bad address " + s).c_str());
        host = s.substr(0, e);
        port = s.substr(e + 1);
    }
    int p = std::atoi(port.c_str());
    if (p <= 0 || p > 65535)
        usage(("bad port in " + s).c_str());
    auto *a4 = reinterpret_cast<sockaddr_in *>(&a.ss);
    auto *a6 = reinterpret_cast<sockaddr_in6 *>(&a.ss);
    if (inet_pton(AF_INET, host.c_str(), &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(std::uint16_t(p));
        a.len = sizeof(*a4);
    } else if (inet_pton(AF_INET6, host.c_str(), &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(std::uint16_t(p));
        a.len = sizeof(*a6);
    } else {
        usage(("bad address " + s).c_str());
    }
    return a;
}

int udp_socket(int family)
{
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fatal("socket");
    int buf = 1 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
    return fd;
}

// Sends, retrying briefly while the socket buffer is full.
bool send_to(int fd, const void *p, std::size_t n, const Addr &to)
{
    for (int tries = 0; tries < 1000; ++tries) {
        if (sendto(fd, p, n, 0, reinterpret_cast<const sockaddr *>(&to.ss), to.len) >= 0)
            return true;
        if (errno != EAGAIN && errno != ENOBUFS)
            return false;
        usleep(200);
    }
    return false;
}

struct Args {
    std::map<std::string, std::vector<std::string>> v;
    const std::string &one(const char *k) const
    {
        auto it = v.find(k);
        if (it == v.end() || it->second.empty())
            usage((std::string("missing --") + k).c_str());
        return it->second.back();
    }
    std::uint64_t num(const char *k, std::uint64_t def) const
    {
        auto it = v.find(k);
        return it == v.end() ? def : std::strtoull(it->second.back().c_str(), nullptr, 0);
    }
    bool has(const char *k) const { return v.count(k) != 0; }
};

Args parse_args(int argc, char **argv)
{
    Args a;
    for (int i = 0; i < argc; ++i) {
        std::string k = argv[i];
        if (k.rfind("--", 0) != 0 || i + 1 >= argc)
            usage(("bad argument " + k).c_str());
        a.v[k.substr(2)].push_back(argv[++i]);
    }
    return a;
}

// ------------------------------------------------------------------ garbage

int cmd_garbage(const Args &args)
{
    std::vector<Addr> to;
    for (const auto &s : args.v.count("to") ? args.v.at("to") : std::vector<std::string>{})
        to.push_back(parse_addr_port(s));
    if (to.empty())
        usage("garbage needs --to");
    std::uint64_t count = args.num("count", 2000), seed = args.num("seed", 1);
    Pacer pace(args.num("pps", 2000));
    std::mt19937_64 rng(seed);
    int fd4 = udp_socket(AF_INET), fd6 = udp_socket(AF_INET6);

    // Sizes: every exact message size, its neighbours, small, MTU-sized and fragmented.
    const std::size_t sizes[] = {0,  1,  2,  3,   4,   5,   15,   16,   17,   31,   32,   33,   48,   63,   64,   65,
                                 91, 92, 93, 147, 148, 149, 1420, 1452, 1472, 1473, 1500, 2000, 4096, 8192, 65507};
    const std::uint8_t types[] = {1, 2, 3, 4, 0, 5, 6, 0x80, 0xff};
    std::vector<std::uint8_t> buf(65536);
    std::uint64_t malformed = 0, by_type[5] = {};
    for (std::uint64_t i = 0; i < count; ++i) {
        std::size_t len;
        switch (rng() % 4) {
        case 0:
        case 1:
            len = sizes[rng() % std::size(sizes)];
            break;
        case 2:
            len = rng() % 200;
            break;
        default:
            len = rng() % 1473;
            break;
        }
        for (std::size_t j = 0; j < len; j += 8) {
            std::uint64_t r = rng();
            std::memcpy(&buf[j], &r, std::min<std::size_t>(8, len - j));
        }
        if (len > 0)
            buf[0] = rng() % 8 ? types[rng() % std::size(types)] : std::uint8_t(rng());
        if (len >= 4 && rng() % 2)
            buf[1] = buf[2] = buf[3] = 0;
        int t = wgx_msg_classify(buf.data(), len);
        if (t == 0)
            ++malformed;
        else
            ++by_type[t];
        const Addr &dst = to[i % to.size()];
        if (!send_to(dst.family() == AF_INET ? fd4 : fd6, buf.data(), len, dst))
            fatal("sendto");
        pace.tick();
    }
    std::printf("garbage: sent %llu, malformed %llu, initiation-shaped %llu, response-shaped %llu, "
                "cookie-shaped %llu, transport-shaped %llu (seed %llu)\n",
                (unsigned long long)count, (unsigned long long)malformed, (unsigned long long)by_type[1],
                (unsigned long long)by_type[2], (unsigned long long)by_type[3], (unsigned long long)by_type[4],
                (unsigned long long)seed);
    return 0;
}

// ------------------------------------------------------------------- flood

struct PoolEntry {
    wgx_noise_identity *id = nullptr;
    wgx_noise_handshake *hs = nullptr;
    std::uint8_t msg[WGX_MSG_INITIATION_LEN];
    std::uint32_t index = 0;
};

void random_bytes(void *p, std::size_t n)
{
    wgx_platform_get_random_bytes(p, n);
}

int cmd_flood(const Args &args)
{
    wgx::Key peer;
    if (!wgx::key_from_base64(peer, args.one("peer")))
        usage("--peer is not a base64 key");
    Addr to4 = parse_addr_port(args.one("to"));
    Addr to6;
    if (args.has("to6"))
        to6 = parse_addr_port(args.one("to6"));
    std::uint64_t n4 = args.num("n4", 0), n6 = args.num("n6", 0);
    std::uint64_t seconds = args.num("seconds", 10), npool = args.num("pool", 64);
    Pacer pace(args.num("pps", 3000));
    std::uint64_t burst = args.num("burst", 64), gso = args.num("gso", 1);
    if (n4 + n6 == 0 || npool == 0 || burst == 0 || gso == 0 || gso > 64)
        usage("flood needs sources (--n4/--n6) and a pool");

    rlimit rl{n4 + n6 + 64, n4 + n6 + 64};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        fatal("setrlimit(RLIMIT_NOFILE)");

    // One socket per source address.
    struct Source {
        int fd;
        bool v6;
    };
    std::vector<Source> src;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        fatal("epoll_create1");
    if (n4) {
        in_addr base;
        if (inet_pton(AF_INET, args.one("src4").c_str(), &base) != 1)
            usage("bad --src4");
        for (std::uint64_t i = 1; i <= n4; ++i) {
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_addr.s_addr = htonl(ntohl(base.s_addr) + std::uint32_t(i));
            int fd = udp_socket(AF_INET);
            if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0)
                fatal("bind IPv4 source (is BASE/16 a local route?)");
            src.push_back({fd, false});
        }
    }
    if (n6) {
        if (!args.has("to6"))
            usage("--n6 needs --to6");
        in6_addr base;
        if (inet_pton(AF_INET6, args.one("src6").c_str(), &base) != 1)
            usage("bad --src6");
        for (std::uint64_t i = 1; i <= n6; ++i) {
            sockaddr_in6 a{};
            a.sin6_family = AF_INET6;
            a.sin6_addr = base;
            // PREFIX:i::1 — each source in a /64 of its own.
            a.sin6_addr.s6_addr[6] = std::uint8_t(i >> 8);
            a.sin6_addr.s6_addr[7] = std::uint8_t(i);
            a.sin6_addr.s6_addr[15] = 1;
            int fd = udp_socket(AF_INET6);
            int one = 1;
            setsockopt(fd, SOL_IPV6, 78 /* IPV6_FREEBIND */, &one, sizeof(one));
            if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0)
                fatal("bind IPv6 source");
            src.push_back({fd, true});
        }
    }
    if (gso > 1) {
        int seg = WGX_MSG_INITIATION_LEN;
        for (const Source &s : src)
            if (setsockopt(s.fd, IPPROTO_UDP, 103 /* UDP_SEGMENT */, &seg, sizeof(seg)) != 0)
                fatal("setsockopt(UDP_SEGMENT)");
    }
    for (std::size_t i = 0; i < src.size(); ++i) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, src[i].fd, &ev) != 0)
            fatal("epoll_ctl");
    }

    // Genuine initiations from random identities the responder does not know.
    std::vector<PoolEntry> pool(npool);
    std::unordered_map<std::uint32_t, std::size_t> by_index;
    for (auto &p : pool) {
        std::uint8_t priv[32];
        random_bytes(priv, sizeof(priv));
        p.id = wgx_noise_identity_create(true);
        if (!p.id || wgx_noise_identity_set_private_key(p.id, priv) != 0)
            usage("cannot create an identity");
        p.hs = wgx_noise_handshake_create(p.id, peer.data(), nullptr, true);
        random_bytes(&p.index, sizeof(p.index));
        std::uint64_t wall = now_ns(CLOCK_REALTIME);
        if (!p.hs || wgx_noise_create_initiation(p.hs, p.msg, p.index, now_ns(), wall / 1000000000ull,
                                                 std::uint32_t(wall % 1000000000ull)) != 0)
            usage("cannot create an initiation (low-order --peer?)");
        by_index[p.index] = std::size_t(&p - pool.data());
    }

    std::uint64_t sent = 0, send_errors = 0, replies = 0, cookies = 0, other = 0;
    std::uint64_t deadline = now_ns() + seconds * 1000000000ull;
    std::uint8_t rx[2048];
    epoll_event evs[64];
    std::vector<std::uint8_t> batch(gso * WGX_MSG_INITIATION_LEN);
    auto drain = [&] {
        int n = epoll_wait(ep, evs, 64, 0);
        for (int i = 0; i < n; ++i) {
            int fd = src[evs[i].data.u64].fd;
            ssize_t len;
            while ((len = recv(fd, rx, sizeof(rx), MSG_DONTWAIT)) >= 0) {
                std::uint32_t idx;
                if (wgx_msg_classify(rx, std::size_t(len)) == WGX_MSG_COOKIE_REPLY &&
                    wgx_msg_receiver_index(rx, std::size_t(len), &idx)) {
                    ++replies;
                    auto it = by_index.find(idx);
                    if (it != by_index.end() &&
                        wgx_cookie_consume_reply(pool[it->second].hs, rx, std::size_t(len), now_ns()) == 0)
                        ++cookies;
                } else {
                    ++other;
                }
            }
        }
    };
    while (now_ns() < deadline) {
        for (std::uint64_t b = 0; b < burst; b += gso) {
            const Source &s = src[(sent / gso) % src.size()];
            for (std::uint64_t k = 0; k < gso; ++k)
                std::memcpy(&batch[k * WGX_MSG_INITIATION_LEN], pool[(sent + k) % pool.size()].msg,
                            WGX_MSG_INITIATION_LEN);
            if (!send_to(s.fd, batch.data(), gso * WGX_MSG_INITIATION_LEN, s.v6 ? to6 : to4))
                ++send_errors;
            sent += gso;
            if ((b / gso) % 16 == 15)
                drain();
        }
        drain();
        pace.tick(burst);
    }
    std::printf("flood: sent %llu initiations from %zu sources in %llu s (%llu send errors); "
                "received %llu cookie replies, %llu decrypted as valid cookies, %llu other packets\n",
                (unsigned long long)sent, src.size(), (unsigned long long)seconds, (unsigned long long)send_errors,
                (unsigned long long)replies, (unsigned long long)cookies, (unsigned long long)other);
    for (auto &p : pool) {
        wgx_noise_handshake_destroy(p.hs);
        wgx_noise_identity_destroy(p.id);
    }
    return 0;
}

// ------------------------------------------------------------------ nlfuzz

// The configuration a SET can change, as text (counters, handshake times and
// byte counts left out: they move on their own).
std::string config_text(const wgx::Device &d)
{
    std::string s;
    auto key = [&](const std::optional<wgx::Key> &k) {
        s += k ? wgx::key_to_base64(*k) : "-";
        s += ' ';
    };
    key(d.private_key);
    s += "port " + std::to_string(d.listen_port.value_or(0)) + " fwmark " + std::to_string(d.fwmark.value_or(0)) + "\n";
    for (const auto &p : d.peers) {
        s += "peer " + wgx::key_to_base64(p.public_key) + " psk ";
        key(p.preshared_key);
        s += "ep ";
        if (p.endpoint) {
            char buf[INET6_ADDRSTRLEN] = "?";
            if (p.endpoint->family() == AF_INET)
                inet_ntop(AF_INET, &p.endpoint->addr4.sin_addr, buf, sizeof(buf));
            else if (p.endpoint->family() == AF_INET6)
                inet_ntop(AF_INET6, &p.endpoint->addr6.sin6_addr, buf, sizeof(buf));
            s += buf;
            s += ':' + std::to_string(ntohs(p.endpoint->addr4.sin_port));
        } else {
            s += '-';
        }
        s += " ka " + std::to_string(p.persistent_keepalive.value_or(0)) + " ips";
        for (const auto &ip : p.allowed_ips) {
            char buf[INET6_ADDRSTRLEN] = "?";
            inet_ntop(ip.family, ip.addr.data(), buf, sizeof(buf));
            s += ' ';
            s += buf;
            s += '/' + std::to_string(ip.cidr);
        }
        s += '\n';
    }
    return s;
}

struct Fuzzer {
    std::mt19937_64 rng;
    std::string dev;
    std::uint16_t family = 0;
    mnl_socket *nl = nullptr;
    std::uint32_t portid = 0, seq = 1;

    std::uint64_t r(std::uint64_t n) { return n ? rng() % n : 0; }

    wgx::Key rand_key()
    {
        wgx::Key k;
        for (auto &b : k)
            b = std::uint8_t(rng());
        return k;
    }

    wgx::AllowedIp rand_ip()
    {
        wgx::AllowedIp ip;
        ip.family = r(2) ? AF_INET : AF_INET6;
        for (auto &b : ip.addr)
            b = std::uint8_t(rng());
        ip.cidr = std::uint8_t(r(ip.family == AF_INET ? 33 : 129));
        if (ip.family == AF_INET)
            std::fill(ip.addr.begin() + 4, ip.addr.end(), 0);
        ip.remove = r(8) == 0;
        return ip;
    }

    // A valid SET_DEVICE request for @dev (random content), as bytes.
    std::vector<std::uint8_t> valid_set()
    {
        wgx::Device d;
        d.name = dev;
        if (r(4) == 0)
            d.private_key = rand_key();
        if (r(4) == 0)
            d.listen_port = std::uint16_t(20000 + r(40000));
        if (r(4) == 0)
            d.fwmark = std::uint32_t(r(3));
        d.replace_peers = r(16) == 0;
        for (std::uint64_t n = r(4); n > 0; --n) {
            wgx::Peer p;
            p.public_key = rand_key();
            if (r(3) == 0)
                p.preshared_key = rand_key();
            if (r(2)) {
                wgx::Endpoint e;
                if (r(2)) {
                    e.addr4.sin_family = AF_INET;
                    e.addr4.sin_port = htons(std::uint16_t(1 + r(65535)));
                    e.addr4.sin_addr.s_addr = std::uint32_t(rng());
                } else {
                    e.addr6.sin6_family = AF_INET6;
                    e.addr6.sin6_port = htons(std::uint16_t(1 + r(65535)));
                    for (auto &b : e.addr6.sin6_addr.s6_addr)
                        b = std::uint8_t(rng());
                }
                p.endpoint = e;
            }
            if (r(2))
                p.persistent_keepalive = std::uint16_t(r(3) ? r(100) : rng());
            for (std::uint64_t k = r(6); k > 0; --k)
                p.allowed_ips.push_back(rand_ip());
            p.replace_allowed_ips = r(4) == 0;
            p.remove = r(8) == 0;
            p.update_only = r(8) == 0;
            d.peers.push_back(p);
        }
        std::vector<wgx::NlMessage> msgs;
        wgx::Status st = wgx::build_set_device_messages(d, family, 8192, msgs);
        if (!st.is_ok() || msgs.empty())
            usage(("cannot build a SET_DEVICE message: " + st.text()).c_str());
        return msgs[0].bytes();
    }

    std::vector<std::uint8_t> valid_get() { return wgx::build_get_device_request(family, dev).bytes(); }

    // Offsets of every attribute, nested ones included (NLA_F_NESTED).
    void attrs(const std::vector<std::uint8_t> &m, std::size_t off, std::size_t end, int depth,
               std::vector<std::size_t> &out)
    {
        while (off + sizeof(nlattr) <= end && depth < 8) {
            nlattr a;
            std::memcpy(&a, &m[off], sizeof(a));
            if (a.nla_len < sizeof(nlattr) || off + a.nla_len > end)
                return;
            out.push_back(off);
            if (a.nla_type & NLA_F_NESTED)
                attrs(m, off + sizeof(nlattr), off + a.nla_len, depth + 1, out);
            off += NLA_ALIGN(a.nla_len);
        }
    }

    // A random attribute tree, @depth levels at most.
    void tree(std::vector<std::uint8_t> &out, int depth)
    {
        for (std::uint64_t n = 1 + r(4); n > 0; --n) {
            std::size_t at = out.size();
            out.resize(at + sizeof(nlattr));
            std::uint16_t type = std::uint16_t(r(13));
            if (depth > 0 && r(2)) {
                type |= NLA_F_NESTED;
                tree(out, depth - 1);
            } else {
                static const std::size_t lens[] = {0, 1, 2, 4, 8, 16, 28, 32};
                std::size_t len = r(4) ? lens[r(std::size(lens))] : r(40);
                for (std::size_t i = 0; i < len; ++i)
                    out.push_back(std::uint8_t(r(4) ? 0 : rng()));
            }
            nlattr a{std::uint16_t(out.size() - at), type};
            std::memcpy(&out[at], &a, sizeof(a));
            out.resize(at + NLA_ALIGN(out.size() - at));
        }
    }

    void mutate(std::vector<std::uint8_t> &m)
    {
        const std::size_t hdr = NLMSG_HDRLEN + GENL_HDRLEN;
        for (std::uint64_t n = 1 + r(3); n > 0; --n) {
            std::vector<std::size_t> at;
            attrs(m, hdr, m.size(), 0, at);
            switch (r(8)) {
            case 0:  // flip bits anywhere after the netlink header
                for (std::uint64_t k = 1 + r(8); k > 0 && m.size() > NLMSG_HDRLEN; --k)
                    m[NLMSG_HDRLEN + r(m.size() - NLMSG_HDRLEN)] ^= std::uint8_t(1u << r(8));
                break;
            case 1:  // an attribute's length
                if (!at.empty()) {
                    std::size_t o = at[r(at.size())];
                    std::uint16_t len;
                    std::memcpy(&len, &m[o], 2);
                    const std::uint16_t choices[] = {0,
                                                     1,
                                                     3,
                                                     4,
                                                     5,
                                                     std::uint16_t(len - 1),
                                                     std::uint16_t(len + 1),
                                                     std::uint16_t(len + 4),
                                                     std::uint16_t(len - 4),
                                                     std::uint16_t(rng())};
                    len = choices[r(std::size(choices))];
                    std::memcpy(&m[o], &len, 2);
                }
                break;
            case 2:  // an attribute's type and flags
                if (!at.empty()) {
                    std::size_t o = at[r(at.size())];
                    std::uint16_t type;
                    std::memcpy(&type, &m[o + 2], 2);
                    switch (r(4)) {
                    case 0:
                        type ^= NLA_F_NESTED;
                        break;
                    case 1:
                        type ^= NLA_F_NET_BYTEORDER;
                        break;
                    case 2:
                        type = std::uint16_t((type & ~NLA_TYPE_MASK) | r(14));
                        break;
                    default:
                        type = std::uint16_t(rng());
                        break;
                    }
                    std::memcpy(&m[o + 2], &type, 2);
                }
                break;
            case 3:  // truncate
                if (m.size() > NLMSG_HDRLEN)
                    m.resize(NLMSG_HDRLEN + r(m.size() - NLMSG_HDRLEN));
                break;
            case 4:  // duplicate an attribute at the top level
                if (!at.empty()) {
                    std::size_t o = at[r(at.size())];
                    std::uint16_t len;
                    std::memcpy(&len, &m[o], 2);
                    std::vector<std::uint8_t> copy(m.begin() + long(o), m.begin() + long(o + len));
                    copy.resize(NLA_ALIGN(copy.size()));
                    m.insert(m.end(), copy.begin(), copy.end());
                }
                break;
            case 5:  // a random attribute tree at the top level
                tree(m, 3);
                break;
            case 6:  // a random tree inside a nest, the nest's length fixed up
                if (!at.empty()) {
                    std::size_t o = at[r(at.size())];
                    nlattr a;
                    std::memcpy(&a, &m[o], sizeof(a));
                    if ((a.nla_type & NLA_F_NESTED) && a.nla_len == NLA_ALIGN(a.nla_len)) {
                        std::vector<std::uint8_t> t;
                        tree(t, 2);
                        if (a.nla_len + t.size() < 0xffff) {
                            m.insert(m.begin() + long(o + a.nla_len), t.begin(), t.end());
                            a.nla_len = std::uint16_t(a.nla_len + t.size());
                            std::memcpy(&m[o], &a, sizeof(a));
                            // enclosing nests grow too
                            for (std::size_t p : at) {
                                nlattr pa;
                                std::memcpy(&pa, &m[p], sizeof(pa));
                                if (p < o && p + pa.nla_len >= o + a.nla_len - t.size() &&
                                    (pa.nla_type & NLA_F_NESTED)) {
                                    pa.nla_len = std::uint16_t(pa.nla_len + t.size());
                                    std::memcpy(&m[p], &pa, sizeof(pa));
                                }
                            }
                        }
                    }
                }
                break;
            default:  // command and version of the generic netlink header
                if (m.size() >= hdr) {
                    m[NLMSG_HDRLEN] = std::uint8_t(r(4));
                    m[NLMSG_HDRLEN + 1] = std::uint8_t(r(3));
                }
                break;
            }
        }
    }

    // Sends @m; returns 0 or the errno of the reply; -1 when nothing answered.
    int send(std::vector<std::uint8_t> &m, bool dump)
    {
        auto *nlh = reinterpret_cast<nlmsghdr *>(m.data());
        nlh->nlmsg_len = std::uint32_t(m.size());
        nlh->nlmsg_type = family;
        nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
        nlh->nlmsg_seq = ++seq;
        nlh->nlmsg_pid = 0;
        if (mnl_socket_sendto(nl, m.data(), m.size()) < 0)
            fatal("netlink send");
        std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE * 4);
        for (;;) {
            ssize_t n = mnl_socket_recvfrom(nl, buf.data(), buf.size());
            if (n < 0)
                return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : errno;
            auto *h = reinterpret_cast<const nlmsghdr *>(buf.data());
            int left = int(n);
            for (; mnl_nlmsg_ok(h, left); h = mnl_nlmsg_next(h, &left)) {
                if (h->nlmsg_seq != seq)
                    continue;  // a late part of an earlier answer
                if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE) {
                    int e = 0;
                    if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
                        std::memcpy(&e, mnl_nlmsg_get_payload(h), sizeof(e));
                    return e < 0 ? -e : e;
                }
            }
        }
    }
};

int cmd_nlfuzz(const Args &args)
{
    Fuzzer f;
    f.dev = args.one("dev");
    std::uint64_t seed = args.num("seed", 1), seconds = args.num("seconds", 20);
    f.rng.seed(seed);
    {
        wgx::NlSocket s;
        wgx::Status st = s.open(NETLINK_GENERIC);
        if (st.is_ok())
            st = wgx::genl_family_id(s, WGX_GENL_NAME, f.family);
        if (!st.is_ok())
            usage(("generic netlink family wgx: " + st.text()).c_str());
    }
    f.nl = mnl_socket_open(NETLINK_GENERIC);
    if (!f.nl || mnl_socket_bind(f.nl, 0, MNL_SOCKET_AUTOPID) < 0)
        fatal("netlink socket");
    f.portid = mnl_socket_get_portid(f.nl);
    timeval tv{5, 0};
    setsockopt(mnl_socket_get_fd(f.nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

    auto read_config = [&](std::string &out) {
        wgx::Device d;
        wgx::Status st = wgx::get_device(f.dev, d);
        if (!st.is_ok()) {
            std::printf("nlfuzz: cannot read %s back: %s\n", f.dev.c_str(), st.text().c_str());
            return false;
        }
        out = config_text(d);
        return true;
    };
    std::string before, after;
    if (!read_config(before))
        return 1;

    std::map<int, std::uint64_t> results;
    std::uint64_t sets = 0, gets = 0, violations = 0, silent = 0;
    std::uint64_t deadline = now_ns() + seconds * 1000000000ull;
    while (now_ns() < deadline) {
        bool get = f.r(4) == 0;
        std::vector<std::uint8_t> m = get ? f.valid_get() : f.valid_set();
        f.mutate(m);
        std::vector<std::uint8_t> sent_copy = m;
        int err = f.send(m, get);
        ++(get ? gets : sets);
        ++results[err];
        if (err < 0) {
            ++silent;
            std::printf("nlfuzz: no answer within 5 s to a %s request of %zu bytes\n", get ? "GET" : "SET", m.size());
            continue;
        }
        if (!read_config(after))
            return 1;
        // A refused request, or any GET, must leave the device as it was.
        if ((err != 0 || get) && after != before) {
            if (++violations <= 3) {
                std::printf("nlfuzz: a %s request refused with %s (or a GET) changed the device\n--- before\n%s--- "
                            "after\n%s--- request bytes:",
                            get ? "GET" : "SET", std::strerror(err), before.c_str(), after.c_str());
                for (std::uint8_t b : sent_copy)
                    std::printf(" %02x", b);
                std::printf("\n");
            }
        }
        before = after;
    }
    std::printf("nlfuzz: %llu SET and %llu GET requests in %llu s (seed %llu):", (unsigned long long)sets,
                (unsigned long long)gets, (unsigned long long)seconds, (unsigned long long)seed);
    for (auto &[e, n] : results)
        std::printf(" %s %llu;", e == 0 ? "ok" : e < 0 ? "no answer" : strerrorname_np(e), (unsigned long long)n);
    std::printf(" %llu changed the device although refused\n", (unsigned long long)violations);
    mnl_socket_close(f.nl);
    return violations || silent ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 2)
        usage("no command (garbage, flood, nlfuzz)");
    std::string cmd = argv[1];
    Args args = parse_args(argc - 2, argv + 2);
    setvbuf(stdout, nullptr, _IOLBF, 0);
    if (cmd == "garbage")
        return cmd_garbage(args);
    if (cmd == "flood")
        return cmd_flood(args);
    if (cmd == "nlfuzz")
        return cmd_nlfuzz(args);
    usage(("unknown command " + cmd).c_str());
}
