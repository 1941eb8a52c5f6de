#!/usr/bin/env node
// gen-slog.mjs: write a real SwingSet slogfile with Agoric's own kernel.
//
//   node gen-slog.mjs OUT.slog [--rounds N] [--upgrade-at R] [--keep-state DIR] [--blocks]
//                     [--spin N]
//
// The scenario (vats/*.js) runs on xsnap workers under @agoric/swingset-vat
// with an on-disk swing-store, and the slog goes through @agoric/telemetry's
// own slog file sender.  It runs in two node processes on the same
// swing-store and the same (appended) slogfile: the second is the
// "controller restart", in which the workers are reloaded from their heap
// snapshots and replay their transcripts, and SwingSet's monotime (seconds
// since process start) starts again near 0.  Rounds are split between the
// two processes; --rounds scales the file (about 1 round per 20 KB once
// the create-vat records are written).
//
// --blocks makes each round a block as a chain node's host does it:
// the records cosmic-swingset's launch-chain writes through the
// controller (begin-block, end-block-start/-finish around the round's
// runs, commit-block-start/-finish around the swing-store's commit), so
// that `ipcstamp blocks` reads the run.  --keep-state DIR puts the
// swing-store in DIR/swingstore (a slow file system, for a test).
// --spin N ends each round with a delivery to carol that only computes (N
// iterations of a loop): a worker on its CPU.
// --gate DIR holds each round until the test says (tests/os/
// always-swingset.test): before its begin-block, round n writes
// DIR/ready-n and waits for DIR/go-n.
//
// Exit codes: 0 ok, 1 the kernel or a round failed, 2 usage error.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeKernel } from './host.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);

const usage = msg => {
  if (msg) console.error(`gen-slog.mjs: ${msg}`);
  console.error(
    'usage: node gen-slog.mjs OUT.slog [--rounds N] [--upgrade-at R] [--keep-state DIR] [--blocks] [--spin N] [--gate DIR]',
  );
  process.exit(2);
};

