/* cmd_report.c — `ipcstamp report`: per-delivery breakdown and summary. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#ifdef HAVE___FSETLOCKING
#include <stdio_ext.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

static const char usage_text[] =
    "usage: ipcstamp report SLOG [options]\n"
    "\n"
    "Where the time of each delivery went: pipe, worker, kernel (see\n"
    "docs/report.md).  SLOG may be gzip-compressed; '-' reads stdin.\n"
    "\n"
    "  --vat V           only deliveries to vat V\n"
    "  --clock C         auto (default), mono or wall\n"
    "  --format F        text (default), json (JSON lines) or csv\n"
    "  --summary         print only the summary\n"
    "  --top N           how many slowest deliveries to list (default 10)\n"
    "  --quake-us US     timequake threshold in microseconds (default 1000)\n"
    "  --strict          validate every byte as JSON (slower)\n"
    "  --max-line BYTES  longest line read (default 67108864)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped (each reported on\n"
    "stderr with its line number), 4 cannot read the input\n";

static void keep_slow(ips__report_t *r, const ips__delivery_t *d) {
  size_t i;
  ips__slow_t *s;
  if (r->top == 0)
    return;
  if (r->nslow == r->top && r->slow[r->nslow - 1].total >= d->total)
    return;
  i = r->nslow < r->top ? r->nslow++ : r->nslow - 1;
  /* Insertion keeps the list sorted; ties keep file order. */
  while (i > 0 && r->slow[i - 1].total < d->total) {
    r->slow[i] = r->slow[i - 1];
    i--;
  }
  s = &r->slow[i];
  snprintf(s->vat, sizeof s->vat, "%s", d->vat);
  snprintf(s->desc, sizeof s->desc, "%s", d->desc);
  s->crank = d->crank;
  s->dnum = d->dnum;
  s->line = d->line;
  s->pipe = d->pipe;
  s->worker = d->worker;
  s->kernel = d->kernel;
  s->total = d->total;
}

static void on_delivery(void *arg, const ips__delivery_t *d) {
  ips__report_t *r = arg;
  if (r->vat && strcmp(r->vat, d->vat))
    return;
  r->n++;
  r->pipe += d->pipe;
  r->worker += d->worker;
  r->kernel += d->kernel;
  r->total += d->total;
  if (d->has_cpu) {
    r->n_cpu++;
    r->cpu += d->cpu_ns;
    r->offcpu += d->offcpu_ns;
    r->cpu_worker += d->worker;
  }
  if (d->has_gap) {
    r->n_gap++;
    r->gap += d->gap_ns;
  }
  if (d->quake)
    r->n_quake++;
  keep_slow(r, d);
  if (r->summary_only)
    return;
  switch (r->format) {
    case IPS__FMT_TEXT:
      ips__report_delivery_text(r, d);
      break;
    case IPS__FMT_JSON:
      ips__report_delivery_json(r, d);
      break;
    default:
      ips__report_delivery_csv(r, d);
      break;
  }
}

static int bad_usage(const char *msg, const char *arg) {
  fprintf(stderr, "ipcstamp report: %s '%s' (try 'ipcstamp report --help')\n",
          msg, arg);
  return IPS_EXIT_USAGE;
}

static int parse_count(const char *s, long long max, long long *out) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || v < 0 || v > max)
    return -1;
  *out = v;
  return 0;
}

int ips__cmd_report(int argc, char **argv) {
  static const struct option opts[] = {
      {"vat", required_argument, NULL, 'v'},
      {"clock", required_argument, NULL, 'c'},
      {"format", required_argument, NULL, 'f'},
      {"summary", no_argument, NULL, 's'},
      {"top", required_argument, NULL, 't'},
      {"quake-us", required_argument, NULL, 'q'},
      {"strict", no_argument, NULL, 'S'},
      {"max-line", required_argument, NULL, 'm'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  ips__report_t r;
  ips__drive_opts_t o;
  ips__drive_stats_t st;
  ips__attr_t *a;
  long long v;
  int c, rc;
  memset(&r, 0, sizeof r);
  ips__drive_opts_init(&o, "ipcstamp report");
  r.out = stdout;
#ifdef HAVE___FSETLOCKING
  /* One thread writes: stdio's per-call locking was a third of the time
   * of a report of many small deliveries. */
  __fsetlocking(stdout, FSETLOCKING_BYCALLER);
#endif
  r.top = 10;
  r.quake_ns = 1000000;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'v':
        r.vat = optarg;
        break;
      case 'c':
        if (ips__drive_clock(o.prog, optarg, &r.clock_mode) < 0)
          return IPS_EXIT_USAGE;
        break;
      case 'f':
        if (!strcmp(optarg, "text")) r.format = IPS__FMT_TEXT;
        else if (!strcmp(optarg, "json")) r.format = IPS__FMT_JSON;
        else if (!strcmp(optarg, "csv")) r.format = IPS__FMT_CSV;
        else return bad_usage("--format takes text, json or csv, not", optarg);
        break;
      case 's':
        r.summary_only = 1;
        break;
      case 't':
        if (parse_count(optarg, 10000, &v))
          return bad_usage("--top takes a count up to 10000, not", optarg);
        r.top = (size_t)v;
        break;
      case 'q':
        if (parse_count(optarg, 1000000000000LL, &v))
          return bad_usage("--quake-us takes microseconds, not", optarg);
        r.quake_ns = v * 1000;
        break;
      case 'S':
        o.strict = 1;
        break;
      case 'm':
        if (parse_count(optarg, 1LL << 34, &v) || v < 1024)
          return bad_usage("--max-line takes bytes (1024 or more), not", optarg);
        o.max_line = (size_t)v;
        break;
      case 'h':
        fputs(usage_text, stdout);
        return IPS_EXIT_OK;
      default:
        fputs("try 'ipcstamp report --help'\n", stderr);
        return IPS_EXIT_USAGE;
    }
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "ipcstamp report: %s (try 'ipcstamp report --help')\n",
            optind == argc ? "which slogfile?" : "one slogfile only");
    return IPS_EXIT_USAGE;
  }
  o.path = argv[optind];
  r.slow = calloc(r.top ? r.top : 1, sizeof *r.slow);
  a = ips__attr_new(r.clock_mode, r.quake_ns, on_delivery, &r);
  if (!r.slow || !a) {
    fprintf(stderr, "ipcstamp report: out of memory\n");
    free(r.slow);
    ips__attr_free(a);
    return IPS_EXIT_IO;
  }
  if (r.format == IPS__FMT_JSON) {
    r.g = yajl_gen_alloc(NULL);
    yajl_gen_config(r.g, yajl_gen_validate_utf8, 0);
  }
  if (r.format == IPS__FMT_CSV && !r.summary_only)
    fputs("crank,vat,deliveryNum,description,clock,pipe_ns,worker_ns,"
          "kernel_ns,total_ns,cpu_ns,gap_ns,timequake,upcalls,line\n",
          r.out);
  rc = ips__drive(&o, a, &st);
  if (rc != IPS_EXIT_IO) {
    if (r.format == IPS__FMT_JSON)
      ips__report_summary_json(&r, a, &st);
    else if (r.format == IPS__FMT_TEXT || r.summary_only)
      ips__report_summary_text(&r, a, &st); /* CSV rows have no summary */
  }
  if (fflush(r.out) != 0 || ferror(r.out)) {
    fprintf(stderr, "ipcstamp report: cannot write the report\n");
    rc = IPS_EXIT_IO;
  }
  if (r.g)
    yajl_gen_free(r.g);
  free(r.slow);
  ips__attr_free(a);
  return rc;
}
