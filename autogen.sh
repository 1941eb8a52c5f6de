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
