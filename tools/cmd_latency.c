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
    "                    With --os: os (one table for each of the OS's time\n"
    "                    parts, os_pipe_before_write_ns ... os_before_not_\n"
    "                    measured_ns: 32 tables, in microseconds like every\n"
    "                    table; --json: in ns; docs/os.md) or one of them:\n"
    "                    os_pipe_cpu_wait_ns, os_worker_disk_ns, ...\n"
    "  --json            one JSON object instead of the table (one per line)\n"
    CLI_OS_HELP
    CLI_INPUT_HELP
    "\n"
    "Values are exact to 3 significant digits (log-linear histogram).\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read\n";

/* --what os: every OS part (else l->os is one part's index, or NONE). */
enum { OS_NONE = -1, OS_ALL = -2 };

typedef struct {
  int what;
  const char *span;  /* --what span:NAME: NAME; else NULL */
  const char *label; /* --what span:NAME: "span:NAME" */
  int os;            /* --what os, os_NAME: OS_ALL, its index; or OS_NONE */
  size_t nh;
  ips_hist_t *h;     /* nh: one, or with --what os one per OS part */
} latency_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  latency_t *l = arg;
  size_t k = 0, i = 0;
  const char *name;
  if (l->span)
    latency_add_span(l->h, l->span, d);
  else if (l->os == OS_ALL)
    for (; latency_os_next(&k, &name); k++)
      latency_add_os(&l->h[i++], k, d);
  else if (l->os >= 0)
    latency_add_os(l->h, (size_t)l->os, d);
  else
    latency_add(l->h, l->what, d);
}

/* --what's value into l: 0, -1 when it names nothing, -2 for span: with
 * no name or too long a one. */
static int what_option(latency_t *l, const char *arg) {
  l->span = NULL;
  l->os = OS_NONE;
  if (strncmp(arg, "span:", 5) == 0) {
    if (arg[5] == '\0' || strlen(arg + 5) > 255)
      return -2;
    l->span = arg + 5;
    l->label = arg;
    return 0;
  }
  if (!strcmp(arg, "os"))
    return l->os = OS_ALL, 0;
  if (!strncmp(arg, "os_", 3)) {
    l->label = arg;
    return (l->os = latency_os_find(arg)) >= 0 ? 0 : -1;
  }
  for (l->what = 0; l->what < LAT_N && strcmp(arg, latency_names[l->what]);
       l->what++)
    ;
  return l->what == LAT_N ? -1 : 0;
}

/* The table (or JSON) of each histogram. */
static void show(const latency_t *l, int json) {
  size_t k = 0, i;
  const char *name = l->span || l->os >= 0 ? l->label : latency_names[l->what];
  for (i = 0; i < l->nh; i++, k++) {
    if (l->os == OS_ALL)
      latency_os_next(&k, &name);
    if (json)
      latency_json(stdout, &l->h[i], name);
    else
      latency_table(stdout, &l->h[i], name);
    if (!json && i + 1 < l->nh)
      putchar('\n');
  }
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
      CLI_OS_OPTION,
      {"what", required_argument, NULL, OPT_WHAT},
      {"json", no_argument, NULL, OPT_JSON},
      {NULL, 0, NULL, 0}};
  latency_t l;
  cli_input_t in;
  ips_analysis_t *a;
  int c, rc, json = 0;
  size_t i, k = 0;
  const char *name;
  cli_input_init(&in, "ipcstamp latency", usage_text);
  memset(&l, 0, sizeof l);
  l.what = LAT_TOTAL;
  l.os = OS_NONE;
  while ((c = cli_next_option(&in, argc, argv, "h", opts, &rc)) != -1) {
    int bad = c == OPT_WHAT ? what_option(&l, optarg) : 0;
    json |= c == OPT_JSON;
    if (bad)
      return cli_bad_value(
          &in, bad == -2 ? "--what span:NAME needs a name of 1 to 255 bytes"
          : "--what takes pipe, worker, kernel, total, upcall, transit, "
            "wait, runnable, blocked, span:NAME, or with --os: os or os_NAME, "
            "an OS part in ns (docs/os.md)", optarg);
  }
  if (rc >= 0)
    return rc;
  if (cli_input_path(&in, argc, argv) < 0)
    return CLI_EXIT_USAGE;
  if (l.os != OS_NONE && !in.os_path)
    return cli_bad_value(&in, "--what os needs --os FILE", l.label ? l.label : "os");
  l.nh = 1;
  if (l.os == OS_ALL)
    for (l.nh = 0; latency_os_next(&k, &name); k++)
      l.nh++;
  if (!(l.h = malloc(l.nh * sizeof *l.h))) {
    fprintf(stderr, "ipcstamp latency: out of memory\n");
    return CLI_EXIT_IO;
  }
  for (i = 0; i < l.nh; i++)
    ips_hist_init(&l.h[i]);
  in.an.on_delivery = on_delivery;
  in.an.arg = &l;
  a = NULL;
  rc = cli_inputs_first(&in); /* refused: nothing but its error */
  if (rc < 0)
    rc = cli_analyze(&in, &a);
  if (l.span && a && (rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT))
    rc = span_named(&in, a, l.span, l.label, rc);
  /* What was read, even when reading stopped at a fault (the followed
   * file replaced by a FIFO). */
  if (in.opened && (rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT ||
                    (rc == CLI_EXIT_IO && !l.span)))
    show(&l, json);
  if (cli_stdout_close("latency") != 0)
    rc = CLI_EXIT_IO;
  free(l.h);
  ips_analysis_free(a);
  return rc;
}
