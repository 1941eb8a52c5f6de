#!/usr/bin/env node
// gen-shapes.mjs: real SwingSet slogfiles of the shapes at xsnap's limits,
// written by Agoric's own kernel, workers and slog sender.
//
//   node gen-shapes.mjs OUTDIR [--spins N] [--keep-state DIR]
//
// Writes OUTDIR/full.slog (the whole run) and one small slogfile per shape,
// each holding only the records of one vat (plus each kernel start):
//
//   swingset-cap.slog      capper: live deliveries at the 502-stamp cap
//                          (250 syscalls + 1 console line; 250 syscalls;
//                          249 + 1 console line; 200 + 60 console lines)
//                          and their replays after the warehouse
//                          (maxVatsOnline) evicted and reloaded it
//   swingset-meter.slog    spinner: killed by its compute meter
//   swingset-upgrade.slog  phoenix: upgraded, a failed upgrade, GC
//                          deliveries, heavy console output, terminated
//   swingset-killed.slog   sleeper: the kernel SIGKILLed in the middle of
//                          one of its deliveries, then resumed on the same
//                          store
//
// The run is two kernel processes on one swing-store and one appended
// slogfile.  The first plays the steps below, queues sleeper's long
// delivery, commits, and kills itself with SIGKILL once the delivery's
// first syscalls are in the slogfile (the worker is then in a busy loop of
// --spins iterations).  The second resumes on the same store: the kernel
// makes that crank again from the last commit.  Then the shapes are checked
// on the whole file (each must be present, else exit 1) and cut out
// (cut-slog.mjs: one vat each, the last replay of each kernel run).
//
// Exit codes: 0 ok, 1 the kernel failed or a shape is missing, 2 usage.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeKernel } from './host.mjs';
import { cutSlog } from './cut-slog.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);
const CAP = 502; // MAX_TIMESTAMPS in xsnap-worker.c

const usage = msg => {
  if (msg) console.error(`gen-shapes.mjs: ${msg}`);
  console.error('usage: node gen-shapes.mjs OUTDIR [--spins N] [--keep-state DIR]');
  process.exit(2);
};

const opts = { out: undefined, state: undefined, phase: 0, spins: 40000000 };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const next = () => argv[(i += 1)] ?? usage(`${a} needs a value`);
    if (a === '--keep-state') opts.state = next();
    else if (a === '--phase') opts.phase = Number(next());
    else if (a === '--spins') {
      const v = next();
      if (!/^[0-9]+$/.test(v)) usage(`--spins needs a non-negative integer, got ${v}`);
      opts.spins = Number(v);
    } else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (opts.out === undefined) opts.out = a;
    else usage(`unexpected argument ${a}`);
  }
  if (opts.out === undefined) usage('no output directory');
}
const slogPath = path.join(opts.out, 'full.slog');
const vatsPath = path.join(opts.out, 'vats.json');

// ---- the records, read back (driver) ----

const methodOf = vd => {
  if (!Array.isArray(vd)) return '?';
  if (vd[0] !== 'message') return vd[0];
  const body = vd[2]?.methargs?.body;
  const m = typeof body === 'string' && /^#\["([^"]*)"/.exec(body);
  return m ? m[1] : '?';
};

// Every delivery of the file: its records, syscall and console counts,
// worker stamps, and whether a kernel start came before its result.
const deliveriesOf = records => {
  const open = new Map();
  const out = [];
  for (const r of records) {
    if (r.type === 'kernel-init-start') {
      for (const d of open.values()) {
        d.killed = true;
        out.push(d);
      }
      open.clear();
    }
    if (!r.vatID) continue;
    if (r.type === 'deliver') {
      const d = {
        vatID: r.vatID, dnum: r.deliveryNum, crank: r.crankNum,
        replay: r.replay === true, method: methodOf(r.vd), kind: r.vd?.[0],
        syscalls: 0, console: 0, stamps: undefined, dr: undefined,
      };
      open.set(r.vatID, d);
      continue;
    }
    const d = open.get(r.vatID);
    if (!d || r.deliveryNum !== d.dnum) continue;
    if (r.type === 'syscall') d.syscalls += 1;
    else if (r.type === 'console') d.console += 1;
    else if (r.type === 'deliver-result') {
      d.dr = r.dr;
      d.stamps = r.dr?.[2]?.timestamps?.length;
      out.push(d);
      open.delete(r.vatID);
    }
  }
  for (const d of open.values()) out.push({ ...d, unfinished: true });
  return out;
};

