/* trace.c — Chrome Trace Event JSON (Perfetto, chrome://tracing, speedscope).
 *
 * Process 1 is the kernel: the kernel's side of each vat is a thread of its
 * own, so that deliveries to several vats in flight at once never overlap on
 * one track.  Each vat's worker is a process of its own.  Pipe transits are
 * flow arrows between the two.
 *
 * Slices are B/E pairs, never X (ts + dur): a viewer adds ts and dur in
 * floating point and lands one ulp past the next slice's start, and then
 * adjacent slices look nested (speedscope draws a staircase).  Each
 * timestamp is written once, exactly, from integer nanoseconds, so the end
 * of one slice is the very same decimal as the start of the next.
 *
 * Chrome's viewer binds a flow event only to a slice of the same category
 * that starts at the flow's timestamp on the same thread: every slice and
 * flow has the one category "ipc", and each flow end sits at the start of a
 * slice (a zero-length "result" slice marks where a result is sent and
 * where it arrives).  In the file, a flow event follows the B of its slice.
 *
 * On each track timestamps never go back: a stamp earlier than the track's
 * last one (a wall clock stepped back, an offset estimate that moved) is
 * drawn at the last one, so that nesting stays valid whatever the input.  A
 * delivery that starts before its vat's track is free (monotime went back
 * after a restart) goes on another lane of that vat, up to TRACE_LANES;
 * beyond that it is left out of the trace and counted. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "output.h"

#define VAT_NAME_MAX 64

#define CAT "ipc"

typedef struct {
  char name[VAT_NAME_MAX];
  int nk, nw;                  /* lanes opened on each side */
  int64_t kcur[TRACE_LANES];   /* last timestamp on each kernel lane */
  int64_t wcur[TRACE_LANES];   /* ... on each worker lane */
} vat_t;

struct trace_out {
  FILE *out;
  yajl_gen g;
  vat_t *vats;
  size_t nvats, capvats;
  long long flow;
  uint64_t dropped;
  int oom;
};
typedef struct trace_out trace_t;

static void meta(trace_t *t, int pid, int tid, const char *what,
                 const char *name, int sort) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  out_str(g, "name");
  out_str(g, what);
  out_str(g, "ph");
  out_str(g, "M");
  out_int(g, "pid", pid);
  out_int(g, "tid", tid);
  out_str(g, "args");
  yajl_gen_map_open(g);
  if (name) {
    out_str(g, "name");
    out_str(g, name);
  } else {
    out_int(g, "sort_index", sort);
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
}

/* The index of a vat, announcing its worker process the first time; -1
 * when memory ran out. */
static long vat_of(trace_t *t, const char *vat) {
  size_t i;
  char name[VAT_NAME_MAX + 8];
  vat_t *v;
  for (i = 0; i < t->nvats; i++)
    if (!strcmp(t->vats[i].name, vat))
      return (long)i;
  if (t->nvats == t->capvats) {
    size_t nc = t->capvats ? t->capvats * 2 : 16;
    void *nn = realloc(t->vats, nc * sizeof *t->vats);
    if (!nn) {
      t->oom = 1;
      return -1;
    }
    t->vats = nn;
    t->capvats = nc;
  }
  v = &t->vats[t->nvats++];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "%s", vat);
  snprintf(name, sizeof name, "worker %s", v->name);
  meta(t, (int)t->nvats + 1, 0, "process_name", name, 0);
  meta(t, (int)t->nvats + 1, 0, "process_sort_index", NULL, (int)t->nvats + 1);
  return (long)t->nvats - 1;
}

/* Thread ids: the kernel's lane l of vat i, and the worker's lane l. */
static int ktid(size_t i, int l) { return (int)i * TRACE_LANES + l + 1; }
static int wtid(int l) { return l + 1; }

/* A lane of cur[0..*n) free at ts, opening one (and naming its thread) if
 * none is; -1 when all TRACE_LANES are taken. */
