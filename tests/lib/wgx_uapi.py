# SPDX-License-Identifier: GPL-2.0
"""wgx_uapi - a raw generic netlink client of the "wgx" family, for tests.

The command, attribute and flag numbers are read at import time from the
uapi header itself, include/uapi/linux/wgx.h (found relative to this file,
or at $WGX_UAPI_HEADER), so the tests speak exactly the ABI the module and
the wgx tool are built from; nothing here re-types them.  The numbers of
netlink itself (nlmsghdr flags, the genetlink controller) are the kernel's
stable ABI and are spelled out below.

The wgx tool (tools/wgx, C++) is the client users run, and the benchmarks
link its library; this one exists for what the tool never sends: malformed
attributes, raw dump layouts, requests at odd moments.  Use:

    from wgx_uapi import Genl, DEV, PEER, AIP, nla, nest, u32, strz
    g = Genl()
    err, extack, msgs = g.request(g.family, CMD.GET_DEVICE, NLM_F_DUMP,
                                  strz(DEV.IFNAME, 'wgx0'))
"""
import os
import re
import socket
import struct

HEADER = os.environ.get('WGX_UAPI_HEADER') or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'include', 'uapi', 'linux', 'wgx.h')


# ---- the uapi header ---------------------------------------------------------

def _c_value(expr, known):
    """Value of a C constant expression of the header: integer literals
    (with U/L suffixes), names defined before, | << + - ( ), or a string."""
    expr = ' '.join(expr.split())
    if expr.startswith('"') and expr.endswith('"'):
        return expr[1:-1]
    py = re.sub(r'\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b', r'\1', expr)
    if not re.fullmatch(r'[\w\s|<>+\-()]*', py):
        raise ValueError(expr)
    return eval(py, {'__builtins__': {}}, dict(known))


