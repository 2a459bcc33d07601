/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs.h - /sys/kernel/debug/wgx/: the module's statistics and the
 * switches it decides itself, for tests and the bench's A/B runs.  Not a
 * user interface: nothing here is needed to run a tunnel, every file is
 * root's (0400 statistics, 0600 switches), and the set may change between
 * versions.
 *
 *   bql                    0/1, default 0: byte queue limits on the tx rings
 *   lane_inline            0/1, default 1: small lane packets sent at once
 *   tcp_telemetry          0/1, default 1: the inner TCP hooks of telemetry
 *   handshake_nice         -20..19, default 10: the handshake threads' nice
 *   precompute_stats       the counters of the X25519 work made ahead (one line)
 *
 * Debug builds (WGX_DEBUG) add crypto_ceiling and telemetry_cost (bench.h,
 * telemetry_bench.h) to the same directory.
 */
#ifndef WGX_DEBUGFS_H
#define WGX_DEBUGFS_H

/**
 * wgx_debugfs_init - make the directory and its files.  Process context, at
 * module load, before the debug builds' micro-benchmarks add theirs.  A
 * kernel without debugfs is not an error: the switches keep their defaults.
 */
void wgx_debugfs_init(void);

/** wgx_debugfs_exit - remove them; waits for a read or write in progress. */
void wgx_debugfs_exit(void);

#endif /* WGX_DEBUGFS_H */
