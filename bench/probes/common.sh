# bench/probes/common.sh SUBDIR [DIR] — sourced by the issue #16 (c) probes,
# in the VM: the integration library, DIR (default build/hsprof) and its
# output folder DIR/SUBDIR as $D and $OUT, wgx-bench-nl as $NL, wireguard.ko
# loaded, a fresh namespace pair a-b, and tracefs mounted at $T.
set -u
R=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$R/tests/integration/lib.sh"
D=${2:-}
D=${D:-$R/build/hsprof}
OUT=$D/$1
mkdir -p "$OUT"
NL=$R/build/bench/wgx-bench-nl
modprobe wireguard
netns_cleanup
netns_pair a b
T=/sys/kernel/tracing
mountpoint -q $T || mount -t tracefs nodev $T