static int lane(trace_t *t, int64_t *cur, int *n, int64_t ts, int pid,
                int tid0, const char *vat) {
  int l;
  char name[VAT_NAME_MAX + 32];
  for (l = 0; l < *n; l++)
    if (cur[l] <= ts)
      return l;
  if (*n == TRACE_LANES)
    return -1;
  l = (*n)++;
  cur[l] = ts;
  if (l)
    snprintf(name, sizeof name, "%s (lane %d)", vat, l + 1);
  else
    snprintf(name, sizeof name, "%s", vat);
  meta(t, pid, tid0 + l, "thread_name", name, 0);
  meta(t, pid, tid0 + l, "thread_sort_index", NULL, tid0 + l);
  return l;
}

/* What a delivery's details instant carries: everything that differs
 * from one delivery to the next, kept out of the slices' names and args so
 * that the slices of one method are one frame to a viewer. */
static void delivery_args(yajl_gen g, const ips_delivery_t *d) {
  if (!d->replay)
    out_int(g, "crank", d->crank);
  out_str(g, "vat");
  out_str(g, d->vat);
  out_int(g, "deliveryNum", d->dnum);
  out_str(g, "method");
  out_str(g, d->method);
  out_str(g, "description");
  out_str(g, d->desc);
  out_int(g, "pipe_ns", d->pipe);
  out_int(g, "worker_ns", d->worker);
  out_int(g, "kernel_ns", d->kernel);
  out_int(g, "total_ns", d->total);
  if (d->n_unmatched)
    out_int(g, "unmatched_ns", d->unmatched);
  out_int(g, "line", d->line);
  out_str(g, "clock");
  out_str(g, d->clock == 'm' ? "mono" : "wall");
  /* --os: the OS's split, the list's trace fields (args rather than
   * slices: the split is the delivery's, not each segment's). */
#define TRACE_OS(name, type, unit, in, when, value, text, otel, meaning) \
  TRACE_OS_##type(((in) & IPS_IN_TRACE) && (when), #name, value)
#define TRACE_OS_INT(on, key, v) \
  if (on)                        \
    out_int(g, key, (long long)(v));
#define TRACE_OS_BY(on, key, v)
  if (d->os) {
    IPS_OS_FIELDS(TRACE_OS)
  }
#undef TRACE_OS
}

static void quake_args(yajl_gen g, const ips_delivery_t *d) {
  out_int(g, "timequake_ns", d->quake_ns);
  out_int(g, "line", d->line);
}

/* One B or E event of category cat.  Slices carry no args: speedscope
 * names a frame by its name and args together (and pairs an E with its B
 * by both), so any per-delivery arg would make every delivery a frame of
 * its own. */
static void be_cat(trace_t *t, char ph, int pid, int tid, const char *name,
                   const char *cat, int64_t ts) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  out_str(g, "name");
  out_str(g, name);
  out_str(g, "cat");
  out_str(g, cat);
  out_str(g, "ph");
  out_str(g, ph == 'B' ? "B" : "E");
  out_int(g, "pid", pid);
  out_int(g, "tid", tid);
  out_us(g, "ts", ts);
  yajl_gen_map_close(g);
}

/* A delivery's slice: a B or E of the tracks' own category. */
static void be(trace_t *t, char ph, int pid, int tid, const char *name,
               int64_t ts) {
  be_cat(t, ph, pid, tid, name, CAT, ts);
}

/* An instant on a thread (a VM's mark, a timequake, a delivery's
 * details), with args(g, d) when args is not NULL. */
static void instant(trace_t *t, int pid, int tid, const char *name,
                    const char *cat, int64_t ts,
                    void (*args)(yajl_gen, const ips_delivery_t *),
                    const ips_delivery_t *d) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  out_str(g, "name");
  out_str(g, name);
  out_str(g, "cat");
  out_str(g, cat);
  out_str(g, "ph");
  out_str(g, "i");
  out_str(g, "s");
  out_str(g, "t");
  out_int(g, "pid", pid);
  out_int(g, "tid", tid);
  out_us(g, "ts", ts);
  if (args) {
    out_str(g, "args");
    yajl_gen_map_open(g);
    args(g, d);
    yajl_gen_map_close(g);
  }
  yajl_gen_map_close(g);
}

