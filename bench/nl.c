// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c - wgx-bench-nl, the benchmark's generic netlink helper, for the
 * handshake and many-peers workloads.  FAMILY is "wireguard" or "wgx": both
 * use the same commands and attribute numbers (<linux/wireguard.h>,
 * include/uapi/linux/wgx.h), which is all this program relies on.
 *
 *   wgx-bench-nl wait FAMILY IFNAME PEERS TIMEOUT CMD [ARG...]
 *       Read every peer's latest handshake time on IFNAME, start CMD (which
 *       makes the initiators initiate, e.g. `ip -n a -batch up.batch`), then
 *       poll IFNAME every 5 ms until PEERS peers have a new latest handshake
 *       time or TIMEOUT seconds (1..600) pass.  A responder records that time
 *       when the first transport data packet of the new session arrives, so a
 *       peer counts once its handshake is complete on both sides.  Prints
 *         {"peers":M,"listed":L,"completed":C,"seconds":S,"p50_seconds":S50,
 *          "polls":N,"cmd_exit":X}
 *       S: from starting CMD to the last completion (to the timeout when
 *       C < M); S50: to the median completion.  CMD's output goes to stderr.
 *
 *   wgx-bench-nl setup FAMILY FILE
 *       Configure many single-peer devices in one process (instead of one
 *       tool run per device, which costs a second under TCG).  FILE lines:
 *         IFNAME PRIVATE_KEY_HEX PEER_PUBLIC_KEY_HEX ENDPOINT_IPV4 PORT KEEPALIVE_S
 *       The peer gets the endpoint, persistent keepalive and no allowed IPs.
 *       Prints {"devices":N}.
 *
 *   wgx-bench-nl count FAMILY IFNAME
 *       Prints {"peers":N}: how many peers GET_DEVICE lists for IFNAME.
 *
 * Errors: {"error":"..."} on stdout, exit status 1 (no such family or
 * device, malformed FILE line, the kernel refused a SET_DEVICE, fewer peers
 * listed than PEERS).  Exit 2: usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Commands and attribute numbers shared by WireGuard's and wgx's uapi. */
enum { CMD_GET_DEVICE = 0, CMD_SET_DEVICE = 1 };
enum { DEV_A_IFNAME = 2, DEV_A_PRIVATE_KEY = 3, DEV_A_PEERS = 8 };
enum {
	PEER_A_PUBLIC_KEY = 1,
	PEER_A_ENDPOINT = 4,
	PEER_A_PERSISTENT_KEEPALIVE_INTERVAL = 5,
	PEER_A_LAST_HANDSHAKE_TIME = 6,
};

#define KEY_LEN 32
#define MAX_PEERS 65536

static int nl_fd;
static uint32_t nl_seq;
static uint16_t family;

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
			*p = ' ';
	printf("{\"error\":\"%s\"}\n", msg);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- message building ---------------------------------------------------- */

struct msg {
	char buf[4096];
	size_t len;
};

static void msg_init(struct msg *m, uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)m->buf;
	struct genlmsghdr *gh = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);

	memset(m->buf, 0, sizeof(m->buf));
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | flags;
	nh->nlmsg_seq = ++nl_seq;
	gh->cmd = cmd;
	gh->version = 1;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

static struct nlattr *put(struct msg *m, uint16_t type, const void *data, size_t dlen)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);

	if (m->len + NLA_ALIGN(NLA_HDRLEN + dlen) > sizeof(m->buf))
		fail("netlink message too long");
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + dlen);
	if (dlen)
		memcpy((char *)a + NLA_HDRLEN, data, dlen);
	m->len += NLA_ALIGN(a->nla_len);
	return a;
}

static struct nlattr *nest_start(struct msg *m, uint16_t type)
{
	return put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m, struct nlattr *a)
{
	a->nla_len = (uint16_t)(m->buf + m->len - (char *)a);
}

static void msg_send(struct msg *m)
{
	((struct nlmsghdr *)m->buf)->nlmsg_len = (uint32_t)m->len;
	if (send(nl_fd, m->buf, m->len, 0) < 0)
		fail("netlink send: %s", strerror(errno));
}

/* ---- replies --------------------------------------------------------------- */

typedef void (*msg_fn)(const char *attrs, size_t len, void *ctx);

/*
 * Receive the replies to the last request: until NLMSG_DONE for a dump, else
 * until the first message or ACK.  Returns 0 or the kernel's -errno.
 */
static int msg_recv(msg_fn fn, void *ctx, int dump)
{
	static char buf[1 << 16];
	ssize_t n;

	for (;;) {
		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("netlink recv: %s", strerror(errno));
		}
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != nl_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (e->error || !dump)
					return e->error;
				continue;
			}
			if (fn && nh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN)
				fn((const char *)NLMSG_DATA(nh) + GENL_HDRLEN,
				   nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, ctx);
			if (!dump)
				return 0;
		}
	}
}

