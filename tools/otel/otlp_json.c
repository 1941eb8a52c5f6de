/* otlp_json.c — attributed deliveries as an OTLP/JSON
 * ExportTraceServiceRequest (opentelemetry-proto, JSON encoding): ids as
 * lowercase hex, times as decimal strings of ns since the epoch, 64-bit
 * integers as decimal strings (protobuf's JSON mapping), enums as integers.
 *
 * The span model (docs/otel.md): one trace per delivery, whose root span is
 * the kernel's side of it (D to E, kind CLIENT: the kernel calls the
 * worker), with one child span per segment of ips_delivery_segment(), laid
 * end to end from D: the children's lengths are the report's segments,
 * exactly, so they add up to the root's length. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-analyze-os.h"
#include "otel.h"

/* OTLP's enums. */
enum { SPAN_KIND_INTERNAL = 1, SPAN_KIND_CLIENT = 3 };
enum { STATUS_UNSET = 0, STATUS_ERROR = 2 };

static int grow(otlp_req_t *r, size_t more) {
  size_t nc;
  char *nb;
  if (r->oom)
    return -1;
  if (r->len + more + 1 <= r->cap)
    return 0;
  nc = r->cap ? r->cap : 4096;
  while (nc < r->len + more + 1)
    nc *= 2;
  nb = realloc(r->buf, nc);
  if (!nb) {
    r->oom = 1;
    return -1;
  }
  r->buf = nb;
  r->cap = nc;
  return 0;
}

static void put(otlp_req_t *r, const char *s, size_t n) {
  if (grow(r, n) < 0)
    return;
  memcpy(r->buf + r->len, s, n);
  r->len += n;
  r->buf[r->len] = '\0';
}

static void puts_(otlp_req_t *r, const char *s) { put(r, s, strlen(s)); }

/* JSON's own specials escaped, and the request valid UTF-8 whatever the
 * text came from (a vatID, OTEL_SERVICE_NAME, a name cut to a width): a
 * protobuf-JSON receiver refuses a whole batch for one bad byte, so each
 * byte that does not start a whole, strict UTF-8 character is U+FFFD. */
void otlp_put_string(otlp_req_t *r, const char *s) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s), ok = ips_utf8_prefix(p, left);
  put(r, "\"", 1);
  for (; *p; p++, left--, ok--) {
    char e[7];
    if (!ok) {
      ok = ips_utf8_prefix(p + 1, left - 1) + 1;
      put(r, "\xef\xbf\xbd", 3);
      continue;
    }
    if (*p == '"' || *p == '\\') {
      e[0] = '\\';
      e[1] = (char)*p;
      put(r, e, 2);
    } else if (*p == '\n') {
      put(r, "\\n", 2);
    } else if (*p == '\t') {
      put(r, "\\t", 2);
    } else if (*p == '\r') {
      put(r, "\\r", 2);
    } else if (*p < 0x20 || *p == 0x7f) {
      memcpy(e, "\\u00", 4);
      e[4] = hex[*p >> 4];
      e[5] = hex[*p & 15];
      put(r, e, 6);
    } else {
      put(r, (const char *)p, 1);
    }
  }
  put(r, "\"", 1);
}

void otlp_hex(char *out, const uint8_t *b, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t i;
  for (i = 0; i < n; i++) {
    out[2 * i] = hex[b[i] >> 4];
    out[2 * i + 1] = hex[b[i] & 15];
  }
  out[2 * n] = '\0';
}

/* "key":"<decimal>" */
static void put_i64s(otlp_req_t *r, const char *key, int64_t v) {
  char b[64];
  int n = snprintf(b, sizeof b, "\"%s\":\"%" PRId64 "\"", key, v);
  put(r, b, (size_t)n);
}

/* Attributes: {"key":K,"value":{...}}, comma-led after the first. */
static void attr_open(otlp_req_t *r, int *first, const char *key) {
  if (!*first)
    put(r, ",", 1);
  *first = 0;
  puts_(r, "{\"key\":");
  otlp_put_string(r, key);
  puts_(r, ",\"value\":{");
}

