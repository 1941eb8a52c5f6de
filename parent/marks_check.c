/* marks_check.c — the checks the parent makes on metering v2's
 * "ipcstamp.marks" before it carries the metering into the slog.
 *
 * A second streaming pass over the metering, run only when the first one
 * (metering.c) found version 2: a metering without marks costs nothing
 * more.  It holds the marks to the worker library's own bounds and form, so
 * that what the analysis reads was checked where it entered. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-parent.h"
#include "ipcstamp-metering.h"
#include "marks_check.h"
#include "digits.h"

enum { MK_NONE, MK_NAMES, MK_EVENTS, MK_DROPPED, MK_UNBAL, MK_OTHER };

typedef struct {
  int depth;          /* containers open */
  int path;           /* 1: in "ipcstamp" (depth 2), 2: in "marks" (3) */
  int key1, key2, key3; /* which key's value comes next, per level */
  int in;             /* MK_NAMES / MK_EVENTS while inside that array */
  int ev_field;       /* index inside the event being read, or -1 */
  int64_t mono_lo, mono_hi;
  uint64_t nnames, nevents, name_bytes;
  int64_t ev_name;
  int seen_marks;
  char *err;
  size_t errsize;
  int failed;
  yajl_handle h;
} mc_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int bad(mc_t *c, const char *fmt, ...) {
  va_list ap;
  size_t len;
  if (c->failed++ || c->errsize == 0)
    return 0;
  len = (size_t)snprintf(c->err, c->errsize, "metering: ");
  if (len >= c->errsize)
    return 0;
  va_start(ap, fmt);
  vsnprintf(c->err + len, c->errsize - len, fmt, ap);
  va_end(ap);
  len = strlen(c->err);
  snprintf(c->err + len, c->errsize - len, " at byte %zu",
           c->h ? yajl_get_bytes_consumed(c->h) : (size_t)0);
  return 0;
}


/* Scalars and container openings at the levels we check. */
static int value(mc_t *c, int t, const char *s, size_t n) {
  int64_t v;
  if (c->in == MK_NAMES && c->depth == 4) {
    if (t != 's' || n == 0 || n > 255)
      return bad(c, "ipcstamp.marks.names[%" PRIu64 "] is not a name of 1 "
                    "to 255 bytes", c->nnames);
    c->name_bytes += n;
    if (++c->nnames > IPS_MAX_MARKS || c->name_bytes > IPS_MAX_MARK_BYTES)
      return bad(c, "ipcstamp.marks.names exceed %u names or %u bytes",
                 IPS_MAX_MARKS, IPS_MAX_MARK_BYTES);
    return 1;
  }
  if (c->in == MK_EVENTS && c->depth == 4) {
    if (t != '[')
      return bad(c, "ipcstamp.marks.events[%" PRIu64 "] is not a list",
                 c->nevents);
    if (++c->nevents > IPS_MAX_MARKS)
      return bad(c, "ipcstamp.marks has more than %u events", IPS_MAX_MARKS);
    c->ev_field = 0;
    return 1;
  }
  if (c->in == MK_EVENTS && c->depth == 5) {
    uint64_t i = c->nevents - 1;
    switch (c->ev_field++) {
      case 0:
        if (t != 's' || n != 1 || (s[0] != 'm' && s[0] != 'b' && s[0] != 'e'))
          return bad(c, "ipcstamp.marks.events[%" PRIu64 "][0] is not \"m\", "
                        "\"b\" or \"e\"", i);
        return 1;
      case 1:
        if (t != 'n' || !ips__parse_uint(s, n, &c->ev_name))
          return bad(c, "ipcstamp.marks.events[%" PRIu64 "][1] is not a name "
                        "index", i);
        return 1;
      case 2:
        if (t != 'n')
          return bad(c, "ipcstamp.marks.events[%" PRIu64 "][2] is not a wall "
                        "time", i);
        return 1;
      case 3:
        if (t != 'n' || !ips__parse_uint(s, n, &v))
          return bad(c, "ipcstamp.marks.events[%" PRIu64 "][3] is not integer "
                        "nanoseconds", i);
        if (v < c->mono_lo || v > c->mono_hi)
          return bad(c, "ipcstamp.marks.events[%" PRIu64 "] lies outside the "
                        "command's d..e", i);
        return 1;
      default:
        return bad(c, "ipcstamp.marks.events[%" PRIu64 "] has more than 4 "
                      "fields", i);
    }
  }
  if (c->path == 2 && c->depth == 3) {
    int k = c->key3;
    c->key3 = MK_NONE;
    if ((k == MK_NAMES || k == MK_EVENTS) && t != '[')
      return bad(c, "ipcstamp.marks.%s is not a list",
                 k == MK_NAMES ? IPS_MK_NAMES : IPS_MK_EVENTS);
    if ((k == MK_DROPPED || k == MK_UNBAL) && (t != 'n' || !ips__parse_uint(s, n, &v)))
      return bad(c, "ipcstamp.marks.%s is not a count",
                 k == MK_DROPPED ? IPS_MK_DROPPED : IPS_MK_UNBALANCED);
    if (t == '[' && (k == MK_NAMES || k == MK_EVENTS))
      c->in = k;
    return 1;
  }
  if (c->path == 1 && c->depth == 2 && c->key2 == 1) {
    c->key2 = 0;
    if (t != '{')
      return bad(c, "ipcstamp.marks is not an object");
    c->path = 2;
    c->seen_marks = 1;
    return 1;
  }
  if (c->depth == 1 && c->key1 == 1 && t == '{') {
    c->key1 = 0;
    c->path = 1;
  }
  return 1;
}

