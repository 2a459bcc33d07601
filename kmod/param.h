/* SPDX-License-Identifier: GPL-2.0 */
/*
 * param.h - the kind of module parameter several files of wgx share: an
 * unsigned count with an upper bound.
 */
#ifndef _WGX_PARAM_H
#define _WGX_PARAM_H

#include <linux/moduleparam.h>

/**
 * struct wgx_param_uint_max - an unsigned module parameter with an upper bound.
 * @value: the variable the parameter sets.
 * @max: the largest value accepted.
 * @unit: what the value counts, plural, for the error message ("peers").
 *
 * Passed as the @arg of module_param_cb() with &wgx_param_uint_max_ops.
 * Not const: module_param_cb() stores a plain pointer.
 */
struct wgx_param_uint_max {
	unsigned int *value;
	unsigned int max;
	const char *unit;
};

/*
 * Sets *value from a decimal, 0x or 0 prefixed number; a value above @max
 * fails with -ERANGE and a kernel log line "wgx: NAME=N: at most MAX UNIT",
 * a value that is not a number with -EINVAL (kstrtouint).  Reads print the
 * value.  For 0444 parameters, set only at load: no lock.
 */
extern const struct kernel_param_ops wgx_param_uint_max_ops;

#endif /* _WGX_PARAM_H */
