#!/usr/bin/env python3
"""bench/rotgap.py — a paced UDP flow and its receiver, for the
data-path gap during a key rotation (`make bench`'s rotation workload,
bench/run-guest.sh rot_kind).

  rotgap.py recv PORT OUT READY DONE MAXSECONDS
      Bind 0.0.0.0:PORT, create READY once bound, then read every datagram
      with the kernel's receive timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME,
      the clock of bash's $EPOCHREALTIME, taken when the datagram reached
      the socket: a receiver that lags behind does not move it) until DONE
      exists and no datagram came for 1 s, or MAXSECONDS in all.  The
      socket's buffer is forced to 64 MiB (SO_RCVBUFFORCE) so that a slow
      reader (Python under TCG) does not drop; what the socket dropped
      anyway is counted (SO_RXQ_OVFL: socket_drops).  Writes
      OUT (JSON): delivered (distinct sequence numbers), duplicates,
      reordered, the longest interval between two consecutive deliveries
      (gap_ms, with the epoch times it began and ended and the sequence
      numbers around it), the three longest, inter-arrival p50/p99 (ms) and
      the one-way delay p50/p99/max (ms; sender and receiver share the
      guest's clock).
  rotgap.py send ADDR PORT RATE SECONDS OUT
      RATE datagrams per second to ADDR:PORT for SECONDS, on an absolute
      schedule (a late send goes at once, so a stall is caught up rather
      than stretching the run); each carries its sequence number (from 0)
      and send time.  Writes OUT (JSON): sent, the epoch times of the
      first and last send, and the sender's own longest interval between
      two sends (max_send_gap_ms: a gap at the receiver shorter than that
      is the sender's, not the tunnel's), send errors.

Payload: 8-byte big-endian sequence number, 8-byte double send time,
padding to 64 bytes.  Standard library only; one process each, so under
TCG its start-up is paid once.
"""
import json
import os
import socket
import struct
import sys
import time

FMT = "!Qd"
# asm-generic/socket.h (x86 too); SCM_TIMESTAMPNS is SO_TIMESTAMPNS.
SO_RCVBUFFORCE = 33
SO_TIMESTAMPNS = 35
SO_RXQ_OVFL = 40
SIZE = 64


def pct(vals, q):
    """Nearest-rank percentile q (0..100) of a sorted list."""
    if not vals:
        return None
    rank = max(1, -(-len(vals) * q // 100))
    return vals[int(rank) - 1]


def recv(port, out, ready, done, max_seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.2)
    open(ready, "w").close()
    t_start = time.time()
    done_at = None
    last_rx = t_start
    ovfl = 0
    arrivals = []  # (arrival time, seq, send time)
    while True:
        now = time.time()
        if now - t_start > max_seconds:
            break
        if done_at is None and os.path.exists(done):
            done_at = now
        if done_at is not None and now - done_at > 1.0 and now - last_rx > 1.0:
            break
        try:
            data, anc, _, _ = s.recvmsg(2048, 256)
        except socket.timeout:
            continue
        last_rx = time.time()
        t = None
        for level, typ, d in anc:
            if level != socket.SOL_SOCKET:
                continue
            if typ == SO_TIMESTAMPNS and len(d) >= 16:
                sec, nsec = struct.unpack_from("qq", d)
                t = sec + nsec * 1e-9
            elif typ == SO_RXQ_OVFL and len(d) >= 4:
                ovfl = struct.unpack_from("I", d)[0]
        if t is None:
            t = last_rx
        if len(data) >= struct.calcsize(FMT):
            seq, sent = struct.unpack_from(FMT, data)
            arrivals.append((t, seq, sent))
    arrivals.sort()
    seen = set()
    dup = reordered = 0
    highest = -1
    for _, seq, _ in arrivals:
        if seq in seen:
            dup += 1
            continue
        seen.add(seq)
        if seq < highest:
            reordered += 1
        highest = max(highest, seq)
    gaps = []
    for i in range(1, len(arrivals)):
        a, b = arrivals[i - 1], arrivals[i]
        gaps.append((b[0] - a[0], a[0], b[0], a[1], b[1]))
    inter = sorted(g[0] * 1000.0 for g in gaps)
    longest = sorted(gaps, reverse=True)[:3]
    delays = sorted((t - sent) * 1000.0 for t, _, sent in arrivals)
    res = {
        "delivered": len(seen),
        "received": len(arrivals),
        "duplicates": dup,
        "socket_drops": ovfl,
        "rcvbuf": s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
        "reordered": reordered,
        "highest_seq": highest,
        "first_epoch": arrivals[0][0] if arrivals else None,
        "last_epoch": arrivals[-1][0] if arrivals else None,
        "gap_ms": longest[0][0] * 1000.0 if longest else None,
        "gaps": [{"ms": g[0] * 1000.0, "from_epoch": g[1], "to_epoch": g[2], "seq_before": g[3],
                  "seq_after": g[4]} for g in longest],
        "inter_p50_ms": pct(inter, 50),
        "inter_p99_ms": pct(inter, 99),
        "delay_p50_ms": pct(delays, 50),
        "delay_p99_ms": pct(delays, 99),
        "delay_max_ms": delays[-1] if delays else None,
    }
    with open(out, "w") as f:
        json.dump(res, f)
        f.write("\n")


def send(addr, port, rate, seconds, out):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pad = b"\0" * (SIZE - struct.calcsize(FMT))
    n = int(rate * seconds)
    period = 1.0 / rate
    errors = 0
    first_err = None
    max_gap = 0.0
    t0 = time.time()
    prev = None
    for i in range(n):
        due = t0 + i * period
        now = time.time()
        if due > now:
            time.sleep(due - now)
        now = time.time()
        try:
            s.sendto(struct.pack(FMT, i, now) + pad, (addr, port))
        except OSError as e:
            errors += 1
            first_err = first_err or str(e)
        if prev is not None and now - prev > max_gap:
            max_gap = now - prev
        prev = now
    res = {"sent": n, "rate": rate, "first_epoch": t0, "last_epoch": prev, "max_send_gap_ms": max_gap * 1000.0,
           "send_errors": errors, "first_error": first_err}
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f)
        f.write("\n")
    os.rename(tmp, out)


def main():
    a = sys.argv[1:]
    if len(a) == 6 and a[0] == "recv":
        recv(int(a[1]), a[2], a[3], a[4], float(a[5]))
    elif len(a) == 6 and a[0] == "send":
        send(a[1], int(a[2]), float(a[3]), float(a[4]), a[5])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
