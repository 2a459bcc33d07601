"""build(): one run's samples -> the figures.  Each figure family declares
its figures (in display order), each sample goes to its family's reader by
type, and every figure is then summarized per path with its ratios."""
import json
import os

from . import latency, mtu, rotation, setconf, storm, telemetry, traffic
from .common import PATH_LABEL, SCALED_PATHS, Run, measured_paths, summarize
from .traffic import tcp_per_gb


def read_samples(work):
    """WORK/samples.jsonl -> its samples, in order."""
    samples = []
    with open(os.path.join(work, "samples.jsonl")) as f:
        for line in f:
            line = line.strip()
            if line:
                samples.append(json.loads(line))
    return samples


def on_meta(run, s):
    """The guest: kernel, CPUs, receive backlog."""
    run.meta = {k: v for k, v in s.items() if k != "type"}


def on_bed(run, s):
    """The bed (nic, veth, routed) and b's outer address."""
    run.meta["bed"] = s.get("bed")
    run.meta["outer_b"] = s.get("outer_b")
    run.meta["tcp_ecn"] = s.get("tcp_ecn")


def on_routed(run, s):
    """The routed bed's forwarding count."""
    run.meta["r_forwarded"] = s.get("forwarded")


def on_path(run, s):
    """One path's setup: its MTU, or the error that left it unmeasured."""
    run.paths_info[s.get("path")] = {k: v for k, v in s.items() if k not in ("type", "path")}


# Sample type (bench/run-guest.sh) -> its reader.
READERS = {
    "meta": on_meta, "bed": on_bed, "routed": on_routed, "path": on_path,
    "ceiling": telemetry.on_ceiling, "bulk": latency.on_bulk, "iperf": traffic.on_iperf,
    "ping": latency.on_ping, "rr": latency.on_rr, "hs": storm.on_hs, "storm": storm.on_storm,
    "burst": storm.on_burst, "rot": rotation.on_rot, "setconf": setconf.on_setconf,
    "mtu": mtu.on_mtu,
}

# The families' figures, in display order.
FAMILIES = (traffic, latency, storm, rotation, setconf)


def mark_unmeasured(run):
    """A path that failed its setup was not measured: say so first among
    the warnings and in every traffic cell rather than leave it blank."""
    for p, info in run.paths_info.items():
        if "error" in info:
            run.warnings.insert(0, "%s: %s" % (PATH_LABEL[p], info["error"]))
            for m in run.metrics.values():
                cols = [p]
                if m.group == "lane" and p == "wgx":
                    cols = ["wgx_nolane", "wgx_lane", "wgx_nobql", "wgx_noinline"]
                for c in cols:
                    if m.group != "control" and not m.samples[c]:
                        m.add(c, 0, error="path not measured: " + info["error"])


def figure(m, params, ceil_total):
    """Metric M -> its JSON entry: per measured path the summary (with the
    busiest CPU's share and the TCP counters per GB), and the ratios to
    wireguard.ko and to the crypto ceiling (CEIL_TOTAL bytes/s or None)."""
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
    for p in SCALED_PATHS:
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
    return entry


def build(work, params):
    """Run directory WORK (params.sh read into PARAMS) -> (figures, crypto
    ceiling, paths' setup, meta with the bed checks, warnings)."""
    run = Run(work, params)
    for family in FAMILIES:
        family.declare(run)
    for s in read_samples(work):
        reader = READERS.get(s.get("type"))
        if reader:
            reader(run, s)
    storm.finish(run)
    mark_unmeasured(run)
    ceil_total = run.ceiling.get("total_bytes_per_s") if run.ceiling else None
    out_metrics = [figure(run.metrics[mid], params, ceil_total) for mid in run.order]
    run.meta["lane_observed"] = run.lane_obs
    run.meta["storm_bed"] = run.storm_bed
    run.meta["rotation"] = run.rot_bed
    run.meta["mtu"] = mtu.finish(run)
    return out_metrics, run.ceiling, run.paths_info, run.meta, run.warnings