/* A span of the VM's code: a B or E of category "span". */
static void span_be(trace_t *t, char ph, int pid, int tid, const char *name,
                    int64_t ts) {
  be_cat(t, ph, pid, tid, name, "span", ts);
}

/* The VM's marks and spans of worker stretch seg, inside its run from
 * `from` to `to` (on the drawn track: moved by -o, and kept inside the
 * run so that every slice nests).  Spans come in order of start, nested
 * by time: a stack of open ends closes each before the next that starts
 * after it. */
static void vm_marks(trace_t *t, const ips_delivery_t *d, size_t seg,
                     int pid, int tid, int64_t o, int64_t from, int64_t to) {
  const ips_delivery_mark_t *open[32];
  int64_t end[32];
  int nopen = 0;
  size_t j;
  for (j = 0; j < d->n_marks; j++) {
    const ips_delivery_mark_t *m = &d->marks[j];
    int64_t at = m->at - o, e;
    if (m->wseg != seg)
      continue;
    at = at < from ? from : at > to ? to : at;
    while (nopen && end[nopen - 1] <= at) {
      nopen--;
      span_be(t, 'E', pid, tid, open[nopen]->name, end[nopen]);
    }
    if (m->kind != 's') {
      instant(t, pid, tid, m->name, "mark", at, NULL, NULL);
      continue;
    }
    e = at + m->dur;
    if (nopen && e > end[nopen - 1])
      e = end[nopen - 1]; /* inside the span around it */
    if (e > to)
      e = to;
    if (nopen == 32)
      continue;
    span_be(t, 'B', pid, tid, m->name, at);
    open[nopen] = m;
    end[nopen++] = e;
  }
  while (nopen) {
    nopen--;
    span_be(t, 'E', pid, tid, open[nopen]->name, end[nopen]);
  }
}

/* One end of flow id: 's' or 'f' (bound to the enclosing slice, bp "e"). */
static void flow(trace_t *t, char ph, long long id, const char *name, int pid,
                 int tid, int64_t ts) {
  yajl_gen g = t->g;
  yajl_gen_map_open(g);
  out_str(g, "name");
  out_str(g, name);
  out_str(g, "cat");
  out_str(g, CAT);
  out_str(g, "ph");
  out_str(g, ph == 's' ? "s" : "f");
  if (ph == 'f') {
    out_str(g, "bp");
    out_str(g, "e");
  }
  out_int(g, "id", id);
  out_int(g, "pid", pid);
  out_int(g, "tid", tid);
  out_us(g, "ts", ts);
  yajl_gen_map_close(g);
}

/* x[0..k) as drawn on a track whose last timestamp was from: relative to
 * the origin o, never going back. */
static void clamp(int64_t *x, const int64_t *src, size_t k, int64_t o,
                  int64_t from) {
  size_t i;
  for (i = 0; i < k; i++) {
    x[i] = src[i] - o;
    if (x[i] < from)
      x[i] = from;
    from = x[i];
  }
}

/* Inside the kernel's slice "awaiting" the worker, from `from` (D or R)
 * to `to` (U or E): the receivers' waits for a CPU, as nested
 * slices where they were: the worker's just before its receive stamp wr
 * (d or r: the send or reply segment, i's), the kernel's just before
 * `to` (segment kj: the upcall or result).  Each is at most its segment,
 * so the two never overlap; held inside the slice all the same. */
