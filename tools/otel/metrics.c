/* metrics.c — the deliveries' distributions as OTLP metrics (JSON
 * encoding of ExportMetricsServiceRequest), for a fleet's dashboards: per
 * vat, kind and method, exponential histograms of each delivery's total
 * time and of its pipe, worker and kernel shares, and counters of
 * deliveries and timequakes; the analysis' skip counts beside them.
 *
 * Values are ns, kept as integers: a histogram's sum is the exact sum of
 * the report's figures (a double holds every integer up to 2^53 ns, 104
 * days of delivery time), so a dashboard and `ipcstamp report` agree.
 * The histograms have a fixed scale, 3 (buckets of a factor 2^(1/8),
 * about 9%): 505 buckets cover 1 ns to 2^63 ns, so a histogram never
 * needs to be rescaled, and two nodes' histograms merge bucket for bucket. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otel.h"

#define SCALE 3
#define NB 512    /* bucket indices -8 .. 503 (1 ns is bucket -1) */
#define LO (-8)

/* One exponential histogram. */
typedef struct {
  uint64_t count, zero;
  int64_t sum, min, max;
  uint64_t *pos, *neg; /* NB each, made on first use */
} exph_t;

enum { SHARE_PIPE, SHARE_WORKER, SHARE_KERNEL, SHARE_TOTAL, NSHARE };
static const char *const share_name[NSHARE] = {"pipe", "worker", "kernel",
                                               "total"};

typedef struct {
  char vat[64], kind[32], method[96];
  exph_t h[NSHARE];
  uint64_t deliveries, quakes;
} series_t;

struct otel_metrics_s {
  series_t *s;
  size_t n, cap;
  uint64_t fresh;
  int64_t last_end;
  int oom;
  uint64_t saturated; /* histogram sums held at the bound (ips_sum_add) */
};

otel_metrics_t *otel_metrics_new(void) {
  return calloc(1, sizeof(otel_metrics_t));
}

uint64_t otel_metrics_saturated(const otel_metrics_t *m) {
  return m ? m->saturated : 0;
}

void otel_metrics_free(otel_metrics_t *m) {
  size_t i, k;
  if (!m)
    return;
  for (i = 0; i < m->n; i++)
    for (k = 0; k < NSHARE; k++) {
      free(m->s[i].h[k].pos);
      free(m->s[i].h[k].neg);
    }
  free(m->s);
  free(m);
}

/* The bucket of v >= 1 at scale 3: i with 2^(i/8) < v <= 2^((i+1)/8),
 * exact at the powers of two (where the specification asks it to be). */
static int bucket(uint64_t v) {
  int e = 63 - __builtin_clzll(v), i;
  if (!(v & (v - 1)))
    return e * (1 << SCALE) - 1;
  i = (int)floor(log2((double)v) * (1 << SCALE));
  /* log2's rounding near a boundary: the bucket is the one v falls in */
  if (i < e * (1 << SCALE))
    i = e * (1 << SCALE);
  if (i > (e + 1) * (1 << SCALE) - 1)
    i = (e + 1) * (1 << SCALE) - 1;
  return i;
}

static void exph_add(otel_metrics_t *m, exph_t *h, int64_t v) {
  uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  uint64_t **b = v < 0 ? &h->neg : &h->pos;
  if (!h->count || v < h->min)
    h->min = v;
  if (!h->count || v > h->max)
    h->max = v;
  h->count++;
  m->saturated += (uint64_t)ips_sum_add(&h->sum, v);
  if (!a) {
    h->zero++;
    return;
  }
  if (!*b && !(*b = calloc(NB, sizeof **b))) {
    m->oom = 1; /* counted in count and sum, not in a bucket */
    return;
  }
  (*b)[bucket(a) - LO]++;
}

static series_t *series_of(otel_metrics_t *m, const char *vat,
                           const char *kind, const char *method) {
  size_t i;
  series_t *s;
  for (i = 0; i < m->n; i++) {
    s = &m->s[i];
    if (!strcmp(s->vat, vat) && !strcmp(s->kind, kind) &&
        !strcmp(s->method, method))
      return s;
  }
  /* Room is kept for the coarser series a delivery falls back to past
   * the bound: a method's at most OTEL_MAX_SERIES, a kind's half as many
   * more, a vat's as many again, and one for all. */
  if (m->n >= (method[0] ? OTEL_MAX_SERIES
               : kind[0] ? OTEL_MAX_SERIES + OTEL_MAX_SERIES / 2
               : vat[0]  ? 2 * OTEL_MAX_SERIES
                         : 2 * OTEL_MAX_SERIES + 1))
    return NULL;
  if (m->n == m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 16;
    series_t *ns = realloc(m->s, nc * sizeof *ns);
    if (!ns)
      return NULL;
    m->s = ns;
    m->cap = nc;
  }
  s = &m->s[m->n++];
  memset(s, 0, sizeof *s);
  snprintf(s->vat, sizeof s->vat, "%s", vat);
  snprintf(s->kind, sizeof s->kind, "%s", kind);
  snprintf(s->method, sizeof s->method, "%s", method);
  return s;
}

