// SPDX-License-Identifier: GPL-2.0
/*
 * keygrace.c - the device's static private key changes, and the key grace
 * period that keeps the previous key answering for key_grace_s seconds
 * (docs/rotation.md): the previous identity, each peer's handshake handle
 * for it, and the sweep of sessions made with keys the device no longer
 * holds.
 */
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "device.h"
#include "keygrace.h"
#include "peer.h"
#include "peerlookup.h"
#include "send.h"
#include "timers.h"

/*
 * A grace period of @key_grace_s seconds (WGX_DEVICE_A_KEY_GRACE, at most
 * WGX_MAX_KEY_GRACE) in jiffies.
 */
static unsigned long wgx_keygrace_period(u32 key_grace_s)
{
	return (unsigned long)key_grace_s * HZ;
}

/*
 * Whether the running grace period is over at @now (jiffies), across the
 * wrap of jiffies.  identity_lock held.
 */
static bool wgx_keygrace_over(const struct wgx_device *wgx, unsigned long now)
{
	return !time_before(now, wgx->grace_end);
}

/*
 * Wipe the previous identity and everything derived from it: its MAC1/cookie
 * keys and every peer's handshake state for it (with the index of a
 * handshake in progress under it).  identity_lock held for writing.
 */
static void wgx_keygrace_wipe(struct wgx_device *wgx)
{
	struct wgx_peer *peer;

	lockdep_assert_held_write(&wgx->identity_lock);
	wgx_noise_identity_set_private_key(wgx->prev_identity, NULL);
	spin_lock_bh(&wgx->cookie_lock);
	wgx_cookie_checker_set_identity(wgx->prev_cookie_checker, wgx->prev_identity);
	spin_unlock_bh(&wgx->cookie_lock);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		mutex_lock(&peer->handshake_lock);
		if (peer->prev_handshake) {
			/*
			 * An initiation in progress under the previous key (the
			 * worker makes one only with init_prev set, and clears
			 * the other handle's) holds the peer's index: drop it.
			 */
			if (peer->init_prev)
				wgx_index_hashtable_remove(wgx->index_hashtable,
							   &peer->handshake_entry);
			wgx_noise_handshake_destroy(peer->prev_handshake);
			peer->prev_handshake = NULL;
		}
		peer->init_prev = false;
		mutex_unlock(&peer->handshake_lock);
	}
	wgx->grace_active = false;
}

/*
 * Start a grace period: the identity about to be replaced becomes the
 * previous one, each peer gets a handshake handle for it (replay state
 * copied, so nothing the peer sent before is accepted again).  A peer whose
 * handle cannot be allocated simply has no grace.  identity_lock held for
 * writing, the current identity still the old key.
 */
static void wgx_keygrace_begin(struct wgx_device *wgx)
{
	u8 old_private[WGX_KEY_LEN];
	struct wgx_peer *peer;

	lockdep_assert_held_write(&wgx->identity_lock);
	wgx_noise_identity_get_keys(wgx->identity, NULL, old_private);
	wgx_noise_identity_set_private_key(wgx->prev_identity, old_private);
	memzero_explicit(old_private, sizeof(old_private));
	spin_lock_bh(&wgx->cookie_lock);
	wgx_cookie_checker_set_identity(wgx->prev_cookie_checker, wgx->prev_identity);
	spin_unlock_bh(&wgx->cookie_lock);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		mutex_lock(&peer->handshake_lock);
		/* Same key as the current handle's: its DH is copied, not redone. */
		peer->prev_handshake = wgx_noise_handshake_create_twin(wgx->prev_identity,
								       peer->handshake, true);
		/* Last heard under the old key: keep initiating with it. */
		spin_lock_bh(&peer->timers_lock);
		peer->init_prev = peer->prev_handshake && peer->walltime_last_handshake.tv_sec;
		spin_unlock_bh(&peer->timers_lock);
		mutex_unlock(&peer->handshake_lock);
	}
	wgx->grace_active = true;
}

/*
 * What a private key change does to a peer's sessions (WireGuard's
 * behaviour): they stop sending; the next packet is staged and starts a
 * handshake under the new identity.  They still decrypt what the peer sends
 * until that handshake replaces them, so the peer's traffic is not lost
 * meanwhile.
 */
static void wgx_keygrace_expire_sessions(struct wgx_device *wgx, struct wgx_peer *peer, bool has_key)
{
	wgx_peer_expire_sending(peer);
	wgx_peer_clear_handshake(peer);
	/* The new identity's first initiation need not wait for the old one's. */
	wgx_timers_initiation_forget(peer);
	/* Up and able to talk now: persistent keepalive starts at once, as at up. */
	if (has_key && netif_running(wgx->dev) &&
	    READ_ONCE(peer->timer_state.persistent_keepalive_s))
		wgx_send_keepalive(peer);
}

/*
 * Whether @peer's current or next session was made with an identity other
 * than generations @gen and @gen2 (the current one and, during a grace
 * period, the previous one).  A snapshot; any context.
 */
static bool wgx_keygrace_session_older(struct wgx_peer *peer, u32 gen, u32 gen2)
{
	struct wgx_keypair *kp;
	bool old;

	rcu_read_lock_bh();
	kp = rcu_dereference_bh(peer->keypair_current);
	old = kp && kp->local_gen != gen && kp->local_gen != gen2;
	kp = rcu_dereference_bh(peer->keypair_next);
	old |= kp && kp->local_gen != gen && kp->local_gen != gen2;
	rcu_read_unlock_bh();
	return old;
}