static void cpu_waits(trace_t *t, const ips_delivery_t *d, size_t i, int kt,
                      int64_t from, int64_t to, int64_t wr, size_t kj) {
  int64_t ww = ips_delivery_segment_wait(d, i == 0 ? 0 : 4 * i);
  int64_t kw = ips_delivery_segment_wait(d, kj), b, e;
  int64_t at = from;
  if (ww > 0) {
    e = wr < from ? from : wr > to ? to : wr;
    b = e - ww < at ? at : e - ww;
    be(t, 'B', 1, kt, "worker waiting for a CPU", b);
    be(t, 'E', 1, kt, "worker waiting for a CPU", e);
    at = e;
  }
  if (kw > 0) {
    b = to - kw < at ? at : to - kw;
    be(t, 'B', 1, kt, "kernel waiting for a CPU", b);
    be(t, 'E', 1, kt, "kernel waiting for a CPU", to);
  }
}

/* A delivery as drawn: its stamps on the tracks (K the kernel's, W the
 * worker's), its tracks, its names and its flows' first id. */
typedef struct {
  const ips_delivery_t *d;
  const int64_t *K, *W;
  size_t n, last, stamped;
  int matched, kt, wt, pid;
  long long id;
  int64_t o;
  const char *name, *wait;
} drawn_t;

/* The kernel's side: the delivery, and within it what the kernel waits on
 * and each upcall it handles. */
static void kernel_side(trace_t *t, const drawn_t *x) {
  const ips_delivery_t *d = x->d;
  const int64_t *K = x->K;
  size_t i, n = x->n;
  int kt = x->kt;
  be(t, 'B', 1, kt, x->name, K[0]);
  instant(t, 1, kt, "delivery", "delivery", K[0], delivery_args, d);
  if (d->quake)
    instant(t, 1, kt, "timequake", CAT, K[0], quake_args, d);
  for (i = 0; i <= n; i++) {
    int64_t end;
    if (!x->matched && i > 0)
      break;
    end = x->matched ? K[2 * i + 1] : K[x->last];
    be(t, 'B', 1, kt, x->wait, K[2 * i]);
    if (i == 0)
      flow(t, 's', x->id + 1, "send", 1, kt, K[0]);
    else
      flow(t, 's', x->id + 2 * (long long)i + 1, "reply", 1, kt, K[2 * i]);
    if (d->has_wait)
      cpu_waits(t, d, i, kt, K[2 * i], end, x->W[2 * i],
                i < n && x->matched ? 4 * i + 2
                                    : ips_delivery_nsegments(d) - 1);
    be(t, 'E', 1, kt, x->wait, end);
    if (x->matched && i < n) {
      be(t, 'B', 1, kt, "upcall", K[2 * i + 1]);
      flow(t, 'f', x->id + 2 * (long long)i + 2, "upcall", 1, kt, K[2 * i + 1]);
      be(t, 'E', 1, kt, "upcall", K[2 * i + 2]);
    }
  }
  be(t, 'B', 1, kt, "result", K[x->last]);
  flow(t, 'f', t->flow, "result", 1, kt, K[x->last]);
  be(t, 'E', 1, kt, "result", K[x->last]);
  be(t, 'E', 1, kt, x->name, K[x->last]);
}

/* The worker's side: the delivery, each run, each upcall it waits on. */
static void worker_side(trace_t *t, const drawn_t *x) {
  const ips_delivery_t *d = x->d;
  const int64_t *W = x->W;
  size_t i, n = x->n;
  int pid = x->pid, wt = x->wt;
  be(t, 'B', pid, wt, x->name, W[0]);
  for (i = 0; i <= n; i++) {
    const char *run = i < x->stamped ? "run" : "unstamped";
    be(t, 'B', pid, wt, run, W[2 * i]);
    if (i == 0)
      flow(t, 'f', x->id + 1, "send", pid, wt, W[0]);
    else if (x->matched)
      flow(t, 'f', x->id + 2 * (long long)i + 1, "reply", pid, wt, W[2 * i]);
    if (d->n_marks)
      vm_marks(t, d, i, pid, wt, x->o, W[2 * i], W[2 * i + 1]);
    be(t, 'E', pid, wt, run, W[2 * i + 1]);
    if (i < n) {
      /* Not numbered: upcall 3 of one delivery has nothing in common
       * with upcall 3 of another, and a number would split the frame. */
      const char *up = !x->matched     ? "upcall (unrecorded)"
                       : i < x->stamped ? "upcall"
                                        : "upcall (unstamped)";
      be(t, 'B', pid, wt, up, W[2 * i + 1]);
      if (x->matched)
        flow(t, 's', x->id + 2 * (long long)i + 2, "upcall", pid, wt,
             W[2 * i + 1]);
      be(t, 'E', pid, wt, up, W[2 * i + 2]);
    }
  }
  be(t, 'B', pid, wt, "result", W[x->last]);
  flow(t, 's', t->flow, "result", pid, wt, W[x->last]);
  be(t, 'E', pid, wt, "result", W[x->last]);
  be(t, 'E', pid, wt, x->name, W[x->last]);
}

