#!/usr/bin/env python3
"""agree47.py OS SLOG REPORT_JSON: how well the operating system's view
(ipcstamp record) agrees with the worker's own stamps, figure by figure,
for issue 47 ("Trust every figure of the OS view").  A measurement, not
a test: it prints the figures and exits 0 (1 on unusable input).

Made for a SwingSet run on ipcstamp-worker-xs whose workers stamp their
CPU time (docs/os.md, "How well the two CPU views agree", has the
commands and the figures measured):

  (in a copy of tests/interop/swingset with its node_modules, after
   `ipcstamp xsnap install --worker worker/ipcstamp-worker-xs .`)
  IPCSTAMP_CPU_TIME=1 ipcstamp record -o run.os -- \\
      node gen-slog.mjs run.slog --rounds 10 --blocks
  ipcstamp report run.slog --os run.os --format json > run.json
  python3 tests/os/agree47.py run.os run.slog run.json

What it prints (each figure over every delivery that has it):

cpu      the worker's CPU per delivery: its own cpu_ns (the process's CPU
         clock from its d stamp to its e stamp) against os_worker_on_cpu_ns
         (what the scheduler charged its thread over the worker segments),
         and against on_cpu + steal + uncharged (the time it held a CPU:
         the one figure before format version 3); the share within 50 us,
         the differences' percentiles, and for the misses what the
         recording says of them (the worker's own CPU in the pipe
         segments, from the scheduler's run time at its switches)
instants each worker stamp against its frame's instant on the
         recording's clock, frames matched to stamps in protocol order
         from the delivery's read: d and r after the read of the frame
         returned (stamp - last read's return), u and e before the frame's
         write (first write entered - stamp); percentiles of |difference|
pipe     in_pipe against the reader's own waits: per delivery, the time
         the reader was blocked (a sleep, off to wake) within its frames'
         windows (the write entered to the last read returned) bounds
         os_pipe_in_pipe_ns, and the time it was runnable and not on a CPU
         there (wake to on) is beside os_pipe_cpu_wait_ns
frames   recorded_frames against delivery_frames + each other_work kind's
         frames, and unpaired frame sides

Reads the recording with os_check.py's decoder (beside this file)."""
import bisect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import os_check  # noqa: E402


def pct(xs, p):
    """The p-th percentile (nearest rank) of xs, None when empty."""
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))]


def us(ns):
    return "-" if ns is None else f"{ns / 1000:.1f}"


def spread(xs):
    return (f"p50 {us(pct(xs, 50))} p90 {us(pct(xs, 90))} "
            f"p99 {us(pct(xs, 99))} max {us(max(xs) if xs else None)} us")


class Waits(list):
    """One thread's waits in the order they began, with their starts."""

    def index(self):
        self.sort(key=lambda w: w["off"])
        self.offs = [w["off"] for w in self]
        return self

    def last_before(self, t):
        """The index of the last wait that began at or before t, or -1."""
        return bisect.bisect_right(self.offs, t) - 1


def waits_by_tid(recs):
    out = {}
    for r in recs:
        if r.get("t") == "wait":
            out.setdefault(r["tid"], Waits()).append(r)
    return {tid: ws.index() for tid, ws in out.items()}


