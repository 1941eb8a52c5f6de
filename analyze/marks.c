/* marks.c — a delivery's marks and spans (metering v2, issue 14): the
 * worker's events on the delivery's clock, spans paired, in time order, and
 * the per-name totals.  Nothing here runs for a delivery without marks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "marks.h"

typedef struct {
  int64_t t;
  uint32_t seq;  /* recording order: the tie-break (a measure's b, then e) */
  uint32_t name;
  char kind;
} ev_t;

typedef struct {
  size_t out;
  uint32_t name;
} open_t;

static int cmp_ev(const void *x, const void *y) {
  const ev_t *a = x, *b = y;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Names are untrusted bytes (the yajl path does not check UTF-8): keep
 * valid UTF-8, make control bytes and broken sequences '?', so that every
 * writer can print them. */
static void sanitise(char *d, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, o = 0;
  while (u[i]) {
    unsigned c = u[i];
    size_t k = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1
               : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 9;
    size_t j;
    if (k == 0) {
      d[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
      i++;
      continue;
    }
    for (j = 1; k != 9 && j <= k; j++)
      if ((u[i + j] & 0xc0) != 0x80)
        k = 9;
    if (k == 9) {
      d[o++] = '?';
      i++;
      continue;
    }
    memcpy(d + o, u + i, k + 1);
    o += k + 1;
    i += k + 1;
  }
  d[o] = '\0';
}

static int ready(ips_analysis_t *a) {
  if (a->dmarks)
    return 1;
  a->dmarks = malloc(IPS_MAX_MARKS * sizeof *a->dmarks);
  a->dmnames = malloc(IPS__MNAMES_BYTES);
  a->msort = malloc(IPS_MAX_MARKS * sizeof(ev_t));
  a->mopen = malloc(IPS_MAX_MARKS * sizeof(open_t));
  a->mstats = calloc(IPS_MAX_MARK_NAMES, sizeof *a->mstats);
  if (a->dmarks && a->dmnames && a->msort && a->mopen && a->mstats)
    return 1;
  ips__marks_free(a);
  return 0;
}

const char *ips__marks_build(ips_analysis_t *a, const ips__rec_t *r,
                             ips_delivery_t *dv, int use_wall, int64_t off,
                             size_t k) {
  ev_t *ev;
  open_t *op;
  ips_delivery_mark_t *out;
  const int64_t *W = dv->W;
  size_t i, n = r->n_marks, nout = 0, nopen = 0, keep;

  if (n == 0)
    return NULL;
  if (!ready(a))
    return "out of memory for the delivery's marks";
  ev = a->msort;
  op = a->mopen;
  out = a->dmarks;
  for (i = 0; i < r->n_mnames; i++)
    sanitise(a->dmnames + r->mname_off[i], r->mnames + r->mname_off[i]);
  for (i = 0; i < n; i++) {
    const ips__mark_t *m = &r->marks[i];
    int64_t src = dv->clock == 'w' && use_wall ? m->wall : m->mono;
    if (m->name >= r->n_mnames)
      return "a mark names an index past ipcstamp.marks.names";
    if (src < 0 || src >= IPS_STAMP_LIMIT)
      return "a mark's stamp is not in [0, 2^62) ns";
    ev[i].t = dv->clock == 'w' ? src - off : src;
    if (ev[i].t < W[0] || ev[i].t > W[k - 1])
      return "a mark lies outside the worker's d..e";
    ev[i].seq = (uint32_t)i;
    ev[i].name = m->name;
    ev[i].kind = m->kind;
  }
  qsort(ev, n, sizeof *ev, cmp_ev);
  for (i = 0; i < n; i++) {
    ips_delivery_mark_t *o;
    if (ev[i].kind == 'e') {
      /* The innermost open span of that name, as the worker paired them;
       * an end without one was counted as unbalanced by the worker. */
      size_t j = nopen;
      while (j > 0 && op[j - 1].name != ev[i].name)
        j--;
      if (j == 0)
        continue;
      o = &out[op[j - 1].out];
      o->dur = ev[i].t - o->at;
      memmove(op + j - 1, op + j, (nopen - j) * sizeof *op);
      nopen--;
      continue;
    }
    o = &out[nout];
    o->name = a->dmnames + r->mname_off[ev[i].name];
    o->kind = ev[i].kind == 'b' ? 's' : 'm';
    o->depth = (int)nopen;
    o->at = ev[i].t;
    o->dur = ev[i].kind == 'b' ? -1 : 0;
    {
      /* Worker stretch: how many r stamps (W[2], W[4], ...) are at or
       * before it. */
      size_t lo = 0, hi = dv->n_up;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (W[2 + 2 * mid] <= o->at)
          lo = mid + 1;
        else
          hi = mid;
      }
      o->wseg = lo;
    }
    if (ev[i].kind == 'b') {
      op[nopen].out = nout;
      op[nopen].name = ev[i].name;
      nopen++;
    }
    nout++;
  }
  /* Spans left open were reported by the worker; they have no length. */
  for (i = keep = 0; i < nout; i++)
    if (out[i].dur >= 0)
      out[keep++] = out[i];
  dv->n_marks = keep;
  dv->marks = keep ? out : NULL;
  return NULL;
}

void ips__marks_count(ips_analysis_t *a, const ips_delivery_t *dv) {
  size_t i, j;
  for (i = 0; i < dv->n_marks; i++) {
    const ips_delivery_mark_t *m = &dv->marks[i];
    ips_mark_stats_t *s = NULL;
    for (j = 0; j < a->nmstats; j++)
      if (strcmp(a->mstats[j].name, m->name) == 0) {
        s = &a->mstats[j];
        break;
      }
    if (!s) {
      char *copy;
      if (a->nmstats == IPS_MAX_MARK_NAMES ||
          (copy = strdup(m->name)) == NULL) {
        a->marks_over++;
        continue;
      }
      s = &a->mstats[a->nmstats++];
      s->name = copy;
    }
    if (m->kind == 'm') {
      s->n_marks++;
    } else {
      s->n_spans++;
      /* dur <= 2^62 and the count is far below 2^61 spans... but a sum can
       * still overflow on hostile input: saturate rather than wrap. */
      s->span_ns = m->dur > INT64_MAX - s->span_ns ? INT64_MAX
                                                   : s->span_ns + m->dur;
      if (m->dur > s->span_max_ns)
        s->span_max_ns = m->dur;
    }
  }
}

void ips__marks_free(ips_analysis_t *a) {
  size_t i;
  for (i = 0; a->mstats && i < a->nmstats; i++)
    free((char *)a->mstats[i].name);
  free(a->dmarks);
  free(a->dmnames);
  free(a->msort);
  free(a->mopen);
  free(a->mstats);
  a->dmarks = NULL;
  a->dmnames = NULL;
  a->msort = NULL;
  a->mopen = NULL;
  a->mstats = NULL;
  a->nmstats = 0;
}

size_t ips_analysis_nmarks(const ips_analysis_t *a) { return a->nmstats; }

const ips_mark_stats_t *ips_analysis_mark(const ips_analysis_t *a, size_t i) {
  return i < a->nmstats ? &a->mstats[i] : NULL;
}

uint64_t ips_analysis_marks_over(const ips_analysis_t *a) {
  return a->marks_over;
}
