#!/usr/bin/env python3
"""bench/probes/hs-keys.py DIR [N] — key material and batches for the
handshake probes (hs-profile.sh, up-profile.sh): N (default 100) single-peer
initiator devices per kind, one responder, as `make bench`'s hs workload."""
import base64, os, subprocess, sys

d, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
os.makedirs(d, exist_ok=True)


def pub(priv):
    return subprocess.run(["wg", "pubkey"], input=priv, capture_output=True, text=True, check=True).stdout.strip()


def hexkey(b):
    return base64.b64decode(b).hex()


def w(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)


rpriv = base64.b64encode(os.urandom(32)).decode()
rpub = pub(rpriv)
inits = []
for _ in range(n):
    p = base64.b64encode(os.urandom(32)).decode()
    inits.append((p, pub(p)))
for kind, pre, port in (("wireguard", "hk", 52000), ("wgx", "hx", 52001)):
    resp = ["[Interface]", "PrivateKey = " + rpriv, "ListenPort = %d" % port]
    setup, b = [], {k: [] for k in ("up", "down", "add")}
    for i, (p, q) in enumerate(inits):
        resp += ["", "[Peer]", "PublicKey = " + q]
        setup.append("%si%d %s %s 192.0.2.2 %d 25" % (pre, i, hexkey(p), hexkey(rpub), port))
        b["up"].append("link set %si%d up" % (pre, i))
        b["down"].append("link set %si%d down" % (pre, i))
        b["add"].append("link add %si%d type %s" % (pre, i, kind))
    w("resp-%s.conf" % kind, "\n".join(resp) + "\n")
    w("setup-%s.txt" % kind, "\n".join(setup) + "\n")
    for k, v in b.items():
        w("%s-%s.batch" % (k, kind), "\n".join(v) + "\n")
