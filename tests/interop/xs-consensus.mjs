#!/usr/bin/env node
// xs-consensus.mjs: ipcstamp-worker-xs computes exactly what the vanilla
// xsnap-worker built from the same sources computes (docs/xsnap.md).
//
//   node xs-consensus.mjs VANILLA OURS TMPDIR [DEV]
//
// Both workers get the same command files on fd 3 (upcall replies are
// already in the file, after the delivery that asks for them) and write to
// files on fd 4 (and fd 5 for heap snapshots).  Compared, build against
// build: every reply frame with the metering's timestamps and ipcstamp
// member taken out (so compute, allocate, currentHeapCount, the result
// bytes and the '!' errors), stdout, stderr and the exit code, on a
// workload and on every error path; heap snapshots byte for byte, and each
// build loading the other's.  Our stamps are checked too: kinds, counts,
// the 'e' past xsnap's 502, cpu_ns.  With DEV (ipcstamp-worker-xs-dev):
// its performance.mark/measure reach the metering, and its snapshots are
// NOT the vanilla ones (why it is never for a chain node).  Node only, no npm.  Prints one line
// per check and "N passed, N failed"; exit 0 when all passed.
import fs from 'node:fs';
import path from 'node:path';
import { checks, deliver, errorCases, frame, runner, vatCode } from './xs-harness.mjs';

const [vanilla, ours, tmp, dev] = process.argv.slice(2);
if (!tmp) {
  console.error('usage: node xs-consensus.mjs VANILLA OURS TMPDIR');
  process.exit(2);
}
const { check, summary } = checks();

// A reply with the metering's clock readings taken out: what is left must
// be the same for both builds.  Returns [normal form, metering or null].
const normalize = f => {
  if (f[0] !== 0x2e) return [f.toString('latin1'), null];
  const sep = f.indexOf(1);
  if (sep < 0) return [f.toString('latin1'), null];
  const meter = JSON.parse(f.subarray(1, sep).toString('utf8'));
  const { timestamps, ipcstamp, ...rest } = meter;
  return [`.${JSON.stringify({ ...rest, ntimestamps: timestamps.length })}\u0001${f.subarray(sep + 1).toString('latin1')}`, meter];
};
const runRaw = runner(tmp);
let runNo = 0;
const run = (bin, input, opts = {}) => { runNo += 1; return runRaw(bin, input, { ...opts, normalize }); };

const same = (name, a, b) => {
  const diffs = [];
  for (const k of ['status', 'signal', 'stdout', 'stderr', 'tail']) {
    if (a[k] !== b[k]) diffs.push(`${k}: vanilla ${JSON.stringify(a[k]).slice(0, 200)} vs ours ${JSON.stringify(b[k]).slice(0, 200)}`);
  }
  if (a.frames.length !== b.frames.length) diffs.push(`${a.frames.length} vs ${b.frames.length} frames`);
  a.frames.forEach((f, i) => {
    if (f !== b.frames[i] && diffs.length < 3) diffs.push(`frame ${i}: vanilla ${JSON.stringify(f).slice(0, 300)} vs ours ${JSON.stringify(b.frames[i]).slice(0, 300)}`);
  });
  check(diffs.length === 0, `${name}: same replies, metering counters, output and exit status ${a.status} (${a.frames.length} frames)`, diffs.join('; '));
};

const deliveries = [
  { loop: 1000 },
  { loop: 50000, alloc: 2000 },
  { upcalls: 4, alloc: 100 },
  { upcalls: 4, gc: true },
  { throw: 'boom' },
  { alloc: 20000, gc: true, object: true },
  { upcalls: 1, loop: 10 },
];
const workload = Buffer.concat([
  frame('R', ''),
  frame('e', vatCode),
  frame('e', 'globalThis.kept.length'),
  ...deliveries.map(d => deliver(d)),
  frame('e', 'throw new TypeError("from eval")'),
  frame('e', 'syntax error here ('),
]);

// 1. The workload, then a heap snapshot to fd 5, then quit.
const withSnap = Buffer.concat([workload, frame('w', '@5'), frame('q', '')]);
const env = { IPCSTAMP_CPU_TIME: '1', IPCSTAMP_XS_SPANS: '1' };
const va = run(vanilla, withSnap, { env });
const oa = run(ours, withSnap, { env });
same('workload and snapshot write', va, oa);
check(va.snap.length > 100000 && va.snap.equals(oa.snap), `heap snapshots byte-identical (${va.snap.length} bytes)`,
  `${va.snap.length} vs ${oa.snap.length} bytes, ${va.snap.equals(oa.snap) ? 'same' : 'different'}`);

