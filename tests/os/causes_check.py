#!/usr/bin/env python3
"""causes_check.py WHAT REPORT.json — causes.test's assertions: the part
that an injected cause is must be the largest one where it was injected
(never a duration).  WHAT: on_cpu, cpu_wait, split, spin (report --os --format json),
disk, sums (blocks --os --format json)."""
import json
import sys

PARTS = ("on_cpu", "steal", "uncharged", "cpu_wait", "disk", "page_fault",
         "sleep", "not_measured")


def fail(msg):
    print(msg)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def largest(t):
    return max(PARTS, key=lambda p: t[p + "_ns"])


def running(t):
    """A running thread's part: on_cpu must be larger than each part but
    cpu_wait (how long a runnable thread waits for a CPU is the machine's
    load, which nice cannot bound across cgroups and no test may depend
    on), and it must never sleep (a page fault may happen)."""
    others = [p for p in PARTS if p not in ("on_cpu", "cpu_wait")]
    return (t["on_cpu_ns"] > 0 and
            t["disk_ns"] == 0 and t["sleep_ns"] == 0 and
            all(t["on_cpu_ns"] > t[p + "_ns"] for p in others))


def total(t):
    return sum(t[p + "_ns"] for p in PARTS)



def os_of(d):
    """A delivery's OS split (its os_ fields, docs/report.md) as one
    object: frames, frames_expected, pipe, worker and kernel."""
    o = {"frames": d["os_frames"], "frames_expected": d["os_frames_expected"],
         "pipe": {}}
    for k, v in d.items():
        if k.startswith("os_pipe_"):
            o["pipe"][k[len("os_pipe_"):]] = v
        for who in ("worker", "kernel", "before"):
            if k.startswith(f"os_{who}_") and k != f"os_{who}_pid":
                o.setdefault(who, {})[k[len(f"os_{who}_"):]] = v
    return o

def worker_sum(rep):
    ds = [r for r in rep if "summary" not in r]
    if not ds:
        fail("no deliveries in the report")
    s = {p + "_ns": 0 for p in PARTS}
    for d in ds:
        w = os_of(d)["worker"]
        if total(w) != d["worker_ns"]:
            fail(f"crank {d['crank']}: worker parts {total(w)} != {d['worker_ns']}")
        for p in PARTS:
            s[p + "_ns"] += w[p + "_ns"]
    return ds, s


def split(rep):
    """Every delivery's parts add up exactly; most of its frames found."""
    ds, _ = worker_sum(rep)
    found = expected = 0
    for d in ds:
        o = os_of(d)
        p = o["pipe"]
        pipe = (p["before_write_ns"] + p["write_ns"] + p["in_pipe_ns"] +
                p["sleep_ns"] + p["page_fault_ns"] +
                p["cpu_wait_ns"] + p["reader_ns"] + p["not_measured_ns"])
        if pipe != d["pipe_ns"] or total(o["kernel"]) != d["kernel_ns"]:
            fail(f"crank {d['crank']}: parts do not add up: {o}")
        found += o["frames"]
        expected += o["frames_expected"]
    if found * 10 < expected * 9:
        fail(f"{found} of {expected} frames found")
    gaps, measured = before(ds)
    print(f"{len(ds)} deliveries: each sum exact, {found} of {expected} "
          f"frames found; {gaps} gaps before them each exact, {measured} "
          "of them measured whole")


