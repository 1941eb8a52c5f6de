/* latency.c — a percentile table, HdrHistogram-style, of one quantity. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output.h"

static const double pcts[] = {25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999, 100};

const char *const latency_names[LAT_N] = {
    "pipe", "worker", "kernel", "total", "upcall",
    "transit", "wait", "runnable", "blocked"};

void latency_add(ips_hist_t *h, int what, const ips_delivery_t *d) {
  size_t i, ns;
  switch (what) {
    case LAT_PIPE: ips_hist_add(h, d->pipe); break;
    case LAT_WORKER: ips_hist_add(h, d->worker); break;
    case LAT_KERNEL: ips_hist_add(h, d->kernel); break;
    case LAT_TOTAL: ips_hist_add(h, d->total); break;
    /* Only deliveries that carry the figure (has_wait): nothing invented.
     * transit and wait are per pipe segment, over the split ones. */
    case LAT_TRANSIT:
    case LAT_WAIT:
      ns = ips_delivery_nsegments(d);
      for (i = 0; i < ns && d->has_wait; i++) {
        const char *name;
        int64_t len = ips_delivery_segment(d, i, &name),
                w = ips_delivery_segment_wait(d, i);
        if (w >= 0)
          ips_hist_add(h, what == LAT_WAIT ? w : len - w);
      }
      break;
    case LAT_RUNNABLE:
      if (d->has_runnable) ips_hist_add(h, d->runnable_ns);
      break;
    case LAT_BLOCKED:
      if (d->has_runnable && d->has_cpu) ips_hist_add(h, d->blocked_ns);
      break;
    default:
      /* the upcalls the worker stamped (xsnap stops at 250) */
      ns = ips_delivery_stamped_upcalls(d);
      for (i = 0; i < ns; i++)
        ips_hist_add(h, ips_delivery_upcall_wait(d, i));
  }
}

void latency_add_span(ips_hist_t *h, const char *name,
                      const ips_delivery_t *d) {
  size_t i;
  for (i = 0; i < d->n_marks; i++)
    if (d->marks[i].kind == 's' && strcmp(d->marks[i].name, name) == 0)
      ips_hist_add(h, d->marks[i].dur);
}

/* The list's INT fields (the maps by system call are not one value); of
 * them latency takes those in ns (not the counts, not the pids). */
#define OS_INT(name, type, unit, in, when, value, text, otel, meaning) \
  OS_INT_##type(#name, unit)
#define OS_INT_INT(name, unit) {name, unit},
#define OS_INT_BY(name, unit)
static const struct {
  const char *name, *unit;
} os_ints[] = {IPS_OS_FIELDS(OS_INT)};
#undef OS_INT

int latency_os_next(size_t *k, const char **name) {
  for (; *k < sizeof os_ints / sizeof *os_ints; ++*k)
    if (!strcmp(os_ints[*k].unit, "ns")) {
      *name = os_ints[*k].name;
      return 1;
    }
  return 0;
}

int latency_os_find(const char *name) {
  size_t k = 0;
  const char *n;
  for (; latency_os_next(&k, &n); k++)
    if (!strcmp(n, name))
      return (int)k;
  return -1;
}

int latency_os_value(size_t k, const ips_delivery_t *d, int64_t *out) {
  size_t i = 0;
  if (!d->os)
    return 0;
#define OS_VAL(name, type, unit, in, when, value, text, otel, meaning) \
  OS_VAL_##type((when), value)
#define OS_VAL_INT(on, v) \
  if (i++ == k) {         \
    if (!(on))            \
      return 0;           \
    *out = (v);           \
    return 1;             \
  }
#define OS_VAL_BY(on, v)
  IPS_OS_FIELDS(OS_VAL)
#undef OS_VAL
  return 0;
}

void latency_add_os(ips_hist_t *h, size_t k, const ips_delivery_t *d) {
  int64_t v;
  if (latency_os_value(k, d, &v))
    ips_hist_add(h, v);
}

void latency_table(FILE *f, const ips_hist_t *h, const char *label) {
  char b[2][32];
  size_t i;
  fprintf(f, "%s time, microseconds, %" PRIu64 " values\n", label, h->count);
  fprintf(f, "%12s %16s\n", "percentile", "value");
  for (i = 0; i < sizeof pcts / sizeof pcts[0]; i++)
    fprintf(f, "%12.3f %16s\n", pcts[i],
           ips_format_us(b[0], ips_hist_percentile(h, pcts[i])));
  fprintf(f, "mean %.3f  stddev %.3f  min %s  max %s\n",
          ips_hist_mean(h) / 1000.0, ips_hist_stddev(h) / 1000.0,
          ips_format_us(b[0], h->count ? h->min : 0),
          ips_format_us(b[1], h->count ? h->max : 0));
  if (h->negative)
    fprintf(f, "%" PRIu64 " negative values (clock offset error) counted as 0\n",
           h->negative);
}

void latency_json(FILE *f, const ips_hist_t *h, const char *label) {
  yajl_gen g = out_gen();
  size_t i;
  char num[64];
  if (!g)
    return;
  yajl_gen_map_open(g);
  out_str(g, "what");
  out_str(g, label);
  out_str(g, "unit");
  out_str(g, "ns");
  out_str(g, "count");
  yajl_gen_integer(g, (long long)h->count);
  out_str(g, "mean");
  snprintf(num, sizeof num, "%.1f", ips_hist_mean(h));
  yajl_gen_number(g, num, strlen(num));
  out_str(g, "stddev");
  snprintf(num, sizeof num, "%.1f", ips_hist_stddev(h));
  yajl_gen_number(g, num, strlen(num));
  out_str(g, "min");
  yajl_gen_integer(g, h->count ? h->min : 0);
  out_str(g, "max");
  yajl_gen_integer(g, h->count ? h->max : 0);
  out_str(g, "negative");
  yajl_gen_integer(g, (long long)h->negative);
  out_str(g, "percentiles");
  yajl_gen_map_open(g);
  for (i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
    snprintf(num, sizeof num, "%g", pcts[i]);
    out_str(g, num);
    yajl_gen_integer(g, ips_hist_percentile(h, pcts[i]));
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_flush(g, f, 1);
  yajl_gen_free(g);
}

