// SPDX-License-Identifier: GPL-2.0
/*
 * ping.c - ICMP echo prober for the wgx benchmark that sleeps between probes.
 *
 *   wgx-bench-ping [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [-w DEADLINE] HOST
 *
 * Sends an echo request (56 data bytes) to the IPv4 address HOST every
 * INTERVAL seconds (default 1; at least 0.001), on an absolute schedule
 * (a late probe does not shift the later ones), until COUNT requests are
 * sent (default: no limit), DEADLINE seconds have passed (default: none)
 * or SIGINT/SIGTERM arrives.  After the last request it waits up to
 * TIMEOUT seconds (default 1) for outstanding replies.  Output is a subset
 * of iputils ping's, which bench/report parses: one line per reply
 *   64 bytes from HOST: icmp_seq=N ttl=T time=MS ms
 * and a summary
 *   N packets transmitted, M received, P% packet loss, time Tms
 *   rtt min/avg/max = a/b/c ms
 *
 * Why not iputils ping: with an interval of at most 10 ms (1000 / USER_HZ)
 * it spins between a reply and its next probe, calling sched_yield() and a
 * non-blocking recvmsg() in a loop.  Under TCG that took 0.2-0.97 of the
 * guest's two vCPUs during the storm figure's "idle" pings, CPU the
 * handshakes being measured then lacked.  This prober waits in ppoll() until a reply or its next probe
 * is due.
 *
 * Needs CAP_NET_RAW (a raw ICMP socket).  Exit status 0 when at least one
 * reply arrived, 1 when none did, 2 on bad arguments or a socket error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { DATA_LEN = 56, MAX_SEQ = 65536 };

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: wgx-bench-ping [-c COUNT] [-i INTERVAL] [-W TIMEOUT] [-w DEADLINE] HOST\n");
	exit(2);
}

/* A number of seconds in [lo, hi], or exit with usage. */
static double parse_seconds(const char *s, double lo, double hi, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "wgx-bench-ping: %s must be a number from %g to %g, got '%s'\n", what, lo, hi, s);
		usage();
	}
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* RFC 1071 Internet checksum over len bytes. */
static uint16_t icmp_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

int main(int argc, char **argv)
{
	double interval = 1, timeout = 1, deadline = 0, start, next, last_sent = 0, t;
	static double sent_at[MAX_SEQ];
	static uint8_t seen[MAX_SEQ];
	double rtt_min = INFINITY, rtt_max = 0, rtt_sum = 0;
	long count = 0, sent = 0, received = 0;
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint16_t id = (uint16_t)getpid();
	struct sigaction sa = { .sa_handler = on_signal };
	int opt, fd;

	while ((opt = getopt(argc, argv, "c:i:W:w:")) != -1) {
		switch (opt) {
		case 'c':
			count = (long)parse_seconds(optarg, 1, 1e9, "-c COUNT");
			break;
		case 'i':
			interval = parse_seconds(optarg, 0.001, 3600, "-i INTERVAL");
			break;
		case 'W':
			timeout = parse_seconds(optarg, 0.001, 3600, "-W TIMEOUT");
			break;
		case 'w':
			deadline = parse_seconds(optarg, 0.001, 86400, "-w DEADLINE");
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (inet_pton(AF_INET, argv[optind], &to.sin_addr) != 1) {
		fprintf(stderr, "wgx-bench-ping: HOST must be an IPv4 address, got '%s'\n", argv[optind]);
		usage();
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		fprintf(stderr, "wgx-bench-ping: raw ICMP socket: %s\n", strerror(errno));
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	start = next = now_s();
	while (!stop) {
		uint8_t buf[1500];
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec wait;
		double until;
		ssize_t n;

		t = now_s();
		if (deadline && t - start >= deadline)
			break;
		if ((!count || sent < count) && t >= next) {
			uint8_t pkt[sizeof(struct icmphdr) + DATA_LEN] = { 0 };
			struct icmphdr *icmp = (struct icmphdr *)pkt;

			icmp->type = ICMP_ECHO;
			icmp->un.echo.id = htons(id);
			icmp->un.echo.sequence = htons((uint16_t)(sent + 1));
			icmp->checksum = icmp_checksum(pkt, sizeof(pkt));
			sent_at[(sent + 1) % MAX_SEQ] = t;
			seen[(sent + 1) % MAX_SEQ] = 0;
			if (sendto(fd, pkt, sizeof(pkt), 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
			    errno != ENOBUFS && errno != EHOSTUNREACH && errno != ENETUNREACH) {
				fprintf(stderr, "wgx-bench-ping: sendto: %s\n", strerror(errno));
				return 2;
			}
			sent++;
			last_sent = t;
			/* Absolute schedule; a probe more than one interval late is not made up. */
			next += interval;
			if (next < t)
				next = t + interval;
			continue;
		}
		if (count && sent >= count && (received >= sent || t - last_sent >= timeout))
			break;
		until = count && sent >= count ? last_sent + timeout : next;
		if (deadline && start + deadline < until)
			until = start + deadline;
		if (until < t)
			until = t;
		wait.tv_sec = (time_t)(until - t);
		wait.tv_nsec = (long)((until - t - (double)wait.tv_sec) * 1e9);
		if (ppoll(&pfd, 1, &wait, NULL) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		t = now_s();
		if (n >= (ssize_t)sizeof(struct iphdr)) {
			const struct iphdr *ip = (const struct iphdr *)buf;
			size_t hl = (size_t)ip->ihl * 4;
			const struct icmphdr *icmp = (const struct icmphdr *)(buf + hl);
			unsigned int seq;
			double rtt;

			if ((size_t)n < hl + sizeof(*icmp) || icmp->type != ICMP_ECHOREPLY ||
			    ntohs(icmp->un.echo.id) != id || ip->saddr != to.sin_addr.s_addr)
				continue;
			seq = ntohs(icmp->un.echo.sequence);
			/* Only a reply to a request of this run, once (sequence
			 * numbers are 16 bits: past 65,535 probes, the latest). */
			if (!seq || (sent < MAX_SEQ && seq > (unsigned long)sent) || seen[seq % MAX_SEQ])
				continue;
			seen[seq % MAX_SEQ] = 1;
			rtt = (t - sent_at[seq % MAX_SEQ]) * 1e3;
			received++;
			rtt_sum += rtt;
			if (rtt < rtt_min)
				rtt_min = rtt;
			if (rtt > rtt_max)
				rtt_max = rtt;
			printf("%zd bytes from %s: icmp_seq=%u ttl=%u time=%.3f ms\n", n - (ssize_t)hl, argv[optind], seq,
			       ip->ttl, rtt);
		}
	}
	printf("\n--- %s wgx-bench-ping statistics ---\n", argv[optind]);
	printf("%ld packets transmitted, %ld received, %.0f%% packet loss, time %.0fms\n", sent, received,
	       sent ? 100.0 * (double)(sent - received) / (double)sent : 0.0, (now_s() - start) * 1e3);
	if (received)
		printf("rtt min/avg/max = %.3f/%.3f/%.3f ms\n", rtt_min, rtt_sum / (double)received, rtt_max);
	close(fd);
	return received ? 0 : 1;
}
