# Integration suite: the generic netlink API of wgx (kmod/netlink.c, spec in
# include/uapi/linux/wgx.h), driven through the wgx tool and, for what the
# tool never sends (malformed attributes, raw dump layout), through a small
# raw genetlink client written to /tmp by wgxnl_init below.
#
# Every case works in namespace "a" (removed by the runner afterwards).

NL_DIR=/tmp/wgx-netlink-test

# ---- the raw client -------------------------------------------------------

# wgxnl_init — write the raw genetlink client to $NL_DIR/wgxnl.py.
#   wgxnl.py set IF CASE ERRNO [EXISTING_PEER_B64]
#       send the SET_DEVICE message CASE (see CASES), succeed iff the kernel
#       answers with ERRNO (a name such as EINVAL, or 0) and, for an error,
#       with an extack message.
#   wgxnl.py cases IF EXISTING_PEER_B64 <LIST
#       the same for every "CASE ERRNO" line of LIST, in one process; after
#       each, a raw dump of the device must equal the one before the first.
#   wgxnl.py dump-intr IF
#       start a dump, add a peer after the first message, check that one
#       later message carries NLM_F_DUMP_INTR.
#   wgxnl.py dump IF [ERRNO]
#       dump the device and check the message layout of the uapi ("Splitting");
#       print "peers=N allowedips=M messages=K continued=C".  With ERRNO, the
#       dump must fail with it instead.
wgxnl_init() {
	mkdir -p "$NL_DIR"
	chmod 755 "$NL_DIR"
	cat >"$NL_DIR/wgxnl.py" <<'EOF'
import base64, errno, os, socket, struct, sys

# include/uapi/linux/wgx.h (ABI: numbers never change)
CMD_GET, CMD_SET = 0, 1
(D_IFINDEX, D_IFNAME, D_PRIVATE_KEY, D_PUBLIC_KEY, D_FLAGS, D_LISTEN_PORT, D_FWMARK,
 D_PEERS, D_STATS) = range(1, 10)
(P_PUBLIC_KEY, P_PRESHARED_KEY, P_FLAGS, P_ENDPOINT, P_KEEPALIVE, P_LAST_HANDSHAKE,
 P_RX_BYTES, P_TX_BYTES, P_ALLOWEDIPS, P_PROTOCOL_VERSION, P_STATS) = range(1, 12)
A_FAMILY, A_IPADDR, A_CIDR, A_FLAGS = range(1, 5)
PEER_STATS_MAX, DEVICE_STATS_MAX = 20, 11

AF_UNIX, AF_INET, AF_INET6, AF_PACKET = 1, 2, 10, 17
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x2, 0x4, 0x300
NLM_F_DUMP_INTR, NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x10, 0x100, 0x200
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED, NLA_TYPE_MASK = 0x8000, 0x3fff
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 0x10, 3, 1, 2
NLMSGERR_ATTR_MSG = 1


def nla(t, data):
    n = 4 + len(data)
    return struct.pack('=HH', n, t) + data + bytes((4 - n % 4) % 4)


def nest(t, *kids):
    return nla(t | NLA_F_NESTED, b''.join(kids))


def u8(t, v): return nla(t, struct.pack('=B', v))
def u16(t, v): return nla(t, struct.pack('=H', v))
def u32(t, v): return nla(t, struct.pack('=I', v))
def strz(t, s): return nla(t, s.encode() + b'\0')


def attrs(buf):
    out, i = [], 0
    while i + 4 <= len(buf):
        n, t = struct.unpack_from('=HH', buf, i)
        if n < 4 or i + n > len(buf):
            raise SystemExit('malformed attribute at %d' % i)
        out.append((t & NLA_TYPE_MASK, buf[i + 4:i + n]))
        i += (n + 3) & ~3
    return out


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.s.bind((0, 0))
        self.seq = 0
        err, _, msgs = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
                                    strz(CTRL_ATTR_FAMILY_NAME, 'wgx'))
        if err:
            raise SystemExit('cannot resolve genl family wgx: %s' % os.strerror(err))
        self.family = [struct.unpack('=H', v[:2])[0] for t, v in attrs(msgs[0][1])
                       if t == CTRL_ATTR_FAMILY_ID][0]

    def request(self, family, cmd, flags, payload):
        """Returns (errno, extack message, [(nlmsg_flags, attribute payload)])."""
        self.seq += 1
        body = struct.pack('=BBH', cmd, 1, 0) + payload
        self.s.send(struct.pack('=IHHII', 16 + len(body), family,
                                NLM_F_REQUEST | flags, self.seq, 0) + body)
        msgs = []
        while True:
            data = self.s.recv(1 << 20)
            i = 0
            while i + 16 <= len(data):
                n, typ, fl, seq, _ = struct.unpack_from('=IHHII', data, i)
                msg = data[i + 16:i + n]
                i += (n + 3) & ~3
                if typ == NLMSG_ERROR:
                    err = -struct.unpack_from('=i', msg)[0]
                    ext = ''
                    if fl & NLM_F_ACK_TLVS:
                        off = 20 if fl & NLM_F_CAPPED else 4 + struct.unpack_from('=I', msg, 4)[0]
                        for t, v in attrs(msg[off:]):
                            if t == NLMSGERR_ATTR_MSG:
                                ext = v.rstrip(b'\0').decode()
                    if err or not (flags & NLM_F_DUMP) or fl & NLM_F_ACK_TLVS:
                        return err, ext, msgs
                    continue
                if typ == NLMSG_DONE:
                    return -struct.unpack_from('=i', msg)[0] if len(msg) >= 4 else 0, '', msgs
                msgs.append((fl, msg[4:]))
                if not (flags & NLM_F_DUMP) and not (fl & NLM_F_MULTI) and not (flags & NLM_F_ACK):
                    return 0, '', msgs


