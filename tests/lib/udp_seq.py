#!/usr/bin/env python3
"""udp_seq.py - send numbered UDP datagrams over several flows and check, at
the receiver, that every flow arrived in order.

  udp_seq.py recv PORT FLOWS TOTAL TIMEOUT   print "received N reordered R lost L"
  udp_seq.py send ADDR PORT FLOWS TOTAL [TOS [SIZE [TIMEOUT]]]

The sender sends TOTAL datagrams round robin over FLOWS source ports (one
flow each: a socket per flow), each carrying (flow, sequence); TOS (an
integer, default 0) is set on every second datagram of each flow, so one
flow mixes marked and unmarked packets; SIZE is each datagram's payload in
bytes (default 208, at least 8).  The sender gives up, exiting 1 with a
message on stderr, when it has not sent them all within TIMEOUT seconds
(default 300) or one datagram could not be sent for 30 s: a broken path
fails the caller instead of hanging it.  The receiver counts, per flow,
datagrams whose sequence is lower than one already seen (reordered) and
missing ones (lost), and exits 0 when it saw no reordering and at least half
of TOTAL arrived (loss is the network's business; order is the tunnel's).
"""
import select
import socket
import struct
import sys
import time

FMT = "!II"


def recv(port, flows, total, timeout):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # A receive buffer for the whole burst: a slow receiver (a TCG guest)
    # otherwise drops at its own socket (RcvbufErrors) what the tunnel
    # delivered.  SO_RCVBUF is capped by net.core.rmem_max (208 KB by
    # default); root (CAP_NET_ADMIN) goes past it with SO_RCVBUFFORCE (33 on
    # Linux; not every Python names it).
    try:
        s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 64 << 20)
    except PermissionError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", port))
    print("ready", flush=True)
    highest = [-1] * flows
    received = reordered = 0
    deadline = time.time() + timeout
    idle_after_first = None
    while received < total and time.time() < deadline:
        r, _, _ = select.select([s], [], [], 1.0)
        if not r:
            if idle_after_first is not None and time.time() - idle_after_first > 2:
                break
            continue
        data = s.recv(2048)
        flow, seq = struct.unpack_from(FMT, data)
        if flow >= flows:
            continue
        received += 1
        idle_after_first = time.time()
        if seq < highest[flow]:
            reordered += 1
        else:
            highest[flow] = seq
    lost = total - received
    print("received %d reordered %d lost %d" % (received, reordered, lost))
    return 0 if reordered == 0 and received * 2 >= total else 1


# A datagram that cannot be sent for this long never will be.
SEND_STALL = 30


def send(addr, port, flows, total, tos, size, timeout):
    start = time.monotonic()
    deadline = start + timeout
    socks = []
    for _ in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect((addr, port))
        socks.append(s)
    pad = b"\0" * (max(size, 8) - struct.calcsize(FMT))
    for i in range(total):
        flow = i % flows
        seq = i // flows
        s = socks[flow]
        if tos:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos if seq % 2 else 0)
        # The clock read every 256 datagrams, not each: a TCG guest's
        # Python is slow enough.
        if i % 256 == 0 and time.monotonic() > deadline:
            sys.stderr.write("udp_seq.py send: %d of %d datagrams sent in %g s, giving up\n"
                             % (i, total, timeout))
            return 1
        stalled = None
        while True:
            try:
                s.send(struct.pack(FMT, flow, seq) + pad)
                break
            except OSError as e:
                # ENOBUFS (or EAGAIN) when the device queue is full: retry,
                # order intact; not for ever.
                now = time.monotonic()
                if stalled is None:
                    stalled = now
                if now - stalled > SEND_STALL or now > deadline:
                    sys.stderr.write("udp_seq.py send: datagram %d of %d not sent for %.0f s"
                                     " (%.0f s in all), giving up: %s\n"
                                     % (i, total, now - stalled, now - start, e))
                    return 1
                time.sleep(0.001)
    return 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "recv":
        return recv(int(argv[2]), int(argv[3]), int(argv[4]), float(argv[5]) if len(argv) > 5 else 60)
    if len(argv) >= 6 and argv[1] == "send":
        return send(argv[2], int(argv[3]), int(argv[4]), int(argv[5]),
                    int(argv[6]) if len(argv) > 6 else 0, int(argv[7]) if len(argv) > 7 else 208,
                    float(argv[8]) if len(argv) > 8 else 300)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
