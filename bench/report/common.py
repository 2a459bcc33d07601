"""The report's shared parts: the paths (the table's columns), one figure's
samples (Metric), what build() gathers (Run), summaries, the parsers of
output several figure families read, and the table's cell format."""
import json
import re
import shlex
import statistics


PATHS = ["bare", "wireguard", "wgx", "wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0", "wgx_wg", "wg_wgx",
         "wgx_nolane", "wgx_lane", "wgx_nobql", "wgx_noinline"]
MAIN_PATHS = ["bare", "wireguard", "wgx"]
# The paths whose TCP and UDP figures get a ratio to wireguard.ko's in the
# receive-spread table and the JSON (ratio_<path>_wireguard): the
# receive-scaling paths and the mixed pairs (wgx_wg: a wgx with no option,
# b wireguard.ko; wg_wgx: the other way round).
SCALED_PATHS = ["wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0", "wgx_wg", "wg_wgx"]
# The priority lane figure's columns: wgx (path wgx, device wgx0) twice,
# with its lane off (priority-dscp none) and on (the default set); the
# receive-scaling paths (lane on) when a lane-only run asked for them.
LANE_PATHS = ["bare", "wireguard", "wgx_nolane", "wgx_lane", "wgx_nobql", "wgx_noinline", "wgx_p2",
              "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0"]
LANE_SCALED = ["wgx_p2", "wgx_p4", "wgx_p8", "wgx_rs", "wgx_r0"]
PATH_LABEL = {"bare": "bare veth", "wireguard": "wireguard.ko", "wgx": "wgx",
              "wgx_p2": "wgx 2 ports", "wgx_p4": "wgx 4 ports", "wgx_p8": "wgx 8 ports",
              "wgx_rs": "wgx rx-spread", "wgx_r0": "wgx rx-spread off",
              "wgx_wg": "wgx->wireguard.ko", "wg_wgx": "wireguard.ko->wgx",
              "wgx_nolane": "wgx lane off", "wgx_lane": "wgx lane on",
              "wgx_nobql": "wgx lane on, no BQL", "wgx_noinline": "wgx lane on, no inline"}


# The TCP counters of each TCP run (bench/lib.sh tcp_stats, tcp_delta):
# sample key tcp_<name> -> what it counts.
TCP_COUNTERS = {
    "retrans": "segments the sender retransmitted (Tcp RetransSegs)",
    "ofo": "segments the receiver queued out of order (TcpExt TCPOFOQueue)",
    "reorder": "reordering the sender detected (TcpExt TCPSACKReorder + TCPTSReorder)",
    "dsack": "duplicate SACKs the sender received (TcpExt TCPDSACKRecv)",
}


def measured_paths(params, group):
    """The columns a metric of GROUP has in this run."""
    paths = str(params["PATHS"]).split()
    if group == "lane":
        # The scaled paths join the lane figure only in runs without TCP (run-guest.sh).
        scaled = not str(params.get("TCP_FLOWS", "")).strip()
        return [p for p in LANE_PATHS
                if ((p in paths and scaled) if p in LANE_SCALED
                    else ("wgx" in paths and scaled) if p in ("wgx_nobql", "wgx_noinline")
                    else (p[:3] if p.startswith("wgx_") else p) in paths)]
    return [p for p in PATHS if p in paths]


def read_params(path):
    """params.sh: KEY=VALUE lines (shell quoting) -> dict."""
    params = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            key, val = line.split("=", 1)
            val = shlex.split(val)[0] if val else ""
            params[key] = int(val) if re.fullmatch(r"-?\d+", val) else val
    return params


