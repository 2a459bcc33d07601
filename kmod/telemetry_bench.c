// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry_bench.c - the per-packet cost of the TCP telemetry hooks against
 * the cipher (see telemetry_bench.h for the interface and the cases).
 *
 * Each case runs its iterations in chunks; a chunk runs with bottom halves
 * off (the datapath's context, and no softirq lands in the timed span) and
 * is timed with ktime_get_ns(); between chunks the thread may reschedule,
 * outside the timed spans.  The five runs interleave the cases (run 1 of
 * every case, then run 2, ...) so that a slow phase of the host (under TCG,
 * other guests) falls on all cases rather than on one.  The telemetry state
 * is a private struct wgx_telemetry: no peer, no device.  Runs are
 * serialised by tb_lock.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/uaccess.h>
#include <net/tcp.h>
#include <crypto/chacha20poly1305.h>

#include "telemetry.h"
#include "telemetry_bench.h"
#include "timers.h"

#define TB_TCP_LEN 1420U	/* inner IPv4 packet: 20 IP + 32 TCP + 1368 payload */
#define TB_TCP_HDR 32U		/* TCP header with NOP, NOP, timestamps */
#define TB_UDP_PAYLOAD 64U
#define TB_UDP_LEN (20U + 8U + TB_UDP_PAYLOAD)	/* 92 */
#define TB_UDP_PADDED 96U	/* TB_UDP_LEN padded to 16 */
#define TB_RUNS 5
#define TB_MIN_ITERS 1000U
#define TB_MAX_ITERS 10000000U
#define TB_CRYPTO_DIV 64U	/* the cipher cases run N / this iterations */
#define TB_CRYPTO_MIN 16U
#define TB_CHUNK 4096U		/* hook iterations per timed chunk */
#define TB_CRYPTO_CHUNK 8U	/* cipher iterations per timed chunk */
/* The sampled flow: a -> b, 10.0.0.1:40000 -> 10.0.0.2:5201. */
#define TB_SPORT 40000U
#define TB_DPORT 5201U
#define TB_TSVAL 100000U

enum tb_case {
	TB_LOOP,
	TB_TX_DUE,
	TB_TX_TCP_HOOK,
	TB_TX_TCP_SAMPLED,
	TB_TX_UDP_HOOK,
	TB_TX_UDP_SAMPLED,
	TB_RX_IDLE,
	TB_RX_TCP_PENDING,
	TB_RX_TCP_ECHO,
	TB_RX_UDP_PENDING,
	TB_ENC_TCP,
	TB_DEC_TCP,
	TB_ENC_UDP,
	TB_DEC_UDP,
	TB_NCASES
};

static const char *const tb_names[TB_NCASES] = {
	[TB_LOOP] = "loop",
	[TB_TX_DUE] = "tx_due",
	[TB_TX_TCP_HOOK] = "tx_tcp_hook",
	[TB_TX_TCP_SAMPLED] = "tx_tcp_sampled",
	[TB_TX_UDP_HOOK] = "tx_udp_hook",
	[TB_TX_UDP_SAMPLED] = "tx_udp_sampled",
	[TB_RX_IDLE] = "rx_idle",
	[TB_RX_TCP_PENDING] = "rx_tcp_pending",
	[TB_RX_TCP_ECHO] = "rx_tcp_echo",
	[TB_RX_UDP_PENDING] = "rx_udp_pending",
	[TB_ENC_TCP] = "enc_tcp",
	[TB_DEC_TCP] = "dec_tcp",
	[TB_ENC_UDP] = "enc_udp",
	[TB_DEC_UDP] = "dec_udp",
};

/* What the cases work on; made once per write. */
struct tb_ctx {
	struct wgx_telemetry_state tel_state;
	struct wgx_telemetry tel;
	struct sk_buff *tx_tcp;		/* a -> b data, TSval TB_TSVAL */
	struct sk_buff *rx_tcp_old;	/* b -> a, echoing TB_TSVAL - 1 */
	struct sk_buff *rx_tcp_echo;	/* b -> a, echoing TB_TSVAL */
	struct sk_buff *udp;
	u8 key[CHACHA20POLY1305_KEY_SIZE];
	u8 *plain;			/* TB_TCP_LEN */
	u8 *cipher;			/* TB_TCP_LEN + tag */
	u8 *out;			/* TB_TCP_LEN + tag */
	u8 *cipher_udp;			/* TB_UDP_PADDED + tag, nonce 0 */
	u64 sink;
};

/* Results of the last completed run; guarded by tb_lock. */
static DEFINE_MUTEX(tb_lock);
static u64 tb_ps[TB_NCASES][TB_RUNS];	/* ps per iteration */
static unsigned int tb_iters, tb_crypto_iters, tb_cpu;
static bool tb_enabled;			/* tcp_telemetry during the run */
static bool tb_done;
static struct dentry *tb_file;

/* A linear IPv4 skb of @len bytes, zeroed, network header at its start. */
static struct sk_buff *tb_skb_ipv4(unsigned int len, u8 protocol, __be32 saddr, __be32 daddr)
{
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);
	struct iphdr *iph;

	if (!skb)
		return NULL;
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, len);
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(len);
	iph->ttl = 64;
	iph->protocol = protocol;
	iph->saddr = saddr;
	iph->daddr = daddr;
	skb->protocol = htons(ETH_P_IP);
	skb_set_transport_header(skb, sizeof(*iph));
	return skb;
}

