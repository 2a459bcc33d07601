/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kunit_util.h - small helpers shared by the wgx KUnit suites (tests/kunit/).
 *
 * The suites are linked into a test build of wgx.ko (scripts/test-kernel
 * --kunit-module) and run when that module is loaded in the test kernel;
 * scripts/kunit collects their KTAP output from the kernel log.
 */
#ifndef WGX_KUNIT_UTIL_H
#define WGX_KUNIT_UTIL_H

#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <net/checksum.h>

#include <wgx/platform.h>

/*
 * The suites run before the module's init: a suite whose cases make
 * allowed-IPs tables sets the platform's node cache up itself
 * (.suite_init / .suite_exit).
 */
static inline int wgx_kunit_platform_init(struct kunit_suite *suite)
{
	return wgx_platform_init();
}

static inline void wgx_kunit_platform_exit(struct kunit_suite *suite)
{
	rcu_barrier();		/* the deferred node frees of the suite's cases */
	wgx_platform_exit();
}

/**
 * wgx_kunit_hex - decode the hex string @hex into a kunit-managed buffer
 * (freed with the test).  *@len gets the byte count.  Fails the test (and
 * returns NULL) on an odd length, a non-hex digit or out of memory.
 */
static inline u8 *wgx_kunit_hex(struct kunit *test, const char *hex, size_t *len)
{
	size_t n = strlen(hex);
	u8 *buf;

	if (n % 2) {
		KUNIT_FAIL(test, "odd-length hex string");
		return NULL;
	}
	buf = kunit_kzalloc(test, n / 2 + 1, GFP_KERNEL);
	if (!buf) {
		KUNIT_FAIL(test, "out of memory");
		return NULL;
	}
	if (hex2bin(buf, hex, n / 2)) {
		KUNIT_FAIL(test, "bad hex digit in a vector");
		return NULL;
	}
	*len = n / 2;
	return buf;
}

/** wgx_kunit_seq - @n bytes 00 01 02 ... (mod 256) in a kunit-managed buffer. */
static inline u8 *wgx_kunit_seq(struct kunit *test, size_t n, u8 first)
{
	u8 *buf = kunit_kzalloc(test, n + 1, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	for (i = 0; i < n; i++)
		buf[i] = (u8)(first + i);
	return buf;
}

/**
 * wgx_kunit_ipv4_header - write a 20-byte IPv4 header (no options, TTL 64,
 * no fragmentation fields) with a valid header checksum over @iph.
 * @tot_len: total length in bytes (header included); @saddr/@daddr in host
 * byte order.
 */
static inline void wgx_kunit_ipv4_header(struct iphdr *iph, u8 protocol, u8 tos,
					 unsigned int tot_len, u32 saddr, u32 daddr)
{
	memset(iph, 0, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->tot_len = htons(tot_len);
	iph->ttl = 64;
	iph->protocol = protocol;
	iph->saddr = htonl(saddr);
	iph->daddr = htonl(daddr);
	iph->check = ip_fast_csum(iph, iph->ihl);
}

static inline bool wgx_kunit_all_zero(const void *p, size_t n)
{
	return !memchr_inv(p, 0, n);
}

/*
 * WGX_KUNIT_EXPECT_MEMEQ - byte equality with the first difference in the
 * message (6.1 has no KUNIT_EXPECT_MEMEQ).
 */
#define WGX_KUNIT_EXPECT_MEMEQ(test, a, b, n)					\
	do {									\
		const u8 *__a = (const u8 *)(a), *__b = (const u8 *)(b);	\
		size_t __n = (n), __i;						\
										\
		for (__i = 0; __i < __n && __a[__i] == __b[__i]; __i++)		\
			;							\
		KUNIT_EXPECT_TRUE_MSG(test, __i == __n,				\
				      "%s != %s: first difference at byte %zu of %zu (%02x vs %02x)", \
				      #a, #b, __i, __n,				\
				      __i < __n ? __a[__i] : 0, __i < __n ? __b[__i] : 0); \
	} while (0)

#endif /* WGX_KUNIT_UTIL_H */
