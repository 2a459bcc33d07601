# Integration suite: WireGuard drop-in mode (insmod wgx.ko compat=wireguard,
# docs/dropin.md).  The real, unmodified wg(8), wg-quick(8) and
# systemd-networkd from Debian drive wgx through the link kind and the
# generic netlink family "wireguard", and the in-tree wireguard.ko is never
# loaded behind their back.
#
# Every case starts from no wgx.ko and no wireguard.ko, loads what it needs,
# and when it ends (pass or fail) puts back the default load the runner
# expects (wgx.ko without compat, wireguard.ko unloaded), so the other suites
# see nothing of it.

# wireguard_loaded — true when the in-tree wireguard.ko is loaded.
wireguard_loaded() {
	grep -q '^wireguard ' /proc/modules
}

# no_wireguard_ko WHEN — fail if wireguard.ko got loaded.
no_wireguard_ko() {
	if wireguard_loaded; then
		fail "wireguard.ko got loaded $1"
	fi
}

# dropin_unload — no namespace, no wgx.ko, no wireguard.ko.
dropin_unload() {
	netns_cleanup
	if module_loaded; then rmmod wgx; fi
	if wireguard_loaded; then rmmod wireguard; fi
}

# dropin_restore — the runner's default load (an EXIT trap of each case).
dropin_restore() {
	[ -n "${DROPIN_DBUS_PID:-}" ] && kill "$DROPIN_DBUS_PID" 2>/dev/null
	# networkd_netdev's files: a later networkd would make its netdev again
	rm -f /run/systemd/network/50-wgn0.netdev /run/systemd/network/50-wgn0.network
	netns_cleanup
	if module_loaded; then rmmod wgx 2>/dev/null || true; fi
	if wireguard_loaded; then rmmod wireguard 2>/dev/null || true; fi
	insmod "$WGX_MODULE_KO" 2>/dev/null || true
}

# dropin_load — wgx.ko in drop-in mode on a clean slate; restored at exit.
dropin_load() {
	trap dropin_restore EXIT
	dropin_unload
	insmod "$WGX_MODULE_KO" compat=wireguard
	expect_eq "/sys/module/wgx/parameters/compat" wireguard "$(cat /sys/module/wgx/parameters/compat)"
}

# kmsg_mark — a unique line in the kernel log; kmsg_since MARK prints what followed it.
kmsg_mark() {
	local mark="dropin-test-mark-$$-$RANDOM"
	echo "$mark" >/dev/kmsg
	echo "$mark"
}
kmsg_since() {
	dmesg | sed -n "/$1/,\$p"
}

# peer_b — namespace b's end of the tunnels below: a wgx device of kind wgx
# (the module serves both kinds), 10.0.0.2/24, listening on 51821, with
# namespace a's key KA_pub as its peer (allowed IP 10.0.0.1/32).
peer_b() {
	umask 077
	printf '%s\n' "$KB" >/tmp/kb.key
	n b ip link add wgt0 type wgx
	n b "$WGX_TOOL" set wgt0 private-key /tmp/kb.key listen-port 51821 \
		peer "$KA_pub" allowed-ips 10.0.0.1/32
	n b ip addr add 10.0.0.2/24 dev wgt0
	n b ip link set wgt0 up
}

