#!/usr/bin/env node
// check-fixture.mjs: prove that a SwingSet slogfile holds everything issue
// 11 needs from a real one, and print a histogram of its record types.
//
//   node check-fixture.mjs FILE[.gz]
//
// Needs node only (no npm packages), so it runs wherever the fixture is
// read.  Prints {"lines":N,"types":{...},"features":{...},"missing":[...]}
// and exits 0 when nothing is missing, 1 when a feature is missing or a
// line is not a JSON object (with its line number), 2 on usage error.
import fs from 'node:fs';
import zlib from 'node:zlib';

const [file, ...rest] = process.argv.slice(2);
if (!file || rest.length) {
  console.error('usage: node check-fixture.mjs FILE[.gz]');
  process.exit(2);
}
let text;
try {
  const raw = fs.readFileSync(file);
  text = (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
} catch (err) {
  console.error(`check-fixture.mjs: ${file}: ${err.message}`);
  process.exit(2);
}

const types = {};
const f = {
  replayDeliverWithoutCrankNum: 0,
  kd: 0,
  ksc: 0,
  ksr: 0,
  smallcapsBody: 0,
  seconds: 0,
  clist: 0,
  consoleFromVat: 0,
  consoleFromLiveslots: 0,
  heapSnapshotSave: 0,
  heapSnapshotLoad: 0,
  createVat: 0,
  createVatLargestBytes: 0,
  dynamicVat: 0,
  monotimeRestarts: 0,
  cranksWithSeveralDeliveries: 0,
  nullMeteringDeliveries: 0,
  xsnapDeliveries: 0,
};
const deliveriesPerCrank = new Map();
let prevMono;
let lines = 0;
const lineList = text.split('\n');
if (lineList[lineList.length - 1] === '') lineList.pop();
for (const [i, line] of lineList.entries()) {
  lines += 1;
  let r;
  try {
    r = JSON.parse(line);
  } catch (err) {
    console.error(`check-fixture.mjs: ${file}:${i + 1}: not JSON: ${err.message}`);
    process.exit(1);
  }
  if (r === null || typeof r !== 'object' || typeof r.type !== 'string') {
    console.error(`check-fixture.mjs: ${file}:${i + 1}: not a slog record (no string "type")`);
    process.exit(1);
  }
  types[r.type] = (types[r.type] ?? 0) + 1;
  if (typeof r.monotime === 'number') {
    // SwingSet's monotime is seconds since process start: a new process
    // appending to the same file starts again near 0.
    if (prevMono !== undefined && r.monotime < prevMono - 1) f.monotimeRestarts += 1;
    prevMono = r.monotime;
  }
  if (typeof r.seconds === 'number') f.seconds += 1;
  if (line.includes('"body":"#')) f.smallcapsBody += 1;
  switch (r.type) {
    case 'deliver':
      if (r.kd) f.kd += 1;
      if (r.replay === true && !('crankNum' in r)) f.replayDeliverWithoutCrankNum += 1;
      if (r.replay !== true) {
        const n = (deliveriesPerCrank.get(r.crankNum) ?? 0) + 1;
        deliveriesPerCrank.set(r.crankNum, n);
        if (n === 2) f.cranksWithSeveralDeliveries += 1;
      }
      break;
    case 'deliver-result':
      if (Array.isArray(r.dr) && r.dr[2] === null) f.nullMeteringDeliveries += 1;
      if (Array.isArray(r.dr) && r.dr[2] && r.dr[2].meterType) f.xsnapDeliveries += 1;
      break;
    case 'syscall':
      if (r.ksc) f.ksc += 1;
      break;
    case 'syscall-result':
      if (r.ksr) f.ksr += 1;
      break;
    case 'clist':
      f.clist += 1;
      break;
    case 'console':
      if (r.source === 'vat') f.consoleFromVat += 1;
      if (r.source === 'liveslots') f.consoleFromLiveslots += 1;
      break;
    case 'heap-snapshot-save':
      f.heapSnapshotSave += 1;
      break;
    case 'heap-snapshot-load':
      f.heapSnapshotLoad += 1;
      break;
    case 'create-vat':
      f.createVat += 1;
      if (r.dynamic === true) f.dynamicVat += 1;
      f.createVatLargestBytes = Math.max(f.createVatLargestBytes, line.length);
      break;
    default:
      break;
  }
}
const missing = Object.entries(f)
  .filter(([, v]) => v === 0)
  .map(([k]) => k);
for (const t of ['crank-start', 'crank-finish', 'deliver', 'deliver-result', 'syscall', 'syscall-result']) {
  if (!types[t]) missing.push(t);
}
const sorted = Object.fromEntries(Object.entries(types).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
console.log(JSON.stringify({ lines, types: sorted, features: f, missing }, null, 1));
process.exit(missing.length ? 1 : 0);
