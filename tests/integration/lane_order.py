#!/usr/bin/env python3
# lane_order.py send|recv — the per-flow order check of lane.sh.
#
# send ADDR PORT FLOWS COUNT: FLOWS connected UDP sockets (one inner flow
#   each) send COUNT datagrams apiece, round robin, as fast as the stack
#   takes them; each carries "flow seq" and alternates, in runs of three,
#   between DSCP EF (the priority lane's) and DSCP 0 (bulk), set per packet
#   with IP_TOS.  Datagrams the full queue refuses (ENOBUFS) are skipped.
# recv ADDR PORT: counts datagrams until 3 s of silence, then prints
#   "received N reordered R flows F": R counts datagrams whose seq is below
#   one already seen on their flow.
import socket
import sys


def send(addr, port, flows, count):
    socks = []
    for _ in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect((addr, port))
        socks.append(s)
    for seq in range(count):
        for f, s in enumerate(socks):
            tos = 0xb8 if (seq // 3 + f) % 2 else 0
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
            try:
                s.send(b"%d %d " % (f, seq) + b"x" * 40)
            except OSError:
                pass


def recv(addr, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((addr, port))
    s.settimeout(20)
    last = {}
    received = reordered = 0
    try:
        while True:
            data = s.recv(2048)
            s.settimeout(3)
            f, seq = data.split()[:2]
            received += 1
            if seq and int(seq) < last.get(f, -1):
                reordered += 1
            last[f] = max(last.get(f, -1), int(seq))
    except socket.timeout:
        pass
    print("received %d reordered %d flows %d" % (received, reordered, len(last)))


if sys.argv[1] == "send":
    send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
else:
    recv(sys.argv[2], int(sys.argv[3]))
