#!/usr/bin/env python3
"""gen_truncated.py -- a slogfile in the shape Agoric's xsnap writes when a
delivery makes more than 250 syscalls: xsnap keeps 502 timestamps a
delivery (MAX_TIMESTAMPS in xsnap-worker.c) and drops the rest, the final
one included.  Two deliveries of one vat: a short one (5 syscalls, all
stamped) and a long one (260 syscalls, 502 stamps).  Deterministic: the
times are made up, in microseconds as xsnap writes them.

usage: gen_truncated.py > tests/data/xsnap-truncated.slog
"""


def sec(us):
    return "%d.%06d" % divmod(us, 1000000)


def delivery(out, crank, dnum, t0, nsys, keep=502):
    # Parent (kernel) times in us; the worker's clock is 3 s ahead.
    skew = 3000000
    D = t0
    w = [D + 40 + skew]          # d: 40 us of transit
    P = []
    t = w[0] - skew
    for i in range(nsys):
        u = t + 100 + (i % 7) * 10   # the worker runs, then asks
        U = u + 20                   # transit to the kernel
        R = U + 50 + (i % 5) * 5     # the kernel answers
        r = R + 15                   # transit back
        P.append((U, R))
        w += [u + skew, r + skew]
        t = r
    e = t + 200
    E = e + 30
    w.append(e + skew)
    stamps = w[:keep]
    out.append('{"type":"deliver","crankNum":%d,"vatID":"v9","deliveryNum":%d,'
               '"replay":false,"dispatch":"message","kd":["message","ko1",{}],'
               '"vd":["message","o+0",{"methargs":{"body":"#[\\"go\\",[]]",'
               '"slots":[]}}],"time":%s,"monotime":%s}'
               % (crank, dnum, sec(D), sec(D - 1000000)))
    for i, (U, R) in enumerate(P):
        for typ, x, k in (("syscall", U, "vsc"), ("syscall-result", R, "vsr")):
            out.append('{"type":"%s","crankNum":%d,"vatID":"v9","deliveryNum":%d,'
                       '"syscallNum":%d,"replay":false,"syscall":"vatstoreGet",'
                       '"%s":["vatstoreGet","k%d"],"time":%s,"monotime":%s}'
                       % (typ, crank, dnum, i, k, i, sec(x), sec(x - 1000000)))
    out.append('{"type":"deliver-result","crankNum":%d,"vatID":"v9",'
               '"deliveryNum":%d,"replay":false,"dispatch":"message",'
               '"dr":["ok",null,{"meterType":"xs-meter-29","compute":%d,'
               '"timestamps":[%s]}],"time":%s,"monotime":%s,"seconds":%s}'
               % (crank, dnum, 1000 + nsys, ",".join(sec(x) for x in stamps),
                  sec(E), sec(E - 1000000), sec(E - D)))
    return E


out = []
t = 1800000000000000
t = delivery(out, 1, 1, t, 5) + 5000
delivery(out, 2, 2, t, 260)
print("\n".join(out))
