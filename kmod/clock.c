// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - the debug build's module parameter timer_scale (clock.h), for
 * tests only: every protocol time divided by it.  Empty in a release build.
 */
#include <linux/moduleparam.h>

#include "clock.h"

#ifdef WGX_DEBUG
unsigned int wgx_timer_scale = 1;
module_param_named(timer_scale, wgx_timer_scale, uint, 0444);
MODULE_PARM_DESC(timer_scale,
		 "TESTS ONLY: divide every protocol time (REKEY_AFTER_TIME, ...) by this; default 1");
#endif