static void attr_str(otlp_req_t *r, int *first, const char *key,
                     const char *v) {
  attr_open(r, first, key);
  puts_(r, "\"stringValue\":");
  otlp_put_string(r, v);
  puts_(r, "}}");
}

static void attr_int(otlp_req_t *r, int *first, const char *key, int64_t v) {
  attr_open(r, first, key);
  put_i64s(r, "intValue", v);
  puts_(r, "}}");
}

static void attr_bool(otlp_req_t *r, int *first, const char *key, int v) {
  attr_open(r, first, key);
  puts_(r, v ? "\"boolValue\":true}}" : "\"boolValue\":false}}");
}

void otlp_put_raw(otlp_req_t *r, const char *s) { puts_(r, s); }

void otlp_attr_str(otlp_req_t *r, int *first, const char *key,
                   const char *v) {
  attr_str(r, first, key, v);
}

void otlp_attr_int(otlp_req_t *r, int *first, const char *key, int64_t v) {
  attr_int(r, first, key, v);
}

/* Keys that describe the data: ipcstamp sets them, never the user. */
static int own_key(const char *k) {
  return !strcmp(k, "service.name") || !strcmp(k, "host.name") ||
         !strcmp(k, "process.pid") || !strncmp(k, "ipcstamp.", 9);
}

char *otlp_resource(const char *service, const char *host,
                    const char *slogfile, const otel_attrs_t *env) {
  otlp_req_t r;
  int first = 1;
  size_t i;
  const char *h = env ? otel_attrs_get(env, "host.name") : NULL;
  memset(&r, 0, sizeof r);
  attr_str(&r, &first, "service.name", service);
  if (h || host)
    attr_str(&r, &first, "host.name", h ? h : host);
  if (slogfile)
    attr_str(&r, &first, "ipcstamp.slogfile", slogfile);
  for (i = 0; env && i < env->n; i++)
    if (!own_key(env->key[i]))
      attr_str(&r, &first, env->key[i], env->val[i]);
  if (r.oom) {
    free(r.buf);
    return NULL;
  }
  return r.buf;
}

/* The spans of one process, in a request: a worker process (vat, pid,
 * line of its start) or a kernel run (kernel set, line the run's index). */
struct otlp_group_s {
  char vat[64];
  int kernel;
  long long pid;
  long line;
  otlp_req_t b; /* its spans, comma-separated (b.nspans counts them) */
};

int otlp_req_init(otlp_req_t *r, const char *res) {
  memset(r, 0, sizeof r[0]);
  r->resource = res;
  otlp_req_reset(r);
  return 0;
}

void otlp_req_reset(otlp_req_t *r) {
  size_t i;
  r->len = 0;
  r->nspans = 0;
  r->oom = 0;
  for (i = 0; i < r->ngroups; i++) {
    r->groups[i].b.len = 0;
    r->groups[i].b.nspans = 0;
    r->groups[i].b.oom = 0;
  }
  r->ngroups = 0;
}

/* The buffer of a process, made on first use; NULL when out of memory.  A
 * request holds few (the vats of one batch): a linear search. */
static otlp_req_t *group_of(otlp_req_t *r, int kernel, const char *vat,
                            long long pid, long line) {
  size_t i;
  otlp_group_t *g;
  for (i = 0; i < r->ngroups; i++) {
    g = &r->groups[i];
    if (g->kernel == kernel && g->pid == pid && g->line == line &&
        !strcmp(g->vat, vat))
      return &g->b;
  }
  if (r->ngroups == r->capgroups) {
    size_t nc = r->capgroups ? 2 * r->capgroups : 8;
    otlp_group_t *ng = realloc(r->groups, nc * sizeof *ng);
    if (!ng)
      return NULL;
    memset(ng + r->capgroups, 0, (nc - r->capgroups) * sizeof *ng);
    r->groups = ng;
    r->capgroups = nc;
  }
  g = &r->groups[r->ngroups++];
  snprintf(g->vat, sizeof g->vat, "%s", vat);
  g->kernel = kernel;
  g->pid = pid;
  g->line = line;
  return &g->b;
}

