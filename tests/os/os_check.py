#!/usr/bin/env python3
"""os_check.py WHAT OS SLOG REPORT_JSON: one check of tests/os/record.test.

frames    the frames ipcstamp record saw between the parent and its worker
          are the slogfile's: as many of each tag each way, and each
          delivery's frame as long as its vd (compact JSON, or the
          evaluated source) and its tag
sums      report --os: every delivery's parts add up exactly to its pipe,
          worker and kernel time, and every frame of it was found
spinning  a worker that only computes: none of its time asleep
cpu_wait  a CPU hog beside parent and worker: waiting for a CPU is seen
vats      SwingSet's deliveries (no pids in its slogfile): each matched to
          the worker whose exec arguments name its vat (VATID:NAME), and
          unmatched_frames the recorded frames of tags ?, e, / that no
          delivery took (the vats' setup evaluations, replays...)

The last line printed says what was checked.

os_check.py tojson OS: a recording of version 3 or 2 (binary) as version
1's JSON lines, decoded here from docs/os.md's description alone (a second
reader of the format, so that the documentation is checked too).
os_check.py end OS: its last line only (the end: events, lost, the
collector's CPU and memory), without decoding the rest.
os_check.py v2 OS OUT [56]: a version 3 recording OS as version 2 wrote
the same records, into OUT (with 56: as recordings made before waits
carried maj_flt, 56-byte waits)."""
import json
import struct
import sys

MAGIC = b"\x89IPS-OS\n"
HEADER = struct.Struct("<8sIIIIQqII16I64s16sII")  # docs/os.md, "The file"
COMMON = struct.Struct("<IIIIQ")                   # type, pid, tid, pad, ns
PARTS = {1: struct.Struct("<II256s"),              # exec
         2: struct.Struct("<I"),                   # fork
         3: struct.Struct("<i"),                   # exit
         4: struct.Struct("<QQQQIIIBBBB16s"),      # frame (version 3)
         5: struct.Struct("<QQQQQQiIIIII"),        # wait (version 3)
         6: struct.Struct("<Q"),                   # lost
         7: struct.Struct("<QQqiIQ"),              # end
         8: struct.Struct("<16s")}                 # task (version 3)
FRAME2 = struct.Struct("<QQQQQQIIBBBB16s")         # version 2's frame
WAIT2 = struct.Struct("<QQQiI")                    # and wait (then maj_flt)
WHY = ["cpu", "sleep", "disk"]


def frame_obj(tgid, tid, pipe, ln, enter, ret, lenter, lret, fd, calls, w,
              tag, hl, hd):
    return {"t": "frame", "side": "w" if w else "r", "pid": tgid,
            "tid": tid, "pipe": pipe, "fd": fd, "len": ln,
            "tag": chr(tag) if ln else "", "head": hd[:hl].hex(),
            "enter": enter, "ret": ret, "last_enter": lenter,
            "last_ret": lret, "calls": calls}


