#!/bin/sh
# soak.sh [MINUTES] — the always-on recorder (docs/always-on.md) left on a
# steady SwingSet workload for MINUTES (default 30): a benchmark, not a
# test (BENCHMARKS.md, "The always-on recorder, left on").
#
# The workload is Agoric's real kernel on the vanilla xsnap-worker
# (tests/interop/swingset/gen-slog.mjs --blocks: each round a block), run
# again and again until the time is up; the recorder follows it with
# --slog and the thresholds of tests/os/always-swingset.test at rest (a
# block here takes up to 12 s under BPF on a busy machine).  Every minute
# it prints the recorder's resident and peak memory, its CPU time, the
# files in its folder, the records it took and lost and what its window
# holds (from its own --metrics); at the end the same, summed up.  Nothing
# should be written: a dump at rest is a finding, and is listed.
#
# As root, from a build tree configured with the collector, with the npm
# projects of make check (IPCSTAMP_INTEROP_DIR, default tests/interop).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
b=$(pwd)
minutes=${1:-30}
ips=$b/tools/ipcstamp
proj=${IPCSTAMP_INTEROP_DIR:-$src/tests/interop}/swingset
die() { echo "soak.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (BPF)"
[ -x "$ips" ] || die "no $ips: run it from a build tree"
[ -d "$proj/node_modules/@agoric/swingset-vat" ] ||
    die "no SwingSet kernel in $proj/node_modules (make check installs it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ipcstamp-soak.XXXXXX")
rec=
cleanup() {
    [ -n "$rec" ] && kill "$rec" 2>/dev/null && wait "$rec" 2>/dev/null
    [ -n "${KEEP-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
mkdir "$tmp/run" "$tmp/dumps"
. "$src/tests/interop/swingset/copy.sh"
swingset_copy "$proj" "$src" "$tmp/run" || die "cannot copy $proj"
end=$(($(date +%s) + minutes * 60))
cat >"$tmp/loop.sh" <<EOF
cd "$tmp/run"
while [ \$(date +%s) -lt $end ]; do
    node gen-slog.mjs "$tmp/run.slog" --rounds 20 --blocks --spin 300000 >/dev/null 2>>"$tmp/node.err" || exit 1
done
EOF

"$ips" record --always-on "$tmp/dumps" --slog "$tmp/run.slog" \
    --stall-delivery 20 --stall-upcall 20 --stall-phase 60 --stall-gap 60 \
    --stall-block 120 --metrics 127.0.0.1:0 -- sh "$tmp/loop.sh" \
    2>"$tmp/rec.err" &
rec=$!
i=0
while ! grep -q "serving http://" "$tmp/rec.err"; do
    i=$((i + 1))
    [ "$i" -lt 300 ] && kill -0 "$rec" 2>/dev/null || die "no metrics address: $(tail -3 "$tmp/rec.err")"
    sleep 0.1
done
url=$(sed -n 's|.*serving \(http://[^ ]*/metrics\).*|\1|p' "$tmp/rec.err" | head -1)

# One sample: a line of figures, also kept for the summary.
sample() {
    python3 - "$rec" "$url" "$tmp/dumps" "$1" <<'EOF' | tee -a "$tmp/samples"
import os, sys, urllib.request
pid, url, dumps, t = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
st = {l.split(':')[0]: l.split()[1] for l in open('/proc/%s/status' % pid) if l.startswith('Vm')}
f = open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()
cpu = (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')
m = {}
for l in urllib.request.urlopen(url, timeout=10).read().decode().splitlines():
    if l and not l.startswith('#'):
        k, v = l.rsplit(' ', 1)
        name = k.split('{')[0]
        m[name] = m.get(name, 0) + float(v)
files = [x for x in os.listdir(dumps) if x != 'recorder.pid']
size = sum(os.path.getsize(os.path.join(dumps, x)) for x in files)
print('%s min  rss %s kB  peak %s kB  cpu %.2f s  files %d (%d B)  events %d  lost %d  window %d records %.1f MB %.0f s  deliveries %d' % (
    t, st['VmRSS'], st['VmHWM'], cpu, len(files), size,
    m.get('ipcstamp_events_total', 0), m.get('ipcstamp_events_lost_total', 0),
    m.get('ipcstamp_window_records', 0), m.get('ipcstamp_window_bytes', 0) / 1e6,
    m.get('ipcstamp_window_seconds', 0), m.get('ipcstamp_deliveries_total', 0)))
EOF
}
echo "== soak.sh: $minutes minutes, $(uptime)"
t=0
while [ "$t" -lt "$minutes" ] && kill -0 "$rec" 2>/dev/null; do
    sleep 60
    t=$((t + 1))
    kill -0 "$rec" 2>/dev/null && sample "$t"
done
wait "$rec"
rc=$?
rec=
echo "== the recorder ended with $rc; what it said:"
grep -v "^ipcstamp record: following\|^ipcstamp record: always on\|serving http" "$tmp/rec.err" | head -20
echo "== files written: $(ls "$tmp/dumps" | grep -vc recorder.pid || true)"
python3 - "$tmp/samples" <<'EOF'
import re, sys
rows = [dict(re.findall(r'(\w+) ([\d.]+)', l)) | {'t': l.split()[0]} for l in open(sys.argv[1])]
rows = [{k: float(v) for k, v in r.items()} for r in rows]
if len(rows) >= 3:
    a, z = rows[2], rows[-1]  # from minute 3: the 120 s window full
    print('== rss minute %d %d kB, minute %d %d kB (%+d kB); peak %d kB' % (
        a['t'], a['rss'], z['t'], z['rss'], z['rss'] - a['rss'], z['peak']))
    print('== cpu %.2f s over %d minutes: %.3f s a minute; %d events, %d lost, %d deliveries' % (
        z['cpu'], z['t'], z['cpu'] / z['t'], z['events'], z['lost'], z['deliveries']))
EOF
