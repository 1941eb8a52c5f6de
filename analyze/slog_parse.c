/* slog_parse.c — one slogfile line into an ips__rec_t.
 *
 * yajl's streaming parser tokenises everything the report reads.  When it
 * reaches a payload the report does not read (vsc, vsr, kd, the result, a
 * message's arguments), a callback cancels the parse; ips__json_skip() steps
 * over the value, and a fresh yajl handle resumes after it, primed with a
 * muted prefix that reopens the enclosing containers.  So every byte outside
 * the payloads is validated by yajl, and a payload is still checked for
 * matching brackets and closed strings (enough to see a cut line).
 * With strict set, nothing is skipped.
 *
 * The tokens themselves are read by slog_fields.c's callbacks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "ipcstamp-slog.h"
#include "slog.h"
#include "slog_parse.h"

static void *a_malloc(void *ctx, size_t n);
static void *a_realloc(void *ctx, void *ptr, size_t n);
static void a_free(void *ctx, void *ptr);

ips__parser_t *ips__parser_new(int mode) {
  ips__parser_t *p = calloc(1, sizeof *p);
  int strict = (mode & IPS__PARSE_STRICT) != 0;
  if (!p)
    return NULL;
  p->strict = strict;
  p->noskip = strict;
  p->fast = !strict && !(mode & IPS__PARSE_NOFAST);
  p->rec.walls = malloc(IPS__MAX_STAMPS * sizeof(int64_t));
  p->rec.wmono = malloc(IPS__MAX_STAMPS * sizeof(int64_t));
  p->rec.wrunq = malloc(IPS__MAX_STAMPS * sizeof(int64_t));
  p->rec.kinds = malloc(IPS__MAX_STAMPS + 1);
  if (!p->rec.walls || !p->rec.wmono || !p->rec.wrunq || !p->rec.kinds) {
    ips__parser_free(p);
    return NULL;
  }
  p->af.malloc = a_malloc;
  p->af.realloc = a_realloc;
  p->af.free = a_free;
  p->af.ctx = p;
  ips__parse_callbacks(&p->cb);
  return p;
}

void ips__parser_free(ips__parser_t *p) {
  if (!p)
    return;
  free(p->rec.walls);
  free(p->rec.wmono);
  free(p->rec.wrunq);
  free(p->rec.kinds);
  ips__meter_release(&p->rec.meter);
  free(p);
}

static size_t skip_ws(const char *s, size_t len, size_t pos) {
  while (pos < len &&
         (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == '\n'))
    pos++;
  return pos;
}

/* ---- the fast path ------------------------------------------------- *
 * The payloads run up to the record's tail, `,"time":T,"monotime":M}`
 * (docs/slogfile.md puts them last), so instead of scanning a payload we find
 * the tail from the end of the line and let yajl parse the tail.  What is
 * between is checked only at its ends; --strict reads every byte. */

static void find_anchor(ips__parser_t *p) {
  static const char pat[] = ",\"time\":";
  size_t i, lo = p->len > 512 ? p->len - 512 : 0;
  p->anchor = 0;
  if (p->noskip || p->len < 8)
    return;
  for (i = p->len - 8 + 1; i-- > lo;)
    if (p->line[i] == ',' && !memcmp(p->line + i, pat, 8)) {
      p->anchor = (long)i;
      return;
    }
}

static size_t back_ws(const char *s, size_t i) {
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\r'))
    i--;
  return i;
}

/* The value starting at from can end right before the anchor: it starts like
 * a value, and the byte before the anchor closes it (or closes `closer`). */
static int tail_ok(const ips__parser_t *p, size_t from, char closer) {
  const char *s = p->line;
  size_t end;
  char first, last;
  if (p->anchor <= 0 || (size_t)p->anchor <= from)
    return 0;
  end = back_ws(s, (size_t)p->anchor);
  if (end <= from)
    return 0;
  first = s[from];
  last = s[end - 1];
  if (closer)
    return last == closer;
  switch (first) {
    case '[': return last == ']';
    case '{': return last == '}';
    case '"': return last == '"' && end - from >= 2;
    default:
      return (first == '-' || (first >= '0' && first <= '9') || first == 't' ||
              first == 'f' || first == 'n') &&
             ((last >= '0' && last <= '9') || last == 'e' || last == 'l');
  }
}

