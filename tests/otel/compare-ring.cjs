// Checks the spans `ipcstamp otel --ring DIR` sent for a run against
// `ipcstamp report --format json` of the same run's slogfile, and its VM
// marks against `ipcstamp otel --dry-run SLOG` (tests/tools/otel-ring.test):
//   node compare-ring.cjs SLOG REPORT.jsonl RECEIVED.jsonl FROM-SLOG.jsonl
// RECEIVED holds {"trace": ...} lines (receiver.cjs otlp) or {"body": ...}
// lines.  Every delivery of the report must be there exactly once (by vat
// and delivery number: the rings know no cranks), as a root span with one
// child per segment, parented to it, in its trace, laid end to end, each
// as long as the report's segment to the ns, the root as long as the
// delivery with the report's shares; the root named "deliver" (the rings
// carry no kind) under the kernel's resource, the worker segments under a
// resource whose process.pid is the pid the slogfile's create-vat gives
// its vat.  The rings anchor their
// mono stamps on the wall clock at the parent ring's start, the slogfile at
// its first record: the same stamps, two anchors taken a moment apart, so
// the roots' starts must agree within 2 ms (and the lengths exactly).
// The VM's spans (children of the worker segments) and marks (events of
// the worker segments) must be those
// of the slogfile's own export, in the same order: name, kind, depth,
// parent segment, length and start from the root's start all exact (so
// their absolute times agree as the roots' do).
'use strict';
const fs = require('fs');
const obj = require('./attrs.cjs');
const [slog, reportFile, received, fromSlog] = process.argv.slice(2);
const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean);
const fail = (msg) => { throw Error(msg); };
const ns = (s) => {
    const [i, f = ''] = s.split('.');
    return BigInt(i) * 1000000000n + BigInt((f + '000000000').slice(0, 9));
};
const field = (line, k) => {
    const m = line.match(new RegExp(`"${k}":(-?[0-9.]+)`));
    return m && m[1];
};

const slogLines = fs.readFileSync(slog, 'utf8').split('\n');
let t0 = null, m0 = null;
const pids = {};
for (const l of slogLines) {
    let r;
    try { r = JSON.parse(l); } catch (e) { continue; }
    if (r.type === 'create-vat' && r.pid) pids[r.vatID] = r.pid;
    if (r.type === 'create-vat') continue; // not an anchor (docs/analyze.md)
    if (t0 === null && field(l, 'time')) t0 = ns(field(l, 'time'));
    if (m0 === null && field(l, 'monotime')) m0 = ns(field(l, 'monotime'));
}
const report = lines(reportFile).map(JSON.parse).filter((r) => !r.summary);

// The spans of RECEIVED lines, or of bare request bodies (--dry-run).
const spansOf = (file) => {
const spans = [];
for (const r of lines(file).map(JSON.parse)) {
    if (r.request) continue;
    if (r.errors) fail(`not an ExportTraceServiceRequest: ${r.errors}`);
    if (r.status !== undefined && r.status !== 200) continue;
    const req = r.trace || r.body || r;
    for (const rs of req.resourceSpans) {
        const res = {};
        for (const kv of rs.resource.attributes)
            res[kv.key] = 'intValue' in kv.value ? Number(kv.value.intValue) : kv.value.stringValue;
        for (const ss of rs.scopeSpans)
            for (const s of ss.spans) {
                spans.push({...s, attributes: obj(s.attributes), resource: res,
                            events: (s.events || []).map(e => ({...e, attributes: obj(e.attributes)}))});
            }
    }
}
return spans;
};
const spans = spansOf(received);
// A VM span: a child of a segment, with no segment of its own.
const isVm = (s) => s.parentSpanId && !('ipcstamp.segment' in s.attributes);
// A root's VM spans and marks in the order sent, as [span or mark, name,
// depth, parent segment index (-1: the root), start - root start, length].
const marksOf = (all) => {
    const byId = new Map(all.map((s) => [s.spanId, s]));
    const out = new Map();
    const add = (root, m) => {
        if (!out.has(root.spanId)) out.set(root.spanId, []);
        out.get(root.spanId).push(m);
    };
    for (const s of all) {
        if (s.parentSpanId && 'ipcstamp.segment' in s.attributes) {
            const root = byId.get(s.parentSpanId) || fail(`segment ${s.name} without its root`);
            for (const e of s.events)
                add(root, ['mark', e.name, e.attributes['ipcstamp.depth'], s.attributes['ipcstamp.segment_index'],
                           String(BigInt(e.timeUnixNano) - BigInt(root.startTimeUnixNano)), '0']);
        }
        if (!isVm(s)) continue;
        let p = byId.get(s.parentSpanId) || fail(`VM span ${s.name} without its parent`);
        const seg = 'ipcstamp.segment_index' in p.attributes ? p.attributes['ipcstamp.segment_index'] : -1;
        if (seg >= 0) p = byId.get(p.parentSpanId) || fail(`segment of ${s.name} without its root`);
        if (p.parentSpanId) fail(`VM span ${s.name} not under a delivery`);
        const st = BigInt(s.startTimeUnixNano);
        add(p, ['span', s.name, s.attributes['ipcstamp.depth'], seg,
                String(st - BigInt(p.startTimeUnixNano)), String(BigInt(s.endTimeUnixNano) - st)]);
    }
    // events and spans interleaved in time, as the marks came
    for (const l of out.values()) l.sort((x, y) => (BigInt(x[4]) < BigInt(y[4]) ? -1 : BigInt(x[4]) > BigInt(y[4]) ? 1 : 0));
    return out;
};
const ids = new Set();
for (const s of spans) {
    if (!/^[0-9a-f]{32}$/.test(s.traceId) || !/^[0-9a-f]{16}$/.test(s.spanId))
        fail(`bad ids ${s.traceId} ${s.spanId}`);
    if (ids.has(s.spanId)) fail(`span id ${s.spanId} twice`);
    ids.add(s.spanId);
}
const roots = new Map(), children = new Map();
for (const s of spans) {
    if (isVm(s)) continue; // below
    if (s.parentSpanId) {
        if (!children.has(s.parentSpanId)) children.set(s.parentSpanId, []);
        children.get(s.parentSpanId).push(s);
    } else {
        const key = `${s.attributes['agoric.vatID']} #${s.attributes['agoric.deliveryNum']}`;
        if (roots.has(key)) fail(`delivery ${key} sent twice`);
        roots.set(key, s);
    }
}
if (roots.size !== report.length)
    fail(`${roots.size} delivery spans for ${report.length} deliveries`);
