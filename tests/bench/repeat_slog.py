#!/usr/bin/env python3
"""Write a long slogfile as copies of a short one, for `ipcstamp diff`'s
memory and speed figures (BENCHMARKS.md, "ipcstamp diff").

usage: repeat_slog.py IN OUT SIZE_MB

Copy k of IN has k * (the largest crankNum + 1) added to every crankNum and
k * (the largest deliveryNum + 1) to every deliveryNum, so that the copies
make one stream of distinct deliveries in crank order, as a long-running
node's would; times are left as they are (each copy reads as a kernel
restart, which does not change a delivery's attribution).  Stops after the
copy that reaches SIZE_MB megabytes.
"""
import re
import sys

CRANK = re.compile(rb'"crankNum":(\d+)')
DNUM = re.compile(rb'"deliveryNum":(\d+)')


def main():
    src, out, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    data = open(src, "rb").read()
    if not data.endswith(b"\n"):
        data += b"\n"
    crank_span = max(int(m) for m in CRANK.findall(data)) + 1
    dnum_span = max(int(m) for m in DNUM.findall(data)) + 1
    limit = int(size_mb * 1024 * 1024)
    written = 0
    k = 0
    with open(out, "wb") as f:
        while written < limit:
            if k == 0:
                chunk = data
            else:
                co, do = k * crank_span, k * dnum_span
                chunk = CRANK.sub(lambda m: b'"crankNum":%d' % (int(m.group(1)) + co), data)
                chunk = DNUM.sub(lambda m: b'"deliveryNum":%d' % (int(m.group(1)) + do), chunk)
            f.write(chunk)
            written += len(chunk)
            k += 1
    print("%s: %d copies, %d bytes" % (out, k, written))


if __name__ == "__main__":
    main()