const char *otlp_req_end(otlp_req_t *r, size_t *len) {
  size_t i;
  r->len = 0;
  puts_(r, "{\"resourceSpans\":[");
  for (i = 0; i < r->ngroups; i++) {
    otlp_group_t *g = &r->groups[i];
    int first = r->resource[0] == '\0';
    if (g->b.oom)
      r->oom = 1;
    if (i)
      put(r, ",", 1);
    puts_(r, "{\"resource\":{\"attributes\":[");
    puts_(r, r->resource);
    /* One process: its pid when the slogfile names it (omitted, not 0,
     * when it does not: SwingSet's own), and where it started. */
    if (g->pid > 0)
      attr_int(r, &first, "process.pid", g->pid);
    attr_str(r, &first, "ipcstamp.process", g->kernel ? "kernel" : "worker");
    if (g->kernel) {
      attr_int(r, &first, "ipcstamp.kernel_run", g->line);
    } else {
      attr_str(r, &first, "ipcstamp.vat", g->vat);
      if (g->line > 0)
        attr_int(r, &first, "ipcstamp.worker_line", g->line);
    }
    puts_(r, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"ipcstamp\","
             "\"version\":\"");
    puts_(r, PACKAGE_VERSION);
    puts_(r, "\"},\"spans\":[");
    if (g->b.len)
      put(r, g->b.buf, g->b.len);
    puts_(r, "]}]}");
  }
  puts_(r, "]}");
  if (r->oom)
    return NULL;
  *len = r->len;
  return r->buf;
}

void otlp_req_free(otlp_req_t *r) {
  size_t i;
  free(r->buf);
  r->buf = NULL;
  r->len = r->cap = 0;
  for (i = 0; i < r->capgroups; i++)
    free(r->groups[i].b.buf);
  free(r->groups);
  r->groups = NULL;
  r->ngroups = r->capgroups = 0;
}


/* The fields every span has: ids, name, kind, times. */
static void span_head(otlp_req_t *r, const char *trace, const uint8_t *id,
                      const uint8_t *parent, const char *name, int kind,
                      int64_t start, int64_t end) {
  char hex[17];
  if (r->nspans++)
    put(r, ",", 1);
  puts_(r, "{\"traceId\":\"");
  puts_(r, trace);
  puts_(r, "\",\"spanId\":\"");
  otlp_hex(hex, id, 8);
  puts_(r, hex);
  if (parent) {
    puts_(r, "\",\"parentSpanId\":\"");
    otlp_hex(hex, parent, 8);
    puts_(r, hex);
  }
  puts_(r, "\",\"name\":");
  otlp_put_string(r, name);
  snprintf(hex, sizeof hex, "%d", kind);
  puts_(r, ",\"kind\":");
  puts_(r, hex);
  put(r, ",", 1);
  put_i64s(r, "startTimeUnixNano", start);
  put(r, ",", 1);
  put_i64s(r, "endTimeUnixNano", end);
  puts_(r, ",\"attributes\":[");
}

/* The VM's spans (metering v2 measures and ips_worker_span_*) are spans;
 * its marks are events of the span they fall in. */
static size_t vm_spans(const ips_delivery_t *d) {
  size_t i, n = 0;
  for (i = 0; i < d->n_marks; i++)
    n += d->marks[i].kind == 's';
  return n;
}

size_t otlp_delivery_nspans(const ips_delivery_t *d) {
  return 1 + ips_delivery_nsegments(d) + vm_spans(d);
}

/* The segment number of d's w-th worker segment, or ns when there is none
 * (which the analysis never says). */
static size_t worker_segment(const ips_delivery_t *d, size_t ns, size_t w) {
  size_t j, k = 0;
  for (j = 0; j < ns; j++) {
    const char *kind;
    (void)ips_delivery_segment(d, j, &kind);
    if (!strcmp(kind, "worker") && k++ == w)
      break;
  }
  return j;
}

