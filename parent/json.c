/* json.c — validate and re-serialise untrusted JSON with yajl's streaming
 * parser in one pass: tokens go straight to the output as they are checked,
 * and a value that turns out to be invalid halfway is cut back out of the
 * output buffer (which is why generators print into an ips__out_t). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-parent.h"
#include "json.h"


uint64_t ips__out_pos(const ips__out_t *o) { return o->base + o->len; }

void ips__out_cut(ips__out_t *o, uint64_t pos) {
  if (pos >= o->base) {
    o->len = (size_t)(pos - o->base);
    return;
  }
  if (!o->cut || o->cut(o->ctx, pos) != 0)
    o->oom = 1;
  o->base = pos;
  o->len = 0;
}

void ips__out_print(void *ctx, const char *s, size_t n) {
  ips__out_t *o = ctx;
  if (o->oom)
    return;
  if (o->spill && o->len + n > o->spill_at) {
    if (o->len && o->spill(o->ctx, o->p, o->len) != 0) {
      o->oom = 1;
      return;
    }
    o->base += o->len;
    o->len = 0;
    if (n >= o->spill_at) { /* large: straight through */
      if (o->spill(o->ctx, s, n) != 0)
        o->oom = 1;
      o->base += n;
      return;
    }
  }
  if (n > o->cap - o->len) {
    size_t nc = o->cap ? o->cap : 4096;
    char *np;
    while (nc - o->len < n) {
      if (nc > SIZE_MAX / 2) {
        o->oom = 1;
        return;
      }
      nc *= 2;
    }
    np = realloc(o->p, nc);
    if (!np) {
      o->oom = 1;
      return;
    }
    o->p = np;
    o->cap = nc;
  }
  memcpy(o->p + o->len, s, n);
  o->len += n;
}

#define GEN_OK(call) ((call) == yajl_gen_status_ok)

void ips__jcopy_init(ips__jcopy_t *c, yajl_gen g) {
  c->g = g;
  c->depth = 0;
  c->ok = 1;
}

/* Every token: 0 once the value is refused, so a caller that keeps parsing
 * for its own reasons (the metering reader) writes nothing more. */
static int put(ips__jcopy_t *c, int ok) {
  if (!ok)
    c->ok = 0;
  return c->ok;
}

int ips__jcopy_null(void *ctx) {
  ips__jcopy_t *c = ctx;
  return c->ok && put(c, GEN_OK(yajl_gen_null(c->g)));
}
int ips__jcopy_bool(void *ctx, int b) {
  ips__jcopy_t *c = ctx;
  return c->ok && put(c, GEN_OK(yajl_gen_bool(c->g, b)));
}
int ips__jcopy_number(void *ctx, const char *s, size_t n) {
  ips__jcopy_t *c = ctx;
  return c->ok && put(c, GEN_OK(yajl_gen_number(c->g, s, n)));
}
/* yajl lets UTF-8-encoded surrogates through; strict readers do not. */
int ips__jcopy_string(void *ctx, const unsigned char *s, size_t n) {
  ips__jcopy_t *c = ctx;
  return c->ok && put(c, ips__utf8_valid(s, n) &&
                             GEN_OK(yajl_gen_string(c->g, s, n)));
}
/* yajl_gen refuses deeper than 128; we bound it lower, as the metering
 * reader does, so a worker cannot make the parse recurse far. */
int ips__jcopy_map_open(void *ctx) {
  ips__jcopy_t *c = ctx;
  return c->ok && put(c, ++c->depth <= IPS_JSON_MAX_DEPTH &&
                             GEN_OK(yajl_gen_map_open(c->g)));
}
int ips__jcopy_map_close(void *ctx) {
  ips__jcopy_t *c = ctx;
  c->depth--;
  return c->ok && put(c, GEN_OK(yajl_gen_map_close(c->g)));
}
int ips__jcopy_array_open(void *ctx) {
  ips__jcopy_t *c = ctx;
  return c->ok && put(c, ++c->depth <= IPS_JSON_MAX_DEPTH &&
                             GEN_OK(yajl_gen_array_open(c->g)));
}
int ips__jcopy_array_close(void *ctx) {
  ips__jcopy_t *c = ctx;
  c->depth--;
  return c->ok && put(c, GEN_OK(yajl_gen_array_close(c->g)));
}

const yajl_callbacks ips__jcopy_cbs = {
    ips__jcopy_null,      ips__jcopy_bool,       NULL,
    NULL,                 ips__jcopy_number,     ips__jcopy_string,
    ips__jcopy_map_open,  ips__jcopy_string,     ips__jcopy_map_close,
    ips__jcopy_array_open, ips__jcopy_array_close};

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

int ips__json_base64(yajl_gen g, const char *buf, size_t n) {
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

int ips__json_copy(yajl_gen g, const char *buf, size_t n) {
  ips__jcopy_t c;
  yajl_handle h;
  int ok;
  ips__jcopy_init(&c, g);
  h = yajl_alloc(&ips__jcopy_cbs, NULL, &c);
  if (!h)
    return -1;
  ok = n > 0 &&
       yajl_parse(h, (const unsigned char *)buf, n) == yajl_status_ok &&
       yajl_complete_parse(h) == yajl_status_ok && c.ok;
  yajl_free(h);
  return ok;
}

int ips__json_embed(yajl_gen g, yajl_gen eg, ips__out_t *out,
                    const char *buf, size_t n) {
  uint64_t mark;
  int ok;
  /* The separator before the value, written by g, which then counts the
   * value as written: eg prints the value itself right after it. */
  if (!GEN_OK(yajl_gen_number(g, "", 0)))
    return IPS_EPROTO;
  mark = ips__out_pos(out);
  yajl_gen_reset(eg, NULL);
  ok = ips__json_copy(eg, buf, n);
  if (ok < 0 || out->oom)
    return IPS_ENOMEM;
  if (ok)
    return 0;
  /* Not one valid value: cut what was copied of it and write the bytes,
   * their base64 made a piece at a time (whole, it would be 1.33 times a
   * frame that may be 100 MB). */
  ips__out_cut(out, mark);
  ips__out_print(out, "{\"base64\":\"", 11);
  {
    char piece[4096];
    size_t i;
    for (i = 0; i < n; i += 3072) {
      size_t k = n - i < 3072 ? n - i : 3072;
      ips__out_print(out, piece,
                     ips__base64(piece, (const unsigned char *)buf + i, k));
    }
  }
  ips__out_print(out, "\"}", 2);
  return out->oom ? IPS_ENOMEM : 0;
}

int ips__json_raw(yajl_gen g, const char *json, size_t n) {
  /* yajl_gen_number writes its text as it is, after the separator the
   * position needs: the one way yajl offers to insert a value whole. */
  return GEN_OK(yajl_gen_number(g, json, n)) ? 0 : IPS_EPROTO;
}

int ips__json_text(yajl_gen g, const char *buf, size_t n) {
  if (!ips__utf8_valid((const unsigned char *)buf, n))
    return ips__json_base64(g, buf, n);
  return yajl_gen_string(g, (const unsigned char *)buf, n) ==
                 yajl_gen_status_ok
             ? 0
             : IPS_EPROTO;
}
