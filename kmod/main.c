// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module entry points of wgx.ko and its parameter compat, the
 * WireGuard drop-in mode (docs/dropin.md); the debug build's (WGX_DEBUG,
 * kmod/Kbuild) test-only timer_scale is in clock.c.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/rtnetlink.h>

#include "bench.h"
#include "clock.h"
#include "telemetry_bench.h"
#include "compat.h"
#include "debugfs.h"
#include "device.h"
#include "devmtu.h"
#include <wgx/platform.h>
#include "peer.h"
#include "hsworker.h"
#include "precompute.h"
#include "netlink.h"
#include "timers.h"

#ifdef WGX_DEBUG
/* What marks the debug build: `modinfo -F test_hooks` (make install refuses it). */
MODULE_INFO(test_hooks, "timer_scale handshake_hold rx_worker_delay_ms crypto_ceiling telemetry_cost");
#endif

/*
 * compat=wireguard: besides its own link kind and family "wgx", wgx serves
 * the link kind "wireguard" and the generic netlink family "wireguard" with
 * WireGuard's exact attribute tree, so wg(8), wg-quick(8) and
 * systemd-networkd drive it as they drive the in-tree wireguard.ko, which
 * must not be loaded (both cannot own those names).  Read-only once loaded.
 */
static bool wgx_compat_wireguard;

static int wgx_compat_set(const char *val, const struct kernel_param *kp)
{
	if (sysfs_streq(val, "wireguard")) {
		wgx_compat_wireguard = true;
		return 0;
	}
	if (sysfs_streq(val, "none") || sysfs_streq(val, "")) {
		wgx_compat_wireguard = false;
		return 0;
	}
	pr_err("wgx: compat=%s: unknown mode; the only one is compat=wireguard (default: none)\n",
	       val);
	return -EINVAL;
}

static int wgx_compat_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n", wgx_compat_wireguard ? "wireguard" : "none");
}

static const struct kernel_param_ops wgx_compat_ops = {
	.set = wgx_compat_set,
	.get = wgx_compat_get,
};

module_param_cb(compat, &wgx_compat_ops, NULL, 0444);
MODULE_PARM_DESC(compat,
		 "wireguard: WireGuard drop-in mode: also serve the link kind and generic netlink family \"wireguard\" (as wireguard.ko does, which must not be loaded), so wg, wg-quick and systemd-networkd drive wgx unchanged; none (default): only \"wgx\"");

/* The message of a name WireGuard owns already; -EEXIST is the only way that shows. */
static void wgx_compat_report_taken(const char *what, int ret)
{
	if (ret == -EEXIST)
		pr_err("wgx: compat=wireguard: the %s \"wireguard\" is taken by the in-tree WireGuard (wireguard.ko is loaded, or built into this kernel): not loading; unload it first (rmmod wireguard), or load wgx without compat=wireguard\n",
		       what);
	else
		pr_err("wgx: compat=wireguard: cannot register the %s \"wireguard\": error %d\n",
		       what, ret);
}

static int __init wgx_mod_init(void)
{
	int ret;

#ifdef WGX_DEBUG
	if (wgx_timer_scale == 0)
		wgx_timer_scale = 1;
	if (wgx_timer_scale != 1)
		pr_warn("wgx: protocol timers divided by %u (timer_scale): for tests only\n",
			wgx_timer_scale);
#endif
	ret = wgx_platform_init();
	if (ret < 0)
		return ret;
	ret = wgx_peer_init();
	if (ret < 0)
		goto err_platform;
	ret = wgx_precompute_init();
	if (ret < 0)
		goto err_peer;
	ret = wgx_hsworker_init();
	if (ret < 0)
		goto err_precompute;
	ret = wgx_devmtu_init();
	if (ret < 0)
		goto err_hsworker;
	ret = wgx_device_init();
	if (ret < 0)
		goto err_devmtu;
	if (wgx_compat_wireguard) {
		ret = wgx_device_wg_init();
		if (ret < 0) {
			wgx_compat_report_taken("rtnl link kind", ret);
			goto err_device;
		}
	}
	ret = wgx_genetlink_init();
	if (ret < 0)
		goto err_device_wg;
	if (wgx_compat_wireguard) {
		ret = wgx_genetlink_wg_init();
		if (ret < 0) {
			wgx_compat_report_taken("generic netlink family", ret);
			goto err_genetlink;
		}
	}
	wgx_debugfs_init();
	ret = wgx_bench_init();
	if (ret < 0)
		goto err_debugfs;
	wgx_telemetry_bench_init();
	pr_info("wgx: WireGuard-compatible tunnel loaded%s\n",
		wgx_compat_wireguard ?
		", drop-in mode: serving the link kind and generic netlink family \"wireguard\"" : "");
	return 0;

err_debugfs:
	wgx_debugfs_exit();
	if (wgx_compat_wireguard)
		wgx_genetlink_wg_uninit();
err_genetlink:
	wgx_genetlink_uninit();
err_device_wg:
	if (wgx_compat_wireguard)
		wgx_device_wg_exit();
err_device:
	wgx_device_exit();
err_devmtu:
	wgx_devmtu_exit();
err_hsworker:
	wgx_hsworker_exit();
err_precompute:
	wgx_precompute_exit();
err_peer:
	rcu_barrier();
	wgx_peer_exit();
err_platform:
	wgx_platform_exit();
	return ret;
}

static void __exit wgx_mod_exit(void)
{
	wgx_telemetry_bench_uninit();
	wgx_bench_uninit();
	wgx_debugfs_exit();
	if (wgx_compat_wireguard)
		wgx_genetlink_wg_uninit();
	wgx_genetlink_uninit();
	if (wgx_compat_wireguard)
		wgx_device_wg_exit();
	wgx_device_exit();
	wgx_devmtu_exit();
	/* Every device, and so every user of the handshake threads, is gone. */
	wgx_hsworker_exit();
	/* Every device, and so every peer with a slot and every taker, is gone. */
	wgx_precompute_exit();
	/* Deferred frees of the core (wgx_platform_free_deferred) must run before the code goes. */
	rcu_barrier();
	/* The peers' RCU frees ran with them. */
	wgx_peer_exit();
	wgx_platform_exit();
}

module_init(wgx_mod_init);
module_exit(wgx_mod_exit);
MODULE_LICENSE("GPL v2");
MODULE_DESCRIPTION("wgx: WireGuard-compatible multi-queue tunnel");
MODULE_VERSION(WGX_VERSION);
/*
 * Only wgx's own names autoload wgx.  No alias for "wireguard"
 * (rtnl-link-wireguard, the "wireguard" genl family): modprobe would then
 * load wireguard.ko and wgx.ko for one request.  docs/dropin.md shows how an
 * administrator routes those requests to wgx (an install rule).
 */
MODULE_ALIAS_RTNL_LINK("wgx");
MODULE_ALIAS_GENL_FAMILY("wgx");
