"""The path MTU figure (bench/run-guest.sh mtu_run): wgx sending TCP through
a hop that shrinks to 1400 bytes, as a fraction of the same tunnel's
goodput on the clean path, against the targets of docs/mtu.md."""
import statistics

RECEIVERS = {"wgx": "wgx -> wgx", "wireguard": "wgx -> wireguard.ko"}
MODES = {
    "fragments": "the hop fragments",
    "nofrag": "fragments dropped",
    "blackhole": "fragments and ICMP dropped",
}
# Goodput after the hop shrank / on the clean path: the ICMP paths over
# seconds 1-15 of the transfer (second 0 holds the learning), the
# blackhole over seconds 10-15 (its first loss is at second 0).
TARGET = {"fragments": 0.9, "nofrag": 0.9, "blackhole": 0.8}
BLACKHOLE_SECONDS = 10


def on_mtu(run, s):
    """One mtu_run sample, kept for finish()."""
    run.mtu.append(s)


def _ints(text):
    return [int(x) for x in str(text or "").split()]


def one(s):
    """A sample -> its figures: ratio, first second at the target, outer
    fragments, the path MTU learned; or its error."""
    if s.get("error"):
        return {"round": s.get("round"), "error": s["error"]}
    clean, after, mode = _ints(s.get("clean")), _ints(s.get("after")), s.get("mode")
    # The clean path's first second is slow start.
    base = statistics.median(clean[1:]) if len(clean) > 1 else 0
    if not base or len(after) <= BLACKHOLE_SECONDS:
        return {"round": s.get("round"), "error": "too few seconds measured (clean %s, after %s)"
                % (clean, after)}
    window = after[BLACKHOLE_SECONDS:] if mode == "blackhole" else after[1:]
    first = next((i for i, v in enumerate(after) if v >= TARGET[mode] * base), None)
    return {"round": s.get("round"), "clean_bytes_per_s": base, "ratio": statistics.median(window) / base,
            "first_second_at_target": first, "outer_fragments": s.get("frags"),
            "path_mtu": s.get("path_mtu"), "source": s.get("source")}


def finish(run):
    """Every receiver and mode measured: the rounds' figures, their median
    ratio and whether the target is met, by the medians over rounds as
    every figure of the bench: the median ratio at the target, no outer
    fragment in any round, and for the blackhole the median first second
    at the target within BLACKHOLE_SECONDS (a round that never got there
    counts as the longest)."""
    out = []
    for recv in RECEIVERS:
        for mode in MODES:
            rounds = [one(s) for s in run.mtu if s.get("receiver") == recv and s.get("mode") == mode]
            if not rounds:
                continue
            ok = [r for r in rounds if "error" not in r]
            fig = {"receiver": recv, "mode": mode, "target": TARGET[mode], "rounds": rounds}
            for r in rounds:
                if "error" in r:
                    run.warnings.append("mtu %s, %s, round %s: %s" % (RECEIVERS[recv], MODES[mode],
                                                                      r["round"], r["error"]))
            if len(ok) < len(rounds):
                fig["errors"] = len(rounds) - len(ok)
            if ok:
                ratios = [r["ratio"] for r in ok]
                fig.update(median=statistics.median(ratios), min=min(ratios), max=max(ratios), n=len(ok),
                           outer_fragments=max(int(r["outer_fragments"] or 0) for r in ok))
                firsts = [r["first_second_at_target"] for r in ok]
                met = fig["median"] >= TARGET[mode] and fig["outer_fragments"] == 0
                if mode == "blackhole":
                    first = statistics.median(float("inf") if f is None else f for f in firsts)
                    fig["first_second_at_target"] = first if first != float("inf") else None
                    met = met and first < BLACKHOLE_SECONDS
                fig["met"] = met
            out.append(fig)
    return out


def print_mtu(figs, params):
    if not figs:
        return
    print()
    print("path MTU: wgx sends TCP through a hop that shrinks to 1400 bytes; goodput after it as a fraction of"
          " the clean path's (%s s, seconds 1-%d), over seconds 1-%d (blackhole: %d-%d), median [min-max]"
          % (params.get("MTU_SECONDS"), int(params.get("MTU_SECONDS", 1)) - 1, int(params.get("MTU_AFTER", 1)) - 1,
             BLACKHOLE_SECONDS, int(params.get("MTU_AFTER", 1)) - 1))
    line = "%-22s %-28s %-28s %-11s %-18s %-12s %s" % ("pair", "path", "goodput / clean", "target",
                                                      "first s at target", "outer frags", "path MTU (how)")
    print(line)
    print("-" * len(line))
    for f in figs:
        ok = [r for r in f["rounds"] if "error" not in r]
        if "median" in f:
            ratio = "%.2f [%.2f-%.2f]" % (f["median"], f["min"], f["max"]) if f["n"] > 1 else "%.2f" % f["median"]
            verdict = "met" if f["met"] else "MISSED"
        else:
            ratio, verdict = "ERROR", "-"
        if f.get("errors"):
            ratio += " (%d err)" % f["errors"]
        firsts = ",".join("-" if r["first_second_at_target"] is None else str(r["first_second_at_target"])
                          for r in ok)
        mtus = ",".join(sorted({"%s (%s)" % (r["path_mtu"], r["source"]) for r in ok}))
        print("%-22s %-28s %-28s %-11s %-18s %-12s %s" % (
            RECEIVERS[f["receiver"]], MODES[f["mode"]], ratio, "%.1f %s" % (f["target"], verdict),
            firsts or "-", f.get("outer_fragments", "-"), mtus or "-"))
    for f in figs:
        for r in f["rounds"]:
            if "error" in r:
                print("error: %s, %s, round %s: %s" % (RECEIVERS[f["receiver"]], MODES[f["mode"]], r["round"],
                                                      r["error"]))
