/* cmd_latency.c — `ipcstamp latency`: percentiles of one quantity. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"

static const char usage_text[] =
    "usage: ipcstamp latency SLOG [options]\n"
    "\n"
    "Percentiles of one quantity over all deliveries of a slogfile.\n"
    "\n"
    "  --what W          pipe, worker, kernel, total (default), upcall,\n"
    "                    transit, wait, runnable, blocked or span:NAME (upcall:\n"
    "                    each upcall as the worker waits for it, r - u;\n"
    "                    transit, wait: each pipe segment's transit and its\n"
    "                    receiver's wait for a CPU; runnable, blocked: the\n"
    "                    worker's off-CPU time split; these four only where\n"
    "                    the stamps carry run-queue delays; span:NAME: each\n"
    "                    span of that name that the VM's code marked)\n"
    "  --json            one JSON object instead of the table\n"
    CLI_INPUT_HELP
    "\n"
    "Values are exact to 3 significant digits (log-linear histogram).\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read\n";

typedef struct {
  int what;
  const char *span;  /* --what span:NAME: NAME; else NULL */
  const char *label; /* --what span:NAME: "span:NAME" */
  ips_hist_t *h;
} latency_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  latency_t *l = arg;
  if (l->span)
    latency_add_span(l->h, l->span, d);
  else
    latency_add(l->h, l->what, d);
}

/* --what span:NAME naming no span of the input: said, with the spans it
 * has (an empty table would read as "no time spent"). */
static int span_named(const cli_input_t *in, const ips_analysis_t *a,
                      const char *span, const char *label, int rc) {
  const char *names[32];
  size_t i, n = 0, nm = ips_analysis_nmarks(a);
  int more = ips_analysis_marks_over(a) > 0;
  for (i = 0; i < nm; i++) {
    const ips_mark_stats_t *m = ips_analysis_mark(a, i);
    if (!m->n_spans)
      continue;
    if (!strcmp(m->name, span))
      return rc;
    if (n < sizeof names / sizeof names[0])
      names[n++] = m->name;
    else
      more = 1;
  }
  return cli_names_nothing(in, "--what", label, "span",
                           names, n, more);
}

enum { OPT_WHAT = OPT_FIRST_OWN, OPT_JSON };

int cmd_latency(int argc, char **argv) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      {"what", required_argument, NULL, OPT_WHAT},
      {"json", no_argument, NULL, OPT_JSON},
      {NULL, 0, NULL, 0}};
  latency_t l;
  cli_input_t in;
  ips_analysis_t *a;
  int c, rc, json = 0;
  cli_input_init(&in, "ipcstamp latency", usage_text);
  l.what = LAT_TOTAL;
  l.span = l.label = NULL;
  while ((c = cli_next_option(&in, argc, argv, "h", opts, &rc)) != -1) {
    if (c == OPT_JSON) {
      json = 1;
    } else if (c == OPT_WHAT && strncmp(optarg, "span:", 5) == 0) {
      if (optarg[5] == '\0' || strlen(optarg + 5) > 255)
        return cli_bad_value(&in, "--what span:NAME needs a name of 1 to 255 "
                                  "bytes", optarg);
      l.span = optarg + 5;
      l.label = optarg;
    } else if (c == OPT_WHAT) {
      l.span = NULL;
      for (l.what = 0; l.what < LAT_N && strcmp(optarg, latency_names[l.what]);
           l.what++)
        ;
      if (l.what == LAT_N)
        return cli_bad_value(
            &in, "--what takes pipe, worker, kernel, total, upcall, transit, wait, "
            "runnable, blocked or span:NAME",
            optarg);
    }
  }
  if (rc >= 0)
    return rc;
  if (cli_input_path(&in, argc, argv) < 0)
    return CLI_EXIT_USAGE;
  l.h = malloc(sizeof *l.h);
  if (!l.h) {
    fprintf(stderr, "ipcstamp latency: out of memory\n");
    return CLI_EXIT_IO;
  }
  ips_hist_init(l.h);
  in.an.on_delivery = on_delivery;
  in.an.arg = &l;
  rc = cli_analyze(&in, &a);
  if (l.span && (rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT))
    rc = span_named(&in, a, l.span, l.label, rc);
  /* What was read, even when reading stopped at a fault (the followed
   * file replaced by a FIFO). */
  if (rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT ||
      (rc == CLI_EXIT_IO && in.opened && !l.span)) {
    const char *label = l.span ? l.label : latency_names[l.what];
    if (json)
      latency_json(stdout, l.h, label);
    else
      latency_table(stdout, l.h, label);
  }
  if (cli_stdout_close("latency") != 0)
    rc = CLI_EXIT_IO;
  free(l.h);
  ips_analysis_free(a);
  return rc;
}
