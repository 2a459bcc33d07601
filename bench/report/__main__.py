"""python3 -m bench.report: the command line (see the package's docstring)."""
import argparse
import datetime
import json
import os
import re
import subprocess

from .build import build
from .common import read_params
from .latency import lane_targets, print_lane
from .mtu import print_mtu
from .rotation import print_rotation
from .storm import print_storm_bed
from .table import plot, print_table
from .telemetry import build_telemetry, print_telemetry
from .traffic import print_spread, print_tcp_quality


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
    metrics, ceiling, paths_info, meta, warnings = build(a.work, params)
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
        "bed": {"bed": meta.get("bed"), "outer_b": meta.get("outer_b"), "r_forwarded": meta.get("r_forwarded"),
                "tcp_ecn": meta.get("tcp_ecn")},
        "paths": paths_info,
        "ceiling": ceiling,
        "metrics": metrics,
        "lane": lane,
        "telemetry": telemetry,
        "storm_bed": meta.get("storm_bed", []),
        "rotation": meta.get("rotation", []),
        "mtu": meta.get("mtu", []),
        "warnings": warnings,
    }
    with open(a.out + ".json", "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    header = "wgx benchmark %s: %s, %s vCPUs (%s), kernel %s, %s round%s, host load %s" % (
        result["date"], a.command, a.smp, accel, meta.get("kernel"), params["ROUNDS"],
        "" if params["ROUNDS"] == 1 else "s", a.host_load or "unknown")
    print_table(metrics, ceiling, warnings, str(params["PATHS"]).split(), header)
    print_spread(metrics, str(params["PATHS"]).split(), params.get("BED", "veth"), meta.get("r_forwarded"),
                 paths_info)
    print_tcp_quality(metrics)
    print_storm_bed(meta.get("storm_bed", []), meta.get("cpus"))
    print_rotation(meta.get("rotation", []), params)
    if result["lane"]:
        print_lane(metrics, result["lane"], dict(params, _lane_observed=meta.get("lane_observed")))
    print_telemetry(telemetry)
    print_mtu(result["mtu"], params)
    if plot(metrics, a.out, "wgx vs wireguard.ko, %s, %d vCPUs, %s" % (accel, a.smp, result["date"])):
        print("results: %s.json %s.png" % (a.out, a.out))
    else:
        print("results: %s.json" % a.out)


if __name__ == "__main__":
    main()
