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
lines) and the replay case (more worker upcalls than records: unmatched);
and, on wall clocks, the per-vat offset estimate (the round trip with the
smallest delay seen so far, started again after a restart or a timequake).
Then it checks, to the nanosecond: the segments in order, pipe, worker,
kernel, unmatched, total, the offset and its bound, cpu/off-cpu, and that
the shares add up to the total; and that the summary's totals are the sums
of the deliveries.  It prints what differs and a last line
"N passed, M failed" (checks, one per delivery plus the summary's).
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


class Vat:
    def __init__(self):
        self.open = None          # the delivery in progress
        self.est = {}             # slot -> (offset, delay)


def estimate(vat, slot, P, W, n, first=0):
    """The streaming NTP-style estimate of docs/report.md (Clocks, 3);
    first=1 leaves out the delivery's own round trip (no e)."""
    last = 1 + 2 * n
    bo = bd = None
    for i in range(first, n + 1):
        if i == 0:
            o = trunc_half((W[0] - P[0]) + (W[last] - P[last]))
            dl = (P[last] - P[0]) - (W[last] - W[0])
        else:
            j = 2 * i - 1
            o = trunc_half((W[j] - P[j]) + (W[j + 1] - P[j + 1]))
            dl = (W[j + 1] - W[j]) - (P[j + 1] - P[j])
        if dl < 0 and bd is not None:
            continue
        if bd is None or dl < bd or bd < 0:
            bo, bd = o, dl
    old = vat.est.get(slot)
    if old is None or (bd >= 0 and (bd < old[1] or old[1] < 0)):
        vat.est[slot] = (bo, bd)
    o, d = vat.est[slot]
    return o, trunc_half(d)


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
    clock = "auto"
    if "--clock" in extra:
        clock = extra[extra.index("--clock") + 1]

    vats, passed, failed = {}, 0, 0
    last_mono = None
    sums = {"pipe_ns": 0, "worker_ns": 0, "kernel_ns": 0, "total_ns": 0,
            "unmatched_ns": 0}
    wsums = {}  # the pipe split's, over the deliveries that have one

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
                    v.open, v.est = None, {}
            last_mono = m
        vid = r.get("vatID")
        if t == "deliver":
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
        if d is None or d["line"] not in reported:
            continue
        got = reported[d["line"]]
        met = r["dr"][2]
        ipc = met.get("ipcstamp") or {}
        wm = ipc.get("mono")
        ww = met.get("timestamps") or None
        up = d["up"]
        nw = len(wm if wm is not None else ww)
        if nw != 2 + 2 * len(up):
            no_console = [u for u in up if not u["console"]]
            if len(no_console) < len(up) and nw == 2 + 2 * len(no_console):
                up = no_console
        unmatched = d["replay"] and nw > 2 + 2 * len(up)
        truncated = (not unmatched and ww is not None and wm is None and
                     "kinds" not in ipc and nw == 502 and nw < 2 + 2 * len(up))
        m = (nw - 1) // 2 if truncated else None
        n = (nw - 2) // 2 if unmatched else len(up)
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
        if got["clock"] == "mono":
            W = [int(x) for x in wm]
            off = bound = None
        else:
            src = [wns(x) for x in ww] if ww is not None and clock != "mono" \
                else [int(x) for x in wm]
            slot = (0 if src is not None and ww is not None and clock != "mono"
                    else 2) + (1 if pm else 0)
            if unmatched:
                off, bound = estimate(v, slot, [P[0], P[-1]],
                                      [src[0], src[-1]], 0)
            elif truncated:
                off, bound = estimate(v, slot, P, src, m, 1)
            else:
                off, bound = estimate(v, slot, P, src, n)
            if truncated:
                W = [src[i] - off if i <= 2 * m else P[i]
                     for i in range(len(P))]
            else:
                W = [x - off for x in src]
        if unmatched:
            for i in range(n):
                P[1 + 2 * i], P[2 + 2 * i] = W[1 + 2 * i], W[2 + 2 * i]
        segs = truncated_segments(P, W, n, m) if truncated \
            else segments(P, W, n, unmatched)
        want = {"total_ns": P[-1] - P[0],
                "pipe_ns": (W[0] - P[0]) + (P[-1] - W[-1]),
                "worker_ns": sum(x for k, x in segs if k == "worker")}
        if truncated:
            want["pipe_ns"] = sum(x for k, x in segs
                                  if k in ("send", "upcall", "reply"))
            want["kernel_ns"] = sum(x for k, x in segs if k == "kernel")
            want["unmatched_ns"] = sum(x for k, x in segs if k == "unmatched")
        elif unmatched:
            want["kernel_ns"] = kernel
            want["unmatched_ns"] = sum(x for k, x in segs
                                       if k == "unmatched") - kernel
        else:
            want["kernel_ns"] = sum(x for k, x in segs if k == "kernel")
            want["pipe_ns"] += sum(x for k, x in segs
                                   if k in ("upcall", "reply"))
        diffs = [f"{k} {got.get(k, 0)} != {x}" for k, x in want.items()
                 if got.get(k, 0) != x]
        gseg = [(k, x) for k, x in got["segments"]]
        if gseg != segs:
            diffs.append(f"segments {gseg} != {segs}")
        if off is not None and (got.get("offset_ns") != off or
                                got.get("offset_bound_ns") != bound):
            diffs.append(f"offset {got.get('offset_ns')} +- "
                         f"{got.get('offset_bound_ns')} != {off} +- {bound}")
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
        # Waiting for a CPU (issue 30): each pipe segment whose receiver
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
            stamped = m if truncated else n
            run = sum(int(wq[1 + 2 * i]) for i in range(stamped))
            if not truncated:
                run += int(wq[-1])
            run = min(run, max(want["worker_ns"], 0))
            off_cpu = max(want["worker_ns"] - int(ipc["cpu_ns"]), 0)
            run = min(run, off_cpu)
            if got.get("runnable_ns") != run or \
                    got.get("blocked_ns") != off_cpu - run:
                diffs.append(f"runnable/blocked {got.get('runnable_ns')}/"
                             f"{got.get('blocked_ns')} != {run}/"
                             f"{off_cpu - run}")
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
    else:
        wrong = [f"{k} {summary.get(k)} != {x}" for k, x in sums.items()
                 if summary.get(k, 0) != x]
        wrong += [f"{k} {summary.get(k)} != {x}" for k, x in wsums.items()
                  if summary.get(k) != x]
        if wrong:
            bad(0, "summary: " + "; ".join(wrong))
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
