#!/bin/sh
# usage: tests/npm-ci.sh DIR
#
# `npm ci` in DIR, the way the test suite installs each of its test-only
# npm projects (tests/peers.sh), so that it works on a fresh machine with
# no npm configuration at all.  Exit 0 when it installed; otherwise npm's
# last words on stderr and exit 1.
#
# Why not plain `npm ci`: a native module among the peers (better-sqlite3,
# under Agoric's swing-store) is compiled by node-gyp, which first fetches
# Node's headers from Node's own download host, and before that
# prebuild-install tries to fetch a prebuilt binary from yet another host.
# Neither host is reachable from the machines this project runs on: only
# the package registries are.  The headers are on the machine already
# (Debian's nodejs installs them under /usr/include/node; Node's own
# tarballs under PREFIX/include/node), so node-gyp is pointed at them and
# prebuild-install told to build from source.  Both through npm's
# environment for this one command: the user's ~/.npmrc is neither read
# for this nor written.
set -u
dir=$1
log=${TMPDIR:-/tmp}/ipcstamp-npm-ci.$$.log
trap 'rm -f "$log"' EXIT

# The prefix of the node that npm will run, and its headers.
if [ -z "${npm_config_nodedir:-}" ]; then
    exe=$(node -p 'process.execPath' 2>/dev/null) || exe=
    prefix=${exe%/bin/node}
    if [ -n "$exe" ] && [ -f "$prefix/include/node/node.h" ] &&
       [ -f "$prefix/include/node/common.gypi" ]; then
        npm_config_nodedir=$prefix
        export npm_config_nodedir
    fi
fi
npm_config_build_from_source=${npm_config_build_from_source:-true}
# No question to the registry about npm's own newer version.
npm_config_update_notifier=false
export npm_config_build_from_source npm_config_update_notifier

if (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
    cat "$log" >&2
    exit 0
fi
# npm's own summary of what failed is at the end of its output.
tail -n 25 "$log" >&2
exit 1