/* A full-size TCP segment sport -> dport with the timestamp option (NOP, NOP, TS). */
static struct sk_buff *tb_skb_tcp(bool reverse, u32 tsval, u32 tsecr)
{
	__be32 a = htonl(0x0a000001), b = htonl(0x0a000002);
	struct sk_buff *skb = tb_skb_ipv4(TB_TCP_LEN, IPPROTO_TCP, reverse ? b : a, reverse ? a : b);
	__be32 ts[2] = { htonl(tsval), htonl(tsecr) };
	struct tcphdr *th;
	u8 *opt;

	if (!skb)
		return NULL;
	th = tcp_hdr(skb);
	th->source = htons(reverse ? TB_DPORT : TB_SPORT);
	th->dest = htons(reverse ? TB_SPORT : TB_DPORT);
	th->seq = htonl(1000);
	th->ack_seq = htonl(2000);
	th->doff = TB_TCP_HDR / 4;
	th->ack = 1;
	th->window = htons(502);
	opt = (u8 *)(th + 1);
	opt[0] = TCPOPT_NOP;
	opt[1] = TCPOPT_NOP;
	opt[2] = TCPOPT_TIMESTAMP;
	opt[3] = TCPOLEN_TIMESTAMP;
	memcpy(opt + 4, ts, sizeof(ts));
	return skb;
}

static struct sk_buff *tb_skb_udp(void)
{
	struct sk_buff *skb = tb_skb_ipv4(TB_UDP_LEN, IPPROTO_UDP, htonl(0x0a000001),
					  htonl(0x0a000002));
	struct udphdr *uh;

	if (!skb)
		return NULL;
	uh = udp_hdr(skb);
	uh->source = htons(TB_SPORT);
	uh->dest = htons(TB_DPORT);
	uh->len = htons(TB_UDP_LEN - sizeof(struct iphdr));
	return skb;
}

static void tb_ctx_free(struct tb_ctx *x)
{
	kfree_skb(x->tx_tcp);
	kfree_skb(x->rx_tcp_old);
	kfree_skb(x->rx_tcp_echo);
	kfree_skb(x->udp);
	kfree(x->plain);
	kfree(x->cipher);
	kfree(x->out);
	kfree(x->cipher_udp);
	memzero_explicit(x->key, sizeof(x->key));
	kfree(x);
}

static struct tb_ctx *tb_ctx_new(void)
{
	const unsigned int tag = CHACHA20POLY1305_AUTHTAG_SIZE;
	struct tb_ctx *x = kzalloc(sizeof(*x), GFP_KERNEL);

	if (!x)
		return NULL;
	x->tx_tcp = tb_skb_tcp(false, TB_TSVAL, 7);
	x->rx_tcp_old = tb_skb_tcp(true, 9, TB_TSVAL - 1);
	x->rx_tcp_echo = tb_skb_tcp(true, 9, TB_TSVAL);
	x->udp = tb_skb_udp();
	x->plain = kmalloc(TB_TCP_LEN, GFP_KERNEL);
	x->cipher = kmalloc(TB_TCP_LEN + tag, GFP_KERNEL);
	x->out = kmalloc(TB_TCP_LEN + tag, GFP_KERNEL);
	x->cipher_udp = kmalloc(TB_UDP_PADDED + tag, GFP_KERNEL);
	if (!x->tx_tcp || !x->rx_tcp_old || !x->rx_tcp_echo || !x->udp || !x->plain ||
	    !x->cipher || !x->out || !x->cipher_udp) {
		tb_ctx_free(x);
		return NULL;
	}
	get_random_bytes(x->key, sizeof(x->key));
	get_random_bytes(x->plain, TB_TCP_LEN);
	/* The decryption cases open these (nonce 0) over and over: tags verify. */
	chacha20poly1305_encrypt(x->cipher, x->plain, TB_TCP_LEN, NULL, 0, 0, x->key);
	chacha20poly1305_encrypt(x->cipher_udp, x->plain, TB_UDP_PADDED, NULL, 0, 0, x->key);
	return x;
}