def decode(data, last=False):
    """A version 2 file's bytes as version 1's objects (first the header);
    with last, the header and the end record only (the file's last)."""
    (magic, version, hsize, clock, follow, start, wall, pid, ntypes, *rest) = \
        HEADER.unpack_from(data)
    sizes, kernel, _machine, nnames, name_size = rest[:16], *rest[16:]
    assert magic == MAGIC and version in (2, 3) and clock == 1 and ntypes == 16
    if last:
        hsize = len(data) - sizes[7]
    names = {}
    for i in range(nnames):
        nr, name = struct.unpack_from("<i20s", data, HEADER.size + i * name_size)
        names[nr] = name.rstrip(b"\0").decode()
    head = {"ipcstamp_os": 1, "clock": "CLOCK_MONOTONIC", "unit": "ns",
            "start": start, "start_wall_ns": wall,
            "kernel": kernel.rstrip(b"\0").decode(),
            "follow": "pid" if follow else "command"}
    if follow:
        head["pid"] = pid
    out, at = [head], hsize
    while at < len(data):
        t, tgid, tid, _pad, ns = COMMON.unpack_from(data, at)
        part = {4: FRAME2, 5: WAIT2}.get(t, PARTS[t]) if version == 2 else PARTS[t]
        f = part.unpack_from(data, at + COMMON.size)
        at += sizes[t]
        if t == 1:
            args = f[2][:f[1]].split(b"\0")
            if args and args[-1] == b"":
                args.pop()
            out.append({"t": "exec", "ns": ns, "pid": tgid, "ppid": f[0],
                        "argv": [a.decode("latin-1") for a in args]})
        elif t == 2:
            out.append({"t": "fork", "ns": ns, "pid": tgid, "child": f[0]})
        elif t == 3:
            out.append({"t": "exit", "ns": ns, "pid": tgid, "code": f[0]})
        elif t == 4 and version == 2:
            (pipe, ln, enter, ret, lenter, lret, fd, calls, w, tag, hl, _p,
             hd) = f
            out.append(frame_obj(tgid, tid, pipe, ln, enter, ret, lenter,
                                 lret, fd, calls, w, tag, hl, hd))
        elif t == 4:
            (pipe, enter, ret, lenter, ln, fd, calls, w, tag, hl, _p, hd) = f
            if hd[hl:] != bytes(16 - hl):
                fail(f"a frame's head past its {hl} bytes is not zeros")
            out.append(frame_obj(tgid, tid, pipe, ln, enter, ret, lenter, ns,
                                 fd, calls, w, tag, hl, hd))
        elif t == 5 and version == 2:
            off, wake, on, sc, why = f
            w = {"t": "wait", "pid": tgid, "tid": tid, "off": off,
                 "wake": wake, "on": on, "why": WHY[why], "nr": sc}
            if sizes[5] >= COMMON.size + 40:  # since waits carry maj_flt
                w["maj_flt"], = struct.unpack_from(
                    "<Q", data, at - sizes[t] + COMMON.size + 32)
            w["sc"] = None if sc < 0 else names.get(sc, f"#{sc}")
            out.append(w)
        elif t == 5:
            (off, wake, maj, rt, s_off, s_on, sc, why, waker, took, left,
             cpu) = f
            out.append({"t": "wait", "pid": tgid, "tid": tid, "off": off,
                        "wake": wake, "on": ns, "why": WHY[why], "nr": sc,
                        "maj_flt": maj, "runtime": rt, "steal_off": s_off,
                        "steal_on": s_on, "waker": waker, "took": took,
                        "left": left, "cpu": cpu,
                        "sc": None if sc < 0 else names.get(sc, f"#{sc}")})
        elif t == 8:
            out.append({"t": "task", "pid": tgid, "tid": tid,
                        "comm": f[0].rstrip(b"\0").decode("latin-1")})
        elif t == 6:
            out.append({"t": "lost", "n": f[0]})
        elif t == 7:
            end = {"t": "end", "ns": ns, "events": f[0], "lost": f[1],
                   "collector_cpu_ns": f[2]}
            if f[4]:
                end["status"] = f[3]
            end["collector_max_rss_kb"] = f[5]
            out.append(end)
    return out


def records(data):
    """A binary file's header and its records (bytes each), cut by the
    header's size table."""
    hsize = struct.unpack_from("<I", data, 12)[0]
    sizes = struct.unpack_from("<16I", data, 48)
    out, at = [], hsize
    while at < len(data):
        t = struct.unpack_from("<I", data, at)[0]
        out.append(data[at:at + sizes[t]])
        at += sizes[t]
    return data[:hsize], out


def v2(src, dst, cut56=False):
    """A version 3 file as version 2 wrote the same records (its frames
    and waits in version 2's layout, no task records); with cut56, as
    recordings made before waits carried maj_flt (56-byte waits)."""
    data = open(src, "rb").read()
    sizes = list(struct.unpack_from("<16I", data, 48))
    head, recs = records(data)
    out = bytearray(head)
    for rec in recs:
        t, tgid, tid, _pad, ns = COMMON.unpack_from(rec)
        if t == 4:
            (pipe, enter, ret, lenter, ln, fd, calls, w, tag, hl, _p,
             hd) = PARTS[4].unpack_from(rec, COMMON.size)
            rec = rec[:COMMON.size] + FRAME2.pack(
                pipe, ln, enter, ret, lenter, ns, fd, calls, w, tag, hl, 0,
                hd) + bytes(4)  # padded to 8
        elif t == 5:
            off, wake, maj, _rt, _so, _sn, sc, why = \
                PARTS[5].unpack_from(rec, COMMON.size)[:8]
            rec = rec[:COMMON.size] + WAIT2.pack(off, wake, ns, sc, why) + \
                (b"" if cut56 else struct.pack("<Q", maj))
        if t != 8:
            out += rec
    struct.pack_into("<I", out, 8, 2)
    sizes[4], sizes[5], sizes[8] = 104, 56 if cut56 else 64, 0
    struct.pack_into("<16I", out, 48, *sizes)
    open(dst, "wb").write(bytes(out))
    return 0


