/* cmd_report.c — `ipcstamp report`: per-delivery breakdown and summary. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#ifdef HAVE___FSETLOCKING
#include <stdio_ext.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"

static const char usage_text[] =
    "usage: ipcstamp report SLOG [options]\n"
    "\n"
    "Where the time of each delivery went: pipe, worker, kernel (see\n"
    "docs/report.md).  SLOG may be gzip-compressed; '-' reads stdin.\n"
    "\n"
    "  --format F        text (default), json (JSON lines), csv, or html (one\n"
    "                    self-contained page with charts, to open in a browser)\n"
    "  -o, --output FILE write the report to FILE instead of stdout\n"
    "  --summary         print only the summary\n"
    "  --top N           how many slowest deliveries to list (default 10)\n"
    "  --slowest N       show only the N slowest deliveries (up to 10000),\n"
    "                    slowest first, before the summary of all\n"
    "  --by K            the summary's table by vat (default) or by method,\n"
    "                    busiest first (CSV: --summary writes the table)\n"
    CLI_OS_HELP
    CLI_INPUT_HELP
    "\n"
    "exit codes: 0 ok, 2 bad usage (a --vat or --method that names nothing\n"
    "in the input included: the names it has are listed), 3 records skipped\n"
    "(each reported on stderr with its line number), 4 cannot read the\n"
    "input or write the report\n";

typedef struct {
  report_out_t out;
  int slowest;          /* --slowest: deliveries are kept, shown at the end */
  keep_t keep;
  int keep_failed;      /* --slowest ran out of memory (said once) */
} report_t;

static void on_skip(void *arg, const ips_skip_t *s) {
  report_t *r = arg;
  if (r->out.fmt->skip)
    r->out.fmt->skip(&r->out, s);
}

static void on_delivery(void *arg, const ips_delivery_t *d) {
  report_t *r = arg;
  if (r->out.grouped)
    ips_groups_add(&r->out.groups, d);
  if (!r->slowest) {
    r->out.fmt->delivery(&r->out, d);
  } else if (keep_add(&r->keep, d) != 0 && !r->keep_failed) {
    r->keep_failed = 1;
    fprintf(stderr, "ipcstamp report: out of memory keeping the %zu slowest "
                    "deliveries (at most %zu MiB): ask --slowest for fewer\n",
            r->keep.keeper.cap, KEEP_BUDGET >> 20);
  }
}

/* --slowest: the kept deliveries, slowest first (the page: in file order,
 * as its waterfall reads). */
static void show_kept(report_t *r) {
  size_t i, n = keep_sort(&r->keep, r->out.html != NULL);
  for (i = 0; i < n; i++)
    r->out.fmt->delivery(&r->out, keep_get(&r->keep, i));
}

enum { OPT_FORMAT = OPT_FIRST_OWN, OPT_SUMMARY, OPT_TOP, OPT_SLOWEST, OPT_BY };

/* Sums held at the bound (ips_sum_add): the summary's totals, a group's
 * and the marks' spans.  Said on stderr; returns how many. */
static uint64_t saturated(const report_t *r) {
  uint64_t n = r->out.groups.saturated +
               ips_analysis_stats(r->out.a)->saturated;
  size_t i;
  for (i = 0; i < ips_analysis_nmarks(r->out.a); i++)
    n += ips_analysis_mark(r->out.a, i)->saturated;
  if (n)
    fprintf(stderr, "ipcstamp report: %llu sums (of the input's or a vat's "
                    "or a method's deliveries, or of the spans of a name) "
                    "passed the range of 64 bits and are shown at the "
                    "bound\n", (unsigned long long)n);
  return n;
}

/* One option of report's own into r.  Returns -1 when it is taken, else
 * an exit code. */
static int report_option(cli_input_t *in, int c, report_t *r,
                         const char **outpath) {
  long long v;
  switch (c) {
    case 'o':
      *outpath = optarg;
      break;
    case OPT_FORMAT:
      if (!(r->out.fmt = report_format(optarg)))
        return cli_bad_value(in, "--format takes text, json, csv or html", optarg);
      break;
    case OPT_SUMMARY:
      r->out.summary_only = 1;
      break;
    case OPT_TOP:
      if (cli_count(optarg, 10000, &v))
        return cli_bad_value(in, "--top takes a count up to 10000", optarg);
      in->an.top = (size_t)v;
      break;
    case OPT_SLOWEST:
      if (cli_count(optarg, 10000, &v) || v == 0)
        return cli_bad_value(in, "--slowest takes a count from 1 to 10000",
                             optarg);
      r->slowest = (int)v;
      break;
    case OPT_BY:
      if (!strcmp(optarg, "vat")) r->out.groups.by = IPS_GROUP_VAT;
      else if (!strcmp(optarg, "method")) r->out.groups.by = IPS_GROUP_METHOD;
      else return cli_bad_value(in, "--by takes vat or method", optarg);
      break;
  }
  return -1;
}

/* The command line into in and r.  Returns -1 to go on, else an exit
 * code. */