/* yajl allocates a handle, a lexer and buffers per resume: a bump arena
 * reset at each line takes malloc off the hot path. */
static void *a_malloc(void *ctx, size_t n) {
  ips__parser_t *p = ctx;
  size_t need = (n + 16 + 15) & ~(size_t)15;
  char *b;
  if (p->used + need <= sizeof p->arena) {
    b = p->arena + p->used;
    p->used += need;
  } else if (!(b = malloc(n + 16))) {
    return NULL;
  }
  memcpy(b, &n, sizeof n);
  return b + 16;
}

static int in_arena(ips__parser_t *p, void *ptr) {
  return (char *)ptr >= p->arena && (char *)ptr < p->arena + sizeof p->arena;
}

static void a_free(void *ctx, void *ptr) {
  if (ptr && !in_arena(ctx, ptr))
    free((char *)ptr - 16);
}

static void *a_realloc(void *ctx, void *ptr, size_t n) {
  size_t old;
  void *np;
  if (!ptr)
    return a_malloc(ctx, n);
  memcpy(&old, (char *)ptr - 16, sizeof old);
  if (n <= old)
    return ptr;
  np = a_malloc(ctx, n);
  if (!np)
    return NULL;
  memcpy(np, ptr, old);
  a_free(ctx, ptr);
  return np;
}

static yajl_handle new_handle(ips__parser_t *p) {
  yajl_handle h = yajl_alloc(&p->cb, &p->af, p);
  if (h && !p->strict)
    yajl_config(h, yajl_dont_validate_strings, 1);
  return h;
}

static void reset(ips__parser_t *p) {
  ips__rec_t *r = &p->rec;
  r->type = IPS__REC_OTHER;
  r->have = 0;
  r->ok = 0;
  r->descbuf[0] = r->vatbuf[0] = '\0';
  r->vat_len = 0;
  r->vat = r->vatbuf;
  r->desc = r->descbuf;
  r->pid = 0;
  r->n_walls = r->n_wmono = r->n_kinds = r->n_wrunq = 0;
  r->prunq = 0;
  r->kinds[0] = '\0';
  r->dropped = 0;
  r->cpu_ns = 0;
  r->ipsv = 0;
  r->n_marks = r->n_mnames = r->mnames_len = 0;
  r->mdropped = r->munbalanced = 0;
  r->sub = 0;
  r->height = r->btime = r->compute = 0;
  r->compress_ns = r->dbsave_ns = 0;
  p->depth = 0;
  p->top_seen = 0;
  p->mute = 0;
  p->pending = P_NONE;
  p->vdtype = V_OTHER;
  p->nvp = 0;
  p->to_tail = 0;
  p->extract = 0;
  p->dr_msg = 0;
}

static int parse_line(ips__parser_t *p, const char *line, size_t len,
                      const ips__rec_t **rec, char *err, size_t errlen);

/* Our parent's own records are matched first (slog_fast.c); anything else
 * goes to yajl.  A line the skipping path refuses is parsed again without skipping before it
 * is reported: a tail anchor found inside a payload (a record whose time
 * is not last, as some writers do) must not make a valid line "not JSON".
 * Refusals are rare, so this costs nothing on a good file. */
int ips__slog_parse(ips__parser_t *p, const char *line, size_t len,
                    const ips__rec_t **rec, char *err, size_t errlen) {
  int rc;
  if (p->fast) {
    reset(p);
    *rec = &p->rec;
    if (ips__slog_fast(&p->rec, line, len))
      return 0;
  }
  rc = parse_line(p, line, len, rec, err, errlen);
  if (rc < 0 && !p->strict) {
    p->noskip = 1;
    rc = parse_line(p, line, len, rec, err, errlen);
    p->noskip = 0;
  }
  return rc;
}

