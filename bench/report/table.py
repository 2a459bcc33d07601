"""The main table (every figure but the lane's, per main path, with the
ratios to wireguard.ko and the crypto ceiling) and the chart
(bench/plot.gp)."""
import os
import subprocess
import sys

from .common import MAIN_PATHS, PATH_LABEL, cell, first_line


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
    gp = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "plot.gp")
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