def load(path, last=False):
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(MAGIC):
        return decode(data, last)
    return [json.loads(l) for l in data.decode("utf-8").splitlines() if l.strip()]


def fail(msg):
    print(msg)
    sys.exit(1)


def pids(slog):
    parent = next(r["pid"] for r in slog if r["type"] == "kernel-init-start")
    workers = {r["pid"] for r in slog if r["type"] == "create-vat" and "pid" in r}
    return parent, workers


def frames(os_, slog, _rep):
    parent, workers = pids(slog)
    written = [r for r in os_ if r.get("t") == "frame" and r["side"] == "w"]
    by_parent = [f for f in written if f["pid"] == parent]
    by_worker = [f for f in written if f["pid"] in workers]
    n = lambda fs, tags: sum(1 for f in fs if f["tag"] in tags)
    count = lambda t: sum(1 for r in slog if r["type"] == t)
    want = {"deliveries (? and e)": (n(by_parent, "?e"), count("deliver")),
            "replies (/)": (n(by_parent, "/"), count("syscall-result")),
            "upcalls (?)": (n(by_worker, "?"), count("syscall")),
            "results (. and !)": (n(by_worker, ".!"),
                                  count("deliver-result") + n(by_parent, "R"))}
    for what, (got, exp) in want.items():
        if got != exp:
            fail(f"{what}: {got} frames recorded, the slogfile has {exp}")
    # A frame's head is its own bytes only, never the call's bytes past
    # it (the comma, the next frame): at most its payload after the tag.
    for f in os_:
        if f.get("t") == "frame" and len(f["head"]) // 2 > \
                min(16, max(f["len"] - 1, 0)):
            fail(f"a frame of {f['len']} bytes (tag included) has a head of "
                 f"{len(f['head']) // 2}: {bytes.fromhex(f['head'])!r}")
    short = sum(1 for f in written if f["len"] <= 16)
    sends = [f for f in by_parent if f["tag"] in "?e"]
    for f, d in zip(sends, [r for r in slog if r["type"] == "deliver"]):
        vd = d["vd"]
        if f["tag"] == "e":
            body = vd[1]
        else:
            body = json.dumps(vd, separators=(",", ":"), ensure_ascii=False)
        if f["len"] != len(body.encode()) + 1:
            fail(f"crank {d['crankNum']}: frame of {f['len']} bytes, "
                 f"its vd makes {len(body.encode()) + 1}")
        head = bytes.fromhex(f["head"])
        if not body.encode().startswith(head):
            fail(f"crank {d['crankNum']}: the frame's first bytes {head!r} "
                 "are not its vd's")
    print(f"{len(written)} frames, as the slogfile's {len(sends)} deliveries "
          f"say (tags, counts, lengths, first bytes; {short} short frames' "
          "heads their own bytes only)")


def deliveries(rep):
    ds = [r for r in rep if "summary" not in r]
    if not ds:
        fail("no deliveries in the report")
    return ds


def part_sum(d, who):
    return sum(d[f"os_{who}_{p}_ns"] for p in (
        "on_cpu", "steal", "uncharged", "cpu_wait", "disk", "page_fault",
        "sleep", "not_measured"))


def sums(_os, _slog, rep):
    ds = deliveries(rep)
    for d in ds:
        pipe = sum(d[f"os_pipe_{p}_ns"] for p in (
            "before_write", "write", "in_pipe", "sleep", "page_fault",
            "cpu_wait", "reader",
            "not_measured"))
        if pipe != d["pipe_ns"]:
            fail(f"crank {d['crank']}: pipe parts {pipe} != {d['pipe_ns']}")
        if part_sum(d, "worker") != d["worker_ns"]:
            fail(f"crank {d['crank']}: worker parts != {d['worker_ns']}")
        if part_sum(d, "kernel") != d["kernel_ns"]:
            fail(f"crank {d['crank']}: kernel parts != {d['kernel_ns']}")
        if d["os_frames"] != d["os_frames_expected"]:
            fail(f"crank {d['crank']}: {d['os_frames']} of "
                 f"{d['os_frames_expected']} frames found")
        if d["os_pipe_not_measured_ns"] or d["os_worker_not_measured_ns"]:
            fail(f"crank {d['crank']}: a part not measured: {d}")
    print(f"{len(ds)} deliveries: every part measured, each sum exact")


