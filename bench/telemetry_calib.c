/* bench/telemetry_calib.c - scalar calibration for the telemetry cost figure
 * (docs/telemetry.md, "Cost"): header reads, a TCP option walk, integer hash
 * mixing and one atomic, the kind of work the telemetry hooks do.  Run it
 * natively and in the TCG guest; the ratio of the two times is TCG's slowdown
 * for such code.  Prints the best of five runs, ns per iteration.
 *
 *   gcc -O2 -o build/telemetry-calib bench/telemetry_calib.c
 *   build/telemetry-calib 20000000                      # native
 *   scripts/vm -- build/telemetry-calib 200000          # TCG guest */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>

static uint8_t pkt[1420];
static volatile uint32_t sink;
static uint32_t counter;

static inline uint32_t rol(uint32_t x, int k) { return x << k | x >> (32 - k); }

static __attribute__((noinline)) uint32_t work(const uint8_t *p)
{
	uint8_t hdr[60];
	uint32_t a, b, c, tsval = 0;
	unsigned int i, thlen;

	memcpy(hdr, p, 20);
	if ((hdr[0] >> 4) != 4 || hdr[9] != 6)
		return 0;
	memcpy(hdr, p + 20, 20);
	thlen = (hdr[12] >> 4) * 4;
	memcpy(hdr, p + 20, thlen);
	for (i = 20; i < thlen;) {
		if (hdr[i] == 0) break;
		if (hdr[i] == 1) { i++; continue; }
		if (hdr[i] == 8 && hdr[i + 1] == 10) { memcpy(&tsval, hdr + i + 2, 4); break; }
		i += hdr[i + 1] ? hdr[i + 1] : 1;
	}
	a = b = c = 0xdeadbeef + 12;
	memcpy(&a, p + 12, 4); memcpy(&b, p + 16, 4); memcpy(&c, p + 20, 4);
	c ^= b; c -= rol(b, 14); a ^= c; a -= rol(c, 11); b ^= a; b -= rol(a, 25);
	c ^= b; c -= rol(b, 16); a ^= c; a -= rol(c, 4);  b ^= a; b -= rol(a, 14);
	__atomic_fetch_add(&counter, 1, __ATOMIC_ACQ_REL);
	return c ^ tsval;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 20000000UL, i;
	struct timespec t0, t1;
	double best = 1e30;

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45; pkt[9] = 6; pkt[32] = 0x80;
	pkt[40] = 1; pkt[41] = 1; pkt[42] = 8; pkt[43] = 10;
	for (int r = 0; r < 5; r++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < n; i++)
			sink = work(pkt);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
		if (ns < best) best = ns;
	}
	printf("calib_ns_per_iter %.2f\n", best);
	return 0;
}
