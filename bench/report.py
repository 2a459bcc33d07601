#!/usr/bin/env python3
"""bench/report.py — turn one benchmark run's raw output into figures.

usage: report.py --work DIR --out PREFIX [--command CMD] [--smp N] [--wall S]
                 [--vm-exit N] [--quick]

DIR is the run directory the guest filled (params.sh, samples.jsonl, raw/,
vm.err).  Writes PREFIX.json (every figure: per-round samples, median,
min/max, ratios wgx/wireguard.ko and wgx/ceiling) and PREFIX.png (gnuplot,
bench/plot.gp), and prints a table on stdout.  Called by scripts/bench.

A sample that could not be measured (tool failed, tunnel passed nothing,
handshakes incomplete) is kept as an error with its reason, never as a number.
"""
import argparse
import datetime
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

PATHS = ["bare", "wireguard", "wgx", "wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0", "wgx_nolane",
         "wgx_lane", "wgx_nobql", "wgx_noinline"]
MAIN_PATHS = ["bare", "wireguard", "wgx"]
# The priority lane figure's columns: wgx (path wgx, device wgx0) twice,
# with its lane off (priority-dscp none) and on (the default set); the
# receive-scaling paths (lane on) when a lane-only run asked for them.
LANE_PATHS = ["bare", "wireguard", "wgx_nolane", "wgx_lane", "wgx_nobql", "wgx_noinline", "wgx_p2",
              "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0"]
LANE_SCALED = ["wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0"]
PATH_LABEL = {"bare": "bare veth", "wireguard": "wireguard.ko", "wgx": "wgx",
              "wgx_p2": "wgx 2 ports", "wgx_p4": "wgx 4 ports", "wgx_p8": "wgx 8 ports",
              "wgx_rs": "wgx rx-spread", "wgx_r0": "wgx rx-spread off", "wgx_nolane": "wgx lane off", "wgx_lane": "wgx lane on",
              "wgx_nobql": "wgx lane on, no BQL", "wgx_noinline": "wgx lane on, no inline"}
# Targets of the lane figure (medians): wgx's lane p99 against
# wireguard.ko's and the bare link's under the same load, and the bulk's
# goodput with the lane against without it.
LANE_TARGETS = [
    # (id, label, numerator path, denominator path, metric, "<=" / ">=", bound)
    ("rr_p99_vs_wireguard", "req/resp p99, wgx lane on / wireguard.ko", "wgx_lane", "wireguard", "rr_lane_p99", "<=", 0.1),
    ("rr_p99_vs_bare", "req/resp p99, wgx lane on / bare veth", "wgx_lane", "bare", "rr_lane_p99", "<=", 3.0),
    ("ping_p99_vs_wireguard", "ping p99, wgx lane on / wireguard.ko", "wgx_lane", "wireguard", "ping_lane_p99", "<=", 0.1),
    ("ping_p99_vs_bare", "ping p99, wgx lane on / bare veth", "wgx_lane", "bare", "ping_lane_p99", "<=", 3.0),
    ("bulk_lane_vs_nolane", "bulk goodput, wgx lane on / lane off", "wgx_lane", "wgx_nolane", "bulk_lane", ">=", 0.95),
]
# Informative ratios printed with the targets.
LANE_INFO = [
    ("rr_p99_nolane_vs_wireguard", "req/resp p99, wgx lane off / wireguard.ko", "wgx_nolane", "wireguard", "rr_lane_p99"),
    ("rr_p99_lane_vs_nolane", "req/resp p99, wgx lane on / lane off", "wgx_lane", "wgx_nolane", "rr_lane_p99"),
    ("ping_p99_lane_vs_nolane", "ping p99, wgx lane on / lane off", "wgx_lane", "wgx_nolane", "ping_lane_p99"),
    ("bulk_nolane_vs_wireguard", "bulk goodput, wgx lane off / wireguard.ko", "wgx_nolane", "wireguard", "bulk_lane"),
]
# The same targets for the receive-scaling paths (lane on), when measured.
for _p in LANE_SCALED:
    _l = PATH_LABEL[_p]
    LANE_INFO += [
        ("rr_p99_%s_vs_wireguard" % _p, "req/resp p99, %s / wireguard.ko (target <= 0.1)" % _l, _p, "wireguard", "rr_lane_p99"),
        ("rr_p99_%s_vs_bare" % _p, "req/resp p99, %s / bare veth (target <= 3)" % _l, _p, "bare", "rr_lane_p99"),
        ("ping_p99_%s_vs_wireguard" % _p, "ping p99, %s / wireguard.ko (target <= 0.1)" % _l, _p, "wireguard", "ping_lane_p99"),
        ("ping_p99_%s_vs_bare" % _p, "ping p99, %s / bare veth (target <= 3)" % _l, _p, "bare", "ping_lane_p99"),
        ("bulk_%s_vs_nolane" % _p, "bulk goodput, %s / wgx lane off" % _l, _p, "wgx_nolane", "bulk_lane"),
    ]
# What BQL changes: wgx lane on with and without it (limit_min above the ring).
LANE_INFO += [
    ("rr_p99_lane_vs_nobql", "req/resp p99, wgx lane on / lane on without BQL", "wgx_lane", "wgx_nobql", "rr_lane_p99"),
    ("ping_p99_lane_vs_nobql", "ping p99, wgx lane on / lane on without BQL", "wgx_lane", "wgx_nobql", "ping_lane_p99"),
    ("bulk_lane_vs_nobql", "bulk goodput, wgx lane on / lane on without BQL", "wgx_lane", "wgx_nobql", "bulk_lane"),
    ("rr_p99_nobql_vs_wireguard", "req/resp p99, wgx without BQL / wireguard.ko", "wgx_nobql", "wireguard", "rr_lane_p99"),
    ("bulk_nobql_vs_wireguard", "bulk goodput, wgx without BQL / wireguard.ko", "wgx_nobql", "wireguard", "bulk_lane"),
]
# What sending marked packets at once (lane_inline) changes: the same device
# with every marked packet waiting on the lane for the queue's worker.
LANE_INFO += [
    ("rr_p99_lane_vs_noinline", "req/resp p99, wgx lane on / lane on without inline", "wgx_lane", "wgx_noinline",
     "rr_lane_p99"),
    ("ping_p99_lane_vs_noinline", "ping p99, wgx lane on / lane on without inline", "wgx_lane", "wgx_noinline",
     "ping_lane_p99"),
    ("ping_p99_noinline_vs_bare", "ping p99, wgx lane on without inline / bare veth", "wgx_noinline", "bare",
     "ping_lane_p99"),
    ("bulk_lane_vs_noinline", "bulk goodput, wgx lane on / lane on without inline", "wgx_lane", "wgx_noinline",
     "bulk_lane"),
]


# The TCP counters of each TCP run (bench/lib.sh tcp_stats, tcp_delta):
# sample key tcp_<name> -> what it counts.
TCP_COUNTERS = {
    "retrans": "segments the sender retransmitted (Tcp RetransSegs)",
    "ofo": "segments the receiver queued out of order (TcpExt TCPOFOQueue)",
    "reorder": "reordering the sender detected (TcpExt TCPSACKReorder + TCPTSReorder)",
    "dsack": "duplicate SACKs the sender received (TcpExt TCPDSACKRecv)",
}


def tcp_per_gb(samples):
    """A metric's TCP samples on one path -> per counter, its rate per GB
    (1e9 bytes the receiver got) summarized over rounds, plus the raw
    counts; None without samples."""
    if not samples:
        return None
    out = {"samples": samples}
    for k in TCP_COUNTERS:
        out[k] = summarize([{"round": x["round"], "value": x[k] * 1e9 / x["bytes"], "error": None}
                            for x in samples])
    return out


def add_receive_share(m, path, rnd, s):
    """Who received sample s: the busiest CPU's share of the decryptions for
    a tunnel, of the veth receptions for the bare link (the bed check)."""
    if path != "bare" and s.get("decrypt_total", 0) > 0:
        m.add_share(path, rnd, s["decrypt_max"] / s["decrypt_total"], "decryptions",
                    s.get("decrypt_cpus", ""))
    elif path == "bare" and s.get("veth_rx_total", 0) > 0:
        m.add_share(path, rnd, s["veth_rx_max"] / s["veth_rx_total"], "veth receptions",
                    s.get("veth_rx_cpus", ""))

def measured_paths(params, group):
    """The columns a metric of GROUP has in this run."""
    paths = str(params["PATHS"]).split()
    if group == "lane":
        # The scaled paths join the lane figure only in runs without TCP (run-guest.sh).
        scaled = not str(params.get("TCP_FLOWS", "")).strip()
        return [p for p in LANE_PATHS
                if ((p in paths and scaled) if p in LANE_SCALED
                    else ("wgx" in paths and scaled) if p in ("wgx_nobql", "wgx_noinline")
                    else (p[:3] if p.startswith("wgx_") else p) in paths)]
    return [p for p in PATHS if p in paths]


def read_params(path):
    """params.sh: KEY=VALUE lines (shell quoting) -> dict."""
    params = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, val = line.split("=", 1)
            val = shlex.split(val)[0] if val else ""
            params[key] = int(val) if re.fullmatch(r"-?\d+", val) else val
    return params


class Metric:
    """One reported figure: id, label, unit, whether higher is better, and
    how many bytes of goodput per second one unit stands for (for the
    crypto ceiling ratio; None when it does not apply)."""

    def __init__(self, mid, label, unit, higher, goodput_bytes=None, group="traffic"):
        self.id = mid
        self.label = label
        self.unit = unit
        self.higher = higher
        self.goodput_bytes = goodput_bytes
        self.group = group
        self.samples = {p: [] for p in PATHS}  # (round, value | None, error | None)
        # Share of the receive work done by the busiest CPU, per sample.
        self.shares = {p: [] for p in PATHS}
        # TCP runs: retransmissions and reordering per GB, per sample.
        self.tcp = {p: [] for p in PATHS}

    def add(self, path, rnd, value=None, error=None):
        self.samples[path].append({"round": rnd, "value": value, "error": error})

    def add_share(self, path, rnd, share, what, cpus):
        self.shares[path].append({"round": rnd, "value": share, "error": None, "of": what,
                                  "cpus": cpus})

    def add_tcp(self, path, rnd, s, nbytes):
        """The TCP counters of sample s (bench/run-guest.sh tcp_delta) over
        the NBYTES the receiver got, if the sample has them."""
        if "tcp_retrans" not in s or not nbytes:
            return
        x = {"round": rnd, "bytes": nbytes, "sender": s.get("tcp_sender")}
        x.update((k, s.get("tcp_" + k, 0)) for k in TCP_COUNTERS)
        if s.get("softnet_drops") is not None:
            x["softnet_drops"] = s["softnet_drops"]  # every CPU's receive backlog, the whole guest
        self.tcp[path].append(x)


