/* html.c — the report as one self-contained HTML page: where the time went
 * per vat, latency histograms, the slowest deliveries as a waterfall, the
 * total per delivery over time, timequakes and skips marked.
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

#include "output.h"
#include "report_html.h"

#define HTML_BINS IPS_LOGHIST_BINS
#define HTML_VATS 64
#define HTML_BUCKETS 2048
#define HTML_SLOW 50
/* Vats in the page's table of shares, at most: the busiest (by total
 * time); the others are counted (vats_left_out), so that the page's size
 * is bounded whatever the input (200,000 vats made a 33 MB page). */
#define HTML_VAT_ROWS 200
#define HTML_SEGS 512
#define HTML_MARKS 1000
#define HTML_SLOW_MARKS 64
#define HTML_METHODS 64
#define NAME_MAX_ 64
#define DESC_MAX_ 96

enum { Q_PIPE, Q_WORKER, Q_KERNEL, Q_TOTAL, Q_UPCALL, Q_N };
static const char *const q_names[Q_N] = {"pipe", "worker", "kernel", "total",
                                         "upcall"};

typedef struct {
  int64_t t, total;
  long line;
  int vi, mi; /* vat and method index (in html_out's tables); -1: other */
} point_t;

typedef struct {
  uint64_t n;
  point_t lo, hi;
} bucket_t;

typedef struct {
  bucket_t *b;
  size_t n, cap;
  uint64_t width; /* deliveries per full bucket */
} series_t;

typedef struct {
  ips_loghist_t q[Q_N];
} hists_t;

typedef struct {
  char name[NAME_MAX_];
  hists_t h;
  series_t s;
} hvat_t;

typedef struct {
  char vat[NAME_MAX_], desc[DESC_MAX_], method[DESC_MAX_];
  long long crank, dnum;
  long line;
  int ok, quake, replay;
  char clock;
  size_t n_up;
  int64_t t, total, pipe, worker, kernel, unmatched;
  size_t nseg, more; /* segments kept; segments left out (very many) */
  unsigned char kind[HTML_SEGS];
  int64_t len[HTML_SEGS];
  size_t nmarks, marks_more;
  ips_delivery_mark_t marks[HTML_SLOW_MARKS]; /* at: since the worker's d;
                                                  name NULL: in names */
  char names[HTML_SLOW_MARKS][NAME_MAX_];
} hslow_t;

typedef struct {
  int64_t t;
  long line;
  int64_t v;          /* a quake's size; a skip's reason */
  char vat[NAME_MAX_];
} mark_t;

struct html_out {
  FILE *out;
  const char *title;
  hists_t all;
  series_t alls;
  hvat_t *vats;
  size_t nvats;
  char methods[HTML_METHODS][DESC_MAX_];
  size_t nmethods;
  uint64_t vats_over; /* deliveries of vats past HTML_VATS */
  hslow_t *slow;         /* maxslow slots, as the keeper says */
  ips_slowest_t keeper;
  size_t maxslow;
  mark_t quakes[HTML_MARKS], skips[HTML_MARKS];
  size_t nquakes, nskips;
  uint64_t all_quakes, all_skips;
  int64_t last_t;
  int has_t, oom;
  int by_method;       /* the shares per method at first */
};
typedef struct html_out html_t;

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
    mark_t *m = &h->skips[h->nskips++];
    /* A skip has no time of its own: it is drawn where the reading was,
     * at the last delivery attributed before it. */
    m->t = h->has_t ? h->last_t : 0;
    m->line = s->line;
    m->v = s->reason;
    m->vat[0] = '\0';
  }
}

/* ---- the page ------------------------------------------------------- */

#define gs out_str
#define gi out_int

/* What g holds, to f, with every '<' as \u003c: the data sits in a
 * <script> element, which "</script>" or "<!--" in a vat name or a method
 * (they come from the input) must not end or confuse.  '<' appears in JSON
 * only inside strings, where \u003c means the same. */
static void flush_safe(yajl_gen g, FILE *f) {
  const unsigned char *buf;
  size_t len, i, from = 0;
  yajl_gen_get_buf(g, &buf, &len);
  for (i = 0; i < len; i++) {
    if (buf[i] == '<') {
      fwrite(buf + from, 1, i - from, f);
      fputs("\\u003c", f);
      from = i + 1;
    }
  }
  fwrite(buf + from, 1, len - from, f);
  yajl_gen_clear(g);
}

static void hists_json(yajl_gen g, const hists_t *h) {
  int q, b;
  yajl_gen_map_open(g);
  for (q = 0; q < Q_N; q++) {
    gs(g, q_names[q]);
    yajl_gen_array_open(g); /* sparse: [bin, count] pairs */
    for (b = 0; b < HTML_BINS; b++)
      if (h->q[q].bin[b]) {
        yajl_gen_array_open(g);
        yajl_gen_integer(g, b);
        yajl_gen_integer(g, (long long)h->q[q].bin[b]);
        yajl_gen_array_close(g);
      }
    yajl_gen_array_close(g);
  }
  gs(g, "zero"); /* {"total": n, ...}: values of 0 or less */
  yajl_gen_map_open(g);
  for (q = 0; q < Q_N; q++)
    gi(g, q_names[q], (long long)h->q[q].zero);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
}

