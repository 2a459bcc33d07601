"""The per-packet cost of the TCP telemetry hooks (kmod/telemetry_bench.h's
micro-benchmark, and end-to-end rates with tcp_telemetry on and off), and
the crypto ceiling the goodput figures are compared with."""
import os
import re
import statistics

from .common import fmt, first_line, load_json


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


def on_ceiling(run, s):
    """The crypto ceiling's run: per CPU and total bytes per second."""
    if s.get("error"):
        run.ceiling = {"error": s.get("error")}
        return
    with open(os.path.join(run.work, s["file"])) as f:
        text = f.read()
    per_cpu, total = parse_ceiling(text)
    if total:
        run.ceiling = {"seconds": run.params.get("CEILING_SECONDS"), "buffer_bytes": 1420,
                       "per_cpu": per_cpu, "total_bytes_per_s": total,
                       "total_gbit_per_s": total * 8 / 1e9}
    else:
        run.ceiling = {"error": "unreadable crypto_ceiling output: " + first_line(text)}


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
