// SPDX-License-Identifier: GPL-2.0
/*
 * rr.c - TCP request/response latency probe for the wgx benchmark.
 *
 *   wgx-bench-rr server PORT [TOS]
 *       accept connections on PORT (IPv4 and IPv6), echo every byte back;
 *       one child process per connection; runs until killed.
 *   wgx-bench-rr client HOST PORT SECONDS SIZE [TOS]
 *       one connection with TCP_NODELAY; for SECONDS (1..600) send a SIZE-byte
 *       request (1..65536 bytes) and wait for the whole SIZE-byte echo, one
 *       transaction at a time; print one JSON object:
 *       {"transactions":N,"seconds":S,"per_second":R,"p50_us":..,"p99_us":..,"max_us":..}
 *       (percentiles by nearest rank over every transaction's round trip, µs).
 *
 * TOS (0..255, decimal or 0x hex; default 0) is the IPv4 TOS byte / IPv6
 * traffic class of the connection's packets (IP_TOS and IPV6_TCLASS): the
 * DSCP marking of the benchmark's priority lane probes, e.g. 0xb8 for EF.
 * The server marks its listening socket (SYN-ACK) and every accepted one.
 *
 * Exit status 0, or 1 with a message on stderr (bad arguments, connect or
 * I/O failure, 10 s without progress on connect, a read or a write, no
 * transaction completed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "wgx-bench-rr: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: wgx-bench-rr server PORT [TOS]\n"
			"       wgx-bench-rr client HOST PORT SECONDS SIZE [TOS]\n");
	exit(1);
}

/* Parse a decimal in [lo, hi] or exit with usage. */
static long parse_num(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "wgx-bench-rr: %s must be an integer in %ld..%ld, got '%s'\n",
			what, lo, hi, s);
		exit(1);
	}
	return v;
}

/* TOS argument: 0..255, decimal or 0x-prefixed hex; NULL means 0. */
static int parse_tos(const char *s)
{
	char *end;
	long v;

	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0' || v < 0 || v > 255) {
		fprintf(stderr, "wgx-bench-rr: TOS must be an integer in 0..255 (e.g. 0xb8), got '%s'\n", s);
		exit(1);
	}
	return (int)v;
}

/*
 * Mark @fd's packets with @tos: IP_TOS for IPv4 (including IPv4-mapped
 * connections of an IPv6 socket), IPV6_TCLASS for IPv6.  The option of the
 * other family may fail; one of the two must succeed.
 */
static void set_tos(int fd, int tos)
{
	int ok4, ok6;

	if (!tos)
		return;
	ok4 = setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) == 0;
	ok6 = setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) == 0;
	if (!ok4 && !ok6)
		die("setsockopt IP_TOS/IPV6_TCLASS");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void __attribute__((noreturn)) echo_loop(int fd)
{
	char buf[65536];
	ssize_t n, off, w;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			_exit(0);
		for (off = 0; off < n; off += w) {
			w = write(fd, buf + off, (size_t)(n - off));
			if (w <= 0)
				_exit(0);
		}
	}
}

static void __attribute__((noreturn)) run_server(const char *port, int tos)
{
	int one = 1, zero = 0, fd, c;
	struct sockaddr_in6 sa;

	parse_num(port, 1, 65535, "PORT");
	signal(SIGCHLD, SIG_IGN); /* children reap themselves */
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	set_tos(fd, tos); /* the SYN-ACK */
	memset(&sa, 0, sizeof(sa));
	sa.sin6_family = AF_INET6;
	sa.sin6_addr = in6addr_any;
	sa.sin6_port = htons((uint16_t)atoi(port));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("bind");
	if (listen(fd, 64) < 0)
		die("listen");
	for (;;) {
		c = accept(fd, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		set_tos(c, tos);
		switch (fork()) {
		case -1:
			die("fork");
		case 0:
			close(fd);
			echo_loop(c);
		default:
			close(c);
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile q/100 of sorted v[0..n). */
static uint64_t pct(const uint64_t *v, size_t n, unsigned int q)
{
	size_t rank = (n * q + 99) / 100;

	return v[rank ? rank - 1 : 0];
}

static int run_client(const char *host, const char *port, const char *secs, const char *size,
		      int tos)
{
	struct addrinfo hints, *ai, *p;
	uint64_t *lat = NULL, start, deadline, t0, t1;
	size_t n = 0, cap = 0, len, off;
	long seconds, sz;
	char *req, *rsp;
	int fd = -1, one = 1, rc;
	ssize_t r;

	seconds = parse_num(secs, 1, 600, "SECONDS");
	sz = parse_num(size, 1, 65536, "SIZE");
	parse_num(port, 1, 65535, "PORT");
	len = (size_t)sz;
	req = malloc(len);
	rsp = malloc(len);
	if (!req || !rsp)
		die("malloc");
	memset(req, 'r', len);

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "wgx-bench-rr: %s: %s\n", host, gai_strerror(rc));
		return 1;
	}
	for (p = ai; p; p = p->ai_next) {
		/* A dead path must end the run, not hang it: 10 s for connect and
		 * for every read or write. */
		struct timeval tv = { .tv_sec = 10 };

		fd = socket(p->ai_family, p->ai_socktype, p->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		/* Before connect: the handshake is marked too. */
		set_tos(fd, tos);
		if (connect(fd, p->ai_addr, p->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

	start = now_ns();
	deadline = start + (uint64_t)seconds * 1000000000u;
	for (t0 = start; t0 < deadline; t0 = t1) {
		for (off = 0; off < len; off += (size_t)r) {
			r = write(fd, req + off, len - off);
			if (r <= 0)
				die("write");
		}
		for (off = 0; off < len; off += (size_t)r) {
			r = read(fd, rsp + off, len - off);
			if (r < 0)
				die("read");
			if (r == 0) {
				fprintf(stderr, "wgx-bench-rr: server closed the connection\n");
				return 1;
			}
		}
		t1 = now_ns();
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			lat = realloc(lat, cap * sizeof(*lat));
			if (!lat)
				die("realloc");
		}
		lat[n++] = t1 - t0;
	}
	close(fd);
	if (!n) {
		fprintf(stderr, "wgx-bench-rr: no transaction completed\n");
		return 1;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	{
		double elapsed = (double)(t0 - start) / 1e9;

		printf("{\"transactions\":%zu,\"seconds\":%.3f,\"per_second\":%.1f,"
		       "\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f}\n",
		       n, elapsed, (double)n / elapsed, pct(lat, n, 50) / 1e3,
		       pct(lat, n, 99) / 1e3, lat[n - 1] / 1e3);
	}
	free(lat);
	free(req);
	free(rsp);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "server"))
		run_server(argv[2], parse_tos(argc == 4 ? argv[3] : NULL));
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "client"))
		return run_client(argv[2], argv[3], argv[4], argv[5],
				  parse_tos(argc == 7 ? argv[6] : NULL));
	usage();
}
