# Integration suite: the generic netlink API of wgx (kmod/netlink*.c, spec in
# include/uapi/linux/wgx.h), driven through the wgx tool and, for what the
# tool never sends (malformed attributes, raw dump layout), through the raw
# genetlink client netlink_raw.py (see wgxnl_init below).
#
# Every case works in namespace "a" (removed by the runner afterwards).

NL_DIR=/tmp/wgx-netlink-test

# ---- the raw client -------------------------------------------------------

# wgxnl_init — copy the raw genetlink client (tests/integration/netlink_raw.py
# over tests/lib/wgx_uapi.py, which reads include/uapi/linux/wgx.h) to
# $NL_DIR, keeping their relative layout, world-readable: the permission
# cases run it as an unprivileged user, who may not be able to read the
# repository.
wgxnl_init() {
	local f
	mkdir -p "$NL_DIR"
	for f in tests/integration/netlink_raw.py tests/lib/wgx_uapi.py include/uapi/linux/wgx.h; do
		install -D -m 644 "$WGX_REPO/$f" "$NL_DIR/$f"
	done
	chmod -R a+rX "$NL_DIR"
}

# wgxnl ARGS... — run the raw client in namespace a (see netlink_raw.py for
# its commands: set, cases, dump-intr, dump).
wgxnl() {
	n a python3 "$NL_DIR/tests/integration/netlink_raw.py" "$@"
}

# ---- helpers ---------------------------------------------------------------

# nl_setup — namespace a with wgx0 (down) in it.
nl_setup() {
	wgxnl_init
	ip netns add a
	n a ip link set lo up
	n a ip link add wgx0 type wgx
}

# nl_tool ARGS... — the wgx tool in namespace a.
nl_tool() {
	n a "$WGX_TOOL" "$@"
}

# nl_keys N — N distinct random base64 keys (32 bytes each, last two zero),
# one per line; fast enough for 10,000 (no process per key).  Peer public
# keys need not be valid curve points for configuration.
nl_keys() {
	head -c $((30 * $1)) /dev/urandom | base64 -w 40 | sed 's/$/AAA=/'
}

# nl_privkey FILE — a fresh private key in FILE (mode 600); prints nothing.
nl_privkey() {
	(umask 077 && wg genkey >"$1")
}

# nl_count_peers / nl_count_allowedips — from `wgx show wgx0 dump`.
nl_count_peers() {
	nl_tool show wgx0 dump | awk 'NR > 1' | wc -l
}
nl_count_allowedips() {
	nl_tool show wgx0 dump | awk -F'\t' 'NR > 1 && $4 != "(none)" { n += split($4, a, ",") } END { print n + 0 }'
}

# nl_peer_allowedips KEY — the allowed-ips column of peer KEY.
nl_peer_allowedips() {
	nl_tool show wgx0 dump | awk -F'\t' -v k="$1" 'NR > 1 && $1 == k { print $4 }'
}

# nl_baseline_conf FILE — a configuration using every key of the config
# grammar; prints nothing.  Sets NL_PEER1 / NL_PEER2 (public keys).
nl_baseline_conf() {
	local keys
	mapfile -t keys < <(nl_keys 2)
	NL_PEER1=${keys[0]}
	NL_PEER2=${keys[1]}
	(
		umask 077
		cat >"$1" <<-CONF
			[Interface]
			ListenPort = 51820
			FwMark = 0x2a
			PrivateKey = $(wg genkey)
			MTU = 1420

			[Peer]
			PublicKey = $NL_PEER1
			PresharedKey = $(wg genpsk)
			AllowedIPs = 10.1.0.0/16, fd01::/64, 192.168.7.7/32
			Endpoint = 192.0.2.2:51821
			PersistentKeepalive = 25

			[Peer]
			PublicKey = $NL_PEER2
			AllowedIPs = 10.2.0.0/16, 2001:db8:2::/48
			Endpoint = [2001:db8::2]:51822
		CONF
	)
}

# ---- configuration round trips ---------------------------------------------

