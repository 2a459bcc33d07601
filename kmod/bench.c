// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - the crypto ceiling (see bench.h): how many bytes per second the
 * kernel's chacha20poly1305_encrypt() does on 1420-byte buffers (a full
 * 1420-byte-MTU transport data payload) on each online CPU at once.
 *
 * A write of N starts one kernel thread bound to each online CPU; each
 * encrypts one buffer over and over with a fresh nonce (as the datapath does)
 * until the writer, after sleeping N seconds, stops it.  Each thread times
 * itself, so late starts or stops do not skew its rate.  The results stay
 * readable until the next run.  Runs are serialised by bench_lock.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <crypto/chacha20poly1305.h>

#include "bench.h"

#define BENCH_BUF_BYTES 1420U	/* plaintext per encryption, bytes */
#define BENCH_MAX_SECONDS 60U

/* One measuring thread; written by the thread, read after kthread_stop(). */
struct bench_worker {
	struct task_struct *task;
	unsigned int cpu;
	u64 packets;	/* encryptions completed */
	u64 ns;		/* thread's own elapsed time, ns */
	int err;	/* -ENOMEM if its buffers could not be had */
};

/* Results of the last completed run; guarded by bench_lock. */
struct bench_result {
	unsigned int cpu;
	u64 bytes_per_s;
	u64 packets_per_s;
};

static DEFINE_MUTEX(bench_lock);
static struct bench_result *bench_results;	/* nr_cpu_ids slots */
static unsigned int bench_nresults;
static unsigned int bench_seconds;		/* of the last run; 0 = none yet */
static struct dentry *bench_dir;		/* wgx/, when bench created it */
static struct dentry *bench_file;

static int bench_thread(void *arg)
{
	struct bench_worker *w = arg;
	u8 key[CHACHA20POLY1305_KEY_SIZE];
	u8 *src, *dst;
	u64 nonce = 0, start;

	src = kmalloc(BENCH_BUF_BYTES, GFP_KERNEL);
	dst = kmalloc(BENCH_BUF_BYTES + CHACHA20POLY1305_AUTHTAG_SIZE, GFP_KERNEL);
	if (!src || !dst) {
		w->err = -ENOMEM;
		goto out;
	}
	get_random_bytes(key, sizeof(key));
	get_random_bytes(src, BENCH_BUF_BYTES);

	start = ktime_get_ns();
	while (!kthread_should_stop()) {
		chacha20poly1305_encrypt(dst, src, BENCH_BUF_BYTES, NULL, 0, nonce++, key);
		w->packets++;
		cond_resched();
	}
	w->ns = ktime_get_ns() - start;
	memzero_explicit(key, sizeof(key));
out:
	kfree(dst);
	kfree(src);
	/* kthread_stop() must find us alive: wait for it. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* Run a measurement of @seconds on every online CPU.  Caller holds bench_lock. */
static int bench_run(unsigned int seconds)
{
	struct bench_worker *workers;
	unsigned int cpu, n = 0, i;
	int ret = 0;

	workers = kcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;

	for_each_online_cpu(cpu) {
		struct bench_worker *w = &workers[n];
		struct task_struct *t;

		w->cpu = cpu;
		t = kthread_create_on_cpu(bench_thread, w, cpu, "wgx_bench/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto stop;
		}
		w->task = t;
		n++;
	}
	for (i = 0; i < n; i++)
		wake_up_process(workers[i].task);

	if (msleep_interruptible(seconds * MSEC_PER_SEC))
		ret = -EINTR;

stop:
	for (i = 0; i < n; i++)
		kthread_stop(workers[i].task);
	if (ret)
		goto out;

	for (i = 0; i < n; i++) {
		struct bench_worker *w = &workers[i];
		struct bench_result *r = &bench_results[i];

		if (w->err) {
			ret = w->err;
			goto out;
		}
		r->cpu = w->cpu;
		r->packets_per_s = w->ns ? div64_u64(w->packets * NSEC_PER_SEC, w->ns) : 0;
		r->bytes_per_s = r->packets_per_s * BENCH_BUF_BYTES;
	}
	bench_nresults = n;
	bench_seconds = seconds;
out:
	kfree(workers);
	return ret;
}

static int bench_show(struct seq_file *m, void *v)
{
	u64 bytes = 0, packets = 0;
	unsigned int i;

	mutex_lock(&bench_lock);
	seq_printf(m, "# chacha20poly1305_encrypt, %u-byte buffers, one thread per online CPU\n",
		   BENCH_BUF_BYTES);
	if (!bench_seconds) {
		seq_printf(m, "# no run yet: write N (seconds, 1..%u) to this file\n",
			   BENCH_MAX_SECONDS);
		goto out;
	}
	seq_printf(m, "seconds %u\n", bench_seconds);
	seq_printf(m, "buffer_bytes %u\n", BENCH_BUF_BYTES);
	for (i = 0; i < bench_nresults; i++) {
		const struct bench_result *r = &bench_results[i];

		seq_printf(m, "cpu %u bytes_per_s %llu packets_per_s %llu\n",
			   r->cpu, r->bytes_per_s, r->packets_per_s);
		bytes += r->bytes_per_s;
		packets += r->packets_per_s;
	}
	seq_printf(m, "total bytes_per_s %llu packets_per_s %llu\n", bytes, packets);
out:
	mutex_unlock(&bench_lock);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, inode->i_private);
}

static ssize_t bench_write(struct file *file, const char __user *buf, size_t len,
			   loff_t *ppos)
{
	unsigned int seconds;
	int ret;

	ret = kstrtouint_from_user(buf, len, 10, &seconds);
	if (ret)
		return ret;
	if (seconds < 1 || seconds > BENCH_MAX_SECONDS)
		return -EINVAL;
	if (!mutex_trylock(&bench_lock))
		return -EBUSY;
	ret = bench_run(seconds);
	mutex_unlock(&bench_lock);
	return ret ? ret : len;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = bench_write,
};

int wgx_bench_init(void)
{
	struct dentry *dir;

	bench_results = kcalloc(nr_cpu_ids, sizeof(*bench_results), GFP_KERNEL);
	if (!bench_results)
		return -ENOMEM;

	/* Share wgx/ with any other debugfs user of the module. */
	dir = debugfs_lookup("wgx", NULL);
	if (dir) {
		dput(dir);	/* the directory outlives us: its owner removes it */
	} else {
		dir = debugfs_create_dir("wgx", NULL);
		if (IS_ERR(dir))
			return 0;	/* no debugfs: no ceiling, not an error */
		bench_dir = dir;
	}
	bench_file = debugfs_create_file("crypto_ceiling", 0600, dir, NULL, &bench_fops);
	return 0;
}

void wgx_bench_uninit(void)
{
	/* Removal waits for a write in progress (debugfs file proxy). */
	debugfs_remove(bench_file);
	debugfs_remove(bench_dir);
	bench_file = NULL;
	bench_dir = NULL;
	kfree(bench_results);
	bench_results = NULL;
}