// Our stamps: on every '.' with metering, kinds d(ur)*e, one mono per kind,
// the wall list exactly xsnap's length, cpu_ns asked for above.
{
  const bad = [];
  oa.meters.forEach((m, i) => {
    if (!m) return;
    const s = m.ipcstamp;
    if (!s) { bad.push(`frame ${i} has no ipcstamp`); return; }
    if (!/^d(ur)*e$/.test(s.kinds)) bad.push(`frame ${i} kinds ${s.kinds}`);
    if (s.mono.length !== s.kinds.length || m.timestamps.length !== s.kinds.length) bad.push(`frame ${i} counts`);
    if (typeof s.cpu_ns !== 'number') bad.push(`frame ${i} has no cpu_ns`);
    for (let k = 1; k < s.mono.length; k += 1) if (s.mono[k] < s.mono[k - 1]) bad.push(`frame ${i} mono goes back`);
  });
  const n = oa.meters.filter(Boolean).length;
  check(n >= 8 && bad.length === 0, `ours: ipcstamp stamps on all ${n} metered replies (d, u/r pairs, e; cpu_ns)`, bad.slice(0, 3).join('; '));
  check(va.meters.every(m => !m || !('ipcstamp' in m)), 'vanilla: no ipcstamp member');
  const marked = oa.meters.filter(m => m && m.ipcstamp && m.ipcstamp.marks);
  const names = new Set(marked.flatMap(m => m.ipcstamp.marks.names));
  check(['xsnap.handleCommand', 'xsnap.promiseJobs', 'xsnap.gc', 'xsnap.snapshotWrite'].every(x => names.has(x)),
    `ours: spans of the command, the promise jobs, GC and the snapshot write (${[...names].join(', ')})`);
}

// 2. Each build loads each build's snapshot and runs the same deliveries.
{
  const after = Buffer.concat([...deliveries.slice(0, 4).map(d => deliver(d)), frame('w', '@5'), frame('q', '')]);
  const r = {};
  for (const [wn, w] of [['vanilla', vanilla], ['ours', ours]]) {
    for (const [sn, s] of [['vanilla', va], ['ours', oa]]) {
      r[`${wn}<${sn}`] = run(w, after, { args: ['-r', s.snapPath], env });
    }
  }
  same('vanilla loads ours vs vanilla loads its own', r['vanilla<vanilla'], r['vanilla<ours']);
  same('ours loads vanilla\'s vs vanilla loads its own', r['vanilla<vanilla'], r['ours<vanilla']);
  same('ours loads its own vs vanilla loads its own', r['vanilla<vanilla'], r['ours<ours']);
  const snaps = Object.values(r).map(x => x.snap);
  check(snaps[0].length > 0 && snaps.every(s => s.equals(snaps[0])), 'the four snapshots after loading are byte-identical');
}

// 3. Past xsnap's 502 timestamps: xsnap's list is cut the same in both,
// and ours keeps every stamp, the final 'e' included.
{
  const big = Buffer.concat([frame('e', vatCode), deliver({ upcalls: 300 }), frame('q', '')]);
  const v = run(vanilla, big);
  const o = run(ours, big);
  same('300 upcalls in one delivery', v, o);
  const m = o.meters[o.meters.length - 1];
  check(m && m.timestamps.length === 502 && m.ipcstamp.kinds.length === 602 && m.ipcstamp.kinds.endsWith('ure') &&
    m.ipcstamp.dropped === 0, 'ours past 502: timestamps as xsnap cuts them (502), ipcstamp keeps all 602, e included',
  m ? `${m.timestamps.length} timestamps, ${m.ipcstamp && m.ipcstamp.kinds.length} kinds` : 'no metering');
  check(m && m.ipcstamp.v === 1 && !m.ipcstamp.marks, 'ours by default: no spans of every delivery (IPCSTAMP_XS_SPANS unset)');
  // A smaller table: the 'e' is still kept, and the rest counted as dropped.
  const c = run(ours, big, { env: { IPCSTAMP_STAMP_CAPACITY: '16' } });
  const mc = c.meters[c.meters.length - 1];
  check(mc && mc.ipcstamp.kinds.length === 16 && mc.ipcstamp.kinds.endsWith('e') && mc.ipcstamp.dropped === 602 - 16,
    'IPCSTAMP_STAMP_CAPACITY=16: 16 stamps, the last one e, the rest counted as dropped');
}