/* The state a case starts from: nothing pending, or a sample of the a -> b flow pending. */
static void tb_tel_reset(struct tb_ctx *x, bool pending)
{
	struct wgx_telemetry_state *t = &x->tel_state;

	wgx_telemetry_state_init(t);
	x->tel.s = t;	/* as a peer's state after its first record */
	if (!pending)
		return;
	t->tcp_tsval = TB_TSVAL;
	t->tcp_ports = TB_SPORT << 16 | TB_DPORT;
	t->tcp_sent_ns = wgx_clock_ns();
	t->tcp_deadline_ns = U64_MAX;
	t->tcp_pending = true;
}

/* @n iterations of case @c in one BH-off span; returns its ns. */
static u64 tb_chunk(struct tb_ctx *x, enum tb_case c, unsigned int n)
{
	const unsigned int tag = CHACHA20POLY1305_AUTHTAG_SIZE;
	struct wgx_telemetry *t = &x->tel;
	unsigned int i;
	u64 start, sink = 0;
	bool ok = true;

	local_bh_disable();
	start = ktime_get_ns();
	switch (c) {
	case TB_LOOP:
		for (i = 0; i < n; i++)
			barrier();
		break;
	case TB_TX_DUE:
		for (i = 0; i < n; i++) {
			sink += wgx_telemetry_tcp_due();
			barrier();
		}
		break;
	case TB_TX_TCP_HOOK:
		for (i = 0; i < n; i++) {
			if (wgx_telemetry_tcp_due())
				wgx_telemetry_tcp_sample_sent(t, x->tx_tcp);
			barrier();
		}
		break;
	case TB_TX_TCP_SAMPLED:
		for (i = 0; i < n; i++) {
			wgx_telemetry_tcp_sample_sent(t, x->tx_tcp);
			barrier();
		}
		break;
	case TB_TX_UDP_HOOK:
		for (i = 0; i < n; i++) {
			if (wgx_telemetry_tcp_due())
				wgx_telemetry_tcp_sample_sent(t, x->udp);
			barrier();
		}
		break;
	case TB_TX_UDP_SAMPLED:
		for (i = 0; i < n; i++) {
			wgx_telemetry_tcp_sample_sent(t, x->udp);
			barrier();
		}
		break;
	case TB_RX_IDLE:
	case TB_RX_TCP_PENDING:
		for (i = 0; i < n; i++) {
			wgx_telemetry_tcp_received(t, x->rx_tcp_old);
			barrier();
		}
		break;
	case TB_RX_TCP_ECHO:
		for (i = 0; i < n; i++) {
			WRITE_ONCE(t->s->tcp_pending, true);
			wgx_telemetry_tcp_received(t, x->rx_tcp_echo);
			barrier();
		}
		break;
	case TB_RX_UDP_PENDING:
		for (i = 0; i < n; i++) {
			wgx_telemetry_tcp_received(t, x->udp);
			barrier();
		}
		break;
	case TB_ENC_TCP:
		for (i = 0; i < n; i++)
			chacha20poly1305_encrypt(x->out, x->plain, TB_TCP_LEN, NULL, 0, i, x->key);
		break;
	case TB_DEC_TCP:
		for (i = 0; i < n; i++)
			ok &= chacha20poly1305_decrypt(x->out, x->cipher, TB_TCP_LEN + tag, NULL, 0,
						       0, x->key);
		break;
	case TB_ENC_UDP:
		for (i = 0; i < n; i++)
			chacha20poly1305_encrypt(x->out, x->plain, TB_UDP_PADDED, NULL, 0, i, x->key);
		break;
	case TB_DEC_UDP:
		for (i = 0; i < n; i++)
			ok &= chacha20poly1305_decrypt(x->out, x->cipher_udp, TB_UDP_PADDED + tag,
						       NULL, 0, 0, x->key);
		break;
	default:
		break;
	}
	start = ktime_get_ns() - start;
	local_bh_enable();
	x->sink += sink + !ok;
	return start;
}

