#!/bin/sh
# usage: tests/peers.sh SRCDIR STAMP
#
# The test suite's peers, which the build and `make demo` do not need:
# `make check` runs this first (tests/local.mk: the stamp is in check_DATA).
#
# - Debian packages (installed as root where apt-get exists; elsewhere the
#   apt-get line is printed and the tests that need them are skipped):
#   faketime (the timequake test), groff (the man pages), python3 (the
#   report's JSON schema), node and npm (the interop tests), chromium
#   (headless: the HTML report's and speedscope's tests), make and g++
#   (node-gyp compiles the native npm peers with them), time (GNU
#   /usr/bin/time: otel-records.test's peak memory), bpftrace (the USDT
#   probes' tests, as root), fuse3 and libfuse3-dev (tests/os/swingset.test
#   builds a FUSE file system whose fsync stalls: the disk cause),
#   prometheus (its server scrapes `ipcstamp metrics`, its promtool checks
#   the exposition: tests/metrics/; the tests run their own on a free port,
#   where systemd runs the package also starts one on 9090, said in the
#   README), systemd (systemd-analyze verifies the
#   service's unit: tests/pkg/), dpkg-dev, debhelper and lintian
#   (tests/pkg/deb.test builds the Debian package, lints and installs it).
# - The test-only npm projects, each installed with `npm ci` from its lock
#   file (through tests/npm-ci.sh, which works with no npm configuration:
#   native modules are built against the machine's own Node headers):
#   tests/interop (Agoric's xsnap; npm builds xsnap-worker from C),
#   tests/interop/swingset (Agoric's SwingSet kernel and telemetry),
#   tests/otel (Elastic's mockotlpserver), tests/viewers (speedscope).
#
# Idempotent and cached: a project is installed again only when its
# package-lock.json changed since (the lock's hash is recorded in
# node_modules/.ipcstamp-lock) or its package is missing.  Nothing is
# installed when the peers are somewhere else (IPCSTAMP_INTEROP_DIR, or
# configure --with-interop-dir: make distcheck, whose source tree is
# read-only), nor with IPCSTAMP_NO_NPM=1 (npm) or IPCSTAMP_NO_TEST_DEPS=1
# (apt-get).  A failed install is said loudly, naming the package and
# npm's reason; the tests that need it are then skipped, except where
# IPCSTAMP_REQUIRE_INTEROP=1 (CI): there this script fails `make check` at
# once, before any test runs.
#
# STAMP is rewritten only when what it records changes (which peers are
# there, from which lock file), so a rule that depends on it (building
# from the installed packages) runs again only then.
set -u
src=$1
stamp=$2
here=$(dirname "$0")
own=$src/tests/interop
dir=${IPCSTAMP_INTEROP_DIR:-$own}
say() { echo "tests/peers.sh: $*" >&2; }
# failed WHAT: a peer could not be installed.  Said loudly; where CI
# requires every peer (IPCSTAMP_REQUIRE_INTEROP=1) make check stops here,
# naming the package and the reason, rather than failing tests later.
fatal=
failed() {
    echo "tests/peers.sh: *** $* ***" >&2
    if [ "${IPCSTAMP_REQUIRE_INTEROP:-0}" = 1 ]; then
        echo "tests/peers.sh: IPCSTAMP_REQUIRE_INTEROP=1: every peer must be installed" >&2
        fatal="$fatal; $*"
        return
    fi
    echo "tests/peers.sh: the tests that need it will be skipped" >&2
}

# The peers are this tree's own (and may be installed) when DIR is the
# source tree's tests/interop.
install=no
if [ "$(cd "$dir" 2>/dev/null && pwd -P)" = "$(cd "$own" && pwd -P)" ] &&
   [ -w "$own" ]; then
    install=yes
fi