static void point_json(yajl_gen g, const point_t *p) {
  yajl_gen_array_open(g);
  yajl_gen_integer(g, p->t);
  yajl_gen_integer(g, p->total);
  yajl_gen_integer(g, p->line);
  yajl_gen_integer(g, p->vi);
  yajl_gen_integer(g, p->mi);
  yajl_gen_array_close(g);
}

/* Buckets as [n, lo, hi] (hi left out when it is lo: a single delivery). */
static void series_json(yajl_gen g, const series_t *s) {
  size_t i;
  yajl_gen_map_open(g);
  gi(g, "width", (long long)s->width);
  gs(g, "buckets");
  yajl_gen_array_open(g);
  for (i = 0; i < s->n; i++) {
    const bucket_t *b = &s->b[i];
    yajl_gen_array_open(g);
    yajl_gen_integer(g, (long long)b->n);
    point_json(g, &b->lo);
    if (b->lo.line != b->hi.line)
      point_json(g, &b->hi);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  yajl_gen_map_close(g);
}

static void totals_json(yajl_gen g, const ips_totals_t *t) {
  gi(g, "deliveries", (long long)t->n);
  gi(g, "pipe_ns", t->pipe);
  gi(g, "worker_ns", t->worker);
  gi(g, "kernel_ns", t->kernel);
  gi(g, "unmatched_ns", t->unmatched);
  gi(g, "total_ns", t->total);
  gi(g, "errors", (long long)t->n_error);
}

static void slow_marks_json(yajl_gen g, const hslow_t *s) {
  size_t j;
  gs(g, "marks");
  yajl_gen_array_open(g);
  for (j = 0; j < s->nmarks; j++) {
    /* The name is its copy in names: hslow_t moves (it is sorted), so
     * the mark keeps no pointer into it. */
    ips_delivery_mark_t m = s->marks[j];
    m.name = s->names[j];
    out_mark(g, &m, m.at); /* at: kept since the worker's d */
  }
  yajl_gen_array_close(g);
  gi(g, "marks_left_out", (long long)s->marks_more);
}

/* Whether vat i of a is shown: it has deliveries, and is --vat's. */
static int vat_shown(const ips_analysis_t *a, size_t i, const char *only) {
  const ips_vat_stats_t *v = ips_analysis_vat(a, i);
  return v->t.n && !(only && strcmp(only, v->vat));
}

/* "vats": the HTML_VAT_ROWS busiest shown vats, in the analysis's order,
 * and "vats_left_out": how many more there are. */
static void vats_json(yajl_gen g, const ips_analysis_t *a, const char *only) {
  size_t top[HTML_VAT_ROWS], n = 0, i, j, nv = ips_analysis_nvats(a);
  uint64_t left = 0;
  for (i = 0; i < nv; i++) { /* top: the busiest so far, busiest first */
    int64_t t;
    if (!vat_shown(a, i, only))
      continue;
    t = ips_analysis_vat(a, i)->t.total;
    if (n == HTML_VAT_ROWS) {
      left++;
      if (ips_analysis_vat(a, top[n - 1])->t.total >= t)
        continue;
      n--;
    }
    for (j = n++; j > 0 && ips_analysis_vat(a, top[j - 1])->t.total < t; j--)
      top[j] = top[j - 1];
    top[j] = i;
  }
  for (i = 1; i < n; i++) /* back in the analysis's order */
    for (j = i; j > 0 && top[j - 1] > top[j]; j--) {
      size_t x = top[j];
      top[j] = top[j - 1];
      top[j - 1] = x;
    }
  gs(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, top[i]);
    yajl_gen_map_open(g);
    out_kv(g, "vat", v->vat);
    totals_json(g, &v->t);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  gi(g, "vats_left_out", (long long)left);
}

static void data_json(html_t *h, yajl_gen g, const ips_analysis_t *a,
                      const char *only, ips_groups_t *groups) {
  const ips_stats_t *st = ips_analysis_stats(a);
  size_t i, j, order[HTML_SLOW];
  int k;
  yajl_gen_map_open(g);
  out_kv(g, "title", h->title);
  out_kv(g, "version", PACKAGE_VERSION);
  out_kv(g, "by", h->by_method ? "method" : "vat");
  gs(g, "summary");
  yajl_gen_map_open(g);
  totals_json(g, &st->all);
  gi(g, "lines", (long long)st->lines);
  gi(g, "lines_skipped", (long long)st->skipped_lines);
  gi(g, "deliveries_skipped", (long long)st->skipped_deliveries);
  gi(g, "timequakes", (long long)st->all.n_quake);
  gi(g, "restarts", (long long)st->restarts);
  gi(g, "replayed", (long long)st->all.n_replay);
  out_wait_totals(g, st);
  yajl_gen_map_close(g);
  vats_json(g, a, only);
  gs(g, "hist"); /* {"all": ..., "vats": {name: ...}} */
  yajl_gen_map_open(g);
  gs(g, "all");
  hists_json(g, &h->all);
  gs(g, "vats");
  yajl_gen_map_open(g);
  for (i = 0; i < h->nvats; i++) {
    gs(g, h->vats[i].name);
    hists_json(g, &h->vats[i].h);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  gs(g, "series"); /* {"all": ..., "vats": {name: ...}} */
  yajl_gen_map_open(g);
  gs(g, "all");
  series_json(g, &h->alls);
  gs(g, "vats");
  yajl_gen_map_open(g);
  for (i = 0; i < h->nvats; i++) {
    gs(g, h->vats[i].name);
    series_json(g, &h->vats[i].s);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  gi(g, "vats_not_detailed", (long long)h->vats_over);
  gs(g, "names"); /* what a series point's vat and method indices name */
  yajl_gen_map_open(g);
  gs(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nvats; i++)
    gs(g, h->vats[i].name);
  yajl_gen_array_close(g);
  gs(g, "methods");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nmethods; i++)
    gs(g, h->methods[i]);
  yajl_gen_array_close(g);
  yajl_gen_map_close(g);
  out_methods(g, groups);
  out_mark_names(g, a);
  ips_slowest_order(&h->keeper, order); /* slowest first, ties by line */
  gs(g, "slowest");
  yajl_gen_array_open(g);
  for (i = 0; i < h->keeper.n; i++) {
    const hslow_t *s = &h->slow[order[i]];
    yajl_gen_map_open(g);
    out_kv(g, "vat", s->vat);
    out_kv(g, "description", s->desc);
    out_kv(g, "method", s->method);
    gs(g, "replay");
    yajl_gen_bool(g, s->replay);
    out_kv(g, "clock", s->clock == 'm' ? "mono" : "wall");
    gi(g, "upcalls", (long long)s->n_up);
    gi(g, "pipe_ns", s->pipe);
    gi(g, "worker_ns", s->worker);
    gi(g, "kernel_ns", s->kernel);
    gi(g, "unmatched_ns", s->unmatched);
    gi(g, "crank", s->crank);
    gi(g, "deliveryNum", s->dnum);
    gi(g, "line", s->line);
    gi(g, "t_ns", s->t);
    gi(g, "total_ns", s->total);
    gs(g, "ok");
    yajl_gen_bool(g, s->ok);
    gs(g, "timequake");
    yajl_gen_bool(g, s->quake);
    gi(g, "segments_left_out", (long long)s->more);
    gs(g, "segments");
    yajl_gen_array_open(g);
    for (j = 0; j < s->nseg; j++) {
      yajl_gen_array_open(g);
      gs(g, ips_segment_name(s->kind[j]));
      yajl_gen_integer(g, s->len[j]);
      yajl_gen_array_close(g);
    }
    yajl_gen_array_close(g);
    slow_marks_json(g, s);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  gs(g, "timequakes");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nquakes; i++) {
    yajl_gen_array_open(g);
    yajl_gen_integer(g, h->quakes[i].t);
    yajl_gen_integer(g, h->quakes[i].line);
    yajl_gen_integer(g, h->quakes[i].v);
    gs(g, h->quakes[i].vat);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  gi(g, "timequakes_all", (long long)h->all_quakes);
  gs(g, "skips");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nskips; i++) {
    yajl_gen_array_open(g);
    yajl_gen_integer(g, h->skips[i].t);
    yajl_gen_integer(g, h->skips[i].line);
    gs(g, ips_skip_message((int)h->skips[i].v));
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  gs(g, "skipped");
  yajl_gen_map_open(g);
  for (k = 0; k < IPS_SKIP_N; k++)
    if (st->skipped[k])
      gi(g, ips_skip_message(k), (long long)st->skipped[k]);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
}

int html_close(html_t *h, const ips_analysis_t *a, const char *only,
               ips_groups_t *methods) {
  int rc = h->oom ? -1 : 0;
  size_t i;
  if (a) {
    yajl_gen g = out_gen();
    if (!g) {
      rc = -1;
    } else {
      yajl_gen_config(g, yajl_gen_escape_solidus, 1);
      fputs(report_html_head, h->out);
      data_json(h, g, a, only, methods);
      flush_safe(g, h->out);
      fputs(report_html_tail, h->out);
      yajl_gen_free(g);
    }
  }
  for (i = 0; i < h->nvats; i++)
    free(h->vats[i].s.b);
  free(h->vats);
  free(h->slow);
  ips_slowest_free(&h->keeper);
  free(h->alls.b);
  free(h);
  return rc;
}
