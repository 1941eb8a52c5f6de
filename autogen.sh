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

# Test-only: headless Chromium, which the HTML report's and the trace
# viewer's tests load pages in.  Installed as root where apt-get exists;
# elsewhere those tests are skipped, and the build goes on.
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "autogen.sh: installing chromium (test-only)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends chromium ||
            echo "autogen.sh: chromium could not be installed: its tests will be skipped" >&2
    else
        echo "autogen.sh: no chromium: the HTML and trace viewer tests will be skipped" \
             "(sudo apt-get install chromium)" >&2
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
