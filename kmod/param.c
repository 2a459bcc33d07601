// SPDX-License-Identifier: GPL-2.0
/*
 * param.c - module parameter kinds shared by several files (param.h).
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/sysfs.h>

#include "param.h"

static int wgx_param_uint_max_set(const char *val, const struct kernel_param *kp)
{
	const struct wgx_param_uint_max *param = kp->arg;
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret < 0)
		return ret;
	if (n > param->max) {
		pr_err("wgx: %s=%u: at most %u %s\n", kp->name, n, param->max, param->unit);
		return -ERANGE;
	}
	*param->value = n;
	return 0;
}

static int wgx_param_uint_max_get(char *buffer, const struct kernel_param *kp)
{
	const struct wgx_param_uint_max *param = kp->arg;

	return sysfs_emit(buffer, "%u\n", *param->value);
}

const struct kernel_param_ops wgx_param_uint_max_ops = {
	.set = wgx_param_uint_max_set,
	.get = wgx_param_uint_max_get,
};
