# SPDX-License-Identifier: GPL-2.0
"""netlink_raw.py - the raw generic netlink requests of the netlink suite
(tests/integration/netlink.sh): what the wgx tool never sends (malformed
attributes, a change in the middle of a dump, the raw dump layout), over the
client of tests/lib/wgx_uapi.py, whose numbers come from the uapi header.

    netlink_raw.py set IF CASE ERRNO [EXISTING_PEER_B64]
        send the SET_DEVICE message CASE (see CASES), succeed iff the kernel
        answers with ERRNO (a name such as EINVAL, or 0) and, for an error,
        with an extack message.
    netlink_raw.py cases IF EXISTING_PEER_B64 <LIST
        the same for every "CASE ERRNO" line of LIST, in one process; after
        each, a raw dump of the device must equal the one before the first.
    netlink_raw.py dump-intr IF
        start a dump, add a peer after the first message, check that one
        later message carries NLM_F_DUMP_INTR.
    netlink_raw.py dump IF [ERRNO|-] [GET_FLAGS]
        dump the device and check the message layout of the uapi
        ("Splitting"); print "peers=N allowedips=M messages=K bytes=B
        continued=C" (B: the payload of every message).  With ERRNO, the dump
        must fail with it instead.  GET_FLAGS (a number, or a name such as
        NO_STATS for WGX_GET_F_NO_STATS) is sent as
        WGX_DEVICE_A_GET_FLAGS; with WGX_GET_F_NO_STATS in it no counter
        nest may appear, without it every one must.
"""
import base64
import errno
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from wgx_uapi import (AF_INET, AF_INET6, AF_PACKET, AF_UNIX, AIP, AIP_F, CMD, DEV, DEV_F, GET_F,  # noqa: E402
                      DEV_STATS, DEVICE_STATS_MAX, NLM_F_ACK, NLM_F_DUMP, NLM_F_DUMP_INTR,
                      NLM_F_MULTI, NLMSG_DONE, NLMSG_ERROR, PEER, PEER_F, PEER_STATS,
                      PEER_STATS_MAX, Genl, attrs, nest, nla, sin, sin6, strz, u8, u16, u32)


def unknown_flag(known):
    """The lowest flag bit outside the mask @known of every defined flag."""
    return (known + 1) & ~known


def rand(n): return os.urandom(n)


def clamp(k):
    k = bytearray(k)
    k[0] &= 248
    k[31] = (k[31] & 127) | 64
    return bytes(k)


def aip(family, addr, cidr, flags=None, addr_bytes=None, drop=()):
    raw = addr_bytes if addr_bytes is not None else socket.inet_pton(
        AF_INET6 if ':' in addr else AF_INET, addr)
    a = {AIP.FAMILY: u16(AIP.FAMILY, family), AIP.IPADDR: nla(AIP.IPADDR, raw),
         AIP.CIDR_MASK: u8(AIP.CIDR_MASK, cidr)}
    if flags is not None:
        a[AIP.FLAGS] = u32(AIP.FLAGS, flags)
    return nest(0, *[v for k, v in a.items() if k not in drop])


def good_dev():
    return {DEV.PRIVATE_KEY: nla(DEV.PRIVATE_KEY, clamp(rand(32))),
            DEV.LISTEN_PORT: u16(DEV.LISTEN_PORT, 40001),
            DEV.FWMARK: u32(DEV.FWMARK, 77),
            DEV.FLAGS: u32(DEV.FLAGS, DEV_F.REPLACE_PEERS)}


def good_peer(ips=None):
    return {PEER.PUBLIC_KEY: nla(PEER.PUBLIC_KEY, rand(32)),
            PEER.PRESHARED_KEY: nla(PEER.PRESHARED_KEY, rand(32)),
            PEER.ENDPOINT: nla(PEER.ENDPOINT, sin('192.0.2.77', 4000)),
            PEER.PERSISTENT_KEEPALIVE_INTERVAL: u16(PEER.PERSISTENT_KEEPALIVE_INTERVAL, 7),
            PEER.ALLOWEDIPS: nest(PEER.ALLOWEDIPS, aip(AF_INET, '10.77.0.0', 16),
                                  aip(AF_INET6, 'fd77::', 64), *(ips or []))}


