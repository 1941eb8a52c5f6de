#!/bin/sh
# Regenerate the build system. On a fresh Debian machine the build
# dependencies are installed first (as root, where apt-get exists); elsewhere
# the exact install line is printed and the script stops.
set -eu
cd "$(dirname "$0")"

# tool-or-header to check : Debian package that provides it
deps="
autoconf:autoconf
automake:automake
libtoolize:libtool
pkg-config:pkg-config
make:make
cc:gcc
pc:libuv:libuv1-dev
pc:check:check
pc:yajl:libyajl-dev
pc:zlib:zlib1g-dev
pc:duktape:duktape-dev
pc:libcurl:libcurl4-openssl-dev
"

# What the test suite needs besides the build, so that make check skips
# nothing: libfaketime (the timequake test), groff (the man pages), python3
# (the report's JSON schema), node and npm (the interop tests with Agoric's
# xsnap), chromium (headless: the HTML report's and the trace viewer's
# tests).  Missing ones are installed as root; elsewhere they are named, and
# the build goes on (the tests that need them say so and are skipped).
test_deps="
faketime:faketime
groff:groff-base
python3:python3
node:nodejs
npm:npm
chromium:chromium
"

# missing_of LIST: the Debian packages of LIST's entries that are absent.
missing_of() {
    m=
    for d in $1; do
        case $d in
        pc:*)
            mod=${d#pc:}; mod=${mod%%:*}; pkg=${d##*:}
            if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
                m="$m $pkg"
            fi ;;
        *)
            tool=${d%%:*}; pkg=${d##*:}
            command -v "$tool" >/dev/null 2>&1 || m="$m $pkg" ;;
        esac
    done
    echo "$m"
}

can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
updated=0
apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    [ $updated = 1 ] || apt-get update -qq
    updated=1
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends "$@"
}

missing=$(missing_of "$deps")
if [ -n "$missing" ]; then
    if can_install; then
        echo "autogen.sh: installing missing build dependencies:$missing"
        # shellcheck disable=SC2086
        apt_install $missing
    else
        echo "autogen.sh: missing build dependencies:$missing" >&2
        echo "install them with:" >&2
        echo "    sudo apt-get install$missing" >&2
        exit 1
    fi
fi

missing=$(missing_of "$test_deps")
if [ -n "$missing" ] && [ "${IPCSTAMP_NO_TEST_DEPS:-0}" != 1 ]; then
    if can_install; then
        echo "autogen.sh: installing what the tests need:$missing"
        # shellcheck disable=SC2086
        apt_install $missing || echo "autogen.sh: could not install$missing: some tests will be skipped" >&2
    else
        echo "autogen.sh: some tests will be skipped without:$missing" >&2
        echo "    sudo apt-get install$missing" >&2
    fi
fi

mkdir -p m4 build-aux
autoreconf --install --force

# npm_peers DIR PACKAGE WHAT: installs the test-only npm project in DIR
# (npm ci from its lock file) unless DIR/node_modules/PACKAGE is there or
# IPCSTAMP_NO_NPM=1.  WHAT names the tests that are skipped without it.
npm_peers() {
    [ ! -d "$1/node_modules/$2" ] && [ "${IPCSTAMP_NO_NPM:-0}" != 1 ] || return 0
    if ! command -v npm >/dev/null 2>&1; then
        echo "autogen.sh: npm not found: $3 will be skipped" >&2
        return 0
    fi
    echo "autogen.sh: installing the npm packages of $3 ($1)"
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error) ||
        echo "autogen.sh: npm ci failed: $3 will be skipped" >&2
}

# Agoric's xsnap parent and xsnap-worker, the real peers of the interop
# tests (npm builds xsnap-worker from the package's C sources).
npm_peers tests/interop @agoric/xsnap "the interop tests"
# Agoric's SwingSet kernel and telemetry (a separate npm project, so its
# dependency tree never conflicts with the xsnap one): they generate the
# real slogfile and flight-recorder fixtures and run Agoric's
# slog-to-OpenTelemetry converter on ipcstamp's slogfiles.
npm_peers tests/interop/swingset @agoric/swingset-vat "the SwingSet interop tests"
# A real OTLP/HTTP receiver (Elastic's mockotlpserver, which decodes with
# OpenTelemetry's own protobuf definitions) for tests/otel*.test.
npm_peers tests/otel @elastic/mockotlpserver "the otel tests"
# speedscope, the offline trace viewer the trace is checked in
# (tests/viewers/speedscope.test, in headless Chromium).
npm_peers tests/viewers speedscope "the speedscope test"
