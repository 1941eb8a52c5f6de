/* cmd_trace.c — `ipcstamp trace`: Chrome Trace Event JSON (Perfetto,
 * chrome://tracing).  The kernel is process 1; each vat's worker is its own
 * process; pipe transits are flow arrows between them. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "attr.h"
#include "commands.h"

static const char usage_text[] =
    "usage: ipcstamp trace SLOG -o TRACE.json [options]\n"
    "\n"
    "Writes the deliveries of SLOG as Chrome Trace Event JSON, to open in\n"
    "https://ui.perfetto.dev or chrome://tracing.  '-o -' writes stdout.\n"
    "\n"
    "  -o, --output FILE  where to write the trace (required)\n"
    "  --vat V            only deliveries to vat V\n"
    "  --clock C          auto (default), mono or wall\n"
    "  -h, --help         this text\n"
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read or write\n";

typedef struct {
  FILE *out;
  yajl_gen g;
  const char *vat;
  const ips__drive_stats_t *st;
  char (*names)[IPS__VAT_MAX];
  size_t nnames, capnames;
  long long flow;
  int oom;
} trace_t;

static void gs(yajl_gen g, const char *s) {
  yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}
static void gi(yajl_gen g, const char *k, long long v) {
  gs(g, k);
  yajl_gen_integer(g, v);
}
static void gus(yajl_gen g, const char *k, int64_t ns) {
  char b[32];
  gs(g, k);
  ips__fmt_us(b, ns);
  yajl_gen_number(g, b, strlen(b));
}

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
  char name[IPS__VAT_MAX + 8];
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
  snprintf(t->names[t->nnames++], IPS__VAT_MAX, "%s", vat);
  snprintf(name, sizeof name, "worker %s", vat);
  meta(t, (int)t->nnames + 1, "process_name", name);
  meta(t, (int)t->nnames + 1, "thread_name", "worker");
  return (int)t->nnames + 1;
}

static void slice(trace_t *t, int pid, const char *cat, const char *name,
                  int64_t ts, int64_t dur, const ips__delivery_t *d) {
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

static void flush_gen(trace_t *t) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(t->g, &buf, &len);
  fwrite(buf, 1, len, t->out);
  yajl_gen_clear(t->g);
}

static void on_delivery(void *arg, const ips__delivery_t *d) {
  trace_t *t = arg;
  int64_t o;
  const int64_t *P = d->P, *W = d->W;
  size_t n = d->n_up, last = 1 + 2 * n, i;
  int pid;
  char name[IPS__DESC_MAX + IPS__VAT_MAX + 32];
  if (t->vat && strcmp(t->vat, d->vat))
    return;
  o = d->pclock == 'm' ? (t->st->first_mono_ok ? t->st->first_mono : P[0])
                       : (t->st->first_time_ok ? t->st->first_time : P[0]);
  pid = pid_of(t, d->vat);
  snprintf(name, sizeof name, "%s #%lld %s", d->vat, d->dnum, d->desc);
  slice(t, 1, "delivery", name, P[0] - o, P[last] - P[0], d);
  slice(t, pid, "delivery", d->desc, W[0] - o, W[last] - W[0], d);
  flow(t, 1, P[0] - o, pid, W[0] - o, "send");
  for (i = 0; i <= n; i++)
    slice(t, pid, "worker", "worker", W[2 * i] - o, W[2 * i + 1] - W[2 * i],
          NULL);
  for (i = 0; i < n; i++) {
    size_t u = 1 + 2 * i;
    snprintf(name, sizeof name, "upcall %zu", i);
    slice(t, pid, "upcall", name, W[u] - o, W[u + 1] - W[u], NULL);
    slice(t, 1, "kernel", name, P[u] - o, P[u + 1] - P[u], NULL);
    flow(t, pid, W[u] - o, 1, P[u] - o, "upcall");
    flow(t, 1, P[u + 1] - o, pid, W[u + 1] - o, "reply");
  }
  flow(t, pid, W[last] - o, 1, P[last] - o, "result");
  flush_gen(t);
}

int ips__cmd_trace(int argc, char **argv) {
  static const struct option opts[] = {
      {"output", required_argument, NULL, 'o'},
      {"vat", required_argument, NULL, 'v'},
      {"clock", required_argument, NULL, 'c'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  trace_t t;
  ips__drive_opts_t o;
  ips__drive_stats_t st;
  ips__attr_t *a;
  const char *outpath = NULL;
  int c, rc, clock = IPS__CLOCK_AUTO;
  memset(&t, 0, sizeof t);
  ips__drive_opts_init(&o, "ipcstamp trace");
  while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
    switch (c) {
      case 'o':
        outpath = optarg;
        break;
      case 'v':
        t.vat = optarg;
        break;
      case 'c':
        if (ips__drive_clock(o.prog, optarg, &clock) < 0)
          return IPS_EXIT_USAGE;
        break;
      case 'h':
        fputs(usage_text, stdout);
        return IPS_EXIT_OK;
      default:
        fputs("try 'ipcstamp trace --help'\n", stderr);
        return IPS_EXIT_USAGE;
    }
  }
  if (optind + 1 != argc || !outpath) {
    fprintf(stderr, "ipcstamp trace: %s (try 'ipcstamp trace --help')\n",
            optind == argc ? "which slogfile?"
            : optind + 1 != argc ? "one slogfile only"
                                 : "where to? give -o TRACE.json");
    return IPS_EXIT_USAGE;
  }
  o.path = argv[optind];
  t.out = strcmp(outpath, "-") ? fopen(outpath, "w") : stdout;
  if (!t.out) {
    perror(outpath);
    return IPS_EXIT_IO;
  }
  t.st = &st;
  t.g = yajl_gen_alloc(NULL);
  a = ips__attr_new(clock, 1000000, on_delivery, &t);
  if (!t.g || !a) {
    fprintf(stderr, "ipcstamp trace: out of memory\n");
    rc = IPS_EXIT_IO;
    goto done;
  }
  yajl_gen_config(t.g, yajl_gen_validate_utf8, 0);
  yajl_gen_map_open(t.g);
  gs(t.g, "displayTimeUnit");
  gs(t.g, "ns");
  gs(t.g, "traceEvents");
  yajl_gen_array_open(t.g);
  meta(&t, 1, "process_name", "kernel");
  meta(&t, 1, "thread_name", "kernel");
  rc = ips__drive(&o, a, &st);
  yajl_gen_array_close(t.g);
  yajl_gen_map_close(t.g);
  flush_gen(&t);
  fputc('\n', t.out);
  if (t.oom)
    rc = IPS_EXIT_IO;
done:
  if (t.out != stdout ? fclose(t.out) != 0 : fflush(t.out) != 0) {
    fprintf(stderr, "ipcstamp trace: cannot write %s\n", outpath);
    rc = IPS_EXIT_IO;
  }
  if (t.g)
    yajl_gen_free(t.g);
  free(t.names);
  ips__attr_free(a);
  return rc;
}