/* After a cancel, step over the value the callbacks left to skip (what:
 * P_SKIP_KEYVAL or P_SKIP_ELEM), from its separator at pos.  Returns the
 * index after it, or -1 with err set. */
static long skip_value(ips__parser_t *p, int what, size_t pos, char *err,
                       size_t errlen) {
  const char *line = p->line;
  size_t len = p->len, from;
  char sep = what == P_SKIP_KEYVAL ? ':' : ',';
  long e = -1;
  if (pos >= len || line[pos] != sep) {
    if (what == P_SKIP_ELEM && pos < len && line[pos] == ']')
      return (long)pos; /* nothing to skip: the array ended */
    snprintf(err, errlen, "expected '%c' at byte %zu", sep, pos + 1);
    return -1;
  }
  from = skip_ws(line, len, pos + 1);
  if (p->to_tail && tail_ok(p, from, p->extract ? ']' : 0)) {
    if (p->extract) {
      ips__desc_method(p->rec.descbuf, line + from,
                       (size_t)p->anchor - from);
      p->depth = 1; /* the rest of vd closes before the anchor */
    }
    e = p->anchor;
  }
  if (e < 0) {
    e = ips__json_skip(line, len, from, 0);
    if (e < 0) {
      snprintf(err, errlen, "the value at byte %zu is cut or unbalanced",
               from + 1);
      return -1;
    }
    if (p->extract)
      ips__desc_method(p->rec.descbuf, line + from, (size_t)e - from);
  }
  p->extract = 0;
  p->to_tail = 0;
  /* An error's message may say which meter killed the worker: read as the
   * fast path reads it (a string without escapes). */
  if (p->dr_msg && line[from] == '"' && (size_t)e - from >= 2 &&
      !memchr(line + from + 1, '\\', (size_t)e - from - 2) &&
      ips__meter_killed(line + from + 1, (size_t)e - from - 2))
    p->rec.have |= IPS__F_METERKILL;
  p->dr_msg = 0;
  if (what == P_SKIP_ELEM)
    ips__parse_elem_done(p);
  return e;
}

/* After a cancel at dr[2]'s opening brace (just before at): the metering
 * through the decoder (slog_meter.c), which says where it ends.  Returns
 * the index after it, or -1 or -2 with err set (the decoder's message,
 * placed in the line). */
static long meter_value(ips__parser_t *p, size_t at, char *err,
                        size_t errlen, int *rc) {
  size_t from = at - 1, used = 0;
  char msg[200];
  if (at == 0 || p->line[from] != '{') {
    snprintf(err, errlen, "the metering at byte %zu is not an object", at);
    *rc = -1;
    return -1;
  }
  *rc = ips__slog_meter(&p->rec, p->line + from, p->len - from, &used, msg,
                        sizeof msg);
  if (*rc != 0) {
    snprintf(err, errlen, "%s (the metering starts at byte %zu)", msg,
             from + 1);
    return -1;
  }
  ips__parse_elem_done(p);
  return (long)(from + used);
}

/* After a cancel, step over the rest of the container (P_SKIP_REST) from
 * pos.  Returns the index after it, or -1 with err set. */
static long skip_rest(ips__parser_t *p, size_t pos, char *err,
                      size_t errlen) {
  long e;
  if (p->to_tail && tail_ok(p, pos, ']')) {
    e = p->anchor;
    p->depth = 1;
  } else {
    e = ips__json_skip(p->line, p->len, pos, 1);
    if (e < 0) {
      snprintf(err, errlen, "the value at byte %zu is cut or unbalanced",
               pos + 1);
      return -1;
    }
    ips__parse_pop(p);
  }
  p->to_tail = 0;
  return e;
}

/* A new handle that resumes the line at pos: the enclosing containers are
 * reopened, muted, since the parser's own stack already knows where it
 * is.  NULL with err set when it cannot. */