def rand(n): return os.urandom(n)


def clamp(k):
    k = bytearray(k)
    k[0] &= 248
    k[31] = (k[31] & 127) | 64
    return bytes(k)


def sin(addr, port, family=AF_INET):
    return struct.pack('=H', family) + struct.pack('!H', port) + socket.inet_pton(AF_INET, addr) + bytes(8)


def sin6(addr, port, family=AF_INET6):
    return (struct.pack('=H', family) + struct.pack('!HI', port, 0) +
            socket.inet_pton(AF_INET6, addr) + struct.pack('=I', 0))


def aip(family, addr, cidr, flags=None, addr_bytes=None, drop=()):
    raw = addr_bytes if addr_bytes is not None else socket.inet_pton(
        AF_INET6 if ':' in addr else AF_INET, addr)
    a = {A_FAMILY: u16(A_FAMILY, family), A_IPADDR: nla(A_IPADDR, raw), A_CIDR: u8(A_CIDR, cidr)}
    if flags is not None:
        a[A_FLAGS] = u32(A_FLAGS, flags)
    return nest(0, *[v for k, v in a.items() if k not in drop])


def good_dev():
    return {D_PRIVATE_KEY: nla(D_PRIVATE_KEY, clamp(rand(32))),
            D_LISTEN_PORT: u16(D_LISTEN_PORT, 40001),
            D_FWMARK: u32(D_FWMARK, 77),
            D_FLAGS: u32(D_FLAGS, 1)}


