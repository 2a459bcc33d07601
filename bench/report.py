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

PATHS = ["bare", "wireguard", "wgx", "wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_nolane", "wgx_lane",
         "wgx_nobql"]
MAIN_PATHS = ["bare", "wireguard", "wgx"]
# The priority lane figure's columns: wgx (path wgx, device wgx0) twice,
# with its lane off (priority-dscp none) and on (the default set); the
# receive-scaling paths (lane on) when a lane-only run asked for them.
LANE_PATHS = ["bare", "wireguard", "wgx_nolane", "wgx_lane", "wgx_nobql", "wgx_p2", "wgx_p4",
              "wgx_p8", "wgx_rs"]
LANE_SCALED = ["wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs"]
PATH_LABEL = {"bare": "bare veth", "wireguard": "wireguard.ko", "wgx": "wgx",
              "wgx_p2": "wgx 2 ports", "wgx_p4": "wgx 4 ports", "wgx_p8": "wgx 8 ports",
              "wgx_rs": "wgx rx-spread", "wgx_nolane": "wgx lane off", "wgx_lane": "wgx lane on",
              "wgx_nobql": "wgx lane on, no BQL"}
# Targets of issue #14 (medians of the lane figure): wgx's lane p99 against
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
                    else ("wgx" in paths and scaled) if p == "wgx_nobql"
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

    def add(self, path, rnd, value=None, error=None):
        self.samples[path].append({"round": rnd, "value": value, "error": error})

    def add_share(self, path, rnd, share, what, cpus):
        self.shares[path].append({"round": rnd, "value": share, "error": None, "of": what,
                                  "cpus": cpus})


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
    if params.get("SETCONF_PEERS", 0) > 0:
        metric("setconf_seconds", "setconf %d peers" % params["SETCONF_PEERS"], "s", False, group="control")
        metric("peer_bytes", "memory per peer (slab+percpu)", "bytes", False, group="control")

    warnings = []
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
                obs.append(o)
            if not s.get("covered"):
                m.add(path, rnd, error="the background load was not running through the probes")
            elif secs <= 0 or s.get("rx_bytes", 0) <= 0:
                m.add(path, rnd, error="no bulk traffic counted during the probes")
            else:
                m.add(path, rnd, value=s["rx_bytes"] * 8 / secs / 1e6)
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
        elif t == "setconf":
            ms, mb = metrics["setconf_seconds"], metrics["peer_bytes"]
            if err:
                ms.add(path, rnd, error=err)
                mb.add(path, rnd, error=err)
            elif s["seen"] != s["peers"]:
                e = ("after setconf GET_DEVICE lists %d peers, not %d, so the figures cannot be trusted"
                     " (measured anyway: %.2f s, %.0f bytes/peer)"
                     % (s["seen"], s["peers"], float(s["seconds"]),
                        (s["sunreclaim_kb"] + s["percpu_kb"]) * 1024.0 / s["peers"]))
                ms.add(path, rnd, error=e)
                mb.add(path, rnd, error=e)
            else:
                ms.add(path, rnd, value=float(s["seconds"]))
                mb.add(path, rnd, value=(s["sunreclaim_kb"] + s["percpu_kb"]) * 1024.0 / s["peers"])

    for p, info in paths_info.items():
        if "error" in info:
            warnings.insert(0, "%s: %s" % (PATH_LABEL[p], info["error"]))
            # A path that failed its setup was not measured: say so in every
            # traffic cell rather than leave it blank.
            for m in metrics.values():
                cols = [p]
                if m.group == "lane" and p == "wgx":
                    cols = ["wgx_nolane", "wgx_lane", "wgx_nobql"]
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
        wg = entry.get("wireguard", {}).get("median")
        wx = entry.get("wgx", {}).get("median")
        for p in ("wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs"):
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


def print_lane(metrics, lane, params):
    """The priority lane figure: a table over LANE_PATHS, the targets, and
    the lane's bed check (who received the bulk)."""
    rows = [m for m in metrics if m["group"] == "lane"]
    if not rows:
        return
    cols = measured_paths(params, "lane")
    print()
    print("priority lane (issue #14): probes marked TOS %s (DSCP EF) in both directions under a "
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
                          "; one outer flow on a NIC-like bed: 100%" if p in ("wgx_nolane", "wgx_lane", "wgx_nobql") else ""))


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


def print_spread(metrics, paths, bed):
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
    line = "%-*s" % (w0, "workload") + "".join("%-17s" % PATH_LABEL[p] for p in cols)
    extra = [p for p in ("wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs") if p in cols]
    line += "".join("%-9s" % (p[4:] + "/wg") for p in extra)
    print(line)
    print("-" * len(line))
    for m in rows:
        row = "%-*s" % (w0, m["label"])
        for p in cols:
            e = m.get(p) or {}
            v = fmt(e.get("median")) if "median" in e else ("ERROR" if e.get("samples") else "-")
            row += "%-17s" % ("%s (%s)" % (v, share_cell(e)) if "median" in e else v)
        for p in extra:
            r = m.get("ratio_%s_wireguard" % p)
            row += "%-9s" % ("%.2f" % r if r else "-")
        print(row.rstrip())
    # The bed check: does one outer flow land on one CPU, as with RSS?
    for mid, what in (("udp_1392", "bare UDP 1 flow"), ("tcp_16_ab", "wgx (1 port) TCP 16 flows")):
        m = next((x for x in metrics if x["id"] == mid), None)
        path = "bare" if mid.startswith("udp") else "wgx"
        sh = ((m or {}).get(path) or {}).get("busiest_cpu_share") if m else None
        if sh and "median" in sh:
            print("bed check: %s: the busiest CPU did %.0f%% of the receive work (%s); "
                  "one outer flow on a NIC-like bed: 100%%" % (what, 100 * sh["median"], sh["of"]))


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
        "paths": paths_info,
        "ceiling": ceiling,
        "metrics": metrics,
        "lane": lane,
        "warnings": warnings,
    }
    with open(a.out + ".json", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    header = "wgx benchmark %s: %s, %s vCPUs (%s), kernel %s, %s round%s, host load %s" % (
        result["date"], a.command, a.smp, accel, meta.get("kernel"), params["ROUNDS"],
        "" if params["ROUNDS"] == 1 else "s", a.host_load or "unknown")
    print_table(metrics, ceiling, warnings, str(params["PATHS"]).split(), header)
    print_spread(metrics, str(params["PATHS"]).split(), params.get("BED", "veth"))
    if result["lane"]:
        print_lane(metrics, result["lane"], dict(params, _lane_observed=meta.get("lane_observed")))
    if plot(metrics, a.out, "wgx vs wireguard.ko, %s, %d vCPUs, %s" % (accel, a.smp, result["date"])):
        print("results: %s.json %s.png" % (a.out, a.out))
    else:
        print("results: %s.json" % a.out)


if __name__ == "__main__":
    main()