def message(ctx, dev=None, peer=None, ident=None, bad_peer_raw=None):
    """A SET_DEVICE payload making many valid changes (new key, port, fwmark,
    REPLACE_PEERS, a new peer, removal of an existing one) followed by one
    peer built from good_peer() with the overrides in @peer (None drops an
    attribute): the kernel must refuse all of it if that last peer is bad."""
    d = good_dev()
    d.update(dev or {})
    last = good_peer()
    last.update(peer or {})
    peers = [nest(0, *good_peer().values())]
    if ctx['existing']:
        peers.append(nest(0, nla(PEER.PUBLIC_KEY, ctx['existing']),
                          u32(PEER.FLAGS, PEER_F.REMOVE_ME)))
    peers.append(bad_peer_raw if bad_peer_raw is not None
                 else nest(0, *[v for v in last.values() if v is not None]))
    head = [strz(DEV.IFNAME, ctx['ifname'])] if ident is None else ident
    return b''.join(head + [v for v in d.values() if v is not None] + [nest(DEV.PEERS, *peers)])


def ips(*extra):
    return {PEER.ALLOWEDIPS: nest(PEER.ALLOWEDIPS, aip(AF_INET, '10.78.0.0', 16), *extra)}


CASES = {
    # device attributes
    'dev-private-key-31': lambda c: message(c, dev={DEV.PRIVATE_KEY: nla(DEV.PRIVATE_KEY, rand(31))}),
    'dev-private-key-33': lambda c: message(c, dev={DEV.PRIVATE_KEY: nla(DEV.PRIVATE_KEY, rand(33))}),
    'dev-flags-unknown': lambda c: message(c, dev={DEV.FLAGS: u32(DEV.FLAGS, unknown_flag(DEV_F.ALL))}),
    'dev-port-u32': lambda c: message(c, dev={DEV.LISTEN_PORT: u32(DEV.LISTEN_PORT, 40001)}),
    'dev-fwmark-u16': lambda c: message(c, dev={DEV.FWMARK: u16(DEV.FWMARK, 1)}),
    'dev-dscp-2': lambda c: message(c, dev={DEV.DSCP: u8(DEV.DSCP, 2)}),
    'dev-dscp-u32': lambda c: message(c, dev={DEV.DSCP: u32(DEV.DSCP, 1)}),
    'dev-priority-dscp-u32': lambda c: message(c, dev={DEV.PRIORITY_DSCP: u32(DEV.PRIORITY_DSCP, 1)}),
    'dev-handshake-budget-1000001': lambda c: message(c, dev={DEV.HANDSHAKE_BUDGET: u32(DEV.HANDSHAKE_BUDGET, 1000001)}),
    'dev-handshake-budget-u16': lambda c: message(c, dev={DEV.HANDSHAKE_BUDGET: u16(DEV.HANDSHAKE_BUDGET, 20)}),
    'dev-mtu-auto-2': lambda c: message(c, dev={DEV.MTU_AUTO: u8(DEV.MTU_AUTO, 2)}),
    'dev-unknown-attr': lambda c: message(c, dev={DEV.MAX + 1: u32(DEV.MAX + 1, 0)}),
    'dev-peers-not-nested': lambda c: message(c, bad_peer_raw=nla(0, b''.join(good_peer().values()))),
    # peers
    'peer-public-key-31': lambda c: message(c, peer={PEER.PUBLIC_KEY: nla(PEER.PUBLIC_KEY, rand(31))}),
    'peer-public-key-33': lambda c: message(c, peer={PEER.PUBLIC_KEY: nla(PEER.PUBLIC_KEY, rand(33))}),
    'peer-no-public-key': lambda c: message(c, peer={PEER.PUBLIC_KEY: None}),
    'peer-empty': lambda c: message(c, bad_peer_raw=nest(0)),
    'peer-psk-16': lambda c: message(c, peer={PEER.PRESHARED_KEY: nla(PEER.PRESHARED_KEY, rand(16))}),
    'peer-flags-unknown': lambda c: message(c, peer={PEER.FLAGS: u32(PEER.FLAGS, unknown_flag(PEER_F.ALL))}),
    'peer-protocol-version-2': lambda c: message(c, peer={PEER.PROTOCOL_VERSION: u32(PEER.PROTOCOL_VERSION, 2)}),
    'peer-keepalive-u32': lambda c: message(c, peer={PEER.PERSISTENT_KEEPALIVE_INTERVAL: u32(PEER.PERSISTENT_KEEPALIVE_INTERVAL, 5)}),
    'peer-new-key-31': lambda c: message(c, peer={PEER.NEW_PUBLIC_KEY: nla(PEER.NEW_PUBLIC_KEY, rand(31))}),
    'peer-new-key-33': lambda c: message(c, peer={PEER.NEW_PUBLIC_KEY: nla(PEER.NEW_PUBLIC_KEY, rand(33))}),
    'peer-mtu-575': lambda c: message(c, peer={PEER.MTU: u32(PEER.MTU, 575)}),
    'peer-mtu-65456': lambda c: message(c, peer={PEER.MTU: u32(PEER.MTU, 65456)}),
    'peer-mtu-u16': lambda c: message(c, peer={PEER.MTU: u16(PEER.MTU, 1300)}),
    'peer-unknown-attr': lambda c: message(c, peer={PEER.MAX + 1: u32(PEER.MAX + 1, 0)}),
    'peer-allowedips-not-nested': lambda c: message(c, peer={PEER.ALLOWEDIPS: nla(
        PEER.ALLOWEDIPS, aip(AF_INET, '10.78.0.0', 16))}),
    # endpoints
    'endpoint-inet-28-bytes': lambda c: message(c, peer={PEER.ENDPOINT: nla(PEER.ENDPOINT, sin('192.0.2.9', 1) + bytes(12))}),
    'endpoint-inet6-16-bytes': lambda c: message(c, peer={PEER.ENDPOINT: nla(PEER.ENDPOINT, sin('192.0.2.9', 1, AF_INET6))}),
    'endpoint-inet-family-in6-size': lambda c: message(c, peer={PEER.ENDPOINT: nla(PEER.ENDPOINT, sin6('2001:db8::9', 1, AF_INET))}),
    'endpoint-unix-family': lambda c: message(c, peer={PEER.ENDPOINT: nla(PEER.ENDPOINT, sin('192.0.2.9', 1, AF_UNIX))}),
    'endpoint-20-bytes': lambda c: message(c, peer={PEER.ENDPOINT: nla(PEER.ENDPOINT, sin('192.0.2.9', 1) + bytes(4))}),
    'endpoint-2-bytes': lambda c: message(c, peer={PEER.ENDPOINT: nla(PEER.ENDPOINT, struct.pack('=H', AF_INET))}),
    # allowed IPs
    'aip-v4-cidr-33': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 33))),
    'aip-v6-cidr-129': lambda c: message(c, peer=ips(aip(AF_INET6, 'fd79::', 129))),
    'aip-v4-family-16-bytes': lambda c: message(c, peer=ips(aip(AF_INET, 'fd79::', 64))),
    'aip-v6-family-4-bytes': lambda c: message(c, peer=ips(aip(AF_INET6, '10.79.0.0', 16))),
    'aip-family-3': lambda c: message(c, peer=ips(aip(3, '10.79.0.0', 16))),
    'aip-family-0': lambda c: message(c, peer=ips(aip(0, '10.79.0.0', 16))),
    'aip-family-packet': lambda c: message(c, peer=ips(aip(AF_PACKET, '10.79.0.0', 16))),
    'aip-addr-5-bytes': lambda c: message(c, peer=ips(aip(AF_INET, None, 16, addr_bytes=rand(5)))),
    'aip-no-family': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, drop=(AIP.FAMILY,)))),
    'aip-no-addr': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, drop=(AIP.IPADDR,)))),
    'aip-no-cidr': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, drop=(AIP.CIDR_MASK,)))),
    'aip-flags-unknown': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, flags=unknown_flag(AIP_F.ALL)))),
    'aip-cidr-u16': lambda c: message(c, peer=ips(nest(0, u16(AIP.FAMILY, AF_INET), nla(
        AIP.IPADDR, socket.inet_pton(AF_INET, '10.79.0.0')), u16(AIP.CIDR_MASK, 16)))),
    # device lookup
    'no-device': lambda c: message(c, ident=[]),
    'ifindex-and-ifname': lambda c: message(c, ident=[u32(DEV.IFINDEX, socket.if_nametoindex(c['ifname'])),
                                                      strz(DEV.IFNAME, c['ifname'])]),
    'no-such-device': lambda c: message(c, ident=[strz(DEV.IFNAME, 'nosuchdev0')]),
    'not-wgx-device': lambda c: message(c, ident=[strz(DEV.IFNAME, 'lo')]),
    # valid requests with no visible effect
    'update-only-absent': lambda c: strz(DEV.IFNAME, c['ifname']) + nest(DEV.PEERS, nest(
        0, nla(PEER.PUBLIC_KEY, rand(32)), u32(PEER.FLAGS, PEER_F.UPDATE_ONLY),
        nest(PEER.ALLOWEDIPS, aip(AF_INET, '10.80.0.0', 16)))),
    'remove-absent': lambda c: strz(DEV.IFNAME, c['ifname']) + nest(DEV.PEERS, nest(
        0, nla(PEER.PUBLIC_KEY, rand(32)), u32(PEER.FLAGS, PEER_F.REMOVE_ME))),
    # a valid change: the checker of `cases` must notice it (control)
    'add-peer': lambda c: strz(DEV.IFNAME, c['ifname']) + nest(DEV.PEERS, nest(
        0, nla(PEER.PUBLIC_KEY, rand(32)))),
    'read-only-attrs': lambda c: (
        strz(DEV.IFNAME, c['ifname']) + nla(DEV.PUBLIC_KEY, rand(32)) +
        nest(DEV.STATS, nla(DEV_STATS.RX_HANDSHAKE_PACKETS, bytes(8))) +
        nest(DEV.PEERS, nest(0, nla(PEER.PUBLIC_KEY, c['existing']),
                           nla(PEER.LAST_HANDSHAKE_TIME, bytes(16)), nla(PEER.RX_BYTES, bytes(8)),
                           nla(PEER.TX_BYTES, bytes(8)), u32(PEER.PROTOCOL_VERSION, 1),
                           nest(PEER.STATS, nla(PEER_STATS.RX_PACKETS, bytes(8)))))),
}


