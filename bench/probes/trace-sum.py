#!/usr/bin/env python3
"""bench/probes/trace-sum.py TRACE — per function: calls and total wall time of a
function_graph trace (funcgraph-tail), calls of a function trace, and
workqueue_queue_work events per work function."""
import re, sys, collections
# function_graph (funcgraph-tail) or function tracer output -> per function calls and total us
tot = collections.defaultdict(float); cnt = collections.Counter(); wq = collections.Counter()
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"workqueue_queue_work:.*function=(\S+)", line)
    if m:
        wq[m.group(1)] += 1; continue
    m = re.search(r"([0-9.]+) us\s*\|\s+(?:\} /\* (\S+)(?: \[\S+\])? \*/|(\S+?)(?: \[\S+\])?\(\);)", line)
    if m:
        f = m.group(2) or m.group(3)
        tot[f] += float(m.group(1)); cnt[f] += 1; continue
    m = re.search(r"\s(\S+) <-", line)   # function tracer
    if m and "|" not in line:
        cnt[m.group(1)] += 1
for f, c in sorted(cnt.items(), key=lambda x: -tot.get(x[0], 0)):
    print("%-45s %7d calls %12.0f us total %9.1f us/call" % (f, c, tot.get(f, 0), tot.get(f, 0) / c if c else 0))
for f, c in wq.most_common(15):
    print("queue_work %-40s %d" % (f, c))