def summarize(samples):
    vals = [s["value"] for s in samples if s["error"] is None]
    errs = [s["error"] for s in samples if s["error"] is not None]
    out = {"samples": samples}
    if vals:
        out.update(median=statistics.median(vals), min=min(vals), max=max(vals), n=len(vals))
    if errs:
        out["errors"] = len(errs)
        out["error"] = errs[0]
    return out


def load_json(path):
    """A tool's JSON output; iperf3 may print a warning line before it."""
    with open(path) as f:
        text = f.read()
    start = text.find("{")
    if start < 0:
        return None, text
    try:
        return json.loads(text[start:]), text
    except ValueError:
        return None, text


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(no output)"


def parse_ping(text):
    """ping output -> (list of rtts in µs, transmitted, received)."""
    rtts = [float(m) * 1000.0 for m in re.findall(r"time=([0-9.]+) ms", text)]
    m = re.search(r"(\d+) packets transmitted, (\d+) received", text)
    tx, rx = (int(m.group(1)), int(m.group(2))) if m else (0, len(rtts))
    return rtts, tx, rx


def ipt_counts(text, port):
    """iptables-save -c of b -> {176: initiations received, 120: responses
    sent, 92: cookie replies sent} on the storm responder's port."""
    out = {}
    for m in re.finditer(r"^\[(\d+):\d+\] -A (INPUT|OUTPUT) .*--[ds]port %d .*--length (\d+)" % port,
                         text, re.M):
        out[int(m.group(3))] = int(m.group(1))
    return out


def cpu_busy(before, after, user_hz=100):
    """Two snapshots by run-guest.sh's cpu_stat (the wall clock, then
    /proc/stat's "cpu" line) -> (busy CPU-seconds summed over all CPUs,
    wall seconds) between them; busy is user, nice, system, irq, softirq
    and steal (not idle, iowait).  None when a file is missing or
    malformed."""
    try:
        with open(before) as f0, open(after) as f1:
            a, b = f0.read().split(), f1.read().split()
        ta, tb = float(a[0]), float(b[0])
        a = [int(x) for x in a[2:10]]
        b = [int(x) for x in b[2:10]]
    except (OSError, ValueError, IndexError):
        return None
    if len(a) < 8 or len(b) < 8:
        return None
    d = [y - x for x, y in zip(a, b)]
    return (d[0] + d[1] + d[2] + d[5] + d[6] + d[7]) / user_hz, tb - ta


def nl_error(what, data, text, rc):
    """The error of a wgx-bench-nl run whose JSON is @data (None when its
    output @text held none), prefixed with @what."""
    return what + ": " + (data["error"] if data else "exit %s: %s" % (rc, first_line(text)))


def storm_sample(work, metrics, storm_bed, storm_rtts, path, s, err):
    """One storm wave (bench/run-guest.sh storm_kind): the three figures,
    and the bed check (sessions made, ping loss, wire and device counters,
    the budget in force) for the table's notes and the JSON.  The
    established peer's round trips during the wave are also added to
    storm_rtts[(path, size)], for the p99 over every wave's probes."""
    n = s["size"]
    rnd = int(s.get("round", 1))  # the wave: storm_kind runs ROUNDS of each size
    ms = [metrics["storm_hs_%d" % n], metrics["storm_all_%d" % n], metrics["storm_ping_p99_%d" % n],
          metrics["storm_ping_idle_p99_%d" % n], metrics["storm_hs_cmd_%d" % n]]
    if err:
        for m in ms:
            m.add(path, rnd, error=err)
        return
    base = os.path.join(work, s["file"])
    data, text = load_json(base + ".json")
    bed = {"path": path, "size": n, "wave": rnd}
    if data is None or "error" in data:
        e = nl_error("wgx-bench-nl", data, text, s.get("rc"))
        for m in ms:
            m.add(path, rnd, error=e)
        return
    bed.update(completed=data["completed"], seconds=data["seconds"], p50_seconds=data["p50_seconds"],
               polls=data.get("polls"), dump_seconds=data.get("dump_seconds"),
               kick_seconds=data.get("cmd_seconds"), poll_ms=data.get("poll_ms"),
               poll_seconds=data.get("poll_seconds"), poll_p50_seconds=data.get("poll_p50_seconds"),
               clock_skew=data.get("clock_skew"), first_dump_seconds=data.get("first_dump_seconds"),
               start_seconds=data.get("start_seconds"))
    # The wave runs from the kick's first datagram (start_seconds after wait
    # started it: the kick's fork, setns and exec come before); the figure
    # from the kick's start (fork, setns and exec included) is kept as
    # storm_hs_cmd, a control.
    start = data.get("start_seconds")
    if data["completed"] < data["peers"]:
        e = "%d of %d sessions within %.0f s" % (data["completed"], data["peers"], data["seconds"])
        for m in ms[0], ms[1], ms[4]:
            m.add(path, rnd, error=e)
    else:
        ms[4].add(path, rnd, value=data["peers"] / max(data["seconds"], 1e-6))
        if start is None or start < 0:
            e = "the kick did not report its first datagram"
        elif data["seconds"] <= start:
            e = "the last session stamped %.3f s, before the kick's first datagram at %.3f s" % (
                data["seconds"], start)
        else:
            e = None
        if e:
            ms[0].add(path, rnd, error=e)
            ms[1].add(path, rnd, error=e)
        else:
            ms[0].add(path, rnd, value=data["peers"] / (data["seconds"] - start))
            ms[1].add(path, rnd, value=data["seconds"] - start)
    for m, suffix, key in ((ms[2], ".ping.txt", "ping"), (ms[3], ".idle.txt", "idle")):
        try:
            with open(base + suffix) as f:
                rtts, tx, rx = parse_ping(f.read())
        except OSError:
            rtts, tx, rx = [], 0, 0
        bed[key + "_sent"], bed[key + "_received"] = tx, rx
        if key == "ping":
            storm_rtts.setdefault((path, n), []).extend(rtts)
        if rtts:
            m.add(path, rnd, value=pct(sorted(rtts), 99))
        else:
            m.add(path, rnd, error="no ping replies (%d sent)" % tx)
    cpu = cpu_busy(base + ".stat0.txt", base + ".stat1.txt")
    idle = cpu_busy(base + ".idlestat0.txt", base + ".idlestat1.txt")
    if cpu is not None:
        bed["cpu_busy_seconds"], bed["cpu_wall_seconds"] = cpu
    tasks, _ = load_json(base + ".tasks.json") if os.path.exists(base + ".tasks.json") else (None, "")
    if tasks and "tasks" in tasks:
        bed["background_probe"] = tasks
    if idle is not None and idle[1] > 0:
        bed["cpu_background_share"] = idle[0] / idle[1]
        if cpu is not None and data["completed"]:
            # Less the background at its idle rate and the poll's dumps
            # (the one before the kick too, where wait reports it).  Still
            # in it: the start-up of wait and of the kick's process.
            busy = (cpu[0] - bed["cpu_background_share"] * cpu[1] - (data.get("dump_seconds") or 0) -
                    (data.get("first_dump_seconds") or 0))
            bed["cpu_ms_per_handshake"] = 1000 * busy / data["completed"]
    if s.get("iptables") == 1:
        try:
            with open(base + ".ipt0.txt") as f0, open(base + ".ipt1.txt") as f1:
                c0, c1 = ipt_counts(f0.read(), s["port"]), ipt_counts(f1.read(), s["port"])
            bed.update(wire_initiations_rx=c1.get(176, 0) - c0.get(176, 0),
                       wire_responses_tx=c1.get(120, 0) - c0.get(120, 0),
                       wire_cookie_replies_tx=c1.get(92, 0) - c0.get(92, 0))
        except OSError:
            pass
    try:
        with open(base + ".show0.json") as f0, open(base + ".show1.json") as f1:
            d0, d1 = json.load(f0)["interfaces"][0], json.load(f1)["interfaces"][0]
        for k in ("under_load_entered", "cookie_replies_tx", "rx_drop_mac2", "rx_drop_ratelimited",
                  "handshakes_paced"):
            if k in d1.get("stats", {}):
                bed[k] = d1["stats"][k] - d0.get("stats", {}).get(k, 0)
        bed["handshake_budget"] = d1.get("handshake_budget")
    except (OSError, ValueError, KeyError, IndexError):
        pass
    bed.update(eph_delta(base))
    bed.update(hs_delta(base))
    storm_bed.append(bed)


def hs_delta(base):
    """Run time of each of wgx.ko's handshake threads (and wgx-prepare)
    around a wave, in ms (/proc/PID/schedstat), as {"hs_ms": {name: ms}}."""
    def runs(text):
        out = {}
        for line in text.splitlines():
            w = line.split()
            if len(w) >= 2:
                out[w[0]] = int(w[1])
        return out

    try:
        with open(base + ".hs0.txt") as f0, open(base + ".hs1.txt") as f1:
            r0, r1 = runs(f0.read()), runs(f1.read())
    except (OSError, ValueError):
        return {}
    ms = {k: (r1[k] - r0[k]) / 1e6 for k in r1 if k in r0}
    return {"hs_ms": ms} if ms else {}


def hs_text(b):
    """The handshake threads' run time during a wave, for the bed check."""
    ms = b.get("hs_ms")
    if not ms:
        return ""
    names = sorted(ms, key=lambda k: (not k.startswith("wgx-hs/"), int(k[7:]) if k[7:].isdecimal() else 0, k))
    return "; thread run time: " + ", ".join("%s %.0f ms" % (k, ms[k]) for k in names)


def eph_delta(base):
    """The ephemeral key pool's counters around a wave or burst (wgx only):
    pairs taken and takes that found it empty, and what it held before."""
    def counters(line):
        w = line.split()
        return {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}

    try:
        with open(base + ".eph0.txt") as f0, open(base + ".eph1.txt") as f1:
            l0, l1 = f0.read().splitlines(), f1.read().splitlines()
        c0, c1 = counters(l0[0]), counters(l1[0])
        out = {"eph_held": c0["held"], "eph_taken": c1["taken"] - c0["taken"],
               "eph_missed": c1["missed"] - c0["missed"]}
        # Second line: the per-peer ephemerals (kmod/prepare.c).
        if len(l0) > 1 and len(l1) > 1:
            p0, p1 = counters(l0[1]), counters(l1[1])
            out.update({"prep_held": p0["held"], "prep_used": p1["used"] - p0["used"],
                        "prep_made": p1["made"] - p0["made"]})
        return out
    except (OSError, ValueError, KeyError, IndexError):
        return {}


