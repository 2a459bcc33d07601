// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module entry points of wgx.ko.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <net/genetlink.h>
#include <net/rtnetlink.h>

#include "bench.h"
#include "device.h"
#include "netlink.h"
#include "timers.h"

module_param_named(timer_scale, wgx_timer_scale, uint, 0444);
MODULE_PARM_DESC(timer_scale,
		 "TESTS ONLY: divide every protocol time (REKEY_AFTER_TIME, ...) by this; default 1");

static int __init wgx_mod_init(void)
{
	int ret;

	if (wgx_timer_scale == 0)
		wgx_timer_scale = 1;
	if (wgx_timer_scale != 1)
		pr_warn("wgx: protocol timers divided by %u (timer_scale): for tests only\n",
			wgx_timer_scale);
	ret = wgx_device_init();
	if (ret < 0)
		return ret;
	ret = wgx_genetlink_init();
	if (ret < 0)
		goto err_device;
	ret = wgx_bench_init();
	if (ret < 0)
		goto err_genetlink;
	pr_info("wgx: WireGuard-compatible tunnel loaded\n");
	return 0;

err_genetlink:
	wgx_genetlink_uninit();
err_device:
	wgx_device_exit();
	return ret;
}

static void __exit wgx_mod_exit(void)
{
	wgx_bench_uninit();
	wgx_genetlink_uninit();
	wgx_device_exit();
	/* Deferred frees of the core (wgx_platform_free_deferred) must run before the code goes. */
	rcu_barrier();
}

module_init(wgx_mod_init);
module_exit(wgx_mod_exit);
MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("wgx: WireGuard-compatible multi-queue tunnel");
MODULE_VERSION(WGX_VERSION);
MODULE_ALIAS_RTNL_LINK("wgx");
MODULE_ALIAS_GENL_FAMILY("wgx");
