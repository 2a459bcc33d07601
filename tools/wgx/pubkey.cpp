// SPDX-License-Identifier: GPL-2.0
//
// `wgx pubkey`: private key (base64) on stdin -> public key on stdout.
#include <sodium.h>

#include <cstdio>

#include "encoding.hpp"
#include "keys.hpp"
#include "subcommands.hpp"

namespace wgx {

int pubkey_main(int argc, const char *argv[])
{
    if (int rc = check_usage(argc, argv, argc == 1, ""); rc >= 0)
        return rc;
    char b64[kKeyBase64Len + 1] = {};
    if (fread(b64, 1, kKeyBase64Len, stdin) != kKeyBase64Len) {
        fprintf(stderr, "%s: Key is not the correct length or format\n", prog_name);
        return 1;
    }
    for (;;) {
        int c = getc(stdin);
        if (c == EOF)
            break;
        if (c == 0 || c == ' ' || (c >= '\t' && c <= '\r'))
            continue;
        fprintf(stderr, "%s: Trailing characters found after key\n", prog_name);
        return 1;
    }
    Key priv, pub;
    bool ok = key_from_base64(priv, std::string_view(b64, kKeyBase64Len));
    sodium_memzero(b64, sizeof(b64));
    if (!ok) {
        fprintf(stderr, "%s: Key is not the correct length or format\n", prog_name);
        return 1;
    }
    ok = public_key_of(pub, priv);
    sodium_memzero(priv.data(), priv.size());
    if (!ok) {
        fprintf(stderr, "%s: unable to compute the public key\n", prog_name);
        return 1;
    }
    puts(key_to_base64(pub).c_str());
    return 0;
}

}  // namespace wgx
