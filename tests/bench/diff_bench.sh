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
# t FILE CMD...: "wall cpu" in ms (cpu: user + system, every thread) to FILE.
t() { f=$1; shift
      /usr/bin/time -f '%e %U %S' -o "$f.one" "$@" >/dev/null 2>&1 || true
      awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' "$f.one" >>"$f"; }
: >diff.ms; : >ra.ms; : >rb.ms
for r in 1 2 3 4 5; do
    t diff.ms "$ips" diff "$a" "$b"
    t ra.ms "$ips" report "$a"
    t rb.ms "$ips" report "$b"
done
paste ra.ms rb.ms | awk '{print $1 + $3, $2 + $4}' >report.ms
med() { sort -n -k"$2" "$1" | sed -n 3p | awk -v k="$2" '{print $k}'; }
for x in diff report; do
    w=$(med $x.ms 1) c=$(med $x.ms 2)
    echo "$x (both files): wall $(awk '{printf "%s ", $1}' $x.ms)ms, median $w ms" \
         "($(awk -v b="$bytes" -v m="$w" 'BEGIN {printf "%.2f", b / m / 1e6}') GB/s);" \
         "CPU median $c ms ($(awk -v b="$bytes" -v m="$c" 'BEGIN {printf "%.2f", b / m / 1e6}') GB/s)"
done
echo "ratio diff / (report a + report b): wall $(awk -v d="$(med diff.ms 1)" -v r="$(med report.ms 1)" 'BEGIN {printf "%.2f", d / r}')," \
     "CPU $(awk -v d="$(med diff.ms 2)" -v r="$(med report.ms 2)" 'BEGIN {printf "%.2f", d / r}')"
echo "uptime: $(uptime)"
