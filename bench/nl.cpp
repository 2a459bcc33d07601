// SPDX-License-Identifier: GPL-2.0
//
// nl.cpp - wgx-bench-nl, the benchmark's generic netlink helper, for the
// handshake and many-peers workloads (and `burst`, which speaks the
// protocol itself).  FAMILY is "wireguard" or "wgx": both
// use the same commands and attribute numbers, and the helper speaks them
// through the wgx tool's own library (tools/wgx: netlink.hpp, wgnl.hpp), so
// the benchmark configures and reads devices with exactly the tool's
// encoder.  Built by CMake into build/bench/.
//
//   wgx-bench-nl wait FAMILY IFNAME PEERS TIMEOUT CMD [ARG...]
//       Read every peer's latest handshake time on IFNAME, start CMD (which
//       makes the initiators initiate, e.g. `ip -n a -batch up.batch`), then
//       poll IFNAME every POLL ms (environment WGX_BENCH_POLL_MS, 1..999,
//       default 5) until PEERS peers have a new latest handshake time or
//       TIMEOUT seconds (1..600) pass.  A responder records that time when
//       the first transport data packet of the new session arrives, so a
//       peer counts once its handshake is complete on both sides.  Prints
//         {"peers":M,"listed":L,"completed":C,"seconds":S,"p50_seconds":S50,
//          "poll_seconds":PS,"poll_p50_seconds":PS50,"clock_skew":K,
//          "polls":N,"poll_ms":P,"dump_seconds":D,"first_dump_seconds":D0,
//          "cmd_seconds":T,"cmd_exit":X,"start_seconds":W}
//       S: from starting CMD to the last completion (to the timeout when
//       C < M) and S50 to the median one, both from the kernel's own stamp
//       of each completion (the peer's last handshake time, CLOCK_REALTIME,
//       against the same clock read when CMD starts), so the poll only has
//       to notice completions, not time them, and may be slow.  PS, PS50:
//       the same as first seen by a poll, at the end of its dump.  K: how many
//       completions the kernel stamped after the poll saw them, or before
//       CMD started (0 unless the clock jumped; a bed check).  D: time
//       spent in the N GET_DEVICE dumps (the poll's own cost, which
//       competes with the handshakes for the guest's CPUs; wgx is asked
//       without its counters, WGX_GET_F_NO_STATS, so its dump holds what
//       wireguard.ko's does); D0: the dump before CMD, not in D.  With
//       WGX_BENCH_CMD_NETNS=PATH (e.g. /var/run/netns/a) CMD runs in that
//       network namespace.  T: when CMD exited (looked for every 5 ms,
//       between polls too; bringing initiators up takes time of its own).
//       W: when CMD said the initiators were asked (its first datagram, for
//       `kick`), -1 if it did not: CMD gets a pipe's write end, its number
//       in the environment as WGX_BENCH_START_FD, and writes its
//       CLOCK_MONOTONIC time there in seconds.  S - W is the handshakes'
//       own time, without CMD's start-up (a fork, setns and exec, which
//       under TCG took 0.05-0.13 s, a third of a wave of 100).
//       CMD's output goes to stderr.
//
//   wgx-bench-nl setup FAMILY FILE
//       Configure many single-peer devices in one process (instead of one
//       tool run per device, which costs a second under TCG).  FILE lines:
//         IFNAME PRIVATE_KEY_HEX PEER_PUBLIC_KEY_HEX ENDPOINT_IPV4 PORT KEEPALIVE_S [ALLOWED_IPV4]
//       The peer gets the endpoint, persistent keepalive and, when given,
//       ALLOWED_IPV4/32 as its only allowed IP.  Prints {"devices":N}.
//
//   wgx-bench-nl kick FIRST_IPV4 COUNT PORT
//       Send one 1-byte UDP datagram to each of COUNT consecutive IPv4
//       addresses from FIRST_IPV4 (port PORT), as fast as one socket can: a
//       packet for each of COUNT devices without a session, so each asks for
//       a handshake at (nearly) the same moment.  Exit 1 when a send fails.
//       With WGX_BENCH_START_FD=FD (from `wait`), writes its CLOCK_MONOTONIC
//       time (s) to FD just before the first datagram.
//
//   wgx-bench-nl burst FILE COUNT TIMEOUT
//       The responder alone: make COUNT genuine initiations, one for each
//       of the first COUNT devices of FILE (setup's format: its private
//       key, its peer's public key and endpoint), with the host build of
//       the core (kmod/core over host/) before the clock starts; then
//       send them back to back from one UDP socket to the first line's
//       endpoint (the storm's files give every line the same one), and
//       time, from the first send, the response to each (matched by its
//       receiver index) until all came or TIMEOUT seconds (1..600) pass
//       (the socket's buffer is forced to 16 MiB: needs CAP_NET_ADMIN).
//       Prints {"sent":N,"send_seconds":T,"responses":R,"cookie_replies":C,
//       "other":O,"seconds":S,"p50_seconds":S50}: S, S50 to the last and
//       the median response.  The responder's peers roam to this socket,
//       and their sessions are replaced, as by any new handshake.
//
//   wgx-bench-nl count FAMILY IFNAME
//       Prints {"peers":N}: how many peers GET_DEVICE lists for IFNAME.
//
// Errors: {"error":"..."} on stdout, exit status 1 (no such family or
// device, malformed FILE line, the kernel refused a SET_DEVICE, fewer peers
// listed than PEERS).  Exit 2: usage.
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <wgx/core.h>

