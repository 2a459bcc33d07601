"""Configuring many peers at once: the time setconf takes and the kernel
memory per peer."""


def declare(run):
    """The setconf figures."""
    params = run.params
    if params.get("SETCONF_PEERS", 0) > 0:
        run.metric("setconf_seconds", "setconf %d peers" % params["SETCONF_PEERS"], "s", False, group="control")
        run.metric("peer_bytes", "memory per peer (slab+percpu+vmalloc)", "bytes", False, group="control")


def on_setconf(run, s):
    """One setconf run: its time and the memory per peer, or an error when
    the device does not list every peer after it."""
    path, rnd, err = s.get("path"), s.get("round", 0), s.get("error")
    ms, mb = run.metrics["setconf_seconds"], run.metrics["peer_bytes"]
    # Bed check: the guest should be quiet when the timed setconf starts.
    idle = s.get("idle_before_pct")
    if idle is not None and int(idle) < 95:
        run.warnings.append("%s setconf round %s: the guest was %s%% idle before it after %s s of waiting"
                            " (busiest threads: raw/setconf-%s-%s.tasks.json)"
                            % (path, rnd, idle, s.get("quiet_waited_s"), path, rnd))
    if err:
        ms.add(path, rnd, error=err)
        mb.add(path, rnd, error=err)
    elif s["seen"] != s["peers"]:
        e = ("after setconf GET_DEVICE lists %d peers, not %d, so the figures cannot be trusted"
             " (measured anyway: %.2f s, %.0f bytes/peer)"
             % (s["seen"], s["peers"], float(s["seconds"]),
                (s["sunreclaim_kb"] + s["percpu_kb"] + s.get("vmalloc_kb", 0)) * 1024.0 / s["peers"]))
        ms.add(path, rnd, error=e)
        mb.add(path, rnd, error=e)
    else:
        ms.add(path, rnd, value=float(s["seconds"]))
        mb.add(path, rnd, value=(s["sunreclaim_kb"] + s["percpu_kb"] + s.get("vmalloc_kb", 0))
               * 1024.0 / s["peers"])