def parse_header(path=HEADER):
    """{NAME: value} of every enumerator and object-like #define of @path."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise SystemExit('wgx_uapi: cannot read the uapi header %s: %s' % (path, e.strerror))
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    names = {}
    # Enumerators and defines in the order they appear: a define may use an
    # enumerator (WGX_CMD_MAX) and an enumerator a define.
    for m in re.finditer(r'\benum\s+\w*\s*\{(.*?)\}\s*;|^[ \t]*#define[ \t]+(\w+)[ \t]+([^\n]+)',
                         text, flags=re.S | re.M):
        if m.group(1) is None:
            try:
                names[m.group(2)] = _c_value(m.group(3), names)
            except (ValueError, NameError, SyntaxError):
                pass  # not a constant (an include guard, a function-like macro)
            continue
        value = -1
        for item in m.group(1).split(','):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition('=')
            value = _c_value(expr, names) if expr.strip() else value + 1
            names[name.strip()] = value
    return names


class _Prefixed:
    """The names of UAPI starting with @prefix, without it: DEV.IFNAME."""

    def __init__(self, prefix):
        self._prefix = prefix
        self._names = {k[len(prefix):]: v for k, v in UAPI.items() if k.startswith(prefix)}
        if not self._names:
            raise SystemExit('wgx_uapi: no %s* names in %s' % (prefix, HEADER))

    def __getattr__(self, name):
        try:
            return self._names[name]
        except KeyError:
            raise AttributeError('%s: no %s%s' % (HEADER, self._prefix, name)) from None


UAPI = parse_header()
GENL_NAME = UAPI['WGX_GENL_NAME']
GENL_VERSION = UAPI['WGX_GENL_VERSION']
KEY_LEN = UAPI['WGX_NL_KEY_LEN']
CMD = _Prefixed('WGX_CMD_')
DEV = _Prefixed('WGX_DEVICE_A_')
DEV_F = _Prefixed('WGX_DEVICE_F_')
GET_F = _Prefixed('WGX_GET_F_')
PEER = _Prefixed('WGX_PEER_A_')
PEER_F = _Prefixed('WGX_PEER_F_')
AIP = _Prefixed('WGX_ALLOWEDIP_A_')
AIP_F = _Prefixed('WGX_ALLOWEDIP_F_')
DEV_STATS = _Prefixed('WGX_DEVICE_STATS_A_')
PEER_STATS = _Prefixed('WGX_PEER_STATS_A_')
PEER_STATS_MAX = PEER_STATS.MAX
DEVICE_STATS_MAX = DEV_STATS.MAX

# ---- netlink and genetlink (linux/netlink.h, linux/genetlink.h) --------------

AF_UNIX, AF_INET, AF_INET6, AF_PACKET = 1, 2, 10, 17
NETLINK_GENERIC = 16
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x2, 0x4, 0x300
NLM_F_DUMP_INTR, NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x10, 0x100, 0x200
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED, NLA_TYPE_MASK = 0x8000, 0x3fff
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 0x10, 3, 1, 2
NLMSGERR_ATTR_MSG = 1


# ---- attributes -------------------------------------------------------------

def nla(t, data):
    """One attribute of type @t holding the bytes @data, padded to 4 bytes."""
    n = 4 + len(data)
    return struct.pack('=HH', n, t) + data + bytes((4 - n % 4) % 4)


def nest(t, *kids):
    """A nested attribute (NLA_F_NESTED) holding the encoded attributes @kids."""
    return nla(t | NLA_F_NESTED, b''.join(kids))


def u8(t, v): return nla(t, struct.pack('=B', v))
def u16(t, v): return nla(t, struct.pack('=H', v))
def u32(t, v): return nla(t, struct.pack('=I', v))
def strz(t, s): return nla(t, s.encode() + b'\0')


def attrs(buf):
    """[(type, payload)] of the attributes in @buf, the nested flag masked off."""
    out, i = [], 0
    while i + 4 <= len(buf):
        n, t = struct.unpack_from('=HH', buf, i)
        if n < 4 or i + n > len(buf):
            raise SystemExit('malformed attribute at %d' % i)
        out.append((t & NLA_TYPE_MASK, buf[i + 4:i + n]))
        i += (n + 3) & ~3
    return out


def sin(addr, port, family=AF_INET):
    """A struct sockaddr_in (16 bytes); @family may lie, for malformed cases."""
    return struct.pack('=H', family) + struct.pack('!H', port) + socket.inet_pton(AF_INET, addr) + bytes(8)


def sin6(addr, port, family=AF_INET6):
    """A struct sockaddr_in6 (28 bytes); @family may lie, for malformed cases."""
    return (struct.pack('=H', family) + struct.pack('!HI', port, 0) +
            socket.inet_pton(AF_INET6, addr) + struct.pack('=I', 0))


# ---- the client ---------------------------------------------------------------

class Genl:
    """A generic netlink socket with extended acks, and the family id of "wgx"."""

    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.s.bind((0, 0))
        self.seq = 0
        err, _, msgs = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK,
                                    strz(CTRL_ATTR_FAMILY_NAME, GENL_NAME))
        if err:
            raise SystemExit('cannot resolve genl family %s: %s' % (GENL_NAME, os.strerror(err)))
        self.family = [struct.unpack('=H', v[:2])[0] for t, v in attrs(msgs[0][1])
                       if t == CTRL_ATTR_FAMILY_ID][0]

    def send(self, family, cmd, flags, payload):
        """Send one request (NLM_F_REQUEST | @flags) without reading the answer."""
        self.seq += 1
        body = struct.pack('=BBH', cmd, GENL_VERSION, 0) + payload
        self.s.send(struct.pack('=IHHII', 16 + len(body), family,
                                NLM_F_REQUEST | flags, self.seq, 0) + body)

    def request(self, family, cmd, flags, payload):
        """Returns (errno, extack message, [(nlmsg_flags, attribute payload)])."""
        self.send(family, cmd, flags, payload)
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
                    ext = ''
                    if fl & NLM_F_ACK_TLVS:  # an error that ended a dump, with extack after the errno
                        for t, v in attrs(msg[4:]):
                            if t == NLMSGERR_ATTR_MSG:
                                ext = v.rstrip(b'\0').decode()
                    return -struct.unpack_from('=i', msg)[0] if len(msg) >= 4 else 0, ext, msgs
                msgs.append((fl, msg[4:]))
                if not (flags & NLM_F_DUMP) and not (fl & NLM_F_MULTI) and not (flags & NLM_F_ACK):
                    return 0, '', msgs