def cmd_set(ifname, case, want, existing=None):
    ctx = {'ifname': ifname, 'existing': base64.b64decode(existing) if existing else None}
    g = Genl()
    err, ext, _ = g.request(g.family, CMD.SET_DEVICE, NLM_F_ACK, CASES[case](ctx))
    want = 0 if want == '0' else getattr(errno, want)
    print('%s: %s (%s)' % (case, errno.errorcode.get(err, err) if err else 0, ext))
    if err != want:
        raise SystemExit('%s: expected %s, got %s' % (case, errno.errorcode.get(want, want),
                                                      errno.errorcode.get(err, err)))
    # Permission failures come from the genetlink core, without a message.
    if err and err != errno.EPERM and not ext:
        raise SystemExit('%s: no extack message' % case)


def state(g, ifname):
    """The device's configuration from a raw dump, as comparable text (coalesced)."""
    err, ext, msgs = g.request(g.family, CMD.GET_DEVICE, NLM_F_DUMP, strz(DEV.IFNAME, ifname))
    if err:
        raise SystemExit('dump failed: %s %s' % (os.strerror(err), ext))
    lines, peers = [], []
    for n, (fl, payload) in enumerate(msgs):
        top = dict(attrs(payload))
        if n == 0:
            for t in (DEV.PRIVATE_KEY, DEV.PUBLIC_KEY, DEV.LISTEN_PORT, DEV.FWMARK):
                lines.append('%d=%s' % (t, top.get(t, b'').hex()))
        for _, pbuf in attrs(top.get(DEV.PEERS, b'')):
            p = dict(attrs(pbuf))
            ips = [v.hex() for _, v in attrs(p.get(PEER.ALLOWEDIPS, b''))]
            if peers and peers[-1][0] == p[PEER.PUBLIC_KEY]:
                peers[-1][2].extend(ips)
                continue
            fixed = ' '.join('%d=%s' % (t, p.get(t, b'').hex())
                             for t in (PEER.PRESHARED_KEY, PEER.ENDPOINT, PEER.PERSISTENT_KEEPALIVE_INTERVAL))
            peers.append((p[PEER.PUBLIC_KEY], fixed, ips))
    for key, fixed, ips in peers:
        lines.append('peer %s %s ips=%s' % (key.hex(), fixed, ','.join(ips)))
    return '\n'.join(lines)


