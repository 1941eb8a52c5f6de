#!/bin/sh
# os-progs.sh: each BPF program's own time while `ipcstamp record` records
# `ipcstamp run` (N deliveries of 4 upcalls, pinned like os-cost.sh's),
# for BENCHMARKS.md ("What ipcstamp record costs a run"): the kernel's
# per-program statistics (kernel.bpf_stats_enabled=1, set for the run and
# put back after it), read by bpftool while the programs are still
# attached, i.e. as the recorded command's last step.  The statistics are
# system-wide: the run counts include every other process's system calls
# and context switches in the meantime (their runs return at once).  Then
# the collector's own CPU time and memory from the recording's end.
#
#   flock /tmp/ipcstamp-bench.lock sh tests/os/os-progs.sh [N [IPCSTAMP]]
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-20000}
ips=${2:-tools/ipcstamp}
worker=worker/ipcstamp-worker-xs
[ -x "$worker" ] || worker=worker/ipcstamp-worker-js
for f in tests/bench/ipcstamp-direct "$worker"; do
    [ -x "$f" ] || { echo "os-progs.sh: no $f (make, make bench-tools)" >&2; exit 1; }
done
command -v bpftool >/dev/null || { echo "os-progs.sh: no bpftool"; exit 0; }
old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null) ||
    { echo "os-progs.sh: no kernel.bpf_stats_enabled here"; exit 0; }
tmp=$(mktemp -d)
trap 'sysctl -qw kernel.bpf_stats_enabled="$old"; rm -rf "$tmp"' EXIT
pin=${IPCSTAMP_BENCH_PIN-taskset -c 1}
[ -z "$pin" ] || $pin true 2>/dev/null || pin=
{
    printf '%s\n' '{"vat":"v1","evaluate":"var req = new TextEncoder().encode(\"[\\\"vatstoreGet\\\",\\\"k\\\"]\"); globalThis.handleCommand = function (buf) { for (var i = 0; i < 4; i += 1) issueCommand(req.buffer); return new ArrayBuffer(0); };"}'
    i=0
    while [ "$i" -lt "$n" ]; do echo '{"vat":"v1","vd":{"n":1}}'; i=$((i + 1)); done
} >"$tmp/w4.jsonl"
export IPCSTAMP_CPU_TIME=0
sysctl -qw kernel.bpf_stats_enabled=1
"$ips" record -o "$tmp/r.os" -- sh -c "$pin tests/bench/ipcstamp-direct run \
--worker $worker --workload $tmp/w4.jsonl --force --quiet --slog $tmp/r.slog &&
bpftool prog show --json >$tmp/progs.json"
echo "== $(uptime)"
echo "== each program of the recording of $n deliveries (${pin:-not pinned}): run time, runs (system-wide), per run"
python3 - "$tmp/progs.json" <<'EOF'
import json, sys
names = ("on_enter", "on_exit", "on_switch", "on_wakeup", "on_fork", "on_exec", "on_exit_proc")
total = 0
# The last-loaded program of each name is this recording's (ids grow).
progs = {}
for p in json.load(open(sys.argv[1])):
    if p.get("name") in names and p["id"] > progs.get(p["name"], {"id": -1})["id"]:
        progs[p["name"]] = p
for name in names:
    p = progs.get(name)
    if not p or not p.get("run_cnt"):
        continue
    total += p["run_time_ns"]
    print(f"{name:13} {p['run_time_ns'] / 1e6:8.1f} ms  {p['run_cnt']:9} runs  {p['run_time_ns'] / p['run_cnt']:5.0f} ns a run")
print(f"{'all':13} {total / 1e6:8.1f} ms")
EOF
echo "== the collector: $(python3 "$src/tests/os/os_check.py" end "$tmp/r.os")"
