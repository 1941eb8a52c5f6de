# Sourced by the tests/probes/*.test scripts (with $src, $b and $me set).
#
# probes_skip MSG      skipped (77) with MSG, or failed where
#                      IPCSTAMP_REQUIRE_INTEROP=1 (CI, which has everything)
# need_probes          the build has its probes compiled in
# need_bpftrace        bpftrace can attach here (root, uprobes)
# bt_start OUT SCRIPT ARGS...
#                      bpftrace SCRIPT ARGS in the background, stdout to OUT,
#                      returning once it has attached (its BEGIN printed a
#                      line "tracing..."): only then may the traced programs
#                      start, or their first events are missed.  $bt_pid is
#                      its pid.
# bt_wait CMD...       until CMD succeeds (at most 300 s): before bt_stop,
#                      until what the run fired is in OUT (bpftrace hands
#                      hits over when it gets a CPU; stopping it first
#                      would lose the last ones).
# bt_stop OUT          SIGINT until it exits: bpftrace prints its maps and
#                      exits.
probes_skip() {
    echo "$me: skipped: $1"
    if [ "${IPCSTAMP_REQUIRE_INTEROP:-0}" = 1 ]; then
        echo "$me: IPCSTAMP_REQUIRE_INTEROP=1: failing instead" >&2
        exit 1
    fi
    exit 77
}

need_probes() {
    grep -q '^#define HAVE_SYS_SDT_H 1' "$b/config.h" ||
        probes_skip "the probes are compiled out (configure found no sys/sdt.h, Debian systemtap-sdt-dev, or was given --disable-probes)"
    readelf -n "$b/worker/ipcstamp-worker-c" 2>/dev/null | grep -q 'Provider: ipcstamp' ||
        probes_skip "worker/ipcstamp-worker-c has no ipcstamp probes (configured --disable-probes?)"
}

need_bpftrace() {
    command -v bpftrace >/dev/null 2>&1 ||
        probes_skip "bpftrace is not installed (Debian: bpftrace; tests/peers.sh installs it as root)"
    [ "$(id -u)" = 0 ] || probes_skip "bpftrace needs root"
}

bt_pid=
bt_start() {
    out=$1
    shift
    : >"$out"
    # 4 MiB of perf buffer per CPU (bpftrace's default is 256 KiB): on a
    # loaded machine bpftrace may not get a CPU for a while, and a full
    # buffer loses hits.
    BPFTRACE_PERF_RB_PAGES=${BPFTRACE_PERF_RB_PAGES:-1024} \
        bpftrace "$@" >"$out" 2>"$out.err" &
    bt_pid=$!
    # No time limit of ours: bpftrace either attaches or exits.
    while ! grep -q '^tracing' "$out"; do
        if ! kill -0 "$bt_pid" 2>/dev/null; then
            wait "$bt_pid" || true
            bt_pid=
            probes_skip "bpftrace could not attach: $(grep -v 'RLIMIT_MEMLOCK' "$out.err" | head -n 3)"
        fi
        sleep 0.1
    done
}

# Whether bpftrace still runs (an exited child not yet waited for is a
# zombie, which kill -0 still finds).
bt_alive() {
    st=$(cut -d' ' -f3 "/proc/$bt_pid/stat" 2>/dev/null) && [ "$st" != Z ]
}

bt_wait() {
    i=0
    until "$@"; do
        i=$((i + 1))
        [ $i -le 1500 ] || return 0
        sleep 0.2
    done
}

bt_stop() {
    [ -n "$bt_pid" ] || return 0
    # Again every second until it is gone: a SIGINT that reaches bpftrace
    # 0.17 while it is busy printing can be lost (it then waits forever).
    n=0
    while bt_alive; do
        kill -INT "$bt_pid" 2>/dev/null || true
        n=$((n + 1))
        [ $n -le 300 ] || { kill -KILL "$bt_pid"; echo "$me: bpftrace would not stop" >&2; exit 1; }
        i=0
        while [ $i -lt 10 ] && bt_alive; do sleep 0.1; i=$((i + 1)); done
    done
    wait "$bt_pid" || true
    bt_pid=
    if grep -q 'Lost [0-9]* events' "$1" "$1.err" 2>/dev/null; then
        echo "$me: bpftrace lost events: $(grep 'Lost' "$1" "$1.err")" >&2
        exit 1
    fi
}
