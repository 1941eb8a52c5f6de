/* trace.c — Chrome Trace Event JSON (Perfetto, chrome://tracing).  The
 * kernel is process 1; each vat's worker is its own process; pipe transits
 * are flow arrows between them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "output.h"

#define VAT_NAME_MAX 64

struct trace_out {
  FILE *out;
  yajl_gen g;
  char (*names)[VAT_NAME_MAX];
  size_t nnames, capnames;
  long long flow;
  int oom;
};
typedef struct trace_out trace_t;

#define gs out_str
#define gi out_int
#define gus out_us

static void meta(trace_t *t, int pid, const char *what, const char *name) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  gs(g, "name");
  gs(g, what);
  gs(g, "ph");
  gs(g, "M");
  gi(g, "pid", pid);
  gi(g, "tid", 1);
  gs(g, "args");
  yajl_gen_map_open(g);
  gs(g, "name");
  gs(g, name);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
}

/* The pid of a vat's worker, announcing it the first time. */
static int pid_of(trace_t *t, const char *vat) {
  size_t i;
  char name[VAT_NAME_MAX + 8];
  for (i = 0; i < t->nnames; i++)
    if (!strcmp(t->names[i], vat))
      return (int)i + 2;
  if (t->nnames == t->capnames) {
    size_t nc = t->capnames ? t->capnames * 2 : 16;
    void *nn = realloc(t->names, nc * sizeof *t->names);
    if (!nn) {
      t->oom = 1;
      return 1;
    }
    t->names = nn;
    t->capnames = nc;
  }
  snprintf(t->names[t->nnames++], VAT_NAME_MAX, "%s", vat);
  snprintf(name, sizeof name, "worker %s", vat);
  meta(t, (int)t->nnames + 1, "process_name", name);
  meta(t, (int)t->nnames + 1, "thread_name", "worker");
  return (int)t->nnames + 1;
}

static void slice(trace_t *t, int pid, const char *cat, const char *name,
                  int64_t ts, int64_t dur, const ips_delivery_t *d) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  gs(g, "name");
  gs(g, name);
  gs(g, "cat");
  gs(g, cat);
  gs(g, "ph");
  gs(g, "X");
  gi(g, "pid", pid);
  gi(g, "tid", 1);
  gus(g, "ts", ts);
  gus(g, "dur", dur < 0 ? 0 : dur);
  if (d) {
    gs(g, "args");
    yajl_gen_map_open(g);
    gi(g, "crank", d->crank);
    gs(g, "vat");
    gs(g, d->vat);
    gi(g, "deliveryNum", d->dnum);
    gi(g, "pipe_ns", d->pipe);
    gi(g, "worker_ns", d->worker);
    gi(g, "kernel_ns", d->kernel);
    gi(g, "line", d->line);
    gs(g, "clock");
    gs(g, d->clock == 'm' ? "mono" : "wall");
    yajl_gen_map_close(g);
  }
  yajl_gen_map_close(g);
}

/* A mark of the VM's code (issue 14): an instant on the worker's thread. */
static void instant(trace_t *t, int pid, const char *name, int64_t ts) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  gs(g, "name");
  gs(g, name);
  gs(g, "cat");
  gs(g, "mark");
  gs(g, "ph");
  gs(g, "i");
  gs(g, "s");
  gs(g, "t");
  gi(g, "pid", pid);
  gi(g, "tid", 1);
  gus(g, "ts", ts);
  yajl_gen_map_close(g);
}

static void flow(trace_t *t, int from, int64_t ts_from, int to, int64_t ts_to,
                 const char *name) {
  yajl_gen g = t->g;
  int k;
  t->flow++;
  for (k = 0; k < 2; k++) {
    yajl_gen_map_open(g);
    gs(g, "name");
    gs(g, name);
    gs(g, "cat");
    gs(g, "pipe");
    gs(g, "ph");
    gs(g, k ? "f" : "s");
    if (k) {
      gs(g, "bp");
      gs(g, "e");
    }
    gi(g, "id", t->flow);
    gi(g, "pid", k ? to : from);
    gi(g, "tid", 1);
    gus(g, "ts", k ? ts_to : ts_from);
    yajl_gen_map_close(g);
  }
}

void trace_delivery(trace_t *t, const ips_stats_t *st,
                    const ips_delivery_t *d) {
  int64_t o;
  const int64_t *P = d->P, *W = d->W;
  size_t n = d->n_up, last = 1 + 2 * n, i;
  int pid;
  char name[96 + VAT_NAME_MAX + 32];
  o = d->pclock == 'm' ? (st->first_mono_ok ? st->first_mono : P[0])
                       : (st->first_time_ok ? st->first_time : P[0]);
  pid = pid_of(t, d->vat);
  snprintf(name, sizeof name, "%s #%lld %s", d->vat, d->dnum, d->desc);
  slice(t, 1, "delivery", name, P[0] - o, P[last] - P[0], d);
  slice(t, pid, "delivery", d->desc, W[0] - o, W[last] - W[0], d);
  flow(t, 1, P[0] - o, pid, W[0] - o, "send");
  for (i = 0; i <= n; i++)
    slice(t, pid, "worker", "worker", W[2 * i] - o, W[2 * i + 1] - W[2 * i],
          NULL);
  /* The VM's spans nest under the worker slices by time; marks are
   * instants. */
  for (i = 0; i < d->n_marks; i++) {
    const ips_delivery_mark_t *m = &d->marks[i];
    if (m->kind == 's')
      slice(t, pid, "span", m->name, m->at - o, m->dur, NULL);
    else
      instant(t, pid, m->name, m->at - o);
  }
  for (i = 0; i < n; i++) {
    size_t u = 1 + 2 * i;
    snprintf(name, sizeof name, "upcall %zu", i);
    slice(t, pid, "upcall", name, W[u] - o, W[u + 1] - W[u], NULL);
    slice(t, 1, "kernel", name, P[u] - o, P[u + 1] - P[u], NULL);
    flow(t, pid, W[u] - o, 1, P[u] - o, "upcall");
    flow(t, 1, P[u + 1] - o, pid, W[u + 1] - o, "reply");
  }
  flow(t, pid, W[last] - o, 1, P[last] - o, "result");
  out_flush(t->g, t->out, 0);
}

trace_t *trace_open(FILE *f) {
  trace_t *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->out = f;
  t->g = out_gen();
  if (!t->g) {
    free(t);
    return NULL;
  }
  yajl_gen_map_open(t->g);
  gs(t->g, "displayTimeUnit");
  gs(t->g, "ns");
  gs(t->g, "traceEvents");
  yajl_gen_array_open(t->g);
  meta(t, 1, "process_name", "kernel");
  meta(t, 1, "thread_name", "kernel");
  return t;
}

int trace_close(trace_t *t) {
  int rc = t->oom ? -1 : 0;
  yajl_gen_array_close(t->g);
  yajl_gen_map_close(t->g);
  out_flush(t->g, t->out, 0);
  fputc('\n', t->out);
  yajl_gen_free(t->g);
  free(t->names);
  free(t);
  return rc;
}
