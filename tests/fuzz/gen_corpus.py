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
sys.exit(0)
