#!/usr/bin/env python3
"""The straightforward Python version of `ipcstamp report`, for the benchmark.

usage: report_baseline.py [--swingset] SLOG

One json.loads per line, dicts for the open deliveries, the same attribution
(docs/report.md, "Formulas", mono clock when both sides have it) and the same text output
as `ipcstamp report` on slogfiles whose stamps are all on the mono clock, so
the benchmark can check that both did the same work (it diffs the outputs).
The wall-clock fallback and bad-input messages are left out: the benchmark
file does not need them.

--swingset: patched only enough to run over a real SwingSet kernel's
slogfile (BENCHMARKS.md times it there): a replayed record has no crankNum
(-1), a result without metering is passed over, the worker's wall
`timestamps` stand in for `ipcstamp.mono` (taken against the kernel's
`time`, with no offset estimate), a delivery whose stamps do not match its
syscalls (console lines, xsnap's 502-stamp cap) is passed over, and a
message body that does not parse names nothing.  Its figures are not the
report's; it does the same reading and parsing.
"""
import json
import sys


def us(ns):
    a = -ns if ns < 0 else ns
    return "%s%d.%03d" % ("-" if ns < 0 else "", a // 1000, a % 1000)


def pct(part, whole):
    return 100.0 * part / whole if whole > 0 else 0.0


def describe(vd):
    if not isinstance(vd, list) or not vd:
        return "?"
    kind = vd[0]
    if kind == "message" and len(vd) > 2 and isinstance(vd[2], dict):
        ma = vd[2].get("methargs")
        if isinstance(ma, dict):
            body = ma.get("body", "")
            if body.startswith("#"):
                body = body[1:]
            try:
                name = json.loads(body)[0]
                if name.startswith("!"):
                    name = name[1:]
                return name
            except (ValueError, IndexError, AttributeError):
                return kind
        if "method" in vd[2]:
            return vd[2]["method"]
    if kind == "message" and len(vd) > 1 and isinstance(vd[1], str):
        return vd[1]
    if kind == "notify" and len(vd) > 1:
        ids = [e[0] for e in vd[1][:4]]
        return " ".join(["notify"] + ids + (["..."] if len(vd[1]) > 5 else []))
    return kind


def main():
    swingset = sys.argv[1] == "--swingset"
    path = sys.argv[-1]
    out = sys.stdout
    open_d = {}
    vats = {}
    order = []
    tot = dict(n=0, pipe=0, worker=0, kernel=0, total=0, cpu=0, cpuw=0,
               ncpu=0, gap=0, ngap=0)
    slow = []
    last_e = None
    lines = other = 0
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            lines += 1
            rec = json.loads(line)
            t = rec["type"]
            if t not in ("deliver", "syscall", "syscall-result", "deliver-result"):
                if t != "slog-start":
                    other += 1
                continue
            vat = rec["vatID"]
            mono = round(rec["time" if swingset else "monotime"] * 1e9)
            if t == "deliver":
                if swingset:
                    try:
                        desc = describe(rec["vd"])
                    except (ValueError, TypeError, IndexError, AttributeError):
                        desc = "?"
                else:
                    desc = describe(rec["vd"])
                open_d[vat] = dict(crank=rec.get("crankNum", -1) if swingset
                                   else rec["crankNum"], dn=rec["deliveryNum"],
                                   desc=desc, D=mono, ups=[], line=lineno)
            elif t == "syscall":
                open_d[vat]["ups"].append([mono, None])
            elif t == "syscall-result":
                open_d[vat]["ups"][-1][1] = mono
            else:
                d = open_d.pop(vat)
                met = rec["dr"][2]
                if swingset:
                    if met is None:
                        continue
                    ipc = met.get("ipcstamp") or {}
                    W = ipc.get("mono") or [round(x * 1e9) for x in
                                            met.get("timestamps", [])]
                    if len(W) != 2 + 2 * len(d["ups"]):
                        continue
                else:
                    ipc = met["ipcstamp"]
                    W = ipc["mono"]
                P = [d["D"]]
                for u, r in d["ups"]:
                    P += [u, r]
                P.append(mono)
                n = len(d["ups"])
                last = 1 + 2 * n
                segs = [("send", W[0] - P[0])]
                pipe = (W[0] - P[0]) + (P[last] - W[last])
                worker = kernel = 0
                for i in range(n):
                    segs.append(("worker", W[2 * i + 1] - W[2 * i]))
                    segs.append(("upcall", P[2 * i + 1] - W[2 * i + 1]))
                    segs.append(("kernel", P[2 * i + 2] - P[2 * i + 1]))
                    segs.append(("reply", W[2 * i + 2] - P[2 * i + 2]))
                    pipe += (P[2 * i + 1] - W[2 * i + 1]) + (W[2 * i + 2] - P[2 * i + 2])
                    kernel += P[2 * i + 2] - P[2 * i + 1]
                segs.append(("worker", W[last] - W[last - 1]))
                segs.append(("result", P[last] - W[last]))
                for i in range(n + 1):
                    worker += W[2 * i + 1] - W[2 * i]
                total = P[last] - P[0]
                ok = rec["dr"][0] == "ok"
                out.write("crank %d %s #%d %s%s [mono] total %s = pipe %s + worker %s + kernel %s\n"
                          % (d["crank"], vat, d["dn"], d["desc"], "" if ok else " (error)",
                             us(total), us(pipe), us(worker), us(kernel)))
                out.write("  " + " | ".join("%s %s" % (k, us(v)) for k, v in segs) + "\n")
                extra = []
                if last_e is not None and P[0] >= last_e:
                    extra.append("kernel before %s" % us(P[0] - last_e))
                    tot["gap"] += P[0] - last_e
                    tot["ngap"] += 1
                if last_e is None or P[last] > last_e:
                    last_e = P[last]
                if "cpu_ns" in ipc:
                    # cpu_ns can exceed the worker time by the worker's own
                    # syscalls: off-CPU is then 0 (docs/report.md), as in C.
                    off = max(worker - ipc["cpu_ns"], 0)
                    extra.append("worker on-cpu %s off-cpu %s" % (us(worker - off), us(off)))
                    tot["cpu"] += worker - off
                    tot["cpuw"] += worker
                    tot["ncpu"] += 1
                if extra:
                    out.write("  " + "; ".join(extra) + "\n")
                if vat not in vats:
                    vats[vat] = dict(n=0, pipe=0, worker=0, kernel=0, total=0)
                    order.append(vat)
                for s in (vats[vat], tot):
                    s["n"] += 1
                    s["pipe"] += pipe
                    s["worker"] += worker
                    s["kernel"] += kernel
                    s["total"] += total
                slow.append((total, d["crank"], vat, d["dn"], d["desc"], pipe,
                             worker, kernel, d["line"]))
                slow.sort(key=lambda s: -s[0])  # stable: ties keep file order
                del slow[10:]
    out.write("\n== summary (times in microseconds)\n")
    out.write("deliveries: %d attributed (%d on the mono clock, 0 on wall clocks "
              "with an offset estimate), 0 not attributed\n" % (tot["n"], tot["n"]))
    out.write("lines: %d read, 0 skipped, %d other records ignored\n" % (lines, other))
    out.write("%-12s %8s %14s %6s %14s %6s %14s %6s %14s\n"
              % ("vat", "count", "pipe", "", "worker", "", "kernel", "", "total"))

    def row(name, s):
        out.write("%-12s %8d %14s %5.1f%% %14s %5.1f%% %14s %5.1f%% %14s\n"
                  % (name, s["n"], us(s["pipe"]), pct(s["pipe"], s["total"]),
                     us(s["worker"]), pct(s["worker"], s["total"]),
                     us(s["kernel"]), pct(s["kernel"], s["total"]), us(s["total"])))
    for v in order:
        row(v, vats[v])
    row("all", tot)
    if tot["ngap"]:
        out.write("kernel between deliveries: %s over %d gaps\n" % (us(tot["gap"]), tot["ngap"]))
    if tot["ncpu"]:
        out.write("worker on-cpu %s (%.1f%%), off-cpu %s (%.1f%%) over %d deliveries with cpu_ns\n"
                  % (us(tot["cpu"]), pct(tot["cpu"], tot["cpuw"]), us(tot["cpuw"] - tot["cpu"]),
                     pct(tot["cpuw"] - tot["cpu"], tot["cpuw"]), tot["ncpu"]))
    out.write("timequakes: 0 (wall and mono differ by more than 1000.000)\n")
    if slow:
        out.write("slowest deliveries:\n")
        for s in slow:
            out.write("  crank %d %s #%d %s: total %s (pipe %s, worker %s, kernel %s) line %d\n"
                      % (s[1], s[2], s[3], s[4], us(s[0]), us(s[5]), us(s[6]), us(s[7]), s[8]))


if __name__ == "__main__":
    main()
