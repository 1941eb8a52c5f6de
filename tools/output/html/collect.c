/* collect.c — what the report's HTML page keeps while reading (page.c
 * writes it).  The page is the report as one self-contained HTML page:
 * where the time went per vat, latency histograms, the slowest deliveries
 * as a waterfall, the total per delivery over time, timequakes and skips
 * marked.
 *
 * The page is the template tools/output/report.html.in (made into
 * report_html.h at build time) with the data in the middle as JSON; its
 * script draws SVG from the data.  What is kept while reading is bounded
 * whatever the input's size, so that a 100 MB slogfile makes a page a
 * browser opens at once:
 *   - histograms: HTML_BINS log bins (4 per octave of ns) per quantity, for
 *     all deliveries and for each of the first HTML_VATS vats;
 *   - the total over time: at most HTML_BUCKETS buckets of consecutive
 *     deliveries (HTML_BUCKETS / 4 per vat), each keeping its smallest and
 *     largest total.  When the buckets are full, neighbours merge pairwise
 *     and each bucket then holds twice as many deliveries: deterministic,
 *     and the extremes (a stall) always survive;
 *   - the slowest HTML_SLOW deliveries (at most) with their segments and
 *     up to HTML_SLOW_MARKS of the VM's marks and spans each;
 *   - the first HTML_METHODS methods' names, to colour by method;
 *   - the first HTML_MARKS timequakes and skips (all are counted).
 * Zero (and, on wall clocks, negative) values are counted apart from the
 * log bins, so that no 0 is drawn as the smallest bin, "1 ns". */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

html_out_t *html_open(FILE *f, const char *title, size_t top, int by_method) {
  html_t *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  h->out = f;
  h->by_method = by_method;
  h->title = title;
  h->maxslow = top < HTML_SLOW ? top : HTML_SLOW;
  h->vats = calloc(HTML_VATS, sizeof *h->vats);
  h->slow = calloc(h->maxslow ? h->maxslow : 1, sizeof *h->slow);
  h->alls.cap = HTML_BUCKETS;
  h->alls.b = calloc(HTML_BUCKETS, sizeof *h->alls.b);
  h->alls.width = 1;
  if (!h->vats || !h->slow || !h->alls.b ||
      ips_slowest_init(&h->keeper, h->maxslow) != 0) {
    free(h->vats);
    free(h->slow);
    free(h->alls.b);
    free(h);
    return NULL;
  }
  return h;
}

static void hist_one(hists_t *h, int q, int64_t v) {
  ips_loghist_add(&h->q[q], v);
}

static void hist_add(hists_t *h, const ips_delivery_t *d) {
  size_t i, ns = ips_delivery_stamped_upcalls(d);
  hist_one(h, Q_PIPE, d->pipe);
  hist_one(h, Q_WORKER, d->worker);
  hist_one(h, Q_KERNEL, d->kernel);
  hist_one(h, Q_TOTAL, d->total);
  for (i = 0; i < ns; i++)
    hist_one(h, Q_UPCALL, ips_delivery_upcall_wait(d, i));
}

/* Adds a point; when the buckets are full, each pair of neighbours becomes
 * one bucket of twice the width. */
static void series_add(series_t *s, const point_t *p) {
  bucket_t *b;
  if (s->n && s->b[s->n - 1].n < s->width) {
    b = &s->b[s->n - 1];
    if (p->total < b->lo.total)
      b->lo = *p;
    if (p->total > b->hi.total)
      b->hi = *p;
    b->n++;
    return;
  }
  if (s->n == s->cap) {
    size_t i;
    for (i = 0; i < s->n / 2; i++) {
      bucket_t x = s->b[2 * i], y = s->b[2 * i + 1];
      s->b[i] = x;
      s->b[i].n = x.n + y.n;
      if (y.lo.total < x.lo.total)
        s->b[i].lo = y.lo;
      if (y.hi.total > x.hi.total)
        s->b[i].hi = y.hi;
    }
    s->n /= 2;
    s->width *= 2;
    series_add(s, p); /* the last bucket may have room now */
    return;
  }
  b = &s->b[s->n++];
  b->n = 1;
  b->lo = b->hi = *p;
}

