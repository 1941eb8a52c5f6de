/* cmd_metrics.c — `ipcstamp metrics`: a node's slogfile (followed) or
 * live rings as Prometheus metrics on an HTTP endpoint (tools/metrics/,
 * docs/operators.md), for a node without the BPF recorder. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "metrics/metrics.h"
#include "output/output.h"

static const char usage_text[] =
    "usage: ipcstamp metrics SLOG --follow [options]\n"
    "       ipcstamp metrics --ring DIR --follow [options]\n"
    "\n"
    "Serve each delivery's pipe, worker, kernel and total time, per vat, as\n"
    "Prometheus histograms on http://ADDR/metrics (docs/operators.md lists\n"
    "the metrics).  With --follow (a live node) it serves until SIGINT or\n"
    "SIGTERM; without, it reads the whole input, then serves it until then.\n"
    "\n"
    "  --listen ADDR     HOST:PORT, :PORT (every address) or PORT to listen\n"
    "                    on (default " IPS_METRICS_DEFAULT_LISTEN "; port 0: any free\n"
    "                    one); the address is said on stderr once listening\n"
    "  --max-vats N      distinct vats with series of their own (default 256,\n"
    "                    at most 4096); the deliveries of the others count\n"
    "                    under vat=\"_other\"\n"
    "  --max-connections N  scrapers at once (default 16, at most 1024)\n"
    "  --deadline-ms MS  a connection's whole life (default 10000)\n"
    "  --print           write the metrics to stdout once the input is read,\n"
    "                    instead of serving them (no --follow)\n"
    CLI_OS_HELP
    "                    (the OS's parts too: part=\"os_worker_on_cpu\", ...)\n"
    CLI_INPUT_HELP
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read the\n"
    "input, 6 cannot listen on ADDR (the port in use, not permitted)\n";

enum { CLI_EXIT_LISTEN = 6 };

enum {
  OPT_LISTEN = OPT_FIRST_OWN,
  OPT_MAX_VATS,
  OPT_MAX_CONN,
  OPT_DEADLINE,
  OPT_PRINT
};

/* The parts: the default four, then with --os each OS part in ns
 * (latency_os_next), named without its "_ns". */
typedef struct {
  size_t n;
  const char *name[IPS_METRICS_MAX_PARTS];
  size_t os[IPS_METRICS_MAX_PARTS]; /* an OS part's index, from 4 on */
  char buf[IPS_METRICS_MAX_PARTS][48];
} parts_t;

typedef struct {
  ips_metrics_t *m;
  parts_t parts;
  int skips;             /* counter id */
  ips_metrics_server_options_t srv;
  long long max_vats;
  int print;
} metrics_cmd_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  metrics_cmd_t *c = arg;
  /* the order of ips_metrics_default_parts, then the OS's */
  double s[IPS_METRICS_MAX_PARTS];
  size_t i;
  int64_t v;
  ips_metrics_default_seconds(d, s);
  for (i = IPS_METRICS_NDEFAULT_PARTS; i < c->parts.n; i++)
    s[i] = latency_os_value(c->parts.os[i], d, &v) ? v / 1e9 : NAN;
  ips_metrics_delivery(c->m, d->vat, s);
}

/* p: the default parts, and with os the OS's (as many as fit). */
static void parts_of(parts_t *p, int os) {
  size_t k = 0;
  const char *name;
  for (p->n = 0; p->n < IPS_METRICS_NDEFAULT_PARTS; p->n++)
    p->name[p->n] = ips_metrics_default_parts[p->n];
  for (; os && p->n < IPS_METRICS_MAX_PARTS && latency_os_next(&k, &name);
       k++, p->n++) {
    size_t len = strlen(name);
    if (len > 3 && !strcmp(name + len - 3, "_ns"))
      len -= 3;
    snprintf(p->buf[p->n], sizeof p->buf[p->n], "%.*s", (int)len, name);
    p->name[p->n] = p->buf[p->n];
    p->os[p->n] = k;
  }
}

/* Each skip counted by its reason, lower-case as Prometheus' labels are
 * ("not_json"). */
static void on_skip(void *arg, const ips_skip_t *s) {
  metrics_cmd_t *c = arg;
  char reason[32];
  const char *name = ips_skip_name(s->reason);
  size_t i;
  for (i = 0; name[i] && i + 1 < sizeof reason; i++)
    reason[i] = (char)tolower((unsigned char)name[i]);
  reason[i] = '\0';
  ips_metrics_count(c->m, c->skips, reason, 1);
}

