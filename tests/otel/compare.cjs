// Checks the spans a receiver got against `ipcstamp report --format json`
// of the same slogfile (tests/tools/otel.test):
//   node compare.cjs SLOG REPORT.jsonl RECEIVED.jsonl
// RECEIVED holds {"trace": ...} lines (receiver.cjs otlp) or {"body": ...}
// lines of accepted requests (receiver.cjs flaky).  Every delivery of the
// report must be there exactly once, as a root span with its attributes and
// one child per segment, parented to it, laid end to end, each as long as
// the report's segment to the ns; the root starts at the deliver record's
// stamp (its monotime placed on the wall clock from the first record, as
// docs/otel.md says).  Names come from the fixed set (the root by the
// deliver record's kind), the slog's fields are under Agoric's converter's
// keys (agoric.vatID, ...), the worker's spans are under a worker resource
// and the rest under the kernel's, the VM's marks are events of the worker
// span they fall in, and each delivery's links are the deliveries that
// caused it, found here again from the records' kd and ksc (a message's
// result promise -> the syscall send that carried it; a notified promise ->
// the syscall resolve that resolved it, and the send whose result it is).
// Prints a summary line; throws on the first mismatch.
'use strict';
const fs = require('fs');
const obj = require('./attrs.cjs');
const [slog, reportFile, received] = process.argv.slice(2);

const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean);
// "1298.011643284" seconds → ns, exactly (BigInt, from the text).
const ns = (s) => {
    const [i, f = ''] = s.split('.');
    return BigInt(i) * 1000000000n + BigInt((f + '000000000').slice(0, 9));
};
const field = (line, k) => {
    const m = line.match(new RegExp(`"${k}":(-?[0-9.]+)`));
    return m && m[1];
};
const fail = (msg) => { throw Error(msg); };

const slogLines = fs.readFileSync(slog, 'utf8').split('\n');
// The anchors: the first record with a time, the first with a monotime
// (as the analysis takes them; create-vat is not one); a file without both
// keeps its stamps as they are.  After a kernel restart (monotime back by
// more than 1 ms) the run's own anchor: the first record with both clocks
// since; anchorOf[line] is the anchor a deliver record at that line uses.
let t0 = null, m0 = null, last = null, run = null, pending = false;
const anchorOf = [];
slogLines.forEach((l, i) => {
    let r;
    try { r = JSON.parse(l); } catch (e) { return; }
    const t = field(l, 'time'), m = field(l, 'monotime');
    if (m !== null) {
        if (last !== null && ns(m) + 1000000n < last) { run = null; pending = true; }
        last = ns(m);
    }
    if (pending && t !== null && m !== null) { run = [ns(t), ns(m)]; pending = false; }
    if (r.type !== 'create-vat') {
        if (t0 === null && t !== null) t0 = ns(t);
        if (m0 === null && m !== null) m0 = ns(m);
    }
    anchorOf[i + 1] = run || (t0 !== null && m0 !== null ? [t0, m0] : null);
});

// Each deliver record's kind and the deliveries that caused it, by line.
const kindOf = [], causesOf = [];
{
    const sent = new Map(), resolved = new Map();
    let cur = null;
    slogLines.forEach((l, i) => {
        if (!l.includes('"deliver"') && !l.includes('"syscall"')) return;
        let r;
        try { r = JSON.parse(l); } catch (e) { return; }
        if (r.type === 'deliver') {
            const kd = r.kd, line = i + 1;
            kindOf[line] = (kd && kd[0]) || (r.vd && r.vd[0]);
            cur = r.replay ? null : {line, vat: r.vatID || r.vat, dnum: r.deliveryNum};
            const c = [];
            const add = (why, m, kpid) => {
                if (m.has(kpid) && !c.some(x => x.line === m.get(kpid) && x.why === why))
                    c.push({why, line: m.get(kpid), kpid});
            };
            if (kd && kd[0] === 'message' && kd[2] && kd[2].result) add('send', sent, kd[2].result);
            if (kd && kd[0] === 'notify')
                for (const [kpid] of kd[1]) { add('resolve', resolved, kpid); add('send', sent, kpid); }
            causesOf[line] = c;
        } else if (r.type === 'syscall' && cur && r.ksc && r.vatID === cur.vat &&
                   r.deliveryNum === cur.dnum) {
            const k = r.ksc;
            if (k[0] === 'send' && k[2] && k[2].result) sent.set(k[2].result, cur.line);
            if (k[0] === 'resolve') for (const [kpid] of k[2]) resolved.set(kpid, cur.line);
        }
    });
}
const rootNames = ['message', 'notify', 'dropExports', 'retireExports', 'retireImports',
                   'changeVatOptions', 'startVat', 'stopVat', 'bringOutYourDead', 'evaluate'];

