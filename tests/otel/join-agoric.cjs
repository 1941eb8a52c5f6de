// Joins `ipcstamp otel`'s spans of a SwingSet slogfile with Agoric's own
// converter's (@agoric/telemetry's slog-to-otel, dumped by
// tests/interop/swingset/slog-to-otel.mjs --spans) for the same file, on the
// attributes both give the slog's fields: agoric.vatID, agoric.crankNum,
// agoric.deliveryNum (tests/interop/swingset-otel.test):
//   node join-agoric.cjs AGORIC-SPANS.jsonl IPCSTAMP-REQUESTS.jsonl LOCAL
// Every crank span of Agoric's (not replayed) must join a delivery root of
// ipcstamp's, except LOCAL ones (deliveries without metering, which the
// report counts as "local" and does not attribute); where the crank has one
// delivery, the two have the same name and agoric.delivery; each link of
// Agoric's (a notify to the syscall send whose result it resolves) must be
// a "send" link of ipcstamp's delivery of that crank, to the root of the
// delivery that made that syscall.  Prints a summary; throws on a mismatch.
'use strict';
const fs = require('fs');
const [agFile, ipsFile, local] = process.argv.slice(2);
const fail = (m) => { throw Error(m); };
const obj = require('./attrs.cjs');
const key = (a) => `${a['agoric.vatID']}/${a['agoric.crankNum']}/${a['agoric.deliveryNum']}`;
const ips = new Map(), ipsById = new Map(), byCrank = new Map();
for (const l of fs.readFileSync(ipsFile, 'utf8').split('\n').filter(Boolean))
    for (const rs of JSON.parse(l).resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
        if (s.parentSpanId) continue;
        const a = obj(s.attributes);
        const sp = {...s, attributes: a, links: (s.links || []).map(k => ({...k, attributes: obj(k.attributes)}))};
        if (!a['agoric.replay']) {
            ips.set(key(a), sp);
            const c = `${a['agoric.vatID']}/${a['agoric.crankNum']}`;
            if (!byCrank.has(c)) byCrank.set(c, []);
            byCrank.get(c).push(sp);
        }
        ipsById.set(s.spanId, sp);
    }
const ag = fs.readFileSync(agFile, 'utf8').split('\n').filter(Boolean).map(JSON.parse);
const agById = new Map(ag.map(s => [s.spanId, s]));
let joined = 0, unjoined = [], links = 0, same = 0;
for (const s of ag) {
    if (!s.name.startsWith('deliver-') || s.attributes['agoric.replay'] !== false) continue;
    const k = key(s.attributes), i = ips.get(k);
    if (!i) { unjoined.push(k); continue; }
    joined++;
    // A crank of one delivery: the same kind and the same span name.  (In a
    // crank of two, say a message then bringOutYourDead, Agoric's span
    // mixes the two deliveries' attributes.)
    const crank = byCrank.get(`${s.attributes['agoric.vatID']}/${s.attributes['agoric.crankNum']}`);
    if (crank.length === 1) {
        if (i.attributes['agoric.delivery'] !== s.attributes['agoric.delivery'] || i.name !== s.name)
            fail(`${k}: ${i.name} ${i.attributes['agoric.delivery']}, Agoric's ${s.name} ${s.attributes['agoric.delivery']}`);
        same++;
    }
    // Agoric's crank span (named by the crank's message) has the link; its
    // attributes are its last delivery's: the link is the named one's.
    const of = (byCrank.get(`${s.attributes['agoric.vatID']}/${s.attributes['agoric.crankNum']}`) || [])
        .find(x => x.name === s.name);
    for (const l of s.links) {
        if (!of) fail(`${k}: no ${s.name} in that crank`);
        const t = agById.get(l.spanId) || fail(`${k}: agoric link to an unknown span`);
        const tk = key(t.attributes);
        const m = of.links.find(x => x.attributes['ipcstamp.cause'] === 'send' && key(x.attributes) === tk);
        if (!m) fail(`${k}: no send link to ${tk}: ${JSON.stringify(i.links)}`);
        const target = ips.get(tk);
        if (target && m.spanId !== target.spanId) fail(`${k}: link not to ${tk}'s root`);
        links++;
    }
}
if (unjoined.length !== Number(local))
    fail(`${unjoined.length} of Agoric's crank spans join none of ipcstamp's (${unjoined.slice(0, 10)}), ${local} local`);
if (!joined || !links) fail(`${joined} joined, ${links} links`);
console.log(`${joined} joined (${same} of one delivery: same name and kind), ${unjoined.length} local not attributed, ${links} links of Agoric's found`);
