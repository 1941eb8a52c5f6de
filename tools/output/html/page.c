/* page.c — the HTML page written at the end: the template's head, the
 * data kept while reading (collect.c) as JSON, the template's tail. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report_html.h"

static const char *const q_names[Q_N] = {"pipe", "worker", "kernel", "total",
                                         "upcall"};

/* ---- the page ------------------------------------------------------- */

static void hists_json(yajl_gen g, const hists_t *h) {
  int q, b;
  yajl_gen_map_open(g);
  for (q = 0; q < Q_N; q++) {
    out_str(g, q_names[q]);
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
  out_str(g, "zero"); /* {"total": n, ...}: values of 0 or less */
  yajl_gen_map_open(g);
  for (q = 0; q < Q_N; q++)
    out_int(g, q_names[q], (long long)h->q[q].zero);
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
  out_int(g, "width", (long long)s->width);
  out_str(g, "buckets");
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
  out_int(g, "deliveries", (long long)t->n);
  out_int(g, "pipe_ns", t->pipe);
  out_int(g, "worker_ns", t->worker);
  out_int(g, "kernel_ns", t->kernel);
  out_int(g, "unmatched_ns", t->unmatched);
  out_int(g, "total_ns", t->total);
  out_int(g, "errors", (long long)t->n_error);
}

static void slow_marks_json(yajl_gen g, const hslow_t *s) {
  size_t j;
  out_str(g, "marks");
  yajl_gen_array_open(g);
  for (j = 0; j < s->nmarks; j++) {
    /* The name is its copy in names: hslow_t moves (it is sorted), so
     * the mark keeps no pointer into it. */
    ips_delivery_mark_t m = s->marks[j];
    m.name = s->names[j];
    out_mark(g, &m, m.at); /* at: kept since the worker's d */
  }
  yajl_gen_array_close(g);
  out_int(g, "marks_left_out", (long long)s->marks_more);
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
  out_str(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, top[i]);
    yajl_gen_map_open(g);
    out_kv(g, "vat", v->vat);
    totals_json(g, &v->t);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  out_int(g, "vats_left_out", (long long)left);
}

/* The summary's counts. */
static void summary_json(yajl_gen g, const ips_stats_t *st) {
  out_str(g, "summary");
  yajl_gen_map_open(g);
  totals_json(g, &st->all);
  out_int(g, "lines", (long long)st->lines);
  out_int(g, "lines_skipped", (long long)st->skipped_lines);
  out_int(g, "deliveries_skipped", (long long)st->skipped_deliveries);
  out_int(g, "timequakes", (long long)st->all.n_quake);
  out_int(g, "restarts", (long long)st->restarts);
  out_int(g, "replayed", (long long)st->all.n_replay);
  out_wait_totals(g, st);
  yajl_gen_map_close(g);
}

/* The histograms and the series over time, of all and of each vat
 * detailed: {"all": ..., "vats": {name: ...}} each; then the names a
 * series point's vat and method indices name. */
static void hists_series_json(html_t *h, yajl_gen g) {
  size_t i;
  out_str(g, "hist");
  yajl_gen_map_open(g);
  out_str(g, "all");
  hists_json(g, &h->all);
  out_str(g, "vats");
  yajl_gen_map_open(g);
  for (i = 0; i < h->nvats; i++) {
    out_str(g, h->vats[i].name);
    hists_json(g, &h->vats[i].h);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_str(g, "series");
  yajl_gen_map_open(g);
  out_str(g, "all");
  series_json(g, &h->alls);
  out_str(g, "vats");
  yajl_gen_map_open(g);
  for (i = 0; i < h->nvats; i++) {
    out_str(g, h->vats[i].name);
    series_json(g, &h->vats[i].s);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_int(g, "vats_not_detailed", (long long)h->vats_over);
  out_str(g, "names");
  yajl_gen_map_open(g);
  out_str(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nvats; i++)
    out_str(g, h->vats[i].name);
  yajl_gen_array_close(g);
  out_str(g, "methods");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nmethods; i++)
    out_str(g, h->methods[i]);
  yajl_gen_array_close(g);
  yajl_gen_map_close(g);
}

/* One of the slowest deliveries, with its segments and marks. */
static void slow_json(yajl_gen g, const hslow_t *s) {
  size_t j;
  yajl_gen_map_open(g);
  out_kv(g, "vat", s->vat);
  out_kv(g, "description", s->desc);
  out_kv(g, "method", s->method);
  out_str(g, "replay");
  yajl_gen_bool(g, s->replay);
  out_kv(g, "clock", s->clock == 'm' ? "mono" : "wall");
  out_int(g, "upcalls", (long long)s->n_up);
  out_int(g, "pipe_ns", s->pipe);
  out_int(g, "worker_ns", s->worker);
  out_int(g, "kernel_ns", s->kernel);
  out_int(g, "unmatched_ns", s->unmatched);
  out_int(g, "crank", s->crank);
  out_int(g, "deliveryNum", s->dnum);
  out_int(g, "line", s->line);
  out_int(g, "t_ns", s->t);
  out_int(g, "total_ns", s->total);
  out_str(g, "ok");
  yajl_gen_bool(g, s->ok);
  out_str(g, "timequake");
  yajl_gen_bool(g, s->quake);
  out_int(g, "segments_left_out", (long long)s->more);
  out_str(g, "segments");
  yajl_gen_array_open(g);
  for (j = 0; j < s->nseg; j++) {
    yajl_gen_array_open(g);
    out_str(g, ips_segment_name(s->kind[j]));
    yajl_gen_integer(g, s->len[j]);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  slow_marks_json(g, s);
  yajl_gen_map_close(g);
}

/* The timequakes and skips marked on the page, and the skips counted. */
static void marks_json(html_t *h, yajl_gen g, const ips_stats_t *st) {
  size_t i;
  int k;
  out_str(g, "timequakes");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nquakes; i++) {
    yajl_gen_array_open(g);
    yajl_gen_integer(g, h->quakes[i].t);
    yajl_gen_integer(g, h->quakes[i].line);
    yajl_gen_integer(g, h->quakes[i].v);
    out_str(g, h->quakes[i].vat);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  out_int(g, "timequakes_all", (long long)h->all_quakes);
  /* Each skip: its time, then its fields as skip_fields names them. */
  out_str(g, "skip_fields");
  out_skip_names(g);
  out_str(g, "skips");
  yajl_gen_array_open(g);
  for (i = 0; i < h->nskips; i++) {
    yajl_gen_array_open(g);
    yajl_gen_integer(g, h->skips[i].t);
    out_skip_values(g, &h->skips[i].s);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
  out_str(g, "skipped");
  yajl_gen_map_open(g);
  for (k = 0; k < IPS_SKIP_N; k++)
    if (st->skipped[k])
      out_int(g, ips_skip_message(k), (long long)st->skipped[k]);
  yajl_gen_map_close(g);
}

static void data_json(html_t *h, yajl_gen g, const ips_analysis_t *a,
                      const char *only, ips_groups_t *groups) {
  const ips_stats_t *st = ips_analysis_stats(a);
  size_t i, order[HTML_SLOW];
  yajl_gen_map_open(g);
  out_kv(g, "title", h->title);
  out_kv(g, "version", PACKAGE_VERSION);
  out_kv(g, "by", h->by_method ? "method" : "vat");
  summary_json(g, st);
  vats_json(g, a, only);
  hists_series_json(h, g);
  out_methods(g, groups);
  out_mark_names(g, a);
  ips_slowest_order(&h->keeper, order); /* slowest first, ties by line */
  out_str(g, "slowest");
  yajl_gen_array_open(g);
  for (i = 0; i < h->keeper.n; i++)
    slow_json(g, &h->slow[order[i]]);
  yajl_gen_array_close(g);
  marks_json(h, g, st);
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
      out_flush_script(g, h->out);
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