def burst_sample(work, metrics, storm_bed, path, s, err):
    """One burst (bench/run-guest.sh storm_kind): N prepared initiations
    against the responder alone -> responses per second, and the median
    response's time."""
    n, rnd = s["size"], int(s.get("round", 1))
    ms = [metrics["burst_hs_%d" % n], metrics["burst_p50_%d" % n]]
    if err:
        for m in ms:
            m.add(path, rnd, error=err)
        return
    eph = eph_delta(os.path.join(work, s["file"]))
    if eph:
        storm_bed.append(dict(eph, path=path, size=n, wave=rnd, burst=True))
    data, text = load_json(os.path.join(work, s["file"]) + ".json")
    if data is None or "error" in data:
        e = nl_error("wgx-bench-nl burst", data, text, s.get("rc"))
    elif data["responses"] < data["sent"]:
        e = "%d of %d responses (%d cookie replies)" % (data["responses"], data["sent"], data["cookie_replies"])
    else:
        ms[0].add(path, rnd, value=data["responses"] / max(data["seconds"], 1e-6))
        ms[1].add(path, rnd, value=data["p50_seconds"])
        return
    for m in ms:
        m.add(path, rnd, error=e)


def prep_text(b):
    """The per-peer ephemerals of a wave or burst, for the bed check."""
    if "prep_used" not in b:
        return ""
    return "; per-peer ephemerals: %d used (%d held before), %d made" % (b["prep_used"], b["prep_held"], b["prep_made"])


def print_storm_bed(storm_bed, guest_cpus):
    """The storm's bed check, next to the figures."""
    for b in storm_bed:
        if b.get("burst"):
            print("storm bed %s, responder alone, %d initiations, burst %d: ephemeral pool %d taken, %d missed "
                  "(held %d before)%s" % (PATH_LABEL[b["path"]], b["size"], b["wave"], b["eph_taken"],
                                          b["eph_missed"], b["eph_held"], prep_text(b)))
            continue
        line = "storm bed %s, %d initiators, wave %d: %s/%d sessions, last %.2f s, median %.2f s (kernel stamps)" % (
            PATH_LABEL[b["path"]], b["size"], b.get("wave", 1), b.get("completed", "?"), b["size"],
            b.get("seconds", 0), b.get("p50_seconds", 0))
        if b.get("start_seconds") is not None and b["start_seconds"] >= 0:
            line += " after the kick's start, its first datagram at %.2f s" % b["start_seconds"]
        if b.get("poll_seconds") is not None and b.get("completed") == b["size"]:
            line += ", last seen by the poll %.2f s" % b["poll_seconds"]
        if b.get("clock_skew"):
            line += ", %d stamps outside the wave (clock moved; clamped)" % b["clock_skew"]
        if b.get("kick_seconds") is not None:
            line += " (the kick's process done after %.2f s)" % b["kick_seconds"]
        if "ping_sent" in b:
            line += "; pings during %d/%d answered" % (b["ping_received"], b["ping_sent"])
        if "wire_initiations_rx" in b:
            line += "; wire at b: %d initiations in, %d responses, %d cookie replies out" % (
                b["wire_initiations_rx"], b["wire_responses_tx"], b["wire_cookie_replies_tx"])
        if "under_load_entered" in b:
            line += "; responder: under load entered %d, cookie replies %d, mac2 drops %d" % (
                b["under_load_entered"], b.get("cookie_replies_tx", 0), b.get("rx_drop_mac2", 0))
        if "eph_taken" in b:
            line += "; ephemeral pool: %d taken, %d missed (held %d before)" % (
                b["eph_taken"], b["eph_missed"], b["eph_held"])
            line += prep_text(b)
        line += hs_text(b)
        if b.get("handshake_budget") is not None:
            budget = b["handshake_budget"]
            line += "; budget %s" % ("auto (%s/s per device)" % (1000 * guest_cpus if guest_cpus else "1000 x CPUs")
                                     if budget == 0 else "%d/s" % budget)
        if b.get("dump_seconds") is not None:
            line += "; poll every %s ms: %d dumps, %.2f s" % (b.get("poll_ms"), b.get("polls") or 0,
                                                               b["dump_seconds"])
        if b.get("cpu_busy_seconds") is not None and b.get("completed"):
            line += "; guest CPU busy %.2f CPU-s in %.2f s" % (b["cpu_busy_seconds"], b["cpu_wall_seconds"])
            if b.get("cpu_ms_per_handshake") is not None:
                line += " (background %.2f CPUs while idle); %.2f ms per handshake less background and dumps" % (
                    b["cpu_background_share"], b["cpu_ms_per_handshake"])
        probe = b.get("background_probe")
        if probe:
            c = probe["cpu"]
            line += "; background over %.1f s: user %.2f, system %.2f, softirq %.2f CPU-s; busiest: %s" % (
                probe["seconds"], c.get("user", 0), c.get("system", 0), c.get("softirq", 0),
                ", ".join("%s %.2f" % (t["comm"], t["cpu_s"]) for t in probe["tasks"][:4]) or "none")
        print(line)


