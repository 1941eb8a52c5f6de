# Sourced by the xs-*.test scripts: sets $ours and $vanilla (the two
# builds make made in worker/), or exits 77 (skipped) with a message —
# 1 instead when IPCSTAMP_REQUIRE_INTEROP=1 and the build is one that
# builds them (worker/xs/skip says when it is not).
ours=$build/worker/ipcstamp-worker-xs
vanilla=$build/worker/xs/xsnap-worker-vanilla
xs_skip() {
    echo "$1"
    if [ "${IPCSTAMP_REQUIRE_INTEROP:-0}" = 1 ] && [ ! -s "$build/worker/xs/skip" ]; then exit 1; fi
    exit 77
}
if [ -s "$build/worker/xs/skip" ]; then
    xs_skip "ipcstamp-worker-xs: skipped: $(cat "$build/worker/xs/skip")"
fi
if [ ! -x "$ours" ] || [ ! -x "$vanilla" ]; then
    xs_skip "ipcstamp-worker-xs: not built: no @agoric/xsnap sources (configure --with-xsnap=DIR, or the interop npm project: tests/interop)"
fi
if ! command -v node >/dev/null 2>&1; then
    xs_skip "ipcstamp-worker-xs: node not found"
fi