static int report_options(cli_input_t *in, report_t *r, int argc,
                          char **argv, const char **outpath) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      {"format", required_argument, NULL, OPT_FORMAT},
      {"summary", no_argument, NULL, OPT_SUMMARY},
      {"top", required_argument, NULL, OPT_TOP},
      {"slowest", required_argument, NULL, OPT_SLOWEST},
      {"by", required_argument, NULL, OPT_BY},
      CLI_OS_OPTION,
      {"output", required_argument, NULL, 'o'},
      {NULL, 0, NULL, 0}};
  int c, rc;
  while ((c = cli_next_option(in, argc, argv, "ho:", opts, &rc)) != -1) {
    int taken = report_option(in, c, r, outpath);
    if (taken >= 0)
      return taken;
  }
  if (rc >= 0)
    return rc;
  if (cli_input_path(in, argc, argv) < 0)
    return CLI_EXIT_USAGE;
  if (in->os_path && !strcmp(r->out.fmt->name, "html")) {
    fprintf(stderr, "ipcstamp report: --os writes text, json or csv\n");
    return CLI_EXIT_USAGE;
  }
  r->out.os = in->os_path != NULL;
  return -1;
}

/* The report's output opened and begun (outpath: -o), with what the
 * format needs to know of the input.  Returns -1 to go on, else an exit
 * code (said; the output closed). */
static int report_begin(report_t *r, const cli_input_t *in,
                        const char *outpath) {
  if (!(r->out.out = cli_output(outpath, "report")))
    return CLI_EXIT_IO;
  /* Not to a terminal, the report goes out in large pieces: stdio's
   * 4 KiB meant 2,300 write() calls for a 90 MB slogfile's report, 3 ms
   * of the thread that attributes (the buffer lives as long as stdout).
   * Following, what has come goes out as before, in small pieces. */
  if (!in->src.follow && !isatty(fileno(r->out.out))) {
    static char outbuf[256u << 10];
    setvbuf(r->out.out, outbuf, _IOFBF, sizeof outbuf);
  }
  r->out.vat = in->an.vat;
  r->out.worker_rings = in->worker_rings != NULL;
  r->out.title = in->path;
  r->out.top = in->an.top;
  r->out.quake_ns = in->an.quake_ns;
  r->out.grouped = r->out.groups.by == IPS_GROUP_METHOD;
  if (r->out.fmt->begin(&r->out) != 0 ||
      keep_init(&r->keep, (size_t)r->slowest) != 0) {
    fprintf(stderr, "ipcstamp report: out of memory\n");
    r->out.fmt->end(&r->out);
    cli_output_close(r->out.out, "report", 0);
    keep_free(&r->keep); /* safe to free when zeroed */
    return CLI_EXIT_IO;
  }
  return -1;
}

/* The input read (rc its exit code): the slowest kept, the summary, the
 * end of the output.  Returns the exit code. */
static int report_end(report_t *r, const cli_input_t *in, int rc) {
  ips_analysis_t *a = r->out.a;
  /* What was read is reported even when reading stopped at a fault (the
   * followed file replaced by a FIFO): not after a filter named nothing. */
  int shown = rc == CLI_EXIT_OK || rc == CLI_EXIT_INPUT ||
              (rc == CLI_EXIT_IO && in->opened);
  if (r->keep_failed && rc != CLI_EXIT_USAGE)
    rc = CLI_EXIT_IO;
  if (r->slowest && !r->out.summary_only && shown)
    show_kept(r);
  /* Not after a filter that named nothing: a summary of nothing would
   * read as a finding. */
  if (a && shown && r->out.fmt->summary)
    r->out.fmt->summary(&r->out, a);
  if (r->out.fmt->end(&r->out) < 0) {
    fprintf(stderr, "ipcstamp report: out of memory\n");
    rc = CLI_EXIT_IO;
  }
  if (a && saturated(r) != 0 && rc == CLI_EXIT_OK)
    rc = CLI_EXIT_INPUT;
  if (cli_output_close(r->out.out, "report", in->opened) < 0)
    rc = CLI_EXIT_IO;
  return rc;
}

int cmd_report(int argc, char **argv) {
  const char *outpath = NULL;
  report_t r;
  cli_input_t in;
  int rc;
  memset(&r, 0, sizeof r);
  cli_input_init(&in, "ipcstamp report", usage_text);
  r.out.out = stdout;
  r.out.fmt = report_format("text");
#ifdef HAVE___FSETLOCKING
  /* One thread writes: stdio's per-call locking was a third of the time
   * of a report of many small deliveries. */
  __fsetlocking(stdout, FSETLOCKING_BYCALLER);
#endif
  if ((rc = report_options(&in, &r, argc, argv, &outpath)) >= 0)
    return rc;
  if ((rc = cli_inputs_first(&in)) >= 0) /* refused: nothing but its error */
    return rc;
  if ((rc = report_begin(&r, &in, outpath)) >= 0)
    return rc;
  in.an.on_delivery = on_delivery;
  in.an.on_skip = on_skip;
  in.an.arg = &r;
  rc = report_end(&r, &in, cli_analyze(&in, &r.out.a));
  keep_free(&r.keep);
  ips_groups_free(&r.out.groups);
  ips_analysis_free(r.out.a);
  return rc;
}
