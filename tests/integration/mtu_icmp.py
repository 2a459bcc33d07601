#!/usr/bin/env python3
"""Send one forged ICMP "fragmentation needed" (IPv4, type 3 code 4) to DEST.

usage: mtu_icmp.py DEST MTU QUOTED_SRC:SPORT QUOTED_DST:DPORT QUOTED_LEN [MSGTYPE [COUNT]]

The ICMP quotes an IPv4 header (DF set, protocol UDP, total length
QUOTED_LEN) from QUOTED_SRC to QUOTED_DST and a UDP header SPORT -> DPORT,
followed by the first 4 bytes of a WireGuard message of type MSGTYPE (little
endian, reserved bytes zero); no payload without MSGTYPE.  The kernel picks
the ICMP's own source address (a raw ICMP socket).  With COUNT, sends it
COUNT times back to back (a flood) and prints the seconds that took.
"""
import socket
import struct
import sys
import time


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def main() -> None:
    if len(sys.argv) not in (6, 7, 8):
        sys.exit(__doc__)
    dest, mtu = sys.argv[1], int(sys.argv[2])
    qsrc, sport = sys.argv[3].rsplit(":", 1)
    qdst, dport = sys.argv[4].rsplit(":", 1)
    qlen = int(sys.argv[5])
    payload = struct.pack("<I", int(sys.argv[6])) if len(sys.argv) >= 7 else b""
    count = int(sys.argv[7]) if len(sys.argv) == 8 else 0
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, qlen, 0x1234, 0x4000, 64, socket.IPPROTO_UDP, 0,
                      socket.inet_aton(qsrc), socket.inet_aton(qdst))
    iph = iph[:10] + struct.pack("!H", checksum(iph)) + iph[12:]
    udph = struct.pack("!HHHH", int(sport), int(dport), qlen - 20, 0)
    body = struct.pack("!HH", 0, mtu) + iph + udph + payload
    icmp = struct.pack("!BBH", 3, 4, 0) + body
    icmp = icmp[:2] + struct.pack("!H", checksum(icmp)) + icmp[4:]
    with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP) as s:
        if not count:
            s.sendto(icmp, (dest, 0))
            return
        start = time.monotonic()
        for _ in range(count):
            s.sendto(icmp, (dest, 0))
        print("%.3f" % (time.monotonic() - start))


if __name__ == "__main__":
    main()