/* One option of metrics's own into c: -1 when taken, else an exit code. */
static int own_option(cli_input_t *in, metrics_cmd_t *c, int opt) {
  long long v;
  switch (opt) {
    case OPT_LISTEN:
      c->srv.listen = optarg;
      break;
    case OPT_MAX_VATS:
      if (cli_count(optarg, IPS_METRICS_MAX_MAX_VATS, &v) || v == 0)
        return cli_bad_value(in, "--max-vats takes a count from 1 to 4096",
                             optarg);
      c->max_vats = v;
      break;
    case OPT_MAX_CONN:
      if (cli_count(optarg, 1024, &v) || v == 0)
        return cli_bad_value(in, "--max-connections takes a count from 1 "
                                 "to 1024", optarg);
      c->srv.max_connections = (int)v;
      break;
    case OPT_DEADLINE:
      if (cli_count(optarg, 3600000, &v) || v < 10)
        return cli_bad_value(in, "--deadline-ms takes milliseconds from 10 "
                                 "to 3600000", optarg);
      c->srv.deadline_ms = (int)v;
      break;
    case OPT_PRINT:
      c->print = 1;
      break;
  }
  return -1;
}

static int options(cli_input_t *in, metrics_cmd_t *c, int argc, char **argv) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      CLI_OS_OPTION,
      {"listen", required_argument, NULL, OPT_LISTEN},
      {"max-vats", required_argument, NULL, OPT_MAX_VATS},
      {"max-connections", required_argument, NULL, OPT_MAX_CONN},
      {"deadline-ms", required_argument, NULL, OPT_DEADLINE},
      {"print", no_argument, NULL, OPT_PRINT},
      {NULL, 0, NULL, 0}};
  int opt, rc;
  while ((opt = cli_next_option(in, argc, argv, "h", opts, &rc)) != -1)
    if ((rc = own_option(in, c, opt)) >= 0)
      return rc;
  if (rc >= 0)
    return rc;
  if (cli_input_path(in, argc, argv) < 0)
    return CLI_EXIT_USAGE;
  if (c->print && in->src.follow) {
    fprintf(stderr, "ipcstamp metrics: --print writes what the input holds "
                    "once: not with --follow\n");
    return CLI_EXIT_USAGE;
  }
  if (c->print && c->srv.listen) {
    fprintf(stderr, "ipcstamp metrics: --print serves nothing: not with "
                    "--listen\n");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* --print: the exposition on stdout.  Returns an exit code. */
static int print_metrics(ips_metrics_t *m) {
  size_t len;
  char *text = ips_metrics_expose(m, &len);
  if (!text) {
    fprintf(stderr, "ipcstamp metrics: out of memory\n");
    return CLI_EXIT_IO;
  }
  fwrite(text, 1, len, stdout);
  free(text);
  return CLI_EXIT_OK;
}

int cmd_metrics(int argc, char **argv) {
  metrics_cmd_t c;
  cli_input_t in;
  ips_analysis_t *a = NULL;
  ips_metrics_server_t *srv = NULL;
  char err[256];
  int rc;
  memset(&c, 0, sizeof c);
  cli_input_init(&in, "ipcstamp metrics", usage_text);
  if ((rc = options(&in, &c, argc, argv)) >= 0)
    return rc;
  parts_of(&c.parts, in.os_path != NULL);
  if (!(c.m = ips_metrics_new(c.parts.name, c.parts.n, (size_t)c.max_vats))) {
    fprintf(stderr, "ipcstamp metrics: out of memory\n");
    return CLI_EXIT_IO;
  }
  c.skips = ips_metrics_counter(
      c.m, "ipcstamp_skips_total",
      "Records of the input skipped, by reason (ipcstamp report says "
      "which, with their lines).", "reason");
  if (!c.print && (rc = ips_metrics_serve(c.m, &c.srv, &srv, err,
                                          sizeof err)) < 0) {
    fprintf(stderr, "ipcstamp metrics: %s\n", err);
    ips_metrics_free(c.m);
    return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_LISTEN;
  }
  if (srv) {
    char where[128];
    ips_metrics_server_address(srv, where, sizeof where);
    fprintf(stderr, "ipcstamp metrics: serving http://%s/metrics\n", where);
  }
  in.progress = 0;
  in.an.on_delivery = on_delivery;
  in.an.on_skip = on_skip;
  in.an.arg = &c;
  rc = cli_analyze(&in, &a);
  if (c.print && (rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT) &&
      print_metrics(c.m) != CLI_EXIT_OK)
    rc = CLI_EXIT_IO;
  else if (srv && !in.src.follow && (rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT))
    cli_wait_stop(); /* the whole input read: served until stopped */
  ips_metrics_server_stop(srv);
  ips_analysis_free(a);
  ips_metrics_free(c.m);
  return rc;
}