def spinning(_os, _slog, rep):
    ds = deliveries(rep)
    w = sum(d["worker_ns"] for d in ds)
    asleep = sum(d["os_worker_sleep_ns"] + d["os_worker_disk_ns"] for d in ds)
    run = sum(d["os_worker_on_cpu_ns"] + d["os_worker_steal_ns"] +
              d["os_worker_uncharged_ns"] + d["os_worker_cpu_wait_ns"]
              for d in ds)
    if asleep or run != w or w < 1000000:
        fail(f"worker {w} ns: on a CPU or waiting {run}, asleep {asleep}")
    print(f"the spinning worker's {w} ns are all on a CPU or waiting for one")


def cpu_wait(_os, _slog, rep):
    ds = deliveries(rep)
    s = next(r for r in rep if "summary" in r)["summary"]["os"]
    wait = s["pipe"]["cpu_wait_ns"] + s["worker"]["cpu_wait_ns"] + \
        s["kernel"]["cpu_wait_ns"]
    if wait <= 0:
        fail(f"no waiting for a CPU with a hog on the CPU: {s}")
    print(f"{len(ds)} deliveries beside a CPU hog waited {wait} ns for a CPU")


def cpu(_os, _slog, rep):
    """The worker's CPU per delivery from both views: its own cpu_ns
    (CLOCK_PROCESS_CPUTIME_ID from d to e) against the recording's on_cpu
    (what the scheduler charged its thread over its worker segments), and
    against all the time it held a CPU (on_cpu + steal + uncharged: the
    one figure before version 3).  The figures depend on the machine's
    load and its hypervisor: printed, and only what cannot depend on them
    is checked (every delivery has both views; steal is never negative)."""
    ds = [d for d in deliveries(rep) if "cpu_ns" in d and d["os_frames"]]
    if not ds:
        fail("no delivery with cpu_ns and its frames")
    near = held = 0
    for d in ds:
        if d["os_worker_steal_ns"] < 0:
            fail(f"crank {d['crank']}: negative steal")
        on = d["os_worker_on_cpu_ns"]
        whole = on + d["os_worker_steal_ns"] + d["os_worker_uncharged_ns"]
        near += abs(d["cpu_ns"] - on) <= 50000
        held += abs(d["cpu_ns"] - whole) <= 50000
    print(f"{len(ds)} deliveries: the worker's cpu_ns within 50 us of the "
          f"scheduler's charge (on_cpu) on {100 * near / len(ds):.1f}%, of "
          f"the time it held a CPU on {100 * held / len(ds):.1f}%")


def vats(os_, _slog, rep):
    ds = deliveries(rep)
    named = {}
    for r in os_:
        if r.get("t") == "exec" and len(r.get("argv", [])) > 1 and \
                ":" in r["argv"][1]:
            named.setdefault(r["argv"][1].split(":")[0], set()).add(r["pid"])
    for d in ds:
        if d["os_worker_pid"] not in named.get(d["vat"], ()):
            fail(f"crank {d['crank']} of {d['vat']}: matched to worker "
                 f"{d['os_worker_pid']}, its vat's are {named.get(d['vat'])}")
    s = next(r for r in rep if "summary" in r)["summary"]["os"]
    recorded = sum(1 for r in os_ if r.get("t") == "frame" and
                   r["side"] == "w" and r["tag"] in "?e/")
    # Every frame of each delivery found: all but its result are ?, e, /.
    taken = sum(d["os_frames_expected"] - 1 for d in ds)
    if s["unmatched_frames"] != recorded - taken:
        fail(f"unmatched_frames {s['unmatched_frames']}, but {recorded} "
             f"recorded frames of ?, e, / and {taken} taken")
    print(f"{len(ds)} deliveries of {len(named)} vats, each on its own "
          f"vat's worker; {s['unmatched_frames']} frames of no delivery")


if __name__ == "__main__":
    if sys.argv[1] == "v2":  # v2 IN OUT [56]: IN as version 2 wrote it
        sys.exit(v2(sys.argv[2], sys.argv[3], sys.argv[4:] == ["56"]))
    if sys.argv[1] in ("tojson", "end"):
        for r in load(sys.argv[2], sys.argv[1] == "end")[-1 if sys.argv[1] == "end" else 0:]:
            print(json.dumps(r, separators=(",", ":")))
        sys.exit(0)
    what, os_path, slog_path, rep_path = sys.argv[1:5]
    {"frames": frames, "sums": sums, "spinning": spinning,
     "cpu_wait": cpu_wait, "vats": vats, "cpu": cpu}[what](load(os_path), load(slog_path), load(rep_path))