const report = lines(reportFile).map(JSON.parse).filter((r) => !r.summary);
// Normalised traces (attributes as objects) or raw request bodies.
const spans = [];
for (const r of lines(received).map(JSON.parse)) {
    if (r.request) continue;
    if (r.errors) fail(`not an ExportTraceServiceRequest: ${r.errors}`);
    if (r.status !== undefined && r.status !== 200) continue;
    const req = r.trace || r.body;
    for (const rs of req.resourceSpans) {
        const process = obj(rs.resource.attributes)['ipcstamp.process'];
        for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
                spans.push({...s, process, attributes: obj(s.attributes),
                            events: (s.events || []).map(e => ({...e, attributes: obj(e.attributes)})),
                            links: (s.links || []).map(k => ({...k, attributes: obj(k.attributes)}))});
    }
}

const hex = (s, n) => typeof s === 'string' && new RegExp(`^[0-9a-f]{${n}}$`).test(s);
const ids = new Set();
for (const s of spans) {
    if (!hex(s.traceId, 32) || !hex(s.spanId, 16)) fail(`bad ids ${s.traceId} ${s.spanId}`);
    if (ids.has(s.spanId)) fail(`span id ${s.spanId} twice`);
    ids.add(s.spanId);
}
const roots = new Map(); // line → root span
const children = new Map(); // root spanId → children
for (const s of spans) {
    if (s.parentSpanId) {
        if (!children.has(s.parentSpanId)) children.set(s.parentSpanId, []);
        children.get(s.parentSpanId).push(s);
    } else {
        const l = s.attributes['ipcstamp.line'];
        if (roots.has(l)) fail(`delivery at line ${l} sent twice`);
        roots.set(l, s);
    }
}
if (roots.size !== report.length)
    fail(`${roots.size} delivery spans for ${report.length} deliveries`);
const names = {send: 'pipe-send', reply: 'pipe-reply', upcall: 'pipe-upcall',
               result: 'pipe-result', kernel: 'kernel-syscall', worker: 'worker',
               unmatched: 'unmatched'};
