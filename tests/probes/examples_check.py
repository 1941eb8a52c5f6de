#!/usr/bin/env python3
"""examples_check.py SLOG DIR: the outputs of docs/probes.md's bpftrace
examples (DIR/upcall-rtt.out, DIR/slow-deliveries.out run with a threshold
of 0 ms, DIR/sched.out), traced during the run that wrote SLOG, have the
shape the page shows and the counts the slogfile says: one histogram per
vat counting its upcalls; one line per delivery, with its number of
upcalls and its D and E stamps; every stamp of the workers, and at least
one switch off the CPU for each worker (it exits, if nothing else).
Timings are not checked.  Exit 0 with a summary, 1 with what differs.

examples_check.py --wait SLOG DIR: wait (at most 300 s) until the two
outputs printed as the hits come (slow-deliveries, sched) hold the run's,
then exit 0: bpftrace hands hits over when it gets a CPU, and stopping it
before would lose the last ones (a loaded machine)."""
import collections
import decimal
import json
import os
import re
import sys
import time


def ns(seconds):
    return int(decimal.Decimal(seconds) * 1000000000)


def read_slog(path):
    s = {"pids": {}, "upcalls": collections.Counter(), "deliveries": {},
         "stamps": 0}
    with open(path) as f:
        for line in f:
            r = json.loads(line, parse_float=decimal.Decimal)
            t = r.get("type")
            if t == "create-vat":
                s["pids"][r["vatID"]] = r["pid"]
            elif t == "deliver":
                s["deliveries"][(r["vatID"], r["deliveryNum"])] = \
                    [ns(r["monotime"]), None, 0]
            elif t == "syscall":
                s["upcalls"][r["vatID"]] += 1
                s["deliveries"][(r["vatID"], r["deliveryNum"])][2] += 1
            elif t == "deliver-result":
                s["deliveries"][(r["vatID"], r["deliveryNum"])][1] = \
                    ns(r["monotime"])
                m = r["dr"][2] if len(r["dr"]) > 2 else None
                if isinstance(m, dict) and "ipcstamp" in m:
                    s["stamps"] += len(m["ipcstamp"]["kinds"])
    return s


def bpftrace_noise(line):
    return (line == "" or line.startswith("Attaching ")
            or line.startswith("tracing "))


def check_rtt(s, lines):
    hist, vat = collections.Counter(), None
    for line in lines:
        m = re.match(r"^@upcall_us\[(\w+)\]:$", line)
        b = re.match(r"^\[[^\])]*[\])] +(\d+) \|@* *\|$", line)
        if m:
            vat = m.group(1)
        elif b and vat:
            hist[vat] += int(b.group(1))
        elif not bpftrace_noise(line):
            return False, "upcall-rtt: unexpected line %r" % line
    if hist != s["upcalls"]:
        return False, "upcall-rtt: histograms count %s, the slogfile's upcalls %s" % (
            dict(hist), dict(s["upcalls"]))
    return True, "upcall-rtt: one histogram per vat, %s upcalls" % dict(hist)


SLOW = re.compile(r"^(\S*) #(\d+) pid (\d+): (\d+) us, (\d+) upcalls; "
                  r"D mono (\d+) wall (\d+), E mono (\d+) wall (\d+)$")


def check_slow(s, lines):
    ours, seen = set(s["pids"].values()), {}
    for line in lines:
        m = SLOW.match(line)
        if not m:
            if bpftrace_noise(line):
                continue
            return False, "slow-deliveries: unexpected line %r" % line
        vat, n, pid = m.group(1), int(m.group(2)), int(m.group(3))
        if pid not in ours:
            continue  # a delivery of another test's parent
        key = (vat, n)
        got = [int(m.group(6)), int(m.group(8)), int(m.group(5))]
        if key in seen or s["deliveries"].get(key) != got:
            return False, "slow-deliveries: %r: the slogfile says %s" % (
                line, s["deliveries"].get(key))
        seen[key] = got
    if len(seen) != len(s["deliveries"]):
        return False, "slow-deliveries: %d lines at 0 ms, %d deliveries" % (
            len(seen), len(s["deliveries"]))
    return True, "slow-deliveries: one line per delivery (%d), stamps and " \
           "upcalls as in the slogfile" % len(seen)


def check_sched(s, lines):
    stamps, off = 0, collections.Counter()
    for line in lines:
        if re.match(r"^\d+ \d+ \w+ [dure] #\d+(\.\d+)?$", line):
            stamps += 1
        elif re.match(r"^\d+ \d+ (off-cpu state \d+|on-cpu)$", line):
            p = line.split()
            if p[2] == "off-cpu":
                off[int(p[1])] += 1
        elif not bpftrace_noise(line):
            return False, "sched: unexpected line %r" % line
    if stamps != s["stamps"]:
        return False, "sched: %d stamp lines, the slogfile has %d worker stamps" % (
            stamps, s["stamps"])
    if any(off[p] == 0 for p in s["pids"].values()):
        return False, "sched: a worker with no switch off the CPU: %s" % dict(off)
    return True, "sched: %d stamps, every worker switched off the CPU" % stamps


def complete_lines(path):
    with open(path) as f:
        return [l.rstrip() for l in f if l.endswith("\n")]


def wait(s, d):
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if all(check(s, complete_lines(os.path.join(d, name + ".out")))[0]
               for name, check in (("slow-deliveries", check_slow),
                                   ("sched", check_sched))):
            return 0
        time.sleep(0.2)
    return 0


def main():
    if sys.argv[1] == "--wait":
        return wait(read_slog(sys.argv[2]), sys.argv[3])
    s = read_slog(sys.argv[1])
    bad = False
    for name, check in (("upcall-rtt", check_rtt),
                        ("slow-deliveries", check_slow),
                        ("sched", check_sched)):
        with open(os.path.join(sys.argv[2], name + ".out")) as f:
            lines = [l.rstrip() for l in f]
        ok, msg = check(s, lines)
        print(("ok - " if ok else "not ok - ") + msg)
        bad = bad or not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
