/* expose.c — a registry's copy as Prometheus text, exposition format
 * 0.0.4: each family's HELP and TYPE, then its samples; base units
 * (seconds, bytes); a histogram's cumulative _bucket{le} up to "+Inf",
 * its _sum and _count. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "metrics/registry.h"

/* A growing text; oom once an append failed (the text is then dropped). */
typedef struct {
  char *s;
  size_t len, cap;
  int oom;
} text_t;

/* Room for n more bytes and a NUL: 0, or -1 (oom) when memory ran out. */
static int room(text_t *t, size_t n) {
  size_t cap;
  char *s;
  if (t->oom)
    return -1;
  if (t->cap - t->len > n)
    return 0;
  cap = t->cap * 2 + n + 1;
  if (!(s = realloc(t->s, cap))) {
    t->oom = 1;
    return -1;
  }
  t->s = s, t->cap = cap;
  return 0;
}

static void put(text_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(text_t *t, const char *fmt, ...) {
  va_list ap;
  int n;
  if (t->oom)
    return;
  va_start(ap, fmt);
  n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->oom = 1;
    return;
  }
  if ((size_t)n >= t->cap - t->len) { /* cut: again, with room for it */
    if (room(t, (size_t)n) < 0)
      return;
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
  }
  t->len += (size_t)n;
}

/* A label's value with '\\' and '"' escaped (the registry already made
 * every other byte printable ASCII). */
static const char *esc(const char *v, char *buf) {
  size_t i = 0;
  for (; *v; v++) {
    if (*v == '\\' || *v == '"')
      buf[i++] = '\\';
    buf[i++] = *v;
  }
  buf[i] = '\0';
  return buf;
}

/* The bounds as the le label says them: %g of ips_metrics_bounds, then
 * "+Inf"; made once a scrape. */
typedef char le_t[IPS_METRICS_NBOUNDS + 1][16];

static void le_of(le_t le) {
  size_t b;
  for (b = 0; b < IPS_METRICS_NBOUNDS; b++)
    snprintf(le[b], sizeof le[b], "%g", ips_metrics_bounds[b]);
  strcpy(le[IPS_METRICS_NBOUNDS], "+Inf");
}