static hvat_t *vat_of(html_t *h, const char *name) {
  size_t i;
  for (i = 0; i < h->nvats; i++)
    if (!strcmp(h->vats[i].name, name))
      return &h->vats[i];
  if (h->nvats == HTML_VATS)
    return NULL;
  h->vats[h->nvats].s.b = calloc(HTML_BUCKETS / 4, sizeof(bucket_t));
  if (!h->vats[h->nvats].s.b) {
    h->oom = 1;
    return NULL;
  }
  h->vats[h->nvats].s.cap = HTML_BUCKETS / 4;
  h->vats[h->nvats].s.width = 1;
  snprintf(h->vats[h->nvats].name, NAME_MAX_, "%s", name);
  return &h->vats[h->nvats++];
}

/* The index of a method in the page's table (to colour by method), made
 * while there is room; -1 for the others. */
static int method_of(html_t *h, const char *name) {
  size_t i;
  for (i = 0; i < h->nmethods; i++)
    if (!strcmp(h->methods[i], name))
      return (int)i;
  if (h->nmethods == HTML_METHODS)
    return -1;
  snprintf(h->methods[h->nmethods], DESC_MAX_, "%s", name);
  return (int)h->nmethods++;
}

static void slow_add(html_t *h, const ips_delivery_t *d, int64_t t) {
  hslow_t *s;
  size_t j, ns;
  long slot = ips_slowest_slot(&h->keeper, d->total, (uint64_t)d->line);
  if (slot < 0)
    return;
  s = &h->slow[slot];
  out_copy_cut(s->vat, sizeof s->vat, d->vat);
  out_copy_cut(s->desc, sizeof s->desc, d->desc);
  out_copy_cut(s->method, sizeof s->method, d->method);
  s->replay = d->replay;
  s->clock = d->clock;
  s->n_up = d->n_up;
  s->unmatched = d->unmatched;
  s->nmarks = d->n_marks < HTML_SLOW_MARKS ? d->n_marks : HTML_SLOW_MARKS;
  s->marks_more = d->n_marks - s->nmarks;
  for (j = 0; j < s->nmarks; j++) {
    s->marks[j] = d->marks[j];
    s->marks[j].at -= d->W[0];
    out_copy_cut(s->names[j], NAME_MAX_, d->marks[j].name);
    s->marks[j].name = NULL; /* names[j]; see slow_marks_json */
  }
  s->crank = d->crank;
  s->dnum = d->dnum;
  s->line = d->line;
  s->ok = d->ok;
  s->quake = d->quake;
  s->t = t;
  s->total = d->total;
  s->pipe = d->pipe;
  s->worker = d->worker;
  s->kernel = d->kernel;
  ns = ips_delivery_nsegments(d);
  s->nseg = ns < HTML_SEGS ? ns : HTML_SEGS;
  s->more = ns - s->nseg;
  (void)ips_delivery_segments(d, 0, s->nseg, s->len, s->kind);
}

void html_delivery(html_t *h, const ips_stats_t *st, const ips_delivery_t *d) {
  int64_t o = ips_stats_origin(st, d);
  point_t p;
  hvat_t *v;
  p.t = d->P[0] - o;
  p.total = d->total;
  p.line = d->line;
  p.mi = method_of(h, d->method);
  v = vat_of(h, d->vat);
  p.vi = v ? (int)(v - h->vats) : -1;
  h->last_t = p.t;
  h->has_t = 1;
  hist_add(&h->all, d);
  series_add(&h->alls, &p);
  if (v) {
    hist_add(&v->h, d);
    series_add(&v->s, &p);
  } else {
    h->vats_over++;
  }
  slow_add(h, d, p.t);
  if (d->quake) {
    h->all_quakes++;
    if (h->nquakes < HTML_MARKS) {
      mark_t *m = &h->quakes[h->nquakes++];
      m->t = p.t;
      m->line = d->line;
      m->v = d->quake_ns;
      snprintf(m->vat, sizeof m->vat, "%s", d->vat);
    }
  }
}

void html_skip(html_t *h, const ips_skip_t *s) {
  h->all_skips++;
  if (s->reason < IPS_SKIP_MISSING) /* a line, not a delivery */
    return;
  if (h->nskips < HTML_MARKS) {
    hskip_t *m = &h->skips[h->nskips++];
    /* A skip has no time of its own: it is drawn where the reading was,
     * at the last delivery attributed before it. */
    m->t = h->has_t ? h->last_t : 0;
    m->s = *s;
    out_copy_cut(m->detail, sizeof m->detail, s->detail);
    m->s.detail = m->detail;
  }
}