void otel_metrics_add(otel_metrics_t *m, const ips_delivery_t *d,
                      const char *kind, int64_t end_ns) {
  /* A message's method, as `report --by method` groups (a notify's
   * description holds promise ids: there would be a series per promise). */
  const char *k = kind ? kind : "",
             *method = !strcmp(k, "message") && d->method ? d->method : "";
  series_t *s = series_of(m, d->vat, k, method);
  if (!s) /* past the bound: coarser series, never a delivery lost */
    s = series_of(m, d->vat, k, "");
  if (!s)
    s = series_of(m, d->vat, "", "");
  if (!s)
    s = series_of(m, "", "", "");
  if (!s) {
    m->oom = 1;
    return;
  }
  exph_add(m, &s->h[SHARE_PIPE], d->pipe);
  exph_add(m, &s->h[SHARE_WORKER], d->worker);
  exph_add(m, &s->h[SHARE_KERNEL], d->kernel);
  exph_add(m, &s->h[SHARE_TOTAL], d->total);
  s->deliveries++;
  s->quakes += d->quake != 0;
  m->fresh++;
  if (end_ns > m->last_end)
    m->last_end = end_ns;
}

uint64_t otel_metrics_fresh(const otel_metrics_t *m) { return m->fresh; }

static void put_u64(otlp_req_t *r, const char *key, uint64_t v) {
  char b[64];
  snprintf(b, sizeof b, "\"%s\":\"%" PRIu64 "\"", key, v);
  otlp_put_raw(r, b);
}

/* The data point's attributes and times: "attributes":[...],
 * "startTimeUnixNano":..,"timeUnixNano":.. */
static void point_head(otlp_req_t *r, const series_t *s, const char *share,
                       int64_t t0, int64_t t1) {
  char b[96];
  int first = 1;
  otlp_put_raw(r, "{\"attributes\":[");
  if (s) {
    if (s->vat[0])
      otlp_attr_str(r, &first, "agoric.vatID", s->vat);
    if (s->kind[0])
      otlp_attr_str(r, &first, "agoric.delivery", s->kind);
    if (s->method[0])
      otlp_attr_str(r, &first, "ipcstamp.method", s->method);
  }
  if (share)
    otlp_attr_str(r, &first, "ipcstamp.share", share);
  snprintf(b, sizeof b,
           "],\"startTimeUnixNano\":\"%" PRId64 "\",\"timeUnixNano\":\"%"
           PRId64 "\"",
           t0, t1);
  otlp_put_raw(r, b);
}

static void buckets(otlp_req_t *r, const char *key, const uint64_t *b) {
  int lo = 0, hi = NB - 1, i;
  char num[32];
  if (!b)
    return;
  while (lo < NB && !b[lo])
    lo++;
  if (lo == NB)
    return;
  while (!b[hi])
    hi--;
  snprintf(num, sizeof num, ",\"%s\":{\"offset\":%d", key, lo + LO);
  otlp_put_raw(r, num);
  otlp_put_raw(r, ",\"bucketCounts\":[");
  for (i = lo; i <= hi; i++) {
    snprintf(num, sizeof num, "%s\"%" PRIu64 "\"", i > lo ? "," : "", b[i]);
    otlp_put_raw(r, num);
  }
  otlp_put_raw(r, "]}");
}

static void exph_point(otlp_req_t *r, const series_t *s, const char *share,
                       const exph_t *h, int64_t t0, int64_t t1) {
  char b[160];
  point_head(r, s, share, t0, t1);
  otlp_put_raw(r, ",");
  put_u64(r, "count", h->count);
  snprintf(b, sizeof b, ",\"sum\":%" PRId64 ",\"scale\":%d,", h->sum, SCALE);
  otlp_put_raw(r, b);
  put_u64(r, "zeroCount", h->zero);
  if (h->count) {
    snprintf(b, sizeof b, ",\"min\":%" PRId64 ",\"max\":%" PRId64, h->min,
             h->max);
    otlp_put_raw(r, b);
  }
  buckets(r, "positive", h->pos);
  buckets(r, "negative", h->neg);
  otlp_put_raw(r, "}");
}

/* "name", "description", "unit", then the kind of metric's opening. */
static void metric_head(otlp_req_t *r, int *first, const char *name,
                        const char *unit, const char *desc) {
  otlp_put_raw(r, *first ? "{\"name\":" : ",{\"name\":");
  *first = 0;
  otlp_put_string(r, name);
  otlp_put_raw(r, ",\"description\":");
  otlp_put_string(r, desc);
  otlp_put_raw(r, ",\"unit\":");
  otlp_put_string(r, unit);
}

