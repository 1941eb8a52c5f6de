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

# Test-only: Agoric's xsnap parent and xsnap-worker, the real peers of the
# interop tests, from npm (npm builds xsnap-worker from the package's C
# sources).  Without npm those tests are skipped.
if [ ! -d tests/interop/node_modules/@agoric/xsnap ] && [ "${IPCSTAMP_NO_NPM:-0}" != 1 ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "autogen.sh: installing the interop tests' npm packages (tests/interop)"
        (cd tests/interop && npm ci --no-audit --no-fund --loglevel=error) ||
            echo "autogen.sh: npm ci failed: the interop tests will be skipped" >&2
    else
        echo "autogen.sh: npm not found: the interop tests will be skipped" >&2
    fi
fi

# Test-only: Agoric's SwingSet kernel and telemetry (a separate npm project,
# so its dependency tree never conflicts with the xsnap one above): they
# generate the real slogfile and flight-recorder fixtures and run Agoric's
# slog-to-OpenTelemetry converter on ipcstamp's slogfiles.  Without npm those
# tests are skipped.
if [ ! -d tests/interop/swingset/node_modules/@agoric/swingset-vat ] && [ "${IPCSTAMP_NO_NPM:-0}" != 1 ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "autogen.sh: installing the SwingSet interop npm packages (tests/interop/swingset)"
        (cd tests/interop/swingset && npm ci --no-audit --no-fund --loglevel=error) ||
            echo "autogen.sh: npm ci failed: the SwingSet interop tests will be skipped" >&2
    else
        echo "autogen.sh: npm not found: the SwingSet interop tests will be skipped" >&2
    fi
fi

# Test-only: a real OTLP/HTTP receiver (Elastic's mockotlpserver, which
# decodes with OpenTelemetry's own protobuf definitions) for tests/otel.test.
# Without npm that test is skipped.
if [ ! -d tests/otel/node_modules/@elastic/mockotlpserver ] && [ "${IPCSTAMP_NO_NPM:-0}" != 1 ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "autogen.sh: installing the OTLP receiver for the otel test (tests/otel)"
        (cd tests/otel && npm ci --no-audit --no-fund --loglevel=error) ||
            echo "autogen.sh: npm ci failed: the otel test will be skipped" >&2
    else
        echo "autogen.sh: npm not found: the otel test will be skipped" >&2
    fi
fi

# Test-only: speedscope, the offline trace viewer the trace is checked in
# (tests/viewers/speedscope.test, in headless Chromium).  Without npm that
# test is skipped.
if [ ! -d tests/viewers/node_modules/speedscope ] && [ "${IPCSTAMP_NO_NPM:-0}" != 1 ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "autogen.sh: installing the viewer tests' npm packages (tests/viewers)"
        (cd tests/viewers && npm ci --no-audit --no-fund --loglevel=error) ||
            echo "autogen.sh: npm ci failed: the speedscope test will be skipped" >&2
    else
        echo "autogen.sh: npm not found: the speedscope test will be skipped" >&2
    fi
fi
