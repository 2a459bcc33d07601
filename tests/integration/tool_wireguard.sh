# Integration suite: the wgx tool driving an in-tree WireGuard interface
# (family "wireguard"), checked against wg(8) on the same device.
#
# Runs inside the VM, either through the suite runner
#   scripts/vm -- tests/integration/run tool_wireguard
# or on its own
#   scripts/vm -- bash tests/integration/tool_wireguard.sh [CASE...]
# which prints "<case>: ok|FAIL" per case and a final "N passed, N failed".
# Every case works in its own network namespace "tw" with interface wg0.

# ---- helpers -------------------------------------------------------------

TW=tw

# tw CMD... — run CMD in the test namespace.
tw() {
	ip netns exec "$TW" "$@"
}

wgx_tw() {
	ip netns exec "$TW" "$WGX_TOOL" "$@"
}

# tw_setup — namespace tw with a down wireguard interface wg0.
tw_setup() {
	umask 077
	modprobe wireguard
	ip netns add "$TW"
	tw ip link set lo up
	tw ip link add wg0 type wireguard
	TWDIR=$(mktemp -d /tmp/tool_wireguard.XXXXXX)
	chmod 700 "$TWDIR"
}

# gen_keys N — N private keys in $TWDIR/k<i> and public keys in $TWDIR/p<i>.
gen_keys() {
	local i
	for i in $(seq "$1"); do
		wg genkey >"$TWDIR/k$i"
		wg pubkey <"$TWDIR/k$i" >"$TWDIR/p$i"
	done
}

k() { cat "$TWDIR/k$1"; }
p() { cat "$TWDIR/p$1"; }

# same_as_wg WHAT — `wgx WHAT` and `wg WHAT` print the same on wg0.
same_as_wg() {
	local a b
	a=$(WG_COLOR_MODE=never wgx_tw "$@" 2>&1) || fail "wgx $* failed: $a"
	b=$(WG_COLOR_MODE=never tw wg "$@" 2>&1) || fail "wg $* failed: $b"
	if [ "$a" != "$b" ]; then
		diff <(echo "$a") <(echo "$b") >&2
		fail "wgx $* differs from wg $*"
	fi
}

# base_conf — a configuration exercising every key wg knows.
base_conf() {
	cat <<EOF
[Interface]
PrivateKey = $(k 1)
ListenPort = 51820
FwMark = 0x51

[Peer]
PublicKey = $(p 2)
PresharedKey = $(wg genpsk)
Endpoint = 192.0.2.2:51821
PersistentKeepalive = 25
AllowedIPs = 10.0.0.2/32, fd00::2/128
AllowedIPs = 10.10.0.0/16

[Peer]
PublicKey = $(p 3)
Endpoint = [2001:db8::3]:51823
AllowedIPs = 10.0.0.3/32

[Peer]
PublicKey = $(p 4)
EOF
}

# state — everything an unchanged device must keep: config, MTU, offloads.
state() {
	tw wg showconf wg0
	tw ip -o link show wg0 | grep -o 'mtu [0-9]*'
	tw ethtool -k wg0 | grep -E '^(generic-segmentation|generic-receive|tx-checksumming|rx-checksumming)'
}

# ---- cases -----------------------------------------------------------------