#include "model.hpp"
#include "netlink.hpp"
#include "uapi/linux/wgx.h"
#include "wgnl.hpp"

namespace {

using namespace wgx;

constexpr long kMaxPeers = 65536;

[[noreturn]] __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++)
        if (*p == '"' || *p == '\\' || static_cast<unsigned char>(*p) < 0x20)
            *p = ' ';
    printf("{\"error\":\"%s\"}\n", msg);
    exit(1);
}

double clock_s(clockid_t clock)
{
    timespec ts;
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double now_s()
{
    return clock_s(CLOCK_MONOTONIC);
}

// One generic netlink socket and the id of FAMILY.
struct Family {
    NlSocket sock;
    std::uint16_t id = 0;
    bool no_stats = false;  // ask without counters: family "wgx" whose module knows WGX_GET_F_NO_STATS

    explicit Family(const char *name)
    {
        Status st = sock.open(NETLINK_GENERIC);
        if (!st.is_ok())
            fail("netlink socket: %s", st.text().c_str());
        std::uint32_t maxattr = 0;
        if (!genl_family_id(sock, name, id, &maxattr).is_ok())
            fail("no generic netlink family %s (module not loaded?)", name);
        no_stats = !strcmp(name, "wgx") && maxattr >= WGX_DEVICE_A_GET_FLAGS;
    }

    // The peers GET_DEVICE lists for @ifname, split peers coalesced.  wgx is
    // asked without its counters (when its module knows the flag): the tree
    // wireguard.ko sends, so both families cost the poll alike.
    std::vector<Peer> dump(const std::string &ifname)
    {
        Device dev;
        NlMessage req = build_get_device_request(id, ifname, no_stats ? WGX_GET_F_NO_STATS : 0);
        Status st = sock.request(req, [&](const nlmsghdr *nlh) { return parse_get_device_message(nlh, dev); });
        if (!st.is_ok())
            fail("cannot read device %s: %s", ifname.c_str(), st.text().c_str());
        coalesce_peers(dev);
        return std::move(dev.peers);
    }
};

long parse_long(const char *s, long lo, long hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < lo || v > hi)
        fail("%s must be %ld..%ld, got '%s'", what, lo, hi, s);
    return v;
}

// A peer's latest handshake before CMD; when (seconds after CMD started) a
// poll first saw it change (seen < 0: not yet), and the kernel's stamp of
// the new one, in the same seconds.
struct Waited {
    Key key;
    std::int64_t sec, nsec;
    double seen = -1, stamped = -1;
};

// The median and the last of @times (sorted here); 0 for none.
void median_last(std::vector<double> &times, double &p50, double &last)
{
    std::sort(times.begin(), times.end());
    p50 = times.empty() ? 0 : times[(times.size() - 1) / 2];
    last = times.empty() ? 0 : times.back();
}

