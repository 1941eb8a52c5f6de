#!/bin/sh
# os-cost.sh: what `ipcstamp record` costs the run it records, end to end:
# `ipcstamp run` with N deliveries of 4 upcalls each on ipcstamp-worker-xs
# (Agoric's xsnap, so a real VM), alone (A) and under `ipcstamp record`
# (B), alternately ROUNDS times (tests/bench/ab: medians of wall and CPU
# time, B / A; B's CPU includes the collector's own), then the events the
# recording lost.  `make bench-os` runs it from the build folder under the
# bench lock; it needs root and BPF, and says why when it cannot run.
#
#   flock /tmp/ipcstamp-bench.lock sh tests/os/os-cost.sh [ROUNDS [N]]
set -eu
rounds=${1:-5}
n=${2:-20000}
worker=worker/ipcstamp-worker-xs
[ -x "$worker" ] || worker=worker/ipcstamp-worker-js
for f in tests/bench/ab tests/bench/ipcstamp-direct tools/ipcstamp "$worker"; do
    [ -x "$f" ] || { echo "os-cost.sh: no $f (make, make bench-tools)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! tools/ipcstamp record -o "$tmp/probe.os" -- true 2>"$tmp/probe.err"; then
    echo "os-cost.sh: ipcstamp record cannot run here: $(cat "$tmp/probe.err")"
    exit 0
fi
{
    printf '%s\n' '{"vat":"v1","evaluate":"var req = new TextEncoder().encode(\"[\\\"vatstoreGet\\\",\\\"k\\\"]\"); globalThis.handleCommand = function (buf) { for (var i = 0; i < 4; i += 1) issueCommand(req.buffer); return new ArrayBuffer(0); };"}'
    i=0
    while [ "$i" -lt "$n" ]; do echo '{"vat":"v1","vd":{"n":1}}'; i=$((i + 1)); done
} >"$tmp/w4.jsonl"
export IPCSTAMP_CPU_TIME=0
# B as a script: ab splits its arguments at "--", and record takes one.
printf '%s\n' "exec tools/ipcstamp record -o '$tmp/b.os' -- tests/bench/ipcstamp-direct run --worker '$worker' --workload '$tmp/w4.jsonl' --slog '$tmp/b.slog' --force --quiet" >"$tmp/b.sh"
echo "== $(uptime)"
echo "== ipcstamp run on $worker, $n deliveries of 4 upcalls: alone (A), under ipcstamp record (B)"
tests/bench/ab "$rounds" /dev/null /dev/null -- \
    tests/bench/ipcstamp-direct run --worker "$worker" --workload "$tmp/w4.jsonl" --slog "$tmp/a.slog" --force --quiet -- \
    sh "$tmp/b.sh"
frames=$(grep -c '"t":"frame"' "$tmp/b.os" || true)
waits=$(grep -c '"t":"wait"' "$tmp/b.os" || true)
echo "== the last recording: $frames frame sides, $waits waits, $(tail -1 "$tmp/b.os")"
echo "== $(uptime)"