def _wgx_show(path):
    """`wgx show DEV --json` -> the interface dict, or None."""
    try:
        with open(path) as f:
            return json.load(f)["interfaces"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None


def _stat_sums(dev):
    """Device counters and the peers' counters summed (a peer re-keyed in
    place changes its public key, so peers are not matched by key)."""
    out = {}
    for k, v in (dev.get("stats") or {}).items():
        if isinstance(v, (int, float)):
            out["dev." + k] = v
    for p in dev.get("peers") or []:
        for k, v in (p.get("stats") or {}).items():
            if isinstance(v, (int, float)):
                out["peer." + k] = out.get("peer." + k, 0) + v
    return out


def _snmp_udp(text):
    """/proc/net/snmp -> the Udp: line as {name: value}."""
    rows = [l.split() for l in text.splitlines() if l.startswith("Udp:")]
    return dict(zip(rows[0][1:], (int(x) for x in rows[1][1:]))) if len(rows) >= 2 else {}


def _dev_rx_packets(text, dev):
    """/proc/net/dev -> DEV's received packets (None if absent)."""
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == dev and rest.split():
            return int(rest.split()[1])
    return None


def rot_sample(work, metrics, rot_bed, path, s, err):
    """One rotation run (bench/run-guest.sh rot_kind): the figures (longest
    gap, lost packets, largest one-way delay) and the bed check (what the
    sender did, when the steps ran, where the gap fell, the devices'
    counters and session keys after)."""
    ms = [metrics["rot_gap"], metrics["rot_lost"], metrics["rot_delay_max"]]
    if err:
        for m in ms:
            m.add(path, 1, error=err)
        rot_bed.append({"path": path, "error": err})
        return
    base = os.path.join(work, s["file"])
    snd, stext = load_json(base + ".send.json") if os.path.exists(base + ".send.json") else (None, "missing")
    rcv, rtext = load_json(base + ".recv.json") if os.path.exists(base + ".recv.json") else (None, "missing")
    if snd is None or rcv is None:
        e = "rotgap.py: %s" % ("sender: " + first_line(stext) if snd is None else "receiver: " + first_line(rtext))
        for m in ms:
            m.add(path, 1, error=e)
        rot_bed.append({"path": path, "error": e})
        return
    t0 = snd["first_epoch"]
    bed = {"path": path, "sent": snd["sent"], "delivered": rcv["delivered"],
           "lost": snd["sent"] - rcv["delivered"], "duplicates": rcv["duplicates"],
           "socket_drops": rcv.get("socket_drops"), "rcvbuf": rcv.get("rcvbuf"),
           "reordered": rcv["reordered"], "gap_ms": rcv["gap_ms"],
           "inter_p50_ms": rcv["inter_p50_ms"], "inter_p99_ms": rcv["inter_p99_ms"],
           "delay_p50_ms": rcv["delay_p50_ms"], "delay_p99_ms": rcv["delay_p99_ms"],
           "delay_max_ms": rcv["delay_max_ms"], "sender_max_gap_ms": snd["max_send_gap_ms"],
           "send_errors": snd["send_errors"], "send_first_error": snd.get("first_error"),
           "sender_seconds": (snd["last_epoch"] or t0) - t0,
           "step1_s": s["t_step1"] - t0, "step1_took_s": s["t_step1_done"] - s["t_step1"],
           "step2_s": s["t_step2"] - t0, "step2_took_s": s["t_step2_done"] - s["t_step2"],
           "rc_step1": s.get("rc_step1"), "rc_step2": s.get("rc_step2"),
           "gaps": [dict(g, from_s=g["from_epoch"] - t0, to_s=g["to_epoch"] - t0) for g in rcv["gaps"]]}
    try:
        with open(base + ".snmp0.txt") as f0, open(base + ".snmp1.txt") as f1:
            u0, u1 = _snmp_udp(f0.read()), _snmp_udp(f1.read())
        bed["udp_b"] = {k: u1[k] - u0.get(k, 0) for k in ("InDatagrams", "RcvbufErrors", "InErrors", "NoPorts")
                        if k in u1}
        with open(base + ".dev0.txt") as f0, open(base + ".dev1.txt") as f1:
            r0, r1 = _dev_rx_packets(f0.read(), s.get("dev")), _dev_rx_packets(f1.read(), s.get("dev"))
        if r0 is not None and r1 is not None:
            bed["dev_rx_packets_b"] = r1 - r0
    except OSError:
        pass
    if s.get("kind") == "wgx":
        a0, a1 = _wgx_show(base + ".a0.json"), _wgx_show(base + ".a1.json")
        b0, b1 = _wgx_show(base + ".b0.json"), _wgx_show(base + ".b1.json")
        for side, d0, d1 in (("a", a0, a1), ("b", b0, b1)):
            if d0 is None or d1 is None:
                continue
            c0, c1 = _stat_sums(d0), _stat_sums(d1)
            bed["counters_" + side] = {k: c1[k] - c0.get(k, 0) for k in sorted(c1) if c1[k] != c0.get(k, 0)}
            bed["session_keys_" + side] = [p.get("session_keys") for p in d1.get("peers") or []]
        if b1 is not None:
            bed["b_previous_public_key"] = b1.get("previous_public_key")
            bed["b_public_key_is_new"] = b1.get("public_key") == s.get("new_pub")
        if a1 is not None:
            bed["a_peer_keys_new"] = [p.get("public_key") == s.get("new_pub") for p in a1.get("peers") or []]
    else:
        try:
            with open(base + ".a1.txt") as f:
                lines = [l.split("\t") for l in f.read().splitlines()[1:] if l.strip()]
            bed["a_peer_keys_new"] = [l[0] == s.get("new_pub") for l in lines]
        except OSError:
            pass
    if rcv["gap_ms"] is None:
        ms[0].add(path, 1, error="fewer than two packets delivered")
    else:
        ms[0].add(path, 1, value=rcv["gap_ms"])
    ms[1].add(path, 1, value=bed["lost"])
    ms[2].add(path, 1, value=rcv["delay_max_ms"])
    rot_bed.append(bed)


def print_rotation(rot_bed, params):
    """The rotation figures with their bed check and the target (wgx 0
    lost)."""
    if not rot_bed:
        return
    print("rotation gap: %s pkt/s UDP a->b for %s s; b sets its new key at %s s%s, a told %s s later"
          " (wgx: in-place re-key; wireguard.ko: peer removed and re-added, one wg set)"
          % (params.get("ROT_RATE"), params.get("ROT_SECONDS"), params.get("ROT_BEFORE"),
             " (wgx: key-grace %s)" % params.get("ROT_GRACE"), params.get("ROT_STEP")))
    by = {}
    for b in rot_bed:
        label = PATH_LABEL[b["path"]]
        if "error" in b:
            print("  %s: ERROR: %s" % (label, b["error"]))
            continue
        by[b["path"]] = b
        g = b["gaps"][0] if b["gaps"] else None
        where = ""
        if g:
            rel = lambda t: ("step 1 %+.2f s" % (t - b["step1_s"]) if abs(t - b["step1_s"]) < abs(t - b["step2_s"])
                             else "step 2 %+.2f s" % (t - b["step2_s"]))
            where = " (seq %d -> %d, from %s)" % (g["seq_before"], g["seq_after"], rel(g["from_s"]))
        print("  %-13s sent %d, delivered %d, lost %d; longest gap %.1f ms%s; inter-arrival p50 %.2f / p99 %.2f ms;"
              " one-way delay p99 %.2f / max %.1f ms"
              % (label, b["sent"], b["delivered"], b["lost"], b["gap_ms"] or 0, where,
                 b["inter_p50_ms"] or 0, b["inter_p99_ms"] or 0, b["delay_p99_ms"] or 0, b["delay_max_ms"] or 0))
        bed = ("    bed: sender's longest stall %.1f ms, send errors %d%s; %.2f s of sending; step 1 at %.2f s"
               " (took %.2f s, exit %s), step 2 at %.2f s (took %.2f s, exit %s); duplicates %d, reordered %d"
               % (b["sender_max_gap_ms"], b["send_errors"],
                  " (%s)" % b["send_first_error"] if b.get("send_first_error") else "", b["sender_seconds"],
                  b["step1_s"], b["step1_took_s"], b.get("rc_step1"), b["step2_s"], b["step2_took_s"],
                  b.get("rc_step2"), b["duplicates"], b["reordered"]))
        if b.get("socket_drops") is not None:
            bed += "; receiver socket drops %d (buffer %d bytes)" % (b["socket_drops"], b.get("rcvbuf") or 0)
        if "dev_rx_packets_b" in b:
            bed += "; b's tunnel device received %d packets" % b["dev_rx_packets_b"]
        if "udp_b" in b:
            bed += "; b's UDP: %s" % ", ".join("%s +%d" % kv for kv in b["udp_b"].items())
        if "a_peer_keys_new" in b:
            bed += "; a's peer on the new key: %s" % ("yes" if b["a_peer_keys_new"] and all(b["a_peer_keys_new"])
                                                     else "NO")
        print(bed)
        if b["path"] == "wgx" and "b_public_key_is_new" in b:
            print("    wgx: b on the new key %s, b's previous key %s at the end; sessions after: a %s, b %s"
                  % ("yes" if b.get("b_public_key_is_new") else "NO",
                     "still held (grace)" if b.get("b_previous_public_key") else "gone",
                     b.get("session_keys_a"), b.get("session_keys_b")))
            for side in ("a", "b"):
                c = b.get("counters_" + side)
                if c is not None:
                    print("    wgx %s counters changed: %s" % (side, ", ".join("%s +%s" % kv for kv in c.items())
                                                             or "none"))
    wx, wg = by.get("wgx"), by.get("wireguard")
    if wx and wg and wx["gap_ms"] and wg["gap_ms"]:
        print("  wgx / wireguard.ko: longest gap %.3fx (%.1f / %.1f ms), lost %d / %d"
              % (wx["gap_ms"] / wg["gap_ms"], wx["gap_ms"], wg["gap_ms"], wx["lost"], wg["lost"]))
    if wx:
        print("  target wgx 0 lost: %s (%d lost of %d)" % ("met" if wx["lost"] == 0 else "NOT met",
                                                          wx["lost"], wx["sent"]))


def pct(sorted_vals, q):
    """Nearest-rank percentile q (0..100)."""
    rank = max(1, -(-len(sorted_vals) * q // 100))
    return sorted_vals[int(rank) - 1]


def parse_ceiling(text):
    per_cpu, total = [], None
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0] == "cpu" and f[2] == "bytes_per_s":
            per_cpu.append({"cpu": int(f[1]), "bytes_per_s": int(f[3]),
                            "packets_per_s": int(f[5]) if len(f) >= 6 else None})
        elif len(f) >= 3 and f[0] == "total" and f[1] == "bytes_per_s":
            total = int(f[2])
    return per_cpu, total


def parse_telemcost(text):
    """kmod/telemetry_bench.h's file: "key value" header lines, then
    "<case> <median_ps> <min_ps> <max_ps>" lines."""
    head, cases = {}, {}
    for line in text.splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if len(f) == 2 and re.fullmatch(r"\d+", f[1]):
            head[f[0]] = int(f[1])
        elif len(f) == 4 and all(re.fullmatch(r"\d+", x) for x in f[1:]):
            cases[f[0]] = {"median_ps": int(f[1]), "min_ps": int(f[2]), "max_ps": int(f[3])}
    return head, cases


# The telemetry cost's budget: the hooks may cost at most this
# share of the per-packet work they ride on.
TELEM_TARGET = 0.03


def telemetry_micro(head, cases):
    """Per-packet costs (ns, net of the empty loop) and their ratios to the
    cipher's per-packet cost, from one run of the micro-benchmark.  A packet
    is encrypted at one end and decrypted at the other; the transmit hook
    runs at the first, the receive hook at the second."""
    every = head.get("every", 16)
    ns = {c: v["median_ps"] / 1000.0 for c, v in cases.items()}
    loop = ns["loop"]

    def net(c):
        return ns[c] - loop

    d = {
        # Transmit: the hook as send.c runs it (the 1 in EVERY included).
        "tx_tcp_ns": net("tx_tcp_hook"),
        "tx_tcp_model_ns": net("tx_due") + net("tx_tcp_sampled") / every,
        "tx_udp_ns": net("tx_udp_hook"),
        "tx_udp_model_ns": net("tx_due") + net("tx_udp_sampled") / every,
        # Receive: a TCP packet while a sample is pending (the worst case:
        # a bulk flow has one pending most of the time), plus the echo that
        # ends a sample, at most one per EVERY packets sent.
        "rx_tcp_ns": net("rx_tcp_pending") + net("rx_tcp_echo") / every,
        "rx_idle_ns": net("rx_idle"),
        "rx_udp_ns": net("rx_idle"),
        "rx_udp_pending_ns": net("rx_udp_pending"),
        "enc_tcp_ns": ns["enc_tcp"], "dec_tcp_ns": ns["dec_tcp"],
        "enc_udp_ns": ns["enc_udp"], "dec_udp_ns": ns["dec_udp"],
        "loop_ns": loop,
    }
    d["ratio_tcp_tx"] = d["tx_tcp_ns"] / d["enc_tcp_ns"]
    d["ratio_tcp_rx"] = d["rx_tcp_ns"] / d["dec_tcp_ns"]
    d["ratio_tcp_segment"] = (d["tx_tcp_ns"] + d["rx_tcp_ns"]) / (d["enc_tcp_ns"] + d["dec_tcp_ns"])
    # An ACK: the same hooks (they read headers only), on a small packet;
    # the 96-byte cipher case stands for its 64 padded bytes (a little more).
    d["ratio_tcp_ack"] = (d["tx_tcp_ns"] + d["rx_tcp_ns"]) / (d["enc_udp_ns"] + d["dec_udp_ns"])
    # A 1-flow bulk transfer: two full segments per ACK (delayed ACKs).
    d["ratio_tcp_flow"] = 3 * (d["tx_tcp_ns"] + d["rx_tcp_ns"]) / (
        2 * (d["enc_tcp_ns"] + d["dec_tcp_ns"]) + d["enc_udp_ns"] + d["dec_udp_ns"])
    d["ratio_udp_tx"] = d["tx_udp_ns"] / d["enc_udp_ns"]
    d["ratio_udp_rx"] = d["rx_udp_ns"] / d["dec_udp_ns"]
    d["ratio_udp_packet"] = (d["tx_udp_ns"] + d["rx_udp_ns"]) / (d["enc_udp_ns"] + d["dec_udp_ns"])
    d["ratio_udp_packet_tcp_pending"] = (d["tx_udp_ns"] + d["rx_udp_pending_ns"]) / (
        d["enc_udp_ns"] + d["dec_udp_ns"])
    return d


def build_telemetry(work, params, samples):
    """The telemetry workload: the micro-benchmark with tcp_telemetry on and
    off, and the end-to-end rates on wgx with it on and off, paired by round.
    None when the workload did not run."""
    if params.get("TELEMETRY", 0) != 1:
        return None
    out = {"target": TELEM_TARGET, "micro": {}, "e2e": {}, "errors": []}
    rates = {}  # (workload, setting) -> {round: value}
    for s in samples:
        t = s.get("type")
        if t == "telemcost":
            setting = "on" if s.get("setting") == 1 else "off"
            if s.get("error"):
                out["errors"].append("micro-benchmark: " + s["error"])
                continue
            with open(os.path.join(work, s["file"])) as f:
                head, cases = parse_telemcost(f.read())
            need = ("loop", "tx_due", "tx_tcp_hook", "tx_tcp_sampled", "tx_udp_hook", "tx_udp_sampled",
                    "rx_idle", "rx_tcp_pending", "rx_tcp_echo", "rx_udp_pending",
                    "enc_tcp", "dec_tcp", "enc_udp", "dec_udp")
            if any(c not in cases for c in need):
                out["errors"].append("micro-benchmark (%s): unreadable output" % setting)
                continue
            out["micro"][setting] = {"header": head, "cases": cases, "per_packet": telemetry_micro(head, cases)}
        elif t == "telem" and s.get("error"):
            out["errors"].append("end to end: " + s["error"])
        elif t == "iperf" and str(s.get("metric", "")).startswith("telem_"):
            _, proto, size, setting = s["metric"].split("_")
            wl = "%s_%s" % (proto, size)
            data, text = load_json(os.path.join(work, s["file"]))
            recv = (data or {}).get("end", {}).get("sum_received") or {}
            if data is None or data.get("error") or not recv.get("bytes"):
                why = (data or {}).get("error") or first_line(text)
                out["errors"].append("%s tcp_telemetry=%s round %s: %s" % (wl, setting, s.get("round"), why))
                continue
            if proto == "udp":
                secs = recv.get("seconds") or params.get("TELEM_SECONDS", 2)
                v = recv["bytes"] / int(size) / secs / 1000.0
            else:
                v = recv["bits_per_second"] / 1e6
            rates.setdefault((wl, setting), {})[s.get("round")] = v
    for wl, label, unit in (("tcp_1", "TCP 1 flow a->b", "Mbit/s"),
                            ("udp_64", "UDP 64-byte payload, received", "kpkt/s")):
        on, off = rates.get((wl, "1"), {}), rates.get((wl, "0"), {})
        if not on and not off:
            continue
        e = {"label": label, "unit": unit}
        for name, r in (("on", on), ("off", off)):
            vals = [r[k] for k in sorted(r)]
            e[name] = {"rounds": r}
            if vals:
                med = statistics.median(vals)
                e[name].update(median=med, min=min(vals), max=max(vals),
                               spread=(max(vals) - min(vals)) / med if med else None)
        pairs = [on[k] / off[k] for k in sorted(on) if k in off and off[k]]
        if pairs:
            med = statistics.median(pairs)
            e["ratio_on_off"] = {"rounds": pairs, "median": med, "min": min(pairs), "max": max(pairs)}
            e["cost"] = 1 - med
            # A 3 % cost can be told only if the paired ratios agree better than that.
            e["conclusive"] = len(pairs) >= 3 and (max(pairs) - min(pairs)) < TELEM_TARGET
        out["e2e"][wl] = e
    return out


def print_telemetry(tel):
    if not tel:
        return
    print()
    print("telemetry cost (tcp_telemetry on vs off; target <= %.0f%% of the per-packet work)"
          % (100 * tel["target"]))
    on, off = tel["micro"].get("on"), tel["micro"].get("off")
    if on:
        d, h = on["per_packet"], on["header"]
        print("micro-benchmark, tcp_telemetry=1 (%d iterations, %d of the cipher, median of %d runs, "
              "ns/packet net of the %.1f ns loop):"
              % (h.get("iterations", 0), h.get("crypto_iterations", 0), h.get("runs", 0), d["loop_ns"]))
        print("  TCP 1420 B: tx hook %.1f (model %.1f), rx hook %.1f (sample pending; idle %.1f); "
              "encrypt %.0f, decrypt %.0f"
              % (d["tx_tcp_ns"], d["tx_tcp_model_ns"], d["rx_tcp_ns"], d["rx_idle_ns"],
                 d["enc_tcp_ns"], d["dec_tcp_ns"]))
        print("  UDP 92 B:   tx hook %.1f (model %.1f), rx hook %.1f (TCP sample pending %.1f); "
              "encrypt %.0f, decrypt %.0f (96 B)"
              % (d["tx_udp_ns"], d["tx_udp_model_ns"], d["rx_udp_ns"], d["rx_udp_pending_ns"],
                 d["enc_udp_ns"], d["dec_udp_ns"]))
        print("  hooks / cipher: TCP segment %.3f%% (tx %.3f%%, rx %.3f%%), ACK %.3f%%, 1-flow mix %.3f%%; "
              "UDP 64 %.3f%% (tx %.3f%%, rx %.3f%%; %.3f%% with a TCP sample pending)"
              % tuple(100 * d[k] for k in ("ratio_tcp_segment", "ratio_tcp_tx", "ratio_tcp_rx",
                                           "ratio_tcp_ack", "ratio_tcp_flow", "ratio_udp_packet",
                                           "ratio_udp_tx", "ratio_udp_rx", "ratio_udp_packet_tcp_pending")))
        worst = max(d["ratio_tcp_flow"], d["ratio_udp_packet"])
        print("  against the %.0f%% target (TCP 1-flow mix, UDP 64): %s under TCG (worst %.3f%%; TCG "
              "inflates the cipher more than the hooks: docs/telemetry.md, \"Cost\")"
              % (100 * tel["target"], "met" if worst <= tel["target"] else "NOT met", 100 * worst))
    if off:
        d = off["per_packet"]
        print("  sanity, tcp_telemetry=0 (the hooks should cost nothing): tx hook TCP %.1f, UDP %.1f; "
              "rx hook TCP %.1f, UDP %.1f ns net of the loop"
              % (d["tx_tcp_ns"], d["tx_udp_ns"], d["rx_tcp_ns"], d["rx_udp_pending_ns"]))
    for wl, e in tel["e2e"].items():
        def side(x):
            if "median" not in x:
                return "-"
            return "%s [%s-%s] (spread %.1f%%)" % (fmt(x["median"]), fmt(x["min"]), fmt(x["max"]),
                                                   100 * x["spread"])
        line = "end to end, %s (%s), %d rounds: on %s, off %s" % (
            e["label"], e["unit"], len(e["on"]["rounds"]), side(e["on"]), side(e["off"]))
        r = e.get("ratio_on_off")
        if r:
            line += "; on/off per round %s, median %.3f: cost %.1f%% -> %s" % (
                " ".join("%.3f" % x for x in r["rounds"]), r["median"], 100 * e["cost"],
                "conclusive" if e["conclusive"] else
                "inconclusive (paired ratios spread %.1f%% >= %.0f%%)"
                % (100 * (r["max"] - r["min"]), 100 * tel["target"]))
        print(line)
    for err in tel["errors"]:
        print("error: telemetry: " + err)


def build(work, params, quick):
    samples = []
    with open(os.path.join(work, "samples.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line:
                samples.append(json.loads(line))

    metrics = {}
    order = []

    def metric(mid, *args, **kw):
        if mid not in metrics:
            metrics[mid] = Metric(mid, *args, **kw)
            order.append(mid)
        return metrics[mid]

    # Declare in display order, so the table and JSON read top-down.
    dirs = {"ab": "a->b", "ba": "b->a"}
    for flows in str(params["TCP_FLOWS"]).split():
        for d in str(params["TCP_DIRS"]).split():
            metric("tcp_%s_%s" % (flows, d), "TCP %s flow%s %s" % (flows, "" if flows == "1" else "s", dirs[d]),
                   "Mbit/s", True, goodput_bytes=1e6 / 8)
    for size in str(params["UDP_SIZES"]).split():
        metric("udp_%s" % size, "UDP %s-byte payload, received" % size, "kpkt/s", True,
               goodput_bytes=1000.0 * int(size))
    loads = ["idle"] if params.get("LATENCY", 1) == 1 else []
    if params.get("LOADED") == 1:
        loads.append("loaded")
    for load in loads:
        suffix = "" if load == "idle" else ", %d-flow bulk" % params["LOAD_FLOWS"]
        for q in ["p50", "p99", "max"]:
            metric("ping_%s_%s" % (load, q), "ping %s%s" % (q, suffix), "us", False, group="latency")
        for q in ["p50", "p99", "max"]:
            metric("rr_%s_%s" % (load, q), "TCP %dB req/resp %s%s" % (params["RR_SIZE"], q, suffix),
                   "us", False, group="latency")
        metric("rr_%s_tps" % load, "TCP %dB req/resp rate%s" % (params["RR_SIZE"], suffix),
               "trans/s", True, group="latency")
        if load == "loaded":
            metric("bulk_loaded", "bulk %d flows, goodput during the probes" % params["LOAD_FLOWS"],
                   "Mbit/s", True, group="latency")
    if params.get("LANE") == 1:
        tos = params.get("LANE_TOS", "0xb8")
        suffix = ", marked %s, %d-flow bulk" % (tos, params["LANE_FLOWS"])
        for q in ["p50", "p99", "max"]:
            metric("rr_lane_%s" % q, "TCP %dB req/resp %s%s" % (params["RR_SIZE"], q, suffix),
                   "us", False, group="lane")
        metric("rr_lane_tps", "TCP %dB req/resp rate%s" % (params["RR_SIZE"], suffix),
               "trans/s", True, group="lane")
        for q in ["p50", "p99", "max"]:
            metric("ping_lane_%s" % q, "ping %s%s" % (q, suffix), "us", False, group="lane")
        metric("bulk_lane", "bulk %d flows, total goodput during the probes" % params["LANE_FLOWS"],
               "Mbit/s", True, group="lane")
    if params.get("HS_PEERS", 0) > 0:
        metric("handshakes", "handshakes completed, %d peers at once" % params["HS_PEERS"],
               "hs/s", True, group="control")
    storm_sizes = [int(x) for x in str(params.get("STORM_SIZES", "")).split()]
    for n in storm_sizes:
        metric("storm_hs_%d" % n, "storm: handshakes completed, %d initiators at once" % n,
               "hs/s", True, group="control")
        metric("storm_all_%d" % n, "storm: until all %d have a session" % n, "s", False, group="control")
        metric("storm_hs_cmd_%d" % n, "storm: handshakes completed, %d at once, from the kick's process start" % n,
               "hs/s", True, group="control")
        metric("storm_ping_p99_%d" % n, "storm: established peer ping p99 during %d" % n,
               "us", False, group="control")
        # One wave's 30-70 probes make its p99 nearly its maximum: the same
        # over all waves' probes together (one value per module and size).
        metric("storm_ping_all_p99_%d" % n, "storm: established peer ping p99 during %d, all waves" % n,
               "us", False, group="control")
        metric("storm_ping_idle_p99_%d" % n, "storm: established peer ping p99 idle, before %d" % n,
               "us", False, group="control")
    for n in [int(x) for x in str(params.get("BURST_SIZES", "")).split()]:
        metric("burst_hs_%d" % n, "storm: responder alone, %d prepared initiations at once" % n, "hs/s", True,
               group="control")
        metric("burst_p50_%d" % n, "storm: responder alone, median response of %d" % n, "s", False,
               group="control")
    if params.get("ROT_SECONDS", 0) > 0:
        metric("rot_gap", "rotation: longest gap, %s pkt/s flow" % params.get("ROT_RATE"), "ms", False,
               group="control")
        metric("rot_lost", "rotation: packets lost", "pkts", False, group="control")
        metric("rot_delay_max", "rotation: one-way delay max", "ms", False, group="control")
    if params.get("SETCONF_PEERS", 0) > 0:
        metric("setconf_seconds", "setconf %d peers" % params["SETCONF_PEERS"], "s", False, group="control")
        metric("peer_bytes", "memory per peer (slab+percpu+vmalloc)", "bytes", False, group="control")

    warnings = []
    storm_bed = []
    storm_rtts = {}  # (path, storm size) -> every round trip of its waves, us
    rot_bed = []
    lane_obs = {}  # lane path -> [{round, softnet_drops, qdisc, qdisc_backlog_pkts, ...}]
    paths_info = {}
    ceiling = None
    meta = {}

    for s in samples:
        t = s.get("type")
        path = s.get("path")
        rnd = s.get("round", 0)
        err = s.get("error")
        if t == "meta":
            meta = {k: v for k, v in s.items() if k != "type"}
        elif t == "bed":
            meta["bed"] = s.get("bed")
            meta["outer_b"] = s.get("outer_b")
        elif t == "routed":
            meta["r_forwarded"] = s.get("forwarded")
        elif t == "path":
            paths_info[path] = {k: v for k, v in s.items() if k not in ("type", "path")}
        elif t == "ceiling":
            if err:
                ceiling = {"error": err}
            else:
                with open(os.path.join(work, s["file"])) as f:
                    text = f.read()
                per_cpu, total = parse_ceiling(text)
                if total:
                    ceiling = {"seconds": params.get("CEILING_SECONDS"), "buffer_bytes": 1420,
                               "per_cpu": per_cpu, "total_bytes_per_s": total,
                               "total_gbit_per_s": total * 8 / 1e9}
                else:
                    ceiling = {"error": "unreadable crypto_ceiling output: " + first_line(text)}
        elif t == "bulk":
            m = metrics.get(s["metric"])
            secs = float(s.get("seconds", 0))
            if err:
                m.add(path, rnd, error=err)
                continue
            # The bed check of the lane figure: who received the bulk.
            add_receive_share(m, path, rnd, s)
            if s["metric"] == "bulk_lane":
                obs = lane_obs.setdefault(path, [])
                o = {"round": rnd, "softnet_drops": s.get("softnet_drops")}
                if s.get("qdisc_file"):
                    try:
                        with open(os.path.join(work, s["qdisc_file"])) as f:
                            o.update(parse_qdisc(f.read()))
                    except OSError:
                        pass
                if s.get("sender_file"):
                    try:
                        with open(os.path.join(work, s["sender_file"])) as f:
                            o.update(parse_sender(f.read()))
                    except OSError:
                        pass
                if s.get("lane_counters_file"):
                    o.update(lane_counter_delta(os.path.join(work, s["lane_counters_file"])))
                obs.append(o)
            if not s.get("covered"):
                m.add(path, rnd, error="the background load was not running through the probes")
            elif secs <= 0 or s.get("rx_bytes", 0) <= 0:
                m.add(path, rnd, error="no bulk traffic counted during the probes")
            else:
                m.add(path, rnd, value=s["rx_bytes"] * 8 / secs / 1e6)
                # Over the probes' window, per byte b's device counted.
                m.add_tcp(path, rnd, s, s["rx_bytes"])
        elif t == "iperf":
            m = metrics.get(s["metric"])
            if m is None:
                continue
            data, text = load_json(os.path.join(work, s["file"]))
            if data is None:
                m.add(path, rnd, error="iperf3 exit %s: %s" % (s.get("rc"), first_line(text)))
                continue
            if data.get("error"):
                m.add(path, rnd, error="iperf3: " + data["error"])
                continue
            recv = data.get("end", {}).get("sum_received") or {}
            nbytes = recv.get("bytes", 0)
            if not nbytes:
                m.add(path, rnd, error="iperf3 reports 0 bytes received")
                continue
            if s["metric"].startswith("udp_"):
                size = int(s["metric"].split("_")[1])
                secs = recv.get("seconds") or params["UDP_SECONDS"]
                m.add(path, rnd, value=nbytes / size / secs / 1000.0)
            else:
                m.add(path, rnd, value=recv["bits_per_second"] / 1e6)
                m.add_tcp(path, rnd, s, nbytes)
            add_receive_share(m, path, rnd, s)
            # The receiving side's device counters must have seen the payload
            # (tunnel devices count inner bytes).
            recv_ns = "a" if s["metric"].endswith("_ba") else "b"
            rx = s.get("rx_" + recv_ns, 0)
            if path != "bare" and rx < 0.9 * nbytes:
                warnings.append("%s %s round %s: receiving device counted %d bytes, iperf3 %d"
                                % (PATH_LABEL[path], s["metric"], rnd, rx, nbytes))
        elif t == "ping":
            base = s["metric"]  # ping_idle / ping_loaded
            with open(os.path.join(work, s["file"])) as f:
                text = f.read()
            rtts, tx, rx = parse_ping(text)
            if not rtts:
                for q in ("p50", "p99", "max"):
                    metrics[base + "_" + q].add(path, rnd, error="ping: no reply (%s)" % first_line(text))
                continue
            rtts.sort()
            for q, v in (("p50", pct(rtts, 50)), ("p99", pct(rtts, 99)), ("max", rtts[-1])):
                metrics[base + "_" + q].add(path, rnd, value=v)
            if rx < tx:
                warnings.append("%s %s round %s: %d of %d pings lost" % (PATH_LABEL[path], base, rnd, tx - rx, tx))
        elif t == "rr":
            base = s["metric"]
            data, text = load_json(os.path.join(work, s["file"]))
            if data is None or s.get("rc") != 0:
                for q in ("p50", "p99", "max", "tps"):
                    metrics[base + "_" + q].add(path, rnd, error="rr client exit %s: %s" % (s.get("rc"), first_line(text)))
                continue
            for q in ("p50", "p99", "max"):
                metrics[base + "_" + q].add(path, rnd, value=data[q + "_us"])
            metrics[base + "_tps"].add(path, rnd, value=data["per_second"])
        elif t == "hs":
            m = metrics["handshakes"]
            if err:
                m.add(path, rnd, error=err)
                continue
            data, text = load_json(os.path.join(work, s["file"]))
            if data is None:
                m.add(path, rnd, error="wgx-bench-nl exit %s: %s" % (s.get("rc"), first_line(text)))
            elif "error" in data:
                m.add(path, rnd, error="wgx-bench-nl: " + data["error"])
            elif data["completed"] < data["peers"]:
                m.add(path, rnd, error="%d of %d handshakes completed within %.0f s"
                      % (data["completed"], data["peers"], data["seconds"]))
            else:
                m.add(path, rnd, value=data["peers"] / max(data["seconds"], 1e-6))
                if data.get("cmd_exit"):
                    warnings.append("%s handshakes round %s: bringing the initiators up exited %d"
                                    % (PATH_LABEL[path], rnd, data["cmd_exit"]))
        elif t == "storm":
            storm_sample(work, metrics, storm_bed, storm_rtts, path, s, err)
        elif t == "burst":
            burst_sample(work, metrics, storm_bed, path, s, err)
        elif t == "rot":
            rot_sample(work, metrics, rot_bed, path, s, err)
        elif t == "setconf":
            ms, mb = metrics["setconf_seconds"], metrics["peer_bytes"]
            if err:
                ms.add(path, rnd, error=err)
                mb.add(path, rnd, error=err)
            elif s["seen"] != s["peers"]:
                e = ("after setconf GET_DEVICE lists %d peers, not %d, so the figures cannot be trusted"
                     " (measured anyway: %.2f s, %.0f bytes/peer)"
                     % (s["seen"], s["peers"], float(s["seconds"]),
                        (s["sunreclaim_kb"] + s["percpu_kb"] + s.get("vmalloc_kb", 0)) * 1024.0 / s["peers"]))
                ms.add(path, rnd, error=e)
                mb.add(path, rnd, error=e)
            else:
                ms.add(path, rnd, value=float(s["seconds"]))
                mb.add(path, rnd, value=(s["sunreclaim_kb"] + s["percpu_kb"] + s.get("vmalloc_kb", 0))
                       * 1024.0 / s["peers"])

    for (p, n), rtts in sorted(storm_rtts.items()):
        if rtts and "storm_ping_all_p99_%d" % n in metrics:
            metrics["storm_ping_all_p99_%d" % n].add(p, 1, value=pct(sorted(rtts), 99))

    for p, info in paths_info.items():
        if "error" in info:
            warnings.insert(0, "%s: %s" % (PATH_LABEL[p], info["error"]))
            # A path that failed its setup was not measured: say so in every
            # traffic cell rather than leave it blank.
            for m in metrics.values():
                cols = [p]
                if m.group == "lane" and p == "wgx":
                    cols = ["wgx_nolane", "wgx_lane", "wgx_nobql", "wgx_noinline"]
                for c in cols:
                    if m.group != "control" and not m.samples[c]:
                        m.add(c, 0, error="path not measured: " + info["error"])

    ceil_total = ceiling.get("total_bytes_per_s") if ceiling else None
    out_metrics = []
    for mid in order:
        m = metrics[mid]
        entry = {"id": m.id, "label": m.label, "unit": m.unit, "group": m.group,
                 "better": "higher" if m.higher else "lower"}
        for p in measured_paths(params, m.group):
            entry[p] = summarize(m.samples[p])
            if m.shares[p]:
                entry[p]["busiest_cpu_share"] = summarize(m.shares[p])
                entry[p]["busiest_cpu_share"]["of"] = m.shares[p][0]["of"]
            t = tcp_per_gb(m.tcp[p])
            if t:
                entry[p]["tcp_per_gb"] = t
        wg = entry.get("wireguard", {}).get("median")
        wx = entry.get("wgx", {}).get("median")
        for p in ("wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0"):
            v = entry.get(p, {}).get("median")
            if wg and v is not None:
                entry["ratio_%s_wireguard" % p] = v / wg
        if wg and wx is not None:
            entry["ratio_wgx_wireguard"] = wx / wg
            # > 1 means wgx did better, whatever the direction of the figure.
            entry["wgx_advantage"] = (wx / wg) if m.higher else (wg / wx if wx else None)
        if m.goodput_bytes and ceil_total:
            for p in ("wgx", "wireguard", "bare"):
                v = entry.get(p, {}).get("median")
                if v is not None and p != "bare":
                    entry["ratio_%s_ceiling" % p] = v * m.goodput_bytes / ceil_total
        out_metrics.append(entry)
    meta["lane_observed"] = lane_obs
    meta["storm_bed"] = storm_bed
    meta["rotation"] = rot_bed
    return out_metrics, ceiling, paths_info, meta, warnings


def parse_qdisc(text):
    """`tc -s qdisc show dev DEV`: the root qdisc's kind, its backlog in
    packets and bytes, and its drop count (an mq root sums its children)."""
    out = {}
    m = re.search(r"qdisc (\S+) \S+ root", text)
    if m:
        out["qdisc"] = m.group(1)
    m = re.search(r"dropped (\d+)", text)
    if m:
        out["qdisc_dropped"] = int(m.group(1))
    m = re.search(r"backlog (\d+)([KM]?)b (\d+)p", text)
    if m:
        out["qdisc_backlog_bytes"] = int(m.group(1)) * {"": 1, "K": 1000, "M": 1000000}[m.group(2)]
        out["qdisc_backlog_pkts"] = int(m.group(3))
    return out


def parse_sender(text):
    """run-guest.sh sender_sampler's lines: the median and maximum of the
    sending device's BQL bytes in flight (summed over its tx queues), of their
    limit, and of its root qdisc's backlog in bytes and packets."""
    b_in, b_lim, q_b, q_p = [], [], [], []
    unit = {"": 1, "K": 1000, "M": 1000000}
    for line in text.splitlines():
        f = line.split()
        try:
            if len(f) == 4 and f[0] == "b":
                b_in.append(int(f[2]))
                b_lim.append(int(f[3]))
            elif len(f) == 4 and f[0] == "q":
                m = re.match(r"(\d+)([KM]?)$", f[2])
                if m:
                    q_b.append(int(m.group(1)) * unit[m.group(2)])
                    q_p.append(int(f[3]))
        except ValueError:
            continue
    out = {}
    for key, vals in (("bql_inflight", b_in), ("bql_limit", b_lim), ("qdisc_bytes", q_b),
                      ("qdisc_pkts", q_p)):
        if vals:
            v = sorted(vals)
            out[key + "_median"] = v[len(v) // 2]
            out[key + "_max"] = v[-1]
            out[key + "_samples"] = len(v)
    return out


def lane_targets(metrics):
    """The lane figure's ratios of medians: the targets (met or not, and by
    how much) and the informative ones.  None when the run has no lane
    figure."""
    by_id = {m["id"]: m for m in metrics if m["group"] == "lane"}
    if not by_id:
        return None

    def ratio(mid, num, den):
        a = (by_id.get(mid, {}).get(num) or {}).get("median")
        b = (by_id.get(mid, {}).get(den) or {}).get("median")
        return a / b if a is not None and b else None

    out = {"targets": [], "info": []}
    for tid, label, num, den, mid, op, bound in LANE_TARGETS:
        r = ratio(mid, num, den)
        t = {"id": tid, "label": label, "metric": mid, "ratio": r, "op": op, "bound": bound}
        if r is not None:
            t["met"] = r <= bound if op == "<=" else r >= bound
            if not t["met"]:
                # How far off: the factor the ratio must still shrink (<=) or grow (>=) by.
                t["off_by"] = (r / bound) if op == "<=" else (bound / r if r else None)
        out["targets"].append(t)
    for tid, label, num, den, mid in LANE_INFO:
        out["info"].append({"id": tid, "label": label, "metric": mid, "ratio": ratio(mid, num, den)})
    return out


def lane_counter_delta(base):
    """a's and b's tx_lane / tx_lane_inline over the probes (files BASE.0 and
    BASE.1, one line "A_LANE A_INLINE B_LANE B_INLINE" each)."""
    try:
        with open(base + ".0") as f0, open(base + ".1") as f1:
            v0 = [int(x) for x in f0.read().split()]
            v1 = [int(x) for x in f1.read().split()]
        if len(v0) != 4 or len(v1) != 4:
            return {}
        d = [b - a for a, b in zip(v0, v1)]
        return {"lane_a": d[0], "inline_a": d[1], "lane_b": d[2], "inline_b": d[3]}
    except (OSError, ValueError):
        return {}


def print_lane(metrics, lane, params):
    """The priority lane figure: a table over LANE_PATHS, the targets, and
    the lane's bed check (who received the bulk)."""
    rows = [m for m in metrics if m["group"] == "lane"]
    if not rows:
        return
    cols = measured_paths(params, "lane")
    print()
    print("priority lane: probes marked TOS %s (DSCP EF) in both directions under a "
          "%d-flow TCP bulk a->b; wgx measured with its lane off (priority-dscp none) and on "
          "(default set)%s" % (params.get("LANE_TOS"), params["LANE_FLOWS"],
                               "; netdev_max_backlog %s (--rx-backlog)" % params["RX_BACKLOG"]
                               if params.get("RX_BACKLOG") else "") +
          ("; a's wgx fq_codel target %s ms (--codel-target)" % params["CODEL_TARGET_MS"]
           if params.get("CODEL_TARGET_MS") else ""))
    w0 = max(len(m["label"]) for m in rows) + 2
    line = "%-*s %-8s" % (w0, "workload", "unit") + "".join("%-24s" % PATH_LABEL[p] for p in cols)
    print(line)
    print("-" * len(line))
    for m in rows:
        row = "%-*s %-8s" % (w0, m["label"], m["unit"])
        for p in cols:
            row += "%-24s" % cell(m.get(p))
        print(row.rstrip())
    for t in lane["targets"]:
        if t["ratio"] is None:
            print("target: %s %s %.2f: not measured" % (t["label"], t["op"], t["bound"]))
            continue
        if t["met"]:
            verdict = "met"
        elif t["op"] == "<=":
            verdict = "MISSED: %.1fx over the bound" % t["off_by"]
        else:
            verdict = "MISSED: %.1f%% short of the bound" % (100 * (1 - t["ratio"] / t["bound"]))
        print("target: %s = %.3f (%s %.2f): %s" % (t["label"], t["ratio"], t["op"], t["bound"], verdict))
    for t in lane["info"]:
        if t["ratio"] is not None:
            print("ratio:  %s = %.3f" % (t["label"], t["ratio"]))
    obs = params.get("_lane_observed") or {}
    for p in cols:
        o = obs.get(p) or []
        if not o:
            continue
        parts = []
        q = [x["qdisc_backlog_pkts"] for x in o if "qdisc_backlog_pkts" in x]
        if q:
            parts.append("a's %s qdisc backlog at the probes' end %s packets"
                         % (o[0].get("qdisc", "?"), "/".join(str(v) for v in q)))
        b = [x for x in o if "bql_inflight_median" in x]
        if b and any(x["bql_inflight_max"] or x["bql_limit_max"] for x in b):
            parts.append("during the probes, a's BQL bytes in flight median/max %s (limit median %s)"
                         % (" ".join("%d/%d" % (x["bql_inflight_median"], x["bql_inflight_max"])
                                     for x in b),
                            "/".join(str(x["bql_limit_median"]) for x in b)))
        qs = [x for x in o if "qdisc_pkts_median" in x]
        if qs:
            parts.append("qdisc backlog during the probes median/max %s packets"
                         % " ".join("%d/%d" % (x["qdisc_pkts_median"], x["qdisc_pkts_max"]) for x in qs))
        qd = [x["qdisc_dropped"] for x in o if "qdisc_dropped" in x]
        if qd and any(qd):
            parts.append("a's qdisc drops since the device was made (cumulative) %s"
                         % "/".join(str(v) for v in qd))
        lc = [x for x in o if "inline_a" in x]
        if lc:
            parts.append("marked packets during the probes, queued on the lane / sent inline, a %s, b %s"
                         % (" ".join("%d/%d" % (x["lane_a"], x["inline_a"]) for x in lc),
                            " ".join("%d/%d" % (x["lane_b"], x["inline_b"]) for x in lc)))
        d = [x["softnet_drops"] for x in o if x.get("softnet_drops") is not None]
        if d:
            parts.append("receive backlog drops during the probes %s" % "/".join(str(v) for v in d))
        if parts:
            print("observed (per round): %s: %s" % (PATH_LABEL[p], "; ".join(parts)))
    bulk = next((m for m in rows if m["id"] == "bulk_lane"), None)
    for p in cols:
        sh = ((bulk or {}).get(p) or {}).get("busiest_cpu_share")
        if sh and "median" in sh:
            print("bed check (lane bulk): %s: the busiest CPU did %.0f%% of the receive work (%s)"
                  "%s" % (PATH_LABEL[p], 100 * sh["median"], sh["of"],
                          "; one outer flow on a NIC-like bed: 100%"
                          if p == "wgx_r0" else ""))


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def cell(summary):
    if not summary or not summary.get("samples"):
        return "-"
    if "median" not in summary:
        return "ERROR"
    s = fmt(summary["median"])
    if summary["n"] > 1:
        s += " [%s-%s]" % (fmt(summary["min"]), fmt(summary["max"]))
    if summary.get("errors"):
        s += " (%d err)" % summary["errors"]
    return s


def share_cell(summary):
    sh = (summary or {}).get("busiest_cpu_share")
    if not sh or "median" not in sh:
        return "-"
    return "%.2f" % sh["median"]


def print_spread(metrics, paths, bed, forwarded=None):
    """The receive spread: throughput and the busiest CPU's share of the
    receive work, per path, for the TCP workloads (and the bed check)."""
    cols = [p for p in PATHS if p in paths]
    rows = [m for m in metrics if m["id"].startswith("tcp_") or m["id"].startswith("udp_")]
    if not rows:
        return
    print()
    print("receive spread (%s bed): median throughput, and in () the busiest CPU's share of the "
          "receive work (tunnels: data decryptions; bare: data packets the veth received)" % bed)
    w0 = max(len(m["label"]) for m in rows) + 2
    # 17 wide, wider for a longer label ("wgx rx-spread off").
    cw = {p: max(17, len(PATH_LABEL[p]) + 2) for p in cols}
    line = "%-*s" % (w0, "workload") + "".join("%-*s" % (cw[p], PATH_LABEL[p]) for p in cols)
    extra = [p for p in ("wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0") if p in cols]
    line += "".join("%-9s" % (p[4:] + "/wg") for p in extra)
    print(line)
    print("-" * len(line))
    for m in rows:
        row = "%-*s" % (w0, m["label"])
        for p in cols:
            e = m.get(p) or {}
            v = fmt(e.get("median")) if "median" in e else ("ERROR" if e.get("samples") else "-")
            row += "%-*s" % (cw[p], "%s (%s)" % (v, share_cell(e)) if "median" in e else v)
        for p in extra:
            r = m.get("ratio_%s_wireguard" % p)
            row += "%-9s" % ("%.2f" % r if r else "-")
        print(row.rstrip())
    # The bed check: does one outer flow land on one CPU, as with RSS?  For
    # TCP on wgx_r0 (rx-spread off: WireGuard's one-CPU receive); the
    # headline wgx (rx-spread auto) spreads a busy peer by itself.
    for mid, what, path in (("udp_1392", "bare UDP 1 flow", "bare"),
                            ("tcp_16_ab", "wgx rx-spread off (1 port) TCP 16 flows", "wgx_r0")):
        m = next((x for x in metrics if x["id"] == mid), None)
        if m and path not in paths:
            print("bed check: %s: not measured, the check needs path %s (--paths ... %s)" % (what, path, path))
            continue
        sh = ((m or {}).get(path) or {}).get("busiest_cpu_share") if m else None
        if sh and "median" in sh:
            print("bed check: %s: the busiest CPU did %.0f%% of the receive work (%s); "
                  "one outer flow on a NIC-like bed: 100%%" % (what, 100 * sh["median"], sh["of"]))
    if bed == "routed":
        print("bed check: routed: %s" % ("r's forwarding count not recorded (the guest did not finish)"
                                         if forwarded is None else
                                         "r forwarded %d IPv4 datagrams over the run (every packet between a "
                                         "and b crosses it)" % forwarded))


def print_tcp_quality(metrics):
    """Retransmissions and reordering per GB: for every TCP workload (and
    the bulk loads) and path, the sender's retransmitted segments and the
    segments the receiver queued out of order, per 1e9 bytes received,
    medians over rounds; then where the sender detected reordering."""
    rows = [m for m in metrics if any((m.get(p) or {}).get("tcp_per_gb") for p in PATHS)]
    if not rows:
        return
    cols = [p for p in PATHS if any((m.get(p) or {}).get("tcp_per_gb") for m in rows)]
    print()
    print("retransmissions and reordering per GB: the sender's retransmitted segments (RetransSegs) / "
          "segments the receiver queued out of order (TCPOFOQueue), per 1e9 bytes received, median over "
          "rounds (bulk loads: over the probes' window, bytes of b's device)")

    def tcp_cell(e):
        t = (e or {}).get("tcp_per_gb")
        if not t:
            return "-"
        return "%s / %s" % (fmt(t["retrans"].get("median")), fmt(t["ofo"].get("median")))

    w0 = max(len(m["label"]) for m in rows) + 2
    cw = {p: max(len(PATH_LABEL[p]), max(len(tcp_cell(m.get(p))) for m in rows)) + 2 for p in cols}
    line = "%-*s" % (w0, "workload") + "".join("%-*s" % (cw[p], PATH_LABEL[p]) for p in cols)
    print(line)
    print("-" * len(line))
    for m in rows:
        print(("%-*s" % (w0, m["label"]) + "".join("%-*s" % (cw[p], tcp_cell(m.get(p))) for p in cols)).rstrip())
    # Reordering the sender saw: what a receive path that delivers out of
    # order would cause (DSACKs received, which also mark spurious
    # retransmissions, are in the JSON).
    seen = []
    for m in rows:
        for p in cols:
            t = (m.get(p) or {}).get("tcp_per_gb")
            if t and t["reorder"].get("max"):
                seen.append("%s, %s %s" % (PATH_LABEL[p], m["label"], fmt(t["reorder"]["median"])))
    print("sender-detected reordering per GB (TCPSACKReorder+TCPTSReorder, median): %s"
          % ("; ".join(seen) if seen else "none in any run"))
    # Where losses may come from: a receive backlog that overflowed.
    drops = []
    for m in rows:
        for p in cols:
            t = (m.get(p) or {}).get("tcp_per_gb")
            d = [x["softnet_drops"] for x in (t or {}).get("samples", []) if "softnet_drops" in x]
            if any(d):
                drops.append("%s, %s %s" % (PATH_LABEL[p], m["label"], "/".join(str(v) for v in d)))
    if drops:
        print("receive backlog drops during the runs (/proc/net/softnet_stat, every CPU; per round): %s"
              % "; ".join(drops))


def print_table(metrics, ceiling, warnings, paths, header):
    print(header)
    if ceiling and "total_bytes_per_s" in ceiling:
        per = ", ".join("cpu%d %.2f" % (c["cpu"], c["bytes_per_s"] * 8 / 1e9) for c in ceiling["per_cpu"])
        print("crypto ceiling (chacha20poly1305_encrypt, 1420 B): %.2f Gbit/s total (%s)"
              % (ceiling["total_gbit_per_s"], per))
    elif ceiling:
        print("crypto ceiling: ERROR: %s" % ceiling["error"])
    cols = [p for p in MAIN_PATHS if p in paths]
    metrics = [m for m in metrics if m["group"] != "lane"]
    if not metrics:
        return
    w0 = max(len(m["label"]) for m in metrics) + 2
    line = "%-*s %-8s" % (w0, "workload", "unit") + "".join("%-24s" % PATH_LABEL[p] for p in cols)
    line += "%-9s %s" % ("wgx/wg", "wgx/ceil")
    print(line)
    print("-" * len(line))
    errors = []
    for m in metrics:
        row = "%-*s %-8s" % (w0, m["label"], m["unit"])
        for p in cols:
            row += "%-24s" % cell(m.get(p))
            if m.get(p, {}).get("error"):
                errors.append((m["label"], p, m[p]["error"]))
        r = m.get("ratio_wgx_wireguard")
        row += "%-9s %s" % (("%.2f" % r + ("" if m["better"] == "higher" else "*")) if r else "-",
                            ("%.1f%%" % (100 * m["ratio_wgx_ceiling"])) if "ratio_wgx_ceiling" in m else "")
        print(row.rstrip())
    print("median [min-max] over rounds; * = lower is better (wgx/wg < 1 means wgx is faster)")
    # One line per distinct reason, with the figures it cost.
    grouped = {}
    for label, path, msg in errors:
        grouped.setdefault((path, msg), []).append(label)
    for (path, msg), labels in list(grouped.items())[:30]:
        what = labels[0] if len(labels) == 1 else "%d figures (%s, ...)" % (len(labels), labels[0])
        print("error: %s, %s: %s" % (PATH_LABEL[path], what, msg))
    if len(grouped) > 30:
        print("... %d more errors in the JSON" % (len(grouped) - 30))
    for w in warnings[:20]:
        print("note: " + w)


def plot(metrics, prefix, title):
    """Write PREFIX.png with bench/plot.gp: wgx's advantage over wireguard.ko
    per workload (maxima left out), and goodput as a share of the crypto
    ceiling."""
    # The main ratios: every figure but the maxima (one sample each round,
    # mostly host noise under TCG) and the background bulk.
    adv = [(m["label"], m["wgx_advantage"]) for m in metrics
           if m.get("wgx_advantage") and m["id"] != "bulk_loaded" and not m["id"].endswith("_max")
           and m["group"] != "lane"]
    ceil = [(m["label"], m.get("ratio_wireguard_ceiling"), m.get("ratio_wgx_ceiling")) for m in metrics
            if "ratio_wireguard_ceiling" in m or "ratio_wgx_ceiling" in m]
    if not adv and not ceil:
        return False  # nothing to chart (e.g. --only lane)
    adv_file, ceil_file = prefix + ".adv.dat", prefix + ".ceil.dat"
    with open(adv_file, "w") as f:
        for label, v in adv:
            f.write('"%s" %.4f\n' % (label.replace('"', "'"), v))
    with open(ceil_file, "w") as f:
        for label, a, b in ceil:
            f.write('"%s" %s %s\n' % (label.replace('"', "'"),
                                       "%.4f" % (100 * a) if a is not None else "NaN",
                                       "%.4f" % (100 * b) if b is not None else "NaN"))
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.gp")
    cmd = ["gnuplot", "-e",
           "advfile='%s'; ceilfile='%s'; outfile='%s'; nadv=%d; nceil=%d; plottitle='%s'"
           % (adv_file, ceil_file, prefix + ".png", len(adv), len(ceil), title.replace("'", "")), gp]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("report: gnuplot failed: %s" % first_line(r.stderr), file=sys.stderr)
        return r.returncode == 0
    finally:
        os.unlink(adv_file)
        os.unlink(ceil_file)


def git(*args):
    try:
        return subprocess.run(["git"] + list(args), capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--wall", type=int, default=None)
    ap.add_argument("--vm-exit", type=int, default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--git-commit", default=None)
    ap.add_argument("--git-dirty", type=int, default=None)
    ap.add_argument("--module", default="", help="wgx.ko's sha256 prefix and mtime")
    ap.add_argument("--host-load", default="", help="host load averages around the run")
    a = ap.parse_args()

    params = read_params(os.path.join(a.work, "params.sh"))
    metrics, ceiling, paths_info, meta, warnings = build(a.work, params, a.quick)
    lane = lane_targets(metrics)
    with open(os.path.join(a.work, "samples.jsonl")) as f:
        telemetry = build_telemetry(a.work, params, [json.loads(x) for x in f if x.strip()])
    if lane:
        lane["observed"] = meta.get("lane_observed", {})

    accel = "unknown"
    try:
        with open(os.path.join(a.work, "vm.err")) as f:
            for line in f:
                m = re.match(r"vm: (kvm|tcg),", line)
                if m:
                    accel = m.group(1)
    except OSError:
        pass
    host_cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                host_cpu = line.split(":", 1)[1].strip()
                break
    if a.vm_exit:
        warnings.insert(0, "the VM run did not finish cleanly (scripts/vm exit %d): figures are partial"
                        % a.vm_exit)

    result = {
        "schema": 1,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": a.command,
        "quick": a.quick,
        "git_commit": a.git_commit or git("rev-parse", "HEAD"),
        "git_dirty_kmod": bool(a.git_dirty) if a.git_dirty is not None else
        bool(git("status", "--porcelain", "--untracked-files=no", "kmod", "include")),
        "wgx_ko": a.module,
        "vm": {"accel": accel, "smp": a.smp, "kernel": meta.get("kernel"), "guest_cpus": meta.get("cpus"),
               "netdev_max_backlog": meta.get("netdev_max_backlog"),
               "guest_cpu_model": meta.get("cpu_model"), "host_cpu": host_cpu, "host_cpus": os.cpu_count(),
               "wall_seconds": a.wall, "host_loadavg": a.host_load},
        "params": params,
        "bed": {"bed": meta.get("bed"), "outer_b": meta.get("outer_b"), "r_forwarded": meta.get("r_forwarded")},
        "paths": paths_info,
        "ceiling": ceiling,
        "metrics": metrics,
        "lane": lane,
        "telemetry": telemetry,
        "storm_bed": meta.get("storm_bed", []),
        "rotation": meta.get("rotation", []),
        "warnings": warnings,
    }
    with open(a.out + ".json", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    header = "wgx benchmark %s: %s, %s vCPUs (%s), kernel %s, %s round%s, host load %s" % (
        result["date"], a.command, a.smp, accel, meta.get("kernel"), params["ROUNDS"],
        "" if params["ROUNDS"] == 1 else "s", a.host_load or "unknown")
    print_table(metrics, ceiling, warnings, str(params["PATHS"]).split(), header)
    print_spread(metrics, str(params["PATHS"]).split(), params.get("BED", "veth"), meta.get("r_forwarded"))
    print_tcp_quality(metrics)
    print_storm_bed(meta.get("storm_bed", []), meta.get("cpus"))
    print_rotation(meta.get("rotation", []), params)
    if result["lane"]:
        print_lane(metrics, result["lane"], dict(params, _lane_observed=meta.get("lane_observed")))
    print_telemetry(telemetry)
    if plot(metrics, a.out, "wgx vs wireguard.ko, %s, %d vCPUs, %s" % (accel, a.smp, result["date"])):
        print("results: %s.json %s.png" % (a.out, a.out))
    else:
        print("results: %s.json" % a.out)


if __name__ == "__main__":
    main()