int cmd_wait(Family &f, char **argv)
{
    const std::string ifname = argv[0];
    const long want = parse_long(argv[1], 1, kMaxPeers, "PEERS");
    const long timeout = parse_long(argv[2], 1, 600, "TIMEOUT");

    long poll_ms = 5;
    if (const char *env = getenv("WGX_BENCH_POLL_MS"))
        poll_ms = parse_long(env, 1, 999, "WGX_BENCH_POLL_MS");

    std::vector<Waited> peers;
    std::map<Key, std::size_t> by_key;  // a linear search per peer and poll costs ms under TCG
    const double d0 = now_s();
    const std::vector<Peer> before = f.dump(ifname);
    const double first_dump_s = now_s() - d0;
    const std::size_t listed = before.size();
    if (listed < static_cast<std::size_t>(want))
        fail("%s: GET_DEVICE lists %zu peers, expected %ld", ifname.c_str(), listed, want);
    for (const Peer &p : before) {
        if (peers.size() == static_cast<std::size_t>(kMaxPeers))
            break;
        by_key.emplace(p.public_key, peers.size());
        peers.push_back({p.public_key, p.last_handshake_sec, p.last_handshake_nsec});
    }

    // CMD's report of when it asked the initiators (see `kick`).
    int start_pipe[2];
    if (pipe2(start_pipe, O_CLOEXEC) < 0)
        fail("pipe: %s", strerror(errno));
    fflush(stdout);
    const double t0 = now_s(), t0_real = clock_s(CLOCK_REALTIME);
    pid_t pid = fork();
    if (pid < 0)
        fail("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(2, 1);
        const int start_fd = dup(start_pipe[1]);  // without O_CLOEXEC: CMD's
        if (start_fd >= 0)
            setenv("WGX_BENCH_START_FD", std::to_string(start_fd).c_str(), 1);
        // CMD in another namespace without an `ip netns exec` (a fork+exec
        // more, counted in the time); our netlink socket stays where it is.
        if (const char *ns = getenv("WGX_BENCH_CMD_NETNS")) {
            int nsfd = open(ns, O_RDONLY | O_CLOEXEC);
            if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
                fprintf(stderr, "wgx-bench-nl: cannot enter %s: %s\n", ns, strerror(errno));
                _exit(127);
            }
            close(nsfd);
        }
        execvp(argv[3], argv + 3);
        fprintf(stderr, "wgx-bench-nl: cannot run %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    close(start_pipe[1]);
    std::size_t done = 0, polls = 0;
    double t, dump_s = 0, cmd_s = -1;
    int status = 0;
    for (;;) {
        t = now_s() - t0;
        if (cmd_s < 0 && waitpid(pid, &status, WNOHANG) == pid)
            cmd_s = t;
        const std::vector<Peer> now = f.dump(ifname);
        // A completion stamped while the dump ran is in it: seen at its end.
        const double t_end = now_s() - t0;
        dump_s += t_end - t;
        for (const Peer &p : now) {
            auto it = by_key.find(p.public_key);
            if (it == by_key.end())
                continue;
            Waited *w = &peers[it->second];
            if (w->seen < 0 && (p.last_handshake_sec || p.last_handshake_nsec) &&
                (p.last_handshake_sec != w->sec || p.last_handshake_nsec != w->nsec)) {
                w->seen = t_end;
                w->stamped = static_cast<double>(p.last_handshake_sec) - t0_real +
                             static_cast<double>(p.last_handshake_nsec) / 1e9;
            }
        }
        polls++;
        done = std::count_if(peers.begin(), peers.end(), [](const Waited &w) { return w.seen >= 0; });
        if (done >= static_cast<std::size_t>(want) || t >= static_cast<double>(timeout))
            break;
        // Until the next poll, look for CMD's exit every 5 ms (a cheap
        // syscall), so its time keeps that resolution with a slow poll;
        // once it has exited, one sleep to the next poll.
        const double next = t + static_cast<double>(poll_ms) / 1e3;
        for (double u = now_s() - t0; u < next; u = now_s() - t0) {
            if (cmd_s < 0 && waitpid(pid, &status, WNOHANG) == pid)
                cmd_s = u;
            long ns = static_cast<long>((next - u) * 1e9) + 1;
            if (cmd_s < 0)
                ns = std::min(5000000L, ns);
            timespec pause = {ns / 1000000000L, ns % 1000000000L};
            nanosleep(&pause, nullptr);
        }
    }
    if (cmd_s < 0) {
        waitpid(pid, &status, 0);
        cmd_s = now_s() - t0;
    }
    // CMD has exited; non-blocking all the same, in case a child of CMD
    // still holds the write end.
    double start_s = -1;
    fcntl(start_pipe[0], F_SETFL, O_NONBLOCK);
    char start_buf[64] = {};
    const ssize_t got = read(start_pipe[0], start_buf, sizeof(start_buf) - 1);
    close(start_pipe[0]);
    double start_mono;
    if (got > 0 && sscanf(start_buf, "%lf", &start_mono) == 1 && start_mono >= t0)
        start_s = start_mono - t0;

    // A stamp outside [0, seen] means the real-time clock moved against
    // the monotonic one: counted, and the stamp clamped into that window.
    std::vector<double> seen, stamped;
    std::size_t skew = 0;
    for (const Waited &w : peers) {
        if (w.seen < 0)
            continue;
        seen.push_back(w.seen);
        const double s = std::min(std::max(w.stamped, 0.0), w.seen);
        skew += s != w.stamped;
        stamped.push_back(s);
    }
    double last, p50, poll_last, poll_p50;
    median_last(stamped, p50, last);
    median_last(seen, poll_p50, poll_last);
    const bool all = seen.size() >= static_cast<std::size_t>(want);
    printf("{\"peers\":%ld,\"listed\":%zu,\"completed\":%zu,\"seconds\":%.4f,"
           "\"p50_seconds\":%.4f,\"poll_seconds\":%.4f,\"poll_p50_seconds\":%.4f,\"clock_skew\":%zu,"
           "\"polls\":%zu,\"poll_ms\":%ld,\"dump_seconds\":%.4f,\"first_dump_seconds\":%.4f,"
           "\"cmd_seconds\":%.4f,\"cmd_exit\":%d,\"start_seconds\":%.4f}\n",
           want, listed, seen.size(), all ? last : t, p50, all ? poll_last : t, poll_p50, skew, polls, poll_ms, dump_s,
           first_dump_s, cmd_s, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), start_s);
    return 0;
}

