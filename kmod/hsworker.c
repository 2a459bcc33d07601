// SPDX-License-Identifier: GPL-2.0
/*
 * hsworker.c - the module's handshake threads at a positive nice
 * (hsworker.h says why).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/freezer.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "hsworker.h"

/* The threads' nice: 10 unless changed through debugfs (wgx_hsworker_set_nice()). */
static int wgx_handshake_nice = 10;

/*
 * nr_cpu_ids entries, the first wgx_hsworker_n made; written only under the
 * CPU hotplug lock (the online callback, and init before any device), a
 * slot before the count that covers it (release/acquire).
 */
static struct kthread_worker **wgx_hsworkers;
static unsigned int wgx_hsworker_n;
static enum cpuhp_state wgx_hsworker_state;

#ifdef WGX_DEBUG
/*
 * handshake_hold, TESTS ONLY: while 1, every thread made so far runs a work
 * item that waits (freezable) for 0, so work queued on the threads meanwhile
 * stays pending: a test can bring a device down or suspend the machine with
 * received handshake messages still waiting to be processed.  Writing 0
 * lets the threads go and returns once the work queued on them until then
 * has run.  Refused at load (there are no threads yet).
 */
static bool wgx_hsworker_hold;
static DECLARE_WAIT_QUEUE_HEAD(wgx_hsworker_hold_wq);
static DEFINE_MUTEX(wgx_hsworker_hold_lock);
/* nr_cpu_ids entries: entry N only ever goes to thread N. */
static struct kthread_work *wgx_hsworker_hold_works;

static void wgx_hsworker_hold_fn(struct kthread_work *work)
{
	wait_event_freezable(wgx_hsworker_hold_wq, !READ_ONCE(wgx_hsworker_hold));
}

static void wgx_hsworker_release(void)
{
	WRITE_ONCE(wgx_hsworker_hold, false);
	wake_up_all(&wgx_hsworker_hold_wq);
}

static int wgx_hsworker_hold_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i, n;
	bool hold;
	int ret = kstrtobool(val, &hold);

	if (ret)
		return ret;
	n = wgx_hsworker_count();
	if (!n || !wgx_hsworker_hold_works)
		return -EPERM;
	mutex_lock(&wgx_hsworker_hold_lock);
	if (hold && !wgx_hsworker_hold) {
		WRITE_ONCE(wgx_hsworker_hold, true);
		for (i = 0; i < n; i++)
			kthread_queue_work(wgx_hsworkers[i], &wgx_hsworker_hold_works[i]);
	} else if (!hold && wgx_hsworker_hold) {
		wgx_hsworker_release();
		wgx_hsworker_flush_all();
	}
	mutex_unlock(&wgx_hsworker_hold_lock);
	return 0;
}

static const struct kernel_param_ops wgx_hsworker_hold_ops = {
	.set = wgx_hsworker_hold_set,
	.get = param_get_bool,
};

module_param_cb(handshake_hold, &wgx_hsworker_hold_ops, &wgx_hsworker_hold, 0644);
MODULE_PARM_DESC(handshake_hold,
		 "TESTS ONLY: 1 holds queued handshake work on the wgx-hs threads until 0 is written");
#endif

static int wgx_hsworker_add(void)
{
	unsigned int n = wgx_hsworker_n;
	struct kthread_worker *worker;

	worker = kthread_create_worker(KTW_FREEZABLE, "wgx-hs/%u", n);
	if (IS_ERR(worker))
		return PTR_ERR(worker);
	set_user_nice(worker->task, READ_ONCE(wgx_handshake_nice));
	wgx_hsworkers[n] = worker;
	smp_store_release(&wgx_hsworker_n, n + 1);
	return 0;
}

