#!/usr/bin/env node
// same-deliveries.mjs: two `ipcstamp report --format json` outputs give the
// same deliveries, line for line, but for those the second says its
// worker ring lost or never had (ring_lapped, ring_missing: a worker's ring
// replaced by a later process of the same pid, on a machine that runs
// through its pids).  Prints what was compared; exit 1 on a difference.
//
//   node same-deliveries.mjs A.json B.json
import fs from 'node:fs';

const [a, b] = process.argv.slice(2).map(f => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean));
const key = l => { const d = JSON.parse(l); return `${d.crank}/${d.vat}/${d.deliveryNum}/${d.line}`; };
const lost = new Set(b.filter(l => /"ring_(lapped|missing)":true/.test(l)).map(key));
const keep = x => x.filter(l => !l.startsWith('{"summary"') && !lost.has(key(l)));
const [ka, kb] = [keep(a), keep(b)];
const i = ka.findIndex((l, j) => l !== kb[j]);
if (ka.length !== kb.length || i >= 0 || ka.length === 0) {
  console.log(`differ: ${ka.length} vs ${kb.length} deliveries; first at ${i}: ${(ka[i] || '').slice(0, 200)} / ${(kb[i] || '').slice(0, 200)}`);
  process.exit(1);
}
console.log(`${ka.length} deliveries the same, ${lost.size} in no ring`);
