#!/usr/bin/env node
// cut-os.mjs: one block of a recorded run (a slogfile written by
// `gen-slog.mjs --blocks` and the recording `ipcstamp record` made of it),
// cut small enough to be a fixture.
//
//   node cut-os.mjs IN.slog IN.os HEIGHT OUT.slog OUT.os [--first N]
//
// The slogfile keeps the last kernel-init-start before the block and
// every line from the block's cosmic-swingset-begin-block to its
// commit-block-finish, byte for byte (with --first N, only up to the
// block's N-th deliver-result: a few deliveries, no whole block).  The recording keeps its first line
// (its start moved to the window's, the wall clock with it, so that the
// two clocks' relation is unchanged), every exec, fork and exit, and the
// frames and waits that lie wholly inside the block's window on the
// recording's clock (the block's records' wall-clock `time`, through the
// recording's wall clock, widened by 100 ms each side); its end line says
// the window's end.  What the window holds is what `ipcstamp record`
// wrote, unchanged.  Node only (no npm).  Exit codes: 0 ok, 1 the block or
// the recording's first line is missing, 2 usage or I/O error.
import fs from 'node:fs';

const [inSlog, inOs, heightArg, outSlog, outOs, firstOpt, firstArg] = process.argv.slice(2);
if (!outOs || !/^[0-9]+$/.test(heightArg) ||
    (firstOpt !== undefined && (firstOpt !== '--first' || !/^[1-9][0-9]*$/.test(firstArg ?? '')))) {
  console.error('usage: node cut-os.mjs IN.slog IN.os HEIGHT OUT.slog OUT.os [--first N]');
  process.exit(2);
}
const height = Number(heightArg);
const fail = msg => {
  console.error(`cut-os.mjs: ${msg}`);
  process.exit(1);
};

let slog;
let osLines;
try {
  slog = fs.readFileSync(inSlog, 'utf8').split('\n').filter(l => l);
  osLines = fs.readFileSync(inOs, 'utf8').split('\n').filter(l => l);
} catch (err) {
  console.error(`cut-os.mjs: ${err.message}`);
  process.exit(2);
}

// The block's lines, and the kernel run it is in.
const recs = slog.map(l => JSON.parse(l));
const first = recs.findIndex(
  r => r.type === 'cosmic-swingset-begin-block' && r.blockHeight === height,
);
let results = 0;
const last = recs.findIndex((r, i) => {
  if (i <= first) return false;
  if (firstOpt) {
    results += r.type === 'deliver-result' ? 1 : 0;
    return results === Number(firstArg);
  }
  return r.type === 'cosmic-swingset-commit-block-finish' && r.blockHeight === height;
});
if (first < 0 || last < 0) fail(`no block ${height} (begin-block to commit-block-finish)`);
let init = -1;
for (let i = first; i >= 0 && init < 0; i -= 1) {
  if (recs[i].type === 'kernel-init-start') init = i;
}
const kept = [...(init >= 0 ? [slog[init]] : []), ...slog.slice(first, last + 1)];

// The window on the recording's clock.
const head = JSON.parse(osLines[0]);
if (head.ipcstamp_os === undefined || head.start_wall_ns === undefined) {
  fail('the recording has no first line with start_wall_ns');
}
const wallMinusMono = BigInt(head.start_wall_ns) - BigInt(head.start);
const margin = 100000000n;
const mono = seconds => BigInt(Math.round(seconds * 1e6)) * 1000n - wallMinusMono;
const from = mono(recs[first].time) - margin;
const to = mono(recs[last].time) + margin;

// Times are below 2^53 ns only for 104 days of uptime: read them as text.
const num = (line, key) => {
  const m = line.match(new RegExp(`"${key}":(-?[0-9]+)`));
  return m ? BigInt(m[1]) : undefined;
};
const inside = line => {
  if (line.startsWith('{"t":"frame"')) return num(line, 'enter') >= from && num(line, 'last_ret') <= to;
  if (line.startsWith('{"t":"wait"')) return num(line, 'off') >= from && num(line, 'on') <= to;
  return /^\{"t":"(exec|fork|exit|lost)"/.test(line);
};
const out = [];
const first0 = osLines[0]
  .replace(/"start":[0-9]+/, `"start":${from}`)
  .replace(/"start_wall_ns":[0-9]+/, `"start_wall_ns":${from + wallMinusMono}`);
out.push(first0);
for (const line of osLines.slice(1)) {
  if (inside(line)) out.push(line);
}
const end = osLines.find(l => l.startsWith('{"t":"end"'));
const lost = (end && num(end, 'lost')) || 0n;
out.push(`{"t":"end","ns":${to},"events":${out.length - 1},"lost":${lost},"status":0}`);
try {
  fs.writeFileSync(outSlog, `${kept.join('\n')}\n`);
  fs.writeFileSync(outOs, `${out.join('\n')}\n`);
} catch (err) {
  console.error(`cut-os.mjs: ${err.message}`);
  process.exit(2);
}