static void family(text_t *t, const char *name, const char *type,
                   const char *help) {
  put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* s appended, len bytes. */
static void append(text_t *t, const char *s, size_t len) {
  if (room(t, len) < 0)
    return;
  memcpy(t->s + t->len, s, len);
  t->len += len;
  t->s[t->len] = '\0';
}

/* One vat's histogram of part p.  The bucket lines are most of the text
 * (26 a series): their common head is made once, and each line is that
 * head, its bound and its count, with no printf (a scrape of 256 vats
 * took 80 ms with one, 10 times what it takes now). */
static void histogram(text_t *t, const metrics_vat_t *v, const char *part,
                      const metrics_hist_t *h, le_t le) {
  char vat[2 * IPS_METRICS_NAME_MAX], head[256], num[32];
  uint64_t cum = 0;
  size_t b, hl;
  int n;
  esc(v->name, vat);
  n = snprintf(head, sizeof head,
               "ipcstamp_delivery_seconds_bucket{vat=\"%s\",part=\"%s\",le=\"",
               vat, part);
  hl = n > 0 && (size_t)n < sizeof head ? (size_t)n : 0;
  for (b = 0; b <= IPS_METRICS_NBOUNDS && hl; b++) {
    char *e = num + sizeof num;
    uint64_t c = cum += h->bucket[b];
    append(t, head, hl);
    append(t, le[b], strlen(le[b]));
    *--e = '\n';
    do
      *--e = (char)('0' + c % 10);
    while (c /= 10);
    *--e = ' ';
    *--e = '}';
    *--e = '"';
    append(t, e, (size_t)(num + sizeof num - e));
  }
  put(t, "ipcstamp_delivery_seconds_sum{vat=\"%s\",part=\"%s\"} %.9g\n", vat,
      part, h->sum);
  put(t, "ipcstamp_delivery_seconds_count{vat=\"%s\",part=\"%s\"} %llu\n",
      vat, part, (unsigned long long)h->count);
}

static void deliveries(text_t *t, const metrics_figures_t *f,
                       const char *const *parts) {
  size_t i, p, nv = f->nvats + (f->other ? 1 : 0);
  char vat[2 * IPS_METRICS_NAME_MAX];
  le_t le;
  le_of(le);
  family(t, "ipcstamp_delivery_seconds", "histogram",
         "Time of each part of a delivery to a vat (pipe: in the pipe "
         "between kernel and worker; worker: in the worker; kernel: the "
         "kernel answering the worker's upcalls; total: all of it; os_*: what "
         "the OS saw, docs/os.md).");
  for (i = 0; i < nv; i++)
    for (p = 0; p < f->nparts; p++)
      histogram(t, &f->vats[i], parts[p], &f->hists[i * f->nparts + p], le);
  family(t, "ipcstamp_deliveries_total", "counter",
         "Deliveries to a vat, attributed.");
  for (i = 0; i < nv; i++)
    put(t, "ipcstamp_deliveries_total{vat=\"%s\"} %llu\n",
        esc(f->vats[i].name, vat), (unsigned long long)f->vats[i].deliveries);
  family(t, "ipcstamp_vats_over_cap_deliveries_total", "counter",
         "Deliveries counted under vat=\"_other\": their vat came after "
         "the cap on distinct vats (--max-vats) was reached.");
  put(t, "ipcstamp_vats_over_cap_deliveries_total %llu\n",
      (unsigned long long)f->over_cap);
}

/* The declared counters and gauges, in the order declared. */
static void counters(text_t *t, const metrics_figures_t *f,
                     const metrics_decl_t *decl) {
  char val[2 * IPS_METRICS_NAME_MAX], num[40];
  size_t i, k;
  for (i = 0; i < f->ncounters; i++) {
    const metrics_counter_t *c = &f->counters[i];
    family(t, decl[i].name, decl[i].gauge ? "gauge" : "counter",
           decl[i].help);
    if (!decl[i].label && !c->nvalues)
      put(t, "%s 0\n", decl[i].name);
    for (k = 0; k < c->nvalues; k++) {
      if (decl[i].gauge)
        snprintf(num, sizeof num, "%.9g", c->value[k].v);
      else
        snprintf(num, sizeof num, "%llu", (unsigned long long)c->value[k].n);
      if (decl[i].label)
        put(t, "%s{%s=\"%s\"} %s\n", decl[i].name, decl[i].label,
            esc(c->value[k].name, val), num);
      else
        put(t, "%s %s\n", decl[i].name, num);
    }
  }
}

/* The process's own cost, read now. */
static void process(text_t *t, double start) {
  struct rusage ru;
  unsigned long long size = 0, resident = 0;
  long page = sysconf(_SC_PAGESIZE);
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%llu %llu", &size, &resident) != 2)
      resident = 0;
    fclose(f);
  }
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    family(t, "ipcstamp_process_cpu_seconds_total", "counter",
           "CPU time of this ipcstamp process, user and system, seconds.");
    put(t, "ipcstamp_process_cpu_seconds_total %.6f\n",
        (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
            (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
  }
  if (f && resident) {
    family(t, "ipcstamp_process_resident_memory_bytes", "gauge",
           "Resident memory of this ipcstamp process, bytes.");
    put(t, "ipcstamp_process_resident_memory_bytes %llu\n",
        resident * (unsigned long long)(page > 0 ? page : 4096));
  }
  family(t, "ipcstamp_process_start_time_seconds", "gauge",
         "When this ipcstamp process started its metrics, Unix seconds.");
  put(t, "ipcstamp_process_start_time_seconds %.3f\n", start);
}

char *ips_metrics_expose(ips_metrics_t *m, size_t *len) {
  metrics_figures_t f;
  metrics_decl_t decl[IPS_METRICS_MAX_COUNTERS];
  text_t t = {NULL, 0, 0, 0};
  /* the copy's room is fixed by the registry, never by what it holds */
  f.vats = malloc((m->fig.max_vats + 1) * sizeof *f.vats);
  f.hists = malloc((m->fig.max_vats + 1) * m->fig.nparts * sizeof *f.hists);
  if (!f.vats || !f.hists) {
    free(f.vats);
    free(f.hists);
    return NULL;
  }
  metrics_snapshot(m, &f, decl);
  if ((t.s = malloc(t.cap = 64u << 10)) == NULL) {
    free(f.vats);
    free(f.hists);
    return NULL;
  }
  deliveries(&t, &f, m->parts);
  counters(&t, &f, decl);
  process(&t, m->start);
  free(f.vats);
  free(f.hists);
  if (t.oom) {
    free(t.s);
    return NULL;
  }
  *len = t.len;
  return t.s;
}