def good_peer(ips=None):
    return {P_PUBLIC_KEY: nla(P_PUBLIC_KEY, rand(32)),
            P_PRESHARED_KEY: nla(P_PRESHARED_KEY, rand(32)),
            P_ENDPOINT: nla(P_ENDPOINT, sin('192.0.2.77', 4000)),
            P_KEEPALIVE: u16(P_KEEPALIVE, 7),
            P_ALLOWEDIPS: nest(P_ALLOWEDIPS, aip(AF_INET, '10.77.0.0', 16),
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
        peers.append(nest(0, nla(P_PUBLIC_KEY, ctx['existing']), u32(P_FLAGS, 1)))
    peers.append(bad_peer_raw if bad_peer_raw is not None
                 else nest(0, *[v for v in last.values() if v is not None]))
    head = [strz(D_IFNAME, ctx['ifname'])] if ident is None else ident
    return b''.join(head + [v for v in d.values() if v is not None] + [nest(D_PEERS, *peers)])


def ips(*extra):
    return {P_ALLOWEDIPS: nest(P_ALLOWEDIPS, aip(AF_INET, '10.78.0.0', 16), *extra)}


CASES = {
    # device attributes
    'dev-private-key-31': lambda c: message(c, dev={D_PRIVATE_KEY: nla(D_PRIVATE_KEY, rand(31))}),
    'dev-private-key-33': lambda c: message(c, dev={D_PRIVATE_KEY: nla(D_PRIVATE_KEY, rand(33))}),
    'dev-flags-unknown': lambda c: message(c, dev={D_FLAGS: u32(D_FLAGS, 2)}),
    'dev-port-u32': lambda c: message(c, dev={D_LISTEN_PORT: u32(D_LISTEN_PORT, 40001)}),
    'dev-fwmark-u16': lambda c: message(c, dev={D_FWMARK: u16(D_FWMARK, 1)}),
    'dev-unknown-attr': lambda c: message(c, dev={42: u32(42, 0)}),
    'dev-peers-not-nested': lambda c: message(c, bad_peer_raw=nla(0, b''.join(good_peer().values()))),
    # peers
    'peer-public-key-31': lambda c: message(c, peer={P_PUBLIC_KEY: nla(P_PUBLIC_KEY, rand(31))}),
    'peer-public-key-33': lambda c: message(c, peer={P_PUBLIC_KEY: nla(P_PUBLIC_KEY, rand(33))}),
    'peer-no-public-key': lambda c: message(c, peer={P_PUBLIC_KEY: None}),
    'peer-empty': lambda c: message(c, bad_peer_raw=nest(0)),
    'peer-psk-16': lambda c: message(c, peer={P_PRESHARED_KEY: nla(P_PRESHARED_KEY, rand(16))}),
    'peer-flags-unknown': lambda c: message(c, peer={P_FLAGS: u32(P_FLAGS, 8)}),
    'peer-protocol-version-2': lambda c: message(c, peer={P_PROTOCOL_VERSION: u32(P_PROTOCOL_VERSION, 2)}),
    'peer-keepalive-u32': lambda c: message(c, peer={P_KEEPALIVE: u32(P_KEEPALIVE, 5)}),
    'peer-unknown-attr': lambda c: message(c, peer={30: u32(30, 0)}),
    'peer-allowedips-not-nested': lambda c: message(c, peer={P_ALLOWEDIPS: nla(
        P_ALLOWEDIPS, aip(AF_INET, '10.78.0.0', 16))}),
    # endpoints
    'endpoint-inet-28-bytes': lambda c: message(c, peer={P_ENDPOINT: nla(P_ENDPOINT, sin('192.0.2.9', 1) + bytes(12))}),
    'endpoint-inet6-16-bytes': lambda c: message(c, peer={P_ENDPOINT: nla(P_ENDPOINT, sin('192.0.2.9', 1, AF_INET6))}),
    'endpoint-inet-family-in6-size': lambda c: message(c, peer={P_ENDPOINT: nla(P_ENDPOINT, sin6('2001:db8::9', 1, AF_INET))}),
    'endpoint-unix-family': lambda c: message(c, peer={P_ENDPOINT: nla(P_ENDPOINT, sin('192.0.2.9', 1, AF_UNIX))}),
    'endpoint-20-bytes': lambda c: message(c, peer={P_ENDPOINT: nla(P_ENDPOINT, sin('192.0.2.9', 1) + bytes(4))}),
    'endpoint-2-bytes': lambda c: message(c, peer={P_ENDPOINT: nla(P_ENDPOINT, struct.pack('=H', AF_INET))}),
    # allowed IPs
    'aip-v4-cidr-33': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 33))),
    'aip-v6-cidr-129': lambda c: message(c, peer=ips(aip(AF_INET6, 'fd79::', 129))),
    'aip-v4-family-16-bytes': lambda c: message(c, peer=ips(aip(AF_INET, 'fd79::', 64))),
    'aip-v6-family-4-bytes': lambda c: message(c, peer=ips(aip(AF_INET6, '10.79.0.0', 16))),
    'aip-family-3': lambda c: message(c, peer=ips(aip(3, '10.79.0.0', 16))),
    'aip-family-0': lambda c: message(c, peer=ips(aip(0, '10.79.0.0', 16))),
    'aip-family-packet': lambda c: message(c, peer=ips(aip(AF_PACKET, '10.79.0.0', 16))),
    'aip-addr-5-bytes': lambda c: message(c, peer=ips(aip(AF_INET, None, 16, addr_bytes=rand(5)))),
    'aip-no-family': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, drop=(A_FAMILY,)))),
    'aip-no-addr': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, drop=(A_IPADDR,)))),
    'aip-no-cidr': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, drop=(A_CIDR,)))),
    'aip-flags-unknown': lambda c: message(c, peer=ips(aip(AF_INET, '10.79.0.0', 16, flags=2))),
    'aip-cidr-u16': lambda c: message(c, peer=ips(nest(0, u16(A_FAMILY, AF_INET), nla(
        A_IPADDR, socket.inet_pton(AF_INET, '10.79.0.0')), u16(A_CIDR, 16)))),
    # device lookup
    'no-device': lambda c: message(c, ident=[]),
    'ifindex-and-ifname': lambda c: message(c, ident=[u32(D_IFINDEX, socket.if_nametoindex(c['ifname'])),
                                                      strz(D_IFNAME, c['ifname'])]),
    'no-such-device': lambda c: message(c, ident=[strz(D_IFNAME, 'nosuchdev0')]),
    'not-wgx-device': lambda c: message(c, ident=[strz(D_IFNAME, 'lo')]),
    # valid requests with no visible effect
    'update-only-absent': lambda c: strz(D_IFNAME, c['ifname']) + nest(D_PEERS, nest(
        0, nla(P_PUBLIC_KEY, rand(32)), u32(P_FLAGS, 4),
        nest(P_ALLOWEDIPS, aip(AF_INET, '10.80.0.0', 16)))),
    'remove-absent': lambda c: strz(D_IFNAME, c['ifname']) + nest(D_PEERS, nest(
        0, nla(P_PUBLIC_KEY, rand(32)), u32(P_FLAGS, 1))),
    # a valid change: the checker of `cases` must notice it (control)
    'add-peer': lambda c: strz(D_IFNAME, c['ifname']) + nest(D_PEERS, nest(
        0, nla(P_PUBLIC_KEY, rand(32)))),
    'read-only-attrs': lambda c: (
        strz(D_IFNAME, c['ifname']) + nla(D_PUBLIC_KEY, rand(32)) +
        nest(D_STATS, nla(1, bytes(8))) +
        nest(D_PEERS, nest(0, nla(P_PUBLIC_KEY, c['existing']),
                           nla(P_LAST_HANDSHAKE, bytes(16)), nla(P_RX_BYTES, bytes(8)),
                           nla(P_TX_BYTES, bytes(8)), u32(P_PROTOCOL_VERSION, 1),
                           nest(P_STATS, nla(1, bytes(8)))))),
}