test_setconf_matches_wg() {
	tw_setup
	gen_keys 4
	base_conf >"$TWDIR/wg0.conf"
	wgx_tw setconf wg0 "$TWDIR/wg0.conf"
	same_as_wg showconf wg0
	same_as_wg show wg0
	same_as_wg show wg0 dump
	local f
	for f in public-key private-key listen-port fwmark peers preshared-keys endpoints \
		allowed-ips latest-handshakes transfer persistent-keepalive; do
		same_as_wg show wg0 "$f"
	done
	same_as_wg show all dump
	# dump-telemetry: wg's dump, each peer line followed by the statistics
	# columns, all "-" (unknown) for a WireGuard interface.
	local ext
	ext=$(wgx_tw show wg0 dump-telemetry) || fail "show wg0 dump-telemetry failed"
	expect_eq "dump-telemetry, first eight fields" "$(tw wg show wg0 dump)" "$(echo "$ext" | cut -f1-8)"
	if echo "$ext" | sed 1d | cut -f9- | grep -q '[^-[:space:]]'; then
		fail "dump-telemetry of a WireGuard peer has a value: $ext"
	fi
	[ "$(echo "$ext" | sed -n 2p | awk -F'\t' '{ print NF }')" -gt 8 ] || fail "dump-telemetry has no columns: $ext"
	# show --json of a WireGuard interface against docs/show-json.schema.json.
	wgx_tw show --json >"$TWDIR/show.json" || fail "show --json failed"
	WG_HIDE_KEYS=never wgx_tw show wg0 --json >"$TWDIR/keys.json" || fail "show wg0 --json failed"
	python3 "$WGX_REPO/tests/lib/json_schema_check.py" "$WGX_REPO/docs/show-json.schema.json" \
		"$TWDIR/show.json" "$TWDIR/keys.json" || fail "show --json does not match its schema"
	expect_eq fwmark 0x51 "$(wgx_tw show wg0 fwmark)"
	expect_eq peers 3 "$(wgx_tw show wg0 peers | wc -l)"
	# MTU is a wgx extension: never printed for a wireguard interface.
	if wgx_tw showconf wg0 | grep -q MTU; then fail "showconf printed MTU for wireguard"; fi
}

test_showconf_round_trip() {
	tw_setup
	gen_keys 4
	base_conf >"$TWDIR/wg0.conf"
	wgx_tw setconf wg0 "$TWDIR/wg0.conf"
	wgx_tw showconf wg0 >"$TWDIR/first"
	# Re-applying what showconf printed reproduces it exactly, with wg and with wgx.
	tw wg setconf wg0 "$TWDIR/first"
	wgx_tw showconf wg0 >"$TWDIR/second"
	diff -u "$TWDIR/first" "$TWDIR/second" >&2 || fail "round trip through wg setconf changed the config"
	wgx_tw setconf wg0 "$TWDIR/second"
	wgx_tw showconf wg0 >"$TWDIR/third"
	diff -u "$TWDIR/first" "$TWDIR/third" >&2 || fail "round trip through wgx setconf changed the config"
	grep -q "^PrivateKey = $(k 1)\$" "$TWDIR/first" || fail "private key lost"
	grep -q "^ListenPort = 51820\$" "$TWDIR/first" || fail "listen port lost"
	grep -q '^Endpoint = \[2001:db8::3\]:51823$' "$TWDIR/first" || fail "IPv6 endpoint lost"
}

test_odd_file_accepted() {
	tw_setup
	gen_keys 3
	# CRLF, tabs, comments, case, AllowedIPs over several lines, bracketed IPv6.
	printf '# odd\r\n[interface]\r\n\tPrivateKey\t=\t%s # c\r\nlistenport = 51820\r\n\r\n[PEER]\r\nPublicKey=%s\r\nEndpoint = [2001:db8::2]:51821\r\nAllowedIPs = 10.0.0.2/32\r\n  allowedips = fd00::2/128 , 10.9.0.0/16 # more\r\n' \
		"$(k 1)" "$(p 2)" >"$TWDIR/odd.conf"
	wgx_tw setconf wg0 "$TWDIR/odd.conf"
	expect_eq endpoint "$(p 2)	[2001:db8::2]:51821" "$(wgx_tw show wg0 endpoints)"
	expect_eq "allowed ips" 3 "$(tw wg show wg0 allowed-ips | cut -f2 | wc -w)"
	expect_eq port 51820 "$(tw wg show wg0 listen-port)"
}

