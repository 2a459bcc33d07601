// SPDX-License-Identifier: GPL-2.0
//
// `wgx exporter`: format_prometheus() served over HTTP by GNU libmicrohttpd
// (one internal polling thread, so scrapes are answered one at a time and
// each reads the kernel afresh).  The listening socket is made here, so a
// bind error is reported with its address; libmicrohttpd does the HTTP.
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "format.hpp"
#include "subcommands.hpp"
#include "telemetry.hpp"

namespace wgx {

bool parse_listen_address(const std::string &text, Endpoint &out, std::string &error)
{
    out = Endpoint{};
    std::string host, port;
    if (!text.empty() && text[0] == '[') {
        std::size_t close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            error = "expected [IPv6 address]:port";
            return false;
        }
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
        if (inet_pton(AF_INET6, host.c_str(), &out.addr6.sin6_addr) != 1) {
            error = "`" + host + "' is not a numeric IPv6 address";
            return false;
        }
        out.addr6.sin6_family = AF_INET6;
    } else {
        std::size_t colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0) {
            error = "expected address:port, e.g. 127.0.0.1:9586 or [::1]:9586";
            return false;
        }
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (host.find(':') != std::string::npos) {
            error = "an IPv6 address must be in brackets, e.g. [::1]:9586";
            return false;
        }
        if (inet_pton(AF_INET, host.c_str(), &out.addr4.sin_addr) != 1) {
            error = "`" + host + "' is not a numeric IPv4 address";
            return false;
        }
        out.addr4.sin_family = AF_INET;
    }
    char *end = nullptr;
    errno = 0;
    unsigned long p = port.empty() ? 0 : strtoul(port.c_str(), &end, 10);
    if (port.empty() || *end || errno || p < 1 || p > 65535 || port[0] == '-' || port[0] == '+') {
        error = "port `" + port + "' is not a number from 1 to 65535";
        return false;
    }
    if (out.family() == AF_INET6)
        out.addr6.sin6_port = htons(static_cast<std::uint16_t>(p));
    else
        out.addr4.sin_port = htons(static_cast<std::uint16_t>(p));
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
            "named) at http://<address>:<port>/metrics (default %s; IPv6 as [::1]:9586):\n"
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

}  // namespace

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
        } else if (!a.empty() && a[0] == '-') {
            fprintf(stderr, "%s exporter: unknown option `%s'\n", prog_name, a.c_str());
            exporter_usage(stderr, argv[0]);
            return 1;
        } else if (a.size() > 15) {
            fprintf(stderr, "Invalid interface name `%s': at most 15 characters\n", a.c_str());
            return 1;
        } else {
            ctx.ifaces.push_back(a);
        }
    }
    Endpoint addr;
    std::string error;
    if (!parse_listen_address(listen_text, addr, error)) {
        fprintf(stderr, "%s exporter: invalid --listen `%s': %s\n", prog_name, listen_text.c_str(), error.c_str());
        return 1;
    }

    int fd = socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
        bind(fd, &addr.addr, static_cast<socklen_t>(addr.size())) || ::listen(fd, 64)) {
        fprintf(stderr, "%s exporter: cannot listen on %s: %s\n", prog_name, format_endpoint(addr).c_str(),
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }

    // The daemon's thread inherits this mask, so the signals reach sigwait() below.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    signal(SIGPIPE, SIG_IGN);

    MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, nullptr, nullptr, handle,
                                     &ctx, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
                                     MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "%s exporter: unable to start the HTTP server on %s\n", prog_name,
                format_endpoint(addr).c_str());
        close(fd);
        return 1;
    }
    fprintf(stderr, "%s exporter: serving http://%s/metrics\n", prog_name, format_endpoint(addr).c_str());
    int sig = 0;
    sigwait(&stop, &sig);
    MHD_stop_daemon(d);
    close(fd);
    return 0;
}

}  // namespace wgx
