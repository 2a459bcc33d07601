# tests/integration/rotation.sh — key rotation: re-keying a peer in place
# (`wgx set IF peer OLD public-key NEW`, WGX_PEER_A_NEW_PUBLIC_KEY) and the
# zero-gap procedure of docs/rotation.md: the node sets its new private key,
# then each peer is told the new public key, one after the other; without
# grace (WireGuard's behaviour) and with a grace period for the previous key
# (WGX_DEVICE_A_KEY_GRACE).

# peer_line NS KEY — the `wgx show wgt0 dump` line of the peer with KEY (empty if none).
peer_line() {
	n "$1" "$WGX_TOOL" show wgt0 dump | awk -v k="$2" 'NR > 1 && $1 == k'
}

# grace_ended_wait — a's previous key must be gone: called just after the
# grace's end, it allows 5 s more for the expiry work to run on a loaded
# guest (the grace ends by a timer; 1 s of margin was once too little under
# TCG), then fails naming the key still there.
grace_ended_wait() {
	local i k
	for i in $(seq 10); do
		k=$(a_dev_json a .previous_public_key)
		[ "$k" = null ] && return 0
		sleep 0.5
	done
	fail "previous key after the grace: expected 'null', got '$k'"
}

test_rekey_in_place_keeps_the_peer() {
	tunnel_setup wgx 4 0
	ping_ok b 10.0.0.1
	local before after rx_before rx_after hs_before hs_after
	before=$(peer_line b "$KA_pub")
	[ -n "$before" ] || fail "b has no peer $KA_pub"
	rx_before=$(echo "$before" | cut -f 6)
	hs_before=$(n b "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.handshakes_completed')
	key_pair KN
	printf '%s\n' "$KN" >/tmp/kn.key
	# b re-keys its peer a while a still has the old key.
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	[ -z "$(peer_line b "$KA_pub")" ] || fail "the old key is still a peer of b"
	after=$(peer_line b "$KN_pub")
	[ -n "$after" ] || fail "b has no peer $KN_pub after the re-key"
	expect_eq "peers of b" 1 "$(n b "$WGX_TOOL" show wgt0 peers | wc -l)"
	expect_eq endpoint "$(echo "$before" | cut -f 3)" "$(echo "$after" | cut -f 3)"
	expect_eq allowed-ips "$(echo "$before" | cut -f 4)" "$(echo "$after" | cut -f 4)"
	expect_eq "latest handshake" "$(echo "$before" | cut -f 5)" "$(echo "$after" | cut -f 5)"
	rx_after=$(echo "$after" | cut -f 6)
	[ "$rx_after" -ge "$rx_before" ] || fail "rx counter went back: $rx_before -> $rx_after"
	# The current session was kept: a (old key) cannot handshake with b's
	# view of it, so traffic now can only use the session made before.
	n b ping -c 3 -i 0.2 -W 2 10.0.0.1 >/dev/null || fail "the current session did not survive the re-key"
	n a ping -c 3 -i 0.2 -W 2 10.0.0.2 >/dev/null || fail "a -> b over the kept session failed"
	# a takes the new key: the next handshake is made under it.
	n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key
	ping_ok a 10.0.0.2
	ping_ok b 10.0.0.1
	hs_after=$(n b "$WGX_TOOL" show wgt0 --json | jq '.interfaces[0].peers[0].stats.handshakes_completed')
	echo "handshakes completed at b: $hs_before before, $hs_after after"
	[ "$hs_after" -gt "$hs_before" ] || fail "no handshake under the new key"
	[ "$(peer_line b "$KN_pub" | cut -f 6)" -gt "$rx_after" ] || fail "counters did not continue"
}

test_rekey_refusals_name_the_attribute() {
	tunnel_setup wgx 4 0
	local out other
	key_pair KN
	key_pair KO
	# ENOENT: no peer with the old key.
	out=$(n b "$WGX_TOOL" set wgt0 peer "$KO_pub" public-key "$KN_pub" 2>&1) && fail "re-key of an absent peer succeeded"
	echo "$out"
	echo "$out" | grep -q "No such file or directory" || fail "absent peer: not ENOENT"
	echo "$out" | grep -q "WGX_PEER_A_NEW_PUBLIC_KEY" || fail "absent peer: extack does not name the attribute"
	# EEXIST: the new key is another peer's.
	n b "$WGX_TOOL" set wgt0 peer "$KO_pub" allowed-ips 10.9.0.0/24
	out=$(n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KO_pub" 2>&1) && fail "re-key onto another peer's key succeeded"
	echo "$out"
	echo "$out" | grep -q "File exists" || fail "taken key: not EEXIST"
	echo "$out" | grep -q "WGX_PEER_A_NEW_PUBLIC_KEY" || fail "taken key: extack does not name the attribute"
	# EINVAL: the new key is the device's own.
	out=$(n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KB_pub" 2>&1) && fail "re-key onto the own key succeeded"
	echo "$out"
	echo "$out" | grep -q "Invalid argument" || fail "own key: not EINVAL"
	echo "$out" | grep -q "own public key" || fail "own key: extack does not say why"
	# Nothing changed.
	[ -n "$(peer_line b "$KA_pub")" ] || fail "a refused re-key changed the peer"
	[ -n "$(peer_line b "$KO_pub")" ] || fail "a refused re-key removed the other peer"
	expect_eq "peers of b" 2 "$(n b "$WGX_TOOL" show wgt0 peers | wc -l)"
	# The in-tree family has no such attribute: the tool says so.
	modprobe wireguard
	n b ip link add wgw type wireguard
	n b wg set wgw peer "$KA_pub"
	out=$(n b "$WGX_TOOL" set wgw peer "$KA_pub" public-key "$KN_pub" 2>&1) && fail "re-key of a wireguard peer succeeded"
	echo "$out"
	echo "$out" | grep -q "wgx extension" || fail "wireguard device: no clear refusal"
}

# rotation_setup KIND_C — a (wgx) with peers b (wgx) and c (KIND_C) over two
# veth links (a-b 192.0.2.0/24, a-c 198.51.100.0/24); inner 10.0.0.1/.2/.3.
rotation_setup() {
	local kind_c=$1
	netns_pair a b
	ip netns add c
	ip link add vac netns a type veth peer vc netns c
	printf '%s\n' "addr add 198.51.100.1/24 dev vac" "link set vac up" | ip -n a -batch -
	printf '%s\n' "link set lo up" "addr add 198.51.100.2/24 dev vc" "link set vc up" | ip -n c -batch -
	key_pair KA
	key_pair KB
	key_pair KC
	key_pair KN
	umask 077
	printf '%s\n' "$KA" >/tmp/ka.key
	printf '%s\n' "$KB" >/tmp/kb.key
	printf '%s\n' "$KC" >/tmp/kc.key
	printf '%s\n' "$KN" >/tmp/kn.key
	tunnel_dev a wgx
	tunnel_dev b wgx
	tunnel_dev c "$kind_c"
	n a "$WGX_TOOL" set wgt0 private-key /tmp/ka.key listen-port $TUN_PORT_A \
		peer "$KB_pub" endpoint 192.0.2.2:$TUN_PORT_B allowed-ips 10.0.0.2/32 \
		peer "$KC_pub" endpoint 198.51.100.2:$TUN_PORT_B allowed-ips 10.0.0.3/32
	n b "$WGX_TOOL" set wgt0 private-key /tmp/kb.key listen-port $TUN_PORT_B \
		peer "$KA_pub" endpoint 192.0.2.1:$TUN_PORT_A allowed-ips 10.0.0.1/32
	n c "$(conf_tool "$kind_c")" set wgt0 private-key /tmp/kc.key listen-port $TUN_PORT_B \
		peer "$KA_pub" endpoint 198.51.100.1:$TUN_PORT_A allowed-ips 10.0.0.1/32
	n a ip addr add 10.0.0.1/24 dev wgt0
	n b ip addr add 10.0.0.2/24 dev wgt0
	n c ip addr add 10.0.0.3/24 dev wgt0
	n a ip link set wgt0 up
	n b ip link set wgt0 up
	n c ip link set wgt0 up
	ping_ok a 10.0.0.2
	ping_ok a 10.0.0.3
}

# pings_start — 10 pings/s for 12 s each way between a and each peer, in the background.
pings_start() {
	n a ping -c 120 -i 0.1 -W 10 10.0.0.2 >/tmp/ping-ab 2>&1 &
	n a ping -c 120 -i 0.1 -W 10 10.0.0.3 >/tmp/ping-ac 2>&1 &
	n b ping -c 120 -i 0.1 -W 10 10.0.0.1 >/tmp/ping-ba 2>&1 &
	n c ping -c 120 -i 0.1 -W 10 10.0.0.1 >/tmp/ping-ca 2>&1 &
}

# pings_lost — wait for pings_start's pings; print each one's loss; fail on any loss.
pings_lost() {
	local f sent got lost=0
	wait
	for f in /tmp/ping-ab /tmp/ping-ac /tmp/ping-ba /tmp/ping-ca; do
		sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$f")
		got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$f")
		echo "$(basename "$f"): $got of $sent answered; $(grep -o 'rtt.*' "$f")"
		[ -n "$sent" ] && [ "$sent" = "$got" ] || lost=1
	done
	[ "$lost" = 0 ] || fail "pings lost during the rotation"
}

# a_peer_json NS KEY — the `wgx show wgt0 --json` object of NS's peer KEY.
a_peer_json() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -c --arg k "$2" '.interfaces[0].peers[] | select(.public_key == $k)'
}

# a_dev_json NS FILTER — jq FILTER over NS's `wgx show wgt0 --json` interface.
a_dev_json() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -r ".interfaces[0] | $2"
}

# pings_max_rtt — the longest round trip (ms, integer) of pings_start's pings.
pings_max_rtt() {
	cat /tmp/ping-ab /tmp/ping-ac /tmp/ping-ba /tmp/ping-ca |
		sed -n 's|^rtt [^=]*= [^/]*/[^/]*/\([0-9]*\).*|\1|p' | sort -n | tail -1
}

test_rotation_three_nodes_zero_loss() {
	rotation_setup wgx
	pings_start
	sleep 2
	# 1. The node takes its new key; 2. each peer learns it, one after the other.
	# Grace 0 (the default, said explicitly): WireGuard's behaviour.
	n a "$WGX_TOOL" set wgt0 key-grace 0 private-key /tmp/kn.key
	expect_eq "previous key kept with grace 0" null "$(a_dev_json a .previous_public_key)"
	sleep 2
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	sleep 2
	n c "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	pings_lost
	[ -n "$(peer_line b "$KN_pub")" ] || fail "b does not end on the new key"
	[ -n "$(peer_line c "$KN_pub")" ] || fail "c does not end on the new key"
	ping_ok b 10.0.0.1
	ping_ok c 10.0.0.1
	# The sessions in use now were made under the new key: the old one is gone from every peer.
	[ -z "$(peer_line b "$KA_pub")$(peer_line c "$KA_pub")" ] || fail "a peer still knows the old key"
}

# Grace period, 3 nodes: a rotates with key-grace 10 and keeps its sessions;
# b and c learn the new key 2 s apart.  No ping is lost and none waits (the
# staging of the grace-0 case is gone); every session ends on the new key;
# after the grace, a handshake under the old key is dropped and counted.
test_rotation_grace_three_nodes() {
	rotation_setup wgx
	pings_start
	sleep 2
	# 10 s: the pushes (and the checks between them, slow under TCG) fit in it.
	n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key key-grace 10
	local t0=$SECONDS mac1 rtt
	expect_eq "previous public key" "$KA_pub" "$(a_dev_json a .previous_public_key)"
	expect_eq "key grace" 10 "$(a_dev_json a .key_grace)"
	# Nobody knows the new key yet: a's sessions are the previous key's.
	expect_eq "a-b session" previous "$(a_peer_json a "$KB_pub" | jq -r .session_keys.local)"
	n a "$WGX_TOOL" show wgt0 | grep -q "session made with: our previous key" ||
		fail "wgx show does not tell the session's key"
	sleep 1
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	sleep 2
	expect_eq "a-b session after b's push" current "$(a_peer_json a "$KB_pub" | jq -r .session_keys.local)"
	expect_eq "a-c session before c's push" previous "$(a_peer_json a "$KC_pub" | jq -r .session_keys.local)"
	echo "c told $((SECONDS - t0)) s after the change"
	n c "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	pings_lost
	rtt=$(pings_max_rtt)
	echo "longest round trip: $rtt ms"
	[ "${rtt:-99999}" -lt 1000 ] || fail "a ping waited ${rtt} ms: staged during the grace"
	[ -n "$(peer_line b "$KN_pub")" ] || fail "b does not end on the new key"
	[ -n "$(peer_line c "$KN_pub")" ] || fail "c does not end on the new key"
	# The grace is over (10 s after the change): the old key is gone from a.
	while [ $((SECONDS - t0)) -le 11 ]; do sleep 0.5; done
	grace_ended_wait
	expect_eq "a-b session" current "$(a_peer_json a "$KB_pub" | jq -r .session_keys.local)"
	expect_eq "a-c session" current "$(a_peer_json a "$KC_pub" | jq -r .session_keys.local)"
	ping_ok b 10.0.0.1
	ping_ok c 10.0.0.1
	# b goes back to the old key: its handshake under it is dropped by MAC1.
	mac1=$(a_dev_json a .stats.rx_drop_mac1)
	n b "$WGX_TOOL" set wgt0 peer "$KN_pub" public-key "$KA_pub"
	local i
	for i in 1 2 3 4 5 6; do
		[ "$(a_dev_json a .stats.rx_drop_mac1)" -gt "$mac1" ] && break
		sleep 0.5
	done
	[ "$(a_dev_json a .stats.rx_drop_mac1)" -gt "$mac1" ] ||
		fail "no handshake under the old key was dropped after the grace"
}

# Grace period, the fallback paths with one peer that is never told (so
# every handshake with it is under the old key): b answered under the old
# key, a initiating under it, counted; refused after the grace.
test_rotation_grace_old_key_handshakes() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	key_pair KN
	printf '%s\n' "$KN" >/tmp/kn.key
	# 15 s: the steps below take up to ~10 s on the debug kernel under TCG.
	n a "$WGX_TOOL" set wgt0 key-grace 15 private-key /tmp/kn.key
	local t0=$SECONDS mac1
	# b initiates under the old key (its sessions went with the down): a answers with it.
	n b ip link set wgt0 down
	n b ip link set wgt0 up
	n b ping -c 2 -i 0.2 -W 2 10.0.0.1 >/dev/null || fail "b -> a under the old key during the grace"
	expect_eq "sessions under the previous key" 1 \
		"$(a_peer_json a "$KB_pub" | jq .stats.handshakes_previous_key)"
	expect_eq "a-b session" previous "$(a_peer_json a "$KB_pub" | jq -r .session_keys.local)"
	echo "a down/up $((SECONDS - t0)) s after the change"
	# a initiates: b was last heard under the old key, so a uses it (no 5 s wait).
	n a ip link set wgt0 down
	n a ip link set wgt0 up
	# Under the old key the first try succeeds; under the new one the retry comes after 5 s.
	n a ping -c 1 -W 4 10.0.0.2 >/dev/null || fail "a -> b did not get through within 4 s: $(a_peer_json a "$KB_pub")"
	expect_eq "sessions under the previous key" 2 \
		"$(a_peer_json a "$KB_pub" | jq .stats.handshakes_previous_key)"
	# After the grace the old key is refused: b (still not told) cannot handshake.
	while [ $((SECONDS - t0)) -le 16 ]; do sleep 0.5; done
	grace_ended_wait
	mac1=$(a_dev_json a .stats.rx_drop_mac1)
	n b ip link set wgt0 down
	n b ip link set wgt0 up
	n b ping -c 1 -W 2 10.0.0.1 >/dev/null && fail "b reached a under the old key after the grace"
	[ "$(a_dev_json a .stats.rx_drop_mac1)" -gt "$mac1" ] || fail "the old key's initiation was not counted"
	# Told the new key, b gets through again.
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	ping_ok b 10.0.0.1
	expect_eq "a-b session" current "$(a_peer_json a "$KB_pub" | jq -r .session_keys.local)"
}