// 4. Error paths: each must end the same way in both builds.
const cases = errorCases();
for (const [name, input, args = []] of cases) {
  same(name, run(vanilla, input, { args }), run(ours, input, { args }));
}
// A stamping problem never changes the worker: a bad IPCSTAMP_* value is a
// warning, and the worker runs (and ends) as the vanilla one does.
{
  const input = Buffer.concat([frame('e', vatCode), deliver({ upcalls: 2 }), frame('q', '')]);
  const v = run(vanilla, input);
  const o = run(ours, input, { env: { IPCSTAMP_STAMP_CAPACITY: 'lots' } });
  const warned = /IPCSTAMP_STAMP_CAPACITY.*running without ipcstamp's stamps/.test(o.stderr);
  o.stderr = o.stderr.replace(/^ipcstamp-worker-xs: .*running without ipcstamp's stamps\n/m, '');
  same('bad IPCSTAMP_STAMP_CAPACITY (a warning, no stamps)', v, o);
  check(warned && o.meters.every(m => !m || !m.ipcstamp), 'bad IPCSTAMP_STAMP_CAPACITY: warned, no ipcstamp member');
  const d = run(ours, input, { env: { IPCSTAMP_DISABLE: '1' } });
  const rawV = fs.readFileSync(path.join(tmp, `run${runNo - 2}.out`));
  check(d.frames.length === v.frames.length && d.meters.every(m => !m || !m.ipcstamp),
    'IPCSTAMP_DISABLE=1: replies without an ipcstamp member', `${rawV.length}`);
}

// With the live ring (IPCSTAMP_RING_DIR): the same replies; the ring is
// left in TMPDIR/ring for the .test to read with `ipcstamp watch`.
{
  const input = Buffer.concat([frame('e', vatCode), deliver({ upcalls: 2 }), frame('q', '')]);
  fs.mkdirSync(path.join(tmp, 'ring'), { recursive: true });
  const v = run(vanilla, input);
  const o = run(ours, input, { env: { IPCSTAMP_RING_DIR: path.join(tmp, 'ring'), IPCSTAMP_XS_SPANS: '1' } });
  same('with the live ring', v, o);
  check(fs.readdirSync(path.join(tmp, 'ring')).some(f => f.endsWith('.ring')), 'ours wrote its live ring');
}

// The development build: performance.mark/measure work, and they cost
// snapshot compatibility, as docs/xsnap.md says.
if (dev) {
  const code = `globalThis.handleCommand = function (buf) {
    performance.mark('a');
    issueCommand(new TextEncoder().encode('["vatstoreGet","k"]').buffer);
    performance.mark('b');
    performance.measure('a to b', 'a', 'b');
    performance.measure('since the start');
    let err = '';
    try { performance.measure('x', 'no such mark'); } catch (e) { err = e.name; }
    return new TextEncoder().encode(err).buffer;
  };`;
  const input = Buffer.concat([frame('e', code), deliver({}, 1), frame('w', '@5'), frame('q', '')]);
  const d = run(dev, input);
  const i = d.frames.findIndex(f => f.endsWith('\u0001SyntaxError'));
  const m = d.meters[i];
  const mk = m && m.ipcstamp && m.ipcstamp.marks;
  check(d.status === 0 && i > 0 && mk &&
    ['a', 'b', 'a to b', 'since the start'].every(x => mk.names.includes(x)) && mk.unbalanced === 0,
  'dev: performance.mark/measure in the metering, an unknown start mark a SyntaxError',
  JSON.stringify({ status: d.status, stderr: d.stderr, frames: d.frames, marks: mk }).slice(0, 500));
  check(/NOT FOR CHAIN NODES/.test(d.stderr), 'dev: says at start that it is not for chain nodes');
  const v = run(vanilla, Buffer.concat([frame('e', code), frame('w', '@5'), frame('q', '')]));
  const l = run(vanilla, frame('q', ''), { args: ['-r', d.snapPath] });
  check(!v.snap.equals(d.snap) && l.status !== 0, `dev: its snapshots differ from xsnap-worker's, which cannot load them (exit ${l.status})`);
}

summary();
