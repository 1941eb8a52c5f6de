#!/usr/bin/env python3
"""Write a deterministic synthetic slogfile of about SIZE megabytes.

usage: gen_slog.py OUT SIZE_MB [SEED [SHAPE]]

The shape follows docs/slogfile.md and what SwingSet writes: deliveries to a few
vats with smallcaps message payloads, 0-12 syscalls each (vatstore reads and
writes, sends, resolves), the other record types SwingSet interleaves
(crank-start, crank-finish, console), and metering with ipcstamp stamps.
Payload sizes vary as in a real chain: most are small, some are large.
SHAPE "heavy" (the default) has payloads of 20 B to 30 KB, so most bytes
are payload; "small" has payloads of a few dozen bytes, like the records of
`ipcstamp run --demo`, so most bytes are the fields the report reads.
Stamps are whole microseconds so that a Python reader using floats gets the
same nanoseconds as the C one.
"""
import random
import sys


def main():
    out, size_mb = sys.argv[1], float(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    small = len(sys.argv) > 4 and sys.argv[4] == "small"
    rnd = random.Random(seed)
    limit = int(size_mb * 1024 * 1024)
    wall0 = 1795300856500000 - 8123400000  # wall_us = mono_us + wall0
    t = 8123400000  # parent mono, us
    vats = ["v%d" % i for i in range(1, 17)]
    methods = ["deposit", "getBalance", "makeInvitation", "getUpdateSince",
               "publish", "executeOffer", "fromBridge", "inbound", "getId"]
    written = 0
    crank = 0
    dnums = {v: 0 for v in vats}

    def pm(mono_us):
        w = mono_us + wall0
        return '"time":%d.%06d,"monotime":%d.%06d000' % (
            w // 10**6, w % 10**6, mono_us // 10**6, mono_us % 10**6)

    def wall(mono_us):
        w = mono_us + wall0
        return "%d.%06d" % (w // 10**6, w % 10**6)

    def blob(n):
        # Smallcaps-looking argument text of about n bytes.
        parts = []
        size = 0
        while size < n:
            k = rnd.choice(["amount", "brand", "value", "id", "slot", "data"])
            v = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789")
                        for _ in range(rnd.randint(4, 40)))
            parts.append('\\"%s\\":\\"%s\\"' % (k, v))
            size += len(k) + len(v) + 10
        return "{" + ",".join(parts) + "}"

    def payload_size():
        if small:
            return rnd.randint(1, 40)
        r = rnd.random()
        if r < 0.7:
            return rnd.randint(20, 300)
        if r < 0.95:
            return rnd.randint(300, 3000)
        return rnd.randint(3000, 30000)

    with open(out, "w") as f:
        line = '{"type":"slog-start","ipcstamp":{"v":1},"pid":4242,%s}\n' % pm(t)
        f.write(line)
        written += len(line)
        while written < limit:
            crank += 1
            vat = rnd.choice(vats)
            dn = dnums[vat]
            dnums[vat] += 1
            lines = []
            t += rnd.randint(50, 2000)
            lines.append('{"type":"crank-start","crankType":"delivery","crankNum":%d,%s}'
                         % (crank, pm(t)))
            t += rnd.randint(5, 50)
            D = t
            kind = rnd.random()
            if kind < 0.75:
                vd = ('["message","o+%d",{"methargs":{"body":"#[\\"%s\\",[%s]]","slots":["o-%d"]},"result":"p-%d"}]'
                      % (rnd.randint(0, 99), rnd.choice(methods), blob(payload_size()),
                         rnd.randint(1, 999), crank))
                nsys = rnd.randint(0, 12)
            elif kind < 0.95:
                vd = ('["notify",[["p+%d",{"state":"fulfilled","data":{"body":"#%s","slots":[]}}]]]'
                      % (rnd.randint(1, 999), blob(payload_size())))
                nsys = rnd.randint(0, 4)
            else:
                vd = '["bringOutYourDead"]'
                nsys = rnd.randint(0, 8)
            lines.append('{"type":"deliver","crankNum":%d,"vatID":"%s","deliveryNum":%d,"vd":%s,%s}'
                         % (crank, vat, dn, vd, pm(D)))
            t += rnd.randint(3, 30)
            ws = [t]
            for s in range(nsys):
                t += rnd.randint(5, 400)
                ws.append(t)
                t += rnd.randint(2, 20)
                U = t
                op = rnd.random()
                if op < 0.4:
                    vsc = '["vatstoreGet","vom.o+%d/%d"]' % (rnd.randint(1, 50), rnd.randint(1, 9999))
                    vsr = '["ok","{\\"body\\":\\"#%s\\",\\"slots\\":[]}"]' % blob(payload_size())
                elif op < 0.7:
                    vsc = '["vatstoreSet","vom.o+%d/%d","{\\"body\\":\\"#%s\\",\\"slots\\":[]}"]' % (
                        rnd.randint(1, 50), rnd.randint(1, 9999), blob(payload_size()))
                    vsr = '["ok",null]'
                elif op < 0.9:
                    vsc = ('["send","o-%d",{"methargs":{"body":"#[\\"%s\\",[%s]]","slots":[]},"result":"p+%d"}]'
                           % (rnd.randint(1, 999), rnd.choice(methods), blob(payload_size()), s))
                    vsr = '["ok",null]'
                else:
                    vsc = ('["resolve",[["p-%d",false,{"body":"#%s","slots":[]}]]]'
                           % (crank, blob(payload_size())))
                    vsr = '["ok",null]'
                lines.append('{"type":"syscall","crankNum":%d,"vatID":"%s","deliveryNum":%d,"syscallNum":%d,"vsc":%s,%s}'
                             % (crank, vat, dn, s, vsc, pm(U)))
                t += rnd.randint(5, 300)
                R = t
                lines.append('{"type":"syscall-result","crankNum":%d,"vatID":"%s","deliveryNum":%d,"syscallNum":%d,"vsr":%s,%s}'
                             % (crank, vat, dn, s, vsr, pm(R)))
                t += rnd.randint(2, 20)
                ws.append(t)
                if rnd.random() < 0.05:
                    lines.append('{"type":"console","source":"vat","vatID":"%s","level":"log","args":["%s"],%s}'
                                 % (vat, blob(40).replace('\\"', "'"), pm(t)))
            t += rnd.randint(5, 2000)
            ws.append(t)
            t += rnd.randint(3, 30)
            E = t
            kinds = "d" + "ur" * nsys + "e"
            worker = sum(ws[2 * i + 1] - ws[2 * i] for i in range(nsys + 1))
            cpu = worker * 1000 * rnd.randint(50, 100) // 100
            met = ('{"compute":%d,"allocate":%d,"timestamps":[%s],"ipcstamp":{"v":1,"kinds":"%s","mono":[%s],"dropped":0,"cpu_ns":%d}}'
                   % (rnd.randint(1000, 10**7), rnd.randint(10**5, 10**8),
                      ",".join(wall(w) for w in ws), kinds,
                      ",".join(str(w * 1000) for w in ws), cpu))
            result = '{"body":"#%s","slots":[]}' % blob(payload_size()) if kind < 0.75 else "null"
            lines.append('{"type":"deliver-result","crankNum":%d,"vatID":"%s","deliveryNum":%d,"dr":["ok",%s,%s],"seconds":%.6f,%s}'
                         % (crank, vat, dn, result, met, (E - D) / 1e6, pm(E)))
            t += rnd.randint(2, 20)
            lines.append('{"type":"crank-finish","crankNum":%d,%s}' % (crank, pm(t)))
            text = "\n".join(lines) + "\n"
            f.write(text)
            written += len(text)


if __name__ == "__main__":
    main()
