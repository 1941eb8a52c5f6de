#!/usr/bin/env node
// xs-parent.mjs: Agoric's own xsnap parent (npm @agoric/xsnap) drives one
// worker binary through N deliveries of 4 upcalls each; for the cost of
// ipcstamp-worker-xs against the vanilla build (BENCHMARKS.md, run under
// tests/bench/ab so that the two alternate).
//
//   node xs-parent.mjs NODE_MODULES WORKER N
//
// NODE_MODULES has @endo/init and @agoric/xsnap (tests/interop's); WORKER is
// started in place of the package's own binary (xsnap() takes a spawn).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [nm, worker, nArg] = process.argv.slice(2);
const n = Number(nArg);
if (!nm || !worker || !Number.isInteger(n) || n < 1) {
  console.error('usage: node xs-parent.mjs NODE_MODULES WORKER N');
  process.exit(2);
}
const load = p => import(pathToFileURL(path.join(nm, p)).href);
await load('@endo/init/index.js');
const { xsnap } = await load('@agoric/xsnap/src/xsnap.js');

const reply = new TextEncoder().encode('"v"');
const w = await xsnap({
  os: os.type(),
  fs,
  spawn: (_bin, args, opts) => spawn(worker, args, opts),
  name: 'bench',
  stderr: 'inherit',
  stdout: 'ignore',
  handleCommand: async () => reply,
});
await w.evaluate(`
const req = new TextEncoder().encode('["vatstoreGet","k"]');
globalThis.handleCommand = function (buf) {
  for (let i = 0; i < 4; i += 1) issueCommand(req.buffer);
  return new ArrayBuffer(0);
};`);
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i += 1) await w.issueStringCommand('d');
const t1 = process.hrtime.bigint();
await w.close();
console.log(`${n} deliveries in ${(Number(t1 - t0) / 1e9).toFixed(3)} s`);
