/* cmd_blocks.c — `ipcstamp blocks`: where each block of a chain node's
 * slogfile went (docs/blocks.md).
 *
 * A command of its own rather than a mode of `report`: its rows are blocks,
 * not deliveries, and its options mean other things (--top counts blocks,
 * the clock is the records' time by default, as Agoric's own tools
 * measure blocks). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"

static const char usage_text[] =
    "usage: ipcstamp blocks SLOG [options]\n"
    "\n"
    "Where the time of each block of a chain node went (Agoric's\n"
    "cosmic-swingset slogfile, or its flight recorder): the block's swingset\n"
    "time split into deliveries (pipe, worker, kernel), heap snapshots (save,\n"
    "load) and the kernel's own time, with its commit, deliveries,\n"
    "computrons, busiest vat and longest delivery (see docs/blocks.md).\n"
    "SLOG may be gzip-compressed; '-' reads stdin.\n"
    "\n"
    "  --format F        text (default), json (JSON lines), csv, or html (a\n"
    "                    page: each block's time stacked by part)\n"
    "  -o, --output FILE write to FILE instead of stdout\n"
    "  --summary         print only the summary\n"
    "  --top N           how many slowest blocks to explain (default 5)\n"
    "  --clock C         wall (default: the records' time, as Agoric's\n"
    "                    tools), mono or auto (monotime where there is one)\n"
    "  --os FILE         split each block's time outside its deliveries\n"
    "                    (and its commit) with what `ipcstamp record`\n"
    "                    recorded (docs/os.md); every format\n"
    "  --follow          keep reading a file being written: each block shows\n"
    "                    when it is committed; Ctrl-C ends\n"
    "  --quake-us US     timequake threshold in microseconds (default 1000)\n"
    "  --strict          validate every byte as JSON (slower)\n"
    "  --max-line BYTES  longest line read (default 67108864)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped (each reported on\n"
    "stderr with its line number) or sums out of range, 4 cannot read the\n"
    "input or write the output\n";

typedef struct {
  blocks_out_t out;
  int format;           /* REPORT_TEXT, _JSON, _CSV or _HTML */
  blocks_html_t *html;  /* REPORT_HTML */
  int summary_only;
  const char *ospath;   /* --os */
  blocks_os_t os;       /* --os: os.os set */
  int os_rc;            /* what opening it said */
} blocks_t;

static void on_delivery(void *arg, const ips_delivery_t *d) {
  blocks_t *r = arg;
  blocks_os_delivery(&r->os, d);
}

/* --os in JSON: each row's "os" object, and the summary's. */
static void os_json_more(void *arg, yajl_gen g, int summary) {
  blocks_t *r = arg;
  if (summary)
    blocks_os_summary_json(&r->os, g);
  else
    blocks_os_json(&r->os, g);
}

/* --os in CSV: the header's columns and each row's cells. */
static void os_csv_more(void *arg, FILE *f, int header) {
  blocks_t *r = arg;
  blocks_os_csv(&r->os, f, header);
}

/* --os in HTML: the page's section. */
static void os_html_more(void *arg, FILE *f) {
  blocks_t *r = arg;
  blocks_os_html(&r->os, f);
}

static void on_block(void *arg, const ips_block_t *b) {
  blocks_t *r = arg;
  blocks_add(&r->out, b);
  if (r->os.os)
    blocks_os_block(&r->os, b);
  if (r->html)
    blocks_html_block(r->html, b);
  if (r->summary_only || r->html)
    return;
  switch (r->format) {
    case REPORT_TEXT:
      blocks_row_text(&r->out, b);
      if (r->os.os)
        blocks_os_text(&r->os, r->out.out);
      break;
    case REPORT_JSON:
      blocks_row_json(&r->out, b);
      break;
    default:
      blocks_row_csv(&r->out, b);
      break;
  }
}

/* Following: the blocks so far are in the output (a file too) while the
 * reader waits for more. */
static void on_idle(void *arg) {
  blocks_t *r = arg;
  fflush(r->out.out);
}

enum { OPT_FORMAT = OPT_FIRST_OWN, OPT_SUMMARY, OPT_TOP, OPT_BLOCKS_OS };

/* The command line into in and r (outpath: -o, top: --top).  Returns -1
 * to go on, else an exit code. */
static int blocks_options(cli_input_t *in, blocks_t *r, int argc, char **argv,
                          const char **outpath, long long *top) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      {"format", required_argument, NULL, OPT_FORMAT},
      {"summary", no_argument, NULL, OPT_SUMMARY},
      {"top", required_argument, NULL, OPT_TOP},
      {"os", required_argument, NULL, OPT_BLOCKS_OS},
      {"output", required_argument, NULL, 'o'},
      {NULL, 0, NULL, 0}};
  long long v;
  int c, rc;
  while ((c = cli_next_option(in, argc, argv, "ho:", opts, &rc)) != -1) {
    switch (c) {
      case 'o':
        *outpath = optarg;
        break;
      case OPT_FORMAT:
        if ((r->format = out_format(optarg)) < 0)
          return cli_bad_value(in, "--format takes text, json, csv or html", optarg);
        break;
      case OPT_SUMMARY:
        r->summary_only = 1;
        break;
      case OPT_TOP:
        if (cli_count(optarg, 1000, &v))
          return cli_bad_value(in, "--top takes a count up to 1000", optarg);
        *top = v;
        break;
      case OPT_BLOCKS_OS:
        r->ospath = optarg;
        break;
    }
  }
  if (rc >= 0)
    return rc;
  if (cli_filters_given(in)) {
    fprintf(stderr, "ipcstamp blocks: --vat, --method, --over, --since, "
                    "--until, --crank and --limit choose deliveries; a block "
                    "has them all\n");
    return CLI_EXIT_USAGE;
  }
  if (in->ring) {
    fprintf(stderr, "ipcstamp blocks: blocks come from a chain node's "
                    "slogfile; rings hold none (--ring is for report, "
                    "latency, trace and otel)\n");
    return CLI_EXIT_USAGE;
  }
  if (cli_input_path(in, argc, argv) < 0)
    return CLI_EXIT_USAGE;
  return -1;
}

