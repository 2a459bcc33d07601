// SPDX-License-Identifier: GPL-2.0
//
// `wgx reresolve IF [FILE]` (reresolve.hpp): run by wgx-reresolve@.timer,
// or by hand.
#include "reresolve.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "config.hpp"
#include "encoding.hpp"
#include "format.hpp"
#include "ipc.hpp"
#include "netdev.hpp"
#include "subcommands.hpp"

namespace wgx {

ParseOptions reresolve_parse_options()
{
    ParseOptions o;
    o.resolve = [](const std::string &host, const std::string &port, Endpoint &out, std::string &error) {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_DGRAM;
        hints.ai_flags = AI_NUMERICHOST;
        addrinfo *res = nullptr;
        int ret = getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
        if (ret == EAI_NONAME) {  // a host name: resolved later, if its peer needs it
            out = Endpoint{};
            return true;
        }
        if (ret) {
            error = gai_strerror(ret);
            return false;
        }
        bool ok = res->ai_addrlen <= sizeof(out.addr6);
        if (ok) {
            out = Endpoint{};
            std::memcpy(&out.addr6, res->ai_addr, res->ai_addrlen);
        }
        freeaddrinfo(res);
        return ok;
    };
    return o;
}

std::vector<EndpointChange> plan_reresolve(const Device &file, const Device &runtime, std::time_t now,
                                           const EndpointResolver &resolve, std::vector<std::string> &errors)
{
    std::vector<EndpointChange> changes;
    for (const Peer &fp : file.peers) {
        if (fp.endpoint_text.empty() || !fp.endpoint || fp.endpoint->size())
            continue;  // no endpoint, or a numeric one
        const Peer *rp = find_peer(runtime, fp.public_key);
        if (!rp)
            continue;
        if (rp->last_handshake_sec && now - rp->last_handshake_sec <= kReresolveStaleSeconds)
            continue;
        Endpoint ep;
        std::string expected, err;
        if (!parse_endpoint(fp.endpoint_text, ep, resolve, expected, err)) {
            errors.push_back(key_to_base64(fp.public_key) + ": unable to resolve endpoint " + quoted(fp.endpoint_text) +
                             ": " + (expected.empty() ? err : expected));
            continue;
        }
        Endpoint current = rp->endpoint.value_or(Endpoint{});
        if (ep == current)
            continue;
        changes.push_back({fp.public_key, fp.endpoint_text, current, ep});
    }
    return changes;
}

int reresolve_main(int argc, const char *argv[])
{
    if (int rc = check_usage(argc, argv, argc == 2 || argc == 3, "<interface> [<configuration filename>]"); rc >= 0)
        return rc;
    if (!check_ifname(argv[1]))
        return 1;
    std::string path;
    if (argc == 3) {
        path = argv[2];
    } else {
        std::vector<std::string> dirs(std::begin(kNetworkdDirs), std::end(kNetworkdDirs));
        path = find_netdev_file(argv[1], dirs);
        if (path.empty()) {
            std::string list;
            for (const std::string &d : dirs)
                list += (list.empty() ? "" : ", ") + d;
            fprintf(stderr, "%s: no systemd-networkd .netdev file with Name=%s in %s: name the configuration file\n",
                    argv[1], argv[1], list.c_str());
            return 1;
        }
    }
    std::string text, warning;
    if (!read_config_file(path.c_str(), text, warning))
        return 1;
    ParseResult r = is_netdev_path(path) ? parse_netdev(text, path, reresolve_parse_options())
                                         : parse_config(text, path, reresolve_parse_options());
    std::fill(text.begin(), text.end(), '\0');
    if (!r.ok()) {
        print_messages(r.errors);
        return 1;
    }
    if (is_netdev_path(path) && r.device.name != argv[1]) {
        fprintf(stderr, "%s: Name=%s: the file creates another interface than %s\n", path.c_str(),
                r.device.name.c_str(), argv[1]);
        return 1;
    }
    Device runtime;
    Status st = get_device(argv[1], runtime, false);
    if (!st.is_ok()) {
        fprintf(stderr, "Unable to access interface %s: %s\n", argv[1], st.text().c_str());
        return 1;
    }
    // One attempt per run unless the caller asks for retries: the timer runs
    // again soon, and a run must not outlast its interval.
    setenv("WG_ENDPOINT_RESOLUTION_RETRIES", "0", 0);
    std::vector<std::string> errors;
    std::vector<EndpointChange> changes =
        plan_reresolve(r.device, runtime, time(nullptr), resolve_endpoint_getaddrinfo, errors);
    int rc = errors.empty() ? 0 : 1;
    for (const std::string &e : errors)
        fprintf(stderr, "%s: peer %s\n", argv[1], e.c_str());
    for (const EndpointChange &c : changes) {
        Device d;
        d.name = argv[1];
        Peer p;
        p.public_key = c.public_key;
        p.endpoint = c.to;
        p.update_only = true;  // a peer removed meanwhile stays removed
        d.peers.push_back(p);
        st = set_device(d);
        if (!st.is_ok()) {
            fprintf(stderr, "%s: peer %s: unable to set endpoint %s: %s\n", argv[1],
                    key_to_base64(c.public_key).c_str(), format_endpoint(c.to).c_str(), st.text().c_str());
            rc = 1;
            continue;
        }
        printf("%s: peer %s: endpoint %s now resolves to %s (was %s)\n", argv[1], key_to_base64(c.public_key).c_str(),
               c.name.c_str(), format_endpoint(c.to).c_str(), format_endpoint(c.from).c_str());
    }
    fflush(stdout);
    return rc;
}

}  // namespace wgx