const readSlog = file =>
  fs.readFileSync(file, 'utf8').split('\n').filter(l => l).map(l => JSON.parse(l));

const driver = () => {
  const stateDir = opts.state ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gen-shapes-'));
  fs.rmSync(path.join(stateDir, 'swingstore'), { recursive: true, force: true });
  fs.mkdirSync(path.join(stateDir, 'swingstore'), { recursive: true });
  fs.mkdirSync(opts.out, { recursive: true });
  fs.rmSync(slogPath, { force: true });
  for (const phase of [1, 2]) {
    const r = spawnSync(
      process.execPath,
      [self, opts.out, '--keep-state', stateDir, '--phase', `${phase}`, '--spins', `${opts.spins}`],
      { stdio: 'inherit' },
    );
    const killed = phase === 1 && r.signal === 'SIGKILL';
    if (!killed && r.status !== 0) {
      console.error(`gen-shapes.mjs: kernel process ${phase} failed (status ${r.status}, signal ${r.signal})`);
      process.exit(1);
    }
    if (phase === 1 && !killed) {
      console.error('gen-shapes.mjs: the first kernel process was not killed mid-delivery');
      process.exit(1);
    }
  }
  if (!opts.state) fs.rmSync(stateDir, { recursive: true, force: true });

  const records = readSlog(slogPath);
  // Static vats' create-vat records have no name: the kernel said them.
  const names = new Map(Object.entries(JSON.parse(fs.readFileSync(vatsPath, 'utf8'))));
  for (const r of records) if (r.type === 'create-vat' && r.name) names.set(r.name, r.vatID);
  fs.rmSync(vatsPath);
  const ds = deliveriesOf(records);
  const of = name => ds.filter(d => d.vatID === names.get(name));
  const missing = [];
  const need = (what, ok) => {
    console.log(`${ok ? 'ok     ' : 'MISSING'} ${what}`);
    if (!ok) missing.push(what);
  };
  const cap = of('capper');
  const live = (s, c) => cap.some(d => !d.replay && d.syscalls === s && d.console === c && d.stamps === CAP);
  need('live: 250 syscalls + 1 console line, 502 stamps', live(250, 1));
  need('live: 250 syscalls, 502 stamps (complete)', live(250, 0));
  need('live: 249 syscalls + 1 console line, 502 stamps (complete)', live(249, 1));
  need('live: 200 syscalls + 60 console lines, 502 stamps', live(200, 60));
  need('replay of 250 syscalls + 1 console line at 502 stamps',
    cap.some(d => d.replay && d.syscalls === 250 && d.stamps === CAP));
  need('replay of 200 syscalls + 60 console lines at 502 stamps',
    cap.some(d => d.replay && d.syscalls === 200 && d.stamps === CAP));
  need('meter kill: ["error","Compute meter exceeded",null]',
    of('spinner').some(d => d.dr?.[0] === 'error' && d.dr[1] === 'Compute meter exceeded' && d.dr[2] === null));
  const ph = of('phoenix');
  need('phoenix: a failed upgrade (startVat with an error result)',
    ph.some(d => d.kind === 'startVat' && d.dr?.[0] === 'error'));
  // 0.33's upgrade: bringOutYourDead to the old incarnation, startVat to
  // the new one (no stopVat any more).
  need('phoenix: a successful upgrade (a second startVat, ok)',
    ph.filter(d => d.kind === 'startVat' && !d.replay && d.dr?.[0] === 'ok').length >= 2);
  need('phoenix: dropExports and retireExports',
    ph.some(d => d.kind === 'dropExports') && ph.some(d => d.kind === 'retireExports'));
  need('phoenix: bringOutYourDead', ph.some(d => d.kind === 'bringOutYourDead'));
  need('phoenix: over 250 console lines in a delivery', ph.some(d => !d.replay && d.console > 250));
  need('phoenix: terminated', records.some(r => r.type === 'terminate' && r.vatID === names.get('phoenix')));
  const sl = of('sleeper');
  need('sleeper: a delivery cut by the kernel\'s SIGKILL',
    sl.some(d => d.killed && d.method === 'work'));
  need('sleeper: the same delivery made again after the restart',
    sl.some(d => !d.killed && !d.replay && d.method === 'work' && d.dr));

  for (const [file, vat] of [['swingset-cap.slog', 'capper'], ['swingset-meter.slog', 'spinner'],
    ['swingset-upgrade.slog', 'phoenix'], ['swingset-killed.slog', 'sleeper']]) {
    const id = names.get(vat);
    const lines = cutSlog(fs.readFileSync(slogPath, 'utf8'), { vats: new Set([id]), lastReplay: true });
    fs.writeFileSync(path.join(opts.out, file), `${lines.join('\n')}\n`);
    console.log(`${file}: ${vat} (${id}), ${lines.length} records`);
  }
  if (missing.length) {
    console.error(`gen-shapes.mjs: missing: ${missing.join('; ')}`);
    process.exit(1);
  }
  process.exit(0);
};

