/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the time base every file of the glue shares: the core's clock
 * and, in the debug build, the test-only divisor of protocol times.  A leaf:
 * it includes nothing of wgx, so the lowest files (telemetry, pmtu) read the
 * time without depending on the timers above them.
 */
#ifndef WGX_CLOCK_H
#define WGX_CLOCK_H

#include <linux/ktime.h>
#include <linux/types.h>

/**
 * wgx_clock_ns - the monotonic clock of the core: boot time in ns (it goes
 * on during a suspend, as the protocol's timers must).  Any context.
 */
static inline u64 wgx_clock_ns(void)
{
	return ktime_get_boottime_ns();
}

#ifdef WGX_DEBUG
/*
 * Test-only divisor of every protocol time (module parameter timer_scale,
 * clock.c; 1 = real, never 0: module init turns 0 into 1).  Set at load
 * only.
 */
extern unsigned int wgx_timer_scale;
#else
/* Release build (kmod/Kbuild): the protocol's own times, no divisor. */
#define wgx_timer_scale 1U
#endif

#endif /* WGX_CLOCK_H */
