// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module entry points of wgx.ko.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <net/rtnetlink.h>

#include "device.h"

static int __init wgx_mod_init(void)
{
	int ret;

	ret = wgx_device_init();
	if (ret < 0)
		return ret;
	pr_info("wgx: WireGuard-compatible tunnel loaded\n");
	return 0;
}

static void __exit wgx_mod_exit(void)
{
	wgx_device_exit();
}

module_init(wgx_mod_init);
module_exit(wgx_mod_exit);
MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("wgx: WireGuard-compatible multi-queue tunnel");
MODULE_ALIAS_RTNL_LINK("wgx");
