#!/usr/bin/env node
// gen-flight.mjs: write a real flight-recorder.bin with Agoric's own flight
// recorder, and the records a reader must return from it.
//
//   node gen-flight.mjs IN.slog[.gz] OUT.bin --size BYTES
//        [--expect OUT.jsonl] [--damage end|len]
//
// Every record of IN goes, as a parsed object, to the slog sender of
// @agoric/telemetry/src/flight-recorder.js (makeSimpleCircularBuffer +
// makeSlogSenderFromBuffer, what agd's default slog sender uses), in a new
// file of BYTES bytes in all (Agoric's circularBufferSize: a 32-byte header
// and an arena of BYTES - 32).  Then the file is read back with Agoric's own
// reader (readCircBuf, as its `frcat` does) and --expect gets the records it
// returns, oldest first, one JSON text per line without the leading "\n".
// That list is checked independently: it must be exactly the longest
// suffix of what was fed (as the sender serializes it) that fits the arena
// when each record takes 8 + 1 + its length bytes.
//
// --damage then breaks the file on purpose, after the check: `end` sets the
// header's circular end past the arena; `len` sets the length of the oldest
// record so that it runs past the arena end.
//
// Prints a JSON summary (records fed, kept, too big, arena, start, end,
// wraps).  Exit 0 ok, 1 the check failed, 2 usage or I/O error.
import '@endo/init';

import fs from 'node:fs';
import zlib from 'node:zlib';
import {
  makeSimpleCircularBuffer,
  makeSlogSenderFromBuffer,
} from '@agoric/telemetry/src/flight-recorder.js';
import { serializeSlogObj } from '@agoric/telemetry/src/serialize-slog-obj.js';

const HEADER = 32;
const usage = msg => {
  if (msg) console.error(`gen-flight.mjs: ${msg}`);
  console.error(
    'usage: node gen-flight.mjs IN.slog[.gz] OUT.bin --size BYTES [--expect OUT.jsonl] [--damage end|len]',
  );
  process.exit(2);
};

const args = process.argv.slice(2);
let size;
let expectFile;
let damage;
const pos = [];
for (let i = 0; i < args.length; i += 1) {
  const a = args[i];
  if (a === '--size') {
    const v = args[(i += 1)];
    if (!/^[0-9]+$/.test(v ?? '')) usage(`--size needs a byte count, got ${v}`);
    size = Number(v);
  } else if (a === '--expect') expectFile = args[(i += 1)] ?? usage('--expect needs a file');
  else if (a === '--damage') {
    damage = args[(i += 1)];
    if (damage !== 'end' && damage !== 'len') usage(`--damage is end or len, got ${damage}`);
  } else if (a.startsWith('-')) usage(`unknown option ${a}`);
  else pos.push(a);
}
if (pos.length !== 2) usage('need IN.slog and OUT.bin');
if (size === undefined) usage('--size is required');
// Agoric's recorder takes a size of 0 to mean "the default, 100 MiB"; any
// size must leave room for the header and at least one small record.
if (size < HEADER + 64) usage(`--size ${size} leaves no arena (minimum ${HEADER + 64})`);
const [input, output] = pos;

