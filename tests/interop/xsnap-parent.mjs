// xsnap-parent.mjs — Agoric's real xsnap parent (npm @agoric/xsnap) drives a
// worker through one scenario; the same scenario runs against the real
// xsnap-worker first, so a failure says which side broke compatibility.
//
//   node xsnap-parent.mjs PATH-TO-ipcstamp-worker-js
//
// Prints "ok N - ..." / "not ok N - ..." lines and "N passed, N failed";
// exits 1 when anything failed.
import '@endo/init';
import * as proc from 'child_process';
import * as os from 'os';
import fs from 'fs';
import { xsnap } from '@agoric/xsnap';

const ours = process.argv[2];
if (!ours) {
  console.error('usage: node xsnap-parent.mjs PATH-TO-ipcstamp-worker-js');
  process.exit(2);
}

let passed = 0;
let failed = 0;
let n = 0;
const check = (cond, what, detail) => {
  n += 1;
  if (cond) {
    passed += 1;
    console.log(`ok ${n} - ${what}`);
  } else {
    failed += 1;
    console.log(`not ok ${n} - ${what}${detail ? `: ${detail}` : ''}`);
  }
};

const enc = new TextEncoder();
const dec = new TextDecoder();

// ES5 only: Duktape has no arrow functions or classes.
const setup = `
globalThis.handleCommand = function (buf) {
  var req = new TextDecoder().decode(buf);
  if (req === 'throw') { throw new Error('boom from the worker'); }
  // Marks and spans, where the worker has the Performance API.
  var perf = req === 'marked' && typeof performance !== 'undefined' &&
    typeof performance.mark === 'function' ? performance : null;
  if (perf) { perf.mark('begin'); }
  var n = 0;
  for (var i = 0; i < 3; i++) {
    var r = new TextDecoder().decode(
      issueCommand(new TextEncoder().encode(JSON.stringify(['vatstoreGet', req + i])).buffer));
    n += r.length;
  }
  if (perf) { perf.mark('upcalls done'); perf.measure('upcalls', 'begin', 'upcalls done'); }
  return new TextEncoder().encode('got ' + req + ' ' + n).buffer;
};`;

async function scenario(label, spawn) {
  const upcalls = [];
  const worker = await xsnap({
    os: os.type(),
    spawn,
    fs,
    name: `interop-${label}`,
    stderr: 'inherit',
    stdout: 'ignore',
    handleCommand: async msg => {
      upcalls.push(dec.decode(msg));
      return enc.encode('"value"');
    },
  });
  const ev = await worker.evaluate(setup);
  check(Array.isArray(ev.meterUsage.timestamps), `${label}: evaluate answered with metering`);

  const r = await worker.issueStringCommand('hello');
  check(r.reply === 'got hello 21', `${label}: delivery result`, JSON.stringify(r.reply));
  check(upcalls.length === 3 && upcalls[0] === '["vatstoreGet","hello0"]',
    `${label}: three upcalls answered by the xsnap parent`, JSON.stringify(upcalls));
  const ts = r.meterUsage.timestamps;
  check(Array.isArray(ts) && ts.length === 2 + 2 * 3,
    `${label}: 8 wall timestamps (d, 3 u/r pairs, e)`, JSON.stringify(ts));
  check(ts.every((t, i) => i === 0 || t >= ts[i - 1]), `${label}: timestamps in order`);

  let err;
  try {
    await worker.issueStringCommand('throw');
  } catch (e) {
    err = e;
  }
  check(err && /boom from the worker/.test(String(err.message)),
    `${label}: an exception comes back as an error`, String(err && err.message));

  const r2 = await worker.issueStringCommand('again');
  check(r2.reply === 'got again 21', `${label}: the next delivery works after an error`);
  const r3 = await worker.issueStringCommand('marked');
  check(r3.reply === 'got marked 21', `${label}: a delivery that marks`, JSON.stringify(r3.reply));
  check(r3.meterUsage.timestamps.length === 8, `${label}: marks leave the 8 timestamps alone`);
  await worker.close();
  check(true, `${label}: closed (worker exited 0)`);
  r.marked = r3;
  return r;
}

const real = await scenario('xsnap-worker', proc.spawn);
const mine = await scenario('ipcstamp-worker-js', (bin, args, opts) =>
  proc.spawn(ours, args, opts));

const ipc = mine.meterUsage.ipcstamp;
check(ipc && ipc.v === 1 && ipc.kinds === 'dururure',
  'ipcstamp object carried through the xsnap parent', JSON.stringify(ipc));
check(ipc && ipc.mono.length === mine.meterUsage.timestamps.length,
  'one mono stamp per wall stamp');
check(real.meterUsage.ipcstamp === undefined, 'the real xsnap-worker sends no ipcstamp object');

// Metering v2 through the real parent: the marks arrive as the worker sent
// them, and the v1 members are unchanged.
const ipc2 = mine.marked.meterUsage.ipcstamp;
const mk = ipc2 && ipc2.marks;
check(ipc2 && ipc2.v === 2 && ipc2.kinds === 'dururure' &&
  ipc2.mono.length === 8, 'metering v2 carried through the xsnap parent',
  JSON.stringify(ipc2));
check(mk && JSON.stringify(mk.names) === '["begin","upcalls done","upcalls"]' &&
  mk.events.map(e => e[0]).join('') === 'mmbe' && mk.dropped === 0 &&
  mk.unbalanced === 0, 'marks and the measured span in v2', JSON.stringify(mk));
check(mk && mk.events[2][3] === mk.events[0][3] && mk.events[3][3] === mk.events[1][3] &&
  mk.events[0][3] >= ipc2.mono[0] && mk.events[1][3] <= ipc2.mono[7],
  'the span lies between its marks, inside the delivery');

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
