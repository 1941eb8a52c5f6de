/* performance.c — ipcstamp-worker-js's Web Performance API:
 * performance.now(), .mark(), .measure() and .timeOrigin, whose marks and
 * spans travel in the metering (docs/worker.md). */
#include "config.h"

#include <duktape.h>

#include "js.h"

/* performance.now()'s zero (the worker's start), the current command's
 * start (the zero of a measure() without a start mark) and its serial
 * number (marks are per command). */
static ips_stamp_t perf_origin, cmd_start;
static double cmd_serial;
static ips_worker_t *worker; /* where the marks go */

/* ------------------------------------------------------------------------
 * The Web Performance API.  The C side reads the clocks and
 * records; the bookkeeping of mark names (measure() between two marks) is
 * plain JavaScript below, on top of two hidden primitives.
 */
static double ms_since_origin(int64_t mono_ns) {
  return (double)(mono_ns - perf_origin.mono_ns) / 1e6;
}

static ips_stamp_t read_clock(duk_context *ctx) {
  ips_stamp_t s;
  if (ips_clock_read(&s) != 0)
    duk_error(ctx, DUK_ERR_ERROR, "%s", ips_strerror(IPS_ECLOCK));
  return s;
}

static duk_ret_t js_perf_now(duk_context *ctx) {
  duk_push_number(ctx, ms_since_origin(read_clock(ctx).mono_ns));
  return 1;
}

/* rec(kind, name[, ms]): record a mark event now, or at ms on now()'s
 * scale, held inside the command (not before its start, not after now).
 * Returns the time used, in ms.  A name is cut to 255 bytes (at a
 * character boundary) rather than refused: Web code has no such limit. */
static duk_ret_t js_perf_record(duk_context *ctx) {
  const char *kind = duk_require_string(ctx, 0), *s, *name;
  duk_size_t sz;
  size_t len;
  ips_stamp_t now = read_clock(ctx), at = now;
  int rc;

  if (!duk_is_undefined(ctx, 2)) {
    double ms = duk_require_number(ctx, 2);
    int64_t mono = perf_origin.mono_ns + (int64_t)(ms * 1e6 + 0.5);
    if (!(ms == ms) || mono < cmd_start.mono_ns) mono = cmd_start.mono_ns;
    if (mono > now.mono_ns) mono = now.mono_ns;
    at.mono_ns = mono;
    /* The wall clock of a past moment, from the command's start. */
    at.wall_us = cmd_start.wall_us + (mono - cmd_start.mono_ns) / 1000;
  }
  s = duk_to_lstring(ctx, 1, &sz);
  name = to_utf8(s, sz, &len);
  if (!name) return duk_error(ctx, DUK_ERR_RANGE_ERROR, "out of memory");
  if (len > 255) {
    len = 255;
    while (len > 0 && ((unsigned char)name[len] & 0xc0) == 0x80) len--;
  }
  if (len > 0 && worker->pending) {
    rc = ips_worker_mark_at(worker, kind[0], name, len, &at);
    if (ips_worker_failed(worker)) ips_worker_exit(worker, rc);
  }
  duk_push_number(ctx, ms_since_origin(at.mono_ns));
  return 1;
}

/* cmd(): the command's serial number and its start in ms, as [n, ms]. */
static duk_ret_t js_perf_cmd(duk_context *ctx) {
  duk_push_array(ctx);
  duk_push_number(ctx, cmd_serial);
  duk_put_prop_index(ctx, -2, 0);
  duk_push_number(ctx, ms_since_origin(cmd_start.mono_ns));
  duk_put_prop_index(ctx, -2, 1);
  return 1;
}

/* ES5: Duktape has no arrow functions or classes.  The rules follow the
 * User Timing spec where it applies to one command: a mark name resolves to
 * the latest mark of that name in this command (none: SyntaxError); a
 * number is a time on now()'s scale; measure(name) with no start begins at
 * the command's start (a page's timeOrigin in a browser); an end defaults
 * to now; {start, end, duration} options are accepted.  A span whose end
 * comes before its start is recorded the right way round. */
