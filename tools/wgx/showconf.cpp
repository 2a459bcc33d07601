// SPDX-License-Identifier: GPL-2.0
//
// `wgx showconf IF`: the running configuration in config-file grammar.
#include <cstdio>

#include "encoding.hpp"
#include "format.hpp"
#include "ipc.hpp"
#include "options.hpp"
#include "subcommands.hpp"
#include "values.hpp"

namespace wgx {

std::string format_showconf(const Device &dev)
{
    std::string s = "[Interface]\n" + format_config_lines(dev, dev);
    s += "\n";
    for (std::size_t i = 0; i < dev.peers.size(); ++i) {
        const Peer &p = dev.peers[i];
        s += "[Peer]\nPublicKey = " + key_to_base64(p.public_key) + "\n";
        if (p.preshared_key && !key_is_zero(*p.preshared_key))
            s += "PresharedKey = " + key_to_base64(*p.preshared_key) + "\n";
        if (!p.allowed_ips.empty()) {
            s += "AllowedIPs = ";
            for (std::size_t j = 0; j < p.allowed_ips.size(); ++j)
                s += format_allowed_ip(p.allowed_ips[j]) + (j + 1 < p.allowed_ips.size() ? ", " : "\n");
        }
        if (p.endpoint && p.endpoint->size())
            s += "Endpoint = " + format_endpoint(*p.endpoint) + "\n";
        s += format_config_lines(dev, p);
        if (i + 1 < dev.peers.size())
            s += "\n";
    }
    return s;
}

int showconf_main(int argc, const char *argv[])
{
    if (int rc = check_usage(argc, argv, argc == 2 && argv[1][0] != '-', "<interface>"); rc >= 0)
        return rc;
    Device d;
    Status st = get_device(argv[1], d, false);
    if (!st.is_ok()) {
        fprintf(stderr, "Unable to access interface %s: %s\n", argv[1], st.text().c_str());
        return 1;
    }
    fputs(format_showconf(d).c_str(), stdout);
    return 0;
}

}  // namespace wgx
