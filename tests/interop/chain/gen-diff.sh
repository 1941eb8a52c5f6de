#!/usr/bin/env bash
# gen-diff.sh: the same chain run as three "validators" for `ipcstamp diff`
# (test-only; docs/diff.md, "The fixtures").
#
#   bash gen-diff.sh OUTDIR [--blocks N] [--only a,b,c]
#
# Each validator is gen-chain.mjs (Agoric's real block loop, xsnap workers)
# with the same blocks, so the three slogfiles hold the same deliveries
# with the same computrons; only their times differ.  The kernel (node)
# runs on CPU 0 and every xsnap worker is moved to CPU 1 as it starts, so
# that what is done to CPU 1 falls on the workers alone:
#   a  nothing else (the reference)
#   b  a CPU hog pinned to CPU 1, and the workers at nice 10 beside it, so
#      that the hog has most of their CPU
#   c  the worker of the vat "work" stopped 45 ms of every 50
#      (SIGSTOP/SIGCONT): one vat's worker slow, the others not
# The causes are made large (about ten times) so that they stand out of
# what a busy machine does to all three runs alike.
# Then div: a copy of a with the computrons of one delivery of vat "work"
# changed by one (a divergence).  Writes OUTDIR/{a,b,c,div}.slog.gz.
#
# GEN_DIFF_WORKER_CPU=0 puts the workers on CPU 0 beside the kernel
# instead (a run made beside another one's hog on CPU 1).
# Exit codes: 0 ok, 1 a run failed, 2 usage error.  Needs taskset
# (util-linux) and two CPUs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: bash gen-diff.sh OUTDIR [--blocks N] [--only a,b,c]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out=$1; shift
blocks=10
only=a,b,c
while [ $# -gt 0 ]; do
  case $1 in
    --blocks) [ $# -ge 2 ] || usage; blocks=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ "$(nproc)" -ge 2 ] || { echo "gen-diff.sh: needs two CPUs" >&2; exit 1; }
mkdir -p "$out"

# Move every xsnap worker under $1 to CPU 1; with $2 = throttle, stop and
# continue the worker of the vat "work" every 10 ms.  Until $1 exits.
watch_workers() {
  local node=$1 mode=$2 slow=""
  while kill -0 "$node" 2>/dev/null; do
    for pid in $(pgrep -P "$node" 2>/dev/null); do
      taskset -p -c "${GEN_DIFF_WORKER_CPU:-1}" "$pid" >/dev/null 2>&1 || true
      [ "$mode" != hog ] || renice -n 10 -p "$pid" >/dev/null 2>&1 || true
      if [ "$mode" = throttle ] && [ -z "$slow" ] &&
         tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q ':work '; then
        slow=$pid
      fi
    done
    if [ -n "$slow" ] && kill -0 "$slow" 2>/dev/null; then
      for _ in 1 2; do
        kill -STOP "$slow" 2>/dev/null || true; sleep 0.045
        kill -CONT "$slow" 2>/dev/null || true; sleep 0.005
      done
    else
      slow=""
      sleep 0.05
    fi
  done
}

run() { # name mode
  local name=$1 mode=$2 hog="" node rc=0
  case ",$only," in *",$name,"*) ;; *) return 0 ;; esac
  if [ "$mode" = hog ]; then
    taskset -c 1 sh -c 'while :; do :; done' & hog=$!
  fi
  taskset -c 0 node "$here/gen-chain.mjs" "$out/$name.slog" --blocks "$blocks" &
  node=$!
  watch_workers "$node" "$mode" &
  wait "$node" || rc=$?
  [ -z "$hog" ] || kill "$hog"
  wait 2>/dev/null || true
  [ "$rc" -eq 0 ] || { echo "gen-diff.sh: validator $name failed ($rc)" >&2; exit 1; }
  gzip -9 -f "$out/$name.slog"
  echo "gen-diff.sh: $out/$name.slog.gz"
}

run a none
run b hog
run c throttle

# div: the vat "work"'s fifth delivery of work() with one more computron.
[ -f "$out/a.slog.gz" ] || exit 0
zcat "$out/a.slog.gz" | node -e '
  const lines = require("fs").readFileSync(0, "utf8").split("\n");
  let work = null, seen = 0, done = false;
  const out = lines.map(line => {
    if (done || !line) return line;
    const r = JSON.parse(line);
    if (r.type === "create-vat" && r.name === "work") work = r.vatID;
    if (r.type === "deliver-result" && r.vatID === work && !r.replay &&
        Array.isArray(r.dr) && r.dr[2] && typeof r.dr[2].compute === "number") {
      seen += 1;
      if (seen === 5) { r.dr[2].compute += 1; done = true; return JSON.stringify(r); }
    }
    return line;
  });
  if (!done) { console.error("gen-diff.sh: no fifth metered delivery of work"); process.exit(1); }
  process.stdout.write(out.join("\n"));
' | gzip -9 >"$out/div.slog.gz"
echo "gen-diff.sh: $out/div.slog.gz"