def cmd_cases(ifname, existing):
    """Run every "CASE ERRNO" line of stdin; after each, the device must be unchanged."""
    g = Genl()
    before = state(g, ifname)
    failed = 0
    for line in sys.stdin:
        if not line.split():
            continue
        case, want = line.split()
        ctx = {'ifname': ifname, 'existing': base64.b64decode(existing)}
        err, ext, _ = g.request(g.family, CMD.SET_DEVICE, NLM_F_ACK, CASES[case](ctx))
        wanted = 0 if want == '0' else getattr(errno, want)
        problems = []
        if err != wanted:
            problems.append('expected %s, got %s' % (want, errno.errorcode.get(err, err)))
        if err and err != errno.EPERM and not ext:
            problems.append('no extack message')
        after = state(g, ifname)
        if after != before:
            problems.append('device changed:\n  before: %s\n  after:  %s' % (
                before.replace('\n', '\n          '), after.replace('\n', '\n          ')))
        print('%s: %s (%s)%s' % (case, errno.errorcode.get(err, err) if err else 0, ext,
                                 ''.join('\n  FAIL: ' + p for p in problems)))
        failed += bool(problems)
    if failed:
        raise SystemExit('%d case(s) failed' % failed)


def cmd_dump_intr(ifname):
    """A peer added while a dump is between messages: the first message built
    after the change carries NLM_F_DUMP_INTR (nl_dump_check_consistent()
    flags the message where it notices the change) and the dump still ends."""
    d = Genl()
    d.send(d.family, CMD.GET_DEVICE, NLM_F_DUMP, strz(DEV.IFNAME, ifname))
    flags, changed, done = [], False, False
    while not done:
        data = d.s.recv(1 << 16)
        i = 0
        while i + 16 <= len(data):
            n, typ, fl, _, _ = struct.unpack_from('=IHHII', data, i)
            i += (n + 3) & ~3
            if typ in (NLMSG_DONE, NLMSG_ERROR):
                done = True
                break
            flags.append(fl)
        if not changed:
            g = Genl()
            err, ext, _ = g.request(g.family, CMD.SET_DEVICE, NLM_F_ACK, strz(DEV.IFNAME, ifname) + nest(
                DEV.PEERS, nest(0, nla(PEER.PUBLIC_KEY, rand(32)))))
            if err:
                raise SystemExit('set during dump: %s %s' % (os.strerror(err), ext))
            changed = True
    intr = sum(1 for f in flags if f & NLM_F_DUMP_INTR)
    print('messages=%d interrupted=%d' % (len(flags), intr))
    if flags[0] & NLM_F_DUMP_INTR or intr != 1:
        raise SystemExit('expected NLM_F_DUMP_INTR on one message after the first')


