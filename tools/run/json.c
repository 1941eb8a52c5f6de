/* json.c — see json.h.  One generator per member: tokens at depth
 * >= 1 are forwarded into it, and when the member's value closes, its text
 * is copied out. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#include "json.h"

typedef struct {
  run_jsplit_t *out;
  yajl_gen g;
  int depth;
  char *key;
  int bad;
  const char *why;
  /* A head split keeps only the first keep_items members, each while it
   * takes at most keep_max bytes; what it does not keep it never copies
   * (the rest of the parse only validates).  0: keep all. */
  size_t keep_items, keep_max;
  int dropping;   /* the member being read is not kept */
} sp_t;

/* Whether the member being read (number count) is past what a head split
 * keeps, or has grown past its bytes: then it is generated no further. */
static int dropping(sp_t *p) {
  const unsigned char *b;
  size_t len;
  if (p->dropping || !p->keep_max)
    return p->dropping;
  if (p->out->count >= p->keep_items) {
    p->dropping = 1;
  } else if (yajl_gen_get_buf(p->g, &b, &len) == yajl_gen_status_ok &&
             len > p->keep_max) {
    p->dropping = 1;
  }
  if (p->dropping) {
    yajl_gen_clear(p->g);
    yajl_gen_reset(p->g, NULL);
  }
  return p->dropping;
}

#define OK(x) ((x) == yajl_gen_status_ok)

char *run_dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

char *run_json_pair(const char *tag, const char *str, size_t n,
                    const char *json, size_t *len) {
  yajl_gen g = yajl_gen_alloc(NULL);
  const unsigned char *b;
  size_t bl;
  char *out = NULL;
  int ok;
  if (!g)
    return NULL;
  ok = yajl_gen_array_open(g) == yajl_gen_status_ok &&
       yajl_gen_string(g, (const unsigned char *)tag, strlen(tag)) ==
           yajl_gen_status_ok;
  if (ok && str)
    ok = yajl_gen_string(g, (const unsigned char *)str, n) == yajl_gen_status_ok;
  else if (ok && json) /* a number token carries any JSON text unchanged */
    ok = yajl_gen_number(g, json, strlen(json)) == yajl_gen_status_ok;
  else if (ok)
    ok = yajl_gen_null(g) == yajl_gen_status_ok;
  if (ok && yajl_gen_array_close(g) == yajl_gen_status_ok &&
      yajl_gen_get_buf(g, &b, &bl) == yajl_gen_status_ok &&
      (out = run_dup_n((const char *)b, bl)))
    *len = bl;
  yajl_gen_free(g);
  return out;
}

/* A member's value is complete: keep it. */
static int finish(sp_t *p, const unsigned char *str, size_t slen) {
  const unsigned char *b;
  size_t len;
  run_jitem_t *it;
  size_t i = p->out->count++;
  if (p->dropping || (p->keep_max && str && slen > p->keep_max)) {
    /* not kept: counted, with no copy (json NULL) */
    p->dropping = 0;
    free(p->key);
    p->key = NULL;
    yajl_gen_clear(p->g);
    yajl_gen_reset(p->g, NULL);
    return 1;
  }
  if (i >= RUN_JSON_MAX_ITEMS) {
    free(p->key);
    p->key = NULL;
    yajl_gen_clear(p->g);
    yajl_gen_reset(p->g, NULL);
    return 1;
  }
  it = &p->out->item[i];
  yajl_gen_get_buf(p->g, &b, &len);
  it->key = p->key;
  p->key = NULL;
  it->json = run_dup_n((const char *)b, len);
  it->len = len;
  if (str) {
    it->str = run_dup_n((const char *)str, slen);
    it->slen = slen;
  }
  yajl_gen_clear(p->g);
  yajl_gen_reset(p->g, NULL);
  if (!it->json || (str && !it->str)) {
    p->why = "out of memory";
    return 0;
  }
  return 1;
}

static int scalar(sp_t *p, yajl_gen_status st, const unsigned char *str,
                  size_t slen) {
  if (p->depth == 0) {
    p->why = "not a JSON object or array";
    return 0;
  }
  if (!OK(st))
    return 0;
  return p->depth == 1 ? finish(p, str, slen) : 1;
}

/* The generator's call for a token, unless the member is not kept. */
#define GEN(p, call) (dropping(p) ? yajl_gen_status_ok : (call))

