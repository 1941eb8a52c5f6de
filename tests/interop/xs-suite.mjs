#!/usr/bin/env node
// xs-suite.mjs: what Agoric's own test suite for xsnap (packages/xsnap/test
// of agoric-sdk, which the npm package does not ship) asserts about a
// worker, asked here in our own words through Agoric's own parent
// (@agoric/xsnap's xsnap()), of the vanilla xsnap-worker and of
// ipcstamp-worker-xs in both metering modes (docs/xsnap.md):
//
// - the metering of every answer has exactly the keys meterType,
//   allocate, compute, currentHeapCount and timestamps (the parent adds
//   meterType) — in the default mode plus `ipcstamp` and nothing else, in
//   the exact mode (IPCSTAMP_XS_METERING=xsnap, or set by install) none;
// - compute, allocate and currentHeapCount are exactly the vanilla
//   worker's on the same programs, and so are the replies and what print()
//   writes;
// - a heap snapshot taken after the same programs has the vanilla
//   worker's SHA-256, and a worker started from it goes on identically;
// - the error paths end the same: a throw in a delivery, a syntax error
//   in an evaluation, an upcall reply the vat cannot parse, the compute meter
//   running out (-l: the worker exits 17, no reply);
// - and below the parent, byte for byte: in the exact mode every frame
//   the worker writes is the vanilla worker's but for the clock readings
//   inside `timestamps` (their count included), while its stamps reach the
//   live ring.
//
//   node xs-suite.mjs VANILLA OURS INSTALLED TMPDIR
//
// INSTALLED is a copy of ours put in place by `ipcstamp xsnap install
// --metering xsnap`.  Prints one line per check, "N passed, N failed".
import '@endo/init';
import * as proc from 'child_process';
import crypto from 'crypto';
import fs from 'fs';
import * as os from 'os';
import path from 'path';
import { xsnap } from '@agoric/xsnap';
import { checks, deliver, frame, runner, vatCode } from './xs-harness.mjs';

const [vanilla, ours, installed, tmp] = process.argv.slice(2);
if (!tmp) {
  console.error('usage: node xs-suite.mjs VANILLA OURS INSTALLED TMPDIR');
  process.exit(2);
}
const { check, summary } = checks();
const enc = new TextEncoder();
const dec = new TextDecoder();
const ring = name => {
  const d = path.join(tmp, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
};
const modes = {
  vanilla: { bin: vanilla, env: {} },
  default: { bin: ours, env: { IPCSTAMP_CPU_TIME: '1' } },
  exact: {
    bin: ours,
    env: { IPCSTAMP_XS_METERING: 'xsnap', IPCSTAMP_RING_DIR: ring('ring-exact'), IPCSTAMP_CPU_TIME: '1', IPCSTAMP_XS_SPANS: '1' },
  },
  installed: { bin: installed, env: { IPCSTAMP_RING_DIR: ring('ring-installed'), IPCSTAMP_CPU_TIME: '1' } },
};

// A worker of a mode through Agoric's parent; its print() output kept.
const start = async (mode, opts = {}) => {
  const m = modes[mode];
  const printed = [];
  const upcalls = [];
  const spawn = (_bin, args, o) => {
    const env = { ...process.env, ...m.env };
    delete env.IPCSTAMP_XS_METERING;
    const cp = proc.spawn(m.bin, args, { ...o, env: { ...env, ...m.env } });
    if (cp.stdout) cp.stdout.on('data', d => printed.push(d.toString()));
    return cp;
  };
  const w = await xsnap({
    os: os.type(),
    spawn,
    fs: { ...fs, ...fs.promises },
    name: `suite-${mode}`,
    stdout: 'pipe',
    stderr: 'ignore',
    handleCommand: async msg => {
      const s = dec.decode(msg);
      upcalls.push(s);
      if (s.includes('"bad"')) return enc.encode('not JSON');
      return enc.encode(JSON.stringify(`v${upcalls.length}`));
    },
    ...opts,
  });
  return { w, printed, upcalls };
};
// What an answer says, clock readings aside.
const facts = r => {
  const { meterUsage: m } = r;
  return {
    reply: typeof r.reply === 'string' ? r.reply : Buffer.from(r.reply).toString('latin1'),
    compute: m.compute,
    allocate: m.allocate,
    currentHeapCount: m.currentHeapCount,
    ntimestamps: m.timestamps.length,
  };
};
const failure = async p => {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return String(e && e.message).replace(/suite-[a-z]+/g, 'NAME');
  }
};
const sha256 = async stream => {
  const h = crypto.createHash('sha256');
  const chunks = [];
  for await (const c of stream) { h.update(c); chunks.push(Buffer.from(c)); }
  return [h.digest('hex'), Buffer.concat(chunks)];
};
const deliveries = [{ loop: 1000 }, { loop: 50000, alloc: 2000 }, { upcalls: 3, alloc: 100 }, { upcalls: 2, gc: true },
  { alloc: 20000, gc: true, object: true }];

