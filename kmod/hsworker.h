/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hsworker.h - the module's handshake threads: kthread_workers shared by
 * every wgx device, one per online CPU, at a positive nice.
 *
 * Handshake messages cost up to three X25519 operations each; transport
 * packets cost microseconds.  On the kernel's workqueues both run at nice 0,
 * so a storm (hundreds of initiations at once) shares every CPU evenly with
 * the established sessions' encryption and decryption workers and the
 * applications they serve.  These threads run the handshake work at the
 * nice 10 (debugfs wgx/handshake_nice changes it, for the bench), so
 * CFS gives transport work and applications the CPU first while a storm
 * still completes: at nice 10 a thread keeps about a tenth of a CPU that
 * nice-0 work saturates.  Workqueues cannot be given a nice from a module
 * (apply_workqueue_attrs() is not exported), hence kthread_worker.
 *
 * The threads are not bound to CPUs: a thread made runnable on a CPU that a
 * nice-0 task keeps busy would wait there while another CPU idles; unbound,
 * the scheduler's load balancing moves it to the idle one.  There are as
 * many as CPUs have been online at once since load (CPU hotplug state
 * "wgx/hsworker:online" adds one when more come online); none is destroyed
 * before the module is unloaded.  A kthread_work must always go to the same
 * worker: callers keep the thread number (the "slot", 0 ..
 * wgx_hsworker_count() - 1) they were given for a work item.  The threads
 * are freezable (no handshake during a suspend, as with WQ_FREEZABLE).
 */
#ifndef WGX_HSWORKER_H
#define WGX_HSWORKER_H

#include <linux/kthread.h>

/**
 * wgx_hsworker_init - make one thread per online CPU.  Process context, at
 * module load.  0, or -ENOMEM (or the hotplug core's error) when not even
 * one thread could be made.
 */
int wgx_hsworker_init(void);

/** wgx_hsworker_exit - stop and free every thread.  No device may be left. */
void wgx_hsworker_exit(void);

/** wgx_hsworker_nice - the threads' nice now (-20..19). */
int wgx_hsworker_nice(void);
/**
 * wgx_hsworker_set_nice - give every thread, and those made later, nice @nice.
 * 0, or -ERANGE outside MIN_NICE..MAX_NICE.  Process context; takes the CPU
 * hotplug read lock.
 */
int wgx_hsworker_set_nice(int nice);

/**
 * wgx_hsworker_count - how many threads there are now, 1 .. nr_cpu_ids;
 * it only grows.  Any context, after wgx_hsworker_init() succeeded.
 */
unsigned int wgx_hsworker_count(void);

/**
 * wgx_hsworker_get - thread number @slot (below wgx_hsworker_count(), else
 * thread 0).  Any context.
 */
struct kthread_worker *wgx_hsworker_get(unsigned int slot);

/**
 * wgx_hsworker_slot_for_id - the thread number for a work item that lives
 * as long as its owner (a peer's initiation work): @id (e.g. the peer's
 * internal id) modulo the number of threads.  Any context.
 */
unsigned int wgx_hsworker_slot_for_id(u64 id);

/**
 * wgx_hsworker_next_slot - the thread number for the next short-lived work
 * (a device's ring of received handshake messages): round robin over the
 * threads, one counter for the whole module, so that many devices that get
 * one message each (a node with a device per peer) do not all start on the
 * same thread.  Calls in a row get consecutive numbers (modulo the count;
 * one repeats when the 32-bit turn wraps).  Any context.
 */
unsigned int wgx_hsworker_next_slot(void);

/**
 * wgx_hsworker_flush_all - wait for every work item queued on every thread
 * until now (not for delayed work whose timer is still pending).  Process
 * context; must not be called from one of the threads.
 */
void wgx_hsworker_flush_all(void);

#endif /* WGX_HSWORKER_H */