void wgx_keygrace_expire_stale_sessions(struct wgx_device *wgx, struct wgx_peer *peer)
{
	u32 gen, gen2;

	/*
	 * A key change or grace end sweeps the sessions after changing the
	 * identity under the write lock: a keypair installed before this
	 * read lock was either seen by that sweep or is seen here.
	 */
	down_read(&wgx->identity_lock);
	gen = wgx->identity_gen;
	gen2 = wgx->grace_active ? gen - 1 : gen;
	if (wgx_keygrace_session_older(peer, gen, gen2))
		wgx_peer_expire_sending(peer);
	up_read(&wgx->identity_lock);
}

int wgx_keygrace_set_private_key(struct wgx_device *wgx, const u8 *private_key)
{
	u8 public_key[WGX_KEY_LEN];
	struct wgx_peer *peer;
	bool has_key, grace;
	u32 gen;
	int ret;

	lockdep_assert_held(&wgx->device_update_lock);
	down_write(&wgx->identity_lock);
	/* A second change during a grace period: the oldest key goes now. */
	if (wgx->grace_active)
		wgx_keygrace_wipe(wgx);
	grace = wgx->key_grace_s && private_key && memchr_inv(private_key, 0, WGX_KEY_LEN) &&
		wgx_noise_identity_get_keys(wgx->identity, NULL, NULL);
	if (grace)
		wgx_keygrace_begin(wgx);
	ret = wgx_noise_identity_set_private_key(wgx->identity, private_key);
	has_key = wgx_noise_identity_get_keys(wgx->identity, public_key, NULL);
	gen = ++wgx->identity_gen;
	if (!has_key && wgx->grace_active)
		wgx_keygrace_wipe(wgx);	/* the new key was refused: no grace */
	grace = wgx->grace_active;
	if (grace)
		wgx->grace_end = jiffies + wgx_keygrace_period(wgx->key_grace_s);
	spin_lock_bh(&wgx->cookie_lock);
	wgx_cookie_checker_set_identity(wgx->cookie_checker, wgx->identity);
	spin_unlock_bh(&wgx->cookie_lock);
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		mutex_lock(&peer->handshake_lock);
		wgx_noise_handshake_precompute(peer->handshake);
		mutex_unlock(&peer->handshake_lock);
	}
	up_write(&wgx->identity_lock);

	if (grace)
		mod_delayed_work(system_wq, &wgx->grace_work, wgx_keygrace_period(wgx->key_grace_s));
	else
		cancel_delayed_work(&wgx->grace_work);

	/* A device is never its own peer. */
	if (has_key) {
		peer = wgx_pubkey_hashtable_lookup(wgx->peer_hashtable, public_key);
		if (peer) {
			wgx_peer_put(peer);
			wgx_peer_remove(peer);
		}
	}
	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		if (!grace) {
			wgx_keygrace_expire_sessions(wgx, peer, has_key);
			continue;
		}
		/*
		 * Grace: sessions made with the previous key stay as they are
		 * until the grace ends (wgx_keygrace_end_worker()) or a
		 * handshake under the new key replaces them; sessions of a key
		 * older than the previous one (a second change during the
		 * grace) expire now.  A handshake in progress was made with
		 * the old key by the current handle.
		 */
		if (wgx_keygrace_session_older(peer, gen, gen - 1)) {
			wgx_keygrace_expire_sessions(wgx, peer, has_key);
			continue;
		}
		wgx_peer_clear_handshake(peer);
		wgx_timers_initiation_forget(peer);
	}
	memzero_explicit(public_key, sizeof(public_key));
	return ret ? -EINVAL : 0;
}

/*
 * The grace period ends: the previous key is wiped and refused from now on,
 * and sessions made with it (or with any older key) are expired as a key
 * change without grace would have done.  Process context (system_wq).
 */
static void wgx_keygrace_end_worker(struct work_struct *work)
{
	struct wgx_device *wgx = container_of(to_delayed_work(work), struct wgx_device, grace_work);
	struct wgx_peer *peer;
	bool has_key;
	u32 gen;

	mutex_lock(&wgx->device_update_lock);
	down_write(&wgx->identity_lock);
	/* Not yet: this run waited for the lock while a new grace began. */
	if (!wgx->grace_active || !wgx_keygrace_over(wgx, jiffies)) {
		up_write(&wgx->identity_lock);
		goto out;
	}
	wgx_keygrace_wipe(wgx);
	gen = wgx->identity_gen;
	has_key = wgx_noise_identity_get_keys(wgx->identity, NULL, NULL);
	up_write(&wgx->identity_lock);
	netdev_dbg(wgx->dev, "previous key's grace period ended\n");

	list_for_each_entry(peer, &wgx->peer_list, peer_list) {
		if (wgx_keygrace_session_older(peer, gen, gen))
			wgx_keygrace_expire_sessions(wgx, peer, has_key);
	}
out:
	mutex_unlock(&wgx->device_update_lock);
}

void wgx_keygrace_init(struct wgx_device *wgx)
{
	INIT_DELAYED_WORK(&wgx->grace_work, wgx_keygrace_end_worker);
}

void wgx_keygrace_cancel_sync(struct wgx_device *wgx)
{
	cancel_delayed_work_sync(&wgx->grace_work);
}
