# SPDX-License-Identifier: GPL-2.0
"""dropin_raw.py - raw generic netlink checks of the "wireguard" family that
wgx serves in drop-in mode (tests/integration/dropin.sh), over the client of
tests/lib/wgx_uapi.py.  The attribute numbers are the uapi header's; the
WireGuard limits (last device/peer/allowed-IP attribute) are read from the
kernel's own <linux/wireguard.h> (WGX_WIREGUARD_HEADER, default
/usr/include/linux/wireguard.h), not typed here.

    dropin_raw.py check WGDEV WGXDEV PEER_B64
        WGDEV: a wgx device of link kind "wireguard" with the peer PEER_B64
        (with at least one allowed IP and an endpoint); WGXDEV: one of kind
        "wgx".  Checks, printing one line per check:
        - a dump through "wireguard" holds only WireGuard's attributes, at
          every level, and the same configuration as one through "wgx";
        - the "wgx" family serves the same device with wgx's counters;
        - requests through "wireguard" carrying a wgx extension attribute
          fail with EINVAL as an unknown attribute does in WireGuard, a key
          of the wrong length with ERANGE (WireGuard's policy), and an
          endpoint of odd size is ignored; after each, the device is as
          before;
        - "wireguard" refuses the "wgx"-kind device with EOPNOTSUPP.
"""
import base64
import errno
import os
import re
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from wgx_uapi import (AF_INET, AIP, AIP_F, CMD, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME,  # noqa: E402
                      CTRL_CMD_GETFAMILY, DEV, GENL_ID_CTRL, NLM_F_ACK, NLM_F_DUMP, PEER,
                      Genl, attrs, nest, nla, sin, strz, u16, u32)

WG_HEADER = os.environ.get('WGX_WIREGUARD_HEADER', '/usr/include/linux/wireguard.h')


def wireguard_limits():
    """(last device, last peer, last allowed-IP attribute) of <linux/wireguard.h>."""
    with open(WG_HEADER) as f:
        text = re.sub(r'/\*.*?\*/', ' ', f.read(), flags=re.S)
    out = []
    for enum in ('wgdevice_attribute', 'wgpeer_attribute', 'wgallowedip_attribute'):
        body = re.search(r'enum\s+%s\s*\{(.*?)\}' % enum, text, flags=re.S).group(1)
        names = [x.strip().split('=')[0].strip() for x in body.split(',') if x.strip()]
        # WG*_A_UNSPEC is 0, the __WG*_A_LAST sentinel last: the last real one is len - 2.
        out.append(len(names) - 2)
    return tuple(out)


DEV_MAX, PEER_MAX, AIP_MAX = wireguard_limits()
failures = 0


def check(ok, what):
    global failures
    print('%s: %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures += 1


def family_id(g, name):
    err, _, msgs = g.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
                             strz(CTRL_ATTR_FAMILY_NAME, name))
    if err:
        raise SystemExit('cannot resolve genl family %s: %s' % (name, os.strerror(err)))
    return [struct.unpack('=H', v[:2])[0] for t, v in attrs(msgs[0][1]) if t == CTRL_ATTR_FAMILY_ID][0]


def dump(g, fam, ifname):
    """(errno, [message attribute lists])."""
    err, _, msgs = g.request(fam, CMD.GET_DEVICE, NLM_F_DUMP, strz(DEV.IFNAME, ifname))
    return err, [attrs(m) for _, m in msgs]


def types_beyond(msgs):
    """Attribute types above WireGuard's at any level of a dump: [(level, type)]."""
    bad = []
    for msg in msgs:
        for t, v in msg:
            if t > DEV_MAX:
                bad.append(('device', t))
            if t != DEV.PEERS:
                continue
            for _, peer in attrs(v):
                for pt, pv in attrs(peer):
                    if pt > PEER_MAX:
                        bad.append(('peer', pt))
                    if pt != PEER.ALLOWEDIPS:
                        continue
                    for _, ip in attrs(pv):
                        bad += [('allowed IP', at) for at, _ in attrs(ip) if at > AIP_MAX]
    return bad


def config(msgs):
    """The configuration in a dump, without counters, handshake times and
    wgx's extension attributes: comparable between the two families."""
    dev, peers = {}, []
    for msg in msgs:
        for t, v in msg:
            if t == DEV.PEERS:
                for _, peer in attrs(v):
                    p = {}
                    for pt, pv in attrs(peer):
                        if pt == PEER.ALLOWEDIPS:
                            p[pt] = sorted(tuple(sorted(attrs(ip))) for _, ip in attrs(pv))
                        elif pt in (PEER.PUBLIC_KEY, PEER.PRESHARED_KEY, PEER.ENDPOINT,
                                    PEER.PERSISTENT_KEEPALIVE_INTERVAL, PEER.PROTOCOL_VERSION):
                            p[pt] = pv
                    peers.append(p)
            elif t in (DEV.PRIVATE_KEY, DEV.PUBLIC_KEY, DEV.LISTEN_PORT, DEV.FWMARK, DEV.IFNAME):
                dev[t] = v
    return dev, sorted(peers, key=lambda p: p.get(PEER.PUBLIC_KEY, b''))


