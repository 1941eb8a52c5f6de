#!/usr/bin/env python3
"""recompute.py -- every figure of `ipcstamp report --format json`, recomputed
exactly from the slogfile by a second, independent implementation of the
formulas in docs/report.md (Python's Decimal and integers: no float, none of
the report's code).

    recompute.py IPCSTAMP SLOGFILE [--clock auto|mono|wall]

For each delivery the report attributed (found by the line of its deliver
record), this program rebuilds the delivery from the file's records: the
parent's stamps D, U/R per syscall or console line, E (on monotime when all
the delivery's records have it, else time); the worker's stamps from the
metering; the console fallback (a worker that does not stamp its console
lines), the replay and live testLog case (more worker upcalls than
records: unmatched) and
xsnap's cap of 502 stamps (a live delivery whose calls, console lines
included, need more is truncated, whatever the count; a replay with 502 is
possibly truncated); and, on wall clocks, the per-vat offset estimate (the
round trip with the smallest delay seen so far, started again after a
restart or a timequake; a delivery whose round trips allow no common offset
adds nothing to it).  Then it checks, to the nanosecond: the segments in
order, pipe, worker, kernel, unmatched, total, the offset and its bound,
cpu/off-cpu, and that the shares add up to the total; that a delivery is
flagged (offset_mismatch) exactly when a transit is below -bound; that the
summary's totals are the sums of the deliveries; and that every deliver
record is attributed or counted (not_attributed by reason, or skipped).
It prints what differs and a last line "N passed, M failed" (checks, one
per delivery, the summary's and the count's).
Exit 0 when everything matches, 1 otherwise, 2 on usage errors.
"""
import gzip
import json
import subprocess
import sys
from decimal import Decimal, ROUND_DOWN

E9 = Decimal(10) ** 9


def ns(x):
    """A JSON number of seconds as integer ns, digits past the ninth
    decimal dropped (as docs/report.md says the reader does)."""
    if isinstance(x, int):
        return x * 10**9
    return int((x * E9).to_integral_value(rounding=ROUND_DOWN))


def wns(x):
    """A worker stamp: timestamps are seconds; ipcstamp.mono is already ns."""
    return ns(x)


