// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - /sys/kernel/debug/wgx/ (see debugfs.h).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "debugfs.h"
#include "hsworker.h"
#include "precompute.h"
#include "queueing.h"
#include "telemetry.h"

static struct dentry *wgx_debugfs_dir;

static int wgx_debugfs_nice_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", wgx_hsworker_nice());
	return 0;
}

static int wgx_debugfs_nice_open(struct inode *inode, struct file *file)
{
	return single_open(file, wgx_debugfs_nice_show, NULL);
}

/* A decimal -20..19; anything else is refused with -EINVAL or -ERANGE. */
static ssize_t wgx_debugfs_nice_write(struct file *file, const char __user *buf, size_t len,
				      loff_t *ppos)
{
	int nice, ret;

	ret = kstrtoint_from_user(buf, len, 10, &nice);
	if (ret)
		return ret;
	ret = wgx_hsworker_set_nice(nice);
	return ret ? ret : len;
}

static const struct file_operations wgx_debugfs_nice_fops = {
	.owner = THIS_MODULE,
	.open = wgx_debugfs_nice_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = wgx_debugfs_nice_write,
};

/* wgx_precompute_stats_fops, over the owner's show function. */
DEFINE_SHOW_ATTRIBUTE(wgx_precompute_stats);

void wgx_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("wgx", NULL);

	if (IS_ERR(dir))
		return;
	wgx_debugfs_dir = dir;
	debugfs_create_bool("bql", 0600, dir, &wgx_queueing_bql);
	debugfs_create_bool("lane_inline", 0600, dir, &wgx_queueing_lane_inline);
	debugfs_create_bool("tx_codel", 0600, dir, &wgx_queueing_tx_codel);
	debugfs_create_bool("tcp_telemetry", 0600, dir, &wgx_telemetry_tcp_enabled);
	debugfs_create_file("handshake_nice", 0600, dir, NULL, &wgx_debugfs_nice_fops);
	debugfs_create_file("precompute_stats", 0400, dir, NULL, &wgx_precompute_stats_fops);
}

void wgx_debugfs_exit(void)
{
	debugfs_remove_recursive(wgx_debugfs_dir);
	wgx_debugfs_dir = NULL;
}
