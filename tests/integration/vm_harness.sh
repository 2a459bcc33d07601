#!/usr/bin/env bash
# tests/integration/vm_harness.sh — self-test of scripts/vm: exit status
# pass-through, argv and environment, output streaming, the read-only root and
# writable repository, kernel-log checking, the timeout, module loading, and
# two guests at once.  Each case prints "name: ok|FAIL"; the last line is
# "N passed, N failed"; exits non-zero on any failure.
# Environment: VM_ARGS adds options to every scripts/vm call (e.g. "--accel tcg").
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
vm=$repo/scripts/vm
read -r -a vm_args <<<"${VM_ARGS:-}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vm_harness.XXXXXX")
scratch=$repo/build/vm-harness.$$
trap 'rm -rf "$tmp" "$scratch"' EXIT
cd "$repo" || exit 1

passed=0 failed=0
ok() { echo "$1: ok"; passed=$((passed + 1)); }
bad() {
	echo "$1: FAIL ($2)"
	failed=$((failed + 1))
	for f in "$tmp/out" "$tmp/err"; do
		[ -s "$f" ] && sed 's/^/    | /' "$f" | tail -n 15
	done
}
# run_vm ARGS... : scripts/vm with stdout in $tmp/out, stderr in $tmp/err, rc in $rc
run_vm() {
	"$vm" "${vm_args[@]}" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# exit status of CMD comes back unchanged
run_vm --no-module -- sh -c 'exit 3'
[ "$rc" = 3 ] && ok exit_status || bad exit_status "rc=$rc, want 3"

# stdout is CMD's output only; stderr stays empty on success (quiet)
run_vm --no-module -- echo hi
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = hi ] && [ ! -s "$tmp/err" ]; then
	ok echo_quiet
else
	bad echo_quiet "rc=$rc out='$(head -c 200 "$tmp/out")'"
fi

# argv reaches the guest unchanged (spaces, quotes, shell metacharacters);
# cwd, WGX_IN_VM, PATH and WGX_* pass-through; stderr is merged into stdout.
mkdir -p "$repo/build"
(cd "$repo/build" && WGX_HARNESS_VAR='x y' "$vm" "${vm_args[@]}" --no-module -- \
	sh -c 'printf "%s|" "$@"; echo; pwd; echo "$WGX_IN_VM $WGX_HARNESS_VAR"; echo "$PATH" | cut -d: -f1; echo err >&2' \
	argv0 'a b' "c'd" '$HOME' '*' '' >"$tmp/out" 2>"$tmp/err" </dev/null)
rc=$?
want="a b|c'd|\$HOME|*||
$repo/build
1 x y
$repo/build/tools
err"
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ] && ok argv_env_cwd ||
	bad argv_env_cwd "rc=$rc"

# root is read-only, /tmp and /run are writable tmpfs, the repository is
# writable and writes reach the host
run_vm --no-module -- sh -c "! touch /usr/.vm_harness 2>/dev/null && touch /tmp/x /run/netns/x /var/run/wireguard/x && mkdir -p '$scratch' && echo written >'$scratch/f'"
if [ "$rc" = 0 ] && [ "$(cat "$scratch/f" 2>/dev/null)" = written ] && [ ! -e /usr/.vm_harness ]; then
	ok filesystems
else
	bad filesystems "rc=$rc"
fi

# a kernel WARNING in the guest log fails the run with a one-line reason
run_vm --no-module -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at vm_harness_selftest+0x0/0x0" >/dev/kmsg; exit 0'
if [ "$rc" = 125 ] && grep -q '^vm: guest kernel reported WARNING: CPU: 0 PID: 1 at vm_harness_selftest' "$tmp/err"; then
	ok kernel_warning
else
	bad kernel_warning "rc=$rc, want 125 and a 'vm: guest kernel reported WARNING' line"
fi
kept=$(sed -n 's/^vm: logs kept in //p' "$tmp/err")
[ -n "$kept" ] && [ -s "$kept/kernel.log" ] && ok kernel_log_kept || bad kernel_log_kept "no kernel.log in '$kept'"
[ -n "$kept" ] && case $kept in "${TMPDIR:-/tmp}"/wgx-vm.*) rm -rf "$kept" ;; esac

# a panic ends the guest at once and is reported from the console log
run_vm --no-module -- sh -c 'echo c >/proc/sysrq-trigger; sleep 600'
if [ "$rc" = 125 ] && grep -q '^vm: guest kernel reported Kernel panic' "$tmp/err"; then
	ok kernel_panic
else
	bad kernel_panic "rc=$rc, want 125 and a 'vm: guest kernel reported Kernel panic' line"
fi
kept=$(sed -n 's/^vm: logs kept in //p' "$tmp/err")
[ -n "$kept" ] && case $kept in "${TMPDIR:-/tmp}"/wgx-vm.*) rm -rf "$kept" ;; esac

# a guest that runs too long is killed
start=$(date +%s)
run_vm --no-module --timeout 25 -- sleep 600
took=$(($(date +%s) - start))
if [ "$rc" = 124 ] && grep -q '^vm: timed out after 25 s' "$tmp/err" && [ "$took" -lt 60 ]; then
	ok timeout
else
	bad timeout "rc=$rc after ${took}s, want 124 within 60 s"
fi
kept=$(sed -n 's/^vm: logs kept in //p' "$tmp/err")
[ -n "$kept" ] && case $kept in "${TMPDIR:-/tmp}"/wgx-vm.*) rm -rf "$kept" ;; esac

# an explicitly requested module that does not exist is an error
run_vm --module "$repo/kmod/does-not-exist.ko" -- true
[ "$rc" = 125 ] && grep -q '^vm: module .* not found' "$tmp/err" && ok missing_module ||
	bad missing_module "rc=$rc"

# modules of the stock kernel load from the shared /lib/modules
run_vm --no-module -- sh -c 'modprobe veth && ip link add va type veth peer name vb && ip link show vb >/dev/null'
[ "$rc" = 0 ] && ok veth || bad veth "rc=$rc"

# two guests at once
"$vm" "${vm_args[@]}" --no-module -- sh -c 'echo one; exit 4' >"$tmp/out1" 2>"$tmp/err1" </dev/null &
p1=$!
"$vm" "${vm_args[@]}" --no-module -- sh -c 'echo two; exit 5' >"$tmp/out2" 2>"$tmp/err2" </dev/null &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
if [ "$rc1" = 4 ] && [ "$rc2" = 5 ] && [ "$(cat "$tmp/out1")" = one ] && [ "$(cat "$tmp/out2")" = two ]; then
	ok parallel
else
	cat "$tmp/err1" "$tmp/err2" >"$tmp/err"
	bad parallel "rc=$rc1/$rc2 out='$(cat "$tmp/out1")'/'$(cat "$tmp/out2")'"
fi

# the wgx module, once built, loads and provides the link kind
if [ -f "$repo/kmod/wgx.ko" ]; then
	run_vm -- sh -c 'ip link add wgx0 type wgx && ip -d link show wgx0'
	[ "$rc" = 0 ] && grep -q 'wgx0' "$tmp/out" && grep -qw wgx "$tmp/out" && ok wgx_link ||
		bad wgx_link "rc=$rc"
else
	echo "wgx_link: skipped (kmod/wgx.ko not built)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