// The programs, the same for every mode.
const scenario = async mode => {
  const out = { answers: [], keys: new Set(), errors: [] };
  const keep = r => { out.answers.push(facts(r)); out.keys.add(Object.keys(r.meterUsage).sort().join(',')); return r; };
  const { w, printed, upcalls } = await start(mode);
  keep(await w.evaluate('print("hello from a vat"); globalThis.x = [1, 2, 3].map(n => n * 2);'));
  keep(await w.evaluate(vatCode));
  for (const d of deliveries) keep(await w.issueStringCommand(JSON.stringify(d)));
  out.errors.push(await failure(w.issueStringCommand(JSON.stringify({ throw: 'boom' }))));
  out.errors.push(await failure(w.evaluate('syntax error here (')));
  out.errors.push(await failure(w.evaluate(
    'JSON.parse(new TextDecoder().decode(issueCommand(new TextEncoder().encode(\'["bad"]\').buffer)))')));
  keep(await w.issueStringCommand(JSON.stringify({ loop: 10 })));
  [out.snap, out.snapBytes] = await sha256(w.makeSnapshotStream('suite'));
  await w.close();
  out.printed = printed.join('');
  out.upcalls = upcalls;
  // A worker started from that snapshot goes on the same way.
  async function* again() { yield out.snapBytes; }
  const r = await start(mode, { snapshotStream: again(), snapshotDescription: 'suite' });
  for (const d of deliveries.slice(0, 3)) keep(await r.w.issueStringCommand(JSON.stringify(d)));
  [out.snap2] = await sha256(r.w.makeSnapshotStream('suite2'));
  await r.w.close();
  // The compute meter running out: the worker exits 17 without a reply.
  const l = await start(mode, { meteringLimit: 100000 });
  await l.w.evaluate(vatCode);
  out.errors.push(await failure(l.w.issueStringCommand(JSON.stringify({ spin: true }))));
  return out;
};

const res = {};
for (const mode of Object.keys(modes)) res[mode] = await scenario(mode);
const v = res.vanilla;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
check(same([...v.keys], ['allocate,compute,currentHeapCount,meterType,timestamps']),
  'vanilla: every metering has exactly meterType, allocate, compute, currentHeapCount, timestamps', [...v.keys].join(' / '));
for (const mode of ['default', 'exact', 'installed']) {
  const o = res[mode];
  const keys = mode === 'default' ? ['allocate,compute,currentHeapCount,ipcstamp,meterType,timestamps'] : [...v.keys];
  check(same([...o.keys], keys), `${mode}: the metering's keys are ${mode === 'default' ? "vanilla's plus ipcstamp, nothing else" : "exactly vanilla's"}`,
    [...o.keys].join(' / '));
  const diff = o.answers.findIndex((a, i) => !same(a, v.answers[i]));
  check(o.answers.length === v.answers.length && diff < 0,
    `${mode}: the same replies, compute, allocate, currentHeapCount and timestamp counts (${o.answers.length} answers)`,
    diff >= 0 ? `answer ${diff}: ${JSON.stringify(o.answers[diff])} vs vanilla ${JSON.stringify(v.answers[diff])}` : '');
  check(o.snap === v.snap && o.snap2 === v.snap2, `${mode}: heap snapshots with the vanilla worker's SHA-256 (${v.snap.slice(0, 16)}…), before and after a restart from one`,
    `${o.snap} ${o.snap2} vs ${v.snap} ${v.snap2}`);
  check(same(o.errors, v.errors), `${mode}: the same errors (a throw, a syntax error, an unparsable upcall reply, the meter run out)`,
    `${JSON.stringify(o.errors)} vs ${JSON.stringify(v.errors)}`);
  check(o.printed === v.printed && same(o.upcalls, v.upcalls), `${mode}: the same print() output and upcalls`);
}
check(/too much computation/.test(v.errors[3] || ''), 'the meter running out ends the worker (exit 17: too much computation)', v.errors[3]);

// Below the parent: the exact mode's frames are the vanilla worker's, byte
// for byte, once the clock readings in `timestamps` are masked.
const run = runner(tmp);
const mask = f => f.toString('latin1').replace(/"timestamps":\[[0-9.,]*\]/, t => t.replace(/[0-9]/g, '9'));
const input = Buffer.concat([frame('e', vatCode), ...deliveries.map(d => deliver(d)), frame('q', '')]);
const rv = run(vanilla, input);
for (const mode of ['exact', 'installed']) {
  const ro = run(modes[mode].bin, input, { env: modes[mode].env });
  const a = rv.raw.map(mask);
  const b = ro.raw.map(mask);
  const i = a.findIndex((f, k) => f !== b[k]);
  check(a.length === b.length && a.length > 5 && i < 0 && ro.status === rv.status && ro.stderr === rv.stderr,
    `${mode}: every frame byte for byte the vanilla worker's but for the clock readings (${a.length} frames)`,
    i >= 0 ? `frame ${i}: ${(b[i] || '').slice(0, 300)} vs ${(a[i] || '').slice(0, 300)}` : `status ${ro.status}, stderr ${ro.stderr}`);
}
summary();
