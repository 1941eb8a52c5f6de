#!/usr/bin/env node
// slog-to-otel.mjs: run Agoric's own slog consumer on slogfiles.
//
//   node slog-to-otel.mjs SLOGFILE[.gz] [...]
//
// Every line goes, as a hardened object (as `ingest-slog` passes it), to
// @agoric/telemetry's makeSlogToOtelKit: the converter behind ingest-slog
// and agd's OpenTelemetry slog sender.  Spans go to an in-memory exporter.
// A fresh kit per kernel process, as agd makes one per process: at the start
// of each file and at each `kernel-init-start` after the first (a kernel
// restarted and appending to the same slogfile; one kit would throw
// '"vatId" already registered' on every vat the new process creates again).
// Prints one JSON object:
//   {"lines":N,"kernels":K,"errors":[{"file":F,"line":L,"type":T,
//    "message":M,"cause":C}],"unknownCrankTypes":{...},"spans":N,
//    "spansByName":{...}}
// cause is "unknown-crank-type" for a crank-start whose message.type the
// converter does not know and for every record inside that crank (it then
// has no crank span to attach them to), else null.
// With --spans FILE, also writes each crank span (deliver-*) and each
// syscall-send span (what Agoric's links point at) to FILE, one
// JSON line each: {name, traceId, spanId, attributes, links:[{traceId,
// spanId, attributes}]} (tests/interop/swingset-otel.test joins them with
// ipcstamp's).  Exits 0 with no error,
// 1 if any line failed (bad JSON or a throw from the converter, each with
// its line number), 2 on usage or I/O error.
import '@endo/init';

import fs from 'node:fs';
import readline from 'node:readline';
import zlib from 'node:zlib';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { makeSlogToOtelKit } from '@agoric/telemetry/src/slog-to-otel.js';

const args = process.argv.slice(2);
let spansOut = null;
const at = args.indexOf('--spans');
if (at >= 0) {
  spansOut = args[at + 1];
  args.splice(at, 2);
}
const files = args;
if (files.length === 0 || files.some(f => f.startsWith('-') && f !== '-')) {
  console.error('usage: node slog-to-otel.mjs SLOGFILE[.gz] [...]');
  process.exit(2);
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider();
provider.addSpanProcessor(new SimpleSpanProcessor(exporter));
provider.register();
const tracer = provider.getTracer('ipcstamp-slog-to-otel');

// The kit logs every failure to console.error before rethrowing it; the
// failures are reported once, in the JSON on stdout, instead.  (console is
// frozen by SES's lockdown; the stream it writes to is not.)
const quietly = fn => {
  const { write } = process.stderr;
  process.stderr.write = () => true;
  try {
    return fn();
  } finally {
    process.stderr.write = write;
  }
};

const out = {
  lines: 0,
  kernels: 0,
  errors: [],
  unknownCrankTypes: {},
  spans: 0,
  spansByName: {},
};
for (const file of files) {
  let input;
  try {
    input = fs.createReadStream(file);
    await new Promise((resolve, reject) => {
      input.once('open', resolve);
      input.once('error', reject);
    });
  } catch (err) {
    console.error(`slog-to-otel.mjs: ${file}: ${err.message}`);
    process.exit(2);
  }
  if (file.endsWith('.gz')) input = input.pipe(zlib.createGunzip());
  let kit;
  const newKit = () => {
    if (kit) quietly(() => kit.finish());
    kit = makeSlogToOtelKit(tracer);
    out.kernels += 1;
  };
  newKit();
  let line = 0;
  // Inside a crank whose crank-start the converter rejected.
  let inUnknownCrank = false;
  try {
    for await (const text of readline.createInterface({ input, crlfDelay: Infinity })) {
      line += 1;
      let obj;
      try {
        obj = harden(JSON.parse(text));
      } catch (err) {
        out.errors.push({ file, line, type: null, message: `not JSON: ${err.message}`, cause: null });
        continue;
      }
      if (obj?.type === 'kernel-init-start' && line > 1) newKit();
      let unknownType;
      if (obj?.type === 'crank-start') {
        inUnknownCrank = false;
        unknownType = obj.message?.type;
      }
      try {
        quietly(() => kit.slogSender(obj));
      } catch (err) {
        const message = String(err?.message ?? err);
        let cause = null;
        if (obj?.type === 'crank-start' && message.startsWith('Unknown crank-start message.type')) {
          inUnknownCrank = true;
          out.unknownCrankTypes[unknownType] = (out.unknownCrankTypes[unknownType] ?? 0) + 1;
          cause = 'unknown-crank-type';
        } else if (inUnknownCrank) {
          cause = 'unknown-crank-type';
        }
        out.errors.push({ file, line, type: obj?.type ?? null, message, cause });
      }
      if (obj?.type === 'crank-finish') inUnknownCrank = false;
    }
  } catch (err) {
    console.error(`slog-to-otel.mjs: ${file}: line ${line + 1}: ${err.message}`);
    process.exit(2);
  }
  try {
    quietly(() => kit.finish());
  } catch (err) {
    out.errors.push({ file, line: null, type: null, message: `finish: ${err.message}`, cause: null });
  }
  out.lines += line;
}
await provider.forceFlush();
const dumped = [];
for (const span of exporter.getFinishedSpans()) {
  if (spansOut && (span.name.startsWith('deliver-') || span.name === 'syscall-send')) {
    const c = span.spanContext();
    dumped.push(JSON.stringify({
      name: span.name, traceId: c.traceId, spanId: c.spanId,
      attributes: span.attributes,
      links: span.links.map(l => ({ traceId: l.context.traceId,
        spanId: l.context.spanId, attributes: l.attributes })),
    }));
  }
  out.spans += 1;
  out.spansByName[span.name] = (out.spansByName[span.name] ?? 0) + 1;
}
out.spansByName = Object.fromEntries(
  Object.entries(out.spansByName).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
if (spansOut) fs.writeFileSync(spansOut, dumped.map(l => `${l}\n`).join(''));
console.log(JSON.stringify(out));
process.exit(out.errors.length ? 1 : 0);
