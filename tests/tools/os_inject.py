#!/usr/bin/env python3
"""os_inject.py IN OUT — a recording of `ipcstamp record` (docs/os.md) with
the waits that no test run makes on demand added, so that every field of
the operating system's split has a case (tests/tools/fields.test), the
page fault's count of major faults too: in the
worker's longest stretch between reading a delivery and writing its first
upcall, a sleep in fsync (disk), a page fault and a futex sleep; in the
parent's longest stretch between reading an upcall and writing its reply,
the same three; and in the parent's longest stretch between reading a
result and writing the next delivery (the gap before a delivery), the
same three.
Each lies in the middle fifth of its stretch, so inside the stamps of the
segment it belongs to (the stamps are taken after the read returned and
before the write entered).  The lines are added before the end line."""
import json
import sys


def longest(sides, reader, writer, rtags, wtags, since=0):
    """The longest stretch from a frame that `reader` read (of rtags) to the
    next frame it wrote (one of wtags), starting after since: (start, end,
    tid)."""
    best = None
    mine = sorted((s for s in sides if s["pid"] == reader),
                  key=lambda s: s["enter"])
    for i, s in enumerate(mine):
        if s["side"] != "r" or s["tag"] not in rtags or s["enter"] < since:
            continue
        nxt = next((n for n in mine[i + 1:] if n["side"] == "w"), None)
        if nxt and nxt["tag"] in wtags and nxt["pid"] == writer:
            gap = (s["last_ret"], nxt["enter"], s["tid"])
            if not best or gap[1] - gap[0] > best[1] - best[0]:
                best = gap
    return best


def wait(pid, tid, off, wake, on, why, nr, sc, maj):
    return json.dumps({"t": "wait", "pid": pid, "tid": tid, "off": off,
                       "wake": wake, "on": on, "why": why, "nr": nr,
                       "maj_flt": maj, "sc": sc}, separators=(",", ":"))


def main(src, dst):
    lines = open(src, encoding="utf-8").read().splitlines()
    recs = [json.loads(l) for l in lines]
    sides = [r for r in recs if r.get("t") == "frame"]
    parent = next(s["pid"] for s in sides if s["side"] == "w" and
                  s["tag"] in "?e")
    worker = next(s["pid"] for s in sides if s["side"] == "r" and
                  s["pid"] != parent)
    a, b, wtid = longest(sides, worker, worker, "?e", "?")
    g = (b - a) // 20
    ka, kb, ktid = longest(sides, parent, parent, "?", "/")
    kg = (kb - ka) // 20
    # After the first delivery's result: the result of a command before
    # it (xsnap's R) opens no gap.
    first = min(s["enter"] for s in sides if s["pid"] == parent and
                s["side"] == "w" and s["tag"] in "?e")
    ga, gb, gtid = longest(sides, parent, parent, ".!", "?e", first)
    gg = (gb - ga) // 20
    if g < 5 or kg < 5 or gg < 5:
        sys.exit("os_inject: no stretch long enough to put waits in")
    add = []
    for pid, tid, m, u in ((worker, wtid, a + 8 * g, g // 2),
                           (parent, ktid, ka + 8 * kg, kg // 2),
                           (parent, gtid, ga + 8 * gg, gg // 2)):
        # The thread's major faults when it left its CPU: the page fault's
        # two show in the wait after it (the kernel counts a fault when
        # it is handled, after the thread ran again).
        add += [wait(pid, tid, m, m + u, m + 2 * u, "disk", 74, "fsync", 7),
                wait(pid, tid, m + 2 * u, m + 3 * u, m + 3 * u, "disk", -1,
                     None, 7),
                wait(pid, tid, m + 3 * u, m + 5 * u, m + 6 * u, "sleep", 202,
                     "futex", 9)]
    end = next(i for i, r in enumerate(recs) if r.get("t") == "end")
    with open(dst, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:end] + add + lines[end:]) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