/* The VM's spans, each a child of the worker segment it starts in; their
 * ids follow the segments' (1 + ns + its index among d's marks, as before
 * marks became events: the spans kept their ids). */
static void vm_span_spans(otlp_req_t *r, const otel_ids_t *ids,
                          const ips_stats_t *st, const ips_delivery_t *d,
                          const char *trace, size_t ns) {
  size_t i, j;
  uint8_t parent[8], sid[8];
  for (i = 0; i < d->n_marks; i++) {
    const ips_delivery_mark_t *m = &d->marks[i];
    int64_t at = ips_stats_wall_ns(st, d, m->at);
    int first = 1;
    if (m->kind != 's')
      continue;
    j = worker_segment(d, ns, m->wseg);
    otel_span_id(ids, d, j == ns ? 0 : j + 1, parent);
    otel_span_id(ids, d, 1 + ns + i, sid);
    /* The VM's own name: its code's, as few as the code has. */
    span_head(r, trace, sid, parent, m->name, SPAN_KIND_INTERNAL, at,
              at + m->dur);
    attr_int(r, &first, "ipcstamp.depth", m->depth);
    puts_(r, "],\"status\":{\"code\":0}}");
  }
}

/* The marks of worker stretch w as the events of its span. */
static void mark_events(otlp_req_t *r, const ips_stats_t *st,
                        const ips_delivery_t *d, size_t w) {
  size_t i;
  int any = 0;
  for (i = 0; i < d->n_marks; i++) {
    const ips_delivery_mark_t *m = &d->marks[i];
    int first = 1;
    if (m->kind == 's' || m->wseg != w)
      continue;
    puts_(r, any ? ",{" : ",\"events\":[{");
    any = 1;
    put_i64s(r, "timeUnixNano", ips_stats_wall_ns(st, d, m->at));
    puts_(r, ",\"name\":");
    otlp_put_string(r, m->name);
    puts_(r, ",\"attributes\":[");
    attr_int(r, &first, "ipcstamp.depth", m->depth);
    puts_(r, "]}");
  }
  if (any)
    put(r, "]", 1);
}

/* The links of the root: the deliveries that caused this one. */
static void cause_links(otlp_req_t *r, const otel_ids_t *ids,
                        const otel_deliver_facts_t *f) {
  size_t i;
  for (i = 0; i < f->n; i++) {
    const otel_cause_t *c = &f->c[i];
    ips_delivery_t cd;
    uint8_t tid[16], sid[8];
    char hex[33];
    int first = 1;
    memset(&cd, 0, sizeof cd);
    cd.vat = c->vat;
    cd.crank = c->crank;
    cd.dnum = c->dnum;
    cd.line = c->line;
    otel_trace_id(ids, &cd, tid);
    otel_span_id(ids, &cd, 0, sid);
    puts_(r, i ? ",{\"traceId\":\"" : ",\"links\":[{\"traceId\":\"");
    otlp_hex(hex, tid, 16);
    puts_(r, hex);
    puts_(r, "\",\"spanId\":\"");
    otlp_hex(hex, sid, 8);
    puts_(r, hex);
    puts_(r, "\",\"attributes\":[");
    attr_str(r, &first, "ipcstamp.cause",
             c->why == 's' ? "send" : "resolve");
    attr_str(r, &first, "agoric.kpid", c->kpid);
    attr_str(r, &first, "agoric.vatID", c->vat);
    attr_int(r, &first, "agoric.crankNum", c->crank);
    attr_int(r, &first, "agoric.deliveryNum", c->dnum);
    puts_(r, "]}");
  }
  if (f->n)
    put(r, "]", 1);
}

/* --os: the OS's split of d, every field of the list that has an
 * attribute and that d has (the maps by system call have none: an
 * attribute is one value). */