test_setconf_showconf_round_trip() {
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	nl_tool showconf wgx0 >"$NL_DIR/shown.conf"
	diff -u "$NL_DIR/base.conf" "$NL_DIR/shown.conf"
	# The same again with the device up (sockets bound to the port).
	n a ip link set wgx0 up
	nl_tool setconf wgx0 "$NL_DIR/shown.conf"
	nl_tool showconf wgx0 | diff -u "$NL_DIR/base.conf" -
	expect_eq "listen port" 51820 "$(nl_tool show wgx0 listen-port)"
	# The public key is derived from the private key as wg does it.
	expect_eq "public key" "$(nl_tool show wgx0 private-key | wg pubkey)" \
		"$(nl_tool show wgx0 public-key)"
}

test_setconf_replaces_everything() {
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	local other
	other=$(nl_keys 1)
	printf '[Interface]\nPrivateKey = %s\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.1.0.0/16\n' \
		"$(wg genkey)" "$other" >"$NL_DIR/other.conf"
	nl_tool setconf wgx0 "$NL_DIR/other.conf"
	expect_eq peers 1 "$(nl_count_peers)"
	expect_eq "allowed ips" 10.1.0.0/16 "$(nl_peer_allowedips "$other")"
	expect_eq fwmark off "$(nl_tool show wgx0 fwmark)"
}

test_syncconf_removes_what_the_file_lacks() {
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	# Peer 1 without its PresharedKey and PersistentKeepalive, peer 2 gone,
	# a new peer 3.
	local peer3
	peer3=$(nl_keys 1)
	awk '/^\[Peer\]/ { p++ } p == 2 { exit } !/^(PresharedKey|PersistentKeepalive)/' \
		"$NL_DIR/base.conf" >"$NL_DIR/sync.conf"
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.3.0.0/16\n' "$peer3" >>"$NL_DIR/sync.conf"
	nl_tool syncconf wgx0 "$NL_DIR/sync.conf"
	nl_tool showconf wgx0 | diff -u "$NL_DIR/sync.conf" -
	local line
	line=$(nl_tool show wgx0 dump | awk -F'\t' -v k="$NL_PEER1" '$1 == k')
	expect_eq psk "(none)" "$(echo "$line" | cut -f2)"
	expect_eq keepalive off "$(echo "$line" | cut -f8)"
	if nl_tool show wgx0 dump | grep -qF "$NL_PEER2"; then
		fail "peer 2 survived syncconf"
	fi
	expect_eq peers 2 "$(nl_count_peers)"
}

# ---- large configurations and dump splitting ---------------------------------

# 10,000 peers with 3 allowed IPs each: set in chunks by the tool, dumped over
# many messages, coalesced by the tool.
test_ten_thousand_peers() {
	nl_setup
	nl_keys 10000 | awk -v priv="$(wg genkey)" '
		BEGIN { printf "[Interface]\nPrivateKey = %s\n", priv }
		{
			i = NR
			printf "\n[Peer]\nPublicKey = %s\n", $0
			printf "AllowedIPs = 10.%d.%d.0/24, 10.200.%d.%d/32, fd00:%x::/64\n", \
				int(i / 256), i % 256, int(i / 256), i % 256, i
		}' >"$NL_DIR/big.conf"
	chmod 600 "$NL_DIR/big.conf"
	nl_tool setconf wgx0 "$NL_DIR/big.conf"
	expect_eq peers 10000 "$(nl_count_peers)"
	expect_eq "allowed ips" 30000 "$(nl_count_allowedips)"
	# `wgx top` at 10,000 peers: --once prints a line for every
	# peer after the header; the live view paints its first screen, counts
	# every peer in its status line, scrolls to the end and quits on q.
	local t0=$SECONDS
	nl_tool top --once wgx0 >"$NL_DIR/top.once"
	echo "top --once at 10,000 peers: $((SECONDS - t0)) s"
	expect_eq "top --once lines" 10001 "$(wc -l <"$NL_DIR/top.once")"
	expect_eq "top --once distinct peers" 10000 \
		"$(tail -n +2 "$NL_DIR/top.once" | awk '{ print $2 }' | sort -u | wc -l)"
	{ sleep 4; printf G; sleep 3; printf q; } |
		TERM=vt100 LINES=30 COLUMNS=150 timeout 60 \
			script -qfec "ip netns exec a $WGX_TOOL top wgx0" /dev/null >"$NL_DIR/top.live" ||
		fail "live wgx top did not quit on q: $(tail -c 300 "$NL_DIR/top.live" | tr -c '[:print:]\n' .)"
	grep -q '10000 peers on 1 interfaces' "$NL_DIR/top.live" ||
		fail "live wgx top: no status line counting 10000 peers"
	# Order and content survive: the configuration comes back as written.
	nl_tool showconf wgx0 | grep -v '^MTU = ' >"$NL_DIR/big.shown"
	diff -q "$NL_DIR/big.conf" "$NL_DIR/big.shown"
	# Raw layout: many messages, each after the first only peers.
	local out
	out=$(wgxnl dump wgx0)
	echo "$out"
	expect_eq "raw dump" "peers=10000 allowedips=30000" "$(echo "$out" | tail -n1 | cut -d' ' -f1-2)"
	# A change between two messages of a dump is flagged on the later ones.
	wgxnl dump-intr wgx0
	expect_eq "peers after the change" 10001 "$(nl_count_peers)"
	# Removing them all at once (REPLACE_PEERS with no peers).
	printf '[Interface]\n' >"$NL_DIR/empty.conf"
	nl_tool setconf wgx0 "$NL_DIR/empty.conf"
	expect_eq peers 0 "$(nl_count_peers)"
}

