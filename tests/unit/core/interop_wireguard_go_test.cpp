// SPDX-License-Identifier: GPL-2.0
//
// interop_wireguard_go: the host build of the protocol core against a real
// wireguard-go, over real UDP, no VM.
//
// Two network namespaces joined by a veth pair:
//   ns A  10.231.0.1  the core (this process; its UDP socket is created in A)
//   ns B  10.231.0.2  wireguard-go -f, tunnel address 10.232.0.2/24, peer = the
//                     core with allowed-ips 10.232.0.1/32
// The test drives the core through the C API of <wgx/core.h> exactly as the
// kernel glue will (MAC check, two-phase initiation consumption, begin
// session, transport), and checks the inner packets with ordinary UDP sockets
// bound inside ns B to the tunnel address: what the core sends must come out
// of wireguard-go's TUN device and reach the socket; what that socket sends
// back must be decryptable by the core.
//
//   interop_wireguard_go              core as initiator, then (peer re-added
//                                     on wireguard-go) core as responder
//   interop_wireguard_go_cookie_reply core as responder "under load": it answers
//                                     the first initiation with a cookie reply,
//                                     wireguard-go retries with mac2 (~5 s)
//
// Needs root and /dev/net/tun (skips otherwise); wireguard-go, wg and ip must
// be installed (scripts/deps) or the test fails.  Namespaces, the daemon and
// temporary files are removed on every exit path (RAII).
#include <gtest/gtest.h>

#include <wgx/core.h>
#include <wgx/core_test.h>

#include "core_test_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using wgx::test::Bytes;
using wgx::test::Key;

constexpr const char *OUTER_A = "10.231.0.1";
constexpr const char *OUTER_B = "10.231.0.2";
constexpr const char *INNER_A = "10.232.0.1";
constexpr const char *INNER_B = "10.232.0.2";
constexpr uint16_t GO_PORT = 51820;

wgx_u64 mono_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return wgx_u64(ts.tv_sec) * 1000000000ULL + wgx_u64(ts.tv_nsec);
}

void wall(wgx_u64 &sec, wgx_u32 &nsec)
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    sec = wgx_u64(ts.tv_sec);
    nsec = wgx_u32(ts.tv_nsec);
}

std::string base64(const wgx_u8 *p, size_t n)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < n; i += 3) {
        const unsigned v =
            unsigned(p[i]) << 16 | (i + 1 < n ? unsigned(p[i + 1]) << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out += tbl[v >> 18 & 63];
        out += tbl[v >> 12 & 63];
        out += i + 1 < n ? tbl[v >> 6 & 63] : '=';
        out += i + 2 < n ? tbl[v & 63] : '=';
    }
    return out;
}

bool have_program(const char *name)
{
    return std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0;
}

// ---- inner IPv4/UDP packets (RFC 791, RFC 768) ----

uint16_t csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

uint32_t csum_add(uint32_t sum, const wgx_u8 *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        sum += uint32_t(p[i]) << 8 | p[i + 1];
    if (n & 1)
        sum += uint32_t(p[n - 1]) << 8;
    return sum;
}

Bytes ipv4_udp(const char *src, uint16_t sport, const char *dst, uint16_t dport, const std::string &payload)
{
    const size_t udp_len = 8 + payload.size(), total = 20 + udp_len;
    Bytes p(total, 0);
    p[0] = 0x45;
    p[2] = wgx_u8(total >> 8), p[3] = wgx_u8(total);
    p[4] = 0x12, p[5] = 0x34;  // identification
    p[6] = 0x40;               // don't fragment
    p[8] = 64;                 // TTL
    p[9] = IPPROTO_UDP;
    inet_pton(AF_INET, src, &p[12]);
    inet_pton(AF_INET, dst, &p[16]);
    const uint16_t ipsum = csum_fold(csum_add(0, p.data(), 20));
    p[10] = wgx_u8(ipsum >> 8), p[11] = wgx_u8(ipsum);

    wgx_u8 *u = &p[20];
    u[0] = wgx_u8(sport >> 8), u[1] = wgx_u8(sport);
    u[2] = wgx_u8(dport >> 8), u[3] = wgx_u8(dport);
    u[4] = wgx_u8(udp_len >> 8), u[5] = wgx_u8(udp_len);
    std::memcpy(u + 8, payload.data(), payload.size());
    uint32_t sum = csum_add(0, &p[12], 8);  // pseudo header: addresses, protocol, UDP length
    sum += IPPROTO_UDP + uint32_t(udp_len);
    uint16_t usum = csum_fold(csum_add(sum, u, udp_len));
    if (usum == 0)
        usum = 0xffff;
    u[6] = wgx_u8(usum >> 8), u[7] = wgx_u8(usum);
    return p;
}