# The unmodified wg-quick brings up and tears down a tunnel on wgx.
test_wg_quick_up_down() {
	dropin_load
	netns_pair a b
	key_pair KA
	key_pair KB
	peer_b
	mkdir -p /tmp/wgq
	cat >/tmp/wgq/wgq0.conf <<-EOF
	[Interface]
	PrivateKey = $KA
	ListenPort = 51820
	Address = 10.0.0.1/24

	[Peer]
	PublicKey = $KB_pub
	Endpoint = 192.0.2.2:51821
	AllowedIPs = 10.0.0.2/32
	EOF
	n a wg-quick up /tmp/wgq/wgq0.conf
	n a ip -d link show wgq0 | grep -qw wireguard || fail "wgq0 is not of link kind wireguard"
	no_wireguard_ko "by ip link add type wireguard (wg-quick up)"
	# wg-quick's MTU: the route to the endpoint (veth, 1500) minus 80.
	expect_eq "MTU set by wg-quick" 1420 "$(n a cat /sys/class/net/wgq0/mtu)"
	ping_ok a 10.0.0.2
	[ "$(n a wg show wgq0 latest-handshakes | cut -f2)" -gt 0 ] || fail "no handshake in wg show"
	expect_eq "wg show peers" "$KB_pub" "$(n a wg show wgq0 peers)"
	n a wg-quick down /tmp/wgq/wgq0.conf
	if n a ip link show wgq0 >/dev/null 2>&1; then fail "wgq0 still there after wg-quick down"; fi
	no_wireguard_ko "during the case"
}

# wg(8) configures and shows a drop-in device; the "wireguard" family answers
# with WireGuard's attribute tree only and treats wgx's extensions as
# WireGuard treats unknown attributes (tests/integration/dropin_raw.py).
test_wg_tool_and_wireguard_family() {
	local line
	dropin_load
	ip netns add a
	n a ip link set lo up
	n a ip link add wg0 type wireguard
	n a ip link add wgx0 type wgx
	key_pair KA
	key_pair KB
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	n a wg set wg0 private-key /tmp/ka.key listen-port 51820 fwmark 0x42 \
		peer "$KB_pub" endpoint 192.0.2.2:51821 persistent-keepalive 25 \
		allowed-ips 10.9.0.0/24,fd00:9::/64
	expect_eq "wg show wg0 dump (interface)" "$KA	$KA_pub	51820	0x42" \
		"$(n a wg show wg0 dump | sed -n 1p)"
	line=$(n a wg show wg0 dump | sed -n 2p)
	expect_eq "wg show wg0 dump (peer, without allowed IPs)" \
		"$KB_pub	(none)	192.0.2.2:51821	0	0	0	25" "$(echo "$line" | cut -f1-3,5-)"
	# Sorted: the order of allowed IPs in a dump is not part of the contract.
	expect_eq "wg show wg0 dump (allowed IPs)" "10.9.0.0/24,fd00:9::/64" \
		"$(echo "$line" | cut -f4 | tr ',' '\n' | sort | paste -sd,)"
	# showconf -> setconf onto a second drop-in device: the same dump.
	n a ip link add wg1 type wireguard
	n a wg showconf wg0 >/tmp/wg0.conf
	sed -i 's/^ListenPort = .*/ListenPort = 51830/' /tmp/wg0.conf
	n a wg setconf wg1 /tmp/wg0.conf
	expect_eq "wg1 peers after setconf" "$(n a wg show wg0 dump | sed -n '2,$p')" \
		"$(n a wg show wg1 dump | sed -n '2,$p')"
	n a python3 "$WGX_REPO/tests/integration/dropin_raw.py" check wg0 wgx0 "$KB_pub"
	no_wireguard_ko "during the case"
}

# Loading wgx in drop-in mode next to wireguard.ko fails and says why; an
# unknown compat value is refused too.
test_refused_while_wireguard_loaded() {
	local mark
	trap dropin_restore EXIT
	dropin_unload
	mark=$(kmsg_mark)
	must_fail insmod "$WGX_MODULE_KO" compat=bogus
	kmsg_since "$mark" | grep -q 'wgx: compat=bogus: unknown mode' ||
		fail "no kernel log line for compat=bogus"
	modprobe wireguard
	mark=$(kmsg_mark)
	must_fail insmod "$WGX_MODULE_KO" compat=wireguard
	if module_loaded; then fail "wgx.ko loaded next to wireguard.ko"; fi
	kmsg_since "$mark" | grep -q 'wgx: compat=wireguard: the rtnl link kind "wireguard" is taken by the in-tree WireGuard (wireguard.ko is loaded' ||
		{ kmsg_since "$mark" >&2; fail "no kernel log line saying why"; }
	# wireguard.ko is unharmed, and wgx loads once it is gone.
	ip link add wgr0 type wireguard
	ip link del wgr0
	rmmod wireguard
	insmod "$WGX_MODULE_KO" compat=wireguard
}