# WGX_GET_F_NO_STATS: the same dump without the counter nests (what the
# tool's one-field `show`, showconf and syncconf ask for, and the bench's
# handshake poll), much smaller; an unknown GET flag is refused, naming the
# attribute, and so is a missing device; one-field show and showconf read
# the same peers.
test_dump_without_counters() {
	nl_setup
	nl_keys 300 | awk -v priv="$(wg genkey)" '
		BEGIN { printf "[Interface]\nPrivateKey = %s\n", priv }
		{ printf "\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.%d.%d.0/24\nEndpoint = 192.0.2.1:%d\n", $0, int(NR / 256), NR % 256, 1000 + NR }
	' >"$NL_DIR/three.conf"
	chmod 600 "$NL_DIR/three.conf"
	nl_tool setconf wgx0 "$NL_DIR/three.conf"
	local full brief fb bb err
	# Not in a pipe: the layout checks fail through the client's exit status.
	full=$(wgxnl dump wgx0 - 0) || fail "the dump with counters: $full"
	full=$(echo "$full" | tail -n1)
	brief=$(wgxnl dump wgx0 - NO_STATS) || fail "the dump without counters: $brief"
	brief=$(echo "$brief" | tail -n1)
	echo "with counters: $full"
	echo "without:       $brief"
	expect_eq "peers and allowed IPs without counters" "$(echo "$full" | cut -d' ' -f1-2)" "$(echo "$brief" | cut -d' ' -f1-2)"
	fb=$(echo "$full" | sed 's/.* bytes=\([0-9]*\).*/\1/') bb=$(echo "$brief" | sed 's/.* bytes=\([0-9]*\).*/\1/')
	[ "$((bb * 2))" -lt "$fb" ] || fail "the dump without counters is $bb bytes, with them $fb: not less than half"
	err=$(wgxnl dump wgx0 EOPNOTSUPP 0x80000000)
	echo "$err"
	case "$err" in *GET_FLAGS*) ;; *) fail "unknown GET flag: the error does not name the attribute: $err" ;; esac
	# The same class: a refused lookup says why (a start callback has no extack on 6.1).
	err=$(wgxnl dump nosuch0 ENODEV)
	echo "$err"
	case "$err" in *"no such network device"*) ;; *) fail "dump of a missing device: no extack message: $err" ;; esac
	expect_eq "peers listed by show peers" 300 "$(nl_tool show wgx0 peers | wc -l)"
	expect_eq "endpoints" "$(grep -c '^Endpoint' "$NL_DIR/three.conf")" "$(nl_tool show wgx0 endpoints | grep -c ':')"
	nl_tool showconf wgx0 | grep -v '^MTU = ' | diff -q "$NL_DIR/three.conf" - ||
		fail "showconf without counters differs from the configuration"
}