if (opts.phase === 0) driver();

// ---- a kernel process ----
await import('@endo/init');
const { initializeSwingset, makeSwingsetController } = await import('@agoric/swingset-vat');
const { openSwingStore } = await import('@agoric/swing-store');
const { makeSlogSender } = await import('@agoric/telemetry/src/slog-file.js');

const fail = msg => {
  console.error(`gen-shapes.mjs: phase ${opts.phase}: ${msg}`);
  process.exit(1);
};
const vat = name => path.join(here, 'shapes', name);
const config = {
  bootstrap: 'bootstrap',
  defaultManagerType: 'xsnap',
  pinBootstrapRoot: true,
  // No heap snapshots: a reloaded worker replays its whole transcript,
  // the deliveries at the cap included.
  snapshotInitial: 100000,
  snapshotInterval: 100000,
  defaultReapInterval: 3,
  vats: {
    bootstrap: { sourceSpec: vat('bootstrap.js') },
    capper: { sourceSpec: vat('capper.js') },
    sleeper: { sourceSpec: vat('sleeper.js') },
  },
  bundles: {
    spinner: { sourceSpec: vat('spinner.js') },
    phoenix: { sourceSpec: vat('phoenix.js') },
  },
};

// Agoric's slog file sender, watched: the driver's calibration counts a
// delivery's syscalls, and the first process dies in sleeper's delivery.
const inner = await makeSlogSender({ env: { SLOGFILE: slogPath } });
const vatIDs = new Map();
// The live delivery in progress per vat, and capper's last burn.
const current = new Map();
let lastBurn = { syscalls: -1, console: -1 };
let killArmed = false;
const watch = obj => {
  if (obj.type === 'create-vat' && obj.name) vatIDs.set(obj.name, obj.vatID);
  if (!obj.vatID || obj.replay) return;
  if (obj.type === 'deliver') {
    current.set(obj.vatID, { dnum: obj.deliveryNum, method: methodOf(obj.vd), syscalls: 0, console: 0 });
    return;
  }
  const d = current.get(obj.vatID);
  if (!d || obj.deliveryNum !== d.dnum) return;
  if (obj.type === 'syscall') d.syscalls += 1;
  if (obj.type === 'console') d.console += 1;
  if (obj.type === 'deliver-result' && d.method === 'burn' && obj.vatID === vatIDs.get('capper')) {
    lastBurn = d;
  }
  // sleeper.work makes 6 syscalls, then spins: flush what the sender
  // holds and die with the delivery in the worker's hands.
  if (killArmed && obj.type === 'syscall-result' && d.method === 'work' &&
      obj.vatID === vatIDs.get('sleeper') && d.syscalls === 6) {
    killArmed = false;
    inner.forceFlush().then(() => process.kill(process.pid, 'SIGKILL'));
  }
};
const slogSender = Object.assign((obj, ...rest) => {
  watch(obj);
  return inner(obj, ...rest);
}, { forceFlush: inner.forceFlush, shutdown: inner.shutdown, usesJsonObject: inner.usesJsonObject });

