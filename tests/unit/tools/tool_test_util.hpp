// SPDX-License-Identifier: GPL-2.0
//
// Shared helpers for the tools/wgx unit tests: golden files, a deterministic
// endpoint resolver, fixed keys generated once with `wg genkey`, and running
// a program of the build (the wgx binary) with its output captured.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../../tools/wgx/config.hpp"
#include "../../../tools/wgx/set_args.hpp"
#include "../../../tools/wgx/values.hpp"
#include "../../../tools/wgx/encoding.hpp"
#include "../../../tools/wgx/model.hpp"
#include "uapi/linux/wgx.h"

namespace wgx {

// gtest prints an RxSpread (alone or in an optional) by name in failures.
inline void PrintTo(RxSpread mode, std::ostream *os)
{
    const char *name = rx_spread_name(mode);
    *os << (name ? name : "RxSpread(" + std::to_string(static_cast<unsigned>(mode)) + ")");
}

}  // namespace wgx

namespace wgx::test {

// Device key pair and peer public keys (from `wg genkey | tee >(wg pubkey)`).
inline constexpr const char *kPriv1 = "6OhdF6DJ6fK2AXgitAO7qxhIem6hVWgBG6Sf3bMm7kM=";
inline constexpr const char *kPub1 = "NaQRtOFkmTAof1smWF4SN1Md9V/GO3szq2aMeJ1v3jU=";
inline constexpr const char *kPub2 = "h9Jxalc2eCk71CoPBkl+YCgqMRNBBBVcd9p7h2j81DI=";
inline constexpr const char *kPub3 = "lJ889Ic9VXF8G2OVRuGIv6swzcQZK97gX44JSw97iVs=";
inline constexpr const char *kPub4 = "Eo/KJcNR3s8XBl3N+jWOVDZQP+beZlt3mXi7Bpm1PGo=";
inline constexpr const char *kPub5 = "EBeoWDcHZJYQtJzOxUTXHaoiK+R29JVvAIjZg2PFEFA=";
inline constexpr const char *kPsk = "YqLhYvw1eScHf5f9sxCScbrUqtP1GfWiT8DkQ50phsk=";

inline Key key(const char *b64)
{
    Key k{};
    EXPECT_TRUE(key_from_base64(k, b64)) << b64;
    return k;
}

inline std::string golden_path(const std::string &name)
{
    return std::string(WGX_SOURCE_DIR) + "/tests/unit/tools/golden/" + name;
}

inline std::string read_golden(const std::string &name)
{
    std::ifstream f(golden_path(name), std::ios::binary);
    EXPECT_TRUE(f.good()) << "missing golden file " << golden_path(name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Numeric addresses through getaddrinfo(AI_NUMERICHOST) (no network), plus a
// fixed table of names; anything else fails like an unknown host.
inline bool fake_resolve(const std::string &host, const std::string &port, Endpoint &out, std::string &error)
{
    std::string h = host;
    if (h == "vpn.example.com")
        h = "192.0.2.7";
    else if (h == "v6.example.com")
        h = "2001:db8::7";
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo *res = nullptr;
    int ret = getaddrinfo(h.c_str(), port.c_str(), &hints, &res);
    if (ret) {
        error = ret == EAI_NONAME ? "Name or service not known" : gai_strerror(ret);
        return false;
    }
    out = Endpoint{};
    std::memcpy(&out.addr6, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return true;
}

inline ParseOptions test_options(bool append = false)
{
    ParseOptions o;
    o.append = append;
    o.resolve = fake_resolve;
    return o;
}

inline Endpoint endpoint(const char *ip, unsigned short port)
{
    Endpoint e;
    if (strchr(ip, ':')) {
        e.addr6.sin6_family = AF_INET6;
        inet_pton(AF_INET6, ip, &e.addr6.sin6_addr);
        e.addr6.sin6_port = htons(port);
    } else {
        e.addr4.sin_family = AF_INET;
        inet_pton(AF_INET, ip, &e.addr4.sin_addr);
        e.addr4.sin_port = htons(port);
    }
    return e;
}

// A temporary file holding @content with mode @mode, removed at scope exit.
class TempFile {
public:
    TempFile(const std::string &content, mode_t mode = 0600)
    {
        char tmpl[] = "/tmp/wgx-unit-XXXXXX";
        int fd = mkstemp(tmpl);
        EXPECT_GE(fd, 0);
        path_ = tmpl;
        EXPECT_EQ(write(fd, content.data(), content.size()), (ssize_t)content.size());
        fchmod(fd, mode);
        close(fd);
    }
    ~TempFile() { unlink(path_.c_str()); }
    const std::string &path() const { return path_; }

private:
    std::string path_;
};

// The exit status and output of a program run by run_program().
struct ProgramRun {
    int rc;  // the exit status; -1 if it did not exit (a signal)
    std::string out, err;
};

inline std::string read_file(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Runs @path with the command line @argv (argv[0] included, as the program
// sees it), stdin /dev/null, and returns its exit status and output.
inline ProgramRun run_program(const std::string &path, const std::vector<std::string> &argv)
{
    TempFile out(""), err("");
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int o = open(out.path().c_str(), O_WRONLY | O_TRUNC);
        int e = open(err.path().c_str(), O_WRONLY | O_TRUNC);
        if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        execv(path.c_str(), args.data());
        _exit(127);
    }
    EXPECT_GT(pid, 0) << "fork: " << strerror(errno);
    int status = 0;
    if (pid > 0)
        EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out.path()), read_file(err.path())};
}

// The wgx of this build (its programs wgx-top and wgx-exporter next to it).
inline std::string built_wgx()
{
    return std::string(WGX_BINARY_DIR) + "/tools/wgx";
}

inline AllowedIp prefix(const char *ip, unsigned cidr)
{
    AllowedIp a;
    a.family = strchr(ip, ':') ? AF_INET6 : AF_INET;
    inet_pton(a.family, ip, a.addr.data());
    a.cidr = static_cast<std::uint8_t>(cidr);
    return a;
}

}  // namespace wgx::test