# One peer whose allowed IPs span several messages: the dump continues it
# (uapi "Splitting") and the reader gets every prefix once, in order.
test_peer_spanning_messages() {
	nl_setup
	local key
	key=$(nl_keys 1)
	awk -v k="$key" 'BEGIN {
		printf "[Interface]\n\n[Peer]\nPublicKey = %s\nAllowedIPs = ", k
		for (i = 0; i < 5000; i++)
			printf "%s10.%d.%d.0/24", (i ? ", " : ""), int(i / 256), i % 256
		printf "\n"
	}' >"$NL_DIR/wide.conf"
	nl_tool setconf wgx0 "$NL_DIR/wide.conf"
	local out
	out=$(wgxnl dump wgx0)
	echo "$out"
	expect_eq "raw dump" "peers=1 allowedips=5000" "$(echo "$out" | tail -n1 | cut -d' ' -f1-2)"
	local continued
	continued=$(echo "$out" | tail -n1 | sed 's/.*continued=//')
	[ "$continued" -ge 1 ] || fail "5000 allowed IPs fit one message? continued=$continued"
	expect_eq "allowed ips" 5000 "$(nl_count_allowedips)"
	expect_eq "order" "$(sed -n 's/^AllowedIPs = //p' "$NL_DIR/wide.conf")" "$(nl_peer_allowedips "$key" | sed 's/,/, /g')"
}

# The kernel selftest's split check (netns.sh): one peer with 255 * 256 * 2 =
# 130,560 allowed IPs, a /16 and a /128 alternating, set with setconf and
# dumped back complete and in order.  The dump continues that one peer over
# many messages; each message resumes where the last stopped (a cursor in
# kmod/netlink_get.c), where re-walking the peer's list from its start for
# every message made the dump quadratic.
test_peer_with_130560_allowed_ips() {
	nl_setup
	local key
	key=$(nl_keys 1)
	(
		umask 077
		awk -v k="$key" -v priv="$(wg genkey)" 'BEGIN {
			printf "[Interface]\nPrivateKey = %s\n\n[Peer]\nPublicKey = %s\n", priv, k
			for (a = 1; a <= 255; a++)
				for (b = 0; b <= 255; b++)
					printf "AllowedIPs = %d.%d.0.0/16, %d::%d/128\n", a, b, a, b
		}' >"$NL_DIR/selftest.conf"
	)
	# What the dump must give: the same prefixes in the same order, spelled as
	# inet_ntop does (N::0 is N::).
	awk 'BEGIN {
		for (a = 1; a <= 255; a++)
			for (b = 0; b <= 255; b++)
				printf "%d.%d.0.0/16\n%d::%s/128\n", a, b, a, (b ? b : "")
	}' >"$NL_DIR/selftest.want"
	nl_tool setconf wgx0 "$NL_DIR/selftest.conf"
	nl_tool show wgx0 allowed-ips >"$NL_DIR/selftest.shown"
	expect_eq "peers shown" 1 "$(wc -l <"$NL_DIR/selftest.shown")"
	expect_eq "peer" "$key" "$(cut -f1 "$NL_DIR/selftest.shown")"
	cut -f2 "$NL_DIR/selftest.shown" | tr ' ' '\n' >"$NL_DIR/selftest.got"
	expect_eq "allowed ips" 130560 "$(wc -l <"$NL_DIR/selftest.got")"
	cmp "$NL_DIR/selftest.want" "$NL_DIR/selftest.got"
	# Raw layout: the peer continued in many messages, each continuation only
	# its key and allowed IPs, 130,560 of them in all.
	local out continued
	out=$(wgxnl dump wgx0)
	echo "$out"
	expect_eq "raw dump" "peers=1 allowedips=130560" "$(echo "$out" | tail -n1 | cut -d' ' -f1-2)"
	continued=$(echo "$out" | tail -n1 | sed 's/.*continued=//')
	[ "$continued" -ge 10 ] || fail "130,560 allowed IPs continued only $continued times"
}