test_syncconf_removes_what_the_file_dropped() {
	tw_setup
	gen_keys 4
	base_conf >"$TWDIR/wg0.conf"
	wgx_tw setconf wg0 "$TWDIR/wg0.conf"
	# Peer 2 loses its PSK and keepalive, peer 3 keeps everything, peer 4 goes.
	cat >"$TWDIR/sync.conf" <<EOF
[Interface]
PrivateKey = $(k 1)
ListenPort = 51820

[Peer]
PublicKey = $(p 2)
Endpoint = 192.0.2.2:51821
AllowedIPs = 10.0.0.2/32

[Peer]
PublicKey = $(p 3)
Endpoint = [2001:db8::3]:51823
AllowedIPs = 10.0.0.3/32
EOF
	wgx_tw syncconf wg0 "$TWDIR/sync.conf"
	expect_eq "peer set" "$(printf '%s\n%s\n' "$(p 2)" "$(p 3)" | sort)" "$(tw wg show wg0 peers | sort)"
	expect_eq "kept peer" "$(p 3)	[2001:db8::3]:51823" "$(tw wg show wg0 endpoints | grep "$(p 3)")"
	expect_eq psk "$(p 2)	(none)" "$(tw wg show wg0 preshared-keys | grep "$(p 2)")"
	expect_eq keepalive "$(p 2)	off" "$(tw wg show wg0 persistent-keepalive | grep "$(p 2)")"
	expect_eq "allowed ips" "$(p 2)	10.0.0.2/32" "$(tw wg show wg0 allowed-ips | grep "$(p 2)")"
	expect_eq fwmark off "$(tw wg show wg0 fwmark)"
	# A file without peers removes them all.
	printf '[Interface]\nPrivateKey = %s\n' "$(k 1)" >"$TWDIR/nopeers.conf"
	wgx_tw syncconf wg0 "$TWDIR/nopeers.conf"
	expect_eq peers "" "$(tw wg show wg0 peers)"
}

test_addconf_appends() {
	tw_setup
	gen_keys 5
	base_conf >"$TWDIR/wg0.conf"
	wgx_tw setconf wg0 "$TWDIR/wg0.conf"
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.0.0.5/32\n' "$(p 5)" >"$TWDIR/add.conf"
	wgx_tw addconf wg0 "$TWDIR/add.conf"
	expect_eq peers 4 "$(tw wg show wg0 peers | wc -l)"
	expect_eq port 51820 "$(tw wg show wg0 listen-port)"
	expect_eq key "$(k 1)" "$(tw wg show wg0 private-key)"
}

test_set_subcommand() {
	tw_setup
	gen_keys 3
	k 1 >"$TWDIR/key"
	wgx_tw set wg0 private-key "$TWDIR/key" listen-port 51900 fwmark 7 \
		peer "$(p 2)" endpoint 192.0.2.2:1 persistent-keepalive 5 allowed-ips 10.0.0.2/32,fd00::/64 \
		peer "$(p 3)" allowed-ips 10.0.0.3/32
	expect_eq port 51900 "$(tw wg show wg0 listen-port)"
	expect_eq fwmark 0x7 "$(tw wg show wg0 fwmark)"
	expect_eq pub "$(p 1)" "$(tw wg show wg0 public-key)"
	same_as_wg show wg0 dump
	wgx_tw set wg0 peer "$(p 2)" allowed-ips 10.1.0.0/16 persistent-keepalive off
	expect_eq "replaced allowed ips" "$(p 2)	10.1.0.0/16" "$(tw wg show wg0 allowed-ips | grep "$(p 2)")"
	expect_eq keepalive "$(p 2)	off" "$(tw wg show wg0 persistent-keepalive | grep "$(p 2)")"
	wgx_tw set wg0 peer "$(p 3)" remove
	expect_eq peers "$(p 2)" "$(tw wg show wg0 peers)"
	wgx_tw set wg0 fwmark off private-key /dev/null
	expect_eq fwmark off "$(tw wg show wg0 fwmark)"
	expect_eq "private key" "(none)" "$(tw wg show wg0 private-key)"
}

test_mtu_visible_in_ip_link() {
	tw_setup
	wgx_tw set wg0 mtu 1380
	tw ip -o link show wg0 | grep -q 'mtu 1380' || fail "ip link: $(tw ip -o link show wg0)"
	gen_keys 1
	printf '[Interface]\nPrivateKey = %s\nMTU = 1300\n' "$(k 1)" >"$TWDIR/mtu.conf"
	wgx_tw setconf wg0 "$TWDIR/mtu.conf"
	tw ip -o link show wg0 | grep -q 'mtu 1300' || fail "MTU key not applied"
	# wireguard.ko's max_mtu is near 2^31, so it takes the largest MTU the
	# tool sends (65535).  A kernel refusal through the tool (an MTU above a
	# wgx device's max_mtu) is netlink/mtu_refused_by_kernel_changes_nothing.
	local max
	max=$(tw ip -d -j link show wg0 | jq '.[0].max_mtu')
	[ "$max" -ge 65535 ] || fail "wg0's max_mtu is $max"
	wgx_tw set wg0 mtu 65535
	tw ip -o link show wg0 | grep -q 'mtu 65535' || fail "mtu 65535 not applied: $(tw ip -o link show wg0)"
}