struct InnerUdp {
    std::string src, dst;
    uint16_t sport = 0, dport = 0;
    std::string payload;
};

// Parses a decrypted (possibly padded) inner packet; checks both checksums.
bool parse_ipv4_udp(const wgx_u8 *p, size_t n, InnerUdp &out, std::string &why)
{
    if (n < 28 || p[0] != 0x45) {
        why = "not an IPv4 packet without options";
        return false;
    }
    const size_t total = size_t(p[2]) << 8 | p[3];
    if (total > n || total < 28 || p[9] != IPPROTO_UDP) {
        why = "bad total length or not UDP";
        return false;
    }
    if (csum_fold(csum_add(0, p, 20)) != 0) {
        why = "bad IPv4 header checksum";
        return false;
    }
    const wgx_u8 *u = p + 20;
    const size_t udp_len = size_t(u[4]) << 8 | u[5];
    if (udp_len != total - 20) {
        why = "bad UDP length";
        return false;
    }
    uint32_t sum = csum_add(0, p + 12, 8) + IPPROTO_UDP + uint32_t(udp_len);
    if ((u[6] | u[7]) && csum_fold(csum_add(sum, u, udp_len)) != 0) {
        why = "bad UDP checksum";
        return false;
    }
    char a[INET_ADDRSTRLEN];
    out.src = inet_ntop(AF_INET, p + 12, a, sizeof(a));
    out.dst = inet_ntop(AF_INET, p + 16, a, sizeof(a));
    out.sport = uint16_t(u[0] << 8 | u[1]);
    out.dport = uint16_t(u[2] << 8 | u[3]);
    out.payload.assign(reinterpret_cast<const char *>(u + 8), udp_len - 8);
    return true;
}

// ---- the test environment ----