def overlap(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


def charged(ws, t):
    """The scheduler's run time of a thread at instant t (its
    sum_exec_runtime), from its waits: at each switch off the CPU the
    recording has it; between a switch on and the next off the thread
    ran, counted at full rate (steal aside).  None where unknown."""
    i = ws.last_before(t) if ws else -1
    prev = ws[i] if i >= 0 else None
    if prev is None or not prev.get("runtime"):
        return None
    if t <= prev["on"]:
        return prev["runtime"]
    return prev["runtime"] + (t - prev["on"])


def stamps(slog):
    """The slogfile's line of each deliver (1-based, as report's "line")
    -> (kinds, mono) of ipcstamp-worker-xs, from its deliver-result (the
    next one of its vat and delivery: replays repeat a deliveryNum)."""
    out, open_ = {}, {}
    for n, r in enumerate(slog, 1):
        key = (r.get("vatID"), r.get("deliveryNum"))
        if r.get("type") == "deliver":
            open_[key] = n
            continue
        if r.get("type") != "deliver-result" or key not in open_:
            continue
        line = open_.pop(key)
        dr = r.get("dr") or []
        m = dr[2] if len(dr) > 2 and isinstance(dr[2], dict) else {}
        ips = m.get("ipcstamp")
        if ips and not ips.get("dropped"):
            out[line] = (ips["kinds"], ips["mono"])
    return out


def worker_events(recs):
    """pid -> the worker-side instants of its frames, in time order:
    (instant, 'r'|'w', tag, record) -- a read at its last return, a write
    at its first call entered."""
    out = {}
    for f in recs:
        if f.get("t") != "frame":
            continue
        at = f["last_ret"] if f["side"] == "r" else f["enter"]
        out.setdefault(f["pid"], []).append((at, f["side"], f["tag"], f))
    for ev in out.values():
        ev.sort(key=lambda e: e[0])
    return out


WANT = {"d": ("r", "?e"), "u": ("w", "?"), "r": ("r", "/"), "e": ("w", ".!")}


def match(ev, kinds, mono):
    """The worker's frames of one delivery, one per stamp, or None: the
    read of a delivery nearest its d stamp, then each next frame of the
    worker in order, which must be the stamp's (direction and tag)."""
    reads = [i for i, e in enumerate(ev) if e[1] == "r" and e[2] in "?e"]
    if not reads:
        return None
    i = min(reads, key=lambda i: abs(mono[0] - ev[i][0]))
    got = []
    for k, t in zip(kinds, mono):
        if i >= len(ev):
            return None
        side, tags = WANT[k]
        if ev[i][1] != side or ev[i][2] not in tags:
            return None
        got.append((k, t, ev[i]))
        i += 1
    return got


def sides(recs):
    """(pipe, pid, side) -> that process's records of frames on the pipe,
    in time order (a pipe's id is its kernel object's address: reused by
    later pipes, so always with the process)."""
    out = {}
    for f in recs:
        if f.get("t") == "frame":
            out.setdefault((f["pipe"], f["pid"], f["side"]), []).append(f)
    for key, fs in out.items():
        fs.sort(key=lambda f: f["enter"] if key[2] == "w" else f["last_ret"])
        out[key] = (fs, [f["enter"] if key[2] == "w" else f["last_ret"]
                         for f in fs])
    return out


def other_side(f, peer, by):
    """The peer's record of frame f: for a read, the peer's last write
    entered before the read returned; for a write, the peer's first read
    returning after the write entered (the protocol answers each frame
    before the next is written)."""
    if f["side"] == "r":
        ws, at = by.get((f["pipe"], peer, "w"), ([], []))
        i = bisect.bisect_right(at, f["last_ret"]) - 1
        return ws[i] if i >= 0 else None
    rs, at = by.get((f["pipe"], peer, "r"), ([], []))
    i = bisect.bisect_left(at, f["enter"])
    return rs[i] if i < len(rs) else None


def reader_times(f, writer, waits):
    """Within [write entered, last read returned] of one frame: the
    reader thread blocked (sleeping) and runnable off a CPU."""
    a, b = writer["enter"], f["last_ret"]
    blocked = runnable = 0
    ws = waits.get(f["tid"])
    if not ws:
        return 0, 0
    # Waits are not nested: those that end after a began at most one
    # wait earlier than a.
    for w in ws[max(0, ws.last_before(a)):]:
        if w["off"] >= b:
            break
        if w["on"] <= a:
            continue
        if w["why"] == "cpu":
            runnable += overlap(a, b, w["off"], w["on"])
        else:
            blocked += overlap(a, b, w["off"], w["wake"])
            runnable += overlap(a, b, w["wake"], w["on"])
    return blocked, runnable


def cpu_figures(ds, matched, waits):
    near = held = 0
    d_on, d_held, miss = [], [], []
    for d in ds:
        on = d["os_worker_on_cpu_ns"]
        whole = on + d["os_worker_steal_ns"] + d["os_worker_uncharged_ns"]
        near += abs(d["cpu_ns"] - on) <= 50000
        held += abs(d["cpu_ns"] - whole) <= 50000
        d_on.append(d["cpu_ns"] - on)
        d_held.append(d["cpu_ns"] - whole)
        if abs(d["cpu_ns"] - on) > 50000:
            miss.append(d)
    n = len(ds)
    print(f"cpu: {n} deliveries with cpu_ns and all their frames")
    print(f"  |cpu_ns - on_cpu| <= 50 us: {near} ({100 * near / n:.2f}%); "
          f"cpu_ns - on_cpu: {spread([abs(x) for x in d_on])} (|.|), "
          f"median signed {us(pct(d_on, 50))}")
    print(f"  |cpu_ns - (on_cpu+steal+uncharged)| <= 50 us: {held} "
          f"({100 * held / n:.2f}%); {spread([abs(x) for x in d_held])}")
    cpu_split(ds, matched, waits)
    cpu_whole(ds, matched, waits, miss)


def cpu_whole(ds, matched, waits, miss):
    """cpu_ns against the thread's charge over the same d to e, and the
    largest misses of on_cpu."""
    # The kernel's own charge of the worker thread from d to e, read from
    # the run time its waits carry: what cpu_ns should be, pipe
    # segments (the worker's upcall writes, reply reads) included.
    kd, near_k = [], 0
    for d in ds:
        m = matched.get(d["line"])
        if not m:
            continue
        tid = m[0][2][3]["tid"]
        c0 = charged(waits.get(tid, ()), m[0][1])
        c1 = charged(waits.get(tid, ()), m[-1][1])
        if c0 is None or c1 is None:
            continue
        kd.append((d, d["cpu_ns"] - (c1 - c0)))
        near_k += abs(d["cpu_ns"] - (c1 - c0)) <= 50000
    if kd:
        print(f"  cpu_ns against the thread's charge from d to e (run time at "
              f"its switches, pipe segments included): within 50 us on "
              f"{near_k} of {len(kd)} ({100 * near_k / len(kd):.2f}%); "
              f"{spread([abs(x) for _, x in kd])}")
    for d in sorted(miss, key=lambda d: -abs(d["cpu_ns"] -
                                          d["os_worker_on_cpu_ns"]))[:8]:
        print(f"  miss: {d['vat']} #{d['deliveryNum']} crank {d['crank']}: "
              f"cpu_ns {d['cpu_ns']} on_cpu {d['os_worker_on_cpu_ns']} "
              f"steal {d['os_worker_steal_ns']} uncharged "
              f"{d['os_worker_uncharged_ns']} cpu_wait "
              f"{d['os_worker_cpu_wait_ns']} worker {d['worker_ns']} "
              f"pipe {d['pipe_ns']} frames {d['os_frames']}")


def cpu_split(ds, matched, waits):
    """on_cpu and cpu_ns against the thread's charge cut at the stamps."""
    # The same charge cut at the stamps: the worker segments (d to u, r
    # to u, ..., r to e), which os_worker_on_cpu_ns covers, and the rest,
    # the worker's CPU inside its pipe segments (its upcall writes and
    # reply reads, between a u and the next r), which cpu_ns counts and
    # the report puts under the pipe.
    seg_w, seg_p, bad, sep = [], [], [], []
    for d in ds:
        m = matched.get(d["line"])
        if not m:
            continue
        ws = waits.get(m[0][2][3]["tid"], ())
        c = [charged(ws, t) for _k, t, _e in m]
        if None in c:
            continue
        w = sum(c[i + 1] - c[i] for i in range(0, len(c) - 1, 2))
        p = (c[-1] - c[0]) - w
        seg_w.append(d["os_worker_on_cpu_ns"] - w)
        seg_p.append(p)
        sep.append((d, d["cpu_ns"] - (d["os_worker_on_cpu_ns"] + p),
                    2 * d["os_worker_uncharged_ns"] > d["worker_ns"]))
        if abs(d["os_worker_on_cpu_ns"] - w) > 50000:
            bad.append((d, w))
    if seg_w:
        print(f"  on_cpu against the thread's charge over the worker "
              f"segments read here: within 50 us on "
              f"{sum(abs(x) <= 50000 for x in seg_w)} of {len(seg_w)}; "
              f"{spread([abs(x) for x in seg_w])}")
        print(f"  the worker's charge inside its pipe segments (in cpu_ns, "
              f"not in on_cpu): {spread(seg_p)}; over 50 us on "
              f"{sum(x > 50000 for x in seg_p)}")
        ok = [x for x in sep if abs(x[1]) <= 50000]
        print(f"  |cpu_ns - (on_cpu + that pipe-segment charge)| <= 50 us: "
              f"{len(ok)} of {len(sep)} ({100 * len(ok) / len(sep):.2f}%); "
              f"{spread([abs(x[1]) for x in sep])}")
        rest = [x for x in sep if abs(x[1]) > 50000]
        last = [x for x in rest if x[2]]
        big = [x for x in rest if not x[2] and x[0]["worker_ns"] > 50e6]
        print(f"  of the {len(rest)} beyond: {len(last)} have over half "
              f"the worker time uncharged (a run charged far less than it "
              f"lasted: a switch off the CPU the recording lacks), "
              f"{len(big)} deliveries of over 50 ms of worker time, "
              f"{len(rest) - len(last) - len(big)} others")
        for d, x, _l in [x for x in rest if not x[2]][:6]:
            print(f"    {d['vat']} #{d['deliveryNum']} line {d['line']}: "
                  f"{us(x)} us apart; worker {us(d['worker_ns'])} us, "
                  f"uncharged {us(d['os_worker_uncharged_ns'])}, steal "
                  f"{us(d['os_worker_steal_ns'])}, cpu_wait "
                  f"{us(d['os_worker_cpu_wait_ns'])}")
        for d, w in bad[:6]:
            print(f"  on_cpu apart: {d['vat']} #{d['deliveryNum']} line "
                  f"{d['line']}: on_cpu {d['os_worker_on_cpu_ns']}, charge "
                  f"over worker segments {w}, uncharged "
                  f"{d['os_worker_uncharged_ns']}")


def instant_figures(matched):
    by = {"d": [], "u": [], "r": [], "e": []}
    for m in matched.values():
        for k, t, e in m:
            by[k].append(t - e[0] if k in "dr" else e[0] - t)
    every = [x for xs in by.values() for x in xs]
    print(f"instants: {len(matched)} deliveries matched, {len(every)} stamps "
          f"to their frames")
    print(f"  all |frame - stamp|: {spread([abs(x) for x in every])}; "
          f"<= 10 us: {100 * sum(abs(x) <= 10000 for x in every) / max(1, len(every)):.2f}%")
    for k, xs in by.items():
        if xs:
            print(f"  {k} ({len(xs)}): {spread([abs(x) for x in xs])}; "
                  f"negative (stamp on the wrong side): {sum(x < 0 for x in xs)}")


def pipe_figures(ds, recs, matched, waits):
    by = sides(recs)
    over, n, s_in, s_bl, s_cw, s_run = 0, 0, 0, 0, 0, 0
    worst = []
    for d in ds:
        m = matched.get(d["line"])
        if not m:
            continue
        # The delivery's frames each way: the worker's records, and the
        # parent's records of the same frames.
        blocked = runnable = 0
        ok = True
        for k, _t, e in m:
            f = e[3]
            peer = other_side(f, d["os_kernel_pid"], by)
            wr, rd = (peer, f) if f["side"] == "r" else (f, peer)
            if wr is None or rd is None:
                ok = False
                break
            b, r = reader_times(rd, wr, waits)
            blocked += b
            runnable += r
        if not ok:
            continue
        n += 1
        s_in += d["os_pipe_in_pipe_ns"]
        s_bl += blocked
        s_cw += d["os_pipe_cpu_wait_ns"]
        s_run += runnable
        if d["os_pipe_in_pipe_ns"] > blocked:
            over += 1
            worst.append((d["os_pipe_in_pipe_ns"] - blocked, d))
    print(f"pipe: {n} deliveries with every frame's two sides")
    print(f"  in_pipe above the reader's blocked time in its frames' windows: "
          f"{over} deliveries; sums: in_pipe {us(s_in)} us, blocked "
          f"{us(s_bl)} us; cpu_wait {us(s_cw)} us, reader runnable off a CPU "
          f"in the windows {us(s_run)} us")
    for x, d in sorted(worst, key=lambda w: -w[0])[:5]:
        print(f"  over: {d['vat']} #{d['deliveryNum']}: in_pipe "
              f"{d['os_pipe_in_pipe_ns']} by {x} ns")


def frame_figures(rep):
    s = next(r for r in rep if "summary" in r)["summary"]["os"]
    other = s.get("other_work", {})
    kinds = {k: v["frames"] for k, v in other.items() if v.get("frames")}
    total = s["delivery_frames"] + sum(kinds.values())
    print(f"frames: recorded {s['recorded_frames']}, of deliveries "
          f"{s['delivery_frames']}, of other work {sum(kinds.values())} "
          f"({', '.join(f'{k} {v}' for k, v in kinds.items())}): "
          f"{'all accounted for' if total == s['recorded_frames'] else 'NOT all accounted for'}; "
          f"unpaired frame sides {s.get('unpaired_frame_sides')}, "
          f"unmatched {s.get('unmatched_frames')}, lost events "
          f"{s.get('lost_events')}")


def main(argv):
    if len(argv) != 4:
        print(__doc__.split("\n\n")[0])
        return 1
    recs = os_check.load(argv[1])
    slog = os_check.load(argv[2])
    rep = os_check.load(argv[3])
    ds = [d for d in rep if "summary" not in d and "os_frames" in d and
          d["os_frames"] == d["os_frames_expected"]]
    st = stamps(slog)
    ev = worker_events(recs)
    waits = waits_by_tid(recs)
    matched, unmatched = {}, 0
    for d in ds:
        s = st.get(d["line"])
        if not s:
            continue
        m = match(ev.get(d["os_worker_pid"], []), s[0], s[1])
        if m is None:
            unmatched += 1
        else:
            matched[d["line"]] = m
    print(f"{len(ds)} deliveries with all their frames; "
          f"{len(st)} with the worker's stamps; {unmatched} not matched "
          f"frame by frame")
    cds = [d for d in ds if d.get("cpu_ns") is not None]
    if cds:
        cpu_figures(cds, matched, waits)
    else:
        print("cpu: no delivery has cpu_ns (IPCSTAMP_CPU_TIME=1 not set?)")
    instant_figures(matched)
    pipe_figures(ds, recs, matched, waits)
    frame_figures(rep)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