test_offloads_visible_in_ethtool() {
	tw_setup
	local name feature
	for name in gso gro tx-checksum rx-checksum; do
		case $name in
		gso) feature=generic-segmentation-offload ;;
		gro) feature=generic-receive-offload ;;
		tx-checksum) feature=tx-checksum-ip-generic ;;
		rx-checksum) feature=rx-checksumming ;;
		esac
		wgx_tw set wg0 offload "$name" off
		tw ethtool -k wg0 | grep -Eq "^[[:space:]]*$feature: off" ||
			fail "$name off: $(tw ethtool -k wg0 | grep "$feature")"
		wgx_tw set wg0 offload "$name" on
		tw ethtool -k wg0 | grep -Eq "^[[:space:]]*$feature: on" ||
			fail "$name on: $(tw ethtool -k wg0 | grep "$feature")"
	done
	# Several at once, together with the MTU.
	wgx_tw set wg0 mtu 1400 offload gso off offload gro off
	tw ethtool -k wg0 | grep -q '^generic-segmentation-offload: off'
	tw ethtool -k wg0 | grep -q '^generic-receive-offload: off'
	tw ip -o link show wg0 | grep -q 'mtu 1400'
}

test_malformed_input_leaves_device_unchanged() {
	tw_setup
	gen_keys 4
	base_conf >"$TWDIR/wg0.conf"
	wgx_tw setconf wg0 "$TWDIR/wg0.conf"
	wgx_tw set wg0 mtu 1400
	local before after bad i out
	before=$(state)
	# One file per malformed class; a valid peer precedes the error so that a
	# partial application would show.
	local -a classes=(
		"Address = 10.0.0.1/24|wg-quick(8) key"
		"DNS = 1.1.1.1|wg-quick(8) key"
		"PostUp = true|wg-quick(8) key"
		"ListenPort = 65536|invalid ListenPort"
		"FwMark = 0x1ffffffff|invalid FwMark"
		"MTU = 20|invalid MTU"
		"PrivateKey = AAAA|invalid PrivateKey"
		"Bogus = 1|unknown key"
		"[Peer]\nAllowedIPs = 10.0.0.9/32|without a PublicKey"
		"[Peer]\nPublicKey = $(p 4)\nAllowedIPs = 10.0.0.1/33|invalid AllowedIPs entry"
		"[Peer]\nPublicKey = $(p 4)\nAllowedIPs = 10.0.0.1/32,|empty entry"
		"[Peer]\nPublicKey = $(p 4)\nEndpoint = 192.0.2.1|invalid Endpoint"
		"[Peer]\nPublicKey = $(p 4)\nEndpoint = [2001:db8::1:5|invalid Endpoint"
		"[Peer]\nPublicKey = $(p 4)\nPersistentKeepalive = 70000|invalid PersistentKeepalive"
		"[Peer]\nPublicKey = $(p 4)x|invalid PublicKey"
		"[Peer]\nPublicKey = $(p 4)\nPresharedKey = xyz=|invalid PresharedKey"
		"[Peers]|unknown section"
		"garbage|unrecognized line"
	)
	i=0
	for bad in "${classes[@]}"; do
		i=$((i + 1))
		{
			printf '[Interface]\nPrivateKey = %s\nListenPort = 40000\n' "$(k 2)"
			printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.7.0.0/16\n' "$(p 3)"
			[[ ${bad%%|*} == \[* ]] || printf '[Interface]\n'
			printf '%b\n' "${bad%%|*}"
		} >"$TWDIR/bad$i.conf"
		for cmd in setconf addconf syncconf; do
			if out=$(wgx_tw "$cmd" wg0 "$TWDIR/bad$i.conf" 2>&1); then
				fail "$cmd accepted class '${bad%%|*}'"
			fi
			echo "$out" | grep -q "$TWDIR/bad$i.conf:[0-9]*: .*${bad##*|}" ||
				fail "$cmd: no file:line message with '${bad##*|}': $out"
		done
	done
	# Bad command lines.
	must_fail wgx_tw set wg0 listen-port 70000
	must_fail wgx_tw set wg0 listen-port 1 peer "$(p 3)" allowed-ips 10.0.0.0/33
	must_fail wgx_tw set wg0 listen-port 1 peer "$(p 3)" endpoint nohost
	must_fail wgx_tw set wg0 listen-port 1 mtu 10
	must_fail wgx_tw set wg0 listen-port 1 offload tso off
	must_fail wgx_tw set wg0 listen-port 1 offload gso maybe
	must_fail wgx_tw set wg0 listen-port 1 peer notakey
	must_fail wgx_tw set wg0 listen-port 1 private-key /nonexistent
	after=$(state)
	if [ "$before" != "$after" ]; then
		diff <(echo "$before") <(echo "$after") >&2
		fail "device changed by refused input"
	fi
}

test_show_lists_wireguard_interfaces() {
	tw_setup
	tw ip link add wg1 type wireguard
	tw ip link add vx0 type veth peer name vx1
	expect_eq interfaces "wg0 wg1" "$(wgx_tw show interfaces)"
	expect_eq "show all" 2 "$(wgx_tw show | grep -c '^interface: ')"
	gen_keys 2
	wgx_tw set wg0 private-key <(k 1) listen-port 51820 peer "$(p 2)" allowed-ips 10.0.0.2/32
	local json
	json=$(wgx_tw show --json)
	expect_eq "json interfaces" 2 "$(echo "$json" | jq '.interfaces | length')"
	expect_eq "json kind" wireguard "$(echo "$json" | jq -r '.interfaces[0].kind')"
	expect_eq "json port" 51820 "$(echo "$json" | jq '.interfaces[] | select(.name=="wg0") | .listen_port')"
	expect_eq "json peer" "$(p 2)" "$(echo "$json" | jq -r '.interfaces[] | select(.name=="wg0") | .peers[0].public_key')"
	expect_eq "json hidden key" null "$(echo "$json" | jq '.interfaces[0].private_key')"
	expect_eq "json mtu" 1420 "$(echo "$json" | jq '.interfaces[] | select(.name=="wg0") | .mtu')"
	must_fail wgx_tw show vx0
	wgx_tw show vx0 2>&1 | grep -q "not a wgx or wireguard interface" || fail "no kind message"
}

test_large_config_chunked_and_coalesced() {
	tw_setup
	gen_keys 1
	local n=${WGX_TOOL_WG_PEERS:-5000}
	# Public keys need not be valid points for configuration; make them quickly.
	python3 - "$n" "$(k 1)" >"$TWDIR/big.conf" <<'EOF'
import base64, hashlib, sys
n, priv = int(sys.argv[1]), sys.argv[2]
print("[Interface]\nPrivateKey = %s\nListenPort = 51820" % priv)
for i in range(n):
    key = bytearray(hashlib.sha256(b"peer%d" % i).digest())
    print("\n[Peer]\nPublicKey = %s" % base64.b64encode(bytes(key)).decode())
    print("AllowedIPs = 10.%d.%d.0/24, fd00:%x::/64" % (i // 256, i % 256, i))
    print("AllowedIPs = 172.16.%d.%d/32, fd01::%x/128" % (i // 256, i % 256, i))
EOF
	wgx_tw setconf wg0 "$TWDIR/big.conf"
	expect_eq peers "$n" "$(tw wg show wg0 peers | wc -l)"
	expect_eq "allowed ips" $((4 * n)) "$(tw wg show wg0 allowed-ips | cut -f2 | wc -w)"
	# The dump spans many messages; wgx must coalesce it exactly like wg.
	wgx_tw show wg0 dump >"$TWDIR/ours"
	tw wg show wg0 dump >"$TWDIR/theirs"
	cmp -s "$TWDIR/ours" "$TWDIR/theirs" || fail "dump differs from wg's"
	expect_eq "json peers" "$n" "$(wgx_tw show wg0 --json | jq '.interfaces[0].peers | length')"
	# syncconf down to one peer removes the rest.
	head -n 8 "$TWDIR/big.conf" >"$TWDIR/one.conf"
	wgx_tw syncconf wg0 "$TWDIR/one.conf"
	expect_eq "after sync" 1 "$(tw wg show wg0 peers | wc -l)"
}

test_live_tunnel_counters_match_wg() {
	tw_setup
	gen_keys 2
	# A second namespace with its own wireguard interface, joined by veth.
	ip netns add "${TW}2"
	ip link add vtw netns "$TW" type veth peer vtw2 netns "${TW}2"
	tw ip addr add 192.0.2.1/24 dev vtw
	tw ip link set vtw up
	ip netns exec "${TW}2" ip link set lo up
	ip netns exec "${TW}2" ip addr add 192.0.2.2/24 dev vtw2
	ip netns exec "${TW}2" ip link set vtw2 up
	ip netns exec "${TW}2" ip link add wg0 type wireguard
	wgx_tw set wg0 private-key "$TWDIR/k1" listen-port 51820 \
		peer "$(p 2)" endpoint 192.0.2.2:51821 allowed-ips 10.0.0.2/32 persistent-keepalive 25
	ip netns exec "${TW}2" "$WGX_TOOL" set wg0 private-key "$TWDIR/k2" listen-port 51821 \
		peer "$(p 1)" endpoint 192.0.2.1:51820 allowed-ips 10.0.0.1/32
	tw ip addr add 10.0.0.1/24 dev wg0
	ip netns exec "${TW}2" ip addr add 10.0.0.2/24 dev wg0
	tw ip link set wg0 up
	ip netns exec "${TW}2" ip link set wg0 up
	# Wait for the underlay first: a handshake sent before veth carrier is lost
	# and only retried after REKEY_TIMEOUT.
	for _ in 1 2 3 4 5; do
		tw ping -c 1 -W 1 192.0.2.2 >/dev/null 2>&1 && break
	done
	tw ping -c 3 -i 0.3 -W 8 10.0.0.2 >/dev/null ||
		tw ping -c 2 -W 8 10.0.0.2 >/dev/null || fail "no traffic through the tunnel"
	[ "$(wgx_tw show wg0 latest-handshakes | cut -f2)" -gt 0 ] || fail "no handshake seen by wgx"
	# Counters move with keepalives, so compare with wg right after each other
	# and retry a few times before calling a difference real.
	local f i same
	for f in "show wg0" "show wg0 dump" "show wg0 transfer" "show wg0 latest-handshakes"; do
		same=0
		for i in 1 2 3 4 5; do
			# shellcheck disable=SC2086
			if [ "$(WG_COLOR_MODE=never wgx_tw $f)" = "$(WG_COLOR_MODE=never tw wg $f)" ]; then
				same=1
				break
			fi
		done
		# shellcheck disable=SC2086
		[ $same = 1 ] || same_as_wg $f
	done
	wgx_tw show wg0 | grep -q '^  latest handshake: .* ago$\|^  latest handshake: Now$' ||
		fail "no latest handshake line: $(wgx_tw show wg0)"
	wgx_tw show wg0 | grep -q '^  transfer: .* received, .* sent$' || fail "no transfer line"
	ip netns del "${TW}2"
}

# ---- standalone runner ------------------------------------------------------

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	here=$(cd "$(dirname "$0")" && pwd)
	# shellcheck source=lib.sh
	. "$here/lib.sh"
	if [ "${WGX_IN_VM:-0}" != 1 ]; then
		echo "tool_wireguard.sh: run inside scripts/vm (it creates interfaces and loads wireguard)" >&2
		exit 2
	fi
	[ -x "$WGX_TOOL" ] || { echo "tool_wireguard.sh: $WGX_TOOL not built" >&2; exit 2; }
	cases=("$@")
	if [ ${#cases[@]} -eq 0 ]; then
		mapfile -t cases < <(declare -F | awk '$3 ~ /^test_/ {print substr($3, 6)}')
	fi
	passed=0 failed=0
	log=$(mktemp)
	for c in "${cases[@]}"; do
		ip netns del "$TW" 2>/dev/null
		ip netns del "${TW}2" 2>/dev/null
		if bash -e -c '. "$1"; . "$2"; "test_$3"' case "$here/lib.sh" "$here/tool_wireguard.sh" "$c" >"$log" 2>&1; then
			echo "$c: ok"
			passed=$((passed + 1))
		else
			echo "$c: FAIL"
			sed 's/^/    | /' "$log"
			failed=$((failed + 1))
		fi
		ip netns del "$TW" 2>/dev/null
		ip netns del "${TW}2" 2>/dev/null
	done
	rm -f "$log"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
fi