sockaddr_in inet(const char *ip, uint16_t port)
{
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

// A UDP socket created (and bound) inside network namespace @ns: a helper
// thread enters the namespace; the socket stays in it after the thread ends.
int udp_socket_in(const std::string &ns, const sockaddr_in &bind_to, std::string &err)
{
    int result = -1;
    std::thread t([&] {
        const int nsfd = open(("/var/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
        if (nsfd < 0) {
            err = "open netns: " + std::string(strerror(errno));
            return;
        }
        if (setns(nsfd, CLONE_NEWNET) != 0) {
            err = "setns: " + std::string(strerror(errno));
        } else {
            const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (s >= 0 && bind(s, reinterpret_cast<const sockaddr *>(&bind_to), sizeof(bind_to)) == 0)
                result = s;
            else {
                err = "socket/bind: " + std::string(strerror(errno));
                if (s >= 0)
                    close(s);
            }
        }
        close(nsfd);
    });
    t.join();
    return result;
}

// Waits up to @timeout_ms for a datagram; returns its length or -1.
ssize_t recv_timeout(int fd, wgx_u8 *buf, size_t cap, int timeout_ms, sockaddr_in *from = nullptr)
{
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, timeout_ms) <= 0)
        return -1;
    socklen_t fl = sizeof(sockaddr_in);
    return recvfrom(fd, buf, cap, 0, reinterpret_cast<sockaddr *>(from), from ? &fl : nullptr);
}

struct Env {
    std::string tag, ns_a, ns_b, veth_a, veth_b, ifname, dir, log;
    pid_t go_pid = -1;
    int core_fd = -1;
    uint16_t core_port = 0;
    std::vector<int> fds;
    std::string error;
    Key go_priv{}, go_pub{};

    Env()
    {
        const unsigned id = unsigned(getpid()) % 1000000u;
        tag = std::to_string(id);
        ns_a = "wgxi-a-" + tag;
        ns_b = "wgxi-b-" + tag;
        veth_a = "wgxia" + tag;
        veth_b = "wgxib" + tag;
        ifname = "wgxg" + tag;
        char tmpl[] = "/tmp/wgx-interop-XXXXXX";
        dir = mkdtemp(tmpl) ? tmpl : "/tmp";
        log = dir + "/wireguard-go.log";
    }

    ~Env()
    {
        for (int fd : fds)
            close(fd);
        if (core_fd >= 0)
            close(core_fd);
        stop_go();
        run("ip netns del " + ns_a + " 2>/dev/null");
        run("ip netns del " + ns_b + " 2>/dev/null");
        unlink(("/var/run/wireguard/" + ifname + ".sock").c_str());
        unlink((dir + "/go.key").c_str());
        unlink(log.c_str());
        unlink((dir + "/cmd.log").c_str());
        rmdir(dir.c_str());
    }

    static int run(const std::string &cmd) { return std::system(cmd.c_str()); }

    bool must(const std::string &cmd)
    {
        const std::string full = cmd + " >>" + dir + "/cmd.log 2>&1";
        if (run(full) == 0)
            return true;
        error = "command failed: " + cmd + "\n" + slurp(dir + "/cmd.log");
        return false;
    }

    static std::string slurp(const std::string &path)
    {
        std::ifstream f(path);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }

    std::string go_log() const { return slurp(log); }

    void stop_go()
    {
        if (go_pid <= 0)
            return;
        kill(go_pid, SIGTERM);
        for (int i = 0; i < 100; ++i) {
            if (waitpid(go_pid, nullptr, WNOHANG) == go_pid) {
                go_pid = -1;
                return;
            }
            usleep(20000);
        }
        kill(go_pid, SIGKILL);
        waitpid(go_pid, nullptr, 0);
        go_pid = -1;
    }

    // Namespaces, veth, wireguard-go with a fresh key, the core's UDP socket.
    bool start(const Key &core_pub)
    {
        unlink((dir + "/cmd.log").c_str());
        if (!must("ip netns add " + ns_a) || !must("ip netns add " + ns_b) ||
            !must("ip -n " + ns_a + " link add " + veth_a + " type veth peer name " + veth_b + " netns " + ns_b) ||
            !must("ip -n " + ns_a + " addr add " + OUTER_A + "/24 dev " + veth_a) ||
            !must("ip -n " + ns_b + " addr add " + OUTER_B + "/24 dev " + veth_b) ||
            !must("ip -n " + ns_a + " link set " + veth_a + " up") ||
            !must("ip -n " + ns_b + " link set " + veth_b + " up") || !must("ip -n " + ns_a + " link set lo up") ||
            !must("ip -n " + ns_b + " link set lo up"))
            return false;

        core_fd = udp_socket_in(ns_a, inet(OUTER_A, 0), error);
        if (core_fd < 0)
            return false;
        sockaddr_in bound{};
        socklen_t bl = sizeof(bound);
        getsockname(core_fd, reinterpret_cast<sockaddr *>(&bound), &bl);
        core_port = ntohs(bound.sin_port);

        if (!start_go())
            return false;

        wgx_platform_curve25519_generate_secret(go_priv.data());
        if (!wgx_platform_curve25519_generate_public(go_pub.data(), go_priv.data())) {
            error = "cannot derive wireguard-go's public key";
            return false;
        }
        const std::string keyfile = dir + "/go.key";
        {
            std::ofstream k(keyfile);
            k << base64(go_priv.data(), 32) << "\n";
        }
        chmod(keyfile.c_str(), 0600);
        return must("ip netns exec " + ns_b + " wg set " + ifname + " private-key " + keyfile + " listen-port " +
                    std::to_string(GO_PORT)) &&
               add_core_peer(core_pub) && must("ip -n " + ns_b + " addr add " + INNER_B + "/24 dev " + ifname) &&
               must("ip -n " + ns_b + " link set " + ifname + " up");
    }

    bool add_core_peer(const Key &core_pub)
    {
        return must("ip netns exec " + ns_b + " wg set " + ifname + " peer " + base64(core_pub.data(), 32) +
                    " allowed-ips " + INNER_A + "/32 endpoint " + OUTER_A + ":" + std::to_string(core_port));
    }

    bool remove_core_peer(const Key &core_pub)
    {
        return must("ip netns exec " + ns_b + " wg set " + ifname + " peer " + base64(core_pub.data(), 32) + " remove");
    }

    bool start_go()
    {
        const int nsfd = open(("/var/run/netns/" + ns_b).c_str(), O_RDONLY | O_CLOEXEC);
        if (nsfd < 0) {
            error = "open netns B";
            return false;
        }
        go_pid = fork();
        if (go_pid == 0) {
            const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (out >= 0) {
                dup2(out, 1);
                dup2(out, 2);
            }
            if (setns(nsfd, CLONE_NEWNET) != 0)
                _exit(127);
            setenv("WG_PROCESS_FOREGROUND", "1", 1);
            setenv("LOG_LEVEL", "verbose", 1);
            execlp("wireguard-go", "wireguard-go", "-f", ifname.c_str(), static_cast<char *>(nullptr));
            _exit(127);
        }
        close(nsfd);
        if (go_pid < 0) {
            error = "fork failed";
            return false;
        }
        // Ready once its UAPI socket exists.
        const std::string sock = "/var/run/wireguard/" + ifname + ".sock";
        for (int i = 0; i < 250; ++i) {
            struct stat st;
            if (stat(sock.c_str(), &st) == 0)
                return true;
            if (waitpid(go_pid, nullptr, WNOHANG) == go_pid) {
                go_pid = -1;
                error = "wireguard-go exited:\n" + go_log();
                return false;
            }
            usleep(20000);
        }
        error = "wireguard-go did not create " + sock + ":\n" + go_log();
        return false;
    }

    // An application UDP socket inside ns B on the tunnel address.
    int inner_socket_b(uint16_t port)
    {
        const int fd = udp_socket_in(ns_b, inet(INNER_B, port), error);
        if (fd >= 0)
            fds.push_back(fd);
        return fd;
    }

    bool send_core(const wgx_u8 *p, size_t n)
    {
        const sockaddr_in to = inet(OUTER_B, GO_PORT);
        return sendto(core_fd, p, n, 0, reinterpret_cast<const sockaddr *>(&to), sizeof(to)) == ssize_t(n);
    }
};

// The core's side: identity, cookie checker and the handshake for wireguard-go.
struct Core : wgx::test::Node {
    wgx_noise_handshake *hs = nullptr;

    ~Core() { wgx_noise_handshake_destroy(hs); }
};

#define SKIP_UNLESS_ROOT_AND_TUN()                                                                                     \
    do {                                                                                                               \
        if (geteuid() != 0)                                                                                            \
            GTEST_SKIP() << "interop_wireguard_go needs root (network namespaces, TUN)";                               \
        if (access("/dev/net/tun", R_OK | W_OK) != 0)                                                                  \
            GTEST_SKIP() << "interop_wireguard_go needs /dev/net/tun";                                                 \
        for (const char *prog : {"wireguard-go", "wg", "ip"})                                                          \
            ASSERT_TRUE(have_program(prog)) << prog << " is not installed (scripts/deps installs it)";                 \
    } while (0)

// Receives from wireguard-go until a transport message for @keys carries a
// non-empty packet; decrypts it into @inner.
::testing::AssertionResult recv_transport(Env &env, const wgx_keypair_keys &keys, InnerUdp &inner, int timeout_ms)
{
    const wgx_u64 deadline = mono_ns() + wgx_u64(timeout_ms) * 1000000ULL;
    std::vector<wgx_u8> buf(65536);
    while (mono_ns() < deadline) {
        const ssize_t n = recv_timeout(env.core_fd, buf.data(), buf.size(), 200);
        if (n <= 0)
            continue;
        wgx_u32 idx = 0;
        if (wgx_msg_classify(buf.data(), size_t(n)) != WGX_MSG_TRANSPORT ||
            !wgx_msg_receiver_index(buf.data(), size_t(n), &idx) || idx != keys.local_index)
            continue;
        wgx_u64 counter = 0;
        size_t plain_len = 0;
        const int ret = wgx_transport_decrypt(buf.data(), size_t(n), keys.receiving_key, &counter, &plain_len);
        if (ret != 0)
            return ::testing::AssertionFailure() << "transport from wireguard-go did not decrypt: " << ret;
        if (plain_len == 0)
            continue;  // keepalive
        std::string why;
        if (!parse_ipv4_udp(buf.data() + WGX_MSG_TRANSPORT_HEADER_LEN, plain_len, inner, why))
            return ::testing::AssertionFailure() << "decrypted packet: " << why;
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "no transport data from wireguard-go within " << timeout_ms << " ms";
}

::testing::AssertionResult send_transport(Env &env, const wgx_keypair_keys &keys, wgx_u64 counter, const Bytes &ip)
{
    Bytes out(ip.size() + 64);
    size_t len = 0;
    const int ret = wgx_transport_encrypt(out.data(), out.size(), &len, ip.data(), ip.size(), 1420, keys.sending_key,
                                          keys.remote_index, counter);
    if (ret != 0)
        return ::testing::AssertionFailure() << "wgx_transport_encrypt: " << ret;
    if (!env.send_core(out.data(), len))
        return ::testing::AssertionFailure() << "sendto: " << strerror(errno);
    return ::testing::AssertionSuccess();
}

// Responder side for one initiation from wireguard-go: returns 0 and fills
// @keys, or the core's error.  @under_load makes the checker demand mac2.
struct Received {
    Bytes msg;
    sockaddr_in from{};
};

bool recv_handshake(Env &env, int type, Received &r, int timeout_ms)
{
    const wgx_u64 deadline = mono_ns() + wgx_u64(timeout_ms) * 1000000ULL;
    std::vector<wgx_u8> buf(2048);
    while (mono_ns() < deadline) {
        sockaddr_in from{};
        const ssize_t n = recv_timeout(env.core_fd, buf.data(), buf.size(), 200, &from);
        if (n > 0 && wgx_msg_classify(buf.data(), size_t(n)) == type) {
            r.msg.assign(buf.begin(), buf.begin() + n);
            r.from = from;
            return true;
        }
    }
    return false;
}

Bytes source_bytes(const sockaddr_in &from)
{
    Bytes src(6);
    std::memcpy(src.data(), &from.sin_addr, 4);
    std::memcpy(src.data() + 4, &from.sin_port, 2);
    return src;
}

TEST(Interop, interop_wireguard_go)
{
    SKIP_UNLESS_ROOT_AND_TUN();
    Core core;
    Env env;
    ASSERT_TRUE(env.start(core.pub)) << env.error;
    core.hs = wgx_noise_handshake_create(core.id, env.go_pub.data(), nullptr, true);
    ASSERT_NE(core.hs, nullptr);

    const int app_b = env.inner_socket_b(5000);
    ASSERT_GE(app_b, 0) << env.error;

    // ---- 1. the core initiates ----
    {
        Bytes init(WGX_MSG_INITIATION_LEN);
        wgx_u64 ws;
        wgx_u32 wn;
        wall(ws, wn);
        ASSERT_EQ(wgx_noise_create_initiation(core.hs, init.data(), 0x1001, mono_ns(), ws, wn), 0);
        ASSERT_TRUE(env.send_core(init.data(), init.size()));

        Received resp;
        ASSERT_TRUE(recv_handshake(env, WGX_MSG_RESPONSE, resp, 5000)) << "no response from wireguard-go\n"
                                                                       << env.go_log();
        ASSERT_EQ(
            wgx_cookie_checker_validate(core.checker, resp.msg.data(), resp.msg.size(), nullptr, 0, false, mono_ns()),
            WGX_COOKIE_ACCEPT);
        wgx_u32 idx = 0;
        ASSERT_TRUE(wgx_msg_receiver_index(resp.msg.data(), resp.msg.size(), &idx));
        EXPECT_EQ(idx, 0x1001u);
        ASSERT_EQ(wgx_noise_consume_response(core.hs, resp.msg.data(), resp.msg.size(), mono_ns()), 0);
        wgx_keypair_keys keys;
        ASSERT_EQ(wgx_noise_begin_session(core.hs, &keys, mono_ns()), 0);
        EXPECT_TRUE(keys.initiator);

        // Core -> wireguard-go: a UDP packet that must come out of its TUN device.
        const std::string hello = "hello from the wgx core (initiator)";
        ASSERT_TRUE(send_transport(env, keys, 0, ipv4_udp(INNER_A, 6000, INNER_B, 5000, hello)));
        std::vector<wgx_u8> buf(2048);
        sockaddr_in from{};
        const ssize_t n = recv_timeout(app_b, buf.data(), buf.size(), 5000, &from);
        ASSERT_GT(n, 0) << "the packet did not appear on wireguard-go's TUN device\n" << env.go_log();
        EXPECT_EQ(std::string(reinterpret_cast<char *>(buf.data()), size_t(n)), hello);
        char a[INET_ADDRSTRLEN];
        EXPECT_STREQ(inet_ntop(AF_INET, &from.sin_addr, a, sizeof(a)), INNER_A);
        EXPECT_EQ(ntohs(from.sin_port), 6000);

        // wireguard-go -> core: the answer, encrypted by wireguard-go.
        const std::string answer = "answer from wireguard-go";
        ASSERT_EQ(
            sendto(app_b, answer.data(), answer.size(), 0, reinterpret_cast<const sockaddr *>(&from), sizeof(from)),
            ssize_t(answer.size()));
        InnerUdp inner;
        ASSERT_TRUE(recv_transport(env, keys, inner, 5000)) << env.go_log();
        EXPECT_EQ(inner.src, INNER_B);
        EXPECT_EQ(inner.dst, INNER_A);
        EXPECT_EQ(inner.sport, 5000);
        EXPECT_EQ(inner.dport, 6000);
        EXPECT_EQ(inner.payload, answer);
        wgx_platform_memzero_explicit(&keys, sizeof(keys));
    }

    // ---- 2. wireguard-go initiates (the peer is re-added, so it has no session) ----
    {
        ASSERT_TRUE(env.remove_core_peer(core.pub)) << env.error;
        ASSERT_TRUE(env.add_core_peer(core.pub)) << env.error;
        const int app_b2 = env.inner_socket_b(5001);
        ASSERT_GE(app_b2, 0) << env.error;
        const std::string ping = "from wireguard-go, which must initiate first";
        const sockaddr_in to_core = inet(INNER_A, 6001);
        ASSERT_EQ(
            sendto(app_b2, ping.data(), ping.size(), 0, reinterpret_cast<const sockaddr *>(&to_core), sizeof(to_core)),
            ssize_t(ping.size()));

        Received init;
        ASSERT_TRUE(recv_handshake(env, WGX_MSG_INITIATION, init, 5000)) << "no initiation from wireguard-go\n"
                                                                         << env.go_log();
        ASSERT_EQ(
            wgx_cookie_checker_validate(core.checker, init.msg.data(), init.msg.size(), nullptr, 0, false, mono_ns()),
            WGX_COOKIE_ACCEPT);
        wgx_noise_initiation_scratch scratch;
        ASSERT_EQ(wgx_noise_consume_initiation_begin(core.id, init.msg.data(), init.msg.size(), &scratch), 0);
        ASSERT_EQ(0, std::memcmp(scratch.remote_static, env.go_pub.data(), 32));  // the glue's peer lookup
        ASSERT_EQ(wgx_noise_consume_initiation_finish(core.hs, &scratch, mono_ns()), 0);
        Bytes resp(WGX_MSG_RESPONSE_LEN);
        ASSERT_EQ(wgx_noise_create_response(core.hs, resp.data(), 0x2002, mono_ns()), 0);
        wgx_keypair_keys keys;
        ASSERT_EQ(wgx_noise_begin_session(core.hs, &keys, mono_ns()), 0);
        EXPECT_FALSE(keys.initiator);
        ASSERT_TRUE(env.send_core(resp.data(), resp.size()));

        // The packet wireguard-go queued arrives with the new session.
        InnerUdp inner;
        ASSERT_TRUE(recv_transport(env, keys, inner, 5000)) << env.go_log();
        EXPECT_EQ(inner.src, INNER_B);
        EXPECT_EQ(inner.dst, INNER_A);
        EXPECT_EQ(inner.sport, 5001);
        EXPECT_EQ(inner.dport, 6001);
        EXPECT_EQ(inner.payload, ping);

        // And the core's answer reaches the socket in ns B through the TUN device.
        const std::string pong = "answer from the wgx core (responder)";
        ASSERT_TRUE(send_transport(env, keys, 0, ipv4_udp(INNER_A, 6001, INNER_B, inner.sport, pong)));
        std::vector<wgx_u8> buf(2048);
        const ssize_t n = recv_timeout(app_b2, buf.data(), buf.size(), 5000);
        ASSERT_GT(n, 0) << "the core's answer did not appear on wireguard-go's TUN device\n" << env.go_log();
        EXPECT_EQ(std::string(reinterpret_cast<char *>(buf.data()), size_t(n)), pong);
        wgx_platform_memzero_explicit(&keys, sizeof(keys));
    }
}

TEST(Interop, interop_wireguard_go_cookie_reply)
{
    SKIP_UNLESS_ROOT_AND_TUN();
    Core core;
    Env env;
    ASSERT_TRUE(env.start(core.pub)) << env.error;
    core.hs = wgx_noise_handshake_create(core.id, env.go_pub.data(), nullptr, true);
    ASSERT_NE(core.hs, nullptr);
    const int app_b = env.inner_socket_b(5002);
    ASSERT_GE(app_b, 0) << env.error;

    const std::string ping = "sent while the core is under load";
    const sockaddr_in to_core = inet(INNER_A, 6002);
    ASSERT_EQ(sendto(app_b, ping.data(), ping.size(), 0, reinterpret_cast<const sockaddr *>(&to_core), sizeof(to_core)),
              ssize_t(ping.size()));

    // Under load: the first initiation has no mac2 and gets a cookie reply.
    Received first;
    ASSERT_TRUE(recv_handshake(env, WGX_MSG_INITIATION, first, 5000)) << env.go_log();
    const Bytes src = source_bytes(first.from);
    ASSERT_EQ(wgx_cookie_checker_validate(core.checker, first.msg.data(), first.msg.size(), src.data(), src.size(),
                                          true, mono_ns()),
              WGX_COOKIE_SEND_REPLY);
    Bytes reply(WGX_MSG_COOKIE_REPLY_LEN);
    ASSERT_EQ(wgx_cookie_checker_create_reply(core.checker, reply.data(), first.msg.data(), first.msg.size(),
                                              src.data(), src.size(), mono_ns()),
              0);
    ASSERT_EQ(sendto(env.core_fd, reply.data(), reply.size(), 0, reinterpret_cast<const sockaddr *>(&first.from),
                     sizeof(first.from)),
              ssize_t(reply.size()));

    // wireguard-go retransmits after REKEY_TIMEOUT (5 s + jitter), now with mac2
    // computed from the cookie it decrypted.
    Received second;
    ASSERT_TRUE(recv_handshake(env, WGX_MSG_INITIATION, second, 9000)) << env.go_log();
    EXPECT_NE(second.msg, first.msg);
    ASSERT_EQ(wgx_cookie_checker_validate(core.checker, second.msg.data(), second.msg.size(), src.data(), src.size(),
                                          true, mono_ns()),
              WGX_COOKIE_ACCEPT_RATELIMIT)
        << "wireguard-go's mac2 does not match the core's cookie\n"
        << env.go_log();

    wgx_noise_initiation_scratch scratch;
    ASSERT_EQ(wgx_noise_consume_initiation_begin(core.id, second.msg.data(), second.msg.size(), &scratch), 0);
    ASSERT_EQ(wgx_noise_consume_initiation_finish(core.hs, &scratch, mono_ns()), 0);
    Bytes resp(WGX_MSG_RESPONSE_LEN);
    ASSERT_EQ(wgx_noise_create_response(core.hs, resp.data(), 0x3003, mono_ns()), 0);
    wgx_keypair_keys keys;
    ASSERT_EQ(wgx_noise_begin_session(core.hs, &keys, mono_ns()), 0);
    ASSERT_TRUE(env.send_core(resp.data(), resp.size()));
    InnerUdp inner;
    ASSERT_TRUE(recv_transport(env, keys, inner, 5000)) << env.go_log();
    EXPECT_EQ(inner.payload, ping);
    wgx_platform_memzero_explicit(&keys, sizeof(keys));
}

}  // namespace
