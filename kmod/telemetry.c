// SPDX-License-Identifier: GPL-2.0
/*
 * telemetry.c - per-peer handshake RTT (see telemetry.h for what is measured
 * and the locking).  The smoothing is RFC 6298 section 2's SRTT: the first
 * sample R sets SRTT = R, later ones SRTT = 7/8 SRTT + 1/8 R.
 */
#include <linux/math64.h>
#include <linux/time64.h>

#include <wgx/core.h>

#include "telemetry.h"
#include "timers.h"

void wgx_telemetry_init(struct wgx_telemetry *t)
{
	spin_lock_init(&t->lock);
	t->init_index = 0;
	t->init_sent_ns = 0;
	t->resp_keypair = 0;
	t->resp_sent_ns = 0;
	t->rtt_last_us = 0;
	t->rtt_min_us = 0;
	t->srtt_us = 0;
	t->rtt_samples = 0;
}

/* One sample of @rtt_ns, @lock held. */
static void wgx_telemetry_sample(struct wgx_telemetry *t, u64 rtt_ns)
{
	u64 us;

	if (rtt_ns > (u64)WGX_REKEY_TIMEOUT_S * NSEC_PER_SEC)
		return;
	us = div_u64(rtt_ns, NSEC_PER_USEC);
	t->rtt_last_us = us;
	if (!t->rtt_samples) {
		t->rtt_min_us = us;
		t->srtt_us = us;
	} else {
		if (us < t->rtt_min_us)
			t->rtt_min_us = us;
		t->srtt_us = t->srtt_us - (t->srtt_us >> 3) + (us >> 3);
	}
	++t->rtt_samples;
}

void wgx_telemetry_initiation_sent(struct wgx_telemetry *t, u32 index)
{
	u64 now = wgx_timers_clock_ns();

	spin_lock_bh(&t->lock);
	t->init_index = index;
	t->init_sent_ns = now;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_response_received(struct wgx_telemetry *t, u32 index, u64 now_ns)
{
	spin_lock_bh(&t->lock);
	if (t->init_sent_ns && t->init_index == index && now_ns >= t->init_sent_ns)
		wgx_telemetry_sample(t, now_ns - t->init_sent_ns);
	t->init_sent_ns = 0;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_response_sent(struct wgx_telemetry *t, u64 keypair_id)
{
	u64 now = wgx_timers_clock_ns();

	spin_lock_bh(&t->lock);
	t->resp_keypair = keypair_id;
	t->resp_sent_ns = now;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_confirmed(struct wgx_telemetry *t, u64 keypair_id)
{
	u64 now = wgx_timers_clock_ns();

	spin_lock_bh(&t->lock);
	if (t->resp_sent_ns && t->resp_keypair == keypair_id && now >= t->resp_sent_ns)
		wgx_telemetry_sample(t, now - t->resp_sent_ns);
	t->resp_sent_ns = 0;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_endpoint_moved(struct wgx_telemetry *t)
{
	spin_lock_bh(&t->lock);
	t->rtt_last_us = 0;
	t->rtt_min_us = 0;
	t->srtt_us = 0;
	t->rtt_samples = 0;
	spin_unlock_bh(&t->lock);
}

void wgx_telemetry_read(struct wgx_telemetry *t, struct wgx_telemetry_rtt *out)
{
	spin_lock_bh(&t->lock);
	out->last_us = t->rtt_last_us;
	out->min_us = t->rtt_min_us;
	out->srtt_us = t->srtt_us;
	out->samples = t->rtt_samples;
	spin_unlock_bh(&t->lock);
}
