/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * linux/wgx.h - generic netlink API of the wgx device (family "wgx").
 *
 * Overview
 * ========
 *
 * wgx is configured over generic netlink, family WGX_GENL_NAME, version
 * WGX_GENL_VERSION, with two commands: WGX_CMD_GET_DEVICE (a dump) and
 * WGX_CMD_SET_DEVICE.  The command numbers and every attribute number that
 * WireGuard's uapi (<linux/wireguard.h>, family "wireguard") defines are
 * identical here, with the same types and meaning, so one userspace
 * implementation drives both families; only the family name differs.  wgx's
 * own additions (counters) use numbers after WireGuard's last ones and are
 * read-only.  New attributes are only ever appended; numbers never change.
 *
 * Conventions used below
 * ----------------------
 *   NLA_U8/U16/U32/U64   host byte order integers of that width
 *   NLA_NUL_STRING       NUL-terminated string, maximum length excluding NUL
 *   NLA_EXACT_LEN(n)     binary blob of exactly n bytes
 *   NLA_NESTED           nested attribute set
 *   (GET)                emitted by WGX_CMD_GET_DEVICE
 *   (SET)                accepted by WGX_CMD_SET_DEVICE
 *   (read-only)          emitted by GET; ignored when sent in SET, so the
 *                        output of a GET may be sent back unchanged
 *   Keys are WGX_NL_KEY_LEN (32) bytes: Curve25519 keys (RFC 7748) or the
 *   symmetric preshared key of the WireGuard whitepaper, section 5.2.
 *   Attribute type 0 (*_A_UNSPEC) is used as padding before 64-bit values
 *   (nla_put_u64_64bit) and must be ignored by readers.
 *   A nested list (peers, allowed IPs) holds elements of attribute type 0;
 *   readers must not depend on the element type.
 *
 * Permissions: both commands require CAP_NET_ADMIN in the user namespace
 * owning the device's network namespace (GENL_UNS_ADMIN_PERM); changing
 * WGX_DEVICE_A_LISTEN_PORT or WGX_DEVICE_A_FWMARK additionally requires
 * CAP_NET_ADMIN in the user namespace of the network namespace the device
 * was created in (the one its UDP sockets live in), or -EPERM.
 *
 * Device lookup (both commands): exactly one of WGX_DEVICE_A_IFINDEX and
 * WGX_DEVICE_A_IFNAME, else -EBADR; no such device in the caller's network
 * namespace: -ENODEV; a device that is not of link kind "wgx": -EOPNOTSUPP.
 * A GET_DEVICE refused for these, or for an unknown bit in its GET flags,
 * ends in NLMSG_DONE carrying the errno and the extack message (no
 * attribute offset); what the generic netlink core refuses first (a
 * malformed attribute, -EPERM) and every refusal of the "wireguard" family
 * of drop-in mode come as NLMSG_ERROR, as WireGuard's do.
 *
 * WGX_CMD_GET_DEVICE
 * ------------------
 *
 * Only as NLM_F_REQUEST | NLM_F_DUMP, with WGX_DEVICE_A_IFINDEX or
 * WGX_DEVICE_A_IFNAME, and optionally WGX_DEVICE_A_GET_FLAGS (NLA_U32,
 * enum wgx_get_flag; wgx extension, ignored by SET): WGX_GET_F_NO_STATS
 * leaves the counter nests out, for readers that want the configuration or
 * the handshake times only (a dump of many peers gets several times
 * smaller).  A module older than this attribute refuses it (-EINVAL):
 * userspace sends it only when the family's CTRL_ATTR_MAXATTR reaches
 * WGX_DEVICE_A_GET_FLAGS.  A bit outside WGX_GET_F_ALL: -EOPNOTSUPP.
 * The reply is a sequence of NLM_F_MULTI messages
 * ending in NLMSG_DONE, whose payload is 0 or a negative errno.
 * The first message carries this tree:
 *
 *   WGX_DEVICE_A_IFINDEX        NLA_U32      (GET)
 *   WGX_DEVICE_A_IFNAME         NLA_NUL_STRING, max IFNAMSIZ - 1 (GET)
 *   WGX_DEVICE_A_PRIVATE_KEY    NLA_EXACT_LEN(32), only if one is set (GET)
 *   WGX_DEVICE_A_PUBLIC_KEY     NLA_EXACT_LEN(32), only if a private key
 *                               is set (GET, read-only)
 *   WGX_DEVICE_A_LISTEN_PORT    NLA_U16, the bound UDP port (the first of
 *                               them), 0 if the device is down and no port
 *                               was chosen (GET)
 *   WGX_DEVICE_A_LISTEN_PORTS   NLA_U16, a fixed number of consecutive
 *                               UDP ports the device listens on, the first
 *                               being LISTEN_PORT (GET, wgx extension; see
 *                               SET); 1 when the number is automatic (what
 *                               a default device always reported)
 *   WGX_DEVICE_A_LISTEN_PORTS_AUTO  NLA_U16, present when the number of
 *                               ports is automatic: how many the device
 *                               listens on, LISTEN_PORT and ports the
 *                               kernel chose (bound, or while down the
 *                               number it will ask for) (GET, wgx extension)
 *   WGX_DEVICE_A_FWMARK         NLA_U32, 0 = none (GET)
 *   WGX_DEVICE_A_RX_SPREAD      NLA_U8, enum wgx_rx_spread_mode, the mode
 *                               set (not what auto currently decided; GET,
 *                               wgx extension; see SET)
 *   WGX_DEVICE_A_DSCP           NLA_U8, enum wgx_dscp_mode (GET, wgx
 *                               extension; see SET)
 *   WGX_DEVICE_A_PRIORITY_DSCP  NLA_U64, the priority lane's DSCP set (GET,
 *                               wgx extension; see SET)
 *   WGX_DEVICE_A_HANDSHAKE_BUDGET  NLA_U32, initiations per second, 0 =
 *                               automatic (GET, wgx extension; see SET)
 *   WGX_DEVICE_A_KEY_GRACE      NLA_U32, seconds (GET, wgx extension; see SET)
 *   WGX_DEVICE_A_PREVIOUS_PUBLIC_KEY  NLA_EXACT_LEN(32) (GET,
 *                               read-only, wgx extension): the public key
 *                               of the previous private key while its
 *                               grace period runs;
 *                               absent otherwise
 *   WGX_DEVICE_A_MTU_AUTO       NLA_U8, 1 while the device MTU follows the
 *                               underlay (GET, wgx extension; see SET)
 *   WGX_DEVICE_A_STATS          NLA_NESTED, WGX_DEVICE_STATS_A_* (GET,
 *                               read-only, wgx extension)
 *   WGX_DEVICE_A_PEERS          NLA_NESTED
 *     0: NLA_NESTED, one peer:
 *       WGX_PEER_A_PUBLIC_KEY               NLA_EXACT_LEN(32)
 *       WGX_PEER_A_PRESHARED_KEY            NLA_EXACT_LEN(32); all zero
 *                                           means no preshared key
 *       WGX_PEER_A_ENDPOINT                 struct sockaddr_in (16 bytes) or
 *                                           struct sockaddr_in6 (28 bytes),
 *                                           network byte order port/address;
 *                                           absent if the peer has none
 *       WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL  NLA_U16, seconds, 0 = off
 *       WGX_PEER_A_LAST_HANDSHAKE_TIME      NLA_EXACT_LEN(16), struct
 *                                           __kernel_timespec, wall clock
 *                                           (CLOCK_REALTIME) time of the last
 *                                           completed handshake; 0/0 = never
 *                                           (read-only)
 *       WGX_PEER_A_RX_BYTES                 NLA_U64, bytes of authenticated
 *                                           transport data received,
 *                                           including headers (read-only)
 *       WGX_PEER_A_TX_BYTES                 NLA_U64, bytes sent (read-only)
 *       WGX_PEER_A_ALLOWEDIPS               NLA_NESTED
 *         0: NLA_NESTED, one allowed IP:
 *           WGX_ALLOWEDIP_A_FAMILY          NLA_U16, AF_INET or AF_INET6
 *           WGX_ALLOWEDIP_A_IPADDR          4 bytes (struct in_addr) or
 *                                           16 bytes (struct in6_addr),
 *                                           network order, host bits zero
 *           WGX_ALLOWEDIP_A_CIDR_MASK       NLA_U8, 0..32 or 0..128
 *         0: ...
 *       WGX_PEER_A_PROTOCOL_VERSION         NLA_U32, currently always 1
 *       WGX_PEER_A_STATS                    NLA_NESTED, WGX_PEER_STATS_A_*
 *                                           (read-only, wgx extension)
 *       WGX_PEER_A_SESSION_KEYS             NLA_U32, enum wgx_session_flag
 *                                           (read-only, wgx extension): the
 *                                           keys the current session was
 *                                           made with; absent without a
 *                                           current session
 *       WGX_PEER_A_PATH_MTU                 NLA_U32, bytes (read-only, wgx
 *                                           extension): the outer path MTU
 *                                           packets to the peer are sized
 *                                           for (IP packet, outer headers
 *                                           included); absent while unknown
 *                                           (nothing sent yet)
 *       WGX_PEER_A_PATH_MTU_SOURCE          NLA_U32, enum
 *                                           wgx_path_mtu_source (read-only,
 *                                           wgx extension): how it was
 *                                           learned; absent with PATH_MTU
 *       WGX_PEER_A_MTU                      NLA_U32, bytes (wgx extension):
 *                                           the peer's fixed inner MTU, 0 =
 *                                           auto (learned; see SET)
 *     0: ...
 *
 * Splitting: when the peers do not fit one message, following messages
 * carry only WGX_DEVICE_A_IFINDEX, WGX_DEVICE_A_IFNAME and
 * WGX_DEVICE_A_PEERS with the next peers.  When one peer's allowed IPs do
 * not fit, the same peer is repeated at the start of the next message with
 * only WGX_PEER_A_PUBLIC_KEY and WGX_PEER_A_ALLOWEDIPS (the remaining
 * allowed IPs); this may repeat.  Readers coalesce adjacent peers with equal
 * public keys by concatenating their allowed IPs.  If the device's
 * configuration changes during a dump, the first message built after the
 * change (and every later one) carries NLM_F_DUMP_INTR and the reader should
 * restart the dump.
 *
 * Errors (NLMSG_ERROR, or the NLMSG_DONE payload): -EOPNOTSUPP when sent
 * without NLM_F_DUMP (there is no non-dump GET); -ERANGE when
 * WGX_DEVICE_A_IFNAME is longer than IFNAMSIZ - 1 bytes; -EPERM, -EBADR,
 * -ENODEV, -EOPNOTSUPP as in Permissions and Device lookup; -EMSGSIZE
 * when a single peer with one allowed IP does not fit a message.
 *
 * WGX_CMD_SET_DEVICE
 * ------------------
 *
 * NLM_F_REQUEST (normally with NLM_F_ACK), with WGX_DEVICE_A_IFINDEX or
 * WGX_DEVICE_A_IFNAME and any of:
 *
 *   WGX_DEVICE_A_FLAGS          NLA_U32, 0 or WGX_DEVICE_F_REPLACE_PEERS:
 *                               remove every peer before adding those below
 *   WGX_DEVICE_A_PRIVATE_KEY    NLA_EXACT_LEN(32); all zero removes the
 *                               private key (the device then has no
 *                               identity and sends nothing).  The key is
 *                               clamped (RFC 7748); a peer whose public key
 *                               equals the new public key is removed.
 *   WGX_DEVICE_A_LISTEN_PORT    NLA_U16, 0 = choose a free port at random
 *   WGX_DEVICE_A_LISTEN_PORTS   NLA_U16, 0..WGX_MAX_LISTEN_PORTS (wgx
 *                               extension; default 0, automatic; 1 is
 *                               WireGuard's behaviour): listen on this many
 *                               consecutive UDP ports from LISTEN_PORT
 *                               (with port 0: any free run), or with 0 on
 *                               LISTEN_PORT and, when the machine has more
 *                               than one possible CPU, on up to
 *                               WGX_AUTO_LISTEN_PORTS - 1 more ports the
 *                               kernel picks as for any client socket (a
 *                               port that cannot be bound is left out, never
 *                               an error; towards a peer whose endpoint was
 *                               learned from its packets, not set, only the
 *                               first port is used); send each inner flow's
 *                               transport data from the port its flow
 *                               hash selects, so one
 *                               peer's traffic travels as several outer UDP
 *                               flows that the receiver's RSS can spread
 *                               over CPUs; each inner flow keeps one outer
 *                               flow.  Handshakes and keepalives leave from
 *                               the first port.  Nothing new on the wire:
 *                               any WireGuard peer interoperates.  -EINVAL
 *                               when LISTEN_PORT + LISTEN_PORTS - 1 > 65535;
 *                               needs the same permission as LISTEN_PORT
 *   WGX_DEVICE_A_RX_SPREAD      NLA_U8, enum wgx_rx_spread_mode: 0, 1 or 2
 *                               (wgx extension; default 2,
 *                               WGX_RX_SPREAD_AUTO).  Spreading decrypts a
 *                               peer's transport data on all online CPUs
 *                               (round robin) and delivers the peer's
 *                               packets in arrival order through a per-peer
 *                               NAPI, instead of decrypting on the CPU the
 *                               packet arrived on.  For peers that send
 *                               from one UDP port (WireGuard
 *                               implementations, wgx with LISTEN_PORTS 1),
 *                               whose whole load the receiver's RSS puts on
 *                               one CPU.  WGX_RX_SPREAD_OFF never spreads
 *                               (WireGuard's behaviour); WGX_RX_SPREAD_ON
 *                               spreads every peer; WGX_RX_SPREAD_AUTO
 *                               decides per peer: a peer whose decryption
 *                               takes more than a quarter of a CPU is
 *                               spread, and one below an eighth returns to
 *                               the CPU its packets arrive on.  -ERANGE
 *                               (policy) above 2; -ENOMEM when switching
 *                               to WGX_RX_SPREAD_ON fails (nothing changes;
 *                               a LISTEN_PORT change of the same message
 *                               stays applied)
 *   WGX_DEVICE_A_DSCP           NLA_U8, enum wgx_dscp_mode (wgx extension;
 *                               default WGX_DSCP_CLEAR, WireGuard's
 *                               behaviour): WGX_DSCP_COPY writes the inner
 *                               packet's DSCP into the outer IPv4/IPv6
 *                               header of transport data, so the underlay's
 *                               QoS sees the class; ECN is handled as
 *                               always.  Handshake messages carry AF41
 *                               either way.  -ERANGE (policy) above 1
 *   WGX_DEVICE_A_PRIORITY_DSCP  NLA_U64, bitmap of inner DSCP values (bit n
 *                               = DSCP n; wgx extension; default
 *                               WGX_PRIORITY_DSCP_DEFAULT): packets with
 *                               one of these, or with skb priority at or
 *                               above TC_PRIO_INTERACTIVE, are encrypted
 *                               and sent before the bulk packets of their
 *                               tx queue, never ahead of an earlier packet
 *                               of their own flow.  0 leaves only the skb
 *                               priority rule
 *   WGX_DEVICE_A_HANDSHAKE_BUDGET  NLA_U32, 0..WGX_MAX_HANDSHAKE_BUDGET
 *                               (wgx extension; default 0 = automatic,
 *                               1000 per online CPU): handshake
 *                               initiations per second the device sends,
 *                               all peers together, with a burst of a tenth
 *                               of a second's worth (1..64).  An initiation
 *                               beyond it is deferred to a later slot, with
 *                               random jitter, never dropped, and counted in
 *                               WGX_PEER_STATS_A_HANDSHAKES_PACED and
 *                               WGX_DEVICE_STATS_A_HANDSHAKES_PACED; a
 *                               deferred retransmission is no new attempt.
 *                               Responses to other peers' initiations are
 *                               not paced.  Nothing new on the wire.
 *                               -ERANGE above WGX_MAX_HANDSHAKE_BUDGET
 *   WGX_DEVICE_A_KEY_GRACE      NLA_U32, seconds, 0..WGX_MAX_KEY_GRACE (wgx
 *                               extension; default 0 = WireGuard's
 *                               behaviour): applied before PRIVATE_KEY of
 *                               the same message; each later change of the
 *                               private key (from a key to another key)
 *                               keeps the previous one for this long: the
 *                               device still answers handshakes made to
 *                               the previous public key, initiates with it
 *                               to peers last heard under it (a
 *                               retransmission tries the other key), and
 *                               sessions made with it keep sending.  When
 *                               the grace ends, the previous key is wiped,
 *                               handshakes to it are dropped (counted in
 *                               WGX_DEVICE_STATS_A_RX_DROP_MAC1) and its
 *                               sessions stop sending as after a change
 *                               without grace.  A second change during a
 *                               grace ends the first one.  Changing the
 *                               value does not affect a grace running.
 *                               docs/rotation.md.  Nothing new on the
 *                               wire.  -ERANGE above WGX_MAX_KEY_GRACE
 *   WGX_DEVICE_A_FWMARK         NLA_U32, 0 = no mark
 *   WGX_DEVICE_A_MTU_AUTO       NLA_U8, 0 or 1 (wgx extension): 1 makes the
 *                               device MTU follow the underlay again (the
 *                               smallest outer route MTU to the peers'
 *                               endpoints, else the IPv4 default route's
 *                               device MTU, less 80; docs/mtu.md), set
 *                               after the peers of
 *                               this message; 0 keeps the current MTU.
 *                               Auto is on for a device created without
 *                               IFLA_MTU and turned off by any MTU change
 *                               (IFLA_MTU, SIOCSIFMTU)
 *   WGX_DEVICE_A_PEERS          NLA_NESTED
 *     0: NLA_NESTED, one peer:
 *       WGX_PEER_A_PUBLIC_KEY               NLA_EXACT_LEN(32), required
 *       WGX_PEER_A_FLAGS                    NLA_U32, any of
 *           WGX_PEER_F_REMOVE_ME            the peer must not exist after
 *                                           the operation (other peer
 *                                           attributes are then ignored)
 *           WGX_PEER_F_REPLACE_ALLOWEDIPS   remove all of the peer's allowed
 *                                           IPs before adding those below
 *           WGX_PEER_F_UPDATE_ONLY          change the peer only if it
 *                                           already exists, never create it
 *       WGX_PEER_A_PRESHARED_KEY            NLA_EXACT_LEN(32), all zero
 *                                           removes the preshared key
 *       WGX_PEER_A_ENDPOINT                 struct sockaddr_in (16 bytes,
 *                                           sin_family AF_INET) or struct
 *                                           sockaddr_in6 (28 bytes,
 *                                           sin6_family AF_INET6)
 *       WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL  NLA_U16, seconds, 0 = off
 *       WGX_PEER_A_ALLOWEDIPS               NLA_NESTED
 *         0: NLA_NESTED, one allowed IP:
 *           WGX_ALLOWEDIP_A_FAMILY          NLA_U16, AF_INET or AF_INET6
 *           WGX_ALLOWEDIP_A_IPADDR          4 or 16 bytes matching FAMILY
 *           WGX_ALLOWEDIP_A_CIDR_MASK       NLA_U8, <= 32 or <= 128; host
 *                                           bits of IPADDR are cleared
 *           WGX_ALLOWEDIP_A_FLAGS           NLA_U32, 0 or
 *                                           WGX_ALLOWEDIP_F_REMOVE_ME:
 *                                           remove this prefix from the peer
 *                                           (no-op if absent) instead of
 *                                           adding it; an added prefix moves
 *                                           from any other peer to this one
 *         0: ...
 *       WGX_PEER_A_PROTOCOL_VERSION         NLA_U32, optional; if present
 *                                           must be 1, else -EPFNOSUPPORT
 *       WGX_PEER_A_NEW_PUBLIC_KEY           NLA_EXACT_LEN(32) (wgx extension,
 *                                           SET only): re-key the existing
 *                                           peer WGX_PEER_A_PUBLIC_KEY in
 *                                           place, after the entry's other
 *                                           attributes.  The peer keeps its
 *                                           endpoint, allowed IPs, counters,
 *                                           timers and current sessions; its
 *                                           handshake in progress is dropped
 *                                           and the next handshake (one is
 *                                           started at once when the device
 *                                           is up and the peer has an
 *                                           endpoint) is made with the new
 *                                           key.  Errors, with extack naming
 *                                           this attribute: -ENOENT no peer
 *                                           PUBLIC_KEY (also after
 *                                           REPLACE_PEERS or with REMOVE_ME);
 *                                           -EEXIST the new key is already a
 *                                           peer's; -EINVAL the new key is
 *                                           the device's own public key (after
 *                                           this message's private key), or
 *                                           another entry of the message names
 *                                           the new key, or a later entry
 *                                           names the old one
 *       WGX_PEER_A_MTU                      NLA_U32 (wgx extension): 0 = auto
 *                                           (the default: the path MTU is
 *                                           learned, docs/mtu.md), or the
 *                                           largest inner packet sent to the
 *                                           peer, WGX_MIN_PEER_MTU..
 *                                           WGX_MAX_PEER_MTU bytes (fixed:
 *                                           ICMP and blackhole detection are
 *                                           ignored for it; the device MTU
 *                                           still bounds it).  -ERANGE
 *                                           otherwise
 *     0: ...
 *
 * Order of application within one message (WireGuard's): fwmark, listen
 * port, REPLACE_PEERS, (wgx: KEY_GRACE,) private key, then each peer in
 * message order; within
 * a peer, REMOVE_ME, preshared key, endpoint, REPLACE_ALLOWEDIPS, allowed
 * IPs in order, persistent keepalive, (wgx: MTU).  A peer whose public key equals the device's
 * own public key is silently skipped.  REMOVE_ME or UPDATE_ONLY on a peer
 * that does not exist is not an error and does nothing.
 *
 * Atomicity and errors: the whole message (every peer and allowed IP) is
 * parsed and validated, the UDP port is bound and new peers and allowed-IP
 * nodes are allocated before the first change is made; any error leaves the
 * device exactly as it was, returns NLMSG_ERROR with a negative errno and,
 * where the socket enabled NETLINK_EXT_ACK, an extack message (and the
 * offending attribute where there is one):
 *   -EINVAL        malformed attribute (wrong length/type, key not 32 bytes,
 *                  endpoint neither sockaddr_in nor sockaddr_in6, allowed IP
 *                  missing FAMILY/IPADDR/CIDR_MASK, unknown family, address
 *                  length not matching the family, CIDR too large, peer
 *                  without PUBLIC_KEY), or attribute type unknown
 *   -EOPNOTSUPP    a flag bit outside WGX_DEVICE_F_ALL, WGX_PEER_F_ALL or
 *                  WGX_ALLOWEDIP_F_ALL
 *   -EPFNOSUPPORT  WGX_PEER_A_PROTOCOL_VERSION other than 1
 *   -ERANGE        WGX_DEVICE_A_IFNAME longer than IFNAMSIZ - 1 bytes
 *   -EPERM         see Permissions (the generic netlink core refuses a
 *                  caller without CAP_NET_ADMIN before wgx sees the
 *                  request, so that case has no extack message)
 *   -EADDRINUSE    the listen port cannot be bound
 *   -E2BIG         the device would exceed WGX_MAX_PEERS peers
 *   -ENOMEM        allocation failure
 *   -EBADR, -ENODEV, -EOPNOTSUPP  see Device lookup
 * (WireGuard ignores a malformed endpoint; wgx refuses it.  Everything a
 * valid WireGuard request does is identical.)
 *
 * Large configurations: a request may not exceed the socket's send buffer;
 * userspace splits a large configuration into several SET_DEVICE messages
 * sent in order.  Only the first carries WGX_DEVICE_F_REPLACE_PEERS and the
 * device-level attributes; a peer continued in a later message repeats
 * WGX_PEER_A_PUBLIC_KEY with the rest of its allowed IPs and without
 * WGX_PEER_F_REPLACE_ALLOWEDIPS.  Each message is atomic on its own; the
 * sequence is not.
 */
#ifndef _UAPI_LINUX_WGX_H
#define _UAPI_LINUX_WGX_H

#define WGX_GENL_NAME "wgx"
#define WGX_GENL_VERSION 1

/* Length in bytes of every key attribute (Curve25519 and preshared keys). */
#define WGX_NL_KEY_LEN 32

/* Maximum number of peers per device (same limit as WireGuard). */
#define WGX_MAX_PEERS (1U << 20)

/* Most consecutive UDP ports a device listens on (WGX_DEVICE_A_LISTEN_PORTS). */
#define WGX_MAX_LISTEN_PORTS 16

/* Ports of WGX_DEVICE_A_LISTEN_PORTS 0 (automatic) on a machine of several CPUs. */
#define WGX_AUTO_LISTEN_PORTS 8

/* Highest WGX_DEVICE_A_HANDSHAKE_BUDGET, initiations per second. */
#define WGX_MAX_HANDSHAKE_BUDGET 1000000

/* Highest WGX_DEVICE_A_KEY_GRACE, seconds (one day). */
#define WGX_MAX_KEY_GRACE 86400

/* WGX_PEER_A_MTU: the range of a fixed per-peer inner MTU (bytes); 0 = auto. */
#define WGX_MIN_PEER_MTU 576
#define WGX_MAX_PEER_MTU 65455

/* WGX_PEER_A_SESSION_KEYS (GET only): the keys the peer's current session was made with. */
enum wgx_session_flag {
	/* Made with a private key of the device other than its current one
	 * (the previous key, during or after a grace period). */
	WGX_SESSION_F_LOCAL_PREVIOUS = 1U << 0,
	/* Made with a public key of the peer it no longer has (before an
	 * in-place re-key, WGX_PEER_A_NEW_PUBLIC_KEY). */
	WGX_SESSION_F_PEER_PREVIOUS = 1U << 1,
	WGX_SESSION_F_ALL = WGX_SESSION_F_LOCAL_PREVIOUS | WGX_SESSION_F_PEER_PREVIOUS
};

/*
 * WGX_PEER_A_PATH_MTU_SOURCE (GET only): how the peer's outer path MTU was
 * learned (docs/mtu.md).
 */
enum wgx_path_mtu_source {
	WGX_PATH_MTU_SOURCE_NONE = 0,	/* nothing sent yet (the attribute is absent) */
	WGX_PATH_MTU_SOURCE_ROUTE,	/* the outer route's MTU (device, route, route exception) */
	WGX_PATH_MTU_SOURCE_ICMP,	/* an ICMP "fragmentation needed" / "packet too big" for
					 * the peer's outer flow, validated */
	WGX_PATH_MTU_SOURCE_PROBE,	/* full-size packets went unanswered without ICMP (a
					 * blackhole): lowered to 1280 until the full size is
					 * tried again */
	WGX_PATH_MTU_SOURCE_FRAGMENTING, /* the lowered size went unanswered too: outer IPv4
					  * leaves with DF clear (the underlay fragments)
					  * until the full size is tried again */
	WGX_PATH_MTU_SOURCE_FIXED,	/* the peer's MTU is fixed (WGX_PEER_A_MTU): nothing is
					 * learned */
};

enum wgx_cmd {
	WGX_CMD_GET_DEVICE,	/* = WG_CMD_GET_DEVICE (0) */
	WGX_CMD_SET_DEVICE,	/* = WG_CMD_SET_DEVICE (1) */
	__WGX_CMD_MAX
};
#define WGX_CMD_MAX (__WGX_CMD_MAX - 1)

/* WGX_DEVICE_A_DSCP: the outer header's DSCP for transport data. */
enum wgx_dscp_mode {
	WGX_DSCP_CLEAR = 0,	/* 0, as WireGuard: the inner class stays hidden */
	WGX_DSCP_COPY = 1,	/* the inner packet's DSCP */
};

/* WGX_DEVICE_A_RX_SPREAD: where a peer's transport data is decrypted. */
enum wgx_rx_spread_mode {
	WGX_RX_SPREAD_OFF = 0,	/* on the CPU it arrives on, as WireGuard */
	WGX_RX_SPREAD_ON = 1,	/* on every online CPU, delivered in order */
	WGX_RX_SPREAD_AUTO = 2,	/* per peer, by its decryption load (default) */
};

/*
 * WGX_DEVICE_A_PRIORITY_DSCP's default: EF (46), CS5 (40), CS6 (48), CS7 (56),
 * AF41 (34), AF42 (36), AF43 (38).
 */
#define WGX_PRIORITY_DSCP_DEFAULT                                                  \
	((1ULL << 46) | (1ULL << 40) | (1ULL << 48) | (1ULL << 56) | (1ULL << 34) | \
	 (1ULL << 36) | (1ULL << 38))

/* WGX_DEVICE_A_GET_FLAGS, in a GET_DEVICE request. */
enum wgx_get_flag {
	/* Leave out WGX_DEVICE_A_STATS and every WGX_PEER_A_STATS. */
	WGX_GET_F_NO_STATS = 1U << 0,
	WGX_GET_F_ALL = WGX_GET_F_NO_STATS
};

/* WGX_DEVICE_A_FLAGS, SET only. */
enum wgx_device_flag {
	WGX_DEVICE_F_REPLACE_PEERS = 1U << 0,
	WGX_DEVICE_F_ALL = WGX_DEVICE_F_REPLACE_PEERS
};

enum wgx_device_attribute {
	WGX_DEVICE_A_UNSPEC,
	WGX_DEVICE_A_IFINDEX,		/* 1, u32 */
	WGX_DEVICE_A_IFNAME,		/* 2, string */
	WGX_DEVICE_A_PRIVATE_KEY,	/* 3, 32 bytes */
	WGX_DEVICE_A_PUBLIC_KEY,	/* 4, 32 bytes, read-only */
	WGX_DEVICE_A_FLAGS,		/* 5, u32, SET only */
	WGX_DEVICE_A_LISTEN_PORT,	/* 6, u16 */
	WGX_DEVICE_A_FWMARK,		/* 7, u32 */
	WGX_DEVICE_A_PEERS,		/* 8, nested */
	/* wgx extensions; WireGuard stops at 8. */
	WGX_DEVICE_A_STATS,		/* 9, nested WGX_DEVICE_STATS_A_*, read-only */
	WGX_DEVICE_A_LISTEN_PORTS,	/* 10, u16, 0..WGX_MAX_LISTEN_PORTS, 0 = auto */
	WGX_DEVICE_A_RX_SPREAD,		/* 11, u8, enum wgx_rx_spread_mode */
	WGX_DEVICE_A_DSCP,		/* 12, u8, enum wgx_dscp_mode */
	WGX_DEVICE_A_PRIORITY_DSCP,	/* 13, u64, bit n = DSCP n */
	WGX_DEVICE_A_HANDSHAKE_BUDGET,	/* 14, u32, initiations/s, 0 = automatic */
	WGX_DEVICE_A_KEY_GRACE,		/* 15, u32, seconds, 0..WGX_MAX_KEY_GRACE */
	WGX_DEVICE_A_PREVIOUS_PUBLIC_KEY, /* 16, 32 bytes, read-only, during a grace */
	WGX_DEVICE_A_GET_FLAGS,		/* 17, u32, GET request only */
	WGX_DEVICE_A_MTU_AUTO,		/* 18, u8, 1 = the MTU follows the underlay */
	WGX_DEVICE_A_LISTEN_PORTS_AUTO,	/* 19, u16, read-only: automatic, this many ports */
	__WGX_DEVICE_A_LAST
};
#define WGX_DEVICE_A_MAX (__WGX_DEVICE_A_LAST - 1)

/* WGX_PEER_A_FLAGS, SET only. */
enum wgx_peer_flag {
	WGX_PEER_F_REMOVE_ME = 1U << 0,
	WGX_PEER_F_REPLACE_ALLOWEDIPS = 1U << 1,
	WGX_PEER_F_UPDATE_ONLY = 1U << 2,
	WGX_PEER_F_ALL = WGX_PEER_F_REMOVE_ME | WGX_PEER_F_REPLACE_ALLOWEDIPS |
			 WGX_PEER_F_UPDATE_ONLY
};

enum wgx_peer_attribute {
	WGX_PEER_A_UNSPEC,
	WGX_PEER_A_PUBLIC_KEY,			/* 1, 32 bytes */
	WGX_PEER_A_PRESHARED_KEY,		/* 2, 32 bytes */
	WGX_PEER_A_FLAGS,			/* 3, u32, SET only */
	WGX_PEER_A_ENDPOINT,			/* 4, sockaddr_in / sockaddr_in6 */
	WGX_PEER_A_PERSISTENT_KEEPALIVE_INTERVAL, /* 5, u16 seconds */
	WGX_PEER_A_LAST_HANDSHAKE_TIME,		/* 6, __kernel_timespec, read-only */
	WGX_PEER_A_RX_BYTES,			/* 7, u64 bytes, read-only */
	WGX_PEER_A_TX_BYTES,			/* 8, u64 bytes, read-only */
	WGX_PEER_A_ALLOWEDIPS,			/* 9, nested */
	WGX_PEER_A_PROTOCOL_VERSION,		/* 10, u32 */
	/* wgx extensions; WireGuard stops at 10. */
	WGX_PEER_A_STATS,			/* 11, nested WGX_PEER_STATS_A_*, read-only */
	WGX_PEER_A_NEW_PUBLIC_KEY,		/* 12, 32 bytes, SET only: re-key in place */
	WGX_PEER_A_SESSION_KEYS,		/* 13, u32, GET only, WGX_SESSION_F_* */
	WGX_PEER_A_PATH_MTU,			/* 14, u32 bytes, GET only */
	WGX_PEER_A_PATH_MTU_SOURCE,		/* 15, u32, GET only, enum wgx_path_mtu_source */
	WGX_PEER_A_MTU,				/* 16, u32 inner bytes, 0 = auto */
	__WGX_PEER_A_LAST
};
#define WGX_PEER_A_MAX (__WGX_PEER_A_LAST - 1)

/* WGX_ALLOWEDIP_A_FLAGS, SET only (same value as WGALLOWEDIP_F_REMOVE_ME). */
enum wgx_allowedip_flag {
	WGX_ALLOWEDIP_F_REMOVE_ME = 1U << 0,
	WGX_ALLOWEDIP_F_ALL = WGX_ALLOWEDIP_F_REMOVE_ME
};

enum wgx_allowedip_attribute {
	WGX_ALLOWEDIP_A_UNSPEC,
	WGX_ALLOWEDIP_A_FAMILY,		/* 1, u16 AF_INET / AF_INET6 */
	WGX_ALLOWEDIP_A_IPADDR,		/* 2, in_addr / in6_addr */
	WGX_ALLOWEDIP_A_CIDR_MASK,	/* 3, u8 */
	WGX_ALLOWEDIP_A_FLAGS,		/* 4, u32, SET only */
	__WGX_ALLOWEDIP_A_LAST
};
#define WGX_ALLOWEDIP_A_MAX (__WGX_ALLOWEDIP_A_LAST - 1)

/*
 * Per-peer statistics, nested in WGX_PEER_A_STATS (GET only).  Every value is
 * NLA_U64.  Two kinds:
 *   counter   monotonically increasing from peer creation, never reset
 *             while the peer exists (the default; everything not marked
 *             "gauge" below);
 *   gauge     a current value that may go up or down (the RTT figures).
 * A kernel that does not track a value omits it; readers treat an absent
 * value as unknown, not as zero, and skip numbers they do not know.  An RTT
 * gauge is also omitted while its sample count is 0, so 0 is never a
 * placeholder.  "Packets" are WireGuard messages (whitepaper section 5.4);
 * transport data counts include keepalives.
 *
 * Telemetry (21..34).  RTT values are microseconds.  "Smoothed" is the
 * SRTT estimator of RFC 6298 section 2 (first sample R: SRTT = R,
 * RTTVAR = R/2; then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|,
 * SRTT = 7/8 SRTT + 1/8 R).  "Min" is the lowest sample since the peer was
 * created or its endpoint last changed (a new endpoint is a new path; the
 * sample count and smoothed values restart too).
 *   Handshake RTT: one sample per completed handshake.  As initiator:
 *     handshake initiation sent -> handshake response received (the
 *     initiation that was answered, not an earlier retransmission).  As
 *     responder: response sent -> first transport data received on the new
 *     keypair (includes the initiator's time to send it, which is ~0 when
 *     it has data queued, up to KEEPALIVE_TIMEOUT when it has none; the
 *     kernel may skip responder samples above REKEY_TIMEOUT).  Includes
 *     both sides' handshake processing (one or two Curve25519 operations).
 *   Passive TCP RTT: sampled from inner TCP packets carrying the timestamp
 *     option (RFC 7323): a TSval in a packet sent to the peer -> the same
 *     value echoed in TSecr by a packet received from the peer on the
 *     reverse flow.  Measures the path to the inner TCP endpoint behind the
 *     peer and back, including that endpoint's ACK delay; resolution is the
 *     sender's TS clock (1 ms on Linux) at best.  Only some packets are
 *     sampled so the per-packet cost stays small (wgx: one transmitted
 *     packet in 16 may start a sample, one sample pending per peer).  Only
 *     IPv4 and IPv6 without extension headers are read.  Absent until the
 *     first sample.
 *   Loss and reordering are seen by the receiver, per keypair, on the
 *     transport data counter (whitepaper 5.4.6).
 *   TCP retransmissions are estimated on transmit: a sampled inner TCP
 *     segment carrying payload whose end is not beyond the highest sequence
 *     number already sent on that flow.  Approximate: flows not tracked or
 *     evicted from the kernel's small flow table are missed; a segment
 *     repacketized by the sender counts once per packet.  wgx examines one
 *     transmitted packet in 16 against a table of 8 flows per peer (a flow's
 *     first sampled segment only enters it), so both counters are about
 *     1/16 of the real figures at best; retransmissions are undercounted
 *     further at small congestion windows (recognised only after a sampled
 *     segment beyond the lost one).  Absent while the samplers are off
 *     (module parameter tcp_telemetry=0).
 */
enum wgx_peer_stats_attribute {
	WGX_PEER_STATS_A_UNSPEC,		/* padding */
	WGX_PEER_STATS_A_RX_PACKETS,		/* 1, authenticated transport data packets received */
	WGX_PEER_STATS_A_TX_PACKETS,		/* 2, transport data packets sent */
	WGX_PEER_STATS_A_RX_DROP_AUTH,		/* 3, transport data failing AEAD
						 *    authentication (bad tag/key) */
	WGX_PEER_STATS_A_RX_DROP_REPLAY,	/* 4, counter already seen or left of the
						 *    replay window (whitepaper 5.4.6) */
	WGX_PEER_STATS_A_RX_DROP_ALLOWEDIPS,	/* 5, inner source address not among the
						 *    peer's allowed IPs */
	WGX_PEER_STATS_A_RX_DROP_NO_KEYPAIR,	/* 6, receiver index of an expired or
						 *    unconfirmed keypair (REJECT_AFTER_*) */
	WGX_PEER_STATS_A_RX_DROP_MALFORMED,	/* 7, decrypted payload not a valid IPv4/IPv6
						 *    packet or length mismatch */
	WGX_PEER_STATS_A_TX_DROP_STAGED_OVERFLOW, /* 8, packets dropped from the staged queue
						   *    (waiting for a keypair) when full */
	WGX_PEER_STATS_A_TX_DROP_NO_ENDPOINT,	/* 9, packets dropped: peer has no endpoint */
	WGX_PEER_STATS_A_TX_DROP_ERROR,		/* 10, packets dropped by the UDP send path */
	WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_TX, /* 11, handshake initiations sent */
	WGX_PEER_STATS_A_HANDSHAKE_INITIATIONS_RX, /* 12, valid initiations received */
	WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_TX, /* 13, handshake responses sent */
	WGX_PEER_STATS_A_HANDSHAKE_RESPONSES_RX, /* 14, valid responses received */
	WGX_PEER_STATS_A_COOKIE_REPLIES_RX,	/* 15, valid cookie replies received */
	WGX_PEER_STATS_A_HANDSHAKES_COMPLETED,	/* 16, keypairs derived (sessions started) */
	WGX_PEER_STATS_A_HANDSHAKE_TIMEOUTS,	/* 17, initiations retransmitted after
						 *    REKEY_TIMEOUT without a response */
	WGX_PEER_STATS_A_HANDSHAKE_DROP_INVALID, /* 18, handshake messages naming this
						  *    peer that failed to decrypt,
						  *    replayed a timestamp or index */
	WGX_PEER_STATS_A_KEEPALIVES_TX,		/* 19, keepalive packets sent */
	WGX_PEER_STATS_A_KEEPALIVES_RX,		/* 20, keepalive packets received */
	WGX_PEER_STATS_A_HANDSHAKE_RTT_LAST_US,	/* 21, gauge, us: latest handshake RTT
						 *    sample */
	WGX_PEER_STATS_A_HANDSHAKE_RTT_MIN_US,	/* 22, gauge, us: lowest handshake RTT */
	WGX_PEER_STATS_A_HANDSHAKE_SRTT_US,	/* 23, gauge, us: smoothed handshake RTT */
	WGX_PEER_STATS_A_HANDSHAKE_RTT_SAMPLES,	/* 24, handshake RTT samples taken */
	WGX_PEER_STATS_A_TCP_RTT_LAST_US,	/* 25, gauge, us: latest passive TCP RTT
						 *    sample */
	WGX_PEER_STATS_A_TCP_RTT_MIN_US,	/* 26, gauge, us: lowest passive TCP RTT */
	WGX_PEER_STATS_A_TCP_SRTT_US,		/* 27, gauge, us: smoothed passive TCP RTT */
	WGX_PEER_STATS_A_TCP_RTTVAR_US,		/* 28, gauge, us: RTT variation (RFC 6298
						 *    RTTVAR) of the passive TCP
						 *    samples, i.e. jitter */
	WGX_PEER_STATS_A_TCP_RTT_SAMPLES,	/* 29, passive TCP RTT samples taken */
	WGX_PEER_STATS_A_RX_LOST,		/* 30, transport data counters that left
						 *    the replay window without being
						 *    received: the peer's packets lost on
						 *    the way (or numbered but never sent
						 *    by it); gaps still inside the window
						 *    are counted when the keypair is
						 *    discarded.  Loss ratio: RX_LOST /
						 *    (RX_LOST + RX_PACKETS) */
	WGX_PEER_STATS_A_RX_REORDERED,		/* 31, transport data accepted with a
						 *    counter below the highest accepted
						 *    so far on its keypair */
	WGX_PEER_STATS_A_TX_TCP_RETRANSMITS,	/* 32, approximate, sampled: inner TCP
						 *    segments sent whose data was not
						 *    beyond the highest sequence already
						 *    sent on that flow (see above) */
	WGX_PEER_STATS_A_TX_TCP_SEGMENTS,	/* 33, inner TCP segments with payload
						 *    examined by the retransmission
						 *    sampler: the denominator of
						 *    TX_TCP_RETRANSMITS */
	WGX_PEER_STATS_A_HANDSHAKES_PACED,	/* 34, may be absent: handshake
						 *    initiations to this peer deferred by
						 *    the device's handshake budget */
	WGX_PEER_STATS_A_HANDSHAKES_PREVIOUS_KEY, /* 35, sessions made with the
						 *    device's previous private key
						 *    during a grace period
						 *    (WGX_DEVICE_A_KEY_GRACE) */
	WGX_PEER_STATS_A_PMTU_ICMP,		/* 36, ICMP "fragmentation needed" /
						 *    "packet too big" for the peer's
						 *    outer flow accepted (docs/mtu.md) */
	WGX_PEER_STATS_A_TX_DROP_TOO_BIG,	/* 37, inner packets larger than the
						 *    peer's path allows, answered with
						 *    ICMP to their sender */
	WGX_PEER_STATS_A_PMTU_BLACKHOLES,	/* 38, times full-size (or lowered)
						 *    packets went unanswered and the
						 *    peer's MTU was lowered (or DF cleared) */
	/* numbers 39..63 reserved for future per-peer statistics */
	__WGX_PEER_STATS_A_LAST
};
#define WGX_PEER_STATS_A_MAX (__WGX_PEER_STATS_A_LAST - 1)

/*
 * Per-device counters, nested in WGX_DEVICE_A_STATS (GET only); same rules
 * as the per-peer counters.  They count events that cannot be charged to a
 * peer.
 */
enum wgx_device_stats_attribute {
	WGX_DEVICE_STATS_A_UNSPEC,		/* padding */
	WGX_DEVICE_STATS_A_RX_HANDSHAKE_PACKETS, /* 1, handshake messages (types 1-3) received */
	WGX_DEVICE_STATS_A_RX_DROP_MALFORMED,	/* 2, UDP payloads of unknown type or wrong size */
	WGX_DEVICE_STATS_A_RX_DROP_MAC1,	/* 3, handshake messages with invalid MAC1 */
	WGX_DEVICE_STATS_A_RX_DROP_MAC2,	/* 4, handshake messages without valid MAC2
						 *    while under load (answered by cookie) */
	WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_PEER, /* 5, initiations for an unknown static key */
	WGX_DEVICE_STATS_A_RX_DROP_UNKNOWN_INDEX, /* 6, transport data or responses with an
						   *    unknown receiver index */
	WGX_DEVICE_STATS_A_RX_DROP_RATELIMITED,	/* 7, handshake messages dropped by the
						 *    per-source rate limiter */
	WGX_DEVICE_STATS_A_RX_DROP_HANDSHAKE_QUEUE, /* 8, handshake messages dropped because
						     *    the handshake queue was full */
	WGX_DEVICE_STATS_A_COOKIE_REPLIES_TX,	/* 9, cookie replies sent (under load) */
	WGX_DEVICE_STATS_A_TX_DROP_NO_PEER,	/* 10, outgoing packets whose destination
						 *    matches no peer's allowed IPs */
	WGX_DEVICE_STATS_A_UNDER_LOAD_ENTERED,	/* 11, times the device entered the
						 *    under-load state (whitepaper 5.3) */
	WGX_DEVICE_STATS_A_HANDSHAKES_PACED,	/* 12, may be absent: handshake
						 *    initiations (all peers) deferred by
						 *    the device's handshake budget */
	WGX_DEVICE_STATS_A_TX_LANE,		/* 13, may be absent: priority packets
						 *    queued on a tx queue's priority lane */
	WGX_DEVICE_STATS_A_TX_LANE_INLINE,	/* 14, may be absent: priority packets
						 *    sent at once by ndo_start_xmit, the
						 *    lane empty (module parameter
						 *    lane_inline) */
	WGX_DEVICE_STATS_A_RX_DROP_DELAY,	/* 15, may be absent: transport data
						 *    dropped on arrival because its peer's
						 *    receive queue stood longer than the
						 *    delay target (CoDel, RFC 8289) */
	WGX_DEVICE_STATS_A_PMTU_ICMP_IGNORED,	/* 16, ICMP "fragmentation needed" /
						 *    "packet too big" for our sockets
						 *    refused: an MTU below the floor,
						 *    a quoted packet that fit, not a
						 *    WireGuard message, no peer's
						 *    endpoint, or over the rate limit */
	WGX_DEVICE_STATS_A_TX_EXPRESS,		/* 17, may be absent: small packets of
						 *    sparse flows sent with the express
						 *    mark (padding a wgx receiver may
						 *    deliver ahead of its queue) */
	WGX_DEVICE_STATS_A_RX_EXPRESS,		/* 18, may be absent: marked messages
						 *    delivered ahead of their peer's
						 *    receive queue */
	WGX_DEVICE_STATS_A_TX_DROP_DELAY,	/* 19, may be absent: packets dropped
						 *    leaving a tx queue
						 *    that stood longer than its delay
						 *    target (CoDel, RFC 8289) */
	WGX_DEVICE_STATS_A_RX_MARK_DELAY,	/* 20, may be absent: transport data
						 *    marked CE on arrival instead of
						 *    dropped (its outer ECN field
						 *    ECN-capable) by the delay control
						 *    of RX_DROP_DELAY */
	WGX_DEVICE_STATS_A_TX_MARK_DELAY,	/* 21, may be absent: ECN-capable
						 *    packets marked CE instead of
						 *    dropped by the delay control of
						 *    TX_DROP_DELAY */
	/* numbers 22..63 reserved for future per-device counters */
	__WGX_DEVICE_STATS_A_LAST
};
#define WGX_DEVICE_STATS_A_MAX (__WGX_DEVICE_STATS_A_LAST - 1)

#endif /* _UAPI_LINUX_WGX_H */