def stats_violations(what, stats, last_counter, last_known):
    """A stats nest: every counter 1..last_counter present (the kernel counts
    them all), telemetry beyond it optional (a gauge appears with its first
    sample), nothing the header does not know, each 8 bytes, no repeats."""
    bad, seen = [], set()
    for t, v in stats:
        if t == 0:
            continue  # padding
        if t > last_known:
            bad.append('%s stats: unknown attribute %d' % (what, t))
        if t in seen:
            bad.append('%s stats: attribute %d repeated' % (what, t))
        if len(v) != 8:
            bad.append('%s stats: attribute %d is %d bytes' % (what, t, len(v)))
        seen.add(t)
    missing = sorted(set(range(1, last_counter + 1)) - seen)
    if missing:
        bad.append('%s stats: counters %s missing' % (what, missing))
    return bad


def cmd_dump(ifname, want=None, get_flags=None):
    g = Genl()
    req = strz(DEV.IFNAME, ifname)
    if get_flags is not None:
        get_flags = getattr(GET_F, get_flags) if get_flags.isidentifier() else int(get_flags, 0)
        req += u32(DEV.GET_FLAGS, get_flags)
    stats = not (get_flags or 0) & GET_F.NO_STATS
    want = None if want == '-' else want
    err, ext, msgs = g.request(g.family, CMD.GET_DEVICE, NLM_F_DUMP, req)
    if want is not None:
        if err != getattr(errno, want):
            raise SystemExit('dump: expected %s, got %s' % (want, errno.errorcode.get(err, err)))
        print('dump: %s (%s)' % (want, ext))
        return
    if err:
        raise SystemExit('dump failed: %s %s' % (os.strerror(err), ext))
    keys, nips, continued, prev_key, bad = set(), 0, 0, None, []
    for n, (fl, payload) in enumerate(msgs):
        if not fl & NLM_F_MULTI:
            bad.append('message %d without NLM_F_MULTI' % n)
        if fl & NLM_F_DUMP_INTR:
            bad.append('message %d has NLM_F_DUMP_INTR on an idle device' % n)
        top = dict(attrs(payload))
        if DEV.IFINDEX not in top or DEV.IFNAME not in top:
            bad.append('message %d lacks ifindex/ifname' % n)
        extra = set(top) - {DEV.IFINDEX, DEV.IFNAME, DEV.PEERS}
        if n == 0:
            for need in (DEV.LISTEN_PORT, DEV.FWMARK) + ((DEV.STATS,) if stats else ()):
                if need not in top:
                    bad.append('first message lacks attribute %d' % need)
            if not stats and DEV.STATS in top:
                bad.append('device counters despite WGX_GET_F_NO_STATS')
            # Automatic ports: LISTEN_PORTS says 1, as a default device always did; AUTO the count.
            if DEV.LISTEN_PORTS_AUTO in top:
                lp = struct.unpack('=H', top.get(DEV.LISTEN_PORTS, b'\0\0')[:2])[0]
                auto = top[DEV.LISTEN_PORTS_AUTO]
                if lp != 1:
                    bad.append('automatic ports with WGX_DEVICE_A_LISTEN_PORTS %d, not 1' % lp)
                if len(auto) != 2 or not struct.unpack('=H', auto)[0]:
                    bad.append('WGX_DEVICE_A_LISTEN_PORTS_AUTO is not a u16 count: %r' % auto)
            if DEV.STATS in top:
                bad += stats_violations('device', attrs(top[DEV.STATS]), DEV_STATS.UNDER_LOAD_ENTERED,
                                        DEVICE_STATS_MAX)
        elif extra:
            bad.append('message %d repeats device attributes %s' % (n, sorted(extra)))
        for _, pbuf in attrs(top.get(DEV.PEERS, b'')):
            p = dict(attrs(pbuf))
            key = p.get(PEER.PUBLIC_KEY)
            if key is None or len(key) != 32:
                bad.append('peer without a 32-byte public key')
                continue
            plist = attrs(p.get(PEER.ALLOWEDIPS, b''))
            if key == prev_key:
                continued += 1
                if set(p) != {PEER.PUBLIC_KEY, PEER.ALLOWEDIPS} or not plist:
                    bad.append('continued peer carries %s' % sorted(p))
            else:
                if key in keys:
                    bad.append('peer repeated non-adjacently')
                for need in (PEER.PRESHARED_KEY, PEER.PERSISTENT_KEEPALIVE_INTERVAL, PEER.LAST_HANDSHAKE_TIME, PEER.RX_BYTES,
                             PEER.TX_BYTES, PEER.PROTOCOL_VERSION) + ((PEER.STATS,) if stats else ()):
                    if need not in p:
                        bad.append('peer lacks attribute %d' % need)
                if not stats and PEER.STATS in p:
                    bad.append('peer counters despite WGX_GET_F_NO_STATS')
                if struct.unpack('=I', p.get(PEER.PROTOCOL_VERSION, bytes(4)))[0] != 1:
                    bad.append('protocol version is not 1')
                if PEER.STATS in p:
                    bad += stats_violations('peer', attrs(p[PEER.STATS]), PEER_STATS.KEEPALIVES_RX,
                                            PEER_STATS_MAX)
                keys.add(key)
            prev_key = key
            for _, ibuf in plist:
                a = dict(attrs(ibuf))
                fam = struct.unpack('=H', a[AIP.FAMILY])[0]
                alen = {AF_INET: 4, AF_INET6: 16}.get(fam)
                if alen is None or len(a[AIP.IPADDR]) != alen or a[AIP.CIDR_MASK][0] > alen * 8:
                    bad.append('bad allowed IP %r' % a)
                nips += 1
    for b in bad[:20]:
        print('violation:', b)
    print('peers=%d allowedips=%d messages=%d bytes=%d continued=%d' % (len(keys), nips, len(msgs),
                                                                      sum(len(m) for _, m in msgs), continued))
    if bad:
        raise SystemExit(1)


if __name__ == '__main__':
    cmd = sys.argv[1] if len(sys.argv) > 1 else None
    if cmd == 'set':
        cmd_set(*sys.argv[2:])
    elif cmd == 'dump-intr':
        cmd_dump_intr(*sys.argv[2:])
    elif cmd == 'cases':
        cmd_cases(*sys.argv[2:])
    elif cmd == 'dump':
        cmd_dump(*sys.argv[2:])
    else:
        raise SystemExit('usage: netlink_raw.py set IF CASE ERRNO [KEY] | cases IF KEY <LIST | '
                         'dump IF [ERRNO|-] [GET_FLAGS]')