test_rotation_with_wireguard_peer() {
	rotation_setup wireguard
	pings_start
	sleep 2
	n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key
	sleep 2
	n b "$WGX_TOOL" set wgt0 peer "$KA_pub" public-key "$KN_pub"
	sleep 2
	# The in-tree module cannot re-key in place: add the new key, remove the old, one request.
	n c wg set wgt0 peer "$KN_pub" endpoint 198.51.100.1:$TUN_PORT_A allowed-ips 10.0.0.1/32 \
		peer "$KA_pub" remove
	pings_lost
	[ -n "$(peer_line b "$KN_pub")" ] || fail "b does not end on the new key"
	n c wg show wgt0 peers | grep -qx "$KN_pub" || fail "c does not end on the new key"
	ping_ok c 10.0.0.1
}

# Grace period with an in-tree peer c (the grace seen from c's side: c only
# makes and answers ordinary WireGuard handshakes).  While c is not told,
# its handshake under the old key is answered and traffic both ways neither
# stops nor waits.  c is then told the way the in-tree module allows
# (`peer NEW ... peer OLD remove`) while it pings a: its next packet starts a
# handshake under NEW and nothing it sends is lost.  Only c -> a traffic
# runs across c's switch: wireguard.ko drops the old entry's sessions at
# once, so a packet a sends on them in that moment (here: a reply already
# in flight, a window of one round trip in 200 ms) is lost at c whatever a
# does (docs/rotation.md).  After the grace, c's handshake under the old key
# is dropped and counted.
test_rotation_grace_with_wireguard_peer() {
	rotation_setup wireguard
	# 20 s: the steps up to c's switch take ~8 s, longer on the debug kernel under TCG.
	n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key key-grace 20
	local t0=$SECONDS mac1 f sent got
	# c (not told) loses its sessions and handshakes again, under the old key: a answers.
	n c ip link set wgt0 down
	n c ip link set wgt0 up
	n c ping -c 2 -i 0.2 -W 2 10.0.0.1 >/dev/null || fail "c -> a under the old key during the grace"
	expect_eq "c's sessions under the previous key" 1 \
		"$(a_peer_json a "$KC_pub" | jq .stats.handshakes_previous_key)"
	expect_eq "a-c session" previous "$(a_peer_json a "$KC_pub" | jq -r .session_keys.local)"
	# Traffic both ways while c is not told: nothing lost, nothing staged.
	n a ping -c 20 -i 0.1 -W 5 10.0.0.3 >/tmp/ping-ac 2>&1 &
	n c ping -c 20 -i 0.1 -W 5 10.0.0.1 >/tmp/ping-ca 2>&1 &
	wait
	# c is told while it pings a.
	n c ping -c 30 -i 0.2 -W 5 10.0.0.1 >/tmp/ping-switch 2>&1 &
	sleep 2
	echo "c told $((SECONDS - t0)) s after the change"
	n c wg set wgt0 peer "$KN_pub" endpoint 198.51.100.1:$TUN_PORT_A allowed-ips 10.0.0.1/32 \
		peer "$KA_pub" remove
	wait
	for f in /tmp/ping-ac /tmp/ping-ca /tmp/ping-switch; do
		sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$f")
		got=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$f")
		echo "$(basename "$f"): $got of $sent answered; $(grep -o 'rtt.*' "$f")"
		[ -n "$sent" ] && [ "$sent" = "$got" ] && continue
		[ "$f" = /tmp/ping-switch ] &&
			fail "pings lost across c's switch; one reply in flight at that moment is lost by wireguard.ko's design (docs/testing.md), more is a fault"
		fail "$(basename "$f"): pings lost"
	done
	f=$(cat /tmp/ping-ac /tmp/ping-ca | sed -n 's|^rtt [^=]*= [^/]*/[^/]*/\([0-9]*\).*|\1|p' | sort -n | tail -1)
	[ "${f:-99999}" -lt 1000 ] || fail "a ping waited ${f} ms before c was told: staged during the grace"
	n c wg show wgt0 peers | grep -qx "$KN_pub" || fail "c does not end on the new key"
	expect_eq "a-c session after c's switch" current "$(a_peer_json a "$KC_pub" | jq -r .session_keys.local)"
	ping_ok a 10.0.0.3
	# After the grace, c going back to the old key cannot handshake; a counts the drop.
	while [ $((SECONDS - t0)) -le 21 ]; do sleep 0.5; done
	grace_ended_wait
	mac1=$(a_dev_json a .stats.rx_drop_mac1)
	n c wg set wgt0 peer "$KN_pub" remove \
		peer "$KA_pub" endpoint 198.51.100.1:$TUN_PORT_A allowed-ips 10.0.0.1/32
	n c ping -c 1 -W 2 10.0.0.1 >/dev/null && fail "c reached a under the old key after the grace"
	[ "$(a_dev_json a .stats.rx_drop_mac1)" -gt "$mac1" ] || fail "c's initiation under the old key was not counted"
}