static void os_attrs(otlp_req_t *r, int *first, const ips_delivery_t *d) {
#define OTEL_OS(name, type, unit, in, when, value, text, otel, meaning) \
  OTEL_OS_##type((when), otel, value)
#define OTEL_OS_INT(on, key, v) \
  if (on)                       \
    attr_int(r, first, key, (int64_t)(v));
#define OTEL_OS_BY(on, key, v)
  if (d->os) {
    IPS_OS_FIELDS(OTEL_OS)
  }
#undef OTEL_OS
}

/* The root span's attributes: what the analysis says of d, and f's kind
 * of delivery. */
static void root_attrs(otlp_req_t *r, const ips_delivery_t *d,
                       const otel_deliver_facts_t *f) {
  int first = 1;
  /* The slog's own fields, under the keys Agoric's converter gives them,
   * so that its spans and these join on them. */
  attr_str(r, &first, "agoric.vatID", d->vat);
  if (!d->replay && d->crank >= 0) /* the rings know no cranks: -1 */
    attr_int(r, &first, "agoric.crankNum", d->crank);
  attr_int(r, &first, "agoric.deliveryNum", d->dnum);
  if (f && f->kind[0])
    attr_str(r, &first, "agoric.delivery", f->kind);
  attr_bool(r, &first, "agoric.replay", d->replay);
  if (d->desc) /* the rings do not carry it */
    attr_str(r, &first, "ipcstamp.description", d->desc);
  attr_str(r, &first, "ipcstamp.clock", d->clock == 'm' ? "mono" : "wall");
  attr_str(r, &first, "ipcstamp.parent_clock",
           d->pclock == 'm' ? "monotime" : "time");
  if (d->line > 0) /* from a slogfile; the rings have no lines */
    attr_int(r, &first, "ipcstamp.line", d->line);
  attr_int(r, &first, "ipcstamp.upcalls", (int64_t)d->n_up);
  attr_int(r, &first, "ipcstamp.pipe_ns", d->pipe);
  attr_int(r, &first, "ipcstamp.worker_ns", d->worker);
  attr_int(r, &first, "ipcstamp.kernel_ns", d->kernel);
  if (d->n_unmatched) {
    attr_int(r, &first, "ipcstamp.unmatched_ns", d->unmatched);
    attr_int(r, &first, "ipcstamp.unmatched_upcalls",
             (int64_t)d->n_unmatched);
  }
  if (d->truncated)
    attr_bool(r, &first, "ipcstamp.truncated", 1);
  if (d->has_cpu) {
    attr_int(r, &first, "ipcstamp.cpu_ns", d->cpu_ns);
    attr_int(r, &first, "ipcstamp.offcpu_ns", d->offcpu_ns);
  }
  if (d->has_wait) { /* pipe = transit + wait + unsplit */
    attr_int(r, &first, "ipcstamp.pipe_transit_ns", d->pipe_transit);
    attr_int(r, &first, "ipcstamp.pipe_wait_ns", d->pipe_wait);
    attr_int(r, &first, "ipcstamp.pipe_wait_worker_ns", d->wait_worker);
    attr_int(r, &first, "ipcstamp.pipe_unsplit_ns", d->pipe_unsplit);
  }
  if (d->has_runnable) {
    attr_int(r, &first, "ipcstamp.runnable_ns", d->runnable_ns);
    if (d->has_cpu)
      attr_int(r, &first, "ipcstamp.blocked_ns", d->blocked_ns);
  }
  if (d->has_gap)
    attr_int(r, &first, "ipcstamp.kernel_before_ns", d->gap_ns);
  if (d->snap_save_ns || d->snap_load_ns) { /* apart from kernel_before */
    attr_int(r, &first, "ipcstamp.snapshot_save_ns", d->snap_save_ns);
    attr_int(r, &first, "ipcstamp.snapshot_load_ns", d->snap_load_ns);
  }
  /* Both clocks have an offset where one was estimated: the wall clocks',
   * and the mono clock's against a SwingSet kernel's monotime. */
  if (d->clock == 'w' || d->mono_offset) {
    attr_int(r, &first, "ipcstamp.offset_ns", d->offset_ns);
    attr_int(r, &first, "ipcstamp.offset_bound_ns", d->bound_ns);
  }
  if (d->offset_mismatch)
    attr_bool(r, &first, "ipcstamp.offset_mismatch", 1);
  attr_bool(r, &first, "ipcstamp.timequake", d->quake);
  if (d->quake)
    attr_int(r, &first, "ipcstamp.timequake_ns", d->quake_ns);
  /* Why a delivery shows fewer VM marks than its code made: without these
   * a missing mark looks like one never made. */
  if (d->marks_dropped)
    attr_int(r, &first, "ipcstamp.marks_dropped", d->marks_dropped);
  if (d->marks_unbalanced)
    attr_int(r, &first, "ipcstamp.marks_unbalanced", d->marks_unbalanced);
  os_attrs(r, &first, d);
}