class Metric:
    """One reported figure: id, label, unit, whether higher is better, and
    how many bytes of goodput per second one unit stands for (for the
    crypto ceiling ratio; None when it does not apply)."""

    def __init__(self, mid, label, unit, higher, goodput_bytes=None, group="traffic"):
        self.id = mid
        self.label = label
        self.unit = unit
        self.higher = higher
        self.goodput_bytes = goodput_bytes
        self.group = group
        self.samples = {p: [] for p in PATHS}  # (round, value | None, error | None)
        # Share of the receive work done by the busiest CPU, per sample.
        self.shares = {p: [] for p in PATHS}
        # TCP runs: retransmissions and reordering per GB, per sample.
        self.tcp = {p: [] for p in PATHS}

    def add(self, path, rnd, value=None, error=None):
        self.samples[path].append({"round": rnd, "value": value, "error": error})

    def add_share(self, path, rnd, share, what, cpus):
        self.shares[path].append({"round": rnd, "value": share, "error": None, "of": what,
                                  "cpus": cpus})

    def add_tcp(self, path, rnd, s, nbytes):
        """The TCP counters of sample s (bench/run-guest.sh tcp_delta) over
        the NBYTES the receiver got, if the sample has them."""
        if "tcp_retrans" not in s or not nbytes:
            return
        x = {"round": rnd, "bytes": nbytes, "sender": s.get("tcp_sender")}
        x.update((k, s.get("tcp_" + k, 0)) for k in TCP_COUNTERS)
        if s.get("softnet_drops") is not None:
            x["softnet_drops"] = s["softnet_drops"]  # every CPU's receive backlog, the whole guest
        self.tcp[path].append(x)


class Run:
    """What build() gathers from one run's samples: the figures in display
    order and what the report prints beside them."""

    def __init__(self, work, params):
        self.work = work
        self.params = params
        self.metrics = {}
        self.order = []
        self.warnings = []
        self.storm_bed = []
        self.storm_rtts = {}  # (path, storm size) -> every round trip of its waves, us
        self.rot_bed = []
        self.mtu = []  # bench/run-guest.sh mtu_run samples
        self.lane_obs = {}  # lane path -> [{round, softnet_drops, qdisc, qdisc_backlog_pkts, ...}]
        self.paths_info = {}
        self.ceiling = None
        self.meta = {}

    def metric(self, mid, *args, **kw):
        """Figure MID, declared by the first call (Metric's arguments);
        figures are declared in display order, so the table and the JSON
        read top-down."""
        if mid not in self.metrics:
            self.metrics[mid] = Metric(mid, *args, **kw)
            self.order.append(mid)
        return self.metrics[mid]


def summarize(samples):
    vals = [s["value"] for s in samples if s["error"] is None]
    errs = [s["error"] for s in samples if s["error"] is not None]
    out = {"samples": samples}
    if vals:
        out.update(median=statistics.median(vals), min=min(vals), max=max(vals), n=len(vals))
    if errs:
        out["errors"] = len(errs)
        out["error"] = errs[0]
    return out


def load_json(path):
    """A tool's JSON output; iperf3 may print a warning line before it."""
    with open(path) as f:
        text = f.read()
    start = text.find("{")
    if start < 0:
        return None, text
    try:
        return json.loads(text[start:]), text
    except ValueError:
        return None, text


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(no output)"


def parse_ping(text):
    """ping output -> (list of rtts in µs, transmitted, received)."""
    rtts = [float(m) * 1000.0 for m in re.findall(r"time=([0-9.]+) ms", text)]
    m = re.search(r"(\d+) packets transmitted, (\d+) received", text)
    tx, rx = (int(m.group(1)), int(m.group(2))) if m else (0, len(rtts))
    return rtts, tx, rx


def pct(sorted_vals, q):
    """Nearest-rank percentile q (0..100)."""
    rank = max(1, -(-len(sorted_vals) * q // 100))
    return sorted_vals[int(rank) - 1]


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    return "%.2f" % v


def cell(summary):
    if not summary or not summary.get("samples"):
        return "-"
    if "median" not in summary:
        return "ERROR"
    s = fmt(summary["median"])
    if summary["n"] > 1:
        s += " [%s-%s]" % (fmt(summary["min"]), fmt(summary["max"]))
    if summary.get("errors"):
        s += " (%d err)" % summary["errors"]
    return s


def share_cell(summary):
    sh = (summary or {}).get("busiest_cpu_share")
    if not sh or "median" not in sh:
        return "-"
    return "%.2f" % sh["median"]