const { kernelStorage, hostStorage } = openSwingStore(path.join(opts.state, 'swingstore'));
// Two workers online at most: every step below evicts and reloads some.
const runtimeOptions = { slogSender, warehousePolicy: { maxVatsOnline: 2 } };

let controller;
const step = async (name, ...args) => {
  const kpid = controller.queueToVatRoot('bootstrap', 'step', [name, ...args]);
  await controller.run();
  hostStorage.commit();
  const status = controller.kpStatus(kpid);
  if (status !== 'fulfilled') fail(`step ${name} ${status}: ${JSON.stringify(controller.kpResolution(kpid))}`);
  return controller.kpResolution(kpid);
};
// capper.burn(gets, lines) makes `gets` + overhead syscalls: the overhead
// (the result's resolve, the store's own reads) is measured, not assumed.
let overhead;
const calibrate = async () => {
  for (const gets of [5, 5, 20]) {
    // eslint-disable-next-line no-await-in-loop
    await step('burn', gets, 0);
    overhead = lastBurn.syscalls - gets;
  }
};
const burn = async (syscalls, lines) => {
  await step('burn', syscalls - overhead, lines);
  if (lastBurn.syscalls !== syscalls || lastBurn.console !== lines) {
    fail(`burn: wanted ${syscalls} syscalls and ${lines} console lines, got ${lastBurn.syscalls} and ${lastBurn.console}`);
  }
};

try {
  if (opts.phase === 1) {
    const bootKpid = await initializeSwingset(config, [], kernelStorage, {}, runtimeOptions);
    hostStorage.commit();
    controller = await makeSwingsetController(kernelStorage, {}, runtimeOptions);
    const ids = {};
    for (const name of ['bootstrap', 'capper', 'sleeper']) {
      ids[name] = controller.vatNameToID(name);
      vatIDs.set(name, ids[name]);
    }
    fs.writeFileSync(vatsPath, JSON.stringify(ids));
    await controller.run();
    hostStorage.commit();
    if (bootKpid && controller.kpStatus(bootKpid) !== 'fulfilled') {
      fail(`bootstrap ${controller.kpStatus(bootKpid)}: ${JSON.stringify(controller.kpResolution(bootKpid))}`);
    }
    await calibrate();
    await burn(20, 0);
    await burn(250, 1); // 251 calls: 504 stamps, 502 kept
    await burn(30, 0);
    await burn(250, 0); // 502 stamps, complete
    await burn(249, 1); // 502 stamps, complete, a console line among them
    await burn(200, 60); // 522 stamps, 502 kept
    for (let i = 0; i < 3; i += 1) {
      // eslint-disable-next-line no-await-in-loop
      await burn(40, 0);
    }
    await step('touchAll'); // capper evicted, then reloaded: replays
    await burn(40, 0);
    await step('upgrade', 2);
    await step('upgrade', 'broken');
    await step('things', 5);
    await step('add', 'a');
    await step('chatter', 300);
    await step('things', 5);
    await step('chatter', 40);
    await step('spin');
    await step('touchAll');
    // The long delivery: queued and committed, so the next process makes
    // it again; this one dies in it.
    killArmed = true;
    controller.queueToVatRoot('bootstrap', 'step', ['work', opts.spins]);
    hostStorage.commit();
    await controller.run();
    fail('sleeper.work finished: the process was not killed in it');
  } else {
    controller = await makeSwingsetController(kernelStorage, {}, runtimeOptions);
    for (const name of ['bootstrap', 'capper', 'sleeper']) vatIDs.set(name, controller.vatNameToID(name));
    await controller.run(); // the crank the first process died in
    hostStorage.commit();
    await step('touchAll');
    await calibrate();
    await burn(40, 0);
    await step('add', 'b');
    await step('quit');
  }
  await closeKernel({ controller, hostStorage, slogSender });
} catch (err) {
  fail(err && err.stack ? err.stack : String(err));
}
process.exit(0);