bool hex_key(const std::string &hex, Key &key)
{
    if (hex.size() != 2 * kKeyLen)
        return false;
    for (std::size_t i = 0; i < kKeyLen; i++) {
        unsigned int byte;
        if (sscanf(hex.c_str() + 2 * i, "%2x", &byte) != 1)
            return false;
        key[i] = static_cast<std::uint8_t>(byte);
    }
    return true;
}

// FILE of `setup` and `burst`: one single-peer device per line, as the tool
// would configure it.  Exits through fail() naming FILE:LINE on a bad line.
std::vector<Device> read_setup(const char *path)
{
    std::ifstream in(path);
    if (!in)
        fail("%s: %s", path, strerror(errno));
    std::vector<Device> devices;
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream fields(line);
        std::string ifname, priv_hex, pub_hex, ip;
        long port = -1, keepalive = -1;
        Device dev;
        Peer peer;
        Key priv;
        Endpoint ep;
        ep.addr4.sin_family = AF_INET;
        std::string allowed;
        if (!(fields >> ifname >> priv_hex >> pub_hex >> ip >> port >> keepalive) || !hex_key(priv_hex, priv) ||
            !hex_key(pub_hex, peer.public_key) || inet_pton(AF_INET, ip.c_str(), &ep.addr4.sin_addr) != 1 || port < 1 ||
            port > 65535 || keepalive < 0 || keepalive > 65535)
            fail("%s:%zu: expected IFNAME PRIVKEY_HEX PUBKEY_HEX IPV4 PORT KEEPALIVE [ALLOWED_IPV4]", path, lineno);
        if (fields >> allowed) {
            AllowedIp a;
            a.family = AF_INET;
            a.cidr = 32;
            if (inet_pton(AF_INET, allowed.c_str(), a.addr.data()) != 1)
                fail("%s:%zu: bad ALLOWED_IPV4 '%s'", path, lineno, allowed.c_str());
            peer.allowed_ips.push_back(a);
        }
        ep.addr4.sin_port = htons(static_cast<std::uint16_t>(port));
        peer.endpoint = ep;
        peer.persistent_keepalive = static_cast<std::uint16_t>(keepalive);
        dev.name = ifname;
        dev.private_key = priv;
        dev.peers.push_back(peer);
        devices.push_back(std::move(dev));
    }
    return devices;
}

