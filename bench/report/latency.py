"""Latency: ping and TCP request/response, idle and under a bulk load; and
the priority lane figure (marked probes under a bulk load, wgx with its
lane off and on), its targets and what was observed on the sender."""
import os
import re

from .common import LANE_SCALED, PATH_LABEL, cell, first_line, load_json, measured_paths, parse_ping, pct
from .traffic import add_receive_share


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


def declare(run):
    """The latency figures (idle, loaded), then the lane figure's."""
    params = run.params
    loads = ["idle"] if params.get("LATENCY", 1) == 1 else []
    if params.get("LOADED") == 1:
        loads.append("loaded")
    for load in loads:
        suffix = "" if load == "idle" else ", %d-flow bulk" % params["LOAD_FLOWS"]
        for q in ["p50", "p99", "max"]:
            run.metric("ping_%s_%s" % (load, q), "ping %s%s" % (q, suffix), "us", False, group="latency")
        for q in ["p50", "p99", "max"]:
            run.metric("rr_%s_%s" % (load, q), "TCP %dB req/resp %s%s" % (params["RR_SIZE"], q, suffix),
                       "us", False, group="latency")
        run.metric("rr_%s_tps" % load, "TCP %dB req/resp rate%s" % (params["RR_SIZE"], suffix),
                   "trans/s", True, group="latency")
        if load == "loaded":
            run.metric("bulk_loaded", "bulk %d flows, goodput during the probes" % params["LOAD_FLOWS"],
                       "Mbit/s", True, group="latency")
    if params.get("LANE") == 1:
        tos = params.get("LANE_TOS", "0xb8")
        suffix = ", marked %s, %d-flow bulk" % (tos, params["LANE_FLOWS"])
        for q in ["p50", "p99", "max"]:
            run.metric("rr_lane_%s" % q, "TCP %dB req/resp %s%s" % (params["RR_SIZE"], q, suffix),
                       "us", False, group="lane")
        run.metric("rr_lane_tps", "TCP %dB req/resp rate%s" % (params["RR_SIZE"], suffix),
                   "trans/s", True, group="lane")
        for q in ["p50", "p99", "max"]:
            run.metric("ping_lane_%s" % q, "ping %s%s" % (q, suffix), "us", False, group="lane")
        run.metric("bulk_lane", "bulk %d flows, total goodput during the probes" % params["LANE_FLOWS"],
                   "Mbit/s", True, group="lane")


def on_ping(run, s):
    """One ping run (idle, loaded or lane): p50, p99 and max round trip; a
    note when pings were lost."""
    path, rnd = s.get("path"), s.get("round", 0)
    base = s["metric"]  # ping_idle / ping_loaded
    with open(os.path.join(run.work, s["file"])) as f:
        text = f.read()
    rtts, tx, rx = parse_ping(text)
    if not rtts:
        for q in ("p50", "p99", "max"):
            run.metrics[base + "_" + q].add(path, rnd, error="ping: no reply (%s)" % first_line(text))
        return
    rtts.sort()
    for q, v in (("p50", pct(rtts, 50)), ("p99", pct(rtts, 99)), ("max", rtts[-1])):
        run.metrics[base + "_" + q].add(path, rnd, value=v)
    if rx < tx:
        run.warnings.append("%s %s round %s: %d of %d pings lost" % (PATH_LABEL[path], base, rnd, tx - rx, tx))


def on_rr(run, s):
    """One request/response run (bench/rr.c): p50, p99, max and rate."""
    path, rnd = s.get("path"), s.get("round", 0)
    base = s["metric"]
    data, text = load_json(os.path.join(run.work, s["file"]))
    if data is None or s.get("rc") != 0:
        for q in ("p50", "p99", "max", "tps"):
            run.metrics[base + "_" + q].add(path, rnd, error="rr client exit %s: %s" % (s.get("rc"), first_line(text)))
        return
    for q in ("p50", "p99", "max"):
        run.metrics[base + "_" + q].add(path, rnd, value=data[q + "_us"])
    run.metrics[base + "_tps"].add(path, rnd, value=data["per_second"])


def on_bulk(run, s):
    """The bulk load under the probes (loaded latency, lane): its goodput
    over the probes' window, who received it, and for the lane what the
    sender's qdisc, BQL and lane counters showed."""
    m = run.metrics.get(s["metric"])
    path, rnd, err = s.get("path"), s.get("round", 0), s.get("error")
    secs = float(s.get("seconds", 0))
    if err:
        m.add(path, rnd, error=err)
        return
    # The bed check of the lane figure: who received the bulk.
    add_receive_share(m, path, rnd, s)
    if s["metric"] == "bulk_lane":
        obs = run.lane_obs.setdefault(path, [])
        o = {"round": rnd, "softnet_drops": s.get("softnet_drops")}
        for key, parse in (("qdisc_file", parse_qdisc), ("sender_file", parse_sender)):
            if s.get(key):
                try:
                    with open(os.path.join(run.work, s[key])) as f:
                        o.update(parse(f.read()))
                except OSError:
                    pass
        if s.get("lane_counters_file"):
            o.update(lane_counter_delta(os.path.join(run.work, s["lane_counters_file"])))
        obs.append(o)
    if not s.get("covered"):
        m.add(path, rnd, error="the background load was not running through the probes")
    elif secs <= 0 or s.get("rx_bytes", 0) <= 0:
        m.add(path, rnd, error="no bulk traffic counted during the probes")
    else:
        m.add(path, rnd, value=s["rx_bytes"] * 8 / secs / 1e6)
        # Over the probes' window, per byte b's device counted.
        m.add_tcp(path, rnd, s, s["rx_bytes"])


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
