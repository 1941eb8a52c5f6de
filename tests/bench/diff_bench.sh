#!/bin/sh
# diff_bench.sh: `ipcstamp diff`'s memory and speed (BENCHMARKS.md,
# "ipcstamp diff").  Not a test: figures for a person to read.
#
#   sh tests/bench/diff_bench.sh IPCSTAMP DIR [SHAPE]
#
# In DIR, two nodes' slogfiles of 10 MB and of 1 GB (tests/bench/gen_slog.py
# makes a 100 MB base of SHAPE, heavy or small, seed 1; repeat_slog.py makes
# the long files from it, cranks and delivery numbers moved on at each
# copy; node b is a copy of a under another name).  Then:
# - peak RSS (/usr/bin/time -v) of `diff a b` on 10 MB and on 1 GB each;
# - wall time of `diff a b` against `report a` + `report b` on the 1 GB
#   files, alternating, 5 rounds, medians, and the throughput of each
#   (bytes of slogfile per second: both files' for diff).
# Run it under flock /tmp/ipcstamp-bench.lock so that no two benchmarks
# run at once.
set -eu
ips=$1 dir=$2 shape=${3:-heavy}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
cd "$dir"
[ -f "base-$shape.slog" ] || python3 "$here/gen_slog.py" "base-$shape.slog" 100 1 "$shape"
[ -f "a-$shape-1024.slog" ] ||
    python3 "$here/repeat_slog.py" "base-$shape.slog" "a-$shape-1024.slog" 1024
[ -f "b-$shape-1024.slog" ] || cp "a-$shape-1024.slog" "b-$shape-1024.slog"
if [ ! -f "b-$shape-10.slog" ]; then # the base's first 10 MB, whole lines
    head -c 10485760 "base-$shape.slog" | sed '$d' >"a-$shape-10.slog"
    cp "a-$shape-10.slog" "b-$shape-10.slog"
fi
echo "uptime: $(uptime)"
for mb in 10 1024; do
    /usr/bin/time -v "$ips" diff "a-$shape-$mb.slog" "b-$shape-$mb.slog" \
        >/dev/null 2>"rss-$mb.txt" || true
    echo "diff, 2 x $mb MB ($shape): peak RSS $(awk '/Maximum resident/ {print $6}' "rss-$mb.txt") kB"
done
a="a-$shape-1024.slog" b="b-$shape-1024.slog"
bytes=$(($(wc -c <"$a") + $(wc -c <"$b")))
t() { s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
: >diff.ms; : >report.ms
for r in 1 2 3 4 5; do
    t "$ips" diff "$a" "$b" >>diff.ms
    x=$(t "$ips" report "$a"); y=$(t "$ips" report "$b")
    echo $((x + y)) >>report.ms
done
med() { sort -n "$1" | sed -n 3p; }
dm=$(med diff.ms) rm=$(med report.ms)
echo "diff a b: $(tr '\n' ' ' <diff.ms)ms, median $dm ms, $(awk -v b="$bytes" -v m="$dm" 'BEGIN {printf "%.2f", b / m / 1e6}') GB/s"
echo "report a + report b: $(tr '\n' ' ' <report.ms)ms, median $rm ms, $(awk -v b="$bytes" -v m="$rm" 'BEGIN {printf "%.2f", b / m / 1e6}') GB/s"
echo "ratio diff / (report a + report b): $(awk -v d="$dm" -v r="$rm" 'BEGIN {printf "%.2f", d / r}')"
echo "uptime: $(uptime)"
