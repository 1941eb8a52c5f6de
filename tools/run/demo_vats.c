/* vat_js.c — the JavaScript of the demo's vats (`ipcstamp run --demo`),
 * for ipcstamp-worker-js (Duktape: ES5 plus a few later features).
 *
 * Each vat keeps a balance in its vatstore.  "pay" does some real
 * computation (a sieve, sized by the message), reads and writes the store,
 * logs, and sends "receive" to another vat; "receive" credits the balance
 * and, while hops remain, pays the next vat on.  So one delivery fans out
 * into a chain of deliveries across every worker, each with upcalls.
 *
 * Only what Agoric's xsnap-worker also offers is used (issueCommand on
 * ArrayBuffers, TextEncoder/TextDecoder, an ArrayBuffer result), so the
 * demo runs on either worker: --worker path/to/xsnap-worker works too.
 * Where the worker has the Performance API (ipcstamp-worker-js),
 * the vats measure the two things a report should split the worker's time
 * into: decoding the message ("deserialize", from the command's start) and
 * the computation ("sieve"), and mark when a payment is credited (after
 * two upcalls: a mark inside a later worker segment). */
#include "demo.h"

const char ips__demo_vat_js[] =
    "var enc = new TextEncoder(), dec = new TextDecoder();\n"
    "var me = null, nvats = 1;\n"
    "var perf = typeof performance !== 'undefined' &&\n"
    "  typeof performance.measure === 'function' ? performance : null;\n"
    "function sys(args) {\n"
    "  var reply = issueCommand(enc.encode(JSON.stringify(args)).buffer);\n"
    "  var r = JSON.parse(dec.decode(new Uint8Array(reply)));\n"
    "  if (r[0] !== 'ok') throw new Error(args[0] + ': ' + r[1]);\n"
    "  return r[1];\n"
    "}\n"
    "function primes(n) {\n"
    "  var sieve = new Uint8Array(n + 1), count = 0, i, j;\n"
    "  for (i = 2; i <= n; i++) {\n"
    "    if (sieve[i]) continue;\n"
    "    count++;\n"
    "    for (j = i * i; j <= n; j += i) sieve[j] = 1;\n"
    "  }\n"
    "  return count;\n"
    "}\n"
    "function next() {\n"
    "  return 'v' + (Number(me.slice(1)) % nvats + 1);\n"
    "}\n"
    "function credit(amount) {\n"
    "  var bal = sys(['vatstoreGet', 'balance']) || 0;\n"
    "  bal += amount;\n"
    "  sys(['vatstoreSet', 'balance', bal]);\n"
    "  return bal;\n"
    "}\n"
    "function out(v) {\n"
    "  return enc.encode(JSON.stringify(v)).buffer;\n"
    "}\n"
    "function handleCommand(buf) {\n"
    "  var msg = JSON.parse(dec.decode(new Uint8Array(buf)));\n"
    "  if (perf) perf.measure('deserialize');\n"
    "  var method = msg[1], a = msg[2];\n"
    "  if (method === 'init') {\n"
    "    me = a.me;\n"
    "    nvats = a.nvats;\n"
    "    sys(['vatstoreSet', 'balance', 1000]);\n"
    "    return out({vat: me, balance: 1000});\n"
    "  }\n"
    "  if (method === 'pay') {\n"
    "    if (perf) perf.mark('sieve start');\n"
    "    var found = primes(a.work);\n"
    "    if (perf) perf.measure('sieve', 'sieve start');\n"
    "    var bal = credit(-a.amount);\n"
    "    var n = (sys(['vatstoreGet', 'payments']) || 0) + 1;\n"
    "    sys(['vatstoreSet', 'payments', n]);\n"
    "    sys(['log', me + ' pays ' + a.amount + ' to ' + next()]);\n"
    "    sys(['send', next(), ['message', 'receive',\n"
    "         {from: me, amount: a.amount, hops: a.hops, work: a.work}]]);\n"
    "    return out({balance: bal, payments: n, primes: found});\n"
    "  }\n"
    "  if (method === 'receive') {\n"
    "    var b = credit(a.amount);\n"
    "    if (perf) perf.mark('credited');\n"
    "    if (a.hops > 0)\n"
    "      sys(['send', me, ['message', 'pay',\n"
    "           {amount: a.amount, hops: a.hops - 1, work: a.work}]]);\n"
    "    return out({balance: b});\n"
    "  }\n"
    "  throw new Error('unknown method ' + method);\n"
    "}\n";