# ---- malformed input ----------------------------------------------------------

# Every malformed class is refused with the documented errno and an extack
# message, and the device (configured with the baseline, up) is unchanged.
# The messages also carry many valid changes before the bad attribute.
test_malformed_input_refused_atomically() {
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	n a ip link set wgx0 up
	nl_tool showconf wgx0 >"$NL_DIR/before.conf"
	wgxnl cases wgx0 "$NL_PEER2" <<-CASES
		dev-private-key-31 EINVAL
		dev-private-key-33 EINVAL
		dev-flags-unknown EOPNOTSUPP
		dev-port-u32 EINVAL
		dev-fwmark-u16 EINVAL
		dev-dscp-2 ERANGE
		dev-dscp-u32 EINVAL
		dev-priority-dscp-u32 EINVAL
		dev-handshake-budget-1000001 ERANGE
		dev-handshake-budget-u16 EINVAL
		dev-mtu-auto-2 ERANGE
		dev-unknown-attr EINVAL
		dev-peers-not-nested EINVAL
		peer-public-key-31 EINVAL
		peer-public-key-33 EINVAL
		peer-no-public-key EINVAL
		peer-empty EINVAL
		peer-psk-16 EINVAL
		peer-flags-unknown EOPNOTSUPP
		peer-protocol-version-2 EPFNOSUPPORT
		peer-keepalive-u32 EINVAL
		peer-new-key-31 EINVAL
		peer-new-key-33 EINVAL
		peer-mtu-575 ERANGE
		peer-mtu-65456 ERANGE
		peer-mtu-u16 EINVAL
		peer-unknown-attr EINVAL
		peer-allowedips-not-nested EINVAL
		endpoint-inet-28-bytes EINVAL
		endpoint-inet6-16-bytes EINVAL
		endpoint-inet-family-in6-size EINVAL
		endpoint-unix-family EINVAL
		endpoint-20-bytes EINVAL
		endpoint-2-bytes EINVAL
		aip-v4-cidr-33 EINVAL
		aip-v6-cidr-129 EINVAL
		aip-v4-family-16-bytes EINVAL
		aip-v6-family-4-bytes EINVAL
		aip-family-3 EINVAL
		aip-family-0 EINVAL
		aip-family-packet EINVAL
		aip-addr-5-bytes EINVAL
		aip-no-family EINVAL
		aip-no-addr EINVAL
		aip-no-cidr EINVAL
		aip-flags-unknown EOPNOTSUPP
		aip-cidr-u16 EINVAL
		no-device EBADR
		ifindex-and-ifname EBADR
		no-such-device ENODEV
		not-wgx-device EOPNOTSUPP
		update-only-absent 0
		remove-absent 0
		read-only-attrs 0
	CASES
	nl_tool showconf wgx0 | diff -u "$NL_DIR/before.conf" -
	# The tool refuses what it can before the kernel sees it, also atomically.
	local k31
	k31=$(head -c 31 /dev/urandom | base64)
	must_fail nl_tool set wgx0 peer "$k31" allowed-ips 10.9.0.0/16
	must_fail nl_tool set wgx0 peer "$NL_PEER1" allowed-ips 10.9.0.0/33
	must_fail nl_tool set wgx0 peer "$NL_PEER1" allowed-ips fd09::/129
	must_fail nl_tool set wgx0 listen-port 70000
	must_fail nl_tool set wgx0 handshake-budget 1000001
	must_fail nl_tool set wgx0 peer "$NL_PEER1" persistent-keepalive 65536
	must_fail nl_tool set wgx0 peer "$NL_PEER1" endpoint 192.0.2.1
	nl_tool showconf wgx0 | diff -u "$NL_DIR/before.conf" -
	# A config file with one bad line applies nothing.
	sed 's#^AllowedIPs = 10.2.0.0/16.*#AllowedIPs = 10.2.0.0/33#' "$NL_DIR/base.conf" >"$NL_DIR/bad.conf"
	echo "ListenPort = 1" >>"$NL_DIR/bad.conf"
	must_fail nl_tool setconf wgx0 "$NL_DIR/bad.conf"
	nl_tool showconf wgx0 | diff -u "$NL_DIR/before.conf" -
	# Control: the checker above does notice a change.
	must_fail wgxnl cases wgx0 "$NL_PEER2" <<<"add-peer 0"
	expect_eq peers 3 "$(nl_count_peers)"
}