def before(ds):
    """Each delivery with a delivery before it (kernel_before_ns) has the
    gap's split (os_before_*, adding up to the gap and its snapshots
    exactly), and only those; every gap of a delivery whose frames were
    found (its kernel's thread known) is measured whole."""
    gaps = measured = 0
    for d in ds:
        o = os_of(d)
        if "kernel_before_ns" not in d:
            if "before" in o:
                fail(f"line {d['line']}: os_before_ fields without a gap")
            continue
        if "before" not in o:
            fail(f"line {d['line']}: a gap but no os_before_ fields")
        gap = (d["kernel_before_ns"] + d.get("snapshot_save_ns", 0) +
               d.get("snapshot_load_ns", 0))
        if total(o["before"]) != max(gap, 0):
            fail(f"line {d['line']}: the gap's parts add up to "
                 f"{total(o['before'])}, not {gap}: {o['before']}")
        gaps += 1
        if o["before"]["not_measured_ns"] == 0:
            measured += 1
        elif o["frames"] == o["frames_expected"]:
            fail(f"line {d['line']}: its frames all found, its gap not "
                 f"measured: {o['before']}")
    if not gaps:
        fail("no delivery with a gap before it")
    return gaps, measured


def on_cpu(rep):
    ds, s = worker_sum(rep)
    if not running(s):
        fail(f"a spinning worker is not named on a CPU: {s}")
    print(f"{len(ds)} deliveries: the spinning worker is on a CPU (or "
          "waiting for one), never asleep")


def spin(rep):
    """The deliveries named spin (gen-slog.mjs --spin): their worker is
    running (see running)."""
    ds, _ = worker_sum(rep)
    spins = [d for d in ds if d.get("description") == "spin"]
    if not spins:
        fail("no spin delivery in the report")
    for d in spins:
        w = os_of(d)["worker"]
        if not running(w):
            fail(f"crank {d.get('crank')}: a spinning delivery's worker is "
                 f"not named on a CPU: {w}")
    print(f"{len(spins)} spinning deliveries: each worker on a CPU (or "
          "waiting for one), never asleep")


def cpu_wait(rep):
    ds, s = worker_sum(rep)
    if largest(s) != "cpu_wait":
        fail(f"beside a CPU hog, the worker's largest part is {largest(s)}: {s}")
    print(f"{len(ds)} deliveries: beside a CPU hog the worker's largest part "
          "is cpu_wait")


def blocks_os(rep):
    blocks = [r for r in rep if "summary" not in r and "os" in r]
    if not blocks:
        fail("no block with an os object")
    for b in blocks:
        o = b["os"]
        h = b.get("height")
        if total(o["between"]) != o["between_ns"]:
            fail(f"block {h}: parts {total(o['between'])} != {o['between_ns']}")
        if total(o["commit"]) != o["commit_ns"]:
            fail(f"block {h}: commit parts {total(o['commit'])} != {o['commit_ns']}")
    return blocks


def sums(rep):
    blocks = blocks_os(rep)
    print(f"{len(blocks)} blocks: the parts between deliveries add up exactly")


def disk(rep):
    blocks = blocks_os(rep)
    for b in blocks:
        o = b["os"]
        h = b.get("height")
        c = o["commit"]
        if largest(c) != "disk":
            fail(f"block {h}: the commit's largest part is {largest(c)}: {c}")
        top = max(c["disk_by"], key=lambda k: c["disk_by"][k])
        if top not in ("fsync", "fdatasync"):
            fail(f"block {h}: the commit's disk is mostly {top}: {c}")
        # Not named for the rest: SwingSet may fsync elsewhere too (a heap
        # snapshot loaded through a temporary file, off the slow store),
        # but that is never where the time between deliveries went.
        inside = o["between_deliveries"]
        if largest(inside) == "disk":
            fail(f"block {h}: between deliveries named disk: {inside}")
        w = o.get("worst_gap")
        if not w or not w["cause"]:
            fail(f"block {h}: no worst gap named: {o}")
        if w["where"] != "commit" and w["cause"] == "disk":
            fail(f"block {h}: a gap other than the commit named disk: {w}")
    print(f"{len(blocks)} blocks: each commit mostly disk in fsync/fdatasync, "
          "the time between deliveries not")


if __name__ == "__main__":
    what, path = sys.argv[1:3]
    {"on_cpu": on_cpu, "cpu_wait": cpu_wait, "disk": disk,
     "sums": sums, "split": split, "spin": spin}[what](load(path))