let nchildren = 0, nlinks = 0;
for (const d of report) {
    const r = roots.get(d.line) || fail(`no span for the delivery at line ${d.line}`);
    const a = r.attributes;
    const want = {
        'agoric.vatID': d.vat, 'agoric.deliveryNum': d.deliveryNum,
        'agoric.delivery': kindOf[d.line],
        'ipcstamp.description': d.description, 'ipcstamp.clock': d.clock,
        'ipcstamp.pipe_ns': d.pipe_ns, 'ipcstamp.worker_ns': d.worker_ns,
        'ipcstamp.kernel_ns': d.kernel_ns, 'ipcstamp.total_ns': undefined,
        'agoric.replay': !!d.replay, 'ipcstamp.timequake': 'timequake_ns' in d,
    };
    if (!d.replay) want['agoric.crankNum'] = d.crank;
    for (const k of ['cpu_ns', 'offcpu_ns', 'offset_ns', 'offset_bound_ns', 'unmatched_ns'])
        if (k in d) want[`ipcstamp.${k}`] = d[k];
    for (const [k, v] of Object.entries(want))
        if (a[k] !== v) fail(`line ${d.line}: ${k} is ${a[k]}, the report says ${v}`);
    const rootName = rootNames.includes(kindOf[d.line]) ? `deliver-${kindOf[d.line]}` : 'deliver';
    if (r.name !== rootName) fail(`line ${d.line}: name ${r.name}, not ${rootName}`);
    if (r.process !== 'kernel') fail(`line ${d.line}: the root under the ${r.process}'s resource`);
    // The links: the deliveries that caused it, each the root of its own
    // trace (found by its line), with why.
    const wantLinks = causesOf[d.line] || [];
    if (r.links.length !== wantLinks.length)
        fail(`line ${d.line}: ${r.links.length} links, the records give ${JSON.stringify(wantLinks)}`);
    for (const c of wantLinks) {
        const target = roots.get(c.line);
        const k = r.links.find(x => x.attributes['ipcstamp.cause'] === c.why &&
                                    x.attributes['agoric.kpid'] === c.kpid);
        if (!k) fail(`line ${d.line}: no ${c.why} link for ${c.kpid}`);
        // A cause outside the export (not attributed) is still named by its
        // ids; one inside must be its root span.
        if (target && (k.traceId !== target.traceId || k.spanId !== target.spanId))
            fail(`line ${d.line}: the ${c.why} link is not to the delivery at line ${c.line}`);
        nlinks++;
    }
    const kind = r.kind === 3 || r.kind === 'SPAN_KIND_CLIENT';
    if (!kind) fail(`line ${d.line}: kind ${r.kind}`);
    const code = r.status && r.status.code;
    if (d.ok ? code !== 0 && code !== undefined && code !== 'STATUS_CODE_UNSET'
             : code !== 2 && code !== 'STATUS_CODE_ERROR')
        fail(`line ${d.line}: status ${JSON.stringify(r.status)} for ok=${d.ok}`);
    // The deliver record's stamp, on the wall clock.
    const dl = slogLines[d.line - 1];
    const an = anchorOf[d.line];
    const D = a['ipcstamp.parent_clock'] !== 'monotime' ? ns(field(dl, 'time'))
        : an ? an[0] + (ns(field(dl, 'monotime')) - an[1])
        : ns(field(dl, 'monotime'));
    const start = BigInt(r.startTimeUnixNano), end = BigInt(r.endTimeUnixNano);
    if (start !== D) fail(`line ${d.line}: starts at ${start}, the deliver record says ${D}`);
    if (end - start !== BigInt(d.total_ns)) fail(`line ${d.line}: lasts ${end - start}`);
    const ch = (children.get(r.spanId) || []).slice()
        .sort((x, y) => x.attributes['ipcstamp.segment_index'] - y.attributes['ipcstamp.segment_index']);
    if (ch.length !== d.segments.length)
        fail(`line ${d.line}: ${ch.length} child spans for ${d.segments.length} segments`);
    let t = start;
    ch.forEach((c, j) => {
        const [kindName, len] = d.segments[j];
        if (c.traceId !== r.traceId) fail(`line ${d.line}: child ${j} in another trace`);
        if (c.attributes['ipcstamp.segment'] !== kindName || c.name !== names[kindName])
            fail(`line ${d.line}: child ${j} is ${c.name}/${c.attributes['ipcstamp.segment']}, not ${kindName}`);
        if (c.process !== (kindName === 'worker' ? 'worker' : 'kernel'))
            fail(`line ${d.line}: a ${kindName} span under the ${c.process}'s resource`);
        if ('ipcstamp.duration_ns' in c.attributes) fail(`line ${d.line}: ipcstamp.duration_ns`);
        if (BigInt(c.startTimeUnixNano) !== t || BigInt(c.endTimeUnixNano) !== t + BigInt(len))
            fail(`line ${d.line}: child ${j} ${c.startTimeUnixNano}..${c.endTimeUnixNano}, want ${t}+${len}`);
        t += BigInt(len);
    });
    if (t !== end) fail(`line ${d.line}: the children end at ${t}, the delivery at ${end}`);
    nchildren += ch.length;
    // The VM's spans: children of the worker segments, at the report's time
    // (from the worker's d, the end of the send segment); its marks: events
    // of the worker segment they fall in.
    const vm = ch.flatMap(c => children.get(c.spanId) || []);
    const events = ch.flatMap(c => c.events.map(e => ({...e, in: c})));
    const marks = d.marks || [];
    const vmSpans = marks.filter(m => m.kind === 'span');
    if (vm.length !== vmSpans.length || events.length !== marks.length - vmSpans.length)
        fail(`line ${d.line}: ${vm.length} VM spans and ${events.length} events for ${marks.length} marks`);
    const d0 = start + BigInt(d.segments[0][1]);
    for (const m of marks) {
        const s0 = d0 + BigInt(m.at_ns);
        if (m.kind === 'span') {
            const s1 = s0 + BigInt(m.dur_ns);
            if (!vm.some(v => v.name === m.name && v.process === 'worker' &&
                              BigInt(v.startTimeUnixNano) === s0 && BigInt(v.endTimeUnixNano) === s1))
                fail(`line ${d.line}: no VM span ${m.name} at ${s0}..${s1}`);
        } else if (!events.some(e => e.name === m.name && BigInt(e.timeUnixNano) === s0 &&
                                     BigInt(e.in.startTimeUnixNano) <= s0 &&
                                     s0 <= BigInt(e.in.endTimeUnixNano)))
            fail(`line ${d.line}: no event ${m.name} at ${s0} in its worker span`);
    }
    nchildren += vm.length;
}
if (roots.size + nchildren !== spans.length) fail(`${spans.length - roots.size - nchildren} stray spans`);
console.log(`${report.length} deliveries, ${spans.length} spans, ${nlinks} links match the report and the records`);