# A listen port that cannot be bound fails the whole message, including the
# peers it would have created first.
test_port_in_use_changes_nothing() {
	nl_setup
	n a ip link add wgx1 type wgx
	n a "$WGX_TOOL" set wgx1 listen-port 40000
	n a ip link set wgx1 up
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	n a ip link set wgx0 up
	nl_tool showconf wgx0 >"$NL_DIR/before.conf"
	local newkey
	newkey=$(nl_keys 1)
	must_fail nl_tool set wgx0 listen-port 40000 peer "$newkey" allowed-ips 10.50.0.0/16
	nl_tool showconf wgx0 | diff -u "$NL_DIR/before.conf" -
	expect_eq "listen port" 51820 "$(nl_tool show wgx0 listen-port)"
}

# ---- semantics -------------------------------------------------------------------

# An allowed IP given to a second peer moves to it (the newest peer wins),
# whether in separate messages or within one.
test_overlapping_allowedips_move_to_newest_peer() {
	nl_setup
	local k
	mapfile -t k < <(nl_keys 3)
	nl_tool set wgx0 peer "${k[0]}" allowed-ips 10.9.0.0/16,10.10.0.1/32,fd09::/64
	nl_tool set wgx0 peer "${k[1]}" allowed-ips 10.9.0.0/16,fd09::/64
	expect_eq "first peer" 10.10.0.1/32 "$(nl_peer_allowedips "${k[0]}")"
	expect_eq "second peer" "10.9.0.0/16,fd09::/64" "$(nl_peer_allowedips "${k[1]}")"
	# Host bits are cleared on the way in, so 10.9.1.2/16 is the same prefix.
	nl_tool set wgx0 peer "${k[2]}" allowed-ips 10.9.1.2/16 peer "${k[0]}" allowed-ips +fd09::/64
	expect_eq "second peer after" "" "$(nl_peer_allowedips "${k[1]}" | sed 's/(none)//')"
	expect_eq "third peer" 10.9.0.0/16 "$(nl_peer_allowedips "${k[2]}")"
	expect_eq "first peer after" "10.10.0.1/32,fd09::/64" "$(nl_peer_allowedips "${k[0]}")"
	# Removing a prefix a peer does not own changes nothing.
	nl_tool set wgx0 peer "${k[1]}" allowed-ips -10.9.0.0/16
	expect_eq "third peer kept" 10.9.0.0/16 "$(nl_peer_allowedips "${k[2]}")"
	nl_tool set wgx0 peer "${k[2]}" allowed-ips -10.9.0.0/16
	expect_eq "third peer removed" "(none)" "$(nl_peer_allowedips "${k[2]}")"
}

# The device is never its own peer: such a peer is skipped silently, and a
# new private key removes the peer holding its public key.
test_own_public_key_is_not_a_peer() {
	nl_setup
	nl_privkey "$NL_DIR/k1"
	nl_privkey "$NL_DIR/k2"
	local pub1 pub2
	pub1=$(wg pubkey <"$NL_DIR/k1")
	pub2=$(wg pubkey <"$NL_DIR/k2")
	nl_tool set wgx0 private-key "$NL_DIR/k1" peer "$pub1" allowed-ips 10.1.0.0/16 \
		peer "$pub2" allowed-ips 10.2.0.0/16
	expect_eq peers 1 "$(nl_count_peers)"
	expect_eq "the other peer" 10.2.0.0/16 "$(nl_peer_allowedips "$pub2")"
	nl_tool set wgx0 private-key "$NL_DIR/k2"
	expect_eq "peers after key change" 0 "$(nl_count_peers)"
	expect_eq "public key" "$pub2" "$(nl_tool show wgx0 public-key)"
	# Clearing the key: no private or public key is reported.
	(umask 077 && head -c 32 /dev/zero | base64 >"$NL_DIR/zero")
	nl_tool set wgx0 private-key "$NL_DIR/zero"
	expect_eq "private key cleared" "(none)" "$(nl_tool show wgx0 private-key)"
}

