#!/bin/sh
# xs-cost.sh: what ipcstamp-worker-xs costs end to end against the vanilla
# xsnap-worker built from the same sources (make check builds both), with
# 20,000 deliveries of 4 upcalls: through `ipcstamp run` writing a
# slogfile, and through Agoric's own xsnap parent (xs-parent.mjs).  Each is
# tests/bench/ab: the two workers alternately, ROUNDS times, the ratio of
# the medians (ours / vanilla).  Run from the build folder, under the bench
# lock, after `make bench-tools`:
#
#   flock /work/coord/bench.lock sh tests/bench/xs-cost.sh [ROUNDS [N]]
#
# IPCSTAMP_INTEROP_DIR names the tests/interop with node_modules (for the
# Agoric parent).  Stamps as a node would run them: cpu_ns off.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
n=${2:-20000}
ours=worker/ipcstamp-worker-xs
vanilla=worker/xs/xsnap-worker-vanilla
nm=${IPCSTAMP_INTEROP_DIR:-$src/tests/interop}/node_modules
for f in "$ours" "$vanilla" tests/bench/ab tests/bench/ipcstamp-direct; do
    [ -x "$f" ] || { echo "xs-cost.sh: no $f (make, make check, make bench-tools)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
    printf '%s\n' '{"vat":"v1","evaluate":"const req = new TextEncoder().encode(\"[\\\"vatstoreGet\\\",\\\"k\\\"]\"); globalThis.handleCommand = function (buf) { for (let i = 0; i < 4; i += 1) issueCommand(req.buffer); return new ArrayBuffer(0); };"}'
    i=0
    while [ "$i" -lt "$n" ]; do echo '{"vat":"v1","vd":{"n":1}}'; i=$((i + 1)); done
} >"$tmp/w4.jsonl"
export IPCSTAMP_CPU_TIME=0
echo "== ipcstamp run, $n deliveries of 4 upcalls: vanilla (A) against ipcstamp-worker-xs (B)"
tests/bench/ab "$rounds" /dev/null /dev/null -- \
    tests/bench/ipcstamp-direct run --worker "$vanilla" --workload "$tmp/w4.jsonl" --slog "$tmp/a.slog" --force --quiet -- \
    tests/bench/ipcstamp-direct run --worker "$ours" --workload "$tmp/w4.jsonl" --slog "$tmp/b.slog" --force --quiet
echo "== Agoric's xsnap parent, $n deliveries of 4 upcalls: vanilla (A) against ipcstamp-worker-xs (B)"
tests/bench/ab "$rounds" /dev/null /dev/null -- \
    node "$src/tests/bench/xs-parent.mjs" "$nm" "$vanilla" "$n" -- \
    node "$src/tests/bench/xs-parent.mjs" "$nm" "$ours" "$n"