int cmd_setup(Family &f, char **argv)
{
    const std::vector<Device> devices = read_setup(argv[0]);
    for (const Device &dev : devices) {
        std::vector<NlMessage> msgs;
        Status st = build_set_device_messages(dev, f.id, default_set_message_size(), msgs);
        for (NlMessage &m : msgs)
            if (st.is_ok())
                st = f.sock.request(m, nullptr);
        if (!st.is_ok())
            fail("SET_DEVICE %s: %s", dev.name.c_str(), st.text().c_str());
    }
    printf("{\"devices\":%zu}\n", devices.size());
    return 0;
}

// One initiator of `burst`: its identity, handshake and prepared message.
struct Prepared {
    wgx_noise_identity *id = nullptr;
    wgx_noise_handshake *hs = nullptr;
    std::uint8_t msg[WGX_MSG_INITIATION_LEN];
};

int cmd_burst(char **argv)
{
    const std::vector<Device> devices = read_setup(argv[0]);
    const long count = parse_long(argv[1], 1, kMaxPeers, "COUNT");
    const long timeout = parse_long(argv[2], 1, 600, "TIMEOUT");
    if (devices.size() < static_cast<std::size_t>(count))
        fail("%s: %zu lines, COUNT is %ld", argv[0], devices.size(), count);

    // Every initiation made before the clock starts: the burst measures the
    // responder alone.  Sender index i + 1 names initiator i.
    std::vector<Prepared> inits(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < inits.size(); i++) {
        Prepared &p = inits[i];
        const Device &dev = devices[i];
        timespec wall;
        clock_gettime(CLOCK_REALTIME, &wall);
        p.id = wgx_noise_identity_create(true);
        if (!p.id || wgx_noise_identity_set_private_key(p.id, dev.private_key->data()) != 0)
            fail("%s: cannot use the private key", dev.name.c_str());
        p.hs = wgx_noise_handshake_create(p.id, dev.peers[0].public_key.data(), nullptr, true);
        if (!p.hs || wgx_noise_create_initiation(
                         p.hs, p.msg, static_cast<std::uint32_t>(i + 1), static_cast<std::uint64_t>(now_s() * 1e9),
                         static_cast<std::uint64_t>(wall.tv_sec), static_cast<std::uint32_t>(wall.tv_nsec)) != 0)
            fail("%s: cannot create an initiation", dev.name.c_str());
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("socket: %s", strerror(errno));
    // Room for every response at once (rmem_max would cap SO_RCVBUF at
    // about 200 datagrams): a response lost here would be the bed's.
    const int rcvbuf = 16 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) != 0)
        fail("SO_RCVBUFFORCE: %s", strerror(errno));
    const sockaddr_in to = devices[0].peers[0].endpoint->addr4;

    const double t0 = now_s();
    for (const Prepared &p : inits)
        if (sendto(fd, p.msg, sizeof(p.msg), 0, reinterpret_cast<const sockaddr *>(&to), sizeof(to)) !=
            static_cast<ssize_t>(sizeof(p.msg)))
            fail("sendto: %s", strerror(errno));
    const double sent_s = now_s() - t0;

    std::vector<double> answered(inits.size(), -1);
    std::size_t responses = 0, cookies = 0, other = 0;
    std::uint8_t rx[256];
    while (responses < inits.size()) {
        const double left = static_cast<double>(timeout) - (now_s() - t0);
        if (left <= 0)
            break;
        pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, static_cast<int>(left * 1e3) + 1) <= 0)
            continue;
        const ssize_t len = recv(fd, rx, sizeof(rx), MSG_DONTWAIT);
        const double t = now_s() - t0;
        std::uint32_t index = 0;
        if (len <= 0)
            continue;
        const int type = wgx_msg_classify(rx, static_cast<std::size_t>(len));
        if (type == WGX_MSG_COOKIE_REPLY)
            cookies++;
        else if (type == WGX_MSG_RESPONSE && wgx_msg_receiver_index(rx, static_cast<std::size_t>(len), &index) &&
                 index >= 1 && index <= inits.size() && answered[index - 1] < 0) {
            answered[index - 1] = t;
            responses++;
        } else
            other++;
    }
    close(fd);
    std::vector<double> times;
    for (double t : answered)
        if (t >= 0)
            times.push_back(t);
    double p50, last;
    median_last(times, p50, last);
    printf("{\"sent\":%zu,\"send_seconds\":%.4f,\"responses\":%zu,\"cookie_replies\":%zu,\"other\":%zu,"
           "\"seconds\":%.4f,\"p50_seconds\":%.4f}\n",
           inits.size(), sent_s, responses, cookies, other, last, p50);
    for (Prepared &p : inits) {
        wgx_noise_handshake_destroy(p.hs);
        wgx_noise_identity_destroy(p.id);
    }
    return 0;
}

