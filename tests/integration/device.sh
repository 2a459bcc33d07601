# Integration suite: the wgx net_device and its link kind.

# The device's link kind is what `ip -d link show` reports as its kind (not
# any "wgx" in the output: the name wgx0 always holds one), and `up` sets
# IFF_UP among its flags.  (wgx0 lives in the root namespace, which the
# runner does not clean: deleted at exit whatever happens.)
test_link_add_show_del() {
	trap 'ip link del wgx0 2>/dev/null || true' EXIT
	ip link add wgx0 type wgx
	expect_eq "link kind" wgx "$(ip -d -j link show wgx0 | jq -r '.[0].linkinfo.info_kind')"
	expect_eq mtu 1420 "$(cat /sys/class/net/wgx0/mtu)"
	expect_eq type 65534 "$(cat /sys/class/net/wgx0/type)" # ARPHRD_NONE
	expect_eq "UP before up" false "$(ip -j link show wgx0 | jq 'any(.[0].flags[]; . == "UP")')"
	ip link set wgx0 up
	expect_eq "UP after up" true "$(ip -j link show wgx0 | jq 'any(.[0].flags[]; . == "UP")')"
	ip link del wgx0
	must_fail ip link show wgx0 2>/dev/null
}

test_multiqueue_per_cpu() {
	ip link add wgx0 type wgx
	local cpus queues
	cpus=$(cat /sys/devices/system/cpu/possible | awk -F- '{print ($2 == "" ? 1 : $2 + 1)}')
	queues=$(ls -d /sys/class/net/wgx0/queues/tx-* | wc -l)
	expect_eq "tx queues" "$cpus" "$queues"
	ip link del wgx0
}

test_mtu_bounds() {
	ip link add wgx0 mtu 1280 type wgx
	expect_eq mtu 1280 "$(cat /sys/class/net/wgx0/mtu)"
	must_fail ip link set wgx0 mtu 67 2>/dev/null
	must_fail ip link set wgx0 mtu 70000 2>/dev/null
	ip link set wgx0 mtu 9000
	expect_eq mtu 9000 "$(cat /sys/class/net/wgx0/mtu)"
	ip link del wgx0
}

test_unrouted_packet_gets_unreachable() {
	ip link add wgx0 type wgx
	ip addr add 10.99.0.1/24 dev wgx0
	ip link set wgx0 up
	local out
	out=$(ping -c 1 -W 2 10.99.0.2 2>&1 || true)
	echo "$out"
	echo "$out" | grep -qi 'unreachable'
	ip link del wgx0
}

test_rmmod_with_devices_present() {
	ip link add wgx0 type wgx
	ip link add wgx1 type wgx
	ip netns add other
	ip link add wgx2 type wgx
	ip link set wgx2 netns other
	ip link set wgx0 up
	rmmod wgx
	must_fail ip link show wgx0 2>/dev/null
	must_fail ip netns exec other ip link show wgx2 2>/dev/null
	insmod "$WGX_MODULE_KO"
}

# A wgx device has no neighbours: no IPv6 link-local address (so no router
# solicitations or MLD reports go into the tunnel only to be dropped for want
# of a peer) and no ICMP redirects, as WireGuard does.
test_no_link_local_no_redirects() {
	ip netns add a
	n a ip link add wgt0 type wgx
	n a ip link set wgt0 up
	n a ip addr add 10.0.0.1/24 dev wgt0
	sleep 2
	expect_eq "IPv6 link-local addresses" "" "$(n a ip -6 addr show dev wgt0 scope link)"
	expect_eq "send_redirects (device)" 0 "$(n a cat /proc/sys/net/ipv4/conf/wgt0/send_redirects)"
	expect_eq "send_redirects (all)" 0 "$(n a cat /proc/sys/net/ipv4/conf/all/send_redirects)"
	expect_eq "packets dropped for want of a peer" 0 \
		"$(n a "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].stats.tx_drop_no_peer')"
}

# The module decides its datapath itself: its parameters are only the two
# choices docs/guide.md ("Module parameters") explains (plus the debug
# build's test hooks), and the switches kept for tests and the bench are
# root's debugfs files, not parameters.
test_module_parameters_are_the_choices() {
	local f want got
	want="compat precompute"
	# The debug build's test hooks (kmod/Kbuild, WGX_DEBUG).
	[ -n "$(modinfo -F test_hooks "$WGX_MODULE_KO" 2>/dev/null)" ] && want="$want handshake_hold rx_worker_delay_ms timer_scale"
	want=$(printf '%s\n' $want | sort | xargs)
	got=$(ls /sys/module/wgx/parameters | sort | xargs)
	expect_eq "module parameters" "$want" "$got"
	for f in compat precompute; do
		grep -q "^| \`$f\` |" "$WGX_REPO/docs/guide.md" || fail "docs/guide.md does not explain $f"
	done
	for f in bql lane_inline tcp_telemetry handshake_nice; do
		[ -f "/sys/kernel/debug/wgx/$f" ] || fail "no debugfs switch $f"
		expect_eq "mode of debugfs $f" 600 "$(stat -c %a "/sys/kernel/debug/wgx/$f")"
	done
	expect_eq "bql" N "$(cat /sys/kernel/debug/wgx/bql)"
	expect_eq "lane_inline" Y "$(cat /sys/kernel/debug/wgx/lane_inline)"
	expect_eq "tcp_telemetry" Y "$(cat /sys/kernel/debug/wgx/tcp_telemetry)"
	expect_eq "handshake_nice" 10 "$(cat /sys/kernel/debug/wgx/handshake_nice)"
}

