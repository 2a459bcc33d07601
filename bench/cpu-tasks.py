#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/cpu-tasks.py SECONDS [TOP] - which tasks, and which kinds of CPU time,
use the guest's CPUs over the next SECONDS: a bed check for the benchmark's
"background" (what runs while the bench itself is idle).

Prints one JSON object: {"seconds": S, "cpu": {"user": s, "system": s,
"irq": s, "softirq": s, ...}, "tasks": [{"tid": T, "comm": C, "cpu_s": s},
...]} with the TOP (default 8) busiest threads (utime + stime from
/proc/PID/task/TID/stat, in seconds), busiest first.  A thread that starts
inside the window is counted from its start; one that exits inside it is
not counted (its time still shows in "cpu")."""
import json
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_line():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def threads():
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir("/proc/%s/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
                    s = f.read()
            except OSError:
                continue
            comm = s[s.index("(") + 1:s.rindex(")")]
            rest = s[s.rindex(")") + 2:].split()
            out[int(tid)] = (comm, int(rest[11]) + int(rest[12]))
    return out


def main():
    secs = float(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    # The thread scans (thousands of threads on the storm bed) stay outside
    # the window of the "cpu" figures.
    t0 = threads()
    c0, w0 = cpu_line(), time.monotonic()
    time.sleep(secs)
    c1, w1 = cpu_line(), time.monotonic()
    t1 = threads()
    tasks = []
    for tid, (comm, ticks) in t1.items():
        d = ticks - t0.get(tid, (comm, 0))[1]
        if d > 0:
            tasks.append({"tid": tid, "comm": comm, "cpu_s": d / HZ})
    tasks.sort(key=lambda t: -t["cpu_s"])
    print(json.dumps({"seconds": round(w1 - w0, 3),
                      "cpu": {k: (b - a) / HZ for k, a, b in zip(FIELDS, c0, c1)},
                      "tasks": tasks[:top]}))


main()
