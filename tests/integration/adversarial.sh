# Integration suite: a live wgx tunnel under attack.  Each case sets up the
# tunnel of lib.sh (wgx in a and b), attacks it for a bounded time and then
# checks that nothing was lost: the tunnel still passes traffic and the
# configuration reads back as configured.  scripts/vm fails the whole run on
# any kernel report (KASAN, lockdep, WARNING, ...; exit 125), which is what
# the debug-kernel run (scripts/integration-debug) is for.
#
# Hostile input comes from build/tests/wgx-adversary (adversary.cpp beside
# this file), built from the project's host core and tool library:
#   garbage  random UDP payloads of every size class and type byte
#   flood    genuine initiations (valid MAC1) from thousands of sources
#   nlfuzz   mutated SET_DEVICE / GET_DEVICE requests
# Random seeds are printed; WGX_ADVERSARY_SEED fixes them to reproduce a run.
# WGX_ADVERSARY_SECONDS scales the attack phases (default 20).

ADVERSARY=$WGX_REPO/build/tests/wgx-adversary

adv_seed() { echo "${WGX_ADVERSARY_SEED:-$((RANDOM * 32768 + RANDOM))}"; }
adv_seconds() { echo "${WGX_ADVERSARY_SECONDS:-20}"; }

# dev_stat NS NAME — one device counter of wgt0 (wgx show --json).
dev_stat() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -r ".interfaces[0].stats.$2 // \"absent\""
}

# peer_stat NS NAME — one counter of wgt0's only peer.
peer_stat() {
	n "$1" "$WGX_TOOL" show wgt0 --json | jq -r ".interfaces[0].peers[0].stats.$2 // \"absent\""
}

# adv_traffic_ok — the tunnel passes traffic both ways, IPv4 and IPv6, and TCP.
adv_traffic_ok() {
	ping_ok a 10.0.0.2
	ping_ok b 10.0.0.1
	ping_ok a fd00::2
	iperf_ok a 10.0.0.2 1
}

# showconf NS — wgt0's configuration as text, for comparisons.
showconf() {
	n "$1" "$WGX_TOOL" showconf wgt0
}

test_random_udp_payloads() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	local seed malformed mac1 unknown out count=3000
	seed=$(adv_seed)
	local m0 h0 i0 q0
	m0=$(dev_stat a rx_drop_malformed)
	h0=$(dev_stat a rx_drop_mac1)
	i0=$(dev_stat a rx_drop_unknown_index)
	q0=$(dev_stat a rx_drop_handshake_queue)
	# Traffic through the tunnel while the listen port is pelted, over IPv4 and IPv6.
	# b's and a's own handshake messages during the storm, if any (see below).
	capture_start a /tmp/adv-hs -n -i va "udp and port $TUN_PORT_B and udp[8] != 4"
	n b ping -c 30 -i 0.2 -W 2 10.0.0.1 >/tmp/adv-ping 2>&1 &
	local ping_pid=$!
	out=$(n b "$ADVERSARY" garbage --to 192.0.2.1:$TUN_PORT_A --to "[2001:db8::1]:$TUN_PORT_A" \
		--count $count --seed "$seed" --pps 1000)
	echo "$out"
	wait $ping_pid || true
	cat /tmp/adv-ping
	local received
	received=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' /tmp/adv-ping)
	[ "${received:-0}" -ge 27 ] || fail "tunnel lost traffic during the storm: $received/30 pings"
	# Every payload the core's classifier refuses is counted as malformed,
	# every well-formed handshake-sized one fails MAC1 (unless the queue
	# dropped it), every transport/cookie-shaped one has an unknown index.
	malformed=$(echo "$out" | sed -n 's/.*malformed \([0-9]*\).*/\1/p')
	mac1=$(echo "$out" | sed -n 's/.*initiation-shaped \([0-9]*\), response-shaped \([0-9]*\).*/\1 + \2/p')
	unknown=$(echo "$out" | sed -n 's/.*cookie-shaped \([0-9]*\), transport-shaped \([0-9]*\).*/\1 + \2/p')
	unknown=$((unknown))
	local m1 h1 i1 q1
	m1=$(dev_stat a rx_drop_malformed)
	h1=$(dev_stat a rx_drop_mac1)
	i1=$(dev_stat a rx_drop_unknown_index)
	q1=$(dev_stat a rx_drop_handshake_queue)
	capture_stop
	echo "device counters: malformed $m0 -> $m1, mac1 $h0 -> $h1, unknown index $i0 -> $i1, queue drops $q0 -> $q1 (seed $seed)"
	expect_eq "rx_drop_malformed increase (seed $seed)" "$malformed" "$((m1 - m0))"
	expect_eq "rx_drop_mac1 increase + queue drops (seed $seed)" "$((mac1))" "$((h1 - h0 + q1 - q0))"
	# Every garbage packet naming an index is counted, and nothing else
	# unless a and b exchanged handshake messages meanwhile: a response to
	# a superseded initiation, or b's data under a session being replaced,
	# names an index a no longer has (seen in CI on the debug kernel: 3
	# more); then at most 5 more pass.
	local di=$((i1 - i0)) hs
	hs=$(grep -c 'UDP' /tmp/adv-hs || true)
	if [ "$hs" = 0 ]; then
		expect_eq "rx_drop_unknown_index increase (seed $seed)" "$unknown" "$di"
	else
		echo "$hs handshake messages between a and b during the storm"
		[ "$di" -ge "$unknown" ] && [ "$di" -le $((unknown + 5)) ] ||
			fail "rx_drop_unknown_index increase (seed $seed): expected $unknown (at most 5 more: $hs handshake messages), got $di"
	fi
	adv_traffic_ok
	expect_eq "peers of a" "$KB_pub" "$(n a "$WGX_TOOL" show wgt0 peers)"
}