let text;
try {
  const raw = fs.readFileSync(input);
  text = (input.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
} catch (err) {
  console.error(`gen-flight.mjs: ${input}: ${err.message}`);
  process.exit(2);
}
const lines = text.split('\n');
if (lines[lines.length - 1] === '') lines.pop();
const objs = lines.map((l, i) => {
  try {
    return harden(JSON.parse(l));
  } catch (err) {
    console.error(`gen-flight.mjs: ${input}:${i + 1}: not JSON: ${err.message}`);
    return process.exit(2);
  }
});

// A new file: Agoric's recorder keeps the header of an existing one.
fs.rmSync(output, { force: true });
const circBuf = await makeSimpleCircularBuffer({
  circularBufferSize: size,
  circularBufferFilename: output,
});
const sender = makeSlogSenderFromBuffer(circBuf);
for (const obj of objs) sender(obj);
await sender.forceFlush();
await sender.shutdown();

// Agoric's reader, on the file as written (the header from disk).
const readBack = async file => {
  const { readCircBuf, fileHandle } = await makeSimpleCircularBuffer({
    circularBufferFilename: file,
    circularBufferSize: 0,
  });
  const out = [];
  let offset = 0;
  for (;;) {
    const lenBuf = new Uint8Array(8);
    const { done } = await readCircBuf(lenBuf, offset);
    if (done) break;
    offset += 8;
    const len = Number(new DataView(lenBuf.buffer).getBigUint64(0));
    const { done: done2, value } = await readCircBuf(new Uint8Array(len), offset);
    if (done2) break;
    offset += len;
    const s = new TextDecoder().decode(value);
    out.push(s.startsWith('\n') ? s.slice(1) : s);
  }
  await fileHandle.close();
  return out;
};
const got = await readBack(output);

// The independent derivation: what the sender wrote, record by record.
const arena = size - HEADER;
const enc = new TextEncoder();
const written = objs.map(obj => {
  let data = `\n${serializeSlogObj(obj)}`;
  if (8 + enc.encode(data).length > arena) {
    // Agoric's recorder replaces a record that cannot fit by this one.
    data = JSON.stringify({
      type: 'slog-record-too-big',
      snippet: new TextDecoder().decode(enc.encode(data).subarray(0, 20)),
    });
  }
  return data;
});
let keep = 0;
let used = 0;
for (let i = written.length - 1; i >= 0; i -= 1) {
  const n = 8 + enc.encode(written[i]).length;
  if (used + n > arena) break;
  used += n;
  keep += 1;
}
const want = written.slice(written.length - keep).map(s => (s.startsWith('\n') ? s.slice(1) : s));
let wraps = 0;
let endPos = 0;
for (const s of written) {
  endPos += 8 + enc.encode(s).length;
  while (endPos >= arena) {
    endPos -= arena;
    wraps += 1;
  }
}

const header = Buffer.alloc(HEADER);
const fd = fs.openSync(output, 'r+');
fs.readSync(fd, header, 0, HEADER, 0);
const summary = {
  fed: objs.length,
  kept: got.length,
  tooBig: written.filter(s => s.startsWith('{"type":"slog-record-too-big"')).length,
  fileSize: fs.fstatSync(fd).size,
  arena: Number(header.readBigUInt64BE(8)),
  start: Number(header.readBigUInt64BE(16)),
  end: Number(header.readBigUInt64BE(24)),
  wraps,
  damage: damage ?? null,
};
let failed = false;
if (summary.arena !== arena || summary.fileSize !== size) {
  console.error(`gen-flight.mjs: arena ${summary.arena} / file ${summary.fileSize}, expected ${arena} / ${size}`);
  failed = true;
}
if (summary.end !== endPos) {
  console.error(`gen-flight.mjs: header end ${summary.end}, derived ${endPos}`);
  failed = true;
}
const firstDiff = got.findIndex((s, i) => s !== want[i]);
if (got.length !== want.length || firstDiff >= 0) {
  console.error(
    `gen-flight.mjs: Agoric's reader returned ${got.length} records, the derivation ${want.length}; first difference at record ${firstDiff + 1}`,
  );
  failed = true;
}
if (failed) process.exit(1);

if (expectFile) {
  fs.writeFileSync(expectFile, got.map(s => `${s}\n`).join(''));
}

if (damage === 'end') {
  // The circular end past the arena: no reader may trust it.
  header.writeBigUInt64BE(BigInt(arena + 4096), 24);
  fs.writeSync(fd, header, 0, HEADER, 0);
} else if (damage === 'len') {
  // The oldest record's length (8 bytes at the circular start, maybe split
  // at the arena end) now runs past the arena.
  const bad = Buffer.alloc(8);
  bad.writeBigUInt64BE(BigInt(arena) + 1n);
  for (let i = 0; i < 8; i += 1) {
    fs.writeSync(fd, bad, i, 1, HEADER + ((summary.start + i) % arena));
  }
}
fs.closeSync(fd);
console.log(JSON.stringify(summary));
