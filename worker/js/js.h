/* js.h — what the parts of ipcstamp-worker-js share: the worker, the
 * clocks of the performance API (performance.c), and the text helper. */
#ifndef IPCSTAMP_WORKER_JS_H
#define IPCSTAMP_WORKER_JS_H

#include <stddef.h>

#include <duktape.h>

#include "ipcstamp-worker.h"

/* The one worker of the program (main.c). */
extern ips_worker_t js_worker;
/* performance.now()'s zero (the worker's start), the current command's
 * start (the zero of a measure() without a start mark) and its serial
 * number (marks are per command): set by main.c, read by performance.c. */
extern ips_stamp_t perf_origin, cmd_start;
extern double cmd_serial;

/* The UTF-8 form of the Duktape (CESU-8) string str[0..n): str itself
 * when it has no surrogate, else a conversion in a scratch buffer valid
 * until the next call.  NULL when out of memory. */
const char *to_utf8(const char *str, size_t n, size_t *out_len);
/* Defines globalThis.performance in ctx. */
void js_install_performance(duk_context *ctx);

#endif