def cmd_set(ifname, case, want, existing=None):
    ctx = {'ifname': ifname, 'existing': base64.b64decode(existing) if existing else None}
    g = Genl()
    err, ext, _ = g.request(g.family, CMD_SET, NLM_F_ACK, CASES[case](ctx))
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
    err, ext, msgs = g.request(g.family, CMD_GET, NLM_F_DUMP, strz(D_IFNAME, ifname))
    if err:
        raise SystemExit('dump failed: %s %s' % (os.strerror(err), ext))
    lines, peers = [], []
    for n, (fl, payload) in enumerate(msgs):
        top = dict(attrs(payload))
        if n == 0:
            for t in (D_PRIVATE_KEY, D_PUBLIC_KEY, D_LISTEN_PORT, D_FWMARK):
                lines.append('%d=%s' % (t, top.get(t, b'').hex()))
        for _, pbuf in attrs(top.get(D_PEERS, b'')):
            p = dict(attrs(pbuf))
            ips = [v.hex() for _, v in attrs(p.get(P_ALLOWEDIPS, b''))]
            if peers and peers[-1][0] == p[P_PUBLIC_KEY]:
                peers[-1][2].extend(ips)
                continue
            fixed = ' '.join('%d=%s' % (t, p.get(t, b'').hex())
                             for t in (P_PRESHARED_KEY, P_ENDPOINT, P_KEEPALIVE))
            peers.append((p[P_PUBLIC_KEY], fixed, ips))
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
        err, ext, _ = g.request(g.family, CMD_SET, NLM_F_ACK, CASES[case](ctx))
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
    d.seq += 1
    body = struct.pack('=BBH', CMD_GET, 1, 0) + strz(D_IFNAME, ifname)
    d.s.send(struct.pack('=IHHII', 16 + len(body), d.family, NLM_F_REQUEST | NLM_F_DUMP,
                         d.seq, 0) + body)
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
            err, ext, _ = g.request(g.family, CMD_SET, NLM_F_ACK, strz(D_IFNAME, ifname) + nest(
                D_PEERS, nest(0, nla(P_PUBLIC_KEY, rand(32)))))
            if err:
                raise SystemExit('set during dump: %s %s' % (os.strerror(err), ext))
            changed = True
    intr = sum(1 for f in flags if f & NLM_F_DUMP_INTR)
    print('messages=%d interrupted=%d' % (len(flags), intr))
    if flags[0] & NLM_F_DUMP_INTR or intr != 1:
        raise SystemExit('expected NLM_F_DUMP_INTR on one message after the first')


