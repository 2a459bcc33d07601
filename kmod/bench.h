/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - the crypto ceiling: an on-demand measurement of the kernel's
 * chacha20poly1305_encrypt() (lib/crypto) on 1420-byte buffers, one kernel
 * thread per online CPU, so benchmarks can state tunnel goodput as a fraction
 * of what the cipher alone can do on the same vCPUs (docs/performance.md).
 *
 * Off by default: nothing runs until a number is written to
 * /sys/kernel/debug/wgx/crypto_ceiling.  Only in the debug build (WGX_DEBUG,
 * kmod/Kbuild); a release module has no such file.
 *
 *   echo N > crypto_ceiling   run for N seconds (1..60) on every online CPU;
 *                             the write returns when the run is over
 *                             (-EINTR if a signal cut it short, -EBUSY if a
 *                             run is already going, -EINVAL for bad N)
 *   cat crypto_ceiling        the last run's figures, one "key value" per
 *                             line: "cpu <n> bytes_per_s <B> packets_per_s <P>"
 *                             per CPU and "total bytes_per_s <B> packets_per_s <P>"
 *                             (bytes are plaintext bytes encrypted, 1420 per packet)
 */
#ifndef WGX_BENCH_H
#define WGX_BENCH_H

#ifdef WGX_DEBUG

/**
 * wgx_bench_init - create /sys/kernel/debug/wgx/crypto_ceiling.
 *
 * Process context (module init).  Returns 0, or -ENOMEM.  A kernel without
 * debugfs is not an error: the file is simply absent.
 */
int wgx_bench_init(void);

/**
 * wgx_bench_uninit - remove the debugfs file (and wgx/ if bench created it).
 *
 * Process context (module exit).  Waits for a running measurement to end.
 * If another part of the module created debugfs wgx/ first, call this before
 * that part removes the directory.
 */
void wgx_bench_uninit(void);

#else /* release build: no crypto ceiling */

static inline int wgx_bench_init(void)
{
	return 0;
}

static inline void wgx_bench_uninit(void)
{
}

#endif /* WGX_DEBUG */

#endif /* WGX_BENCH_H */
