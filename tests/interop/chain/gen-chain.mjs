#!/usr/bin/env node
// gen-chain.mjs: write a chain node's slogfile with Agoric's real block loop.
//
//   node gen-chain.mjs OUT.slog [--blocks N] [--snapshot-interval N]
//
// @agoric/cosmic-swingset's test kit (makeCosmicSwingsetTestKit) runs
// launch-chain's makeLaunchChain without the Go side: runNextBlock sends
// begin-block, end-block, commit-block and after-commit-block in order, as
// agd would.  Every vat runs on an xsnap worker; each block carries one core
// eval (the high-priority queue, as a governance proposal would) that calls
// the scenario's vat (vats/work.js), and heap snapshots are taken every
// --snapshot-interval deliveries of a vat.  The slog goes through
// @agoric/telemetry's slog file sender (agd's SLOGFILE=).
//
// Exit codes: 0 ok, 1 the kernel or a block failed, 2 usage error.
import { register } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

const usage = msg => {
  if (msg) console.error(`gen-chain.mjs: ${msg}`);
  console.error('usage: node gen-chain.mjs OUT.slog [--blocks N] [--snapshot-interval N]');
  process.exit(2);
};

const opts = { out: undefined, blocks: 24, interval: 6 };
{
  const argv = process.argv.slice(2);
  const int = (name, v) => {
    if (v === undefined || !/^[1-9][0-9]*$/.test(v)) usage(`${name} needs a positive integer, got ${v}`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--blocks') opts.blocks = int(a, argv[(i += 1)]);
    else if (a === '--snapshot-interval') opts.interval = int(a, argv[(i += 1)]);
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (opts.out === undefined) opts.out = a;
    else usage(`unexpected argument ${a}`);
  }
  if (opts.out === undefined) usage('no output file');
}

register(pathToFileURL(path.join(here, 'builders-hook.mjs')));
await import('@endo/init');
const { E } = await import('@endo/far');
const { makeSlogSender } = await import('@agoric/telemetry/src/slog-file.js');
const { makeCosmicSwingsetTestKit } = await import('@agoric/cosmic-swingset/tools/test-kit.js');

const fail = (msg, err) => {
  console.error(`gen-chain.mjs: ${msg}`, err ?? '');
  process.exit(1);
};

fs.rmSync(opts.out, { force: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-chain-'));
const slogSender = await makeSlogSender({ env: { SLOGFILE: opts.out } });

// The mock chain's side of the bridge (what agd's Go side would answer).
// The kit keeps its action queues in chain storage: a plain key-value map
// here.  Other ports (bank, IBC, the swingset port's own requests) accept.
const storage = new Map();
const children = prefix => {
  const kids = new Set();
  for (const key of storage.keys()) {
    if (key.startsWith(prefix)) kids.add(key.slice(prefix.length).split('.')[0]);
  }
  return [...kids];
};
const receiveBridgeSend = (port, msg) => {
  if (port !== 'storage') return true;
  const { method, args } = msg;
  switch (method) {
    case 'get':
      return storage.has(args[0]) ? storage.get(args[0]) : null;
    case 'set':
    case 'setWithoutNotify':
    case 'append':
      for (const [key, value] of args) {
        if (value == null) storage.delete(key);
        else storage.set(key, value);
      }
      return true;
    case 'children':
      return children(`${args[0]}.`);
    case 'entries':
      return children(`${args[0]}.`).map(k => [k, storage.get(`${args[0]}.${k}`) ?? null]);
    case 'size':
      return children(`${args[0]}.`).length;
    case 'getStoreKey':
      return { storeName: 'swingset', storeSubkey: `fake:${args[0]}` };
    default:
      throw Error(`gen-chain.mjs: storage method ${method} not handled`);
  }
};

let kit;
try {
  kit = await makeCosmicSwingsetTestKit(receiveBridgeSend, {
    bundleDir: path.join(work, 'bundles'),
    debugName: 'gen-chain',
    defaultManagerType: 'xsnap',
    slogSender,
    // Chain time is the wall clock's second, as a live chain's would be
    // (the kit's default starts in 2020 and runs a second per millisecond).
    fixupInitMessage: msg => ({ ...msg, blockTime: Math.floor(Date.now() / 1000) }),
    configOverrides: {
      snapshotInitial: 2,
      snapshotInterval: opts.interval,
    },
    vats: {
      work: { sourceSpec: path.join(here, 'vats', 'work.js') },
    },
  });
} catch (err) {
  fail('the kit did not start', err);
}
const { runNextBlock, pushCoreEval, shutdown } = kit;

try {
  // The bootstrap block, then one core eval a block asking for a varying
  // amount of work (a deterministic function of the block's number).
  let { blockTime } = await runNextBlock();
  for (let b = 1; b <= opts.blocks; b += 1) {
    const rounds = 20 + ((b * 37) % 11) * 15;
    pushCoreEval(`async powers => { await E(powers.vats.work).work(${rounds}); }`);
    // A chain's blocks are at least a second apart (blockTime is whole
    // seconds): wait for the next one, so that the lag stays a lag.
    const next = (blockTime + 1) * 1000;
    if (Date.now() < next) await new Promise(ok => setTimeout(ok, next - Date.now()));
    blockTime = Math.floor(Date.now() / 1000);
    ({ blockTime } = await runNextBlock({ blockTime }));
  }
} catch (err) {
  fail('a block failed', err);
}
await shutdown();
await slogSender.forceFlush?.();
await slogSender.shutdown?.();
fs.rmSync(work, { recursive: true, force: true });

// The vats' bundles are most of the file (8 MB of 9.5 MB in create-vat's
// vatSourceBundle); nothing reads them.  Each becomes a short stand-in that
// keeps its hash, so the fixture stays small and every record stays valid.
const lines = fs.readFileSync(opts.out, 'utf8').split('\n');
const trimmed = lines.map(line => {
  if (!line.startsWith('{"type":"create-vat"')) return line;
  const rec = JSON.parse(line);
  const b = rec.vatSourceBundle;
  if (b && typeof b === 'object') {
    rec.vatSourceBundle = { moduleFormat: b.moduleFormat, trimmed: true, endoZipBase64Sha512: b.endoZipBase64Sha512 };
  }
  return JSON.stringify(rec);
});
fs.writeFileSync(opts.out, trimmed.join('\n'));
process.exit(0);