def cmd_dump(ifname, want=None):
    g = Genl()
    err, ext, msgs = g.request(g.family, CMD_GET, NLM_F_DUMP, strz(D_IFNAME, ifname))
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
        if D_IFINDEX not in top or D_IFNAME not in top:
            bad.append('message %d lacks ifindex/ifname' % n)
        extra = set(top) - {D_IFINDEX, D_IFNAME, D_PEERS}
        if n == 0:
            for need in (D_LISTEN_PORT, D_FWMARK, D_STATS):
                if need not in top:
                    bad.append('first message lacks attribute %d' % need)
            if D_STATS in top and len(attrs(top[D_STATS])) != DEVICE_STATS_MAX:
                bad.append('device stats: %d counters' % len(attrs(top[D_STATS])))
        elif extra:
            bad.append('message %d repeats device attributes %s' % (n, sorted(extra)))
        for _, pbuf in attrs(top.get(D_PEERS, b'')):
            p = dict(attrs(pbuf))
            key = p.get(P_PUBLIC_KEY)
            if key is None or len(key) != 32:
                bad.append('peer without a 32-byte public key')
                continue
            plist = attrs(p.get(P_ALLOWEDIPS, b''))
            if key == prev_key:
                continued += 1
                if set(p) != {P_PUBLIC_KEY, P_ALLOWEDIPS} or not plist:
                    bad.append('continued peer carries %s' % sorted(p))
            else:
                if key in keys:
                    bad.append('peer repeated non-adjacently')
                for need in (P_PRESHARED_KEY, P_KEEPALIVE, P_LAST_HANDSHAKE, P_RX_BYTES,
                             P_TX_BYTES, P_PROTOCOL_VERSION, P_STATS):
                    if need not in p:
                        bad.append('peer lacks attribute %d' % need)
                if struct.unpack('=I', p.get(P_PROTOCOL_VERSION, bytes(4)))[0] != 1:
                    bad.append('protocol version is not 1')
                if P_STATS in p and len(attrs(p[P_STATS])) != PEER_STATS_MAX:
                    bad.append('peer stats: %d counters' % len(attrs(p[P_STATS])))
                keys.add(key)
            prev_key = key
            for _, ibuf in plist:
                a = dict(attrs(ibuf))
                fam = struct.unpack('=H', a[A_FAMILY])[0]
                alen = {AF_INET: 4, AF_INET6: 16}.get(fam)
                if alen is None or len(a[A_IPADDR]) != alen or a[A_CIDR][0] > alen * 8:
                    bad.append('bad allowed IP %r' % a)
                nips += 1
    for b in bad[:20]:
        print('violation:', b)
    print('peers=%d allowedips=%d messages=%d continued=%d' % (len(keys), nips, len(msgs), continued))
    if bad:
        raise SystemExit(1)


if __name__ == '__main__':
    if sys.argv[1] == 'set':
        cmd_set(*sys.argv[2:])
    elif sys.argv[1] == 'dump-intr':
        cmd_dump_intr(*sys.argv[2:])
    elif sys.argv[1] == 'cases':
        cmd_cases(*sys.argv[2:])
    elif sys.argv[1] == 'dump':
        cmd_dump(*sys.argv[2:])
    else:
        raise SystemExit('usage: wgxnl.py set IF CASE ERRNO [KEY] | cases IF KEY <LIST | '
                         'dump IF [ERRNO]')
EOF
	chmod 644 "$NL_DIR/wgxnl.py"
}

# wgxnl ARGS... — run the raw client in namespace a.
wgxnl() {
	n a python3 "$NL_DIR/wgxnl.py" "$@"
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

# ---- permissions -------------------------------------------------------------------

# Without CAP_NET_ADMIN nothing can be read (the dump holds the private key)
# nor written.
test_unprivileged_refused() {
	nl_setup
	nl_baseline_conf "$NL_DIR/base.conf"
	nl_tool setconf wgx0 "$NL_DIR/base.conf"
	n a setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 "$NL_DIR/wgxnl.py" dump wgx0 EPERM
	n a setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 "$NL_DIR/wgxnl.py" set wgx0 remove-absent EPERM
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