# Peer removal, replace-allowed-ips through set, preshared key removal,
# keepalive off, endpoint change between families.
test_peer_updates() {
	nl_setup
	local k
	k=$(nl_keys 1)
	wg genpsk >"$NL_DIR/psk"
	nl_tool set wgx0 peer "$k" preshared-key "$NL_DIR/psk" endpoint 192.0.2.5:1000 \
		persistent-keepalive 10 allowed-ips 10.5.0.0/16
	local line
	line=$(nl_tool show wgx0 dump | sed -n 2p)
	expect_eq psk "$(cat "$NL_DIR/psk")" "$(echo "$line" | cut -f2)"
	expect_eq endpoint 192.0.2.5:1000 "$(echo "$line" | cut -f3)"
	expect_eq keepalive 10 "$(echo "$line" | cut -f8)"
	expect_eq handshake 0 "$(echo "$line" | cut -f5)"
	nl_tool set wgx0 peer "$k" preshared-key /dev/null endpoint '[2001:db8::5]:2000' \
		persistent-keepalive off allowed-ips 10.6.0.0/16
	line=$(nl_tool show wgx0 dump | sed -n 2p)
	expect_eq "psk removed" "(none)" "$(echo "$line" | cut -f2)"
	expect_eq "endpoint v6" "[2001:db8::5]:2000" "$(echo "$line" | cut -f3)"
	expect_eq "keepalive off" off "$(echo "$line" | cut -f8)"
	# `set ... allowed-ips` replaces the list (as wg does).
	expect_eq "allowed ips replaced" 10.6.0.0/16 "$(echo "$line" | cut -f4)"
	nl_tool set wgx0 peer "$k" allowed-ips +10.7.0.0/16
	expect_eq "allowed ips added" "10.6.0.0/16,10.7.0.0/16" "$(nl_peer_allowedips "$k")"
	nl_tool set wgx0 peer "$k" remove
	expect_eq peers 0 "$(nl_count_peers)"
}

# ---- link settings through the tool ---------------------------------------------

test_mtu_and_offloads_visible() {
	nl_setup
	nl_tool set wgx0 mtu 1280
	n a ip link show wgx0 | grep -q 'mtu 1280 '
	nl_tool set wgx0 offload gso off offload tx-checksum off
	n a ethtool -k wgx0 | grep -q '^generic-segmentation-offload: off'
	n a ethtool -k wgx0 | grep -q '^tx-checksumming: off'
	nl_tool set wgx0 offload gso on offload tx-checksum on offload gro off
	n a ethtool -k wgx0 | grep -q '^generic-segmentation-offload: on'
	n a ethtool -k wgx0 | grep -q '^tx-checksumming: on'
	n a ethtool -k wgx0 | grep -q '^generic-receive-offload: off'
	# MTU from a configuration file, and back out through showconf.
	printf '[Interface]\nMTU = 1380\n' >"$NL_DIR/mtu.conf"
	nl_tool setconf wgx0 "$NL_DIR/mtu.conf"
	n a ip link show wgx0 | grep -q 'mtu 1380 '
	nl_tool showconf wgx0 | grep -qx 'MTU = 1380'
	must_fail nl_tool set wgx0 mtu 67
	n a ip link show wgx0 | grep -q 'mtu 1380 '
}

# mtu_refused WHAT MTU TOOL-ARGS... — `wgx TOOL-ARGS...` (WHAT names it) asks
# for MTU, above wgx0's max_mtu: it must fail with the kernel's refusal
# named, and leave the MTU at 1420 and the configuration as before.conf.
mtu_refused() {
	local what=$1 mtu=$2 out
	shift 2
	if out=$(nl_tool "$@" 2>&1); then
		fail "$what with MTU $mtu (above max_mtu) succeeded: $out"
	fi
	echo "$what: $out"
	grep -q "^Unable to modify interface wgx0: unable to set MTU $mtu: .*(Invalid argument)$" <<<"$out" ||
		fail "$what: unexpected error: $out"
	expect_eq "MTU after the refused $what" 1420 "$(n a cat /sys/class/net/wgx0/mtu)"
	nl_tool showconf wgx0 | diff -u "$NL_DIR/before.conf" - || fail "the refused $what changed the device"
}