const parseArgs = argv => {
  const opts = { rounds: 8, upgradeAt: 3, out: undefined, state: undefined, phase: 0, blocks: false, spin: 0, gate: undefined };
  const int = (name, v) => {
    if (v === undefined || !/^[0-9]+$/.test(v)) usage(`${name} needs a non-negative integer, got ${v}`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--rounds') opts.rounds = int(a, argv[(i += 1)]);
    else if (a === '--upgrade-at') opts.upgradeAt = int(a, argv[(i += 1)]);
    else if (a === '--keep-state') opts.state = argv[(i += 1)] ?? usage('--keep-state needs a directory');
    else if (a === '--phase') opts.phase = int(a, argv[(i += 1)]);
    else if (a === '--blocks') opts.blocks = true;
    else if (a === '--spin') opts.spin = int(a, argv[(i += 1)]);
    else if (a === '--gate') opts.gate = argv[(i += 1)] ?? usage('--gate needs a directory');
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (opts.out === undefined) opts.out = a;
    else usage(`unexpected argument ${a}`);
  }
  if (opts.out === undefined) usage('no output file');
  if (opts.rounds < 2) usage('--rounds must be at least 2 (one per process)');
  return opts;
};

const opts = parseArgs(process.argv.slice(2));
// First process: rounds 1..half, second: half+1..rounds.
const half = Math.ceil(opts.rounds / 2);

if (opts.phase === 0) {
  // Driver: a fresh swing-store and slogfile, then the two kernel processes.
  const stateDir = opts.state ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gen-slog-'));
  fs.rmSync(path.join(stateDir, 'swingstore'), { recursive: true, force: true });
  fs.mkdirSync(path.join(stateDir, 'swingstore'), { recursive: true });
  fs.rmSync(opts.out, { force: true });
  for (const phase of [1, 2]) {
    const r = spawnSync(
      process.execPath,
      [self, opts.out, '--rounds', `${opts.rounds}`, '--upgrade-at', `${opts.upgradeAt}`,
        '--keep-state', stateDir, '--phase', `${phase}`, ...(opts.blocks ? ['--blocks'] : []),
        '--spin', `${opts.spin}`, ...(opts.gate ? ['--gate', opts.gate] : [])],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) {
      console.error(`gen-slog.mjs: kernel process ${phase} failed (status ${r.status}, signal ${r.signal})`);
      process.exit(1);
    }
  }
  if (!opts.state) fs.rmSync(stateDir, { recursive: true, force: true });
  process.exit(0);
}

// A kernel process.  SES must be locked down before the kernel loads.
await import('@endo/init');
const {
  initializeSwingset,
  makeSwingsetController,
  buildTimer,
  buildMailbox,
  buildMailboxStateMap,
} = await import('@agoric/swingset-vat');
const { openSwingStore } = await import('@agoric/swing-store');
const { makeSlogSender } = await import('@agoric/telemetry/src/slog-file.js');

const vat = name => path.join(here, 'vats', name);
const timer = buildTimer();
const mailbox = buildMailbox(buildMailboxStateMap());
const config = {
  bootstrap: 'bootstrap',
  defaultManagerType: 'xsnap',
  // The host queues round(n) to bootstrap's root long after bootstrap()
  // returned: pinned, the kernel never drops it.
  pinBootstrapRoot: true,
  // Small, so that both processes take heap snapshots and the second one
  // reloads from them and replays only the tail of each transcript.
  snapshotInitial: 2,
  snapshotInterval: 7,
  vats: {
    bootstrap: { sourceSpec: vat('bootstrap.js') },
    alice: { sourceSpec: vat('alice.js') },
    bob: { sourceSpec: vat('bob.js'), creationOptions: { enablePipelining: true } },
    carol: { sourceSpec: vat('carol.js') },
  },
  bundles: { ledger: { sourceSpec: vat('ledger.js') } },
  devices: {
    timer: { sourceSpec: timer.srcPath },
    mailbox: { sourceSpec: mailbox.srcPath },
  },
};
const deviceEndowments = {
  timer: { ...timer.endowments },
  mailbox: { ...mailbox.endowments },
};

const slogSender = await makeSlogSender({ env: { SLOGFILE: opts.out } });
const { kernelStorage, hostStorage } = openSwingStore(path.join(opts.state, 'swingstore'));
// Lazy vat loading plus a small warehouse keeps workers being evicted and
// reloaded (more replays) without depending on anything but the scenario.
const runtimeOptions = { slogSender, warehousePolicy: { maxVatsOnline: 4 } };

const fail = msg => {
  console.error(`gen-slog.mjs: phase ${opts.phase}: ${msg}`);
  process.exit(1);
};

let controller;
try {
  if (opts.phase === 1) {
    const bootKpid = await initializeSwingset(config, [], kernelStorage, {}, runtimeOptions);
    hostStorage.commit();
    controller = await makeSwingsetController(kernelStorage, deviceEndowments, runtimeOptions);
    await controller.run();
    hostStorage.commit();
    if (bootKpid && controller.kpStatus(bootKpid) !== 'fulfilled') {
      fail(`bootstrap ${controller.kpStatus(bootKpid)}: ${JSON.stringify(controller.kpResolution(bootKpid))}`);
    }
  } else {
    controller = await makeSwingsetController(kernelStorage, deviceEndowments, runtimeOptions);
  }

  const [first, last] = opts.phase === 1 ? [1, half] : [half + 1, opts.rounds];
  // A block's record, as launch-chain writes it (--blocks); blockTime is
  // the chain's (whole seconds): here the wall clock's at begin-block.
  let blockTime = 0;
  const block = (type, n) => {
    if (opts.blocks) {
      controller.writeSlogObject({ type: `cosmic-swingset-${type}`, blockHeight: n, blockTime });
    }
  };
  const gate = async n => {
    if (!opts.gate) return;
    fs.writeFileSync(path.join(opts.gate, `ready-${n}`), '');
    while (!fs.existsSync(path.join(opts.gate, `go-${n}`))) {
      await new Promise(resolve => setTimeout(resolve, 20));
    }
  };
  for (let n = first; n <= last; n += 1) {
    await gate(n);
    blockTime = Math.floor(Date.now() / 1000);
    block('begin-block', n);
    block('end-block-start', n);
    const kpid = controller.queueToVatRoot('bootstrap', 'round', [n, opts.upgradeAt]);
    await controller.run();
    // Fire the round's timer wakeup: the device polls a host-chosen time,
    // never the wall clock.
    if (timer.poll(BigInt(n) * 10n)) await controller.run();
    if (opts.spin) {
      controller.queueToVatRoot('carol', 'spin', [opts.spin]);
      await controller.run();
    }
    block('end-block-finish', n);
    block('commit-block-start', n);
    await hostStorage.commit();
    block('commit-block-finish', n);
    const status = controller.kpStatus(kpid);
    if (status !== 'fulfilled') {
      fail(`round ${n} ${status}: ${JSON.stringify(controller.kpResolution(kpid))}`);
    }
  }
  await closeKernel({ controller, hostStorage, slogSender });
} catch (err) {
  fail(err && err.stack ? err.stack : String(err));
}
process.exit(0);
