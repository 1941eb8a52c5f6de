#!/usr/bin/env python3
"""by_calls.py > FILE: a recording (docs/os.md, version 1) for
tests/data/ours.slog's first delivery whose worker sleeps in six system
calls: more than the text shows, the first of them in one major page
fault; and its processes' launches and ends:
the worker of v1 killed by signal 9, a worker of v2 that exited 1, one of
v3 that exited 0, one still running, and a process that is no worker
(tests/os/commands.test)."""
import json, sys
# A recording for ours.slog's first delivery (v1, D 8123.400000 s, d and e
# at 8123400012000 and 8123400112000 ns, E 8123.400117 s): its two frames,
# and in its worker's stretch six sleeps in six system calls, 1000 ns
# more each.
L = [{"ipcstamp_os": 1, "clock": "CLOCK_MONOTONIC", "unit": "ns",
      "start": 8123000000000, "kernel": "6", "follow": "command"},
     {"t": "exec", "ns": 8123100000000, "pid": 200, "ppid": 100,
      "argv": ["xsnap-worker", "v1:one"]}]
def frame(pipe, w, r, tag, enter, wret, rret):
    for side, pid, fd, e, ret in (("w", w, 4, enter, wret), ("r", r, 3, rret - 100, rret)):
        L.append({"t": "frame", "side": side, "pid": pid, "tid": pid, "pipe": pipe,
                  "fd": fd, "len": 9, "tag": tag, "head": "", "enter": e, "ret": ret,
                  "last_enter": e, "last_ret": ret, "calls": 1})
frame(11, 100, 200, "?", 8123400001000, 8123400002000, 8123400010000)
frame(12, 200, 100, ".", 8123400113000, 8123400114000, 8123400116000)
t = 8123400020000
for i, sc in enumerate(("read", "futex", "nanosleep", "poll", "select", "pause")):
    L.append({"t": "wait", "pid": 200, "tid": 200, "off": t, "wake": t + 1000 * (i + 1),
              "on": t + 1000 * (i + 1), "why": "sleep", "nr": i, "sc": sc,
              "maj_flt": 1 if i else 0})  # the first slept in one fault
    t += 10000
for pid, argv in ((300, ["/usr/bin/xsnap-worker", "v2:two", "-r", "@8:v2-3"]),
                  (301, ["/usr/bin/xsnap-worker", "v3:three"]),
                  (302, ["/usr/bin/xsnap-worker", "v4:four"]),
                  (400, ["/bin/sh", "-c", "true"])):
    L.append({"t": "exec", "ns": 8123200000000 + pid, "pid": pid, "ppid": 100, "argv": argv})
for pid, code in ((200, 9), (300, 256), (301, 0), (400, 0)):
    L.append({"t": "exit", "ns": 8123500000000 + pid, "pid": pid, "code": code})
L.append({"t": "end", "ns": 8124000000000, "events": 20, "lost": 0, "status": 0})
for l in L:
    print(json.dumps(l))
