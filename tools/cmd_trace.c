/* cmd_trace.c — `ipcstamp trace`: a slogfile as a Chrome/Perfetto trace. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"

static const char usage_text[] =
    "usage: ipcstamp trace SLOG -o TRACE.json [options]\n"
    "\n"
    "Writes the deliveries of SLOG as Chrome Trace Event JSON.  Open it in\n"
    "Perfetto (https://ui.perfetto.dev, in a browser; the file stays on your\n"
    "machine) or offline in speedscope (the speedscope package from npm: speedscope\n"
    "TRACE.json).  '-o -' writes stdout.  On a large run, --crank, --since,\n"
    "--until or --limit keep the trace small enough to open.\n"
    "\n"
    "  -o, --output FILE  where to write the trace (required)\n"
    CLI_OS_HELP
    CLI_INPUT_HELP
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read or write\n";

typedef struct {
  trace_out_t *t;
  ips_analysis_t *a; /* set by cli_analyze() before the first delivery */
} trace_cmd_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  trace_cmd_t *c = arg;
  trace_delivery(c->t, ips_analysis_stats(c->a), d);
}

int cmd_trace(int argc, char **argv) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      CLI_OS_OPTION,
      {"output", required_argument, NULL, 'o'},
      {NULL, 0, NULL, 0}};
  cli_input_t in;
  trace_cmd_t tc;
  const char *outpath = NULL;
  FILE *f;
  int c, rc;
  cli_input_init(&in, "ipcstamp trace", usage_text);
  while ((c = cli_next_option(&in, argc, argv, "ho:", opts, &rc)) != -1)
    if (c == 'o')
      outpath = optarg;
  if (rc >= 0)
    return rc;
  if (optind + 1 == argc && !outpath) {
    fprintf(stderr, "ipcstamp trace: where to? give -o TRACE.json (try "
                    "'ipcstamp trace --help')\n");
    return CLI_EXIT_USAGE;
  }
  if (cli_input_path(&in, argc, argv) < 0)
    return CLI_EXIT_USAGE;
  if (!(f = cli_output(outpath, "trace")))
    return CLI_EXIT_IO;
  tc.a = NULL;
  tc.t = trace_open(f);
  if (!tc.t) {
    fprintf(stderr, "ipcstamp trace: out of memory\n");
    rc = CLI_EXIT_IO;
  } else {
    in.an.on_delivery = on_delivery;
    in.an.arg = &tc;
    rc = cli_analyze(&in, &tc.a);
    if (trace_dropped(tc.t))
      fprintf(stderr, "ipcstamp trace: %llu deliveries left out: their vat's "
                      "clock went back more than %d times\n",
              (unsigned long long)trace_dropped(tc.t), TRACE_LANES - 1);
    if (trace_close(tc.t) < 0) {
      fprintf(stderr, "ipcstamp trace: out of memory\n");
      rc = CLI_EXIT_IO;
    }
  }
  if (cli_output_close(f, "trace", in.opened) < 0)
    rc = CLI_EXIT_IO;
  ips_analysis_free(tc.a);
  return rc;
}
