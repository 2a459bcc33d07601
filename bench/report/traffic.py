"""TCP throughput and UDP packet rate (iperf3), the receive spread (the
busiest CPU's share of the receive work, the bed check) and the TCP
counters per GB received."""
import os

from .common import PATH_LABEL, PATHS, SCALED_PATHS, TCP_COUNTERS, fmt, first_line, load_json, share_cell, summarize


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


def declare(run):
    """The TCP and UDP figures, in display order."""
    params = run.params
    dirs = {"ab": "a->b", "ba": "b->a"}
    for flows in str(params["TCP_FLOWS"]).split():
        for d in str(params["TCP_DIRS"]).split():
            run.metric("tcp_%s_%s" % (flows, d), "TCP %s flow%s %s" % (flows, "" if flows == "1" else "s", dirs[d]),
                       "Mbit/s", True, goodput_bytes=1e6 / 8)
    for size in str(params["UDP_SIZES"]).split():
        run.metric("udp_%s" % size, "UDP %s-byte payload, received" % size, "kpkt/s", True,
                   goodput_bytes=1000.0 * int(size))


def on_iperf(run, s):
    """One iperf3 run of a TCP or UDP figure: its rate, its TCP counters and
    who received it; a note when the receiving device counted less than
    iperf3 did.  Runs of other workloads (telemetry) are skipped."""
    m = run.metrics.get(s["metric"])
    if m is None:
        return
    path, rnd = s.get("path"), s.get("round", 0)
    data, text = load_json(os.path.join(run.work, s["file"]))
    if data is None:
        m.add(path, rnd, error="iperf3 exit %s: %s" % (s.get("rc"), first_line(text)))
        return
    if data.get("error"):
        m.add(path, rnd, error="iperf3: " + data["error"])
        return
    recv = data.get("end", {}).get("sum_received") or {}
    nbytes = recv.get("bytes", 0)
    if not nbytes:
        m.add(path, rnd, error="iperf3 reports 0 bytes received")
        return
    if s["metric"].startswith("udp_"):
        size = int(s["metric"].split("_")[1])
        secs = recv.get("seconds") or run.params["UDP_SECONDS"]
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
        run.warnings.append("%s %s round %s: receiving device counted %d bytes, iperf3 %d"
                            % (PATH_LABEL[path], s["metric"], rnd, rx, nbytes))


def print_spread(metrics, paths, bed, forwarded=None, paths_info=None):
    """The receive spread: throughput and the busiest CPU's share of the
    receive work, per path, for the TCP workloads (and the bed check;
    PATHS_INFO: each path's setup record, with its devices' link kinds)."""
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
    # Ratio columns: p2/wg ... r0/wg, and the mixed pairs' wgx_wg/wg, wg_wgx/wg.
    extra = [p for p in SCALED_PATHS if p in cols]
    head = {p: (p if p in ("wgx_wg", "wg_wgx") else p[4:]) + "/wg" for p in extra}
    rw = {p: max(9, len(head[p]) + 2) for p in extra}
    line += "".join("%-*s" % (rw[p], head[p]) for p in extra)
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
            row += "%-*s" % (rw[p], "%.2f" % r if r else "-")
        print(row.rstrip())
    # The mixed pairs against wireguard.ko at both ends, TCP 16 flows a->b:
    # wgx in its default configuration must not slow a wireguard.ko peer.
    m16 = next((x for x in metrics if x["id"] == "tcp_16_ab"), None)
    mixed = [p for p in ("wgx_wg", "wg_wgx") if p in cols]
    if m16 and mixed:
        parts = []
        for p in mixed:
            r = m16.get("ratio_%s_wireguard" % p)
            parts.append("%s %s" % (PATH_LABEL[p], "%.2fx" % r if r else "not measured"))
        print("mixed pairs, TCP 16 flows a->b, of wireguard.ko->wireguard.ko (target >= 1.00x): %s"
              % "; ".join(parts))
    # Bed check: the link kinds the mixed pairs' devices really had in a and b.
    kinds = ["%s: a %s, b %s" % (p, (paths_info or {})[p].get("kind_a", "?"), (paths_info or {})[p].get("kind_b", "?"))
             for p in ("wgx_wg", "wg_wgx") if p in cols and "kind_a" in (paths_info or {}).get(p, {})]
    if kinds:
        print("bed check: mixed pairs' link kinds: %s" % "; ".join(kinds))
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