/* One run of case @c over @iters iterations; ps per iteration. */
static u64 tb_case_run(struct tb_ctx *x, enum tb_case c, unsigned int iters)
{
	unsigned int chunk = c >= TB_ENC_TCP ? TB_CRYPTO_CHUNK : TB_CHUNK, done = 0, n;
	u64 ns = 0;

	tb_tel_reset(x, c == TB_TX_TCP_SAMPLED || c == TB_TX_TCP_HOOK || c >= TB_RX_TCP_PENDING);
	while (done < iters) {
		n = min(chunk, iters - done);
		ns += tb_chunk(x, c, n);
		done += n;
		cond_resched();
	}
	return div_u64(ns * 1000, iters);
}

/* Caller holds tb_lock. */
static int tb_run(unsigned int iters)
{
	unsigned int crypto_iters = max(iters / TB_CRYPTO_DIV, TB_CRYPTO_MIN), r, c;
	struct tb_ctx *x = tb_ctx_new();
	int ret = 0;

	if (!x)
		return -ENOMEM;
	tb_done = false;
	tb_enabled = READ_ONCE(wgx_telemetry_tcp_enabled);
	tb_cpu = raw_smp_processor_id();
	for (r = 0; r < TB_RUNS; r++) {
		for (c = 0; c < TB_NCASES; c++) {
			if (signal_pending(current)) {
				ret = -EINTR;
				goto out;
			}
			tb_ps[c][r] = tb_case_run(x, c, c >= TB_ENC_TCP ? crypto_iters : iters);
		}
	}
	if (x->sink & 1ULL << 63)	/* never: keeps the results used */
		pr_debug("wgx: telemetry bench sink %llu\n", x->sink);
	tb_iters = iters;
	tb_crypto_iters = crypto_iters;
	tb_done = true;
out:
	tb_ctx_free(x);
	return ret;
}

static int tb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int tb_show(struct seq_file *m, void *v)
{
	u64 s[TB_RUNS];
	unsigned int c;

	mutex_lock(&tb_lock);
	seq_puts(m, "# wgx TCP telemetry hooks vs chacha20poly1305 (kmod/telemetry_bench.h)\n");
	if (!tb_done) {
		seq_printf(m, "# no run yet: write N (iterations, %u..%u) to this file\n",
			   TB_MIN_ITERS, TB_MAX_ITERS);
		goto out;
	}
	seq_printf(m, "iterations %u\ncrypto_iterations %u\nruns %u\ncpu %u\n", tb_iters,
		   tb_crypto_iters, TB_RUNS, tb_cpu);
	seq_printf(m, "tcp_telemetry %u\nevery %u\n", tb_enabled, WGX_TELEMETRY_TCP_EVERY);
	seq_printf(m, "tcp_bytes %u\nudp_bytes %u\nudp_padded_bytes %u\n", TB_TCP_LEN, TB_UDP_LEN,
		   TB_UDP_PADDED);
	seq_puts(m, "# case median_ps min_ps max_ps (per iteration, loop included)\n");
	for (c = 0; c < TB_NCASES; c++) {
		memcpy(s, tb_ps[c], sizeof(s));
		sort(s, TB_RUNS, sizeof(s[0]), tb_cmp, NULL);
		seq_printf(m, "%s %llu %llu %llu\n", tb_names[c], s[TB_RUNS / 2], s[0], s[TB_RUNS - 1]);
	}
out:
	mutex_unlock(&tb_lock);
	return 0;
}

static int tb_open(struct inode *inode, struct file *file)
{
	return single_open(file, tb_show, inode->i_private);
}

static ssize_t tb_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	unsigned int iters;
	int ret;

	ret = kstrtouint_from_user(buf, len, 10, &iters);
	if (ret)
		return ret;
	if (iters < TB_MIN_ITERS || iters > TB_MAX_ITERS)
		return -EINVAL;
	if (!mutex_trylock(&tb_lock))
		return -EBUSY;
	ret = tb_run(iters);
	mutex_unlock(&tb_lock);
	return ret ? ret : len;
}

static const struct file_operations tb_fops = {
	.owner = THIS_MODULE,
	.open = tb_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = tb_write,
};

void wgx_telemetry_bench_init(void)
{
	struct dentry *dir = debugfs_lookup("wgx", NULL);

	if (!dir)
		return;	/* no debugfs (wgx_bench_init() made wgx/ if it could) */
	tb_file = debugfs_create_file("telemetry_cost", 0600, dir, NULL, &tb_fops);
	dput(dir);
}

void wgx_telemetry_bench_uninit(void)
{
	/* Removal waits for a write in progress (debugfs file proxy). */
	debugfs_remove(tb_file);
	tb_file = NULL;
}