# A device's memory is charged to the memory cgroup of the process that
# creates it (a CAP_NET_ADMIN user namespace cannot make the host pay for
# its devices): the handshake ratelimiter (176 KiB), the handshake ring
# (4096 pointers, 32 KiB) and, per possible CPU, the tx ring and the
# priority lane (1024 + 256 pointers, 10,240 bytes).  The rx-spread rings
# (4096 pointers per possible CPU) come only with the device's first
# ordered queue, charged to whoever makes it: here `rx-spread on` with a
# peer, run from the same cgroup, must add at least their size.  Each peer's
# per-CPU route cache (struct dst_cache_pcpu, 40 bytes a CPU) is charged at
# the peer's creation: 128 more peers add at least 128 x 40 bytes per
# possible CPU to the cgroup's per-CPU memory.  The kernel memory of a cgroup
# whose only processes made the device must reach each sum (memory.stat
# "kernel" and "percpu": its statistics are flushed periodically, so they
# are polled for up to 10 s).
# cgroup_stat_at_least CGROUP KEY BYTES — KEY of CGROUP's memory.stat once
# it reaches BYTES, or its value after 10 s.
cgroup_stat_at_least() {
	local i v=0
	for i in $(seq 100); do
		v=$(awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat")
		[ "${v:-0}" -ge "$3" ] && break
		sleep 0.1
	done
	echo "${v:-0}"
}

test_memory_charged_to_creating_cgroup() {
	local root=/sys/fs/cgroup cg ncpu want rings kernel=0 spread=0 K percpu pcpu_want more i peers
	cg=$root/wgx-memcg
	trap 'ip link del wgm0 2>/dev/null || true; rmdir '"$cg"' 2>/dev/null || true' EXIT
	# The debug test kernel has no cgroup v2 filesystem:
	# no memory controller to charge, so nothing to check there.
	if ! grep -qw cgroup2 /proc/filesystems; then
		echo "this kernel has no cgroup v2: the charge cannot be observed here"
		return 0
	fi
	[ -f $root/cgroup.controllers ] || mount -t cgroup2 none $root
	grep -qw memory $root/cgroup.controllers || fail "no memory controller in $root"
	echo +memory >$root/cgroup.subtree_control
	mkdir "$cg"
	ncpu=$(python3 -c 'import sys
n = 0
for r in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = r.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
	want=$((176 * 1024 + 4096 * 8 + ncpu * (1024 + 256) * 8))
	rings=$((ncpu * 4096 * 8))
	key_pair K
	sh -c "echo \$\$ >$cg/cgroup.procs && exec ip link add wgm0 type wgx" || fail "ip link add failed"
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $WGX_TOOL set wgm0 peer $K_pub allowed-ips 10.9.9.9/32" ||
		fail "adding a peer failed"
	kernel=$(cgroup_stat_at_least "$cg" kernel "$want")
	echo "kernel memory charged to the creating cgroup: $kernel bytes, at least $want expected ($ncpu possible CPUs)"
	[ "$kernel" -ge "$want" ] || { cat "$cg/memory.stat"; fail "the device's memory is not charged to the cgroup that created it"; }
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $WGX_TOOL set wgm0 rx-spread on" || fail "rx-spread on failed"
	spread=$(cgroup_stat_at_least "$cg" kernel $((kernel + rings)))
	echo "rx-spread on: $((spread - kernel)) more bytes, at least $rings expected (the rings)"
	[ "$spread" -ge $((kernel + rings)) ] ||
		{ cat "$cg/memory.stat"; fail "the rx-spread rings were not made (or not charged) with the first ordered queue"; }
	percpu=$(awk '$1 == "percpu" { print $2 }' "$cg/memory.stat")
	peers=()
	for i in $(seq 128); do
		peers+=(peer "$(head -c 32 /dev/urandom | base64)")
	done
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$WGX_TOOL" set wgm0 "${peers[@]}" ||
		fail "adding 128 peers failed"
	pcpu_want=$((128 * 40 * ncpu))
	more=$(cgroup_stat_at_least "$cg" percpu $((percpu + pcpu_want)))
	echo "128 more peers: $((more - percpu)) more bytes of per-CPU memory, at least $pcpu_want expected"
	[ "$more" -ge $((percpu + pcpu_want)) ] ||
		{ cat "$cg/memory.stat"; fail "the peers' per-CPU memory is not charged to the cgroup that added them"; }
	ip link del wgm0
}