static yajl_handle reopen(ips__parser_t *p, size_t pos, char *err,
                          size_t errlen) {
  char prefix[MAXD * 4];
  size_t pl = 0;
  int d;
  yajl_handle h;
  if (p->depth <= 0 || p->depth >= MAXD) {
    snprintf(err, errlen, "trailing bytes at byte %zu", pos + 1);
    return NULL;
  }
  for (d = 1; d <= p->depth; d++) {
    prefix[pl++] = p->stk[d] == 'm' ? '{' : '[';
    if (d < p->depth && p->stk[d] == 'm') {
      memcpy(prefix + pl, "\"\":", 3);
      pl += 3;
    }
  }
  h = new_handle(p);
  if (!h) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  p->mute = 1;
  yajl_parse(h, (const unsigned char *)prefix, pl);
  p->mute = 0;
  return h;
}

/* yajl's own message for the error at pos (its first line), into err;
 * frees h. */
static int parse_error(yajl_handle h, const char *line, size_t len,
                       size_t pos, char *err, size_t errlen) {
  unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)line + pos,
                                    len - pos);
  size_t at = pos + yajl_get_bytes_consumed(h);
  char *nl;
  if (m && (nl = strchr((char *)m, '\n')))
    *nl = '\0';
  snprintf(err, errlen, "%s near byte %zu",
           m ? (const char *)m : "parse error", at + 1);
  if (m)
    yajl_free_error(h, m);
  yajl_free(h);
  return -1;
}

/* After a cancel to skip (P_SKIP_*), the skipped value or rest from pos:
 * the index after it, or -1 with err set. */
static long step_over(ips__parser_t *p, int what, size_t pos, char *err,
                      size_t errlen) {
  return what == P_SKIP_REST ? skip_rest(p, pos, err, errlen)
                             : skip_value(p, what, pos, err, errlen);
}

static int parse_line(ips__parser_t *p, const char *line, size_t len,
                      const ips__rec_t **rec, char *err, size_t errlen) {
  size_t pos = 0;
  yajl_handle h;
  yajl_status st;
  reset(p);
  *rec = &p->rec;
  p->line = line;
  p->len = len;
  p->used = 0;
  find_anchor(p);
  pos = skip_ws(line, len, 0);
  if (pos == len) {
    snprintf(err, errlen, "empty line");
    return -1;
  }
  if (line[pos] != '{') {
    snprintf(err, errlen, "starts with '%c', not '{'",
             line[pos] >= 0x20 && line[pos] < 0x7f ? line[pos] : '?');
    return -1;
  }
  h = new_handle(p);
  if (!h) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (;;) {
    st = yajl_parse(h, (const unsigned char *)line + pos, len - pos);
    if (st == yajl_status_ok) {
      st = yajl_complete_parse(h);
      if (st == yajl_status_ok) {
        yajl_free(h);
        if (!(p->top_seen & (1ull << K_TYPE))) {
          snprintf(err, errlen, "the record has no type");
          return -2;
        }
        return 0;
      }
      if (st == yajl_status_error) {
        snprintf(err, errlen, "the line ends inside a JSON value (byte %zu)",
                 len);
        yajl_free(h);
        return -1;
      }
    }
    if (st == yajl_status_client_canceled) {
      size_t at = pos + yajl_get_bytes_consumed(h);
      int what = p->pending;
      long e;
      yajl_free(h);
      p->pending = P_NONE;
      if (what == P_STOP)
        return 0;
      if (what == P_ERR) {
        snprintf(err, errlen, "%s", p->err);
        return -2;
      }
      int rc = -1;
      if (what == P_METER)
        e = meter_value(p, at, err, errlen, &rc);
      else
        e = step_over(p, what, skip_ws(line, len, at), err, errlen);
      if (e < 0)
        return rc;
      pos = skip_ws(line, len, (size_t)e);
      if (pos < len && line[pos] == ',') {
        size_t nx = skip_ws(line, len, pos + 1);
        if (nx >= len || line[nx] == '}' || line[nx] == ']') {
          snprintf(err, errlen, "stray ',' at byte %zu", pos + 1);
          return -1;
        }
        pos++;
      }
      if (!(h = reopen(p, pos, err, errlen)))
        return -1;
      continue;
    }
    return parse_error(h, line, len, pos, err, errlen);
  }
}
