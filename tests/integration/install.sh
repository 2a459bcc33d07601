# Integration suite: wgx as installed by `make install` — wgx-quick
# up/down/save (addresses,
# automatic MTU, routes, default-route policy rules, hooks, SaveConfig), the
# commands of wgx@.service and wgx-quick@.service read from the installed
# unit files, and a real systemd-networkd giving the wgx link its addresses
# and routes from the installed example .network file (native mode); and
# the operator's guide's quickstart (docs/guide.md, section 2), its shell
# blocks run as written on two nodes.
#
# The guest's root is the host's, read-only: each case lays tmpfs-backed
# overlays on /usr/local, /etc and /lib/modules/<kernel> (lower layer: the
# host's files) and runs `make install-only` into them, so the installed
# paths are the real ones; the overlays go when the case ends.

WGX_OVERLAY_TOP=/tmp/wgx-install-overlay
WGX_OVERLAY_DIRS=(/usr/local /etc "/lib/modules/$(uname -r)")

# guest_install — overlays, then `make install-only DESTDIR=/`: the real
# paths, without the `depmod -a` that a plain `make install` runs (it reads
# all ~4000 modules of the kernel: 20 s under TCG; tests/install/run checks
# that install runs it).
guest_install() {
	local d i=0
	modprobe overlay
	for d in "${WGX_OVERLAY_DIRS[@]}"; do
		mkdir -p "$WGX_OVERLAY_TOP/$i/upper" "$WGX_OVERLAY_TOP/$i/work"
		mount -t overlay overlay \
			-o "lowerdir=$d,upperdir=$WGX_OVERLAY_TOP/$i/upper,workdir=$WGX_OVERLAY_TOP/$i/work" "$d"
		i=$((i + 1))
	done
	trap guest_uninstall EXIT
	# WGX_DEBUG=1: the suites run the debug module, which install-only
	# otherwise refuses.
	make -C "$WGX_REPO" -s --no-print-directory install-only DESTDIR=/ WGX_DEBUG=1 >/dev/null
}

