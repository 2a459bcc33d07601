// SPDX-License-Identifier: GPL-2.0
//
// `wgx setconf|addconf|syncconf IF FILE`: apply a configuration file.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "config.hpp"
#include "ipc.hpp"
#include "subcommands.hpp"

namespace wgx {

void sync_config(Device &file, const Device &runtime)
{
    if (file.peers.empty() || runtime.peers.empty())
        return;
    file.replace_peers = false;
    std::vector<Peer> removals;
    for (const Peer &rp : runtime.peers) {
        auto it = std::find_if(file.peers.begin(), file.peers.end(),
                               [&](const Peer &fp) { return fp.public_key == rp.public_key; });
        if (it == file.peers.end()) {
            Peer gone;
            gone.public_key = rp.public_key;
            gone.remove = true;
            removals.push_back(gone);
            continue;
        }
        // Every file entry for this key (a file may name a peer twice).
        for (Peer &fp : file.peers) {
            if (fp.public_key != rp.public_key)
                continue;
            if (rp.preshared_key && !key_is_zero(*rp.preshared_key) && !fp.preshared_key)
                fp.preshared_key = Key{};
            if (rp.persistent_keepalive.value_or(0) && !fp.persistent_keepalive)
                fp.persistent_keepalive = 0;
            if (rp.mtu.value_or(0) && !fp.mtu)
                fp.mtu = 0;
        }
    }
    file.peers.insert(file.peers.begin(), removals.begin(), removals.end());
}

int setconf_main(int argc, const char *argv[])
{
    if (int rc = check_usage(argc, argv, argc == 3, "<interface> <configuration filename>"); rc >= 0)
        return rc;
    if (!check_ifname(argv[1]))
        return 1;
    const bool append = !strcmp(argv[0], "addconf");
    const bool sync = !strcmp(argv[0], "syncconf");
    std::string text, warning;
    if (!read_config_file(argv[2], text, warning))
        return 1;
    ParseOptions opts;
    opts.append = append;
    ParseResult r = parse_config(text, argv[2], opts);
    std::fill(text.begin(), text.end(), '\0');
    if (!r.ok()) {
        print_messages(r.errors);
        fprintf(stderr, "Configuration parsing error: nothing was changed\n");
        return 1;
    }
    // Only worth a warning when the file holds secrets.
    bool secrets = (r.device.private_key && !key_is_zero(*r.device.private_key)) ||
                   std::any_of(r.device.peers.begin(), r.device.peers.end(),
                               [](const Peer &p) { return p.preshared_key.has_value(); });
    if (!warning.empty() && secrets)
        fprintf(stderr, "%s\n", warning.c_str());
    print_messages(r.warnings);
    if (sync) {
        Device runtime;
        Status st = get_device(argv[1], runtime, false);
        if (!st.is_ok()) {
            fprintf(stderr, "Unable to retrieve current interface configuration of %s: %s\n", argv[1],
                    st.text().c_str());
            return 1;
        }
        sync_config(r.device, runtime);
    }
    return apply_device(r.device, argv[1]);
}

}  // namespace wgx
