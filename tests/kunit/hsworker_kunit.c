// SPDX-License-Identifier: GPL-2.0
/*
 * hsworker_kunit.c - KUnit suite "wgx_hsworker": the module's handshake
 * threads (kmod/hsworker.c).  There is one per online CPU, distinct, at the
 * handshake_nice default, unbound, and each runs its work; ids spread
 * evenly over them; short-lived work takes turns over them, module-wide; a
 * flush waits for queued work.  The suites run before the
 * module's init, so each case makes the threads itself and removes them
 * (the init then makes its own).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "hsworker.h"

struct wgx_hsworker_probe {
	struct kthread_work work;
	int cpu;		/* where it ran */
	int nice;		/* the nice of the thread that ran it */
	struct completion done;
};

static void wgx_hsworker_probe_fn(struct kthread_work *work)
{
	struct wgx_hsworker_probe *p = container_of(work, struct wgx_hsworker_probe, work);

	p->cpu = raw_smp_processor_id();
	p->nice = task_nice(current);
	complete(&p->done);
}

static int wgx_hsworker_case_init(struct kunit *test)
{
	return wgx_hsworker_init();
}

static void wgx_hsworker_case_exit(struct kunit *test)
{
	wgx_hsworker_exit();
}

/* One thread per online CPU, each running its work at nice 10 on any CPU. */
static void wgx_hsworker_threads_run_work_at_nice(struct kunit *test)
{
	unsigned int n = wgx_hsworker_count(), i, j;
	struct wgx_hsworker_probe *p;

	KUNIT_EXPECT_EQ(test, n, num_online_cpus());
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++) {
		struct kthread_worker *worker = wgx_hsworker_get(i);

		KUNIT_ASSERT_NOT_NULL(test, worker);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_PTR_NE(test, worker, wgx_hsworker_get(j));
		KUNIT_EXPECT_EQ(test, task_nice(worker->task), 10);
		kthread_init_work(&p->work, wgx_hsworker_probe_fn);
		init_completion(&p->done);
		p->cpu = -1;
		KUNIT_ASSERT_TRUE(test, kthread_queue_work(worker, &p->work));
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 10 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, p->nice, 10);
		KUNIT_EXPECT_TRUE(test, cpu_online(p->cpu));
		kthread_flush_work(&p->work);
	}
	/* Unbound: the scheduler may move it to an idle CPU. */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, cpumask_subset(cpu_online_mask, wgx_hsworker_get(i)->task->cpus_ptr));
	/* A slot past the end gives thread 0. */
	KUNIT_EXPECT_PTR_EQ(test, wgx_hsworker_get(n), wgx_hsworker_get(0));
}

/* Ids 0 .. k * n - 1 give each of the n threads k times; large ids too. */
static void wgx_hsworker_ids_spread_evenly(struct kunit *test)
{
	unsigned int n = wgx_hsworker_count(), k = 5, slot, hits;
	u64 id;

	for (slot = 0; slot < n; slot++) {
		hits = 0;
		for (id = 0; id < (u64)k * n; id++)
			if (wgx_hsworker_slot_for_id(id) == slot)
				hits++;
		KUNIT_EXPECT_EQ_MSG(test, hits, k, "thread %u", slot);
		KUNIT_EXPECT_EQ(test, wgx_hsworker_slot_for_id((1ULL << 40) * n + slot), slot);
	}
}

struct wgx_hsworker_slow {
	struct kthread_work work;
	atomic_t *ran;
};

static void wgx_hsworker_turns_go_round(struct kunit *test)
{
	unsigned int n = wgx_hsworker_count(), k = 5, i, slot, prev, *hits;

	hits = kunit_kcalloc(test, n, sizeof(*hits), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hits);
	/* Calls in a row (as from devices with one message each) take turns. */
	prev = wgx_hsworker_next_slot();
	KUNIT_ASSERT_LT(test, prev, n);
	for (i = 0; i < k * n; i++) {
		slot = wgx_hsworker_next_slot();
		KUNIT_ASSERT_LT(test, slot, n);
		hits[slot]++;
		KUNIT_EXPECT_EQ(test, slot, (prev + 1) % n);
		prev = slot;
	}
	for (slot = 0; slot < n; slot++)
		KUNIT_EXPECT_EQ_MSG(test, hits[slot], k, "thread %u", slot);
}

static void wgx_hsworker_slow_fn(struct kthread_work *work)
{
	struct wgx_hsworker_slow *s = container_of(work, struct wgx_hsworker_slow, work);

	msleep(20);
	atomic_inc(s->ran);
}

/* wgx_hsworker_flush_all() returns only after every queued work ran. */
static void wgx_hsworker_flush_waits(struct kunit *test)
{
	unsigned int n = num_online_cpus() * 3, i;
	struct wgx_hsworker_slow *s;
	atomic_t ran = ATOMIC_INIT(0);

	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < n; i++) {
		kthread_init_work(&s[i].work, wgx_hsworker_slow_fn);
		s[i].ran = &ran;
		KUNIT_ASSERT_TRUE(test, kthread_queue_work(wgx_hsworker_get(wgx_hsworker_slot_for_id(i)),
							    &s[i].work));
	}
	wgx_hsworker_flush_all();
	KUNIT_EXPECT_EQ(test, atomic_read(&ran), (int)n);
}

static struct kunit_case wgx_hsworker_cases[] = {
	KUNIT_CASE(wgx_hsworker_threads_run_work_at_nice),
	KUNIT_CASE(wgx_hsworker_ids_spread_evenly),
	KUNIT_CASE(wgx_hsworker_turns_go_round),
	KUNIT_CASE(wgx_hsworker_flush_waits),
	{}
};

static struct kunit_suite wgx_hsworker_suite = {
	.name = "wgx_hsworker",
	.init = wgx_hsworker_case_init,
	.exit = wgx_hsworker_case_exit,
	.test_cases = wgx_hsworker_cases,
};

kunit_test_suites(&wgx_hsworker_suite);
