/* cmd_latency.c — `ipcstamp latency`: a percentile table, HdrHistogram-style. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "attr.h"
#include "commands.h"
#include "hist.h"

static const char usage_text[] =
    "usage: ipcstamp latency SLOG [options]\n"
    "\n"
    "Percentiles of one quantity over all deliveries of a slogfile.\n"
    "\n"
    "  --what W      pipe, worker, kernel, total (default) or upcall\n"
    "                (upcall: each upcall as the worker waits for it, r - u)\n"
    "  --vat V       only deliveries to vat V\n"
    "  --clock C     auto (default), mono or wall\n"
    "  --json        one JSON object instead of the table\n"
    "  --strict      validate every byte as JSON (slower)\n"
    "  -h, --help    this text\n"
    "\n"
    "Values are exact to 3 significant digits (log-linear histogram).\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read\n";

static const double pcts[] = {25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999, 100};

enum { W_PIPE, W_WORKER, W_KERNEL, W_TOTAL, W_UPCALL };
static const char *const what_names[] = {"pipe", "worker", "kernel", "total",
                                         "upcall"};

typedef struct {
  int what;
  const char *vat;
  ips__hist_t *h;
} lat_t;

static void on_delivery(void *arg, const ips__delivery_t *d) {
  lat_t *l = arg;
  size_t i;
  if (l->vat && strcmp(l->vat, d->vat))
    return;
  switch (l->what) {
    case W_PIPE: ips__hist_add(l->h, d->pipe); break;
    case W_WORKER: ips__hist_add(l->h, d->worker); break;
    case W_KERNEL: ips__hist_add(l->h, d->kernel); break;
    case W_TOTAL: ips__hist_add(l->h, d->total); break;
    default:
      for (i = 0; i < d->n_up; i++)
        ips__hist_add(l->h, d->W[2 + 2 * i] - d->W[1 + 2 * i]);
  }
}

static void print_table(const lat_t *l) {
  const ips__hist_t *h = l->h;
  char b[2][32];
  size_t i;
  printf("%s time, microseconds, %" PRIu64 " values\n", what_names[l->what],
         h->count);
  printf("%12s %16s\n", "percentile", "value");
  for (i = 0; i < sizeof pcts / sizeof pcts[0]; i++)
    printf("%12.3f %16s\n", pcts[i],
           ips__fmt_us(b[0], ips__hist_percentile(h, pcts[i])));
  printf("mean %.3f  stddev %.3f  min %s  max %s\n", h->mean / 1000.0,
         ips__hist_stddev(h) / 1000.0, ips__fmt_us(b[0], h->count ? h->min : 0),
         ips__fmt_us(b[1], h->count ? h->max : 0));
  if (h->negative)
    printf("%" PRIu64 " negative values (clock offset error) counted as 0\n",
           h->negative);
}

static void gs(yajl_gen g, const char *s) {
  yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

static void print_json(const lat_t *l) {
  const ips__hist_t *h = l->h;
  yajl_gen g = yajl_gen_alloc(NULL);
  const unsigned char *buf;
  size_t len, i;
  char num[64];
  yajl_gen_map_open(g);
  gs(g, "what");
  gs(g, what_names[l->what]);
  gs(g, "unit");
  gs(g, "ns");
  gs(g, "count");
  yajl_gen_integer(g, (long long)h->count);
  gs(g, "mean");
  snprintf(num, sizeof num, "%.1f", h->mean);
  yajl_gen_number(g, num, strlen(num));
  gs(g, "stddev");
  snprintf(num, sizeof num, "%.1f", ips__hist_stddev(h));
  yajl_gen_number(g, num, strlen(num));
  gs(g, "min");
  yajl_gen_integer(g, h->count ? h->min : 0);
  gs(g, "max");
  yajl_gen_integer(g, h->count ? h->max : 0);
  gs(g, "negative");
  yajl_gen_integer(g, (long long)h->negative);
  gs(g, "percentiles");
  yajl_gen_map_open(g);
  for (i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
    snprintf(num, sizeof num, "%g", pcts[i]);
    gs(g, num);
    yajl_gen_integer(g, ips__hist_percentile(h, pcts[i]));
  }
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  yajl_gen_get_buf(g, &buf, &len);
  fwrite(buf, 1, len, stdout);
  fputc('\n', stdout);
  yajl_gen_free(g);
}

int ips__cmd_latency(int argc, char **argv) {
  static const struct option opts[] = {
      {"what", required_argument, NULL, 'w'},
      {"vat", required_argument, NULL, 'v'},
      {"clock", required_argument, NULL, 'c'},
      {"json", no_argument, NULL, 'j'},
      {"strict", no_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  lat_t l;
  ips__drive_opts_t o;
  ips__drive_stats_t st;
  ips__attr_t *a;
  int c, rc, json = 0, clock = IPS__CLOCK_AUTO;
  size_t i;
  memset(&l, 0, sizeof l);
  ips__drive_opts_init(&o, "ipcstamp latency");
  l.what = W_TOTAL;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'w':
        for (i = 0; i < 5 && strcmp(optarg, what_names[i]); i++)
          ;
        if (i == 5) {
          fprintf(stderr, "ipcstamp latency: --what takes pipe, worker, "
                          "kernel, total or upcall, not '%s'\n", optarg);
          return IPS_EXIT_USAGE;
        }
        l.what = (int)i;
        break;
      case 'v':
        l.vat = optarg;
        break;
      case 'c':
        if (ips__drive_clock(o.prog, optarg, &clock) < 0)
          return IPS_EXIT_USAGE;
        break;
      case 'j':
        json = 1;
        break;
      case 'S':
        o.strict = 1;
        break;
      case 'h':
        fputs(usage_text, stdout);
        return IPS_EXIT_OK;
      default:
        fputs("try 'ipcstamp latency --help'\n", stderr);
        return IPS_EXIT_USAGE;
    }
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "ipcstamp latency: %s (try 'ipcstamp latency --help')\n",
            optind == argc ? "which slogfile?" : "one slogfile only");
    return IPS_EXIT_USAGE;
  }
  o.path = argv[optind];
  l.h = malloc(sizeof *l.h);
  a = ips__attr_new(clock, 1000000, on_delivery, &l);
  if (!l.h || !a) {
    fprintf(stderr, "ipcstamp latency: out of memory\n");
    free(l.h);
    ips__attr_free(a);
    return IPS_EXIT_IO;
  }
  ips__hist_init(l.h);
  rc = ips__drive(&o, a, &st);
  if (rc != IPS_EXIT_IO) {
    if (json)
      print_json(&l);
    else
      print_table(&l);
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "ipcstamp latency: cannot write\n");
    rc = IPS_EXIT_IO;
  }
  free(l.h);
  ips__attr_free(a);
  return rc;
}
