/* analysis.c — the public face of the analysis: sources, the reading
 * loop, the statistics and the figures as text. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "causes.h"
#include "ring_meter.h"

struct ips_source_s {
  ips__slog_ahead_t *in;
};

void ips_source_options_init(ips_source_options_t *o) {
  memset(o, 0, sizeof *o);
  o->max_line = IPS_DEFAULT_MAX_LINE;
}

int ips_source_open(ips_source_t **out, const char *path,
                    const ips_source_options_t *o, char *err, size_t errlen) {
  ips_source_options_t d;
  ips_source_t *s;
  *out = NULL;
  if (!o) {
    ips_source_options_init(&d);
    o = &d;
  }
  if (!path || (o->max_line && o->max_line < IPS_MIN_MAX_LINE)) {
    snprintf(err, errlen, "invalid source options");
    return IPS_EINVAL;
  }
  s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return IPS_ENOMEM;
  }
  errno = 0;
  s->in = ips__slog_ahead_open(path,
                               o->max_line ? o->max_line : IPS_DEFAULT_MAX_LINE,
                               o->strict, o->follow, err, errlen);
  if (!s->in) {
    int e = errno ? -errno : IPS_EINVAL;
    free(s);
    return e;
  }
  *out = s;
  return 0;
}

void ips_source_progress(const ips_source_t *s, uint64_t *done,
                         uint64_t *total) {
  ips__slog_ahead_progress(s->in, done, total);
}

unsigned long ips_source_reopened(ips_source_t *s) {
  return ips__slog_ahead_reopened(s->in);
}

void ips_source_close(ips_source_t *s) {
  if (!s)
    return;
  ips__slog_ahead_close(s->in);
  free(s);
}

void ips_analysis_options_init(ips_analysis_options_t *o) {
  memset(o, 0, sizeof *o);
  o->clock = IPS_CLOCK_AUTO;
  o->quake_ns = 1000000;
  o->top = 10;
}

int ips_analysis_new(ips_analysis_t **out, const ips_analysis_options_t *o) {
  ips_analysis_t *a;
  *out = NULL;
  if (!o || o->clock < IPS_CLOCK_AUTO || o->clock > IPS_CLOCK_WALL ||
      o->quake_ns < 0 || o->top > 1000000 || o->since_ns < 0 ||
      o->until_ns < 0 || o->crank_min < 0 || o->crank_max < 0)
    return IPS_EINVAL;
  a = calloc(1, sizeof *a);
  if (!a)
    return IPS_ENOMEM;
  a->o = *o;
  a->o.vat = NULL; /* only the copy is used */
  a->hcap = 64;
  a->hash = calloc(a->hcap, sizeof *a->hash);
  /* A delivery's stamps are converted into these two arrays, sized once
   * for the largest delivery accepted. */
  a->P = malloc(sizeof(int64_t) * (2 + (size_t)IPS__MAX_STAMPS));
  a->W = malloc(sizeof(int64_t) * (2 + (size_t)IPS__MAX_STAMPS));
  a->PQ = malloc(sizeof(int64_t) * (2 + (size_t)IPS__MAX_STAMPS));
  a->WQ = malloc(sizeof(int64_t) * (2 + (size_t)IPS__MAX_STAMPS));
  a->slow = calloc(o->top ? o->top : 1, sizeof *a->slow);
  a->slow_sorted = calloc(o->top ? o->top : 1, sizeof *a->slow_sorted);
  a->slow_order = calloc(o->top ? o->top : 1, sizeof *a->slow_order);
  a->slow_marks = calloc(o->top ? o->top : 1, sizeof *a->slow_marks);
  if (o->vat)
    a->vat_filter = strdup(o->vat);
  if (!a->hash || !a->P || !a->W || !a->PQ || !a->WQ || !a->slow || !a->slow_sorted ||
      !a->slow_order || !a->slow_marks || ips_slowest_init(&a->keeper, o->top) != 0 ||
      (o->vat && !a->vat_filter)) {
    ips_analysis_free(a);
    return IPS_ENOMEM;
  }
  *out = a;
  return 0;
}

void ips_analysis_free(ips_analysis_t *a) {
  if (!a)
    return;
  ips__attr_free(a);
  ips__ringm_free(a->ringm);
  ips__os_join_free(a->osj);
  ips__causes_free(a->causes);
  free(a->slow);
  free(a->slow_sorted);
  free(a->slow_order);
  free(a->slow_marks);
  ips_slowest_free(&a->keeper);
  free(a->vat_filter);
  free(a);
}

int ips_analysis_worker_rings(ips_analysis_t *a, const char *dir) {
  if (!a || !dir || a->ringm || a->st.lines)
    return IPS_EINVAL;
  return ips__ringm_open(&a->ringm, dir);
}

size_t ips_analysis_worker_rings_errors(const ips_analysis_t *a,
                                        const char **first) {
  *first = "";
  return a->ringm ? ips__ringm_errors(a->ringm, first) : 0;
}

size_t ips_analysis_worker_rings_skipped(const ips_analysis_t *a) {
  return a->ringm ? ips__ringm_skipped(a->ringm) : 0;
}

