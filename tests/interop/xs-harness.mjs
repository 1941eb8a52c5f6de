// xs-harness.mjs: what the tests that drive an xsnap-worker directly share
// (xs-consensus.mjs, xs-suite.mjs): netstrings, one run of a worker on a
// command file, and the checks' counting.  Node only, no npm.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const enc = s => Buffer.from(s, 'utf8');
export const ns = body => Buffer.concat([enc(`${body.length}:`), body, enc(',')]);
export const frame = (tag, text) => ns(Buffer.concat([enc(tag), enc(text)]));

// Frames of a byte stream, leniently: the rest after the last whole frame
// is returned as `tail` (a worker killed mid-write).
export const parseFrames = buf => {
  const frames = [];
  let i = 0;
  for (;;) {
    const colon = buf.indexOf(0x3a, i);
    if (colon < 0) break;
    const len = Number(buf.subarray(i, colon).toString('latin1'));
    if (!Number.isInteger(len) || colon + 1 + len >= buf.length || buf[colon + 1 + len] !== 0x2c) break;
    frames.push(buf.subarray(colon + 1, colon + 1 + len));
    i = colon + 2 + len;
  }
  return { frames, tail: buf.subarray(i) };
};

// ok/no/check print one line per check; summary() prints the count and
// exits 0 when all passed.
export const checks = () => {
  let passed = 0;
  let failed = 0;
  const ok = msg => { passed += 1; console.log(`ok - ${msg}`); };
  const no = msg => { failed += 1; console.log(`not ok - ${msg}`); };
  const check = (cond, msg, why = '') => (cond ? ok(msg) : no(why ? `${msg}: ${why}` : msg));
  const summary = () => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  };
  return { ok, no, check, summary };
};

// A runner writing its files in tmp: run(bin, input, {args, env, normalize})
// gives the worker input on fd 3, its replies from fd 4 and a heap
// snapshot written to fd 5; returns {status, signal, stdout, stderr,
// frames (normalized), meters, raw (the frames' bytes), tail, snap,
// snapPath, outPath}.
export const runner = tmp => {
  let runNo = 0;
  return (bin, input, { args = [], env = {}, normalize = f => [f.toString('latin1'), null] } = {}) => {
    runNo += 1;
    const base = path.join(tmp, `run${runNo}`);
    fs.writeFileSync(`${base}.in`, input);
    const fin = fs.openSync(`${base}.in`, 'r');
    const fout = fs.openSync(`${base}.out`, 'w');
    const fsnap = fs.openSync(`${base}.snap`, 'w');
    const r = spawnSync(bin, args, {
      stdio: ['ignore', 'pipe', 'pipe', fin, fout, fsnap],
      env: { ...process.env, ...env },
      timeout: 120000,
    });
    [fin, fout, fsnap].forEach(fd => fs.closeSync(fd));
    const out = fs.readFileSync(`${base}.out`);
    const { frames, tail } = parseFrames(out);
    const norm = frames.map(normalize);
    return {
      status: r.status,
      signal: r.signal,
      stdout: r.stdout.toString(),
      // Messages name the run's own files: the same for every build.
      stderr: r.stderr.toString().replaceAll(base, 'RUN'),
      frames: norm.map(n => n[0]),
      meters: norm.map(n => n[1]),
      raw: frames,
      tail: tail.toString('latin1'),
      snap: fs.readFileSync(`${base}.snap`),
      snapPath: `${base}.snap`,
      outPath: `${base}.out`,
    };
  };
};

// The workload both tests run: computes, allocates, makes upcalls, queues
// promise jobs, collects garbage, throws when asked.
export const vatCode = `
globalThis.handleCommand = function (buf) {
  const req = JSON.parse(new TextDecoder().decode(buf));
  let acc = 7;
  for (let i = 0; i < (req.loop || 0); i += 1) acc = (acc * 31 + i) % 1000003;
  const junk = [];
  for (let i = 0; i < (req.alloc || 0); i += 1) junk.push({ i, s: 'x'.repeat(i % 50) });
  globalThis.kept = (globalThis.kept || []).concat(junk.slice(0, 10));
  const replies = [];
  for (let i = 0; i < (req.upcalls || 0); i += 1) {
    const r = issueCommand(new TextEncoder().encode(JSON.stringify(['vatstoreGet', 'k' + i])).buffer);
    replies.push(new TextDecoder().decode(r));
  }
  if (req.gc) gc();
  if (req.throw) throw Error(req.throw);
  if (req.spin) { for (;;) acc += 1; }
  Promise.resolve(acc).then(v => { globalThis.last = v + junk.length; })
    .then(() => { globalThis.jobs = (globalThis.jobs || 0) + 1; });
  const out = JSON.stringify({ acc, n: junk.length, replies, last: globalThis.last, jobs: globalThis.jobs });
  return req.object ? { result: new TextEncoder().encode(out).buffer } : new TextEncoder().encode(out).buffer;
};
'ready';
`;
// A delivery of req, with the replies to its upcalls after it.
export const deliver = (req, replies = req.upcalls || 0) => {
  const parts = [frame('?', JSON.stringify(req))];
  for (let i = 0; i < replies; i += 1) parts.push(frame('/', JSON.stringify(`v${i}`)));
  return Buffer.concat(parts);
};

// Every error path of the worker (each ends the same way in every build).
export const errorCases = () => [
  ['unknown command tag', Buffer.concat([frame('e', '1'), frame('z', 'what'), frame('q', '')])],
  ['reserved tag /', Buffer.concat([frame('/', 'x')])],
  ['empty frame', enc('0:,')],
  ['length prefix of 10 digits', enc('1234567890:x,')],
  ['length prefix not a number', enc('abc:x,')],
  ['missing comma', enc('2:ex;')],
  ['end of input inside a frame', enc('10:eabc')],
  ['end of input between frames', frame('e', '1')],
  ['upcall answered with another tag', Buffer.concat([frame('e', vatCode), frame('?', '{"upcalls":1}'), frame('?', 'x'), frame('q', '')])],
  ['end of input inside an upcall', Buffer.concat([frame('e', vatCode), frame('?', '{"upcalls":2}'), frame('/', '"a"')])],
  ['meter overrun with no reply (-l)', Buffer.concat([frame('e', vatCode), frame('?', '{"spin":true}'), frame('q', '')]), ['-l', '100000']],
  ['stack overflow', Buffer.concat([frame('e', 'const f = n => f(n + 1) + 1; f(0);'), frame('q', '')])],
  ['bad snapshot path', Buffer.concat([frame('w', '/nonexistent/dir/snap'), frame('q', '')])],
  ['unknown flag', frame('q', ''), ['-x']],
];