def lines_of(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        for raw in f:
            yield raw.rstrip(b"\n")


CAP = 502  # xsnap-worker's MAX_TIMESTAMPS


class Vat:
    def __init__(self):
        self.open = None          # the delivery in progress
        self.est = {}             # slot -> (lo, hi): the best round trip


def samples(P, W, n, first=0):
    """The round trips of docs/report.md (Clocks, 3), each as the interval
    of offsets (worker - parent) it allows, (lo, hi): the delivery's
    (D -> d ... e -> E; first=1 leaves it out) and each upcall's
    (u -> U ... R -> r).  Its offset is the middle, its delay the width."""
    last = 1 + 2 * n
    out = []
    for i in range(first, n + 1):
        if i == 0:
            out.append((W[last] - P[last], W[0] - P[0]))
        else:
            j = 2 * i - 1
            out.append((W[j] - P[j], W[j + 1] - P[j + 1]))
    return out


def estimate(vat, slot, P, W, n, first=0):
    """The streaming estimate: the delivery's round trip with the smallest
    delay (the first of equals) replaces the vat's when its delay is
    smaller.  A delivery whose round trips allow no common offset (max lo >
    min hi: a stamp contradicts the others) adds nothing; if its vat has
    no estimate yet, its own best round trip serves it alone.  Returns the
    offset and its bound."""
    ss = samples(P, W, n, first)
    best = None
    for lo, hi in ss:
        if best is None or hi - lo < best[1] - best[0]:
            best = (lo, hi)
    agree = max(lo for lo, _ in ss) <= min(hi for _, hi in ss)
    cur = vat.est.get(slot)
    if agree and (cur is None or best[1] - best[0] < cur[1] - cur[0]):
        vat.est[slot] = cur = best
    lo, hi = cur if cur is not None else best
    return trunc_half(lo + hi), trunc_half(max(hi - lo, 0))


def trunc_half(x):
    """x / 2 rounded toward zero, as C's integer division does."""
    return -((-x) // 2) if x < 0 else x // 2


def truncated_segments(P, W, n, m):
    """xsnap kept 502 stamps: m upcalls stamped, then the kernel's side."""
    out = [("send", W[0] - P[0])]
    for i in range(m):
        u, r = 1 + 2 * i, 2 + 2 * i
        out += [("worker", W[u] - W[u - 1]), ("upcall", P[u] - W[u]),
                ("kernel", P[r] - P[u]), ("reply", W[r] - P[r])]
    prev = W[2 * m]
    for i in range(m, n):
        u, r = 1 + 2 * i, 2 + 2 * i
        out += [("unmatched", P[u] - prev), ("kernel", P[r] - P[u])]
        prev = P[r]
    out.append(("unmatched", P[-1] - prev))
    return out


def replay_cap_segments(P, W, n):
    """A replay at the cap: the worker's own stamps up to its n-th reply
    (its runs exact, its waits unmatched), then unmatched up to E."""
    out = [("send", W[0] - P[0])]
    for i in range(n):
        u, r = 1 + 2 * i, 2 + 2 * i
        out += [("worker", W[u] - W[u - 1]), ("unmatched", W[r] - W[u])]
    out.append(("unmatched", P[-1] - W[2 * n]))
    return out


def segments(P, W, n, unmatched):
    out = [("send", W[0] - P[0]), ("worker", (W[1] if n else W[-1]) - W[0])]
    for i in range(n):
        u, r = 1 + 2 * i, 2 + 2 * i
        nxt = W[u + 2] if i + 1 < n else W[-1]
        if unmatched:
            out.append(("unmatched", W[r] - W[u]))
        else:
            out += [("upcall", P[u] - W[u]), ("kernel", P[r] - P[u]),
                    ("reply", W[r] - P[r])]
        out.append(("worker", nxt - W[r]))
    out.append(("result", P[-1] - W[-1]))
    return out


def classify(d, nw, xs):
    """How a delivery's worker stamps line up with its records: (mode, up)
    with mode "full" (every upcall stamped), "truncated" (live, past
    xsnap's cap), "unmatched" (a replay, or a live delivery with testLog
    calls, with more worker upcalls than records) or "replaycap" (a replay at the cap), and up the records
    paired with the stamps."""
    up = d["up"]
    if d["replay"]:
        if xs and nw == CAP:
            return "replaycap", up
        if nw > 2 + 2 * len(up):
            return "unmatched", up
        return "full", up
    # Live, the console records are the worker's calls too: at the cap,
    # calls that need more stamps than it mean truncated, whatever the
    # count happens to equal.
    if xs and nw == CAP and 2 + 2 * len(up) > CAP:
        return "truncated", up
    if nw != 2 + 2 * len(up):
        sys_only = [u for u in up if not u["console"]]
        if len(sys_only) < len(up) and nw == 2 + 2 * len(sys_only):
            return "full", sys_only
    # Live, a vat's testLog is a worker call the kernel never records: more
    # worker upcalls than records is split as a replay is (but at the cap,
    # where the last stamp may not be the end).
    if nw > 2 + 2 * len(up) and nw % 2 == 0 and not (xs and nw == CAP):
        return "unmatched", up
    return "full", up


def causal(P, W, unmatched):
    """Both sides on one mono clock as they stand: each receiver stamps
    after its sender (D <= d, u <= U, R <= r, e <= E; a replay's upcalls
    are not paired: D and E only) and the worker never goes back."""
    last = len(W) - 1
    for i in range(len(W)):
        if i > 0 and W[i] < W[i - 1]:
            return False
        if unmatched and 0 < i < last:
            continue
        parent_sends = i == 0 or (i % 2 == 0 and i != last)
        if (W[i] < P[i]) if parent_sends else (P[i] < W[i]):
            return False
    return True


def mono_clock(run, P, W, n, unmatched):
    """The worker's mono stamps against the kernel's monotime: as they
    stand when causal (our parent: absolute CLOCK_MONOTONIC on both sides),
    else shifted by the kernel run's constant (SwingSet's monotime counts
    from the kernel's start), known as the interval every round trip of
    the run so far allows: a delivery whose round trips leave none, or
    none in common with the run's, is not on the mono clock.  Returns
    (on mono, offset, bound); offset None when not shifted."""
    if causal(P, W, unmatched):
        return True, None, None
    if unmatched:
        ss = samples([P[0], P[-1]], [W[0], W[-1]], 0)
    else:
        ss = samples(P, W, n)
    lo = max(a for a, _ in ss)
    hi = min(b for _, b in ss)
    if run:
        lo, hi = max(lo, run["lo"]), min(hi, run["hi"])
    if lo > hi:
        return False, None, None
    run["lo"], run["hi"] = lo, hi
    return True, lo + (hi - lo) // 2, (hi - lo + 1) // 2


def transits(segs):
    return [x for k, x in segs if k in ("send", "upcall", "reply", "result")]


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ips, path = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    rep = subprocess.run([ips, "report", "--format", "json", *extra, path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if rep.returncode not in (0, 3):
        print(f"recompute: report exited {rep.returncode}", file=sys.stderr)
        return 2
    reported, summary = {}, None
    for l in rep.stdout.decode().splitlines():
        o = json.loads(l)
        if "summary" in o:
            summary = o["summary"]
        else:
            reported[o["line"]] = o
    n_reported = len(reported)
    clock = "auto"
    if "--clock" in extra:
        clock = extra[extra.index("--clock") + 1]

    vats, passed, failed = {}, 0, 0
    run = {}  # this kernel run's interval of mono offsets: "lo", "hi"
    last_mono = None
    sums = {"pipe_ns": 0, "worker_ns": 0, "kernel_ns": 0, "total_ns": 0,
            "unmatched_ns": 0}
    wsums = {}  # the pipe split's, over the deliveries that have one
    # Every deliver record: attributed, or counted under one of these.
    delivers = 0
    counted = {"LOCAL": 0, "METER": 0, "ERROR": 0, "RESTART": 0}
    mismatches = 0

    def bad(line, what):
        nonlocal failed
        failed += 1
        print(f"{path}:{line}: {what}")

    for lineno, raw in enumerate(lines_of(path), 1):
        try:
            r = json.loads(raw, parse_float=Decimal)
        except ValueError:
            continue
        if not isinstance(r, dict):
            continue
        t = r.get("type")
        if "monotime" in r:
            m = ns(r["monotime"])
            if last_mono is not None and m + 1000000 < last_mono:
                for v in vats.values():  # a restart: nothing carries over
                    if v.open is not None:
                        counted["RESTART"] += 1
                    v.open, v.est = None, {}
                run.clear()
            last_mono = m
        vid = r.get("vatID")
        if t == "deliver":
            delivers += 1
            v = vats.setdefault(vid, Vat())
            v.open = {"line": lineno, "D": r, "up": [],
                      "replay": r.get("replay") is True}
            continue
        if t in ("syscall", "syscall-result", "console") and vid in vats:
            d = vats[vid].open
            if d is None or r.get("deliveryNum") != d["D"].get("deliveryNum"):
                continue
            if t == "syscall":
                d["up"].append({"U": r, "R": None, "console": False})
            elif t == "syscall-result" and d["up"]:
                d["up"][-1]["R"] = r
            elif t == "console":
                d["up"].append({"U": r, "R": r, "console": True})
            continue
        if t != "deliver-result" or vid not in vats:
            continue
        v = vats[vid]
        d, v.open = v.open, None
        dr = r.get("dr")
        if d is not None and isinstance(dr, list) and len(dr) > 2 and \
                dr[2] is None:
            if dr[0] == "ok":
                counted["LOCAL"] += 1
            elif isinstance(dr[1], str) and dr[1].endswith(" meter exceeded"):
                counted["METER"] += 1
            else:
                counted["ERROR"] += 1
        if d is None or d["line"] not in reported:
            continue
        got = reported[d["line"]]
        met = dr[2]
        ipc = met.get("ipcstamp") or {}
        wm = ipc.get("mono")
        ww = met.get("timestamps") or None
        if wm is not None and ww is not None and len(ww) != len(wm):
            ww = None  # xsnap's own list, cut at its cap: mono is whole
        diffs0 = []
        nw = len(wm if wm is not None else ww)
        xs = ww is not None and wm is None and "kinds" not in ipc
        mode, up = classify(d, nw, xs)
        unmatched = mode in ("unmatched", "replaycap")
        m = (nw - 1) // 2 if mode == "truncated" else None
        n = (nw - 2) // 2 if unmatched else len(up)
        if mode == "replaycap":
            n = (nw - 1) // 2  # the stamps up to the n-th reply are known
        recs = [d["D"], r] + [u["U"] for u in up] + [u["R"] for u in up]
        pm = clock != "wall" and all("monotime" in x for x in recs)
        key = "monotime" if pm else "time"
        P = [ns(d["D"][key])]
        if not unmatched:
            for u in up:
                P += [ns(u["U"][key]), ns(u["R"][key])]
        else:
            P += [0] * (2 * n)
        P.append(ns(r[key]))
        kernel = sum(ns(u["R"][key]) - ns(u["U"][key]) for u in up) \
            if unmatched else None
        if pm and wm is not None and clock != "wall":
            on_mono, off, bound = mono_clock(run, P, [int(x) for x in wm],
                                             n, unmatched)
        else:
            on_mono, off, bound = False, None, None
        if on_mono:
            W = [int(x) - (off or 0) for x in wm]
            if got["clock"] != "mono":
                diffs0.append(f"clock {got['clock']}, not mono")
        elif clock == "mono":
            bad(d["line"], "reported, but its stamps fit no mono offset")
            del reported[d["line"]]
            continue
        else:
            src = [wns(x) for x in ww] if ww is not None and clock != "mono" \
                else [int(x) for x in wm]
            slot = (0 if src is not None and ww is not None and clock != "mono"
                    else 2) + (1 if pm else 0)
            if unmatched:  # the delivery's own round trip (e: the last stamp)
                off, bound = estimate(v, slot, [P[0], P[-1]],
                                      [src[0], src[-1]], 0)
            elif mode == "truncated":
                off, bound = estimate(v, slot, P, src, m, 1)
            else:
                off, bound = estimate(v, slot, P, src, n)
            if mode == "truncated":
                W = [src[i] - off if i <= 2 * m else P[i]
                     for i in range(len(P))]
            elif mode == "replaycap":
                W = [x - off for x in src[:2 * n + 1]] + [P[-1]]
            else:
                W = [x - off for x in src]
        if unmatched:
            for i in range(n):
                P[1 + 2 * i], P[2 + 2 * i] = W[1 + 2 * i], W[2 + 2 * i]
        if mode == "truncated":
            segs = truncated_segments(P, W, n, m)
        elif mode == "replaycap":
            segs = replay_cap_segments(P, W, n)
        else:
            segs = segments(P, W, n, unmatched)
        want = {"total_ns": P[-1] - P[0],
                "pipe_ns": sum(transits(segs)),
                "worker_ns": sum(x for k, x in segs if k == "worker")}
        if unmatched:
            want["kernel_ns"] = kernel
            want["unmatched_ns"] = sum(x for k, x in segs
                                       if k == "unmatched") - kernel
        else:
            want["kernel_ns"] = sum(x for k, x in segs if k == "kernel")
            if mode == "truncated":
                want["unmatched_ns"] = sum(x for k, x in segs
                                           if k == "unmatched")
        diffs = diffs0 + [f"{k} {got.get(k, 0)} != {x}"
                          for k, x in want.items() if got.get(k, 0) != x]
        gseg = [(k, x) for k, x in got["segments"]]
        if gseg != segs:
            diffs.append(f"segments {gseg} != {segs}")
        if off is not None and (got.get("offset_ns") != off or
                                got.get("offset_bound_ns") != bound):
            diffs.append(f"offset {got.get('offset_ns')} +- "
                         f"{got.get('offset_bound_ns')} != {off} +- {bound}")
        if mode in ("truncated", "replaycap") and got.get("truncated") is not True:
            diffs.append("not marked truncated")
        # No transit below -bound goes unflagged (none at all on mono).
        low = min(transits(segs))
        flag = low < -(bound or 0)
        mismatches += flag
        if bool(got.get("offset_mismatch")) != flag:
            diffs.append(f"offset_mismatch {got.get('offset_mismatch')}, "
                         f"lowest transit {low}, bound {bound}")
        s = want["pipe_ns"] + want["worker_ns"] + want["kernel_ns"] + \
            want.get("unmatched_ns", 0)
        if s != want["total_ns"]:
            diffs.append(f"shares add up to {s}, not {want['total_ns']}")
        if "cpu_ns" in ipc:
            c = int(ipc["cpu_ns"])
            off_cpu = max(want["worker_ns"] - c, 0)
            if got.get("cpu_ns") != c or got.get("offcpu_ns") != off_cpu:
                diffs.append(f"cpu {got.get('cpu_ns')}/{got.get('offcpu_ns')}"
                             f" != {c}/{off_cpu}")
        # Waiting for a CPU: each pipe segment whose receiver
        # carries its run-queue delay at its receive stamp (the worker's d
        # and r in ipcstamp.run_delay_ns, the parent's U and E as
        # runDelayNs) splits into min(delay, segment) and the rest.
        wq = ipc.get("run_delay_ns")
        if wq is not None and len(wq) != nw:
            wq = None
        pq_u = [u["U"].get("runDelayNs") if not u["console"] else None
                for u in up]
        pq_e = r.get("runDelayNs")
        split, j_up = [], 0
        for j, (k, x) in enumerate(segs):
            q = None
            if k == "send" and wq is not None:
                q = int(wq[0])
            elif k == "reply" and wq is not None:
                q = int(wq[2 + 2 * ((j - 1) // 4)])
            elif k == "upcall" and not unmatched:
                q = pq_u[(j - 1) // 4]
            elif k == "result":
                q = pq_e
            if k in ("send", "upcall", "reply", "result") and q is not None:
                split.append((k, x, min(int(q), x) if x > 0 else 0))
            elif k in ("send", "upcall", "reply", "result"):
                split.append((k, x, None))
        if any(w is not None for _, _, w in split):
            sw = {"pipe_wait_ns": sum(w for _, _, w in split if w is not None),
                  "pipe_transit_ns": sum(x - w for _, x, w in split
                                         if w is not None),
                  "pipe_unsplit_ns": sum(x for _, x, w in split if w is None),
                  "pipe_wait_worker_ns": sum(w for k, _, w in split
                                             if w is not None and
                                             k in ("send", "reply"))}
            for k, x in sw.items():
                if got.get(k) != x:
                    diffs.append(f"{k} {got.get(k)} != {x}")
            for k, x in sw.items():
                wsums[k] = wsums.get(k, 0) + x
            wsums["wait_pipe_ns"] = wsums.get("wait_pipe_ns", 0) + \
                want["pipe_ns"]
            if sw["pipe_wait_ns"] + sw["pipe_transit_ns"] + \
                    sw["pipe_unsplit_ns"] != want["pipe_ns"]:
                diffs.append("the split does not add up to pipe")
            gw = got.get("segments_wait_ns") or []
            ww_ = [None if k not in ("send", "upcall", "reply", "result")
                   else None for k, _ in segs]
            it = iter(split)
            for j, (k, x) in enumerate(segs):
                if k in ("send", "upcall", "reply", "result"):
                    ww_[j] = next(it)[2]
            if gw != ww_:
                diffs.append(f"segments_wait_ns {gw} != {ww_}")
        elif "pipe_wait_ns" in got:
            diffs.append("a split where nothing was measured")
        if wq is not None and "cpu_ns" in ipc:
            # the worker's own stretches: up to its last stamped upcall at
            # xsnap's cap (its e, if any, is not among them)
            stamped = m if mode == "truncated" else n
            runq = sum(int(wq[1 + 2 * i]) for i in range(stamped))
            if mode not in ("truncated", "replaycap"):
                runq += int(wq[-1])
            runq = min(runq, max(want["worker_ns"], 0))
            off_cpu = max(want["worker_ns"] - int(ipc["cpu_ns"]), 0)
            runq = min(runq, off_cpu)
            if got.get("runnable_ns") != runq or \
                    got.get("blocked_ns") != off_cpu - runq:
                diffs.append(f"runnable/blocked {got.get('runnable_ns')}/"
                             f"{got.get('blocked_ns')} != {runq}/"
                             f"{off_cpu - runq}")
        if got.get("timequake_ns") is not None:
            v.est = {}  # the estimate starts again after a timequake
        for k in sums:
            sums[k] += want.get(k, 0)
        if diffs:
            bad(d["line"], "; ".join(diffs))
        else:
            passed += 1
        del reported[d["line"]]
    for line in sorted(reported):
        bad(line, "reported, but not a delivery of this file with metering")
    if summary is None:
        bad(0, "no summary")
        print(f"{passed} passed, {failed} failed")
        return 1
    wrong = [f"{k} {summary.get(k)} != {x}" for k, x in sums.items()
             if summary.get(k, 0) != x]
    wrong += [f"{k} {summary.get(k)} != {x}" for k, x in wsums.items()
              if summary.get(k) != x]
    if summary.get("offset_mismatches", 0) != mismatches:
        wrong.append(f"offset_mismatches {summary.get('offset_mismatches')}"
                     f" != {mismatches}")
    if wrong:
        bad(0, "summary: " + "; ".join(wrong))
    else:
        passed += 1
    # Every deliver record attributed or counted under a reason: those
    # without metering by kind, those a restart cut, the skipped.
    na = summary.get("not_attributed", {})
    wrong = [f"not_attributed.{k} {na.get(k, 0)} != {x}"
             for k, x in counted.items() if na.get(k, 0) != x]
    total = n_reported + sum(na.values()) + summary.get("deliveries_skipped", 0)
    if total != delivers:
        wrong.append(f"{delivers} deliver records, but {n_reported} "
                     f"attributed + {sum(na.values())} not attributed + "
                     f"{summary.get('deliveries_skipped', 0)} skipped")
    if wrong:
        bad(0, "count: " + "; ".join(wrong))
    else:
        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
