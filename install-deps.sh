#!/bin/sh
# The build's dependencies (and `make demo`'s), installed on purpose: run
# it once on a fresh Debian machine, before ./autogen.sh; with --tests,
# Check too (the README's test command), which configure must find to
# build the tests, so that it cannot come later with make check's peers.
# As root, where
# apt-get exists, it installs what is missing; elsewhere it prints the
# apt-get line to run (with sudo) and fails when the build cannot go on
# without it.  What only the tests use (Debian packages, the npm projects)
# comes with `make check` (tests/peers.sh); the Debian package's build
# dependencies are in debian/control.
set -eu
cd "$(dirname "$0")"
tests=0
case ${1-} in
--tests) tests=1 ;;
"") ;;
*) echo "usage: install-deps.sh [--tests]" >&2; exit 2 ;;
esac

# tool-or-header to check : Debian package that provides it
deps="
autoconf:autoconf
automake:automake
libtoolize:libtool
pkg-config:pkg-config
make:make
cc:gcc
pc:libuv:libuv1-dev
pc:yajl:libyajl-dev
pc:zlib:zlib1g-dev
pc:duktape:duktape-dev
pc:libcurl:libcurl4-openssl-dev
"

# Check builds the tests (configure without it builds everything else and
# says so): installed with --tests where possible, not required.
test_build_deps="pc:check:check"
# ipcstamp record (docs/os.md) is built with libbpf, bpftool and clang;
# without them everything else is, and configure says so.  Installed with
# the above where possible: not needed by the build, but a machine that can
# install them should get the collector (and CI must, to test it).
bpf_build_deps="pc:libbpf:libbpf-dev bpftool:bpftool clang:clang"
# <sys/sdt.h> gives the build its USDT probes (docs/probes.md); without it
# they are compiled out and configure says so.  The same: installed where
# possible, not required.
probe_deps="h:sys/sdt.h:systemtap-sdt-dev"

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
        h:*)
            hdr=${d#h:}; hdr=${hdr%%:*}; pkg=${d##*:}
            [ -f "/usr/include/$hdr" ] || [ -f "/usr/include/$(uname -m)-linux-gnu/$hdr" ] ||
                m="$m $pkg" ;;
        *)
            tool=${d%%:*}; pkg=${d##*:}
            command -v "$tool" >/dev/null 2>&1 || m="$m $pkg" ;;
        esac
    done
    echo "$m"
}

can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends "$@"
}

missing=$(missing_of "$deps")
optional=
if [ "$tests" = 1 ]; then
    optional=$(missing_of "$test_build_deps")
    if [ -n "$optional" ] && ! can_install; then
        echo "install-deps.sh: without$optional the tests are not built (sudo apt-get install$optional)" >&2
    fi
fi
PATH=$PATH:/usr/sbin:/sbin # bpftool is in sbin
bpf_missing=$(missing_of "$bpf_build_deps")
if [ -n "$bpf_missing" ] && ! can_install; then
    echo "install-deps.sh: without$bpf_missing ipcstamp record is not built (sudo apt-get install$bpf_missing)" >&2
fi
optional="$optional$bpf_missing"
probes=$(missing_of "$probe_deps")
if [ -n "$probes" ] && ! can_install; then
    echo "install-deps.sh: without$probes the USDT probes are compiled out (sudo apt-get install$probes)" >&2
fi
optional="$optional$probes"
if [ -n "$missing$optional" ] && can_install; then
    echo "install-deps.sh: installing missing build dependencies:$missing$optional"
    # shellcheck disable=SC2086
    apt_install $missing $optional
elif [ -n "$missing" ]; then
    echo "install-deps.sh: missing build dependencies:$missing" >&2
    echo "install them with:" >&2
    echo "    sudo apt-get install$missing" >&2
    exit 1
fi

[ -n "$missing$optional" ] || echo "install-deps.sh: every build dependency is installed"
