// SPDX-License-Identifier: GPL-2.0
//
// `wgx genkey` / `wgx genpsk`: a fresh Curve25519 private key (clamped,
// RFC 7748 section 5) or a random 32-byte preshared key, base64 on stdout.
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "encoding.hpp"
#include "keys.hpp"
#include "subcommands.hpp"

namespace wgx {

void clamp_private_key(Key &k)
{
    k[0] &= 248;
    k[31] = static_cast<std::uint8_t>((k[31] & 127) | 64);
}

bool generate_key(Key &out, bool clamp)
{
    if (sodium_init() < 0)
        return false;
    randombytes_buf(out.data(), out.size());
    if (clamp)
        clamp_private_key(out);
    return true;
}

bool public_key_of(Key &pub, const Key &priv)
{
    if (sodium_init() < 0)
        return false;
    return crypto_scalarmult_base(pub.data(), priv.data()) == 0;
}

int genkey_main(int argc, const char *argv[])
{
    if (int rc = check_usage(argc, argv, argc == 1, ""); rc >= 0)
        return rc;
    struct stat st;
    if (!fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode) && (st.st_mode & S_IRWXO))
        fputs("Warning: writing to world accessible file.\n"
              "Consider setting the umask to 077 and trying again.\n",
              stderr);
    Key k;
    if (!generate_key(k, !strcmp(argv[0], "genkey"))) {
        fprintf(stderr, "%s: unable to initialise libsodium\n", prog_name);
        return 1;
    }
    std::string s = key_to_base64(k);
    sodium_memzero(k.data(), k.size());
    puts(s.c_str());
    sodium_memzero(s.data(), s.size());
    return 0;
}

}  // namespace wgx
