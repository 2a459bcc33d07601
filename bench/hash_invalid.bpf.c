// SPDX-License-Identifier: GPL-2.0
/*
 * hash_invalid.bpf.c - tc (clsact egress) program for the benchmark and test
 * beds: forget the skb hash the sender computed, so that the receiving end of
 * a veth hashes the packet's own (outer) headers for RPS, as a NIC's RSS
 * does on the wire.  Without it a veth hands the receiver the sender's hash
 * of the inner flow (skb->hash survives encapsulation), which lets RPS spread
 * one tunnel peer's packets by inner flow: something no NIC can do.
 *
 * Built with clang -target bpf (CMakeLists.txt); attached with
 *   tc qdisc add dev DEV clsact
 *   tc filter add dev DEV egress bpf direct-action obj hash_invalid.bpf.o sec tc
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

/* The helper by number (uapi enum bpf_func_id), without libbpf's headers. */
static long (*const bpf_set_hash_invalid)(struct __sk_buff *skb) =
	(void *)BPF_FUNC_set_hash_invalid;

__attribute__((section("tc"), used))
int wgx_hash_invalid(struct __sk_buff *skb)
{
	bpf_set_hash_invalid(skb);
	return TC_ACT_OK;
}

char _license[] __attribute__((section("license"), used)) = "GPL";
