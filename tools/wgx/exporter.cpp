// SPDX-License-Identifier: GPL-2.0
//
// `wgx exporter`: format_prometheus() served over HTTP by GNU libmicrohttpd
// (one internal polling thread per listening address, so scrapes on one
// address are answered one at a time and each reads the kernel afresh).  The
// listening sockets are made here, so a bind error is reported with its
// address; libmicrohttpd does the HTTP.
#include <arpa/inet.h>
#include <netdb.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "format.hpp"
#include "subcommands.hpp"
#include "telemetry.hpp"

namespace wgx {

bool resolve_listen_address(const std::string &text, std::vector<Endpoint> &out, std::string &error)
{
    out.clear();
    std::string host, port;
    bool bracketed = !text.empty() && text[0] == '[';
    if (bracketed) {
        std::size_t close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            error = "expected [IPv6 address]:port";
            return false;
        }
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        std::size_t colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0) {
            error = "expected address:port or name:port, e.g. 127.0.0.1:9586, [::1]:9586 or localhost:9586";
            return false;
        }
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (host.find(':') != std::string::npos) {
            error = "an IPv6 address must be in brackets, e.g. [::1]:9586";
            return false;
        }
    }
    char *end = nullptr;
    errno = 0;
    unsigned long p = port.empty() ? 0 : strtoul(port.c_str(), &end, 10);
    if (port.empty() || *end || errno || p < 1 || p > 65535 || port[0] == '-' || port[0] == '+') {
        error = "port `" + port + "' is not a number from 1 to 65535";
        return false;
    }
    addrinfo hints{};
    hints.ai_family = bracketed ? AF_INET6 : AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | (bracketed ? AI_NUMERICHOST : 0);
    addrinfo *res = nullptr;
    int ret = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
    if (ret) {
        if (bracketed)
            error = "`" + host + "' is not a numeric IPv6 address";
        else
            error = "cannot resolve `" + host + "': " + (ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret));
        return false;
    }
    for (addrinfo *ai = res; ai; ai = ai->ai_next) {
        if ((ai->ai_family != AF_INET || ai->ai_addrlen != sizeof(sockaddr_in)) &&
            (ai->ai_family != AF_INET6 || ai->ai_addrlen != sizeof(sockaddr_in6)))
            continue;
        Endpoint ep;
        std::memcpy(&ep.addr6, ai->ai_addr, ai->ai_addrlen);
        if (std::find(out.begin(), out.end(), ep) == out.end())
            out.push_back(ep);
    }
    freeaddrinfo(res);
    if (out.empty()) {
        error = "`" + host + "' has neither an IPv4 nor an IPv6 address";
        return false;
    }
    return true;
}

namespace {

constexpr const char *kDefaultListen = "127.0.0.1:9586";
constexpr const char *kContentType = "text/plain; version=0.0.4; charset=utf-8";

void exporter_usage(FILE *f, const char *cmd)
{
    fprintf(f,
            "Usage: %s %s [--listen <address>:<port>] [<interface>...]\n"
            "Serves the Prometheus text exposition of every wgx and WireGuard interface (or those\n"
            "named) at http://<address>:<port>/metrics (default %s; IPv6 as [::1]:9586, a\n"
            "host name such as localhost:9586 on each of its addresses):\n"
            "prometheus_wireguard_exporter's wireguard_* metrics plus wgx_* metrics for every\n"
            "counter and RTT figure.  Runs until SIGINT or SIGTERM.\n",
            prog_name, cmd, kDefaultListen);
}

struct ExporterContext {
    std::vector<std::string> ifaces;
};

MHD_Result reply(MHD_Connection *conn, unsigned code, const std::string &body, bool head, const char *content_type)
{
    MHD_Response *r =
        MHD_create_response_from_buffer(head ? 0 : body.size(), const_cast<char *>(body.data()), MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    MHD_Result ret = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ret;
}

MHD_Result handle(void *cls, MHD_Connection *conn, const char *url, const char *method, const char *, const char *,
                  size_t *upload_size, void **)
{
    const ExporterContext &ctx = *static_cast<const ExporterContext *>(cls);
    bool head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
    if (strcmp(method, MHD_HTTP_METHOD_GET) && !head)
        return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n", false, "text/plain; charset=utf-8");
    if (*upload_size)
        return MHD_NO;  // a GET with a body: drop the connection
    if (!strcmp(url, "/"))
        return reply(conn, MHD_HTTP_OK,
                     "<html><head><title>wgx exporter</title></head><body><h1>wgx exporter</h1>"
                     "<p><a href=\"/metrics\">Metrics</a></p></body></html>\n",
                     head, "text/html; charset=utf-8");
    if (strcmp(url, "/metrics"))
        return reply(conn, MHD_HTTP_NOT_FOUND, "not found; metrics are at /metrics\n", head,
                     "text/plain; charset=utf-8");
    std::vector<Device> devs;
    Status st = read_devices(ctx.ifaces, devs);
    if (!st.is_ok()) {
        // A failed scrape, not an empty one: Prometheus then marks the target down.
        fprintf(stderr, "%s exporter: %s\n", prog_name, st.text().c_str());
        return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, st.text() + "\n", head, "text/plain; charset=utf-8");
    }
    return reply(conn, MHD_HTTP_OK, format_prometheus(devs), head, kContentType);
}

struct Listener {
    Endpoint addr;
    int fd = -1;
    MHD_Daemon *daemon = nullptr;
};

// A listening TCP socket on each of @addrs.  An address the host cannot
// bind (EADDRNOTAVAIL, EAFNOSUPPORT: e.g. IPv6 turned off) is skipped with a
// warning while another one works; any other failure, or none working, is an
// error naming the address.  With several addresses an IPv6 socket is
// IPv6-only, so that "::" and "0.0.0.0" of one name do not collide.
bool open_listeners(const std::vector<Endpoint> &addrs, std::vector<Listener> &out)
{
    std::string skipped;
    for (const Endpoint &addr : addrs) {
        int fd = socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        bool v6only = addr.family() == AF_INET6 && addrs.size() > 1;
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
            (v6only && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
            bind(fd, &addr.addr, static_cast<socklen_t>(addr.size())) || ::listen(fd, 64)) {
            int err = errno;
            if (fd >= 0)
                close(fd);
            if (addrs.size() > 1 && (err == EADDRNOTAVAIL || err == EAFNOSUPPORT)) {
                fprintf(stderr, "%s exporter: not listening on %s: %s\n", prog_name, format_endpoint(addr).c_str(),
                        strerror(err));
                skipped = format_endpoint(addr) + ": " + strerror(err);
                continue;
            }
            fprintf(stderr, "%s exporter: cannot listen on %s: %s\n", prog_name, format_endpoint(addr).c_str(),
                    strerror(err));
            for (Listener &l : out)
                close(l.fd);
            out.clear();
            return false;
        }
        out.push_back({addr, fd, nullptr});
    }
    if (out.empty()) {
        fprintf(stderr, "%s exporter: cannot listen on any address (%s)\n", prog_name, skipped.c_str());
        return false;
    }
    return true;
}

}  // namespace

