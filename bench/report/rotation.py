"""The key rotation figure: the data-path gap, lost packets and the largest
one-way delay of a paced UDP flow while b rotates its static key
(bench/rotgap.py), with its bed check."""
import json
import os

from .common import PATH_LABEL, first_line, load_json


def declare(run):
    """The rotation figures."""
    params = run.params
    if params.get("ROT_SECONDS", 0) > 0:
        run.metric("rot_gap", "rotation: longest gap, %s pkt/s flow" % params.get("ROT_RATE"), "ms", False,
                   group="control")
        run.metric("rot_lost", "rotation: packets lost", "pkts", False, group="control")
        run.metric("rot_delay_max", "rotation: one-way delay max", "ms", False, group="control")


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


def on_rot(run, s):
    """One rotation run (bench/run-guest.sh rot_kind): the figures (longest
    gap, lost packets, largest one-way delay) and the bed check (what the
    sender did, when the steps ran, where the gap fell, the devices'
    counters and session keys after)."""
    work, metrics, rot_bed = run.work, run.metrics, run.rot_bed
    path, err = s.get("path"), s.get("error")
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
