#!/usr/bin/env python3
"""blocks_recompute.py -- every block of `ipcstamp blocks --format json`,
recomputed from the slogfile by a second, independent implementation of
docs/blocks.md (Python's Decimal and integers: none of ipcstamp's code).

    blocks_recompute.py IPCSTAMP SLOGFILE

Per block (by its height), from the records' `time`:

- What Agoric's monitor-slog-block-time.py computes (its definitions, not
  its code): swingset = end-block-finish - end-block-start, block time =
  end-block-finish - the previous height's end-block-finish, lag =
  begin-block's time - blockTime, cosmos = end-block-start - begin-block,
  computrons = the compute of the deliveries' metering.  Exact (ns), and
  also as the monitor has them, in floating point: within a microsecond.
- What block-times.py counts: deliver-results between end-block-start and
  end-block-finish (= attributed + not attributed deliveries).
- The split: each delivery's pipe, worker, kernel and unmatched as
  `ipcstamp report --format json --clock wall` gives them (whose figures
  tests/tools/recompute.py checks independently), summed over the deliveries
  inside the block; each heap snapshot save (from the deliver-result
  before it to its record), load (from the save's record to its own, or
  from a load on its own to the next deliver); the kernel's own time as
  the sum of the intervals between end-block-start, the deliveries and the
  snapshots, and end-block-finish.  Then the parts must add up to
  swingset, to the nanosecond.

Prints what differs and "N passed, M failed"; exit 0 when all match, 1
otherwise, 2 on usage errors.
"""
import json
import os
import subprocess
import sys
from decimal import Decimal

# The same reading of a number and of a (gzipped) file as recompute.py's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recompute import lines_of, ns  # noqa: E402


def run_json(cmd):
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if out.returncode not in (0, 3):
        raise SystemExit(f"blocks_recompute: {cmd[1]} exited {out.returncode}")
    return [json.loads(l) for l in out.stdout.decode().splitlines()]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ips, path = sys.argv[1], sys.argv[2]
    rows = run_json([ips, "blocks", "--format", "json", path])
    got = {r["height"]: r for r in rows if "height" in r}
    deliveries = {d["line"]: d for d in
                  run_json([ips, "report", "--format", "json", "--clock",
                            "wall", path]) if "line" in d}

    recs = []
    for raw in lines_of(path):
        try:
            r = json.loads(raw, parse_float=Decimal)
        except ValueError:
            continue
        recs.append(r)

    blocks = {}       # height -> what we computed
    cur = None
    prev_finish = {}  # height -> end-block-finish time
    passed = failed = 0
    open_d = {}       # vat -> (line, D time) of the delivery in progress
    last_result = None
    last_save = None  # (vat, time) of the latest save
    load_open = None  # a load on its own: its time
    for lineno, r in enumerate(recs, 1):
        t = r.get("type")
        tm = ns(r["time"]) if "time" in r else None
        if t == "cosmic-swingset-begin-block":
            cur = {"height": r["blockHeight"], "begin": tm,
                   "lag": tm - r["blockTime"] * 10**9,
                   "begin_f": float(r["time"]), "btime": r["blockTime"],
                   "in_end": False}
            blocks[r["blockHeight"]] = cur
            continue
        if cur is None:
            continue
        if t == "cosmic-swingset-end-block-start":
            cur.update(start=tm, start_f=float(r["time"]), in_end=True,
                       mark=tm, own=0, dl={"pipe_ns": 0, "worker_ns": 0,
                                            "kernel_ns": 0, "unmatched_ns": 0},
                       save=0, load=0, results=0, computrons=0)
        elif t == "cosmic-swingset-end-block-finish" and cur["in_end"]:
            cur["in_end"] = False
            cur["finish"] = tm
            cur["finish_f"] = float(r["time"])
            cur["own"] += tm - cur["mark"]
            h = cur["height"]
            prev_finish[h] = (tm, cur["finish_f"])
            if h - 1 in prev_finish:
                cur["block"] = tm - prev_finish[h - 1][0]
                cur["block_f"] = cur["finish_f"] - prev_finish[h - 1][1]
        if not cur.get("in_end"):
            continue
        # Inside end-block: the time line from its start to its finish.
        if load_open is not None and t == "deliver":
            cur["load"] += tm - load_open
            cur["mark"] = tm
            load_open = None
        if t == "deliver":
            cur["own"] += tm - cur["mark"]
            open_d[r["vatID"]] = (lineno, tm)
        elif t == "deliver-result":
            cur["results"] += 1
            dr = r.get("dr") or []
            if len(dr) > 2 and isinstance(dr[2], dict) and "compute" in dr[2]:
                cur["computrons"] += int(dr[2]["compute"])
            line, _ = open_d.pop(r["vatID"], (None, None))
            d = deliveries.get(line)
            if d is not None:
                for k in cur["dl"]:
                    cur["dl"][k] += d.get(k, 0)
            cur["mark"] = tm
            last_result = tm
        elif t == "heap-snapshot-save":
            cur["save"] += tm - last_result
            cur["mark"] = tm
            last_save = (r["vatID"], tm)
        elif t == "heap-snapshot-load":
            if last_save and last_save[0] == r["vatID"] and cur["mark"] == last_save[1]:
                cur["load"] += tm - last_save[1]
                cur["mark"] = tm
            else:
                cur["own"] += tm - cur["mark"]
                load_open = tm
            last_save = None

    def bad(h, what):
        nonlocal failed
        failed += 1
        print(f"{path}: block {h}: {what}")

    for h, c in sorted(blocks.items()):
        if "finish" not in c:
            continue
        g = got.pop(h, None)
        if g is None:
            bad(h, "not reported")
            continue
        want = {
            "swingset_ns": c["finish"] - c["start"],
            "lag_ns": c["lag"],
            "cosmos_ns": c["start"] - c["begin"],
            "computrons": c["computrons"],
            "snap_save_ns": c["save"],
            "snap_load_ns": c["load"],
            "kernel_own_ns": c["own"],
            **c["dl"],
        }
        if "block" in c:
            want["block_ns"] = c["block"]
        diffs = [f"{k} {g.get(k)} != {v}" for k, v in want.items() if g.get(k) != v]
        if g.get("deliveries", 0) + g.get("not_attributed", 0) != c["results"]:
            diffs.append(f"{c['results']} deliver-results, reported "
                         f"{g.get('deliveries')} + {g.get('not_attributed')}")
        parts = sum(g.get(k, 0) for k in ("pipe_ns", "worker_ns", "kernel_ns",
                                          "unmatched_ns", "snap_save_ns",
                                          "snap_load_ns", "kernel_own_ns"))
        if parts != g.get("swingset_ns"):
            diffs.append(f"parts add up to {parts}, not {g.get('swingset_ns')}")
        # As Agoric's monitor has them: floats of seconds.
        sw_f = c["finish_f"] - c["start_f"]
        if abs(sw_f - g["swingset_ns"] / 1e9) > 1e-6:
            diffs.append(f"swingset {g['swingset_ns']} ns is not the monitor's {sw_f}")
        if "block" in c and abs(c["block_f"] - g["block_ns"] / 1e9) > 1e-6:
            diffs.append(f"block {g['block_ns']} ns is not the monitor's {c['block_f']}")
        lag_f = c["begin_f"] - c["btime"]
        if abs(lag_f - g["lag_ns"] / 1e9) > 1e-6:
            diffs.append(f"lag {g['lag_ns']} ns is not the monitor's {lag_f}")
        if diffs:
            bad(h, "; ".join(diffs))
        else:
            passed += 1
    for h in sorted(got):
        bad(h, "reported, but no such block in the file")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
