#!/bin/sh
# os-cost.sh: what `ipcstamp record` costs the run it records, end to end,
# N deliveries of 4 upcalls each (BENCHMARKS.md, "What ipcstamp record
# costs a run").  Each comparison is tests/bench/ab: alone (A) and recorded
# (B), alternately ROUNDS times, medians of wall and CPU time, B / A (B's
# CPU includes the collector's own; the BPF programs' time is in the traced
# processes' system time):
#   1. `ipcstamp run` on ipcstamp-worker-xs (Agoric's xsnap), recorded;
#   2. the same, under the floor: the BPF programs attached where they
#      always are and returning at once (record --cost-floor); then
#      each attach point's share of it: only its programs attached
#      (--cost-attach on_enter,on_exit etc.);
#   3. Agoric's own parent (@agoric/xsnap from Node, tests/bench/
#      xs-parent.mjs) driving the vanilla xsnap-worker, recorded; then
#      under the floor (3b) and under the always-on recorder (3c), whose
#      goal is the floor + 0.03 (docs/always-on.md, "What it costs");
#   4. with IPCSTAMP_OLD=PATH (another build's tools/ipcstamp): its
#      collector against this one, each recording 1's run;
#   5. as 1, on a run 10 times as long (ROUNDS / 2 rounds): the
#      collector's loading of its programs (the verifier: once per run)
#      weighs a tenth as much;
#   6. each BPF program's own time in one recorded run (os-progs.sh);
# with the events of the last recordings, those lost, the cost per event,
# and the collector's peak memory on runs of N and 10 N deliveries.
#
# The run (parent and worker) is pinned to one CPU, in A and B alike
# (IPCSTAMP_BENCH_PIN, default "taskset -c 1"; empty: not pinned): on a VM
# the same run unpinned took either ~1.5 s or ~8 s of CPU from one round to
# the next (its ping-pong between two processes on two vCPUs wakes an idle
# vCPU at every turn, and the host's cost of that is counted to the
# process).  The collector itself is not pinned: it is not in the
# ping-pong, and its CPU is counted in B wherever it runs.  `make
# bench-os` runs it from the build folder under the bench lock; it needs
# root and BPF, and says why when it cannot run.
#
#   flock /tmp/ipcstamp-bench.lock sh tests/os/os-cost.sh [ROUNDS [N]]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
n=${2:-20000}
worker=worker/ipcstamp-worker-xs
[ -x "$worker" ] || worker=worker/ipcstamp-worker-js
vanilla=worker/xs/xsnap-worker-vanilla
nm=${IPCSTAMP_INTEROP_DIR:-$src/tests/interop}/node_modules
for f in tests/bench/ab tests/bench/ipcstamp-direct tools/ipcstamp "$worker"; do
    [ -x "$f" ] || { echo "os-cost.sh: no $f (make, make bench-tools)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! tools/ipcstamp record -o "$tmp/probe.os" -- true 2>"$tmp/probe.err"; then
    echo "os-cost.sh: ipcstamp record cannot run here: $(cat "$tmp/probe.err")"
    exit 0
fi
workload() {
    printf '%s\n' '{"vat":"v1","evaluate":"var req = new TextEncoder().encode(\"[\\\"vatstoreGet\\\",\\\"k\\\"]\"); globalThis.handleCommand = function (buf) { for (var i = 0; i < 4; i += 1) issueCommand(req.buffer); return new ArrayBuffer(0); };"}'
    i=0
    while [ "$i" -lt "$1" ]; do echo '{"vat":"v1","vd":{"n":1}}'; i=$((i + 1)); done
}
workload "$n" >"$tmp/w4.jsonl"
export IPCSTAMP_CPU_TIME=0
pin=${IPCSTAMP_BENCH_PIN-taskset -c 1}
[ -z "$pin" ] || $pin true 2>/dev/null || pin= # one CPU, or no taskset
run="$pin tests/bench/ipcstamp-direct run --worker $worker --workload $tmp/w4.jsonl --force --quiet"
# B as scripts: ab splits its arguments at "--", and record takes one.
echo "exec tools/ipcstamp record -o $tmp/b.os -- $run --slog $tmp/b.slog" >"$tmp/b.sh"
echo "exec tools/ipcstamp record --cost-floor -o $tmp/f.os -- $run --slog $tmp/f.slog" >"$tmp/f.sh"
# The last recording's end (events, lost, the collector's CPU and memory).
end() { python3 "$src/tests/os/os_check.py" end "$1"; }
# The CPU medians of ab's output ($1): "A B".
cpu() { sed -n 's/^CPU: A \([0-9.]*\) s  B \([0-9.]*\) s.*/\1 \2/p' "$1"; }
per_event() { # ab's output, a recording: (B - A) CPU per event, in ns
    set -- $(cpu "$1") "$(end "$2")"
    echo "$3" | python3 -c "import json,sys; e=json.loads(sys.stdin.read()); print(f\"{($2-$1)*1e9/e['events']:.0f} ns of CPU per event recorded ({e['events']} events, {e['lost']} lost; the collector's own {e['collector_cpu_ns']/e['events']:.0f} ns per event, {e['collector_max_rss_kb']} kB peak RSS)\")"
}
echo "== $(uptime)"
echo "== the run pinned with: ${pin:-nothing (IPCSTAMP_BENCH_PIN empty)}"
echo "== 1. ipcstamp run on $worker, $n deliveries of 4 upcalls: alone (A), under ipcstamp record (B)"
tests/bench/ab "$rounds" /dev/null /dev/null -- $run --slog "$tmp/a.slog" -- sh "$tmp/b.sh" | tee "$tmp/ab1"
echo "== $(per_event "$tmp/ab1" "$tmp/b.os")"
echo "== 2. the same: alone (A), under the floor (B: the programs attached, returning at once)"
tests/bench/ab "$rounds" /dev/null /dev/null -- $run --slog "$tmp/a.slog" -- sh "$tmp/f.sh" | tee "$tmp/ab2"
# Each attach point's share of the floor: only its programs attached, each
# returning at once (record --cost-attach).
for part in "on_enter,on_exit:sys_enter and sys_exit" \
            "on_switch,on_wakeup:sched_switch and sched_wakeup" \
            "on_fork,on_exec,on_exit_proc:sched_process_fork, _exec and _exit"; do
    echo "exec tools/ipcstamp record --cost-floor --cost-attach ${part%%:*} -o $tmp/s.os -- $run --slog $tmp/s.slog" >"$tmp/s.sh"
    echo "== 2b. the same: alone (A), under the floor of ${part#*:} only (B)"
    tests/bench/ab "$rounds" /dev/null /dev/null -- $run --slog "$tmp/a.slog" -- sh "$tmp/s.sh"
done
if [ -x "$vanilla" ] && command -v node >/dev/null 2>&1 && [ -d "$nm/@agoric/xsnap" ]; then
    echo "$pin node $src/tests/bench/xs-parent.mjs $nm $vanilla $n" >"$tmp/p.sh"
    echo "exec tools/ipcstamp record -o $tmp/p.os -- $pin node $src/tests/bench/xs-parent.mjs $nm $vanilla $n" >"$tmp/pb.sh"
    echo "== 3. Agoric's parent (@agoric/xsnap) on the vanilla xsnap-worker, $n deliveries of 4 upcalls: alone (A), under ipcstamp record (B)"
    tests/bench/ab "$rounds" /dev/null /dev/null -- sh "$tmp/p.sh" -- sh "$tmp/pb.sh" | tee "$tmp/ab3"
    echo "== $(per_event "$tmp/ab3" "$tmp/p.os")"
    echo "exec tools/ipcstamp record --cost-floor -o $tmp/pf.os -- $pin node $src/tests/bench/xs-parent.mjs $nm $vanilla $n" >"$tmp/pf.sh"
    echo "== 3b. the same: alone (A), under the floor (B: the programs attached, returning at once)"
    tests/bench/ab "$rounds" /dev/null /dev/null -- sh "$tmp/p.sh" -- sh "$tmp/pf.sh"
    echo "exec tools/ipcstamp record --always-on $tmp/ao -- $pin node $src/tests/bench/xs-parent.mjs $nm $vanilla $n" >"$tmp/pa.sh"
    echo "== 3c. the same: alone (A), under ipcstamp record --always-on (B: the window kept, nothing written)"
    tests/bench/ab "$rounds" /dev/null /dev/null -- sh "$tmp/p.sh" -- sh "$tmp/pa.sh"
    echo "== 3c wrote: $(ls "$tmp/ao" | grep -vc recorder.pid || true) files"
else
    echo "== 3. Agoric's parent: skipped (needs $vanilla, node and $nm/@agoric/xsnap)"
fi
if [ -n "${IPCSTAMP_OLD:-}" ]; then
    echo "exec $IPCSTAMP_OLD record -o $tmp/o.os -- $run --slog $tmp/o.slog" >"$tmp/o.sh"
    echo "== 4. the collector of $IPCSTAMP_OLD (A) against this one (B), each recording 1's run"
    tests/bench/ab "$rounds" /dev/null /dev/null -- sh "$tmp/o.sh" -- sh "$tmp/b.sh"
fi
long=$((n * 10))
workload "$long" >"$tmp/w4.jsonl"
echo "exec tools/ipcstamp record -o $tmp/long.os -- $run --slog $tmp/long.slog" >"$tmp/long.sh"
echo "== 5. as 1, $long deliveries (the collector's loading, once per run, a tenth as much of it): alone (A), under ipcstamp record (B)"
tests/bench/ab "$(( (rounds + 1) / 2 ))" /dev/null /dev/null -- $run --slog "$tmp/a.slog" -- sh "$tmp/long.sh" | tee "$tmp/ab4"
echo "== $(per_event "$tmp/ab4" "$tmp/long.os")"
# 6. Each BPF program's own time in one recorded run of N deliveries (the
#    kernel's statistics; already under this lock).
sh "$src/tests/os/os-progs.sh" "$n"
echo "== the collector's peak memory: $(end "$tmp/b.os" | sed 's/.*"collector_max_rss_kb":\([0-9]*\).*/\1/') kB over $n deliveries, $(end "$tmp/long.os" | sed 's/.*"collector_max_rss_kb":\([0-9]*\).*/\1/') kB over $long"
echo "== $(uptime)"
