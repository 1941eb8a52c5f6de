#!/usr/bin/env python3
"""os_doctor.py WHAT IN OUT: a recording of ipcstamp record (IN, version 1's
JSON lines) doctored into OUT, for tests/os/contradict.test: recordings
that contradict themselves, which the analysis must refuse, not believe.

tobin      IN as version 2 (binary), encoded from docs/os.md's description
           ("The file"); nothing else changed
double     every frame and wait written twice (a recording concatenated
           with itself, or a collector that wrote its buffer twice)
overlap    a stream's second write side begins before the call with the
           first one's last byte entered (a stream's frames follow each
           other: the next begins in that call at the earliest)
why        (version 2 only: give OUT of tobin) the first wait's reason
           0xffffffff, which a signed cast would take as -1

double and overlap read and write either version, as IN is.  The layouts
are os_check.py's (beside this file), the one Python reader of the file;
what is written here, report reads back (contradict.test's first check)."""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from os_check import (COMMON, FRAME2, HEADER, MAGIC, PARTS, WAIT2,  # noqa: E402
                      WHY, decode, records)

SIZES = (0, 288, 32, 32, 104, 64, 32, 64) + (0,) * 8
PAD = bytes(4)  # fork's, exit's and a frame's: records are 8-byte aligned


def header(h, names):
    """Version 2's header for version 1's first line h, with names."""
    out = HEADER.pack(MAGIC, 2, HEADER.size + 24 * len(names), 1,
                      h.get("follow") == "pid", h["start"],
                      h.get("start_wall_ns", 0), h.get("pid", 0), 16, *SIZES,
                      h.get("kernel", "").encode(), b"", len(names), 24)
    return out + b"".join(struct.pack("<i20s", nr, name.encode())
                          for nr, name in sorted(names.items()))


def record(r):
    """One version 1 line's object as a version 2 record."""
    t, pid, tid = r["t"], r.get("pid", 0), r.get("tid", r.get("pid", 0))
    if t == "exec":
        args = b"".join(a.encode("latin-1") + b"\0" for a in r["argv"])[:256]
        return COMMON.pack(1, pid, pid, 0, r["ns"]) + \
            PARTS[1].pack(r["ppid"], len(args), args)
    if t == "fork":
        return COMMON.pack(2, pid, pid, 0, r["ns"]) + PARTS[2].pack(r["child"]) + PAD
    if t == "exit":
        return COMMON.pack(3, pid, pid, 0, r["ns"]) + PARTS[3].pack(r["code"]) + PAD
    if t == "frame":
        head = bytes.fromhex(r["head"])
        return COMMON.pack(4, pid, tid, 0, r["last_ret"]) + FRAME2.pack(
            r["pipe"], r["len"], r["enter"], r["ret"], r["last_enter"],
            r["last_ret"], r["fd"], r["calls"], r["side"] == "w",
            ord(r["tag"] or "\0"), len(head), 0, head) + PAD
    if t == "wait":
        return COMMON.pack(5, pid, tid, 0, r["on"]) + WAIT2.pack(
            r["off"], r["wake"], r["on"], r["nr"], WHY.index(r["why"])) + \
            struct.pack("<Q", r.get("maj_flt", 0))
    if t == "lost":
        return COMMON.pack(6, 0, 0, 0, 0) + PARTS[6].pack(r["n"])
    if t == "end":
        return COMMON.pack(7, 0, 0, 0, r["ns"]) + PARTS[7].pack(
            r["events"], r["lost"], r.get("collector_cpu_ns", -1),
            r.get("status", 0), "status" in r, r.get("collector_max_rss_kb", 0))
    raise ValueError(t)


def tobin(lines):
    objs = [json.loads(l) for l in lines]
    names = {r["nr"]: r["sc"] for r in objs if r.get("t") == "wait" and r["sc"]}
    return header(objs[0], names) + b"".join(record(r) for r in objs[1:])


def double(data):
    if data.startswith(MAGIC):
        head, recs = records(data)
        return head + b"".join(r * (2 if r[0] in (4, 5) else 1) for r in recs)
    lines = data.decode().splitlines(keepends=True)
    return "".join(l * (2 if l.startswith(('{"t":"frame"', '{"t":"wait"'))
                        else 1) for l in lines).encode()


def overlap(data):
    """The second write side of the first stream with two: its enter moved
    to just before the call with the first one's last byte entered."""
    binary = data.startswith(MAGIC)
    if binary:  # version 2: one object a record, after the header's
        head, recs = records(data)
        objs = decode(data)[1:]
    else:
        lines = data.decode().splitlines(keepends=True)
        objs = [json.loads(l) for l in lines]
    seen = {}
    for i, r in enumerate(objs):
        if r.get("t") == "frame" and r["side"] == "w":
            if r["pipe"] in seen:
                first, second = seen[r["pipe"]], i
                break
            seen[r["pipe"]] = i
    if binary:  # version 2's frame: enter after pipe and len
        b = bytearray(recs[second])
        struct.pack_into("<Q", b, COMMON.size + 16,
                         objs[first]["last_enter"] - 1)
        recs[second] = bytes(b)
        return head + b"".join(recs)
    b = objs[second]
    b["enter"] = objs[first]["last_enter"] - 1
    lines[second] = json.dumps(b, separators=(",", ":")) + "\n"
    return "".join(lines).encode()


def why(data):
    head, recs = records(data)
    i = next(i for i, r in enumerate(recs) if r[0] == 5)
    r = bytearray(recs[i])
    struct.pack_into("<I", r, 52, 0xffffffff)
    recs[i] = bytes(r)
    return head + b"".join(recs)


if __name__ == "__main__":
    what, src, dst = sys.argv[1:4]
    data = open(src, "rb").read()
    if what == "tobin":
        out = tobin(data.decode().splitlines())
    else:
        out = {"double": double, "overlap": overlap, "why": why}[what](data)
    open(dst, "wb").write(out)