/* --os FILE read whole, its split asked of each delivery and block.
 * Returns -1 to go on, else an exit code (said). */
static int blocks_os_open(blocks_t *r, cli_input_t *in) {
  if (!r->ospath)
    return -1;
  r->os_rc = cli_os_open(&r->os.os, "ipcstamp blocks", r->ospath);
  if (!r->os.os)
    return r->os_rc;
  r->out.json_more = os_json_more;
  r->out.csv_more = os_csv_more;
  r->out.html_more = os_html_more;
  r->out.json_more_arg = r;
  in->an.on_delivery = on_delivery;
  return -1;
}

/* The output opened and begun.  Returns -1 to go on, else an exit code
 * (said; the output closed). */
static int blocks_begin(blocks_t *r, const cli_input_t *in,
                        const char *outpath, long long top) {
  if (!(r->out.out = cli_output(outpath, "blocks")))
    return CLI_EXIT_IO;
  if (blocks_out_init(&r->out, (size_t)top) < 0 ||
      (r->format == REPORT_JSON && !(r->out.g = out_gen())) ||
      (r->format == REPORT_HTML && !(r->html = blocks_html_open(r->out.out, in->path)))) {
    fprintf(stderr, "ipcstamp blocks: out of memory\n");
    blocks_out_free(&r->out);
    cli_output_close(r->out.out, "blocks", 0);
    return CLI_EXIT_IO;
  }
  if (!r->summary_only) {
    if (r->format == REPORT_TEXT)
      blocks_header_text(&r->out);
    else if (r->format == REPORT_CSV)
      blocks_header_csv(&r->out);
  }
  return -1;
}

/* The input read (rc its exit code): the summary, what was left out, the
 * sums at the bound.  Returns the exit code. */
static int blocks_end(blocks_t *r, const cli_input_t *in,
                      const ips_analysis_t *a, int rc) {
  if (r->html) {
    blocks_html_close(r->html, &r->out); /* what was read, even after a fault */
  } else if (a && (rc != CLI_EXIT_IO || in->opened)) { /* what was read */
    if (r->format == REPORT_JSON)
      blocks_summary_json(&r->out);
    else if (r->format == REPORT_TEXT || r->summary_only)
      blocks_summary_text(&r->out); /* CSV: rows only */
    if (r->os.os && r->format == REPORT_TEXT)
      blocks_os_summary_text(&r->os, r->out.out);
  }
  if (a) {
    uint64_t nb, nd;
    ips_analysis_blocks_dropped(a, &nb, &nd);
    if (nb || nd) /* not silently: no row and no figure has them */
      fprintf(stderr, "ipcstamp blocks: %llu blocks left out (begun and "
                      "never ended, or ended without their begin) and %llu "
                      "deliveries outside any block\n",
              (unsigned long long)nb, (unsigned long long)nd);
  }
  if (r->out.saturated) {
    /* Said, and bad input: a figure at the bound is not a measure. */
    fprintf(stderr, "ipcstamp blocks: %llu sums passed the range of 64 bits "
                    "(times 292 years apart, or computrons past 2^63) and "
                    "are shown at the bound\n",
            (unsigned long long)r->out.saturated);
    if (rc == CLI_EXIT_OK)
      rc = CLI_EXIT_INPUT;
  }
  return rc;
}

int cmd_blocks(int argc, char **argv) {
  const char *outpath = NULL;
  blocks_t r;
  cli_input_t in;
  ips_analysis_t *a = NULL;
  long long top = 5;
  int rc;
  memset(&r, 0, sizeof r);
  cli_input_init(&in, "ipcstamp blocks", usage_text);
  in.an.clock = IPS_CLOCK_WALL; /* block times as Agoric's tools read them */
  r.out.out = stdout;
  if ((rc = blocks_options(&in, &r, argc, argv, &outpath, &top)) >= 0)
    return rc;
  if ((rc = blocks_os_open(&r, &in)) >= 0 ||
      (rc = blocks_begin(&r, &in, outpath, top)) >= 0) {
    blocks_os_free(&r.os);
    return rc;
  }
  in.on_block = on_block;
  in.on_idle = on_idle;
  in.idle_arg = &r;
  in.an.arg = &r;
  rc = cli_analyze(&in, &a);
  rc = blocks_end(&r, &in, a, rc);
  if (cli_output_close(r.out.out, "blocks", in.opened) < 0)
    rc = CLI_EXIT_IO;
  if (r.out.g)
    yajl_gen_free(r.out.g);
  blocks_out_free(&r.out);
  blocks_os_free(&r.os);
  ips_analysis_free(a);
  return rc == CLI_EXIT_OK ? r.os_rc : rc;
}
