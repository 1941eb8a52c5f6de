/* js.h — the parts of ipcstamp-worker-js that main.c (the commands, the
 * host functions, the program) uses: its strings between Duktape and the
 * wire (strings.c) and the Web Performance API (performance.c). */
#ifndef IPCSTAMP_WORKER_JS_H
#define IPCSTAMP_WORKER_JS_H

#include <stddef.h>

#include <duktape.h>

#include "ipcstamp-worker.h"

/* ---- strings.c ---- */

/* The UTF-8 form of the Duktape (CESU-8) string str[0..n): str itself
 * when it has no surrogate, else a conversion in a scratch buffer valid
 * until the next call.  NULL when out of memory. */
const char *to_utf8(const char *str, size_t n, size_t *out_len);
/* Pushes the UTF-8 bytes p[0..n) as a string (decoded as TextDecoder
 * does: a bad sequence is U+FFFD). */
void push_utf8(duk_context *ctx, const char *p, size_t n);
/* Pushes a fresh ArrayBuffer holding p[0..n). */
void push_array_buffer(duk_context *ctx, const char *p, size_t n);
/* The bytes of the value at idx: a buffer's or typed array's, or a
 * string's as UTF-8; *p lives as long as the value (or until the next
 * to_utf8).  Returns 0, or -1 when it is neither. */
int value_bytes(duk_context *ctx, duk_idx_t idx, const char **p, size_t *n);
/* Frees the scratch buffer of to_utf8 (at exit). */
void js_strings_free(void);

/* ---- performance.c ---- */

/* Defines globalThis.performance in ctx, its marks and spans going to w;
 * now()'s zero is this moment.  -1 when the clock cannot be read. */
int js_install_performance(duk_context *ctx, ips_worker_t *w);
/* A command begins: the marks' serial and the zero of a measure() without
 * a start. */
void js_performance_command(void);

#endif