static int c_null(void *c) {
  sp_t *p = c;
  return scalar(p, GEN(p, yajl_gen_null(p->g)), NULL, 0);
}
static int c_bool(void *c, int b) {
  sp_t *p = c;
  return scalar(p, GEN(p, yajl_gen_bool(p->g, b)), NULL, 0);
}
static int c_num(void *c, const char *s, size_t n) {
  sp_t *p = c;
  return scalar(p, GEN(p, yajl_gen_number(p->g, s, n)), NULL, 0);
}
static int c_str(void *c, const unsigned char *s, size_t n) {
  sp_t *p = c;
  /* a long string a head split does not keep is not generated at all */
  if (p->depth == 1 && p->keep_max && n > p->keep_max)
    p->dropping = 1;
  return scalar(p, GEN(p, yajl_gen_string(p->g, s, n)), s, n);
}
static int c_key(void *c, const unsigned char *s, size_t n) {
  sp_t *p = c;
  if (p->depth == 1) {
    free(p->key);
    p->key = run_dup_n((const char *)s, n);
    return p->key != NULL;
  }
  return OK(GEN(p, yajl_gen_string(p->g, s, n)));
}
static int c_open(void *c, int map) {
  sp_t *p = c;
  if (p->depth == 0) {
    p->out->is_object = map;
    p->depth = 1;
    return 1;
  }
  if (++p->depth > RUN_JSON_MAX_DEPTH) {
    p->why = "nested too deeply";
    return 0;
  }
  return OK(GEN(p, map ? yajl_gen_map_open(p->g) : yajl_gen_array_open(p->g)));
}
static int c_close(void *c, int map) {
  sp_t *p = c;
  if (p->depth == 1) {
    p->depth = 0;
    return 1;
  }
  if (!OK(GEN(p, map ? yajl_gen_map_close(p->g) : yajl_gen_array_close(p->g))))
    return 0;
  return --p->depth == 1 ? finish(p, NULL, 0) : 1;
}
static int c_smap(void *c) { return c_open(c, 1); }
static int c_emap(void *c) { return c_close(c, 1); }
static int c_sarr(void *c) { return c_open(c, 0); }
static int c_earr(void *c) { return c_close(c, 0); }

static const yajl_callbacks cbs = {c_null, c_bool, NULL,  NULL,   c_num, c_str,
                                   c_smap, c_key,  c_emap, c_sarr, c_earr};

static int split(const char *buf, size_t n, run_jsplit_t *out, char *err,
                 size_t errsize, size_t keep_items, size_t keep_max) {
  sp_t p;
  yajl_handle h;
  yajl_status st;
  memset(out, 0, sizeof *out);
  memset(&p, 0, sizeof p);
  p.out = out;
  p.keep_items = keep_items;
  p.keep_max = keep_max;
  p.g = yajl_gen_alloc(NULL);
  h = p.g ? yajl_alloc(&cbs, NULL, &p) : NULL;
  if (!h) {
    snprintf(err, errsize, "out of memory");
    if (p.g)
      yajl_gen_free(p.g);
    return -1;
  }
  st = yajl_parse(h, (const unsigned char *)buf, n);
  if (st == yajl_status_ok)
    st = yajl_complete_parse(h);
  if (st != yajl_status_ok) {
    if (p.why) {
      snprintf(err, errsize, "%s at byte %zu", p.why,
               yajl_get_bytes_consumed(h));
    } else {
      unsigned char *e = yajl_get_error(h, 0, NULL, 0);
      char *nl = e ? strchr((char *)e, '\n') : NULL;
      if (nl)
        *nl = 0;
      snprintf(err, errsize, "invalid JSON (%s) at byte %zu",
               e ? (const char *)e : "?", yajl_get_bytes_consumed(h));
      if (e)
        yajl_free_error(h, e);
    }
    p.bad = 1;
  }
  yajl_free(h);
  yajl_gen_free(p.g);
  free(p.key);
  if (p.bad) {
    run_json_free(out);
    return -1;
  }
  return 0;
}

int run_json_split(const char *buf, size_t n, run_jsplit_t *out, char *err,
                   size_t errsize) {
  return split(buf, n, out, err, errsize, 0, 0);
}

int run_json_split_head(const char *buf, size_t n, run_jsplit_t *out,
                        char *err, size_t errsize, size_t items,
                        size_t max_bytes) {
  return split(buf, n, out, err, errsize, items ? items : 1,
               max_bytes ? max_bytes : 1);
}

void run_json_free(run_jsplit_t *s) {
  size_t i;
  for (i = 0; i < RUN_JSON_MAX_ITEMS; i++) {
    free(s->item[i].key);
    free(s->item[i].json);
    free(s->item[i].str);
  }
  memset(s, 0, sizeof *s);
}

const run_jitem_t *run_json_get(const run_jsplit_t *s, const char *key) {
  size_t i;
  for (i = 0; i < s->count && i < RUN_JSON_MAX_ITEMS; i++)
    if (s->item[i].key && !strcmp(s->item[i].key, key))
      return &s->item[i];
  return NULL;
}