const names = {send: 'pipe-send', reply: 'pipe-reply', upcall: 'pipe-upcall',
               result: 'pipe-result', kernel: 'kernel-syscall', worker: 'worker'};
let nchildren = 0, worst = 0n;
for (const d of report) {
    const key = `${d.vat} #${d.deliveryNum}`;
    const r = roots.get(key) || fail(`no span for ${key}`);
    const a = r.attributes;
    for (const k of ['pipe_ns', 'worker_ns', 'kernel_ns'])
        if (a[`ipcstamp.${k}`] !== d[k]) fail(`${key}: ${k} ${a[`ipcstamp.${k}`]}, the report says ${d[k]}`);
    if (a['ipcstamp.clock'] !== 'mono' || 'agoric.crankNum' in a) fail(`${key}: ${JSON.stringify(a)}`);
    // What the rings do not carry is left out, not sent empty.
    if ('ipcstamp.description' in a || 'ipcstamp.line' in a || 'agoric.delivery' in a || r.links)
        fail(`${key}: sends what the rings lack: ${JSON.stringify(r)}`);
    if (r.name !== 'deliver') fail(`${key}: name ${r.name}`);
    if (r.resource['ipcstamp.process'] !== 'kernel')
        fail(`${key}: the root under ${JSON.stringify(r.resource)}`);
    const start = BigInt(r.startTimeUnixNano), end = BigInt(r.endTimeUnixNano);
    if (end - start !== BigInt(d.total_ns)) fail(`${key}: lasts ${end - start}`);
    const D = t0 + (ns(field(slogLines[d.line - 1], 'monotime')) - m0);
    const off = start > D ? start - D : D - start;
    if (off > 2000000n) fail(`${key}: starts at ${start}, the slogfile's D at ${D}`);
    if (off > worst) worst = off;
    const ch = (children.get(r.spanId) || []).slice()
        .sort((x, y) => x.attributes['ipcstamp.segment_index'] - y.attributes['ipcstamp.segment_index']);
    if (ch.length !== d.segments.length)
        fail(`${key}: ${ch.length} child spans for ${d.segments.length} segments`);
    let t = start;
    ch.forEach((c, j) => {
        const [kind, len] = d.segments[j];
        if (c.traceId !== r.traceId) fail(`${key}: child ${j} in another trace`);
        if (c.attributes['ipcstamp.segment'] !== kind || c.name !== names[kind])
            fail(`${key}: child ${j} is ${c.name}, not ${kind}`);
        if (kind === 'worker' ? c.resource['ipcstamp.vat'] !== d.vat || c.resource['process.pid'] !== pids[d.vat]
                              : c.resource['ipcstamp.process'] !== 'kernel')
            fail(`${key}: ${kind} under ${JSON.stringify(c.resource)}, the slogfile's pid ${pids[d.vat]}`);
        if (BigInt(c.startTimeUnixNano) !== t || BigInt(c.endTimeUnixNano) !== t + BigInt(len))
            fail(`${key}: child ${j} ${c.startTimeUnixNano}..${c.endTimeUnixNano}, want ${t}+${len}`);
        t += BigInt(len);
    });
    if (t !== end) fail(`${key}: the children end at ${t}, the delivery at ${end}`);
    nchildren += ch.length;
}
// The VM's marks, against the slogfile's export of the same deliveries.
const slogSpans = spansOf(fromSlog);
const slogRoots = new Map();
for (const s of slogSpans)
    if (!s.parentSpanId)
        slogRoots.set(`${s.attributes['agoric.vatID']} #${s.attributes['agoric.deliveryNum']}`, s);
const ringMarks = marksOf(spans), slogMarks = marksOf(slogSpans);
let nmarks = 0, withMarks = 0, nvm = 0;
for (const [key, r] of roots) {
    const s = slogRoots.get(key) || fail(`${key}: not in the slogfile's export`);
    const a = ringMarks.get(r.spanId) || [], b = slogMarks.get(s.spanId) || [];
    if (a.length !== b.length)
        fail(`${key}: ${a.length} VM marks from the rings, ${b.length} from the slogfile`);
    a.forEach((m, i) => {
        if (JSON.stringify(m) !== JSON.stringify(b[i]))
            fail(`${key}: VM mark ${i} from the rings ${JSON.stringify(m)}, from the slogfile ${JSON.stringify(b[i])}`);
    });
    nmarks += a.length;
    nvm += a.filter(m => m[0] === 'span').length;
    if (a.length) withMarks++;
}
if (nmarks === 0) fail('the run made no VM marks: nothing to compare');
if (roots.size + nchildren + nvm !== spans.length)
    fail(`${spans.length - roots.size - nchildren - nvm} stray spans`);
console.log(`${report.length} deliveries, ${spans.length} spans match the report ` +
            `(roots within ${worst} ns of the slogfile's placement), ` +
            `${nmarks} VM marks of ${withMarks} deliveries those of the slogfile's export`);
