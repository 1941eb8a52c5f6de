#!/usr/bin/env node
// cut-slog.mjs: a small test slogfile cut out of a real one.
//
//   node cut-slog.mjs IN.slog OUT.slog --vat vN [--vat vM ...] [--last-replay]
//
// Keeps every kernel-init-start (where a kernel run begins), and of the
// named vats the records the report reads or that give them context:
// deliver, syscall, syscall-result, console, deliver-result, start-replay,
// finish-replay, terminate, heap-snapshot-load/-save (create-vat is left
// out: it holds the vat's whole bundle).  --last-replay keeps, of a vat's
// replays, only the last of each kernel run (with no heap snapshots each
// reload replays the whole transcript, so the last one holds the others).
// Lines are copied byte for byte.  Node only (no npm).  Exit codes: 0 ok,
// 1 a line is not JSON, 2 usage or I/O error.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const KEEP = new Set([
  'kernel-init-start', 'deliver', 'syscall', 'syscall-result', 'console',
  'deliver-result', 'start-replay', 'finish-replay', 'terminate',
  'heap-snapshot-load', 'heap-snapshot-save',
]);

/**
 * The lines of `text` (a slogfile) to keep.
 *
 * @param {string} text
 * @param {{ vats: Set<string>, lastReplay?: boolean }} opts
 * @returns {string[]}
 */
export const cutSlog = (text, { vats, lastReplay = false }) => {
  const all = text.split('\n').filter(l => l).map((l, i) => {
    try {
      return [l, JSON.parse(l)];
    } catch (err) {
      throw Error(`line ${i + 1}: not JSON: ${err.message}`);
    }
  });
  // The last start-replay of each vat in each kernel run.
  const keepReplay = new Set();
  const last = new Map();
  const endRun = () => {
    for (const i of last.values()) keepReplay.add(i);
    last.clear();
  };
  all.forEach(([, r], i) => {
    if (r.type === 'kernel-init-start') endRun();
    if (r.type === 'start-replay' && vats.has(r.vatID)) last.set(r.vatID, i);
  });
  endRun();
  const dropping = new Set();
  const out = [];
  all.forEach(([l, r], i) => {
    if (r.type === 'kernel-init-start') {
      out.push(l);
      return;
    }
    if (!KEEP.has(r.type) || !vats.has(r.vatID)) return;
    if (r.type === 'start-replay' && lastReplay && !keepReplay.has(i)) dropping.add(r.vatID);
    if (!dropping.has(r.vatID)) out.push(l);
    if (r.type === 'finish-replay') dropping.delete(r.vatID);
  });
  return out;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const usage = msg => {
    console.error(`cut-slog.mjs: ${msg}`);
    console.error('usage: node cut-slog.mjs IN.slog OUT.slog --vat vN [--vat vM ...] [--last-replay]');
    process.exit(2);
  };
  const argv = process.argv.slice(2);
  const files = [];
  const vats = new Set();
  let lastReplay = false;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--vat') vats.add(argv[(i += 1)] ?? usage('--vat needs a vat ID'));
    else if (argv[i] === '--last-replay') lastReplay = true;
    else if (argv[i].startsWith('-')) usage(`unknown option ${argv[i]}`);
    else files.push(argv[i]);
  }
  if (files.length !== 2) usage('needs IN and OUT');
  if (!vats.size) usage('needs at least one --vat');
  let text;
  try {
    text = fs.readFileSync(files[0], 'utf8');
  } catch (err) {
    usage(`${files[0]}: ${err.message}`);
  }
  let lines;
  try {
    lines = cutSlog(text, { vats, lastReplay });
  } catch (err) {
    console.error(`cut-slog.mjs: ${files[0]}: ${err.message}`);
    process.exit(1);
  }
  try {
    fs.writeFileSync(files[1], `${lines.join('\n')}\n`);
  } catch (err) {
    usage(`${files[1]}: ${err.message}`);
  }
  console.log(`${files[1]}: ${lines.length} records`);
}