int cmd_kick(char **argv)
{
    in_addr first;
    if (inet_pton(AF_INET, argv[0], &first) != 1)
        fail("bad FIRST_IPV4 '%s'", argv[0]);
    const long count = parse_long(argv[1], 1, kMaxPeers, "COUNT");
    const long port = parse_long(argv[2], 1, 65535, "PORT");
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        fail("socket: %s", strerror(errno));
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    const char byte = 0;
    // Only a pipe from `wait`: a stale variable must not name (and close) the socket.
    if (const char *env = getenv("WGX_BENCH_START_FD")) {
        char *end;
        const long start_fd = strtol(env, &end, 10);
        struct stat st;
        if (*env && !*end && start_fd >= 0 && start_fd != fd && start_fd <= 1 << 20 &&
            fstat(static_cast<int>(start_fd), &st) == 0 && S_ISFIFO(st.st_mode)) {
            dprintf(static_cast<int>(start_fd), "%.9f\n", now_s());
            close(static_cast<int>(start_fd));
        }
        unsetenv("WGX_BENCH_START_FD");
    }
    for (long i = 0; i < count; i++) {
        to.sin_addr.s_addr = htonl(ntohl(first.s_addr) + static_cast<std::uint32_t>(i));
        if (sendto(fd, &byte, 1, 0, reinterpret_cast<const sockaddr *>(&to), sizeof(to)) != 1)
            fail("sendto %ld: %s", i, strerror(errno));
    }
    close(fd);
    return 0;
}

int cmd_count(Family &f, char **argv)
{
    printf("{\"peers\":%zu}\n", f.dump(argv[0]).size());
    return 0;
}

[[noreturn]] void usage()
{
    fprintf(stderr, "usage: wgx-bench-nl wait FAMILY IFNAME PEERS TIMEOUT CMD [ARG...]\n"
                    "       wgx-bench-nl setup FAMILY FILE\n"
                    "       wgx-bench-nl count FAMILY IFNAME\n"
                    "       wgx-bench-nl kick FIRST_IPV4 COUNT PORT\n"
                    "       wgx-bench-nl burst FILE COUNT TIMEOUT\n");
    exit(2);
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    const std::string cmd = argv[1];
    if (cmd == "kick" && argc == 5)
        return cmd_kick(argv + 2);
    if (cmd == "burst" && argc == 5)
        return cmd_burst(argv + 2);
    if (cmd == "wait" && argc >= 7) {
        Family f(argv[2]);
        return cmd_wait(f, argv + 3);
    }
    if (cmd == "setup" && argc == 4) {
        Family f(argv[2]);
        return cmd_setup(f, argv + 3);
    }
    if (cmd == "count" && argc == 4) {
        Family f(argv[2]);
        return cmd_count(f, argv + 3);
    }
    usage();
}
