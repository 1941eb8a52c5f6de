// Checks the metrics a receiver got from `ipcstamp otel --metrics` against
// `ipcstamp report --format json` of the same slogfile (tests/tools/otel.test):
//   node compare-metrics.cjs SLOG REPORT.jsonl RECEIVED.jsonl
// RECEIVED holds {"metrics": ...} lines (receiver.cjs otlp, decoded with
// OpenTelemetry's protobuf definition).  The last request is the whole
// export (cumulative).  Its histograms' counts and sums must be the
// report's deliveries and ns, in all and per vat, for the total and each
// share; each data point's buckets must hold its count; each delivery of
// the report must fall in the bucket of its own series (vat, the deliver
// record's kind, a message's method) that the scale-3 formula gives; the
// counters must be the report's deliveries, timequakes and skips.
'use strict';
const fs = require('fs');
const [slog, reportFile, received] = process.argv.slice(2);
const fail = (m) => { throw Error(m); };
const lines = (f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean);
const all = lines(reportFile).map(JSON.parse);
const sum = all.find(r => r.summary).summary;
const report = all.filter(r => !r.summary);
const got = lines(received).map(JSON.parse).filter(r => r.metrics);
if (!got.length) fail('no metrics request');
const last = got[got.length - 1].metrics;
const kindOf = [];
fs.readFileSync(slog, 'utf8').split('\n').forEach((l, i) => {
    if (!l.includes('"type":"deliver"')) return;
    let r;
    try { r = JSON.parse(l); } catch (e) { return; } // a bad line: skipped
    kindOf[i + 1] = (r.kd && r.kd[0]) || (r.vd && r.vd[0]);
});
const obj = require('./attrs.cjs');
const metrics = {};
for (const rm of last.resourceMetrics) for (const sm of rm.scopeMetrics)
    for (const m of sm.metrics) metrics[m.name] = m;
const key = (a) => `${a['agoric.vatID'] || ''}|${a['agoric.delivery'] || ''}|${a['ipcstamp.method'] || ''}`;
// the report's deliveries by series
const want = {};
for (const d of report) {
    const kind = kindOf[d.line] || '';
    const k = `${d.vat}|${kind}|${kind === 'message' ? d.description : ''}`;
    (want[k] = want[k] || []).push(d);
}
const bucketOf = (v) => {
    // 2^(i/8) < v <= 2^((i+1)/8); exact at the powers of two
    const e = Math.floor(Math.log2(v));
    if (2 ** e === v) return 8 * e - 1;
    return Math.ceil(Math.log2(v) * 8) - 1;
};
const checkHist = (name, share, field) => {
    const m = metrics[name] || fail(`no ${name}`);
    if (m.unit !== 'ns') fail(`${name} unit ${m.unit}`);
    const h = m.exponentialHistogram || fail(`${name} is not an exponential histogram`);
    if (h.aggregationTemporality !== 2) fail(`${name} temporality ${h.aggregationTemporality}`);
    let n = 0, total = 0;
    const perVat = {};
    for (const p of h.dataPoints) {
        const a = obj(p.attributes);
        if ((a['ipcstamp.share'] || null) !== share) continue;
        const ds = want[key(a)] || fail(`${name}: a series ${key(a)} the report has not`);
        const count = Number(p.count);
        if (count !== ds.length) fail(`${name} ${key(a)}: count ${count}, the report ${ds.length}`);
        const s = ds.reduce((x, d) => x + d[field], 0);
        if (p.sum !== s) fail(`${name} ${key(a)}: sum ${p.sum}, the report ${s}`);
        if (p.scale !== 3) fail(`scale ${p.scale}`);
        const b = {};
        for (const d of ds) if (d[field] > 0) { const i = bucketOf(d[field]); b[i] = (b[i] || 0) + 1; }
        const pos = p.positive || {offset: 0, bucketCounts: []};
        const inb = pos.bucketCounts.reduce((x, c) => x + Number(c), 0);
        if (inb + Number(p.zeroCount || 0) !== count) fail(`${name} ${key(a)}: buckets hold ${inb}`);
        pos.bucketCounts.forEach((c, j) => {
            if (Number(c) !== (b[(pos.offset || 0) + j] || 0))
                fail(`${name} ${key(a)}: bucket ${(pos.offset || 0) + j} holds ${c}, the report's values ${b[(pos.offset || 0) + j] || 0}`);
        });
        n += count;
        total += p.sum;
        const v = a['agoric.vatID'];
        perVat[v] = perVat[v] || {n: 0, s: 0};
        perVat[v].n += count;
        perVat[v].s += p.sum;
    }
    if (n !== sum.deliveries || total !== sum[field]) fail(`${name} ${share}: ${n} deliveries, ${total} ns; the report ${sum.deliveries}, ${sum[field]}`);
    for (const v of sum.vats)
        if (v.deliveries && (!perVat[v.vat] || perVat[v.vat].n !== v.deliveries || perVat[v.vat].s !== v[field]))
            fail(`${name} ${share} ${v.vat}: ${JSON.stringify(perVat[v.vat])}, the report ${v.deliveries} ${v[field]}`);
};
checkHist('ipcstamp.delivery.duration', null, 'total_ns');
for (const s of ['pipe', 'worker', 'kernel']) checkHist('ipcstamp.delivery.time', s, `${s}_ns`);
const counter = (name) => {
    const m = metrics[name] || fail(`no ${name}`);
    if (!m.sum || !m.sum.isMonotonic || m.sum.aggregationTemporality !== 2) fail(`${name}: ${JSON.stringify(m.sum)}`);
    return m.sum.dataPoints.reduce((x, p) => x + Number(p.asInt), 0);
};
const checks = [['ipcstamp.deliveries', sum.deliveries], ['ipcstamp.timequakes', sum.timequakes],
                ['ipcstamp.deliveries.skipped', sum.deliveries_skipped], ['ipcstamp.records.skipped', sum.lines_skipped]];
for (const [name, v] of checks) if (counter(name) !== v) fail(`${name} ${counter(name)}, the report ${v}`);
console.log(`${Object.keys(want).length} series, ${sum.deliveries} deliveries, ${sum.total_ns} ns: counts, sums and buckets match the report`);
