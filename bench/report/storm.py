"""Handshakes: 16 peers at once, the storms (N initiators against one
responder, an established peer pinged meanwhile) and the responder's
bursts of prepared initiations; each wave's bed check."""
import json
import os
import re

from .common import PATH_LABEL, first_line, load_json, parse_ping, pct


def declare(run):
    """The handshake, storm and burst figures, in display order."""
    params = run.params
    if params.get("HS_PEERS", 0) > 0:
        run.metric("handshakes", "handshakes completed, %d peers at once" % params["HS_PEERS"],
                   "hs/s", True, group="control")
    storm_sizes = [int(x) for x in str(params.get("STORM_SIZES", "")).split()]
    for n in storm_sizes:
        run.metric("storm_hs_%d" % n, "storm: handshakes completed, %d initiators at once" % n,
                   "hs/s", True, group="control")
        run.metric("storm_all_%d" % n, "storm: until all %d have a session" % n, "s", False, group="control")
        run.metric("storm_hs_cmd_%d" % n,
                   "storm: handshakes completed, %d at once, from the kick's process start" % n,
                   "hs/s", True, group="control")
        run.metric("storm_ping_p99_%d" % n, "storm: established peer ping p99 during %d" % n,
                   "us", False, group="control")
        # One wave's 30-70 probes make its p99 nearly its maximum: the same
        # over all waves' probes together (one value per module and size).
        run.metric("storm_ping_all_p99_%d" % n, "storm: established peer ping p99 during %d, all waves" % n,
                   "us", False, group="control")
        run.metric("storm_ping_idle_p99_%d" % n, "storm: established peer ping p99 idle, before %d" % n,
                   "us", False, group="control")
    for n in [int(x) for x in str(params.get("BURST_SIZES", "")).split()]:
        run.metric("burst_hs_%d" % n, "storm: responder alone, %d prepared initiations at once" % n, "hs/s",
                   True, group="control")
        run.metric("burst_p50_%d" % n, "storm: responder alone, median response of %d" % n, "s", False,
                   group="control")


def on_hs(run, s):
    """One handshake round (wgx-bench-nl): handshakes per second; a note
    when bringing the initiators up failed."""
    m = run.metrics["handshakes"]
    path, rnd, err = s.get("path"), s.get("round", 0), s.get("error")
    if err:
        m.add(path, rnd, error=err)
        return
    data, text = load_json(os.path.join(run.work, s["file"]))
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
            run.warnings.append("%s handshakes round %s: bringing the initiators up exited %d"
                                % (PATH_LABEL[path], rnd, data["cmd_exit"]))


def finish(run):
    """After every sample: the established peer's ping p99 over all waves of
    each storm size."""
    for (p, n), rtts in sorted(run.storm_rtts.items()):
        if rtts and "storm_ping_all_p99_%d" % n in run.metrics:
            run.metrics["storm_ping_all_p99_%d" % n].add(p, 1, value=pct(sorted(rtts), 99))


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


def on_storm(run, s):
    """One storm wave (bench/run-guest.sh storm_kind): the three figures,
    and the bed check (sessions made, ping loss, wire and device counters,
    the budget in force) for the table's notes and the JSON.  The
    established peer's round trips during the wave are also added to
    run.storm_rtts[(path, size)], for the p99 over every wave's probes."""
    work, metrics, storm_bed, storm_rtts = run.work, run.metrics, run.storm_bed, run.storm_rtts
    path, err = s.get("path"), s.get("error")
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
    """Run time of each of wgx.ko's handshake threads (and wgx-precompute)
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
    """The counters of the X25519 work made ahead around a wave or burst
    (wgx only, one line of debugfs wgx/precompute_stats): pool pairs taken
    and takes that found it empty, what it held before, and the per-peer
    slots used, held before and made."""
    def counters(line):
        w = line.split()
        return {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}

    try:
        with open(base + ".eph0.txt") as f0, open(base + ".eph1.txt") as f1:
            l0, l1 = f0.read().splitlines(), f1.read().splitlines()
        c0, c1 = counters(l0[0]), counters(l1[0])
        return {"eph_held": c0["pool_held"], "eph_taken": c1["pool_taken"] - c0["pool_taken"],
                "eph_missed": c1["pool_missed"] - c0["pool_missed"],
                "prep_held": c0["slots_held"], "prep_used": c1["slots_used"] - c0["slots_used"],
                "prep_made": c1["slots_made"] - c0["slots_made"]}
    except (OSError, ValueError, KeyError, IndexError):
        return {}


def on_burst(run, s):
    """One burst (bench/run-guest.sh storm_kind): N prepared initiations
    against the responder alone -> responses per second, and the median
    response's time."""
    work, metrics, storm_bed = run.work, run.metrics, run.storm_bed
    path, err = s.get("path"), s.get("error")
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
