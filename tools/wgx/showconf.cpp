// SPDX-License-Identifier: GPL-2.0
//
// `wgx showconf IF`: the running configuration in config-file grammar.
#include <cstdio>

#include "encoding.hpp"
#include "format.hpp"
#include "ipc.hpp"
#include "subcommands.hpp"
#include "uapi/linux/wgx.h"
#include "values.hpp"

namespace wgx {

std::string format_showconf(const Device &dev)
{
    std::string s = "[Interface]\n";
    if (dev.listen_port.value_or(0))
        s += "ListenPort = " + std::to_string(*dev.listen_port) + "\n";
    if (dev.listen_ports.value_or(1) > 1)
        s += "ListenPorts = " + std::to_string(*dev.listen_ports) + "\n";
    // Auto, the default, is not printed; nor is a mode this tool cannot name.
    if (dev.rx_spread && *dev.rx_spread != RxSpread::Auto && rx_spread_name(*dev.rx_spread))
        s += std::string("RxSpread = ") + rx_spread_name(*dev.rx_spread) + "\n";
    if (dev.dscp_copy.value_or(false))
        s += "DSCP = copy\n";
    if (dev.priority_dscp && *dev.priority_dscp != WGX_PRIORITY_DSCP_DEFAULT)
        s += "PriorityDSCP = " + format_dscp_set(*dev.priority_dscp) + "\n";
    if (dev.handshake_budget.value_or(0))
        s += "HandshakeBudget = " + std::to_string(*dev.handshake_budget) + "\n";
    if (dev.key_grace.value_or(0))
        s += "KeyGrace = " + std::to_string(*dev.key_grace) + "\n";
    if (dev.fwmark.value_or(0)) {
        char buf[32];
        snprintf(buf, sizeof(buf), "FwMark = 0x%x\n", *dev.fwmark);
        s += buf;
    }
    if (dev.private_key && !key_is_zero(*dev.private_key))
        s += "PrivateKey = " + key_to_base64(*dev.private_key) + "\n";
    // An MTU that follows the underlay is no setting: setconf of the output keeps it following.
    if (dev.kind == Kind::Wgx && dev.mtu && !dev.mtu_auto.value_or(false))
        s += "MTU = " + std::to_string(*dev.mtu) + "\n";
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
        if (p.persistent_keepalive.value_or(0))
            s += "PersistentKeepalive = " + std::to_string(*p.persistent_keepalive) + "\n";
        if (dev.kind == Kind::Wgx && p.mtu.value_or(0))
            s += "MTU = " + std::to_string(*p.mtu) + "\n";
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