const std::vector<std::string> &exporter_options()
{
    static const std::vector<std::string> o = {"--listen"};
    return o;
}

int exporter_main(int argc, const char *argv[])
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        exporter_usage(stdout, argv[0]);
        return 0;
    }
    std::string listen_text = kDefaultListen;
    ExporterContext ctx;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        std::string name = a.substr(0, a.find('='));
        if (!a.empty() && a[0] == '-' &&
            std::find(exporter_options().begin(), exporter_options().end(), name) == exporter_options().end()) {
            fprintf(stderr, "%s exporter: unknown option `%s'\n", prog_name, a.c_str());
            exporter_usage(stderr, argv[0]);
            return 1;
        }
        if (a == "--listen" || a.rfind("--listen=", 0) == 0) {
            if (a == "--listen") {
                if (i + 1 >= argc) {
                    fprintf(stderr, "%s exporter: --listen needs <address>:<port>\n", prog_name);
                    exporter_usage(stderr, argv[0]);
                    return 1;
                }
                listen_text = argv[++i];
            } else {
                listen_text = a.substr(strlen("--listen="));
            }
        } else if (a.size() > 15) {
            fprintf(stderr, "Invalid interface name `%s': at most 15 characters\n", a.c_str());
            return 1;
        } else {
            ctx.ifaces.push_back(a);
        }
    }
    std::vector<Endpoint> addrs;
    std::string error;
    if (!resolve_listen_address(listen_text, addrs, error)) {
        fprintf(stderr, "%s exporter: invalid --listen `%s': %s\n", prog_name, listen_text.c_str(), error.c_str());
        return 1;
    }
    std::vector<Listener> listeners;
    if (!open_listeners(addrs, listeners))
        return 1;

    // The daemons' threads inherit this mask, so the signals reach sigwait() below.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    signal(SIGPIPE, SIG_IGN);

    bool ok = true;
    for (Listener &l : listeners) {
        l.daemon = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | (l.addr.family() == AF_INET6 ? MHD_USE_IPv6 : 0), 0,
            nullptr, nullptr, handle, &ctx, MHD_OPTION_LISTEN_SOCKET, l.fd, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
            MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_END);
        if (!l.daemon) {
            fprintf(stderr, "%s exporter: unable to start the HTTP server on %s\n", prog_name,
                    format_endpoint(l.addr).c_str());
            ok = false;
            break;
        }
        fprintf(stderr, "%s exporter: serving http://%s/metrics\n", prog_name, format_endpoint(l.addr).c_str());
    }
    if (ok) {
        int sig = 0;
        sigwait(&stop, &sig);
    }
    for (Listener &l : listeners) {
        if (l.daemon)
            MHD_stop_daemon(l.daemon);
        close(l.fd);
    }
    return ok ? 0 : 1;
}

}  // namespace wgx