/* AGGREGATION_TEMPORALITY_CUMULATIVE: each point counts from the start. */
#define CUMULATIVE "2"

static void counter(otlp_req_t *r, int *first, const char *name,
                    const char *desc, const series_t *s, size_t n,
                    size_t field, uint64_t total, int64_t t0, int64_t t1,
                    size_t *points) {
  size_t i;
  metric_head(r, first, name, "1", desc);
  otlp_put_raw(r, ",\"sum\":{\"aggregationTemporality\":" CUMULATIVE
                  ",\"isMonotonic\":true,\"dataPoints\":[");
  if (!s) {
    point_head(r, NULL, NULL, t0, t1);
    otlp_put_raw(r, ",");
    put_u64(r, "asInt", total);
    otlp_put_raw(r, "}");
    ++*points;
  }
  for (i = 0; s && i < n; i++) {
    if (i)
      otlp_put_raw(r, ",");
    point_head(r, &s[i], NULL, t0, t1);
    otlp_put_raw(r, ",");
    put_u64(r, "asInt", field ? s[i].quakes : s[i].deliveries);
    otlp_put_raw(r, "}");
    ++*points;
  }
  otlp_put_raw(r, "]}}");
}

char *otel_metrics_request(otel_metrics_t *m, const char *res,
                           const ips_stats_t *st, int64_t start_ns,
                           size_t *len, size_t *points) {
  otlp_req_t r;
  int first = 1;
  size_t i, k;
  int64_t t1 = m->last_end > start_ns ? m->last_end : start_ns;
  memset(&r, 0, sizeof r);
  *points = 0;
  otlp_put_raw(&r, "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[");
  otlp_put_raw(&r, res);
  otlp_put_raw(&r, res[0] ? ",{\"key\":\"ipcstamp.process\",\"value\":{"
                            "\"stringValue\":\"kernel\"}}"
                          : "{\"key\":\"ipcstamp.process\",\"value\":{"
                            "\"stringValue\":\"kernel\"}}");
  otlp_put_raw(&r, "]},\"scopeMetrics\":[{\"scope\":{\"name\":\"ipcstamp\","
                   "\"version\":\"" PACKAGE_VERSION "\"},\"metrics\":[");

  metric_head(&r, &first, "ipcstamp.delivery.duration", "ns",
              "a delivery's time, the kernel's D to E (the report's total)");
  otlp_put_raw(&r, ",\"exponentialHistogram\":{\"aggregationTemporality\":"
                   CUMULATIVE ",\"dataPoints\":[");
  for (i = 0; i < m->n; i++) {
    if (i)
      otlp_put_raw(&r, ",");
    exph_point(&r, &m->s[i], NULL, &m->s[i].h[SHARE_TOTAL], start_ns, t1);
    ++*points;
  }
  otlp_put_raw(&r, "]}}");

  metric_head(&r, &first, "ipcstamp.delivery.time", "ns",
              "a delivery's time by share (ipcstamp.share: pipe, worker, "
              "kernel), as the report attributes it");
  otlp_put_raw(&r, ",\"exponentialHistogram\":{\"aggregationTemporality\":"
                   CUMULATIVE ",\"dataPoints\":[");
  for (i = 0; i < m->n; i++)
    for (k = 0; k < SHARE_TOTAL; k++) {
      if (i || k)
        otlp_put_raw(&r, ",");
      exph_point(&r, &m->s[i], share_name[k], &m->s[i].h[k], start_ns, t1);
      ++*points;
    }
  otlp_put_raw(&r, "]}}");

  counter(&r, &first, "ipcstamp.deliveries", "deliveries attributed", m->s,
          m->n, 0, 0, start_ns, t1, points);
  counter(&r, &first, "ipcstamp.timequakes",
          "deliveries during which the wall clock jumped", m->s, m->n, 1, 0,
          start_ns, t1, points);
  if (st) {
    counter(&r, &first, "ipcstamp.deliveries.skipped",
            "deliveries the analysis could not attribute (bad records)", NULL,
            0, 0, st->skipped_deliveries, start_ns, t1, points);
    counter(&r, &first, "ipcstamp.records.skipped",
            "slogfile lines skipped (not JSON, not a record, too long)", NULL,
            0, 0, st->skipped_lines, start_ns, t1, points);
  }
  otlp_put_raw(&r, "]}]}]}");
  m->fresh = 0;
  if (r.oom || m->oom) {
    free(r.buf);
    return NULL;
  }
  *len = r.len;
  return r.buf;
}