# While wgx serves the kind, wireguard.ko cannot be loaded: its own init
# fails (the kind is taken) and leaves wgx and its devices as they were.
test_in_tree_cannot_load_over_dropin() {
	local mark
	dropin_load
	ip netns add a
	n a ip link add wg0 type wireguard
	key_pair KA
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	n a wg set wg0 private-key /tmp/ka.key
	mark=$(kmsg_mark)
	# modprobe itself exits 0: kmod takes the -EEXIST of wireguard.ko's
	# init for "already loaded".  insmod shows the error.
	modprobe wireguard || true
	no_wireguard_ko "by modprobe wireguard"
	must_fail insmod "$(modprobe --show-depends wireguard | awk '$1 == "insmod" {p = $2} END {print p}')"
	no_wireguard_ko "by insmod wireguard.ko"
	expect_eq "wg0's public key after the failed modprobe" "$KA_pub" \
		"$(n a wg show wg0 public-key)"
	n a ip link add wg1 type wireguard
	no_wireguard_ko "by a second ip link add type wireguard"
	if kmsg_since "$mark" | grep -E 'WARNING|BUG'; then fail "kernel report"; fi
}

# A real systemd-networkd (not PID 1: D-Bus system bus started by hand, /sys
# read-only in its namespace so it does not wait for udev) creates the
# device from .netdev/.network files, gives it its address, configures its
# peer and routes a ping; adding a [WireGuardPeer] and reloading adds it.
test_networkd_netdev() {
	local i peers
	dropin_load
	netns_pair a b
	key_pair KA
	key_pair KB
	key_pair KC
	peer_b
	# The cases run with umask 077 (peer_b): networkd and dbus-daemon drop
	# root, so their directories must be traversable.
	(umask 022 && mkdir -p /run/systemd/network /run/dbus)
	cat >/run/systemd/network/50-wgn0.netdev <<-EOF
	[NetDev]
	Name=wgn0
	Kind=wireguard

	[WireGuard]
	PrivateKey=$KA
	ListenPort=51820

	[WireGuardPeer]
	PublicKey=$KB_pub
	Endpoint=192.0.2.2:51821
	AllowedIPs=10.0.0.2/32
	EOF
	cat >/run/systemd/network/50-wgn0.network <<-EOF
	[Match]
	Name=wgn0

	[Network]
	Address=10.0.0.1/24
	LinkLocalAddressing=no
	EOF
	chmod 0644 /run/systemd/network/*
	dbus-daemon --system --nofork --nopidfile >/tmp/dbus.log 2>&1 &
	DROPIN_DBUS_PID=$!
	for i in $(seq 50); do
		[ -S /run/dbus/system_bus_socket ] && break
		sleep 0.1
	done
	[ -S /run/dbus/system_bus_socket ] || { cat /tmp/dbus.log >&2; fail "no D-Bus system bus"; }
	n a sh -c 'mount -o remount,bind,ro /sys && exec /lib/systemd/systemd-networkd' \
		>/tmp/networkd.log 2>&1 &
	for i in $(seq 100); do
		n a ip -4 -o addr show dev wgn0 2>/dev/null | grep -q ' 10.0.0.1/24 ' &&
			n a ip -o link show dev wgn0 | grep -q ',UP' && break
		sleep 0.2
	done
	n a ip -4 -o addr show dev wgn0 | grep -q ' 10.0.0.1/24 ' ||
		{ cat /tmp/networkd.log >&2; fail "networkd did not bring up wgn0 with 10.0.0.1/24"; }
	n a ip -d link show wgn0 | grep -qw wireguard || fail "wgn0 is not of link kind wireguard"
	expect_eq "peers from the .netdev" "$KB_pub" "$(n a wg show wgn0 peers)"
	ping_ok a 10.0.0.2
	no_wireguard_ko "by systemd-networkd"

	cat >>/run/systemd/network/50-wgn0.netdev <<-EOF

	[WireGuardPeer]
	PublicKey=$KC_pub
	AllowedIPs=10.0.0.3/32
	EOF
	n a networkctl reload
	sleep 1
	if ! n a wg show wgn0 peers | grep -qx "$KC_pub"; then
		# systemd < 257 creates netdevs from .netdev files but never updates
		# an existing one on reload (systemd issue #25547, fixed by PR
		# #34909 in 257); bookworm has 252: its way is delete + reload.
		echo "networkctl reload did not update the existing wgn0 (systemd $(networkctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')); delete + reload"
		n a networkctl delete wgn0
		n a networkctl reload
	fi
	for i in $(seq 100); do
		peers=$(n a wg show wgn0 peers 2>/dev/null | sort | tr '\n' ' ')
		[ "$peers" = "$(printf '%s\n' "$KB_pub" "$KC_pub" | sort | tr '\n' ' ')" ] &&
			n a ip -4 -o addr show dev wgn0 2>/dev/null | grep -q ' 10.0.0.1/24 ' && break
		sleep 0.2
	done
	expect_eq "peers after the reload" "$(printf '%s\n' "$KB_pub" "$KC_pub" | sort | tr '\n' ' ')" "$peers"
	ping_ok a 10.0.0.2
	no_wireguard_ko "during the case"
}

# modroot_make ROOT — a module tree ROOT/lib/modules/$(uname -r) for
# `modprobe -d ROOT`: wgx.ko (WGX_MODULE_KO) in updates/, wireguard.ko and
# the dependencies of both linked from the guest's tree, and depmod's index.
modroot_make() {
	local root=$1 kver m dep
	kver=$(uname -r)
	rm -rf "$root"
	mkdir -p "$root/lib/modules/$kver/kernel" "$root/lib/modules/$kver/updates"
	cp "$WGX_MODULE_KO" "$root/lib/modules/$kver/updates/wgx.ko"
	cp /lib/modules/"$kver"/modules.builtin* "$root/lib/modules/$kver/"
	for m in wireguard $(modinfo -F depends "$WGX_MODULE_KO" | tr ',' ' '); do
		for dep in $(modprobe --show-depends "$m" | awk '$1 == "insmod" {print $2}'); do
			ln -sf "$dep" "$root/lib/modules/$kver/kernel/"
		done
	done
	depmod -b "$root" "$kver"
}

# The wgx tool on a drop-in device (kind wireguard) speaks wgx's own family:
# wgx's settings are set there and read back, with the counters, in `wgx
# show` and `--json`; wg(8) keeps its WireGuard view of the same device.
test_wgx_tool_sets_wgx_options_on_wireguard_kind() {
	local j out
	dropin_load
	ip netns add a
	n a ip link set lo up
	n a ip link add wg0 type wireguard
	key_pair KA
	key_pair KB
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	n a "$WGX_TOOL" set wg0 private-key /tmp/ka.key listen-port 51820 listen-ports 2 rx-spread on \
		dscp copy priority-dscp CS1 handshake-budget 50 key-grace 30 \
		peer "$KB_pub" endpoint 192.0.2.2:51821 allowed-ips 10.9.0.0/24
	out=$(n a "$WGX_TOOL" show wg0)
	for line in "listening ports: 2 (51820-51821)" "rx spread: on" "dscp: copy" "priority dscp: CS1" \
		"handshake budget: 50/s" "key grace: 30 s"; do
		grep -qF "$line" <<<"$out" || { echo "$out" >&2; fail "wgx show wg0 lacks '$line'"; }
	done
	j=$(n a "$WGX_TOOL" show wg0 --json)
	expect_eq "--json: kind, listen ports, rx spread, dscp, priority dscp, budget, grace" \
		'wireguard 2 on copy [8] 50 30' \
		"$(jq -r '.interfaces[0] | "\(.kind) \(.listen_ports) \(.rx_spread_mode) \(.dscp) \(.priority_dscp | tojson) \(.handshake_budget) \(.key_grace)"' <<<"$j")"
	expect_eq "--json: device and peer counters" "object object" \
		"$(jq -r '.interfaces[0] | "\(.stats | type) \(.peers[0].stats | type)"' <<<"$j")"
	# Back to WireGuard's behaviour, through the tool as well.
	n a "$WGX_TOOL" set wg0 listen-ports 1 dscp clear key-grace 0
	expect_eq "--json after listen-ports 1 dscp clear key-grace 0" "1 clear 0" \
		"$(n a "$WGX_TOOL" show wg0 --json | jq -r '.interfaces[0] | "\(.listen_ports) \(.dscp) \(.key_grace)"')"
	# wg(8) sees the same device as WireGuard's.
	expect_eq "wg show wg0 dump (interface)" "$KA	$KA_pub	51820	off" "$(n a wg show wg0 dump | sed -n 1p)"
	expect_eq "wgx show wg0 dump = wg show wg0 dump" "$(n a wg show wg0 dump)" "$(n a "$WGX_TOOL" show wg0 dump)"
	no_wireguard_ko "during the case"
}

# The wgx tool on the in-tree wireguard.ko's device speaks the "wireguard"
# family, as wg(8) does, and refuses wgx's own settings there: with wgx.ko
# not loaded (and the tool does not have the kernel load it: the kernel's
# modprobe here could), and with wgx.ko loaded without compat (its family
# answers that the device is not its own).
test_wgx_tool_on_wireguard_ko() {
	local root=/tmp/modroot-tool wrap=/tmp/modprobe-tool j out
	DROPIN_OLD_MODPROBE=$(cat /proc/sys/kernel/modprobe)
	trap 'echo "$DROPIN_OLD_MODPROBE" >/proc/sys/kernel/modprobe; dropin_restore' EXIT
	dropin_unload
	modprobe wireguard
	modroot_make "$root"
	printf '#!/bin/sh\nexec /sbin/modprobe -d %s "$@"\n' "$root" >"$wrap"
	chmod 0755 "$wrap"
	echo "$wrap" >/proc/sys/kernel/modprobe
	ip netns add a
	n a ip link add wg0 type wireguard
	key_pair KA
	key_pair KB
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	n a "$WGX_TOOL" set wg0 private-key /tmp/ka.key listen-port 51820 \
		peer "$KB_pub" endpoint 192.0.2.2:51821 allowed-ips 10.9.0.0/24
	expect_eq "wg show wg0 dump (interface)" "$KA	$KA_pub	51820	off" "$(n a wg show wg0 dump | sed -n 1p)"
	expect_eq "wgx show wg0 dump = wg show wg0 dump" "$(n a wg show wg0 dump)" "$(n a "$WGX_TOOL" show wg0 dump)"
	out=$(n a "$WGX_TOOL" set wg0 listen-ports 2 2>&1) && fail "listen-ports 2 accepted on wireguard.ko's device"
	grep -q "listen-ports 2: .* is a WireGuard device" <<<"$out" || fail "listen-ports 2: '$out'"
	if module_loaded; then fail "the wgx tool had the kernel load wgx.ko"; fi
	# The kernel's modprobe does load wgx.ko on a request for it.
	n a ip link add wgx0 type wgx
	module_loaded || fail "no wgx.ko loaded on request: the check above proves nothing"
	expect_eq "compat" none "$(cat /sys/module/wgx/parameters/compat)"

	n a "$WGX_TOOL" set wg0 fwmark 0x42 peer "$KB_pub" persistent-keepalive 25
	expect_eq "wg show wg0 dump (interface), wgx loaded" "$KA	$KA_pub	51820	0x42" \
		"$(n a wg show wg0 dump | sed -n 1p)"
	expect_eq "wgx show wg0 dump = wg show wg0 dump, wgx loaded" "$(n a wg show wg0 dump)" \
		"$(n a "$WGX_TOOL" show wg0 dump)"
	j=$(n a "$WGX_TOOL" show wg0 --json)
	expect_eq "--json: kind, counters, keepalive" "wireguard null 25" \
		"$(jq -r '.interfaces[0] | "\(.kind) \(.stats) \(.peers[0].persistent_keepalive)"' <<<"$j")"
	out=$(n a "$WGX_TOOL" set wg0 key-grace 30 2>&1) && fail "key-grace 30 accepted on wireguard.ko's device"
	grep -q "key-grace: .* is a WireGuard device" <<<"$out" || fail "key-grace 30: '$out'"
}

# The /etc/modprobe.d/wgx.conf of docs/dropin.md, used as written there: a
# kernel request for WireGuard's kind or family, and `modprobe wireguard`,
# load wgx in drop-in mode and never wireguard.ko.  The guest's /etc and
# /lib/modules are the host's, read-only, so the kernel's modprobe
# (/proc/sys/kernel/modprobe) becomes a wrapper that points the real
# modprobe at the file (-C) and at a module tree holding wgx.ko, wireguard.ko
# and their dependencies (-d); the file's /sbin/modprobe becomes the wrapper.
test_modprobe_conf_routes_wireguard_to_wgx() {
	local root=/tmp/modroot conf=/tmp/wgx-modprobe.d wrap=/tmp/modprobe-wgx
	DROPIN_OLD_MODPROBE=$(cat /proc/sys/kernel/modprobe)
	trap 'echo "$DROPIN_OLD_MODPROBE" >/proc/sys/kernel/modprobe; dropin_restore' EXIT
	dropin_unload
	rm -rf "$conf"
	mkdir -p "$conf"
	modroot_make "$root"
	sed -n '/<!-- wgx.conf begin/,/<!-- wgx.conf end/p' "$WGX_REPO/docs/dropin.md" |
		sed -e '/^<!--/d' -e '/^```/d' -e "s|/sbin/modprobe|$wrap|" >"$conf/wgx.conf"
	grep -q '^options wgx compat=wireguard$' "$conf/wgx.conf" || fail "no options line in docs/dropin.md's wgx.conf"
	grep -q "^install wireguard $wrap wgx\$" "$conf/wgx.conf" || fail "no install line in docs/dropin.md's wgx.conf"
	printf '#!/bin/sh\nexec /sbin/modprobe -C %s -d %s "$@"\n' "$conf" "$root" >"$wrap"
	chmod 0755 "$wrap"
	echo "$wrap" >/proc/sys/kernel/modprobe

	# The family: wg resolves "wireguard" through the genetlink controller.
	ip netns add a
	must_fail n a wg show nosuch0
	module_loaded || fail "wg did not get wgx loaded"
	expect_eq "compat after the family request" wireguard "$(cat /sys/module/wgx/parameters/compat)"
	no_wireguard_ko "by the family request"
	# The link kind.
	netns_cleanup
	rmmod wgx
	ip netns add a
	n a ip link add wg0 type wireguard
	module_loaded || fail "ip link add type wireguard did not get wgx loaded"
	expect_eq "compat after the link kind request" wireguard "$(cat /sys/module/wgx/parameters/compat)"
	no_wireguard_ko "by the link kind request"
	# By name.
	netns_cleanup
	rmmod wgx
	"$wrap" wireguard
	module_loaded || fail "modprobe wireguard did not load wgx"
	no_wireguard_ko "by modprobe wireguard"
}