test_initiation_flood_from_many_sources() {
	tunnel_setup wgx 4 0
	# The attacker c sits behind a second link of a and owns 198.18.0.0/16 and
	# 2001:db8:1000::/48 (local routes), so each of its sockets is a source.
	ip netns add c
	ip link add vc netns c type veth peer vac netns a
	n c ip link set lo up
	n c ip addr add 198.51.100.2/24 dev vc
	n a ip addr add 198.51.100.1/24 dev vac
	n c ip addr add 2001:db8:c::2/64 dev vc nodad
	n a ip addr add 2001:db8:c::1/64 dev vac nodad
	n c ip link set vc up
	n a ip link set vac up
	n c ip route add local 198.18.0.0/16 dev lo
	n c ip -6 route add local 2001:db8:1000::/48 dev lo
	n a ip route add 198.18.0.0/16 via 198.51.100.2
	n a ip -6 route add 2001:db8:1000::/48 via 2001:db8:c::2
	# Bursts of 3072 initiations, 32 per UDP GSO send so that they arrive
	# faster than a can decrypt them (one Curve25519 operation each), fill its
	# handshake queue past the under-load mark (1/8 of 4096): a answers with
	# cookie replies until the queue drains, between the bursts.
	local secs burst=${WGX_ADVERSARY_FLOOD_BURST:-3072} pps=${WGX_ADVERSARY_FLOOD_PPS:-1500}
	secs=$(($(adv_seconds) + 10))
	n c "$ADVERSARY" flood --peer "$KA_pub" --to 198.51.100.1:$TUN_PORT_A \
		--to6 "[2001:db8:c::1]:$TUN_PORT_A" --src4 198.18.0.0 --n4 2500 \
		--src6 2001:db8:1000:: --n6 2500 --seconds "$secs" --burst $burst --gso 32 --pps $pps --pool 32 \
		>/tmp/adv-flood 2>&1 &
	local flood_pid=$!
	sleep 4
	# b's first handshake must complete while a is flooded: a answers b with
	# a cookie reply, and b retries at once with the cookie as MAC2 (not
	# after REKEY_TIMEOUT, 5 s) and gets through.
	local start=$SECONDS b_cookies b_timeouts
	n b ping -c 1 -w "$((secs - 8))" 10.0.0.1 || {
		cat /tmp/adv-flood
		fail "b's handshake did not complete within $((secs - 8)) s under the flood"
	}
	echo "b reached a after $((SECONDS - start)) s under the flood"
	kill -0 $flood_pid 2>/dev/null || {
		local flood_rc=0
		wait $flood_pid || flood_rc=$?
		echo "the flood exited with status $flood_rc: $(cat /tmp/adv-flood)"
		fail "the flood ended before b's handshake completed"
	}
	wait $flood_pid || { cat /tmp/adv-flood; fail "wgx-adversary flood failed"; }
	cat /tmp/adv-flood
	# Read after the flood (a `wgx show` under it takes many seconds in
	# the guest); b's session exists, its counters no longer move.  A
	# cookie reply that answered b's initiation made b retry before its
	# retransmission timer: no REKEY_TIMEOUT retry was needed.
	# That holds while a's handshake ring takes every message: a message
	# that finds it full is dropped (as WireGuard does), and when it was
	# one of b's (its first initiation, or the retry), b can only wait for
	# REKEY_TIMEOUT.  On the debug kernel a drains the ring slowly enough
	# for the flood's bursts to fill it; the counters cannot tell whose
	# messages were dropped, so then the retry's timing is not judged.
	local q_drops
	b_cookies=$(peer_stat b cookie_replies_rx) b_timeouts=$(peer_stat b handshake_timeouts)
	q_drops=$(dev_stat a rx_drop_handshake_queue)
	echo "b: cookie replies $b_cookies, initiations retransmitted after REKEY_TIMEOUT $b_timeouts; a's handshake ring dropped $q_drops"
	if [ "$b_cookies" != absent ] && [ "$b_cookies" -ge 1 ] && [ "$b_timeouts" != absent ] &&
		[ "$b_timeouts" -gt 0 ]; then
		if [ "$q_drops" = 0 ]; then
			fail "b had a cookie reply but waited for REKEY_TIMEOUT ($b_timeouts retransmissions; a's ring dropped nothing)"
		fi
		echo "b waited for REKEY_TIMEOUT, explained by a's full ring ($q_drops messages dropped)"
	fi
	local s
	for s in rx_handshake_packets rx_drop_unknown_peer rx_drop_mac2 cookie_replies_tx under_load_entered \
		rx_drop_ratelimited rx_drop_handshake_queue; do
		echo "a: $s $(dev_stat a "$s")"
	done
	echo "b: cookie_replies_rx $(peer_stat b cookie_replies_rx), handshakes_completed $(peer_stat b handshakes_completed)"
	local problems=() cookies
	cookies=$(sed -n 's/.*, \([0-9]*\) decrypted as valid cookies.*/\1/p' /tmp/adv-flood)
	if [ -d /sys/kernel/debug/failslab ] && [ "$(dev_stat a under_load_entered)" = 0 ] &&
		[ "$(dev_stat a rx_drop_handshake_queue)" = 0 ]; then
		# On the debug kernel KASAN slows the network path more than
		# Curve25519, and the flood may not outrun a: then a processed
		# every initiation that reached it (each dropped as an unknown
		# peer; the rest of what was sent was lost on the way, in the
		# guest's backlogs), never went under load, and the cookie path
		# is the stock run's to check.  What this run is for, KASAN and
		# lockdep under the flood, holds.
		echo "a kept up with the flood ($(dev_stat a rx_drop_unknown_peer) initiations processed of $(sed -n 's/^flood: sent \([0-9]*\) .*/\1/p' /tmp/adv-flood) sent; never under load): cookie path not exercised here"
	else
		[ "$(dev_stat a cookie_replies_tx)" -ge 1 ] || problems+=("a sent no cookie reply (never under load?)")
		[ "${cookies:-0}" -ge 1 ] || problems+=("no cookie reply from a decrypted as valid at the attacker")
		# The uapi counts each entry into the under-load state (whitepaper 5.3).
		[ "$(dev_stat a under_load_entered)" -ge 1 ] ||
			problems+=("under_load_entered is 0 although a sent $(dev_stat a cookie_replies_tx) cookie replies (only sent under load)")
	fi
	adv_traffic_ok
	[ ${#problems[@]} -eq 0 ] || fail "$(printf '%s; ' "${problems[@]}")"
}

test_netlink_fuzz() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	local seed
	seed=$(adv_seed)
	showconf a >/tmp/adv-a.conf
	# Each request the kernel refuses must leave the device as it was (the tool
	# reads it back after every request); accepted ones change it at will.
	n a "$ADVERSARY" nlfuzz --dev wgt0 --seconds "$(adv_seconds)" --seed "$seed"
	# The device still takes a whole configuration and reads it back exactly.
	n a "$WGX_TOOL" setconf wgt0 /tmp/adv-a.conf
	expect_eq "configuration after the storm (seed $seed)" "$(cat /tmp/adv-a.conf)" "$(showconf a)"
	adv_traffic_ok
}

test_peer_and_key_churn_under_load() {
	tunnel_setup wgx 4 0
	ping_ok a 10.0.0.2
	local secs i=0 port=$TUN_PORT_A key=$KA pub=$KA_pub start psk_args=() rx0 rx1 rx2 t
	secs=$(adv_seconds)
	n b iperf3 -s -D >/dev/null
	sleep 0.3
	rx0=$(n b cat /sys/class/net/wgt0/statistics/rx_bytes)
	# TCP load a -> b for the whole churn, restarted when a change breaks it.
	(
		end=$((SECONDS + secs))
		while [ $SECONDS -lt $end ]; do
			iperf_client a 10.0.0.2 $((end - SECONDS > 1 ? end - SECONDS : 1)) -P 2 >/dev/null 2>&1 || sleep 0.2
		done
	) &
	local load_pid=$!
	# The churn starts once the load flows: b's wgt0 received 1 MB of it.
	for ((t = 0; t < 150; t++)); do
		rx1=$(n b cat /sys/class/net/wgt0/statistics/rx_bytes)
		[ $((rx1 - rx0)) -ge 1000000 ] && break
		sleep 0.1
	done
	echo "load before the churn: b's wgt0 received $((rx1 - rx0)) bytes"
	[ $((rx1 - rx0)) -ge 1000000 ] || fail "the load moved $((rx1 - rx0)) bytes in 15 s before the churn"
	start=$SECONDS
	while [ $((SECONDS - start)) -lt "$secs" ]; do
		case $((i % 5)) in
		0) # a removes b and adds it back
			n a "$WGX_TOOL" set wgt0 peer "$KB_pub" remove
			n a "$WGX_TOOL" set wgt0 peer "$KB_pub" "${psk_args[@]}" endpoint 192.0.2.2:$TUN_PORT_B \
				allowed-ips 10.0.0.2/32,fd00::2/128
			;;
		1) # a moves to another listen port; b follows
			port=$((52000 + i))
			n a "$WGX_TOOL" set wgt0 listen-port $port
			n b "$WGX_TOOL" set wgt0 peer "$pub" endpoint 192.0.2.1:$port
			;;
		2) # a takes a new private key; b replaces the old identity by the new one
			key_pair KN
			printf '%s\n' "$KN" >/tmp/kn.key
			n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key
			n b "$WGX_TOOL" set wgt0 peer "$pub" remove peer "$KN_pub" "${psk_args[@]}" \
				endpoint 192.0.2.1:$port allowed-ips 10.0.0.1/32,fd00::1/128
			key=$KN pub=$KN_pub
			;;
		4) # a takes a new private key; b re-keys its peer a in place (keeps the session)
			key_pair KN
			printf '%s\n' "$KN" >/tmp/kn.key
			n a "$WGX_TOOL" set wgt0 private-key /tmp/kn.key
			n b "$WGX_TOOL" set wgt0 peer "$pub" public-key "$KN_pub"
			key=$KN pub=$KN_pub
			;;
		3) # b removes a and adds it back with a new preshared key, which a takes too
			wg genpsk >/tmp/psk.key
			psk_args=(preshared-key /tmp/psk.key)
			n b "$WGX_TOOL" set wgt0 peer "$pub" remove
			n b "$WGX_TOOL" set wgt0 peer "$pub" "${psk_args[@]}" endpoint 192.0.2.1:$port \
				allowed-ips 10.0.0.1/32,fd00::1/128
			n a "$WGX_TOOL" set wgt0 peer "$KB_pub" "${psk_args[@]}"
			;;
		esac
		i=$((i + 1))
		sleep 0.3
	done
	wait $load_pid || true
	pkill -x iperf3 || true
	rx2=$(n b cat /sys/class/net/wgt0/statistics/rx_bytes)
	echo "$i changes in $((SECONDS - start)) s under load; b's wgt0 received $((rx2 - rx1)) bytes meanwhile"
	# The load kept running through the churn (restarted when a change broke it).
	[ $((rx2 - rx1)) -ge 1000000 ] || fail "the load moved only $((rx2 - rx1)) bytes during the churn"
	# a reads back exactly what the last changes set (no MTU: it follows the underlay).
	local expected=("[Interface]" "ListenPort = $port" "PrivateKey = $key" "" "[Peer]" "PublicKey = $KB_pub")
	[ ${#psk_args[@]} -eq 0 ] || expected+=("PresharedKey = $(cat /tmp/psk.key)")
	expected+=("AllowedIPs = 10.0.0.2/32, fd00::2/128" "Endpoint = 192.0.2.2:$TUN_PORT_B")
	# b's automatic ports: a's endpoint may be any of b's ports (its first, or one it sent from after a silence).
	local conf ep_port
	conf=$(showconf a)
	ep_port=$(sed -n 's/^Endpoint = 192\.0\.2\.2:\([0-9]*\)$/\1/p' <<<"$conf")
	if [ -n "$ep_port" ] && [[ " $(udp_ports b) " == *" $ep_port "* ]]; then
		conf=${conf/"Endpoint = 192.0.2.2:$ep_port"/"Endpoint = 192.0.2.2:$TUN_PORT_B"}
	fi
	expect_eq "a's configuration" "$(printf '%s\n' "${expected[@]}")" "$conf"
	adv_traffic_ok
}
