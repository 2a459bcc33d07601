/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels wgx builds for, in one
 * place: Debian bookworm's Linux 6.1 and bookworm-backports' 6.12.  The
 * rest of kmod/ calls the wgx_compat_*() helpers below and has no version
 * checks of its own.  Each branch names the first kernel with the newer
 * API; the versions in between are not tested, so the build refuses any
 * kernel outside [WGX_COMPAT_MIN, WGX_COMPAT_MAX] with an error naming it.
 *
 * Adding a kernel: raise WGX_COMPAT_MAX, build (make KDIR=...; W=1 makes
 * warnings errors) and put each difference here as a helper; scripts/
 * kernel612 shows how a second kernel is built and tested in the VM.
 */
#ifndef WGX_COMPAT_H
#define WGX_COMPAT_H

#include <generated/utsrelease.h>
#include <linux/version.h>
#include <net/genetlink.h>
/*
 * skb_gso_segment(), skb_gso_validate_network_len(): <linux/netdevice.h> and
 * <linux/skbuff.h> until 6.3, <net/gso.h> from 6.4 on.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#include <net/gso.h>
#endif

/* The supported range: the oldest and the newest (major, minor) series. */
#define WGX_COMPAT_MIN KERNEL_VERSION(6, 1, 0)
#define WGX_COMPAT_MAX KERNEL_VERSION(6, 12, 255)

#if LINUX_VERSION_CODE < WGX_COMPAT_MIN
#pragma message "wgx: building against Linux " UTS_RELEASE
#error "wgx: this kernel is too old: wgx supports Linux 6.1 to 6.12 (kmod/compat.h)"
#elif LINUX_VERSION_CODE > WGX_COMPAT_MAX
#pragma message "wgx: building against Linux " UTS_RELEASE
#error "wgx: this kernel is too new: wgx supports Linux 6.1 to 6.12 (kmod/compat.h)"
#endif

/*
 * wgx_compat_genl_dump_attrs - the parsed top-level attributes of the
 * request a generic netlink dump answers, in its start and dumpit
 * callbacks (valid until done).  6.6 moved them into a struct genl_info
 * inside struct genl_dumpit_info.
 */
static inline struct nlattr **wgx_compat_genl_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* WGX_COMPAT_H */
