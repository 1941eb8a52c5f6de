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
"

missing=
for d in $deps; do
    case $d in
    pc:*)
        mod=${d#pc:}; mod=${mod%%:*}; pkg=${d##*:}
        if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
            missing="$missing $pkg"
        fi ;;
    *)
        tool=${d%%:*}; pkg=${d##*:}
        command -v "$tool" >/dev/null 2>&1 || missing="$missing $pkg" ;;
    esac
done

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "autogen.sh: installing missing build dependencies:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing
    else
        echo "autogen.sh: missing build dependencies:$missing" >&2
        echo "install them with:" >&2
        echo "    sudo apt-get install$missing" >&2
        exit 1
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
