#!/usr/bin/env python3
"""Seed corpora of fuzz_flight and fuzz_parent_frames (run once; the output
is committed).  fuzz_flight's inputs lack the 8-byte magic "AG-SLOG!",
which the target puts in front; fuzz_parent_frames' are what a worker
writes to fd 4."""
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
RECS = [
    b'{"type":"crank-start","crankNum":1}',
    b'{"type":"deliver","crankNum":1,"vatID":"v1","deliveryNum":0,'
    b'"vd":["x"],"monotime":1.0}',
    b'{"type":"deliver-result","crankNum":1,"vatID":"v1","deliveryNum":0,'
    b'"dr":["ok",null,{"ipcstamp":{"v":1,"kinds":"de",'
    b'"mono":[1000100000,1000400000]}}],"monotime":1.0005}',
    b'{"type":"crank-finish","crankNum":1}',
]


def recorder(arena, start):
    """Header (without magic) + arena holding RECS from start, wrapping."""
    buf = bytearray(arena)
    at = start
    for r in RECS:
        rec = struct.pack(">Q", len(r) + 1) + b"\n" + r
        for b in rec:
            buf[at] = b
            at = (at + 1) % arena
    return struct.pack(">QQQ", arena, start, at) + bytes(buf)


def ns(payload):
    return str(len(payload)).encode() + b":" + payload + b","


def write(sub, name, data):
    d = os.path.join(here, "corpus", sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


write("flight", "straight", recorder(420, 0))
write("flight", "wrapped", recorder(400, 390))
write("parent_frames", "ok", ns(b".\x01null"))
write("parent_frames", "upcall_then_ok",
      ns(b'?["vatstoreGet","k"]') + ns(b'.{"timestamps":[1.5,2.5]}\x01"r"'))
write("parent_frames", "four_results",
      ns(b".\x01null") + ns(b"!it broke") + ns(b".") + ns(b".\x011"))
write("parent_frames", "extra_frame", ns(b".\x01null") * 6)
write("parent_frames", "partial", b"10:.\x01ab")
write("parent_frames", "bad_tag", ns(b"Zx"))


def os_v2(lines, wait_size=64):
    """ipcstamp record's version 1 lines as version 2's records (docs/os.md,
    "The file"), for fuzz_os's seeds: the same recording both ways; waits
    of wait_size bytes (64 with maj_flt, 56 as recorded before it)."""
    import json
    import struct
    out = b""
    for n, line in enumerate(lines):  # n: a count of faults that grows
        r = json.loads(line)
        t = r["t"]
        if t == "frame":
            head = bytes.fromhex(r["head"])
            out += struct.pack("<IIIIQQQQQQQIIBBBB16s4x", 4, r["pid"], r["tid"], 0,
                               r["last_ret"], r["pipe"], r["len"], r["enter"],
                               r["ret"], r["last_enter"], r["last_ret"],
                               r["fd"], r["calls"], r["side"] == "w",
                               ord(r["tag"] or "\0"), len(head), 0, head)
        elif t == "wait":
            out += struct.pack("<IIIIQQQQiIQ", 5, r["pid"], r["tid"], 0,
                               r["on"], r["off"], r["wake"], r["on"], r["nr"],
                               ["cpu", "sleep", "disk"].index(r["why"]),
                               r.get("maj_flt", n))[:wait_size]
        elif t == "end":
            out += struct.pack("<IIIIQQQqiIQ", 7, 0, 0, 0, r["ns"], r["events"],
                               r["lost"], -1, 0, 0, 0)
    return out


def os_v3(lines):
    """The same lines as version 3's records (proto/os-format.h): frames
    without last_ret (the record's ns) and a 4-byte len, waits with the
    run time, steal clocks, waker, the threads that took and left the
    CPU (made up: growing, so that the split has something to subtract),
    and a task record naming each thread a wait names."""
    import json
    import struct
    out, named = b"", set()
    for n, line in enumerate(lines):
        r = json.loads(line)
        t = r["t"]
        if t == "frame":
            head = bytes.fromhex(r["head"])
            out += struct.pack("<IIIIQQQQQIIIBBBB16s", 4, r["pid"], r["tid"], 0,
                               r["last_ret"], r["pipe"], r["enter"], r["ret"],
                               r["last_enter"], r["len"], r["fd"], r["calls"],
                               r["side"] == "w", ord(r["tag"] or "\0"),
                               len(head), 0, head)
        elif t == "wait":
            took = r["tid"] + 1 if r["why"] == "cpu" else 0
            out += struct.pack("<IIIIQQQQQQQiIIIII", 5, r["pid"], r["tid"], 0,
                               r["on"], r["off"], r["wake"], r.get("maj_flt", n),
                               1000 * n, 10 * n, 10 * n + 3, r["nr"],
                               ["cpu", "sleep", "disk"].index(r["why"]),
                               r["tid"] + 2, took, r["tid"] + 3, 0)
            for tid in (took, r["tid"] + 3):
                if tid and tid not in named:
                    named.add(tid)
                    out += struct.pack("<IIIIQ16s", 8, tid, tid, 0, r["on"],
                                       b"holder%d" % tid)
        elif t == "end":
            out += struct.pack("<IIIIQQQqiIQ", 7, 0, 0, 0, r["ns"], r["events"],
                               r["lost"], -1, 0, 0, 0)
    return out


with open(os.path.join(here, "corpus", "os", "delivery.os"), "rb") as f:
    lines = f.read().decode().splitlines()
write("os", "delivery.v3", b"\x89" + os_v3(lines))
records = os_v2(lines, 56)
# A whole file (fuzz_os's 'H'): the header of the target's own, but with a
# third system call name (fsync, whose wait the records have), and waits
# of 56 bytes, as recordings made before maj_flt have them.
hdr = bytearray(272)
hdr[0:8] = b"\x89IPS-OS\n"
for off, v in ((8, 2), (12, 272), (16, 1), (44, 16), (192, 3), (196, 24)):
    hdr[off:off + 4] = v.to_bytes(4, "little")
for i, v in enumerate((0, 288, 32, 32, 104, 56, 32, 64)):
    hdr[48 + 4 * i:52 + 4 * i] = v.to_bytes(4, "little")
for i, (nr, name) in enumerate(((0, b"read"), (202, b"futex"), (74, b"fsync"))):
    hdr[200 + 24 * i:204 + 24 * i] = nr.to_bytes(4, "little", signed=True)
    hdr[204 + 24 * i:204 + 24 * i + len(name)] = name
write("os", "whole.v2", b"H" + bytes(hdr) + records)
sys.exit(0)