NETWORKD_PID=
guest_uninstall() {
	local i
	if [ -n "$NETWORKD_PID" ]; then
		kill "$NETWORKD_PID" 2>/dev/null && wait "$NETWORKD_PID" 2>/dev/null
		rm -rf /run/systemd/netif
	fi
	for ((i = ${#WGX_OVERLAY_DIRS[@]} - 1; i >= 0; i--)); do
		umount "${WGX_OVERLAY_DIRS[i]}" 2>/dev/null || umount -l "${WGX_OVERLAY_DIRS[i]}"
	done
	rm -rf "$WGX_OVERLAY_TOP"
}

# unit_run NS UNIT INSTANCE KEY — run the KEY= lines (ExecStart, ExecStop,
# ...) of the installed unit UNIT in file order in namespace NS as systemd
# would: %i/%I = INSTANCE, a leading "-" ignores failure; returns the number
# of lines run in UNIT_LINES_RUN.  Each line runs as `$UNIT_EXEC NS bash -c
# LINE' (default n; quickstart_node for a node of the guide's quickstart).
unit_run() {
	local ns=$1 unit=/usr/local/lib/systemd/system/$2 inst=$3 key=$4 line cmd ignore
	UNIT_LINES_RUN=0
	[ -f "$unit" ] || fail "$unit is not installed"
	while IFS= read -r line; do
		[[ $line == "$key="* ]] || continue
		cmd=${line#*=}
		ignore=0
		while [[ $cmd == [-@:+!]* ]]; do
			[[ $cmd == -* ]] && ignore=1
			cmd=${cmd:1}
		done
		cmd=${cmd//%i/$inst}
		cmd=${cmd//%I/$inst}
		echo "$2 $key: $cmd"
		if ! ${UNIT_EXEC:-n} "$ns" bash -c "$cmd"; then
			[ "$ignore" = 1 ] || fail "$2: $key=$cmd failed"
		fi
		UNIT_LINES_RUN=$((UNIT_LINES_RUN + 1))
	done <"$unit"
}

# net_state NS — rules and routes of every table, both families (what
# wgx-quick must leave as it found).
net_state() {
	n "$1" ip -4 rule show
	n "$1" ip -6 rule show
	n "$1" ip -4 route show table all
	n "$1" ip -6 route show table all | grep -v '^multicast\|^local fe80\|^fe80' || true
}

# quick_peer — namespace b: a plain wgx peer (wgt0, configured with wgx set)
# for a wgx-quick interface in a with key KA at 192.0.2.1:51820; b has
# 10.0.0.2/24, fd00::2/64 and 10.99.0.2/32 (reachable from a only through a
# default route into the tunnel); KB is its key.
quick_peer() {
	netns_pair a b
	key_pair KA
	key_pair KB
	umask 077
	printf '%s\n' "$KB" >/tmp/kb.key
	n b ip link add wgt0 type wgx
	n b "$WGX_TOOL" set wgt0 private-key /tmp/kb.key listen-port 51821 \
		peer "$KA_pub" endpoint 192.0.2.1:51820 allowed-ips 0.0.0.0/0,::/0
	n b ip addr add 10.0.0.2/24 dev wgt0
	n b ip addr add fd00::2/64 dev wgt0 nodad
	n b ip addr add 10.99.0.2/32 dev wgt0
	n b ip link set wgt0 up
}

test_quick_up_down_save() {
	guest_install
	quick_peer
	# jumbo frames on the path: the automatic MTU must follow them
	n a ip link set va mtu 9000
	n b ip link set vb mtu 9000
	local before conf=/etc/wgx/wgxq0.conf
	before=$(net_state a)
	cat >"$conf" <<EOF
[Interface]
PrivateKey = $KA
ListenPort = 51820
Address = 10.0.0.1/24, fd00::1/64
PostUp = echo up %i >/tmp/hook-%i
PostDown = rm /tmp/hook-%i
SaveConfig = true

[Peer]
PublicKey = $KB_pub
Endpoint = 192.0.2.2:51821
AllowedIPs = 0.0.0.0/0, ::/0
EOF
	chmod 600 "$conf"
	n a /usr/local/bin/wgx-quick up wgxq0
	n a ip -o addr show dev wgxq0 | grep -q 'inet 10.0.0.1/24' || fail "no 10.0.0.1/24"
	n a ip -o addr show dev wgxq0 | grep -q 'inet6 fd00::1/64' || fail "no fd00::1/64"
	expect_eq "automatic MTU (9000 - 80)" 8920 "$(n a cat /sys/class/net/wgxq0/mtu)"
	# no MTU in the file: the module's auto is left on, and it follows the underlay
	expect_eq mtu_auto true "$(n a "$WGX_TOOL" show wgxq0 --json | jq -r '.interfaces[0].mtu_auto')"
	n a ip link set va mtu 4000
	expect_eq "automatic MTU (4000 - 80)" 3920 "$(n a cat /sys/class/net/wgxq0/mtu)"
	n a ip link set va mtu 9000
	expect_eq fwmark 0xca6c "$(n a "$WGX_TOOL" show wgxq0 fwmark)"
	local fam
	for fam in -4 -6; do
		n a ip $fam rule show | grep -q 'not from all fwmark 0xca6c lookup 51820' || fail "ip $fam: no fwmark rule"
		n a ip $fam rule show | grep -q 'from all lookup main suppress_prefixlength 0' || fail "ip $fam: no suppress rule"
		n a ip $fam route show table 51820 | grep -q '^default dev wgxq0' || fail "ip $fam: no default route in 51820"
	done
	expect_eq src_valid_mark 1 "$(n a cat /proc/sys/net/ipv4/conf/all/src_valid_mark)"
	expect_eq PostUp "up wgxq0" "$(cat /tmp/hook-wgxq0)"
	ping_ok a 10.0.0.2
	ping_ok a 10.99.0.2 # only through the default route in table 51820
	ping_ok a fd00::2
	# runtime changes that SaveConfig must keep
	n a ip addr add 10.0.5.1/24 dev wgxq0
	n a "$WGX_TOOL" set wgxq0 peer "$KB_pub" persistent-keepalive 25
	n a /usr/local/bin/wgx-quick down wgxq0
	must_fail n a ip link show wgxq0
	expect_eq "rules and routes after down" "$before" "$(net_state a)"
	[ ! -e /tmp/hook-wgxq0 ] || fail "PostDown did not run"
	expect_eq "saved file mode" 600 "$(stat -c %a "$conf")"
	grep -qx 'Address = 10.0.5.1/24' "$conf" || fail "SaveConfig: no new address"
	grep -qx 'PersistentKeepalive = 25' "$conf" || fail "SaveConfig: no keepalive"
	grep -qx 'PostUp = echo up %i >/tmp/hook-%i' "$conf" || fail "SaveConfig: PostUp lost"
	grep -qx 'SaveConfig = true' "$conf" || fail "SaveConfig lost"
	! grep -q '^MTU\|^FwMark' "$conf" || fail "SaveConfig wrote the automatic MTU or fwmark: $(cat "$conf")"
	# the saved file comes up again, through wgx-quick@.service's commands
	unit_run a wgx-quick@.service wgxq0 ExecStart
	[ "$UNIT_LINES_RUN" -ge 1 ] || fail "wgx-quick@.service has no ExecStart"
	n a ip -o addr show dev wgxq0 | grep -q 'inet 10.0.5.1/24' || fail "saved address not restored"
	expect_eq keepalive 25 "$(n a "$WGX_TOOL" show wgxq0 persistent-keepalive | cut -f2)"
	ping_ok a 10.99.0.2
	unit_run a wgx-quick@.service wgxq0 ExecStop
	must_fail n a ip link show wgxq0
	expect_eq "rules and routes after the unit's stop" "$before" "$(net_state a)"
}

test_quick_table_mtu_strip() {
	guest_install
	quick_peer
	local before rules conf=/tmp/wgxt0.conf
	before=$(net_state a)
	rules=$(n a ip -4 rule show; n a ip -6 rule show)
	cat >"$conf" <<EOF
[Interface]
PrivateKey = $KA
ListenPort = 51820
Address = 10.0.0.1/24
MTU = 1380
Table = 1234
DNS = # nothing

[Peer]
PublicKey = $KB_pub
Endpoint = 192.0.2.2:51821
AllowedIPs = 0.0.0.0/0, 10.7.0.0/16
EOF
	chmod 600 "$conf"
	expect_eq strip "$(grep -v '^Address\|^Table\|^DNS' "$conf")" "$(/usr/local/bin/wgx-quick strip "$conf")"
	n a /usr/local/bin/wgx-quick up "$conf"
	expect_eq MTU 1380 "$(n a cat /sys/class/net/wgxt0/mtu)"
	expect_eq "mtu_auto with MTU = 1380" false \
		"$(n a "$WGX_TOOL" show wgxt0 --json | jq -r '.interfaces[0].mtu_auto')"
	n a ip -4 route show table 1234
	expect_eq "routes in table 1234" 2 "$(n a ip -4 route show table 1234 | wc -l)"
	n a ip -4 route show table 1234 | grep -q '^default dev wgxt0' || fail "no default route in 1234"
	n a ip -4 route show table 1234 | grep -q '^10.7.0.0/16 dev wgxt0' || fail "no 10.7.0.0/16 in 1234"
	expect_eq "rules (none added with Table = 1234)" "$rules" "$(n a ip -4 rule show; n a ip -6 rule show)"
	if n a ip -4 route show table main | grep -q '^10.7'; then fail "10.7.0.0/16 in main"; fi
	n a /usr/local/bin/wgx-quick down "$conf"
	expect_eq "rules and routes after down" "$before" "$(net_state a)"
}

test_quick_errors() {
	guest_install
	quick_peer
	local before out conf=/etc/wgx/wgxe0.conf
	before=$(net_state a)
	# wgx-quick's own keys: every error with its line, nothing done
	cat >"$conf" <<EOF
[Interface]
PrivateKey = $KA
Address = 10.0.0.300/24
MTU = 20
Table = nosuchtable
[Peer]
SaveConfig = true
EOF
	out=$(n a /usr/local/bin/wgx-quick up wgxe0 2>&1) && fail "up succeeded"
	echo "$out"
	grep -q "^$conf:3: invalid Address \`10.0.0.300/24'" <<<"$out" || fail "no error for line 3"
	grep -q "^$conf:4: invalid MTU \`20'" <<<"$out" || fail "no error for line 4"
	grep -q "^$conf:5: invalid Table \`nosuchtable'" <<<"$out" || fail "no error for line 5"
	grep -q "^$conf:7: \`SaveConfig' belongs in the \[Interface\] section" <<<"$out" || fail "no error for line 7"
	must_fail n a ip link show wgxe0
	# an error only wgx sees: named with the file's own line; the link goes
	cat >"$conf" <<EOF
[Interface]
Address = 10.0.0.1/24
PrivateKey = $KA
PostUp = touch /tmp/never

[Peer]
PublicKey = not-a-key
AllowedIPs = 0.0.0.0/0
EOF
	out=$(n a /usr/local/bin/wgx-quick up wgxe0 2>&1) && fail "up succeeded"
	echo "$out"
	grep -q "^$conf:7: .*PublicKey" <<<"$out" || fail "wgx's error does not name $conf:7"
	must_fail n a ip link show wgxe0
	[ ! -e /tmp/never ] || fail "PostUp ran"
	# a failing PostUp undoes everything, policy rules included
	cat >"$conf" <<EOF
[Interface]
PrivateKey = $KA
Address = 10.0.0.1/24
PostUp = false

[Peer]
PublicKey = $KB_pub
AllowedIPs = 0.0.0.0/0
EOF
	out=$(n a /usr/local/bin/wgx-quick up wgxe0 2>&1) && fail "up succeeded"
	echo "$out"
	grep -q "PostUp at $conf:4 failed" <<<"$out" || fail "the failing PostUp is not named"
	must_fail n a ip link show wgxe0
	expect_eq "rules and routes after the failed up" "$before" "$(net_state a)"
	# an address the kernel refuses (a duplicate) names its line
	cat >"$conf" <<EOF
[Interface]
PrivateKey = $KA
Address = 10.0.0.1/24
Address = 10.0.0.1/24
EOF
	out=$(n a /usr/local/bin/wgx-quick up wgxe0 2>&1) && fail "up succeeded"
	echo "$out"
	grep -q "^wgx-quick: $conf:4: cannot add the Address 10.0.0.1/24" <<<"$out" || fail "line 4 not named"
	must_fail n a ip link show wgxe0
}

test_unit_commands() {
	guest_install
	quick_peer
	local unit=/usr/local/lib/systemd/system/wgx@.service version
	# one version: the file, the loaded module, the installed tool
	version=$(cat "$WGX_REPO/VERSION")
	expect_eq "loaded module version" "$version" "$(cat /sys/module/wgx/version)"
	expect_eq "wgx --version" "wgx v$version - wg(8)-compatible configuration tool for wgx and WireGuard" \
		"$(/usr/local/bin/wgx --version)"
	systemd-analyze verify --man=no "$unit" "${unit%/*}/wgx-quick@.service" ||
		fail "systemd-analyze verify refuses the units"
	cat >/etc/wgx/wgx0.conf <<EOF
[Interface]
PrivateKey = $KA
ListenPort = 51820

[Peer]
PublicKey = $KB_pub
Endpoint = 192.0.2.2:51821
AllowedIPs = 10.0.0.2/32
EOF
	chmod 600 /etc/wgx/wgx0.conf
	unit_run a wgx@.service wgx0 ExecStart
	[ "$UNIT_LINES_RUN" -ge 3 ] || fail "only $UNIT_LINES_RUN ExecStart lines"
	n a ip -d link show wgx0 | grep -qw wgx || fail "wgx0 is not a wgx link"
	n a ip link show wgx0 | grep -q ',UP' || fail "wgx0 is not up"
	# the device holds the file's configuration (showconf adds wgx's MTU)
	expect_eq "configuration" "$(grep -v '^\[\|^$' /etc/wgx/wgx0.conf | sort)" \
		"$(n a "$WGX_TOOL" showconf wgx0 | grep -v '^\[\|^$\|^MTU' | sort)"
	# reload: a second peer added to the file arrives without a restart
	key_pair KC
	printf '\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.0.0.3/32\n' "$KC_pub" >>/etc/wgx/wgx0.conf
	unit_run a wgx@.service wgx0 ExecReload
	expect_eq peers "$(printf '%s\n' "$KB_pub" "$KC_pub" | sort)" "$(n a "$WGX_TOOL" show wgx0 peers | sort)"
	unit_run a wgx@.service wgx0 ExecStop
	unit_run a wgx@.service wgx0 ExecStopPost
	must_fail n a ip link show wgx0
}

test_networkd_native() {
	guest_install
	quick_peer
	local example=/usr/local/share/doc/wgx/examples/wgx0.network a r i
	cat >/etc/wgx/wgx0.conf <<EOF
[Interface]
PrivateKey = $KA
ListenPort = 51820

[Peer]
PublicKey = $KB_pub
Endpoint = 192.0.2.2:51821
AllowedIPs = 10.0.0.0/24, fd00::/64, 10.10.0.0/16
EOF
	unit_run a wgx@.service wgx0 ExecStart
	mkdir -p /etc/systemd/network
	install -m 0644 "$example" /etc/systemd/network/ # readable by systemd-network
	# what systemd as PID 1 would have made; networkd creates netif/ in it
	mkdir -p /run/systemd
	# networkd without systemd as PID 1: it makes /run/systemd/netif itself
	# and drops to the systemd-network user; D-Bus is optional.  With /sys
	# writable it waits for udev to announce each link, so it runs in a
	# mount namespace with /sys read-only (as in a container: no udev).
	ip netns exec a unshare -m sh -c 'mount -o remount,ro /sys && exec /lib/systemd/systemd-networkd' \
		>/tmp/networkd.log 2>&1 &
	NETWORKD_PID=$!
	local want=() routes=()
	mapfile -t want < <(sed -n 's/^Address=//p' "$example")
	mapfile -t routes < <(sed -n 's/^Destination=//p' "$example")
	[ ${#want[@]} -ge 1 ] && [ ${#routes[@]} -ge 1 ] || fail "example has no Address or Destination"
	for i in $(seq 100); do
		r=$(n a ip -o addr show dev wgx0)
		local all=1
		for a in "${want[@]}"; do [[ $r == *" $a "* ]] || all=0; done
		[ $all = 1 ] && break
		sleep 0.2
	done
	cat /tmp/networkd.log
	for a in "${want[@]}"; do
		n a ip -o addr show dev wgx0 | grep -q " $a " || fail "networkd did not add $a"
	done
	for r in "${routes[@]}"; do
		n a ip route show dev wgx0 | grep -q "^$r proto static" || fail "networkd did not add the route $r"
	done
	ping_ok a 10.0.0.2
	ping_ok a fd00::2
	unit_run a wgx@.service wgx0 ExecStopPost
	must_fail n a ip link show wgx0
}

# ---- docs/guide.md, "2. Quickstart: two nodes", as an operator runs it ----
# Node A is namespace a (192.0.2.1), node B namespace b (192.0.2.2), joined
# by lib.sh's veth.  Each node has its own /etc/wgx and /etc/systemd/network
# (and an empty /run/systemd/network, as on a fresh machine):
# directories under $QS bound over them in a private mount namespace for
# every command run on the node.  The operator's shell on a node is a
# "session": one bash that reads what quickstart_run writes to it, so the
# umask of the guide's first block holds for the blocks after it.

QS=/tmp/wgx-quickstart
# quickstart_node NODE CMD... — CMD in namespace NODE with NODE's /etc/wgx
# and /etc/systemd/network.
QS_MOUNTS='mount --bind "$0/wgx" /etc/wgx && mount --bind "$0/network" /etc/systemd/network &&
	mkdir -p /run/systemd/network && mount -t tmpfs -o mode=755 none /run/systemd/network'
quickstart_node() {
	ip netns exec "$1" unshare -m sh -c "$QS_MOUNTS"' && exec "$@"' "$QS/$1" "${@:2}"
}

# quickstart_blocks — the section's shell blocks (```sh) in QS_BLOCKS, in
# order, and its prose outside them, blanks squeezed, in QS_PROSE.
quickstart_blocks() {
	local line sec=0 code=0 cur=
	QS_BLOCKS=() QS_PROSE=
	while IFS= read -r line; do
		if [ $sec = 0 ]; then
			[ "$line" != '## 2. Quickstart: two nodes' ] || sec=1
			continue
		fi
		if [ $code = 0 ]; then
			case $line in
			'## '*) break ;;
			'```sh') code=1 cur= ;;
			*) QS_PROSE+="$line " ;;
			esac
		elif [ "$line" = '```' ]; then
			code=0
			QS_BLOCKS+=("$cur")
		else
			cur+=$line$'\n'
		fi
	done <"$WGX_REPO/docs/guide.md"
	QS_PROSE=$(tr -s ' ' <<<"$QS_PROSE")
	[ $sec = 1 ] || fail "docs/guide.md has no section '## 2. Quickstart: two nodes'"
}

# quickstart_subst VAR FROM TO — in $VAR, FROM (which must occur exactly once) becomes TO.
quickstart_subst() {
	local -n qs_text=$1
	[[ $qs_text == *"$2"* ]] || fail "the quickstart's block no longer has '$2':" "$qs_text"
	[[ ${qs_text#*"$2"} != *"$2"* ]] || fail "the quickstart's block has '$2' more than once"
	qs_text=${qs_text/"$2"/"$3"}
}

# quickstart_session NODE — start the operator's shell on NODE: root's
# umask 022 and PATH (the installed wgx, wgx-quick), bash -e (a command
# that fails ends it: quickstart_run reports it); systemctl and networkctl
# only write down what they are asked, for quickstart_systemd (systemd is
# not PID 1 in the guest).
quickstart_session() {
	local fd
	mkfifo "$QS/$1.in"
	ip netns exec "$1" unshare -m sh -c "$QS_MOUNTS"' && umask 022 && cd / &&
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin exec bash -e' \
		"$QS/$1" <"$QS/$1.in" >"$QS/$1.log" 2>&1 &
	printf -v "QS_PID_$1" %s $!
	exec {fd}>"$QS/$1.in"
	printf -v "QS_FD_$1" %s "$fd"
	quickstart_run "$1" "systemctl() { echo \"systemctl \$*\" >>$QS/$1.systemd; }
networkctl() { echo \"networkctl \$*\" >>$QS/$1.systemd; }
command -v wgx wgx-quick"
	expect_eq "$1: the wgx and wgx-quick run" "/usr/local/bin/wgx
/usr/local/bin/wgx-quick" "$QS_OUT"
}

# quickstart_run NODE TEXT — TEXT typed into NODE's session (stdin
# /dev/null for its commands); its output in QS_OUT, shown.  Fails when a
# command of TEXT fails (the session ends) or after 60 s.
quickstart_run() {
	local fd pid i step=$((++QS_STEP)) out=$QS/$1.step$((QS_STEP))
	fd=QS_FD_$1 pid=QS_PID_$1
	printf '{\n%s\n} </dev/null >%s 2>&1\necho %s >%s\n' "$2" "$out" "$step" "$QS/$1.done" >&"${!fd}"
	for ((i = 0; i < 600; i++)); do
		[ "$(cat "$QS/$1.done" 2>/dev/null)" != "$step" ] || break
		kill -0 "${!pid}" 2>/dev/null || break
		sleep 0.1
	done
	QS_OUT=$(cat "$out" 2>/dev/null || true)
	printf '%s node %s $ %s\n%s\n' "$(date +%T)" "${1^^}" "${2//$'\n'/$'\n'"node ${1^^} > "}" "$QS_OUT" | sed 's/^/    /'
	[ "$(cat "$QS/$1.done" 2>/dev/null)" = "$step" ] || fail "node ${1^^}: this step failed or hung (session log: $(cat "$QS/$1.log"))"
}

# quickstart_systemd NODE — do what the session asked of systemctl and
# networkctl, as systemd would: `networkctl reload' starts systemd-networkd
# in NODE (the guide's "systemctl enable --now systemd-networkd" first; it
# then reads the .network files there are), `systemctl enable --now U@I'
# runs U@.service's ExecStart lines for I (unit_run).
quickstart_systemd() {
	local calls=() c u
	[ -f "$QS/$1.systemd" ] && mapfile -t calls <"$QS/$1.systemd"
	rm -f "$QS/$1.systemd"
	for c in "${calls[@]}"; do
		echo "node ${1^^}: $c"
		case $c in
		"networkctl reload")
			[ -z "$NETWORKD_PID" ] || fail "networkd runs already"
			# as in test_networkd_native: /sys read-only, no udev
			mkdir -p /run/systemd
			ip netns exec "$1" unshare -m sh -c "$QS_MOUNTS"' && mount -o remount,ro /sys &&
				exec /lib/systemd/systemd-networkd' "$QS/$1" >"$QS/networkd.log" 2>&1 &
			NETWORKD_PID=$!
			;;
		"systemctl enable --now "?*@?*)
			u=${c##* }
			UNIT_EXEC=quickstart_node unit_run "$1" "${u%%@*}@.service" "${u#*@}" ExecStart
			[ "$UNIT_LINES_RUN" -ge 1 ] || fail "${u%%@*}@.service has no ExecStart"
			;;
		*) fail "the quickstart runs \`$c', which this test cannot do as systemd would" ;;
		esac
	done
}

# The quickstart from docs/guide.md itself, with only what a reader changes:
# the other node's public key, and on B the endpoint, allowed IPs, Address
# and ping target that the prose gives.  A comes up with systemd
# (wgx@wgx0's commands, a real systemd-networkd reading the .network file
# of the guide), B with wgx-quick; the Check block runs on both; then B's
# `wgx-quick down' and stopping A's unit must remove the link.
test_guide_quickstart() {
	guest_install
	netns_pair a b
	quickstart_blocks
	local keys conf unitnet quick check node s pub_a pub_b conf_b i
	[ ${#QS_BLOCKS[@]} = 5 ] || fail "the quickstart has ${#QS_BLOCKS[@]} shell blocks, this test knows 5"
	keys=${QS_BLOCKS[0]} conf=${QS_BLOCKS[1]} unitnet=${QS_BLOCKS[2]} quick=${QS_BLOCKS[3]} check=${QS_BLOCKS[4]}
	[[ $keys == *"wgx genkey"* && $conf == *"/etc/wgx/wgx0.conf"* && $unitnet == *"/etc/systemd/network/"* &&
		$quick == *"wgx-quick up"* && $check == *"ping"* ]] ||
		fail "the quickstart's blocks are not keys, configuration, networkd, wgx-quick, check"
	# what the test substitutes is what the prose says
	for s in "Node A has the underlay address 192.0.2.1, node B 192.0.2.2" \
		"A is 10.0.0.1 and B 10.0.0.2" "(on B: the other node's public key, \`Endpoint = 192.0.2.1:51820\`, \`AllowedIPs = 10.0.0.1/32\`)" \
		"add \`Address = 10.0.0.1/24\` to \`[Interface]\`"; do
		[[ $QS_PROSE == *"$s"* ]] || fail "the quickstart's prose no longer says: $s"
	done
	# the wgx-quick block: up, then (at the end) down
	mapfile -t quick < <(grep -v '^$' <<<"${QS_BLOCKS[3]}")
	[[ ${#quick[@]} = 2 && ${quick[0]} == "wgx-quick up wgx0"* && ${quick[1]} == "wgx-quick down wgx0"* ]] ||
		fail "the wgx-quick block is not 'wgx-quick up wgx0', 'wgx-quick down wgx0'"

	rm -rf "$QS" # a run before this one (the runner's retry)
	for node in a b; do
		mkdir -p "$QS/$node/network"
		install -d -m 755 "$QS/$node/wgx" # the guide's install -d makes it 0700
	done
	mkdir -p /etc/systemd/network
	quickstart_session a
	quickstart_session b

	# "On each node": keys; the last line is the public key
	quickstart_run a "$keys"
	pub_a=$QS_OUT
	quickstart_run b "$keys"
	pub_b=$QS_OUT
	for node in a b; do
		s=pub_$node
		[[ ${!s} =~ ^[A-Za-z0-9+/]{43}=$ ]] || fail "node ${node^^}: the key block printed '${!s}', not one public key"
		expect_eq "node ${node^^}: /etc/wgx mode" 700 "$(stat -c %a "$QS/$node/wgx")"
		expect_eq "node ${node^^}: wgx0.key mode" 600 "$(stat -c %a "$QS/$node/wgx/wgx0.key")"
	done
	[ "$pub_a" != "$pub_b" ] || fail "the nodes have the same key"
	[ ! -e /etc/wgx/wgx0.key ] || fail "a node's key is in the guest's own /etc/wgx"

	# the configuration: A's as written; B's as the prose says, plus Address for wgx-quick
	quickstart_subst conf "<B's public key>" "$pub_b"
	quickstart_run a "$conf"
	conf_b=${QS_BLOCKS[1]}
	quickstart_subst conf_b "<B's public key>" "$pub_a"
	quickstart_subst conf_b "Endpoint = 192.0.2.2:51820" "Endpoint = 192.0.2.1:51820"
	quickstart_subst conf_b "AllowedIPs = 10.0.0.2/32" "AllowedIPs = 10.0.0.1/32"
	quickstart_subst conf_b $'[Interface]\n' $'[Interface]\nAddress = 10.0.0.2/24\n'
	quickstart_run b "$conf_b"
	for node in a b; do
		expect_eq "node ${node^^}: wgx0.conf mode" 600 "$(stat -c %a "$QS/$node/wgx/wgx0.conf")"
		grep -qxF "PrivateKey = $(cat "$QS/$node/wgx/wgx0.key")" "$QS/$node/wgx/wgx0.conf" ||
			fail "node ${node^^}: wgx0.conf lacks the node's private key"
	done

	# B with wgx-quick, A with systemd and networkd
	quickstart_run b "${quick[0]}"
	quickstart_systemd b
	quickstart_run a "$unitnet"
	quickstart_systemd a
	[ -n "$NETWORKD_PID" ] || fail "the guide's systemd block did not start networkd"
	[ -f "$QS/a/network/wgx0.network" ] || fail "no wgx0.network on node A"
	for i in $(seq 100); do
		n a ip -o addr show dev wgx0 2>/dev/null | grep -q ' 10.0.0.1/24 ' && break
		sleep 0.2
	done
	if ! n a ip -o addr show dev wgx0 | grep -q ' 10.0.0.1/24 '; then
		ls -l "$QS/a/network"
		cat "$QS/networkd.log"
		fail "node A: networkd did not give wgx0 10.0.0.1/24"
	fi
	n b ip -o addr show dev wgx0 | grep -q ' 10.0.0.2/24 ' || fail "node B: wgx-quick did not give wgx0 10.0.0.2/24"

	# Check, on either node (from B the other address)
	quickstart_run a "$check"
	quickstart_check_show A "$pub_b"
	quickstart_subst check "ping -c 3 10.0.0.2" "ping -c 3 10.0.0.1"
	quickstart_run b "$check"
	quickstart_check_show B "$pub_a"

	# teardown: wgx-quick down on B; the unit stopped on A deletes the link
	quickstart_run b "${quick[1]}"
	must_fail n b ip link show wgx0
	UNIT_EXEC=quickstart_node unit_run a wgx@.service wgx0 ExecStop
	UNIT_EXEC=quickstart_node unit_run a wgx@.service wgx0 ExecStopPost
	must_fail n a ip link show wgx0
	quickstart_end a
	quickstart_end b
}

# quickstart_check_show NODE PEER — the Check block's output (QS_OUT) shows
# PEER with a handshake and the bytes moved, as the guide says.
quickstart_check_show() {
	local want
	for want in "peer: $2" "latest handshake:" "transfer:"; do
		[[ $QS_OUT == *"$want"* ]] || fail "node $1: wgx show wgx0 does not print '$want'"
	done
}

# quickstart_end NODE — the operator logs out of NODE's session.
quickstart_end() {
	local fd=QS_FD_$1 pid=QS_PID_$1
	echo exit >&"${!fd}"
	wait "${!pid}" || fail "node ${1^^}: the session ended with status $?: $(cat "$QS/$1.log")"
	exec {fd}>&-
}

# The timers that make endpoints follow DNS, one per way of running a
# device: systemd-analyze verify accepts the installed units, and the
# ExecStart of each re-resolving service moves a peer whose host name (in
# the overlaid /etc/hosts) now gives b's address: wgx-reresolve@ for a wgx@
# device, wgx-quick-reresolve@ for a wgx-quick@ device (its file has
# wgx-quick keys), wgx-networkd-reresolve@ for the device of a networkd
# .netdev file (found by its Name= in /run/systemd/network; the device is
# made by hand here, networkd itself runs in dropin/networkd_netdev).
test_reresolve_units() {
	guest_install
	quick_peer
	local d=/usr/local/lib/systemd/system u out
	for u in wgx-reresolve@ wgx-quick-reresolve@ wgx-networkd-reresolve@; do
		systemd-analyze verify --man=no "$d/$u.service" "$d/$u.timer" ||
			fail "systemd-analyze verify refuses $u.service or $u.timer"
	done
	printf '127.0.0.1 localhost\n192.0.2.99 peer-b.test\n' >/etc/hosts
	cat >/etc/wgx/wgx0.conf <<EOF
[Interface]
PrivateKey = $KA
ListenPort = 51820

[Peer]
PublicKey = $KB_pub
Endpoint = peer-b.test:51821
AllowedIPs = 10.0.0.2/32
EOF
	chmod 600 /etc/wgx/wgx0.conf
	unit_run a wgx@.service wgx0 ExecStart
	reresolve_unit_moves_b wgx-reresolve@.service wgx0
	unit_run a wgx@.service wgx0 ExecStopPost

	cat >/etc/wgx/wgxq0.conf <<EOF
[Interface]
PrivateKey = $KA
ListenPort = 51820
Address = 10.0.0.1/24

[Peer]
PublicKey = $KB_pub
Endpoint = peer-b.test:51821
AllowedIPs = 10.0.0.2/32
EOF
	chmod 600 /etc/wgx/wgxq0.conf
	unit_run a wgx-quick@.service wgxq0 ExecStart
	reresolve_unit_moves_b wgx-quick-reresolve@.service wgxq0
	ping_ok a 10.0.0.2
	unit_run a wgx-quick@.service wgxq0 ExecStop

	mkdir -p /run/systemd/network
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	cat >/run/systemd/network/50-tunnel.netdev <<EOF
[NetDev]
Name=wgxn0
Kind=wireguard

[WireGuard]
PrivateKeyFile=/tmp/ka.key
ListenPort=51820

[WireGuardPeer]
PublicKey=$KB_pub
Endpoint=peer-b.test:51821
AllowedIPs=10.0.0.2/32
EOF
	n a ip link add wgxn0 type wgx
	n a "$WGX_TOOL" set wgxn0 private-key /tmp/ka.key listen-port 51820 \
		peer "$KB_pub" endpoint 192.0.2.99:51821 allowed-ips 10.0.0.2/32
	reresolve_unit_moves_b wgx-networkd-reresolve@.service wgxn0
	# an interface that no .netdev file names: the error says where it looked
	n a ip link add wgxn1 type wgx
	out=$(unit_run a wgx-networkd-reresolve@.service wgxn1 ExecStart 2>&1)
	[[ $out == *"wgxn1: no systemd-networkd .netdev file with Name=wgxn1 in /etc/systemd/network, /run/systemd/network,"* ]] ||
		fail "no .netdev file: $out"
	rm -rf /run/systemd/network
	n a ip link del wgxn0
	n a ip link del wgxn1
}

# reresolve_unit_moves_b UNIT DEV — a's DEV has b's peer at peer-b.test's
# old address 192.0.2.99; the name moves to b (192.0.2.2), and UNIT's
# ExecStart moves the peer there, saying so.
reresolve_unit_moves_b() {
	local out
	expect_eq "$2: endpoint from the name" 192.0.2.99:51821 "$(n a "$WGX_TOOL" show "$2" endpoints | cut -f2)"
	printf '127.0.0.1 localhost\n192.0.2.2 peer-b.test\n' >/etc/hosts
	out=$(unit_run a "$1" "$2" ExecStart)
	echo "$out"
	[[ $out == *"$2: peer $KB_pub: endpoint peer-b.test:51821 now resolves to 192.0.2.2:51821 (was 192.0.2.99:51821)"* ]] ||
		fail "$1: the change is not logged"
	expect_eq "$2: endpoint after $1" 192.0.2.2:51821 "$(n a "$WGX_TOOL" show "$2" endpoints | cut -f2)"
	printf '127.0.0.1 localhost\n192.0.2.99 peer-b.test\n' >/etc/hosts
}