def main():
    if len(sys.argv) != 5 or sys.argv[1] != 'check':
        raise SystemExit(__doc__)
    wgdev, wgxdev, peer_b64 = sys.argv[2:5]
    peer_key = base64.b64decode(peer_b64)
    g = Genl()
    wg_fam, wgx_fam = family_id(g, 'wireguard'), g.family

    err, wg_msgs = dump(g, wg_fam, wgdev)
    check(err == 0 and wg_msgs, 'dump of %s through "wireguard" (errno %d)' % (wgdev, err))
    bad = types_beyond(wg_msgs)
    check(not bad, 'only WireGuard attributes (device <= %d, peer <= %d, allowed IP <= %d) in it%s'
          % (DEV_MAX, PEER_MAX, AIP_MAX, ': beyond: %s' % bad if bad else ''))
    err, wgx_msgs = dump(g, wgx_fam, wgdev)
    check(err == 0 and any(t == DEV.STATS for m in wgx_msgs for t, _ in m),
          'the "wgx" family serves %s too, with its counters (errno %d)' % (wgdev, err))
    before = config(wg_msgs)
    check(before == config(wgx_msgs) and before[1], 'both families dump the same configuration')

    def unchanged(what):
        e, msgs = dump(g, wg_fam, wgdev)
        check(e == 0 and config(msgs) == before, 'device unchanged after %s' % what)

    def set_expect(payload, want, what):
        e, ext, _ = g.request(wg_fam, CMD.SET_DEVICE, NLM_F_ACK, strz(DEV.IFNAME, wgdev) + payload)
        check(e == want, '%s: %s (got %s)' % (what, errno.errorcode.get(want, want) if want else 'accepted',
                                              errno.errorcode.get(e, e) if e else 'success'))
        unchanged(what)

    peer = lambda *kids: nest(DEV.PEERS, nest(0, nla(PEER.PUBLIC_KEY, peer_key), *kids))  # noqa: E731
    set_expect(u16(DEV.LISTEN_PORTS, 2), errno.EINVAL, 'WGX_DEVICE_A_LISTEN_PORTS through "wireguard"')
    set_expect(nest(DEV.STATS), errno.EINVAL, 'WGX_DEVICE_A_STATS through "wireguard"')
    set_expect(peer(nest(PEER.STATS)), errno.EINVAL, 'WGX_PEER_A_STATS through "wireguard"')
    set_expect(peer(nest(PEER.ALLOWEDIPS, nest(0, u16(AIP.FAMILY, AF_INET),
                                               nla(AIP.IPADDR, bytes([10, 9, 9, 0])),
                                               nla(AIP.CIDR_MASK, bytes([24])),
                                               u32(AIP.FLAGS, AIP_F.REMOVE_ME)))),
               errno.EINVAL, 'WGX_ALLOWEDIP_A_FLAGS through "wireguard"')
    set_expect(nla(DEV.PRIVATE_KEY, bytes(31)), errno.ERANGE, '31-byte private key through "wireguard"')
    # 20 bytes claiming AF_INET: WireGuard's policy (>= 16 bytes) lets it in, then ignores it.
    set_expect(peer(nla(PEER.ENDPOINT, sin('192.0.2.99', 9) + bytes(4))), 0,
               '20-byte endpoint through "wireguard" (ignored)')
    e, _, _ = g.request(wgx_fam, CMD.SET_DEVICE, NLM_F_ACK, strz(DEV.IFNAME, wgdev) +
                        peer(nla(PEER.ENDPOINT, sin('192.0.2.99', 9) + bytes(4))))
    check(e == errno.EINVAL, 'the same endpoint through "wgx": EINVAL (got %s)' % errno.errorcode.get(e, e))
    unchanged('the odd endpoint through "wgx"')

    err, _ = dump(g, wg_fam, wgxdev)
    check(err == errno.EOPNOTSUPP, '"wireguard" refuses %s of kind wgx: EOPNOTSUPP (got %s)'
          % (wgxdev, errno.errorcode.get(err, err)))
    e, _, _ = g.request(wg_fam, CMD.SET_DEVICE, NLM_F_ACK, strz(DEV.IFNAME, wgxdev) + u32(DEV.FWMARK, 0))
    check(e == errno.EOPNOTSUPP, '... and a SET_DEVICE of it: EOPNOTSUPP (got %s)' % errno.errorcode.get(e, e))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