int ips_analysis_keep_causes(ips_analysis_t *a) {
  if (!a || a->st.lines)
    return IPS_EINVAL;
  if (!a->causes && !(a->causes = ips__causes_new()))
    return IPS_ENOMEM;
  return 0;
}

int ips_analysis_causes(const ips_analysis_t *a, long line,
                        ips_delivery_causes_t *out) {
  return a->causes ? ips__causes_get(a->causes, line, out) : 0;
}

uint64_t ips_analysis_causes_forgotten(const ips_analysis_t *a) {
  return a->causes ? ips__causes_forgotten(a->causes) : 0;
}

const ips_stats_t *ips_analysis_stats(const ips_analysis_t *a) {
  return &a->st;
}

long ips_analysis_read(ips_analysis_t *a, ips_source_t *s, size_t max_lines,
                       char *err, size_t errlen) {
  ips__slog_item_t it;
  ips_stats_t *st = &a->st;
  long n = 0;
  int r = 0;
  if (a->read_err) {
    snprintf(err, errlen, "%s", a->read_msg);
    return a->read_err;
  }
  while ((max_lines == 0 || (size_t)n < max_lines) &&
         (!a->o.limit || a->shown < a->o.limit) &&
         (r = ips__slog_ahead_next(s->in, &it, err, errlen)) == 1) {
    const ips__rec_t *rec = it.rec;
    long ln = ips__slog_ahead_lineno(s->in);
    n++;
    st->lines++;
    /* The kinds and causes from the line itself, the same reader's. */
    if (a->causes && ips__slog_ahead_take(s->in, ips__causes_take, a->causes))
      ips__causes_line(a->causes, ln);
    if (it.flags & IPS__LINE_TOOLONG) {
      char d[64];
      snprintf(d, sizeof d, "%zu bytes", it.len);
      ips__skip(a, NULL, ln, IPS_SKIP_TOO_LONG, d);
      continue;
    }
    if (it.parsed < 0) {
      ips__skip(a, NULL, ln,
                it.parsed == -2                ? IPS_SKIP_MISSING
                : (it.flags & IPS__LINE_NOEOL) ? IPS_SKIP_TRUNCATED
                                               : IPS_SKIP_NOT_JSON,
                it.err);
      continue;
    }
    if (rec->type == IPS__REC_OTHER)
      st->other++;
    /* The anchors are the first record the analysis read before pids were
     * (create-vat was not): ids and times derived from them stay the same
     * for the same file (docs/otel.md). */
    if (rec->type == IPS__REC_WORKER || rec->type == IPS__REC_BLOCK)
      ; /* (nor were block records, read since) */
    else if (!st->first_time_ok && (rec->have & IPS__F_TIME)) {
      st->first_time_ok = 1;
      st->first_time = rec->time_ns;
    }
    if (!st->first_mono_ok && rec->type != IPS__REC_BLOCK &&
        (rec->have & IPS__F_MONO)) {
      st->first_mono_ok = 1;
      st->first_mono = rec->mono_ns;
    }
    if (a->ringm && rec->type == IPS__REC_RESULT &&
        (rec->have & IPS__F_WALLS) && !(rec->have & IPS__F_WMONO)) {
      a->ring_note = ips__ringm_fill(a->ringm, rec, &a->ring_rec);
      if (a->ring_note == IPS_RING_JOINED)
        rec = &a->ring_rec;
    }
    ips__attr_feed(a, rec, ln);
    a->ring_note = 0;
  }
  if (r < 0) {
    /* Lines read before the fault are delivered first; the fault comes
     * with the next call, and stays. */
    a->read_err = IPS_EIO;
    snprintf(a->read_msg, sizeof a->read_msg, "%s", err);
  }
  if (n > 0)
    return n;
  if (r == IPS__SLOG_AGAIN)
    return -EAGAIN;
  return r < 0 ? a->read_err : 0;
}

/* By hand rather than snprintf: the report prints a dozen per delivery,
 * and this was a tenth of its instructions one digit at a time.  The
 * length is known first, so the digits go straight to their place, two
 * per division, from the last; the last three are the fraction. */
size_t ips_put_us(char *buf, int64_t ns) {
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  uint64_t q = a / 1000, t;
  unsigned r = (unsigned)(a % 1000);
  size_t n = 1 + (ns < 0), len;
  char *p;
  for (t = q; t >= 10; t /= 10)
    n++;
  len = n + 4;
  p = buf + len - 4;
  p[0] = '.';
  p[1] = (char)('0' + r / 100);
  p[2] = (char)('0' + r / 10 % 10);
  p[3] = (char)('0' + r % 10);
  while (q >= 100) {
    unsigned v = (unsigned)(q % 100);
    q /= 100;
    p -= 2;
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
  }
  if (q >= 10) {
    p -= 2;
    p[0] = (char)('0' + q / 10);
    p[1] = (char)('0' + q % 10);
  } else {
    *--p = (char)('0' + q);
  }
  if (ns < 0)
    *--p = '-';
  return len;
}

const char *ips_format_us(char *buf, int64_t ns) {
  buf[ips_put_us(buf, ns)] = '\0';
  return buf;
}