# An MTU the tool takes (68-65535) but the kernel refuses: one above the
# device's max_mtu (65535 - IPv6 and UDP headers - the message overhead).
# `set` and `setconf` fail with the kernel's reason, and the device is
# unchanged: the tool sets the MTU first and sends nothing else after the
# refusal (here a new listen port; a file that drops a peer).  The maximum
# itself is taken.
test_mtu_refused_by_kernel_changes_nothing() {
	local max
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	nl_tool showconf wgx0 >"$NL_DIR/before.conf"
	expect_eq "MTU before" 1420 "$(n a cat /sys/class/net/wgx0/mtu)"
	max=$(n a ip -d -j link show wgx0 | jq '.[0].max_mtu')
	echo "wgx0: max_mtu $max"
	[ "$max" -ge 1420 ] && [ "$max" -lt 65535 ] || fail "wgx0's max_mtu is $max: no MTU the tool sends is above it"
	mtu_refused set "$((max + 1))" set wgx0 listen-port 51999 mtu $((max + 1))
	# The same through a configuration file: the first peer dropped, the MTU too large.
	awk -v mtu=$((max + 1)) '/^MTU = / { $0 = "MTU = " mtu } /^\[Peer\]/ { p++ } p != 1' \
		"$NL_DIR/base.conf" >"$NL_DIR/toobig.conf"
	grep -qx "MTU = $((max + 1))" "$NL_DIR/toobig.conf" || fail "toobig.conf: $(cat "$NL_DIR/toobig.conf")"
	mtu_refused setconf "$((max + 1))" setconf wgx0 "$NL_DIR/toobig.conf"
	nl_tool set wgx0 mtu "$max"
	expect_eq "MTU at the maximum" "$max" "$(n a cat /sys/class/net/wgx0/mtu)"
}

# ---- permissions -------------------------------------------------------------------

# Without CAP_NET_ADMIN nothing can be read (the dump holds the private key)
# nor written.
test_unprivileged_refused() {
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	n a setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 "$NL_DIR/tests/integration/netlink_raw.py" dump wgx0 EPERM
	n a setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 "$NL_DIR/tests/integration/netlink_raw.py" set wgx0 remove-absent EPERM
	must_fail n a setpriv --reuid=65534 --regid=65534 --clear-groups "$WGX_TOOL" show wgx0
}

# An admin of a user namespace owning the device's current namespace may
# configure peers, but the listen port and fwmark (whose sockets live in the
# creating namespace) need CAP_NET_ADMIN there.
test_listen_port_needs_creating_namespace_admin() {
	if ! unshare -U -r -n true 2>/dev/null; then
		echo "skipped: this kernel has no user namespaces (CONFIG_USER_NS)"
		return 0
	fi
	nl_setup
	nl_tool set wgx0 listen-port 51820
	unshare -U -r -n sleep 600 &
	local pid=$! i
	trap "kill $pid 2>/dev/null || true" EXIT
	for i in $(seq 50); do
		[ "$(readlink /proc/$pid/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
		sleep 0.1
	done
	n a ip link set wgx0 netns "$pid"
	local k
	k=$(nl_keys 1)
	nsenter -t "$pid" -U -n "$WGX_TOOL" set wgx0 peer "$k" allowed-ips 10.8.0.0/16
	expect_eq "peer set from the user namespace" 10.8.0.0/16 \
		"$(nsenter -t "$pid" -U -n "$WGX_TOOL" show wgx0 allowed-ips | cut -f2)"
	must_fail nsenter -t "$pid" -U -n "$WGX_TOOL" set wgx0 listen-port 1234
	must_fail nsenter -t "$pid" -U -n "$WGX_TOOL" set wgx0 fwmark 7
	expect_eq "listen port kept" 51820 "$(nsenter -t "$pid" -U -n "$WGX_TOOL" show wgx0 listen-port)"
}