/* d's spans: the kernel's into k, the worker's into w. */
static void delivery_spans(otlp_req_t *k, otlp_req_t *w,
                           const otel_ids_t *ids, const ips_stats_t *st,
                           const ips_delivery_t *d,
                           const otel_deliver_facts_t *f) {
  uint8_t tid[16], root[8], sid[8];
  char trace[33];
  size_t j, ns = ips_delivery_nsegments(d), nw = 0;
  int64_t t0 = ips_stats_wall_ns(st, d, d->P[0]), t;
  int first;
  otlp_req_t *r = k;

  otel_trace_id(ids, d, tid);
  otlp_hex(trace, tid, 16);
  otel_span_id(ids, d, 0, root);
  span_head(r, trace, root, NULL, otlp_root_name(f ? f->kind : NULL),
            SPAN_KIND_CLIENT, t0, t0 + d->total);
  root_attrs(r, d, f);
  put(r, "]", 1);
  if (f)
    cause_links(r, ids, f);
  puts_(r, ",\"status\":{\"code\":");
  puts_(r, d->ok ? "0}}" : "2,\"message\":\"the worker answered with an "
                           "error\"}}");

  /* The children, end to end from D: the worker's stretches in the
   * worker's resource, the rest (pipe, kernel) in the kernel's. */
  t = t0;
  for (j = 0; j < ns; j++) {
    const char *kind;
    int64_t len = ips_delivery_segment(d, j, &kind);
    int is_worker = !strcmp(kind, "worker");
    r = is_worker ? w : k;
    otel_span_id(ids, d, j + 1, sid);
    span_head(r, trace, sid, root, otlp_segment_name(kind),
              SPAN_KIND_INTERNAL, t, t + len);
    first = 1;
    attr_str(r, &first, "ipcstamp.segment", kind);
    attr_int(r, &first, "ipcstamp.segment_index", (int64_t)j);
    if (d->has_wait) { /* a pipe segment's receiver waiting for a CPU */
      int64_t wait = ips_delivery_segment_wait(d, j);
      if (wait >= 0) {
        attr_int(r, &first, "ipcstamp.wait_ns", wait);
        attr_int(r, &first, "ipcstamp.transit_ns", len - wait);
      }
    }
    put(r, "]", 1);
    if (is_worker && d->n_marks)
      mark_events(r, st, d, nw);
    nw += is_worker;
    puts_(r, ",\"status\":{\"code\":0}}");
    t += len;
  }
  if (d->n_marks)
    vm_span_spans(w, ids, st, d, trace, ns);
}

void otlp_req_delivery(otlp_req_t *r, const otel_ids_t *ids,
                       const ips_stats_t *st, const ips_delivery_t *d,
                       const otel_deliver_facts_t *f) {
  otlp_req_t *k, *w;
  /* Making a group may move the others: the kernel's is looked up again
   * (found, so nothing moves) once the worker's is there. */
  k = group_of(r, 1, "", 0, (long)st->restarts);
  w = k ? group_of(r, 0, d->vat, d->worker_pid, d->worker_line) : NULL;
  k = w ? group_of(r, 1, "", 0, (long)st->restarts) : NULL;
  if (!k || !w) {
    r->oom = 1;
    return;
  }
  delivery_spans(k, w, ids, st, d, f);
  r->nspans += otlp_delivery_nspans(d);
}
