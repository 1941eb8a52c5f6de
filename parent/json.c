/* json.c — validate and re-serialise untrusted JSON with yajl's streaming
 * parser: two passes (validate, then copy) so that a value that turns out to
 * be invalid halfway never leaves half a value in the generator. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-parent.h"
#include "json.h"

/* A JSON document that is just the string: valid exactly when the bytes are
 * valid UTF-8, which is what yajl_gen_string needs. */
static int utf8_valid(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t k;
    uint32_t cp;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      k = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      k = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      k = 3;
      cp = c & 0x07;
    } else {
      return 0;
    }
    if (n - i <= k)
      return 0;
    for (size_t j = 1; j <= k; j++) {
      if ((s[i + j] & 0xc0) != 0x80)
        return 0;
      cp = (cp << 6) | (s[i + j] & 0x3f);
    }
    if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
        (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return 0;
    i += k + 1;
  }
  return 1;
}

/* Pass 1: the nesting depth (yajl_gen refuses deeper than 128) and strict
 * UTF-8; yajl checks the rest. */
static int v_open(void *ctx) {
  int *depth = ctx;
  return ++*depth <= IPS_JSON_MAX_DEPTH;
}
static int v_close(void *ctx) {
  int *depth = ctx;
  --*depth;
  return 1;
}
/* yajl lets UTF-8-encoded surrogates through; strict readers do not. */
static int v_str(void *ctx, const unsigned char *s, size_t n) {
  return utf8_valid(s, n);
}

static const yajl_callbacks valid_cbs = {
    NULL, NULL, NULL, NULL, NULL, v_str, v_open, v_str, v_close, v_open,
    v_close};

int ips__json_valid(const char *buf, size_t n) {
  int depth = 0, ok;
  yajl_handle h;
  if (n == 0)
    return 0;
  h = yajl_alloc(&valid_cbs, NULL, &depth);
  if (!h)
    return 0;
  ok = yajl_parse(h, (const unsigned char *)buf, n) == yajl_status_ok &&
       yajl_complete_parse(h) == yajl_status_ok;
  yajl_free(h);
  return ok;
}

/* Pass 2: every token straight into the generator. */
static int c_null(void *g) { return yajl_gen_null(g) == yajl_gen_status_ok; }
static int c_bool(void *g, int b) {
  return yajl_gen_bool(g, b) == yajl_gen_status_ok;
}
static int c_number(void *g, const char *s, size_t n) {
  return yajl_gen_number(g, s, n) == yajl_gen_status_ok;
}
static int c_string(void *g, const unsigned char *s, size_t n) {
  return yajl_gen_string(g, s, n) == yajl_gen_status_ok;
}
static int c_smap(void *g) { return yajl_gen_map_open(g) == yajl_gen_status_ok; }
static int c_emap(void *g) { return yajl_gen_map_close(g) == yajl_gen_status_ok; }
static int c_sarr(void *g) {
  return yajl_gen_array_open(g) == yajl_gen_status_ok;
}
static int c_earr(void *g) {
  return yajl_gen_array_close(g) == yajl_gen_status_ok;
}

static const yajl_callbacks copy_cbs = {c_null,   c_bool,   NULL,   NULL,
                                        c_number, c_string, c_smap, c_string,
                                        c_emap,   c_sarr,   c_earr};

size_t ips__base64(char *dst, const unsigned char *s, size_t n) {
  static const char tab[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i, o = 0;
  for (i = 0; i + 2 < n; i += 3) {
    dst[o++] = tab[s[i] >> 2];
    dst[o++] = tab[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
    dst[o++] = tab[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)];
    dst[o++] = tab[s[i + 2] & 63];
  }
  if (i < n) {
    dst[o++] = tab[s[i] >> 2];
    if (i + 1 < n) {
      dst[o++] = tab[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
      dst[o++] = tab[(s[i + 1] & 15) << 2];
    } else {
      dst[o++] = tab[(s[i] & 3) << 4];
      dst[o++] = '=';
    }
    dst[o++] = '=';
  }
  return o;
}

const char ips__json_raw_mark[1] = {'"'};

void ips__json_stream_base64(const ips__json_stream_t *st,
                             void (*put)(void *ctx, const char *p, size_t n),
                             void *ctx) {
  char out[4096];
  size_t i, k;
  put(ctx, "\"", 1);
  /* 3072 bytes in, 4096 out: whole groups, so only the last has padding. */
  for (i = 0; i < st->n; i += k) {
    k = st->n - i < 3072 ? st->n - i : 3072;
    put(ctx, out, ips__base64(out, st->p + i, k));
  }
  put(ctx, "\"", 1);
}

static int embed_base64_s(yajl_gen g, ips__json_stream_t *st,
                          const char *buf, size_t n) {
  int ok;
  st->p = (const unsigned char *)buf;
  st->n = n;
  ok = yajl_gen_map_open(g) == yajl_gen_status_ok &&
       yajl_gen_string(g, (const unsigned char *)"base64", 6) ==
           yajl_gen_status_ok &&
       yajl_gen_number(g, ips__json_raw_mark, 1) == yajl_gen_status_ok &&
       yajl_gen_map_close(g) == yajl_gen_status_ok;
  st->p = NULL;
  st->n = 0;
  return ok ? 0 : IPS_EPROTO;
}

static int embed_base64(yajl_gen g, const char *buf, size_t n) {
  char *b;
  size_t len;
  int ok;
  if (n > (SIZE_MAX / 4) - 3)
    return IPS_ENOMEM;
  b = malloc(4 * ((n + 2) / 3) + 1);
  if (!b)
    return IPS_ENOMEM;
  len = ips__base64(b, (const unsigned char *)buf, n);
  ok = yajl_gen_map_open(g) == yajl_gen_status_ok &&
       yajl_gen_string(g, (const unsigned char *)"base64", 6) ==
           yajl_gen_status_ok &&
       yajl_gen_string(g, (const unsigned char *)b, len) ==
           yajl_gen_status_ok &&
       yajl_gen_map_close(g) == yajl_gen_status_ok;
  free(b);
  return ok ? 0 : IPS_EPROTO;
}

int ips__json_embed(yajl_gen g, const char *buf, size_t n) {
  return ips__json_embed_s(g, NULL, buf, n);
}

int ips__json_text(yajl_gen g, const char *buf, size_t n) {
  return ips__json_text_s(g, NULL, buf, n);
}

int ips__json_embed_s(yajl_gen g, ips__json_stream_t *st, const char *buf,
                      size_t n) {
  yajl_handle h;
  int ok;
  if (!ips__json_valid(buf, n))
    return st ? embed_base64_s(g, st, buf, n) : embed_base64(g, buf, n);
  h = yajl_alloc(&copy_cbs, NULL, g);
  if (!h)
    return IPS_ENOMEM;
  ok = yajl_parse(h, (const unsigned char *)buf, n) == yajl_status_ok &&
       yajl_complete_parse(h) == yajl_status_ok;
  yajl_free(h);
  return ok ? 0 : IPS_EPROTO;
}

int ips__json_text_s(yajl_gen g, ips__json_stream_t *st, const char *buf,
                     size_t n) {
  if (!utf8_valid((const unsigned char *)buf, n))
    return st ? embed_base64_s(g, st, buf, n) : embed_base64(g, buf, n);
  return yajl_gen_string(g, (const unsigned char *)buf, n) ==
                 yajl_gen_status_ok
             ? 0
             : IPS_EPROTO;
}