void trace_delivery(trace_t *t, const ips_stats_t *st,
                    const ips_delivery_t *d) {
  int64_t kbuf[64], wbuf[64], *K = kbuf, *W = wbuf;
  size_t k;
  int kl, wl;
  long vi;
  vat_t *v;
  char name[96 + VAT_NAME_MAX + 32], wait[VAT_NAME_MAX + 16];
  drawn_t x;
  if (t->oom)
    return;
  x.d = d;
  x.n = d->n_up;
  x.last = 1 + 2 * x.n;
  k = x.last + 1;
  /* Replayed with unrecorded upcalls, the kernel's side is known only as a
   * whole; truncated (xsnap's 502 stamps), the worker's side after its
   * last stamp mirrors the kernel's and is named so. */
  x.matched = d->n_unmatched == 0 || d->truncated;
  x.stamped = ips_delivery_stamped_upcalls(d);
  x.o = ips_stats_origin(st, d);
  if ((vi = vat_of(t, d->vat)) < 0)
    return;
  v = &t->vats[vi];
  x.pid = (int)vi + 2;
  if (k > sizeof kbuf / sizeof kbuf[0]) {
    K = malloc(2 * k * sizeof *K);
    if (!K) {
      t->oom = 1;
      return;
    }
    W = K + k;
  }
  kl = lane(t, v->kcur, &v->nk, d->P[0] - x.o, 1, ktid((size_t)vi, 0), v->name);
  wl = lane(t, v->wcur, &v->nw, d->W[0] - x.o, x.pid, wtid(0), "worker");
  if (kl < 0 || wl < 0) {
    t->dropped++;
    goto done;
  }
  x.kt = ktid((size_t)vi, kl);
  x.wt = wtid(wl);
  clamp(K, d->P, k, x.o, v->kcur[kl]);
  clamp(W, d->W, k, x.o, v->wcur[wl]);
  v->kcur[kl] = K[x.last];
  v->wcur[wl] = W[x.last];
  x.K = K;
  x.W = W;
  x.id = t->flow;
  t->flow += x.matched ? 2 + 2 * (long long)x.n : 2;
  /* Named by vat and method only (the rest is in the details instant), so
   * that the deliveries of a method add up in a viewer's aggregations. */
  snprintf(name, sizeof name, "%s %s", d->vat, d->method);
  snprintf(wait, sizeof wait, "awaiting %s", d->vat);
  x.name = name;
  x.wait = wait;
  kernel_side(t, &x);
  worker_side(t, &x);
  out_flush(t->g, t->out, 0);
done:
  if (K != kbuf)
    free(K);
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
  out_str(t->g, "traceEvents");
  yajl_gen_array_open(t->g);
  meta(t, 1, 0, "process_name", "kernel", 0);
  meta(t, 1, 0, "process_sort_index", NULL, 1);
  return t;
}

uint64_t trace_dropped(const trace_t *t) { return t->dropped; }

int trace_close(trace_t *t) {
  int rc = t->oom ? -1 : 0;
  yajl_gen_array_close(t->g);
  yajl_gen_map_close(t->g);
  out_flush(t->g, t->out, 0);
  fputc('\n', t->out);
  yajl_gen_free(t->g);
  free(t->vats);
  free(t);
  return rc;
}