static const char perf_js[] =
    "(function (now, rec, cmd, origin) {\n"
    "  var marks = Object.create(null), serial = -1;\n"
    "  function fresh() {\n"
    "    var c = cmd();\n"
    "    if (c[0] !== serial) { serial = c[0]; marks = Object.create(null); }\n"
    "    return c[1];\n"
    "  }\n"
    "  function entry(name, type, t, d) {\n"
    "    return { name: name, entryType: type, startTime: t, duration: d,\n"
    "             detail: null };\n"
    "  }\n"
    "  function at(v, what) {\n"
    "    if (typeof v === 'number') {\n"
    "      if (!(v >= 0)) throw new TypeError('performance.measure: ' + what +\n"
    "        ' ' + v + ' is not a time');\n"
    "      return v;\n"
    "    }\n"
    "    var n = String(v);\n"
    "    if (!(n in marks)) throw new SyntaxError('performance.measure: ' +\n"
    "      'no mark named \"' + n + '\" in this command');\n"
    "    return marks[n];\n"
    "  }\n"
    "  function needName(f, args) {\n"
    "    if (args.length < 1) throw new TypeError('performance.' + f +\n"
    "      ': a name is required');\n"
    "    return String(args[0]);\n"
    "  }\n"
    "  var p = {\n"
    "    timeOrigin: origin,\n"
    "    now: now,\n"
    "    mark: function (name, options) {\n"
    "      fresh();\n"
    "      name = needName('mark', arguments);\n"
    "      var t = options && options.startTime !== undefined ?\n"
    "        rec('m', name, at(Number(options.startTime), 'startTime')) :\n"
    "        rec('m', name);\n"
    "      marks[name] = t;\n"
    "      return entry(name, 'mark', t, 0);\n"
    "    },\n"
    "    measure: function (name, start, end) {\n"
    "      var t0 = fresh(), s, e, o = start, d;\n"
    "      name = needName('measure', arguments);\n"
    "      if (o !== null && typeof o === 'object') {\n"
    "        if (end !== undefined) throw new TypeError('performance.measure: ' +\n"
    "          'an end mark after an options object');\n"
    "        s = o.start === undefined ? undefined : at(o.start, 'start');\n"
    "        e = o.end === undefined ? undefined : at(o.end, 'end');\n"
    "        if (o.duration !== undefined) {\n"
    "          d = Number(o.duration);\n"
    "          if (s !== undefined && e !== undefined) throw new TypeError(\n"
    "            'performance.measure: start, end and duration together');\n"
    "          if (s !== undefined) e = s + d;\n"
    "          else if (e !== undefined) s = e - d;\n"
    "          else throw new TypeError('performance.measure: a duration ' +\n"
    "            'needs a start or an end');\n"
    "        }\n"
    "      } else {\n"
    "        s = o === undefined ? undefined : at(o, 'start');\n"
    "        e = end === undefined ? undefined : at(end, 'end');\n"
    "      }\n"
    "      if (s === undefined) s = t0;\n"
    "      if (e === undefined) e = now();\n"
    "      var lo = s < e ? s : e, hi = s < e ? e : s;\n"
    "      rec('b', name, lo);\n"
    "      rec('e', name, hi);\n"
    "      return entry(name, 'measure', s, e - s);\n"
    "    },\n"
    "    clearMarks: function (name) {\n"
    "      fresh();\n"
    "      if (name === undefined) marks = Object.create(null);\n"
    "      else delete marks[String(name)];\n"
    "    },\n"
    "    clearMeasures: function () {},\n"
    "    getEntries: function () { return []; },\n"
    "    getEntriesByName: function () { return []; },\n"
    "    getEntriesByType: function () { return []; }\n"
    "  };\n"
    "  Object.defineProperty(globalThis, 'performance', { value: p,\n"
    "    writable: true, configurable: true, enumerable: false });\n"
    "})";

void js_performance_command(void) {
  cmd_serial++;
  if (ips_clock_read(&cmd_start) != 0) cmd_start = perf_origin;
}

int js_install_performance(duk_context *ctx, ips_worker_t *w) {
  if (ips_clock_read(&perf_origin) != 0)
    return -1;
  worker = w;
  duk_eval_string(ctx, perf_js);
  duk_push_c_function(ctx, js_perf_now, 0);
  duk_push_c_function(ctx, js_perf_record, 3);
  duk_push_c_function(ctx, js_perf_cmd, 0);
  duk_push_number(ctx, (double)perf_origin.wall_us / 1000.0);
  duk_call(ctx, 4);
  duk_pop(ctx);
  return 0;
}
