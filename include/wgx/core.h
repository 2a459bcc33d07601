/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/core.h - the extern "C" boundary between the kernel glue (kmod/*.c) and
 * the freestanding C++ protocol core (kmod/core/*.cpp).
 *
 * Only opaque handles, plain C structs, byte buffers, int (0 or -errno) and
 * bool cross this line.  The core is single-threaded logic: every function
 * below is called with whatever lock the glue documents for that object held,
 * never sleeps, and takes time as an argument (nanoseconds of a monotonic
 * clock unless stated).  Protocol terms and constants follow the WireGuard
 * whitepaper (Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s); section numbers refer
 * to it.
 */
#ifndef WGX_CORE_H
#define WGX_CORE_H

#include "types.h"
#include "platform.h"

WGX_EXTERN_C_BEGIN

/* ==== messages, noise handshake, cookies, transport (kmod/core/{messages,noise,cookie,transport}) ==== */

/* ==== end messages/noise/cookie/transport ==== */

/* ==== replay window, allowed IPs, ratelimiter, timers (kmod/core/{replay,allowedips,ratelimiter,timers}) ==== */

/* ==== end replay/allowedips/ratelimiter/timers ==== */

WGX_EXTERN_C_END

#endif /* WGX_CORE_H */
