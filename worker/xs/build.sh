#!/bin/sh
# build.sh — build Agoric's xsnap-worker from the user's copy of its sources
# (npm @agoric/xsnap), with or without ipcstamp's stamps (docs/xsnap.md).
#
#   build.sh XSNAP_DIR TREE VARIANT OUT [LIBS...]
#
# XSNAP_DIR  an @agoric/xsnap package directory (it ships the C sources)
# TREE       where to copy them and build (created; reused by later runs)
# VARIANT    vanilla: the sources as they are, built the way the package's
#            own src/build.js builds them (the consensus tests' reference);
#            ipcstamp: the same, plus the calls listed in hooks.list;
#            dev: ipcstamp plus hooks-dev.list (performance.mark/measure:
#            never for a chain node), reusing the ipcstamp tree's objects
# OUT        the binary to write (only replaced when it changed)
# LIBS       the ipcstamp variant's extra link inputs (our hooks and
#            libipcstamp-worker, as static archives)
#
# Nothing of xsnap's is in this repository: the files the variant changes
# must hash as in upstream.sha256 (the versions hooks.list was written
# for), or this refuses with a message, exit 3.  No sources: exit 77 with
# a message.  MAKE and the environment's MAKEFLAGS (jobs) are used.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 4 ] || { echo "usage: build.sh XSNAP_DIR TREE vanilla|ipcstamp OUT [LIBS...]" >&2; exit 2; }
xsnap=$1 tree=$2 variant=$3 out=$4
shift 4
case $variant in vanilla|ipcstamp|dev) ;; *) echo "build.sh: unknown variant '$variant'" >&2; exit 2 ;; esac
me="ipcstamp-worker-xs ($variant)"

if [ ! -f "$xsnap/xsnap-native/xsnap/sources/xsnap-worker.c" ] ||
   [ ! -f "$xsnap/moddable/xs/includes/xs.h" ]; then
    echo "$me: skipped: no xsnap sources in $xsnap (an @agoric/xsnap npm package: configure --with-xsnap=DIR)"
    exit 77
fi
version=$(sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$xsnap/package.json" | head -n 1)
if [ -z "$version" ]; then
    echo "$me: $xsnap/package.json has no version" >&2
    exit 3
fi

# The files hooks.list changes, and the makefile whose variables are used,
# must be exactly the ones this was written for.
bad=$(cd "$xsnap" && sha256sum -c "$here/upstream.sha256" 2>/dev/null | sed -n 's/: FAILED.*//p') || true
if [ -n "$bad" ] || ! (cd "$xsnap" && sha256sum -c --status "$here/upstream.sha256" 2>/dev/null); then
    echo "$me: refusing to build: these files of $xsnap (@agoric/xsnap $version) differ from the" >&2
    echo "  ones ipcstamp's change was written for (worker/xs/upstream.sha256, @agoric/xsnap 0.15.0):" >&2
    (cd "$xsnap" && sha256sum -c "$here/upstream.sha256" 2>&1 | grep -v ': OK$' | sed 's/^/    /') >&2 || true
    echo "  Use @agoric/xsnap 0.15.0, or an ipcstamp whose worker/xs matches your version." >&2
    exit 3
fi

# Copy what the makefile reads.  cp -pRu keeps upstream's times and copies
# only what is newer, so the makefile rebuilds only what changed.
mkdir -p "$tree/moddable/modules" "$tree/xsnap-native/xsnap"
cp -pRu "$xsnap/moddable/xs" "$tree/moddable/"
cp -pRu "$xsnap/moddable/modules/data" "$tree/moddable/modules/"
cp -pRu "$xsnap/xsnap-native/xsnap/sources" "$xsnap/xsnap-native/xsnap/makefiles" "$tree/xsnap-native/xsnap/"
chmod -R u+w "$tree"

# Write $2 from $1 only when the content differs (the makefile goes by time).
replace() {
    if cmp -s "$1" "$2"; then rm -f "$1"; else mv -f "$1" "$2"; fi
}

case $variant in
    ipcstamp) lists="$here/hooks.list" ;;
    dev) lists="$here/hooks.list $here/hooks-dev.list" ;;
    *) lists= ;;
