/* SPDX-License-Identifier: GPL-2.0 */
/*
 * receive.h - the receive path.
 */
#ifndef WGX_RECEIVE_H
#define WGX_RECEIVE_H

#include <linux/skbuff.h>

struct sock;
struct wgx_device;

/**
 * wgx_receive - encap_rcv of the device's UDP sockets: classify the message;
 * transport data is decrypted right here, on the CPU RSS/RPS delivered it to,
 * and handed to this CPU's GRO cell; handshake messages go to the handshake
 * queue.  Always consumes @skb and returns 0.  Softirq, RCU read side.
 */
int wgx_receive(struct sock *sk, struct sk_buff *skb);

#endif /* WGX_RECEIVE_H */