static int open_(mc_t *c, int t) {
  int ok = value(c, t, NULL, 0);
  c->depth++;
  return ok;
}

static int close_(void *ctx) {
  mc_t *c = ctx;
  c->depth--;
  if (c->in == MK_EVENTS && c->depth == 4) {
    if (c->ev_field != 4)
      return bad(c, "ipcstamp.marks.events[%" PRIu64 "] is not [kind, name, "
                    "wall, mono]", c->nevents - 1);
    if ((uint64_t)c->ev_name >= c->nnames)
      return bad(c, "ipcstamp.marks.events[%" PRIu64 "] names an index past "
                    "the names", c->nevents - 1);
  }
  if (c->depth == 3 && c->in)
    c->in = MK_NONE;
  if (c->depth == 2 && c->path == 2)
    c->path = 1;
  if (c->depth == 1 && c->path == 1)
    c->path = 0;
  return 1;
}

static int cb_null(void *ctx) { return value(ctx, '0', NULL, 0); }
static int cb_bool(void *ctx, int b) { (void)b; return value(ctx, '0', NULL, 0); }
static int cb_num(void *ctx, const char *s, size_t n) {
  return value(ctx, 'n', s, n);
}
static int cb_str(void *ctx, const unsigned char *s, size_t n) {
  return value(ctx, 's', (const char *)s, n);
}
static int cb_map(void *ctx) { return open_(ctx, '{'); }
static int cb_arr(void *ctx) { return open_(ctx, '['); }
static int cb_key(void *ctx, const unsigned char *s, size_t n) {
  mc_t *c = ctx;
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(s, lit, n))
  if (c->depth == 1)
    c->key1 = IS(IPS_MK_IPCSTAMP);
  else if (c->depth == 2 && c->path == 1)
    c->key2 = IS(IPS_MK_MARKS);
  else if (c->depth == 3 && c->path == 2)
    c->key3 = IS(IPS_MK_NAMES)        ? MK_NAMES
              : IS(IPS_MK_EVENTS)     ? MK_EVENTS
              : IS(IPS_MK_DROPPED)    ? MK_DROPPED
              : IS(IPS_MK_UNBALANCED) ? MK_UNBAL
                                 : MK_OTHER;
#undef IS
  return 1;
}

static const yajl_callbacks cbs = {cb_null, cb_bool, NULL,   NULL,
                                   cb_num,  cb_str,  cb_map, cb_key,
                                   close_,  cb_arr,  close_};

int ips__marks_check(const char *buf, size_t n, const ips_metering_t *m,
                     char *err, size_t errsize) {
  mc_t c;
  yajl_handle h;
  memset(&c, 0, sizeof c);
  c.err = err;
  c.errsize = errsize;
  c.ev_field = -1;
  if (m->n < 2 || !m->mono_ns)
    return 0; /* nothing to hold the marks to: metering.c has refused it */
  c.mono_lo = m->mono_ns[0];
  c.mono_hi = m->mono_ns[m->n - 1];
  h = yajl_alloc(&cbs, NULL, &c);
  if (!h) {
    if (errsize)
      snprintf(err, errsize, "metering: out of memory");
    return IPS_ENOMEM;
  }
  c.h = h;
  /* The first pass accepted the JSON: only our own stops end this one. */
  if (yajl_parse(h, (const unsigned char *)buf, n) == yajl_status_ok)
    yajl_complete_parse(h);
  yajl_free(h);
  return c.failed ? IPS_EMETERING : 0;
}