esac
if [ -n "$lists" ]; then
    # Apply the lists to pristine copies of each file they name.
    # shellcheck disable=SC2086
    cat $lists >"$tree/hooks.all"
    files=$(sed -n 's/^\([^#][^ ]*\) :: .*/\1/p' "$tree/hooks.all" | sort -u)
    for f in $files; do
        awk -v file="$f" -v me="$me" '
            function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
            FNR == NR {
                if ($0 ~ /^#/ || $0 !~ / :: /) next
                n = split($0, p, / :: /)
                if (n != 4 || p[1] != file) next
                split(p[2], wp, / /); split(wp[2], nm, "/")
                k++; where[k] = wp[1]; nth[k] = nm[1] + 0; total[k] = nm[2] + 0
                anchor[k] = trim(p[3]); text[k] = p[4]
                next
            }
            {
                line[FNR] = $0; nl = FNR
                t = trim($0)
                for (i = 1; i <= k; i++) if (t == anchor[i]) { seen[i]++; if (seen[i] == nth[i]) at[i] = FNR }
            }
            END {
                for (i = 1; i <= k; i++) if (seen[i] != total[i] || !at[i]) {
                    printf "%s: %s: anchor \"%s\" found %d times, hooks.list expects %d\n", me, file, anchor[i], seen[i], total[i] > "/dev/stderr"
                    bad = 1
                }
                if (bad) exit 3
                for (j = 1; j <= nl; j++) {
                    ind = line[j]; sub(/[^ \t].*$/, "", ind)
                    for (i = 1; i <= k; i++) if (at[i] == j && where[i] == "before") print ind text[i]
                    print line[j]
                    for (i = 1; i <= k; i++) if (at[i] == j && where[i] == "after") print ind text[i]
                }
            }' "$tree/hooks.all" "$xsnap/$f" >"$tree/$f.tmp" || { rm -f "$tree/$f.tmp"; exit 3; }
        replace "$tree/$f.tmp" "$tree/$f"
    done
    srcs=$tree/xsnap-native/xsnap/sources
    cp "$here/ipcstamp-xs.h" "$srcs/ipcstamp-xs.h.tmp"
    replace "$srcs/ipcstamp-xs.h.tmp" "$srcs/ipcstamp-xs.h"
    if [ "$variant" = dev ]; then
        cp "$here/dev.c" "$srcs/ipcstamp-xs-dev.c.tmp"
        replace "$srcs/ipcstamp-xs-dev.c.tmp" "$srcs/ipcstamp-xs-dev.c"
        # dev.c is compiled inside xsnap-worker.c: rebuild it when it changed.
        obj=$tree/xsnap-native/xsnap/build/tmp/lin/release/xsnap-worker/xsnap-worker.o
        if [ -f "$obj" ] && [ "$srcs/ipcstamp-xs-dev.c" -nt "$obj" ]; then rm -f "$obj"; fi
        # The rest is the ipcstamp build's: start from its objects.
        ref=$(dirname "$tree")/tree-ipcstamp/xsnap-native/xsnap/build
        if [ ! -d "$tree/xsnap-native/xsnap/build" ] && [ -d "$ref" ]; then
            cp -pR "$ref" "$tree/xsnap-native/xsnap/build"
            rm -f "$tree/xsnap-native/xsnap/build/bin/lin/release/xsnap-worker"
        fi
    fi
fi

bin=$tree/xsnap-native/xsnap/build/bin/lin/release/xsnap-worker
# The makefile's link depends on its objects only: relink when ours changed.
for lib in "$@"; do
    if [ -f "$bin" ] && [ "$lib" -nt "$bin" ]; then rm -f "$bin"; fi
done
# As @agoric/xsnap's src/build.js runs it (the release goal), plus, for
# ipcstamp, our archives on the link line (its LIBRARIES are -ldl -lm
# -lpthread; xsnap-worker.mk's hash pins that).
if [ "$variant" != vanilla ]; then
    ${MAKE:-make} -C "$tree/xsnap-native/xsnap/makefiles/lin" -f xsnap-worker.mk \
        MODDABLE="$tree/moddable" GOAL=release XSNAP_VERSION="$version" \
        CC='cc "-D__has_builtin(x)=1"' LIBRARIES="$* -ldl -lm -lpthread"
else
    ${MAKE:-make} -C "$tree/xsnap-native/xsnap/makefiles/lin" -f xsnap-worker.mk \
        MODDABLE="$tree/moddable" GOAL=release XSNAP_VERSION="$version" \
        CC='cc "-D__has_builtin(x)=1"'
fi
cp "$bin" "$out.tmp"
replace "$out.tmp" "$out"
