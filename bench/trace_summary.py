#!/usr/bin/env python3
"""bench/trace_summary.py TRACE — the timeline of one traced storm wave
(scripts/bench --storm-trace): for each traced function, how often it ran
and when, in ms after the marker "wgx-bench wave start" (first, median,
90th percentile, last), and on which CPUs; sorted by median time, so the
table reads as the order of the handshake's steps."""
import re
import sys

from report import pct  # nearest rank, as every other bench figure

LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+(?P<what>.*)$")


def main(path):
    start = None
    calls = {}
    lost = []
    with open(path, errors="replace") as f:
        for line in f:
            if "LOST" in line and "EVENTS" in line:
                lost.append(line.strip())
                continue
            m = LINE.match(line)
            if not m:
                continue
            ts, what = float(m.group("ts")), m.group("what")
            if "wgx-bench wave start" in what:
                start = ts
                continue
            func = what.split()[0]
            calls.setdefault(func, []).append((ts, int(m.group("cpu")), m.group("task")))
    if start is None:
        print("%s: no marker \"wgx-bench wave start\" (was the trace started?)" % path)
        return 1
    print("# %s: per function: calls, ms after the wave's start (first / p50 / p90 / last), CPUs, "
          "tasks (the task running at the call: softirq work is counted to whatever it interrupted)" % path)
    for line in lost:
        print("# warning: the ring buffer lost events, counts are low: %s" % line)
    rows = []
    for func, c in calls.items():
        t = sorted(1000 * (ts - start) for ts, _, _ in c)
        cpus = {}
        tasks = {}
        for _, cpu, task in c:
            cpus[cpu] = cpus.get(cpu, 0) + 1
            tasks[task] = tasks.get(task, 0) + 1
        rows.append((pct(t, 50), func, len(t), t[0], pct(t, 90), t[-1], cpus, tasks))
    for p50, func, n, first, p90, last, cpus, tasks in sorted(rows):
        top = sorted(tasks.items(), key=lambda kv: -kv[1])[:3]
        print("%-44s %5d  %7.1f %7.1f %7.1f %7.1f  cpu %s  %s" % (
            func, n, first, p50, p90, last,
            " ".join("%d:%d" % kv for kv in sorted(cpus.items())),
            ", ".join("%s %d" % kv for kv in top)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: trace_summary.py TRACE")
    sys.exit(main(sys.argv[1]))
