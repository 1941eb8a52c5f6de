/* strings.c — ipcstamp-worker-js's strings and bytes between Duktape and
 * the wire. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <duktape.h>

#include "js.h"

/* ------------------------------------------------------------------------
 * Strings.  Duktape keeps strings in CESU-8: a character outside the BMP is
 * two 3-byte surrogates.  The wire wants UTF-8, so pairs are joined into
 * one 4-byte sequence and a lone surrogate becomes U+FFFD, as TextEncoder
 * does.  Everything else is already UTF-8 and is used in place.
 */
typedef struct {
  char *p;
  size_t cap;
} scratch_t;

static scratch_t utf8_scratch;

static int is_surrogate(const unsigned char *s, size_t i, size_t n,
                        unsigned lo, unsigned hi) {
  return i + 2 < n && s[i] == 0xed && s[i + 1] >= lo && s[i + 1] <= hi &&
         (s[i + 2] & 0xc0) == 0x80;
}

/* The UTF-8 form of the Duktape string s[0..n): s itself when it has no
 * surrogate, or a conversion in a scratch buffer that is reused (valid until
 * the next call).  NULL when out of memory. */
const char *to_utf8(const char *str, size_t n, size_t *out_len) {
  const unsigned char *s = (const unsigned char *)str;
  size_t i, o = 0;
  if (!memchr(s, 0xed, n)) {
    *out_len = n;
    return str;
  }
  if (n > utf8_scratch.cap) {
    char *q = realloc(utf8_scratch.p, n);
    if (!q) return NULL;
    utf8_scratch.p = q;
    utf8_scratch.cap = n;
  }
  unsigned char *d = (unsigned char *)utf8_scratch.p;
  for (i = 0; i < n;) {
    if (is_surrogate(s, i, n, 0xa0, 0xaf) &&
        is_surrogate(s, i + 3, n, 0xb0, 0xbf)) {
      unsigned long hi = ((s[i + 1] & 0x0fu) << 6) | (s[i + 2] & 0x3fu);
      unsigned long lo = ((s[i + 4] & 0x0fu) << 6) | (s[i + 5] & 0x3fu);
      unsigned long cp = 0x10000 + (hi << 10) + lo;
      d[o++] = (unsigned char)(0xf0 | (cp >> 18));
      d[o++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
      d[o++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
      d[o++] = (unsigned char)(0x80 | (cp & 0x3f));
      i += 6;
    } else if (is_surrogate(s, i, n, 0xa0, 0xbf)) {
      d[o++] = 0xef;
      d[o++] = 0xbf;
      d[o++] = 0xbd;
      i += 3;
    } else {
      d[o++] = s[i++];
    }
  }
  *out_len = o;
  return utf8_scratch.p;
}

/* Push the string decoded from UTF-8 bytes: ASCII as is, anything else
 * through the engine's TextDecoder, which makes surrogate pairs and
 * replaces invalid sequences (the bytes come from the parent, untrusted). */
void push_utf8(duk_context *ctx, const char *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((unsigned char)p[i] >= 0x80) break;
  if (i == n) {
    duk_push_lstring(ctx, p, n);
    return;
  }
  duk_push_global_stash(ctx);
  duk_get_prop_string(ctx, -1, "decode");
  duk_get_prop_string(ctx, -2, "decoder");
  memcpy(duk_push_fixed_buffer(ctx, n), p, n);
  duk_call_method(ctx, 1);
  duk_remove(ctx, -2);
}

/* Push a new ArrayBuffer holding a copy of p[0..n). */
void push_array_buffer(duk_context *ctx, const char *p, size_t n) {
  void *d = duk_push_fixed_buffer(ctx, n);
  if (n) memcpy(d, p, n);
  duk_push_buffer_object(ctx, -1, 0, n, DUK_BUFOBJ_ARRAYBUFFER);
  duk_remove(ctx, -2);
}

/* The bytes of the value at idx when it is a buffer (ArrayBuffer, typed
 * array, DataView, plain buffer) or a string (as UTF-8).  The pointer lives
 * as long as the value (or until the next to_utf8).  Returns 0, or -1 when
 * the value is of another type. */
int value_bytes(duk_context *ctx, duk_idx_t idx, const char **p,
                size_t *n) {
  if (duk_is_buffer_data(ctx, idx)) {
    duk_size_t sz = 0;
    *p = duk_get_buffer_data(ctx, idx, &sz);
    *n = sz;
    if (!*p) *p = "";
    return 0;
  }
  if (duk_is_string(ctx, idx)) {
    duk_size_t sz = 0;
    const char *s = duk_get_lstring(ctx, idx, &sz);
    *p = to_utf8(s, sz, n);
    if (!*p) duk_error(ctx, DUK_ERR_RANGE_ERROR, "out of memory");
    return 0;
  }
  return -1;
}

void js_strings_free(void) {
  free(utf8_scratch.p);
  utf8_scratch.p = NULL;
  utf8_scratch.cap = 0;
}
