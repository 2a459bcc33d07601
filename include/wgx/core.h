/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/core.h - the extern "C" boundary between the kernel glue (the C files
 * in kmod/) and the freestanding C++ protocol core (the C++ files in kmod/core/).
 *
 * An umbrella: one header per core module, each documenting its functions.
 *   wgx/types.h        fixed-width types, error numbers, address families
 *   wgx/platform.h     what the core needs from its host (crypto, memory)
 *   wgx/messages.h     message types, sizes and wire layouts (whitepaper 5.4)
 *   wgx/noise.h        identity, handshake state, initiation and response (5.4)
 *   wgx/cookie.h       MAC1/MAC2 and cookie replies (5.3, 5.4.4, 5.4.7)
 *   wgx/transport.h    counter limits, padding, transport header (5.4.6, 6.1)
 *   wgx/replay.h       replay window of a receiving key (RFC 6479)
 *   wgx/allowedips.h   cryptokey routing table (section 2)
 *   wgx/ratelimiter.h  per-source handshake ratelimiter
 *   wgx/timers.h       the per-peer timer state machine (6.1-6.5)
 *   wgx/tcpseg.h       inner TCP segment headers for telemetry (RFC 9293, 7323)
 * The entry points only tests use are in wgx/core_test.h, which this header
 * does not include.
 *
 * Only opaque handles, plain C structs, byte buffers, int (0 or -errno) and
 * bool cross this line.  The core is single-threaded logic: every function
 * is called with whatever lock the glue documents for that object held,
 * never sleeps, and takes time as an argument (nanoseconds of a monotonic
 * clock unless stated).  Protocol terms and constants follow the WireGuard
 * whitepaper (Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s); section numbers refer
 * to it.  The rules of the boundary are in docs/architecture.md.
 */
#ifndef WGX_CORE_H
#define WGX_CORE_H

#include "types.h"
#include "platform.h"
#include "messages.h"
#include "noise.h"
#include "cookie.h"
#include "transport.h"
#include "replay.h"
#include "allowedips.h"
#include "ratelimiter.h"
#include "timers.h"
#include "tcpseg.h"

#endif /* WGX_CORE_H */