/* A CPU came online: one thread per CPU online at once. */
static int wgx_hsworker_online(unsigned int cpu)
{
	int ret;

	while (wgx_hsworker_n < min(num_online_cpus(), nr_cpu_ids)) {
		ret = wgx_hsworker_add();
		if (ret) {
			/* Not fatal: the threads there are serve every CPU. */
			pr_warn("wgx: cannot add a handshake thread (CPU %u online): %d\n", cpu, ret);
			break;
		}
	}
	return 0;
}

int wgx_hsworker_init(void)
{
	unsigned int i __maybe_unused;
	int ret;

	wgx_hsworker_n = 0;
	wgx_hsworkers = kcalloc(nr_cpu_ids, sizeof(*wgx_hsworkers), GFP_KERNEL);
	if (!wgx_hsworkers)
		return -ENOMEM;
#ifdef WGX_DEBUG
	wgx_hsworker_hold_works = kcalloc(nr_cpu_ids, sizeof(*wgx_hsworker_hold_works),
					  GFP_KERNEL);
	if (!wgx_hsworker_hold_works) {
		kfree(wgx_hsworkers);
		return -ENOMEM;
	}
	for (i = 0; i < nr_cpu_ids; i++)
		kthread_init_work(&wgx_hsworker_hold_works[i], wgx_hsworker_hold_fn);
#endif
	/* Runs the callback for every online CPU before it returns. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "wgx/hsworker:online", wgx_hsworker_online,
				NULL);
	if (ret < 0)
		goto err_free;
	wgx_hsworker_state = ret;
	if (wgx_hsworker_n)
		return 0;
	ret = -ENOMEM;
	cpuhp_remove_state(wgx_hsworker_state);
err_free:
	kfree(wgx_hsworkers);
#ifdef WGX_DEBUG
	kfree(wgx_hsworker_hold_works);
	wgx_hsworker_hold_works = NULL;
#endif
	return ret;
}

void wgx_hsworker_exit(void)
{
	unsigned int i;

	cpuhp_remove_state(wgx_hsworker_state);
#ifdef WGX_DEBUG
	mutex_lock(&wgx_hsworker_hold_lock);
	wgx_hsworker_release();
	mutex_unlock(&wgx_hsworker_hold_lock);
#endif
	for (i = 0; i < wgx_hsworker_n; i++)
		kthread_destroy_worker(wgx_hsworkers[i]);
	kfree(wgx_hsworkers);
#ifdef WGX_DEBUG
	kfree(wgx_hsworker_hold_works);
	wgx_hsworker_hold_works = NULL;
#endif
}

int wgx_hsworker_nice(void)
{
	return READ_ONCE(wgx_handshake_nice);
}

int wgx_hsworker_set_nice(int nice)
{
	unsigned int i;

	if (nice < MIN_NICE || nice > MAX_NICE)
		return -ERANGE;
	/* Threads are added under the hotplug lock: none appears meanwhile. */
	cpus_read_lock();
	WRITE_ONCE(wgx_handshake_nice, nice);
	for (i = 0; i < wgx_hsworker_n; i++)
		set_user_nice(wgx_hsworkers[i]->task, nice);
	cpus_read_unlock();
	return 0;
}

unsigned int wgx_hsworker_count(void)
{
	return smp_load_acquire(&wgx_hsworker_n);
}

struct kthread_worker *wgx_hsworker_get(unsigned int slot)
{
	if (slot >= wgx_hsworker_count())
		slot = 0;
	return wgx_hsworkers[slot];
}

/* Module-wide, so that devices with one message each still take turns. */
static atomic_t wgx_hsworker_turn = ATOMIC_INIT(0);

unsigned int wgx_hsworker_next_slot(void)
{
	return (unsigned int)atomic_inc_return(&wgx_hsworker_turn) % wgx_hsworker_count();
}

unsigned int wgx_hsworker_slot_for_id(u64 id)
{
	return do_div(id, wgx_hsworker_count());
}

void wgx_hsworker_flush_all(void)
{
	unsigned int i, n = wgx_hsworker_count();

	for (i = 0; i < n; i++)
		kthread_flush_worker(wgx_hsworkers[i]);
}
