#!/usr/bin/env python3
"""probes_check.py [--xsnap] SLOG HITS: the probe hits that tests/probes/probes-run.test's
bpftrace script printed (HITS) are exactly the stamps and marks of the
slogfile SLOG of the same run, with the same values: one hit per stamp, no
more, no fewer.

HITS lines (after bpftrace's own):
  S <probe> <pid> <delivery> <upcall> <mono_ns> <wall_ns> <vat> <worker pid>
  M <probe> <pid> <delivery> <mono_ns> <wall_ns> <vat> <name...>
<probe> is bpftrace's full name (usdt:PATH:ipcstamp:NAME), <pid> the process
the probe fired in.  The worker's probes come from a copy of the worker
only this run used; the parent library's may fire in other processes too
(parallel tests), so only the ones in this run's parent count.

--wait: first wait (up to 300 s) until every expected hit is in HITS, then
exit 0 without comparing: bpftrace hands its events over from the kernel's
buffers when it gets a CPU, so the run's last hits may not be in HITS yet
when the run ends (a loaded machine); stopping bpftrace then loses them.
The test waits with this before it stops bpftrace, then compares.

--xsnap: the worker is ipcstamp-worker-xs, whose metering's "timestamps"
are xsnap's own readings of the wall clock, not the stamps' (which only
the probes carry): its worker stamps are compared without their wall time.

Exit 0 and a summary when they match; 1 and the differences otherwise."""
import collections
import decimal
import json
import sys
import time

STAMP = {
    "delivery_received": "d", "upcall_sent": "u", "reply_received": "r",
    "result_sent": "e", "delivery_sent": "D", "upcall_received": "U",
    "reply_sent": "R", "result_received": "E",
}
MARK = {"mark": "m", "span_begin": "b", "span_end": "e"}
RECORD = {"deliver": "D", "syscall": "U", "syscall-result": "R",
          "deliver-result": "E"}


def ns(seconds):
    """A slogfile's decimal seconds as integer nanoseconds, exactly."""
    return int(decimal.Decimal(seconds) * 1000000000)


XSNAP = False


def worker_wall(wall_ns):
    return None if XSNAP else wall_ns


def from_slog(path):
    """(parent pid, {vat: worker pid}, Counter of expected events)."""
    want = collections.Counter()
    parent, pids = None, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line, parse_float=decimal.Decimal)
            t = r.get("type")
            if t == "kernel-init-start":
                parent = r["pid"]
            elif t == "create-vat":
                pids[r["vatID"]] = r["pid"]
            if t not in RECORD:
                continue
            vat, n = r["vatID"], r["deliveryNum"]
            up = r["syscallNum"] + 1 if "syscallNum" in r else 0
            want[("S", RECORD[t], vat, n, up, ns(r["monotime"]),
                  ns(r["time"]))] += 1
            if t == "deliver-result":
                worker_events(want, vat, n, r["dr"])
    return parent, pids, want


def worker_events(want, vat, n, dr):
    """The worker's stamps and marks in a deliver-result's metering."""
    m = dr[2] if len(dr) > 2 and isinstance(dr[2], dict) else None
    ips = m.get("ipcstamp") if m else None
    if not ips:
        return
    up = 0
    for kind, mono, wall in zip(ips["kinds"], ips["mono"], m["timestamps"]):
        if kind == "u":
            up += 1
        u = up if kind in "ur" else 0
        want[("S", kind, vat, n, u, int(mono), worker_wall(ns(wall)))] += 1
    marks = ips.get("marks")
    if marks:
        for kind, name, wall, mono in marks["events"]:
            want[("M", kind, vat, n, marks["names"][name], int(mono),
                  ns(wall))] += 1


def from_hits(path, parent, pids):
    got = collections.Counter()
    workers = set(pids.values())
    with open(path) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # being written
            p = line.rstrip("\n").split(" ", 7)
            if p[0] not in ("S", "M") or len(p) < 8:
                continue
            name, pid = p[1].rsplit(":", 1)[1], int(p[2])
            if p[0] == "S":
                vat, wpid = p[7].split(" ")
                if STAMP[name].isupper():
                    if pid != parent:
                        continue  # another test's parent
                elif pid not in workers:
                    raise SystemExit("a worker probe in pid %d, not one of "
                                     "this run's workers %s" % (pid, workers))
                if pids.get(vat) != int(wpid):
                    raise SystemExit("%s: worker pid %s for %s, the slogfile "
                                     "says %s" % (name, wpid, vat,
                                                  pids.get(vat)))
                wall = int(p[6])
                if not STAMP[name].isupper():
                    wall = worker_wall(wall)
                got[("S", STAMP[name], vat, int(p[3]), int(p[4]), int(p[5]),
                     wall)] += 1
            else:
                vat, mname = p[6], p[7]
                got[("M", MARK[name], vat, int(p[3]), mname, int(p[4]),
                     int(p[5]))] += 1
    return got


def main():
    global XSNAP
    args = sys.argv[1:]
    wait = False
    while args and args[0] in ("--xsnap", "--wait"):
        XSNAP = XSNAP or args[0] == "--xsnap"
        wait = wait or args[0] == "--wait"
        args = args[1:]
    parent, pids, want = from_slog(args[0])
    if wait:
        deadline = time.monotonic() + 300
        while (want - from_hits(args[1], parent, pids) and
               time.monotonic() < deadline):
            time.sleep(0.2)
        return 0
    got = from_hits(args[1], parent, pids)
    if got != want:
        missing, extra = want - got, got - want
        print("probes_check: %d probe hits, %d stamps and marks in the "
              "slogfile" % (sum(got.values()), sum(want.values())))
        for what, c in (("in the slogfile, no probe hit", missing),
                        ("a probe hit, not in the slogfile", extra)):
            for k in sorted(c, key=str)[:8]:
                print("  %s: %s" % (what, k))
        return 1
    kinds = collections.Counter(k[0] + ":" + k[1] for k in got.elements())
    print("probes_check: %d probe hits = the slogfile's %d stamps and marks, "
          "same values (%s)" % (sum(got.values()), sum(want.values()),
                                " ".join("%s=%d" % kv
                                         for kv in sorted(kinds.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