# tool (a command, or a file) : Debian package
test_deps="faketime:faketime prometheus:prometheus promtool:prometheus systemd-analyze:systemd groff:groff-base python3:python3 node:nodejs npm:npm chromium:chromium make:make g++:g++ /usr/bin/time:time bpftrace:bpftrace fusermount3:fuse3 /usr/include/fuse3/fuse.h:libfuse3-dev dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian"
missing=
for d in $test_deps; do
    # a command, or a file (a library's header)
    command -v "${d%%:*}" >/dev/null 2>&1 || [ -f "${d%%:*}" ] ||
        missing="$missing ${d##*:}"
done
if [ -n "$missing" ]; then
    if [ $install = yes ] && [ "${IPCSTAMP_NO_TEST_DEPS:-0}" != 1 ] &&
       [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing what the tests need:$missing"
        export DEBIAN_FRONTEND=noninteractive
        # shellcheck disable=SC2086
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } ||
            failed "apt-get could not install$missing"
    else
        say "the tests that need these are skipped:$missing"
        say "    sudo apt-get install$missing"
    fi
fi

# lock_hash FILE: a hash of FILE's content.
lock_hash() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum <"$1" | cut -d' ' -f1
    else
        cksum <"$1" | tr ' ' -
    fi
}

# peer DIR PACKAGE WHAT: makes DIR/node_modules hold DIR/package-lock.json's
# packages (PACKAGE among them), and prints the stamp's line for DIR.  WHAT
# names the tests that are skipped without it.
peer() {
    p=$1 pkg=$2 what=$3
    nm=$p/node_modules
    want=$(lock_hash "$p/package-lock.json" 2>/dev/null) || want=
    have=$(cat "$nm/.ipcstamp-lock" 2>/dev/null) || have=
    # An install made before the hash was recorded (by npm ci after the
    # lock last changed) is taken as it is.
    if [ -z "$have" ] && [ -d "$nm/$pkg" ] && [ $install = yes ] &&
       [ -n "$(find "$nm/.package-lock.json" -newer "$p/package-lock.json" 2>/dev/null)" ]; then
        echo "$want" >"$nm/.ipcstamp-lock" && have=$want
    fi
    if [ $install = yes ] && [ -n "$want" ] &&
       { [ "$have" != "$want" ] || [ ! -d "$nm/$pkg" ]; } &&
       [ "${IPCSTAMP_NO_NPM:-0}" != 1 ]; then
        if command -v npm >/dev/null 2>&1; then
            say "installing the npm packages of $what ($p): npm ci"
            if sh "$here/npm-ci.sh" "$p"; then
                echo "$want" >"$nm/.ipcstamp-lock"
            else
                failed "npm ci failed in $p: $pkg is not installed (npm's last lines above say why)"
            fi
        else
            failed "npm is not installed: $pkg cannot be installed in $p"
        fi
    fi
    if [ -d "$nm/$pkg" ]; then
        echo "$p $pkg $(cat "$nm/.ipcstamp-lock" 2>/dev/null || echo installed)"
    else
        say "no $pkg in $nm: skipping $what"
        echo "$p $pkg missing"
    fi
}

# The apt-get step above may have failed already; stop before npm then.
if [ -n "$fatal" ]; then
    echo "tests/peers.sh: stopping make check: ${fatal#; }" >&2
    exit 1
fi
# one DIR PACKAGE WHAT: peer's line into the new stamp; stop at once where a
# required peer could not be installed.
one() {
    peer "$@" >>"$stamp.tmp"
    if [ -n "$fatal" ]; then
        rm -f "$stamp.tmp"
        echo "tests/peers.sh: stopping make check: ${fatal#; }" >&2
        exit 1
    fi
}
: >"$stamp.tmp" || exit 1
one "$dir" @agoric/xsnap "the xsnap interop tests"
one "$dir/swingset" @agoric/swingset-vat "the SwingSet interop tests"
one "${dir%/interop}/otel" @elastic/mockotlpserver "the otel tests"
one "${dir%/interop}/viewers" speedscope "the speedscope test"
if cmp -s "$stamp.tmp" "$stamp"; then
    rm -f "$stamp.tmp"
else
    mv "$stamp.tmp" "$stamp"
fi
exit 0