#define FOR_ATTRS(a, start, len)                                                  \
	for (const struct nlattr *a = (const struct nlattr *)(start);              \
	     (const char *)a + NLA_HDRLEN <= (const char *)(start) + (len) &&      \
	     a->nla_len >= NLA_HDRLEN &&                                           \
	     (const char *)a + a->nla_len <= (const char *)(start) + (len);        \
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))
#define ATTR_DATA(a) ((const char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a) ((size_t)(a)->nla_len - NLA_HDRLEN)
#define ATTR_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)

static void family_cb(const char *attrs, size_t len, void *ctx)
{
	FOR_ATTRS(a, attrs, len) {
		if (ATTR_TYPE(a) == CTRL_ATTR_FAMILY_ID && ATTR_LEN(a) >= 2)
			memcpy(ctx, ATTR_DATA(a), 2);
	}
}

static void nl_open(const char *name)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct msg m;
	int err;

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail("netlink socket: %s", strerror(errno));
	msg_init(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	put(&m, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	msg_send(&m);
	err = msg_recv(family_cb, &family, 0);
	if (err || !family)
		fail("no generic netlink family %s (module not loaded?)", name);
}

/* ---- GET_DEVICE: peers and their latest handshake ----------------------- */

struct peer {
	unsigned char key[KEY_LEN];
	int64_t sec, nsec;	/* latest handshake before CMD */
	double done;		/* seconds after CMD start when it changed; < 0: not yet */
};

struct dump_ctx {
	struct peer *peers;	/* NULL: only count */
	size_t npeers;
	int before;		/* 1: record peers[], 0: compare with them */
	double t;		/* poll time, seconds after CMD start */
	size_t listed;
};

static void peer_seen(struct dump_ctx *c, const unsigned char *key, int64_t sec, int64_t nsec)
{
	struct peer *p = NULL;

	c->listed++;
	if (!c->peers)
		return;
	for (size_t i = 0; i < c->npeers; i++)
		if (!memcmp(c->peers[i].key, key, KEY_LEN))
			p = &c->peers[i];
	if (c->before) {
		if (p || c->npeers == MAX_PEERS)
			return;
		p = &c->peers[c->npeers++];
		memcpy(p->key, key, KEY_LEN);
		p->sec = sec;
		p->nsec = nsec;
		p->done = -1;
	} else if (p && p->done < 0 && (sec || nsec) && (sec != p->sec || nsec != p->nsec)) {
		p->done = c->t;
	}
}

static void device_cb(const char *attrs, size_t len, void *ctx)
{
	FOR_ATTRS(a, attrs, len) {
		if (ATTR_TYPE(a) != DEV_A_PEERS)
			continue;
		FOR_ATTRS(pa, ATTR_DATA(a), ATTR_LEN(a)) {
			const unsigned char *key = NULL;
			int64_t ts[2] = { 0, 0 };

			FOR_ATTRS(f, ATTR_DATA(pa), ATTR_LEN(pa)) {
				if (ATTR_TYPE(f) == PEER_A_PUBLIC_KEY && ATTR_LEN(f) == KEY_LEN)
					key = (const unsigned char *)ATTR_DATA(f);
				else if (ATTR_TYPE(f) == PEER_A_LAST_HANDSHAKE_TIME &&
					 ATTR_LEN(f) == sizeof(ts))
					memcpy(ts, ATTR_DATA(f), sizeof(ts));
			}
			if (key)
				peer_seen(ctx, key, ts[0], ts[1]);
		}
	}
}

static size_t dump(const char *ifname, struct dump_ctx *c)
{
	struct msg m;
	int err;

	c->listed = 0;
	msg_init(&m, family, NLM_F_DUMP, CMD_GET_DEVICE);
	put(&m, DEV_A_IFNAME, ifname, strlen(ifname) + 1);
	msg_send(&m);
	err = msg_recv(device_cb, c, 1);
	if (err)
		fail("cannot read device %s: %s", ifname, strerror(-err));
	return c->listed;
}

static long parse_long(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !*s || *end || v < lo || v > hi)
		fail("%s must be %ld..%ld, got '%s'", what, lo, hi, s);
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmd_wait(char **argv)
{
	const char *ifname = argv[1];
	long want = parse_long(argv[2], 1, MAX_PEERS, "PEERS");
	long timeout = parse_long(argv[3], 1, 600, "TIMEOUT");
	struct dump_ctx c = { .before = 1 };
	double t0, last = 0, p50 = 0, *times;
	size_t done = 0, polls = 0, listed;
	int status = 0;
	pid_t pid;

	c.peers = calloc(MAX_PEERS, sizeof(*c.peers));
	times = calloc(MAX_PEERS, sizeof(*times));
	if (!c.peers || !times)
		fail("out of memory");
	listed = dump(ifname, &c);
	if (listed < (size_t)want)
		fail("%s: GET_DEVICE lists %zu peers, expected %ld", ifname, listed, want);
	c.before = 0;

	fflush(stdout);
	t0 = now_s();
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(2, 1);
		execvp(argv[4], argv + 4);
		fprintf(stderr, "wgx-bench-nl: cannot run %s: %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	for (;;) {
		struct timespec pause = { 0, 5000000 };

		c.t = now_s() - t0;
		dump(ifname, &c);
		polls++;
		done = 0;
		for (size_t i = 0; i < c.npeers; i++)
			done += c.peers[i].done >= 0;
		if (done >= (size_t)want || c.t >= (double)timeout)
			break;
		nanosleep(&pause, NULL);
	}
	waitpid(pid, &status, 0);

	done = 0;
	for (size_t i = 0; i < c.npeers; i++)
		if (c.peers[i].done >= 0)
			times[done++] = c.peers[i].done;
	if (done) {
		qsort(times, done, sizeof(*times), cmp_double);
		last = times[done - 1];
		p50 = times[(done - 1) / 2];
	}
	printf("{\"peers\":%ld,\"listed\":%zu,\"completed\":%zu,\"seconds\":%.4f,"
	       "\"p50_seconds\":%.4f,\"polls\":%zu,\"cmd_exit\":%d}\n",
	       want, listed, done, done >= (size_t)want ? last : c.t, p50, polls,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

static int hex_key(const char *hex, unsigned char *key)
{
	unsigned int byte;

	if (strlen(hex) != 2 * KEY_LEN)
		return -1;
	for (int i = 0; i < KEY_LEN; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -1;
		key[i] = (unsigned char)byte;
	}
	return 0;
}

static int cmd_setup(char **argv)
{
	char line[512], ifname[64], priv_hex[80], pub_hex[80], ip[64];
	unsigned char priv[KEY_LEN], pub[KEY_LEN];
	unsigned int port, keepalive;
	size_t lineno = 0, devices = 0;
	FILE *f = fopen(argv[1], "r");

	if (!f)
		fail("%s: %s", argv[1], strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct sockaddr_in sin = { .sin_family = AF_INET };
		struct nlattr *peers, *peer;
		struct msg m;
		uint16_t ka;
		int err;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %79s %79s %63s %u %u", ifname, priv_hex, pub_hex, ip,
			   &port, &keepalive) != 6 || hex_key(priv_hex, priv) || hex_key(pub_hex, pub) ||
		    inet_pton(AF_INET, ip, &sin.sin_addr) != 1 || port < 1 || port > 65535 ||
		    keepalive > 65535)
			fail("%s:%zu: expected IFNAME PRIVKEY_HEX PUBKEY_HEX IPV4 PORT KEEPALIVE",
			     argv[1], lineno);
		sin.sin_port = htons((uint16_t)port);
		ka = (uint16_t)keepalive;

		msg_init(&m, family, NLM_F_ACK, CMD_SET_DEVICE);
		put(&m, DEV_A_IFNAME, ifname, strlen(ifname) + 1);
		put(&m, DEV_A_PRIVATE_KEY, priv, KEY_LEN);
		peers = nest_start(&m, DEV_A_PEERS);
		peer = nest_start(&m, 0);
		put(&m, PEER_A_PUBLIC_KEY, pub, KEY_LEN);
		put(&m, PEER_A_ENDPOINT, &sin, sizeof(sin));
		put(&m, PEER_A_PERSISTENT_KEEPALIVE_INTERVAL, &ka, sizeof(ka));
		nest_end(&m, peer);
		nest_end(&m, peers);
		msg_send(&m);
		err = msg_recv(NULL, NULL, 0);
		if (err)
			fail("SET_DEVICE %s: %s", ifname, strerror(-err));
		devices++;
	}
	fclose(f);
	printf("{\"devices\":%zu}\n", devices);
	return 0;
}

static int cmd_count(char **argv)
{
	struct dump_ctx c = { 0 };

	printf("{\"peers\":%zu}\n", dump(argv[1], &c));
	return 0;
}

static int __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: wgx-bench-nl wait FAMILY IFNAME PEERS TIMEOUT CMD [ARG...]\n"
			"       wgx-bench-nl setup FAMILY FILE\n"
			"       wgx-bench-nl count FAMILY IFNAME\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "wait") && argc >= 7) {
		nl_open(argv[2]);
		return cmd_wait(argv + 2);
	}
	if (!strcmp(argv[1], "setup") && argc == 4) {
		nl_open(argv[2]);
		return cmd_setup(argv + 2);
	}
	if (!strcmp(argv[1], "count") && argc == 4) {
		nl_open(argv[2]);
		return cmd_count(argv + 2);
	}
	usage();
}
