/* cmd_diff.c — `ipcstamp diff`: the same deliveries compared across nodes
 * (validators of one chain, runs of one workload); docs/diff.md. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ipcstamp-analyze-diff.h"
#include "output/output.h"

static const char usage_text[] =
    "usage: ipcstamp diff [NAME=]SLOG [NAME=]SLOG... [options]\n"
    "\n"
    "The same deliveries on two or more nodes, side by side: matched by vat,\n"
    "delivery number and replay, checked to be the same delivery (method,\n"
    "computrons), and each node's time compared with the fastest's, part by\n"
    "part (see docs/diff.md).  Each SLOG may be gzip-compressed or a flight\n"
    "recorder; NAME (default: the file's name) is what the output calls it.\n"
    "\n"
    "  --format F        text (default), json (JSON lines: with --deliveries\n"
    "                    one per delivery, then the summary), csv (one row per\n"
    "                    delivery) or html (one page: nodes x blocks)\n"
    "  -o, --output FILE write to FILE instead of stdout\n"
    "  --deliveries      every joined delivery (text, json)\n"
    "  --top N           how long each list is (default 10)\n"
    "  --by K            the groups by vat+method (default), vat or method\n"
    "  --window N        deliveries kept waiting for the other files\n"
    "                    (default 16384)\n"
    "  --clock C         auto (default), mono or wall\n"
    "  --os FILE         a recording of `ipcstamp record` (docs/os.md) for\n"
    "                    each SLOG, in the same order (one --os per SLOG):\n"
    "                    each delivery's OS parts compared too\n"
    "  --strict          validate every byte as JSON (slower)\n"
    "  --max-line BYTES  longest line read (default 67108864)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 ok, 2 bad usage (a file given twice included), 3 records\n"
    "skipped (a file cut short included; each on stderr with its file and\n"
    "line), 4 cannot read a file or write the output, 6 DIVERGENCE: a\n"
    "delivery differs between the nodes (method or computrons), 7 the files\n"
    "have no delivery in common\n";

#define PROG "ipcstamp diff"

typedef struct {
  diff_out_t out;
  int deliveries;
  uint64_t skips[IPS_DIFF_MAX_NODES];
  const char *os[IPS_DIFF_MAX_NODES]; /* --os FILE, in the SLOGs' order */
  int nos;
  int os_rc;            /* what reading them said: 0, or bad records */
} cmd_t;

static void on_delivery(void *arg, const ips_diff_delivery_t *x) {
  cmd_t *c = arg;
  switch (c->out.format) {
    case REPORT_TEXT:
      if (c->deliveries)
        diff_delivery_text(&c->out, x);
      break;
    case REPORT_JSON:
      if (c->deliveries)
        diff_delivery_json(&c->out, x);
      break;
    case REPORT_CSV:
      diff_delivery_csv(&c->out, x);
      break;
    default:
      diff_html_delivery(&c->out, x);
      break;
  }
}

static void on_block(void *arg, const ips_diff_block_t *b) {
  cmd_t *c = arg;
  if (c->out.format == REPORT_HTML)
    diff_html_block(&c->out, b);
}

/* Skips as report says them, with the file: the first 20 of each. */
static void on_skip(void *arg, size_t node, const ips_skip_t *s) {
  cmd_t *c = arg;
  const ips_diff_node_t *n = ips_diff_node(c->out.d, node);
  if (++c->skips[node] > 20)
    return;
  out_skip_text(stderr, PROG, n->path, s);
}

/* NAME=FILE, or FILE named by its last component.  Returns 0 or the
 * library's code (IPS_EINVAL: a usage fault, such as a file given twice). */
static int add_file(ips_diff_t *d, const char *arg) {
  char name[64], err[512];
  const char *eq = strchr(arg, '='), *path = arg, *base;
  if (eq && eq > arg && (size_t)(eq - arg) < sizeof name &&
      !memchr(arg, '/', (size_t)(eq - arg))) {
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    path = eq + 1;
  } else {
    base = strrchr(arg, '/');
    snprintf(name, sizeof name, "%s", base ? base + 1 : arg);
  }
  int rc = ips_diff_add(d, name, path, err, sizeof err);
  if (rc < 0)
    fprintf(stderr, PROG ": %s\n", err);
  return rc;
}

enum { D_FORMAT = 0x100, D_DELIVERIES, D_TOP, D_WINDOW, D_CLOCK,
       D_STRICT, D_MAX_LINE, D_BY, D_OS };

static int bad(const char *what, const char *arg) {
  fprintf(stderr, PROG ": %s, got '%s'\n" PROG ": see ipcstamp diff --help\n",
          what, arg);
  return CLI_EXIT_USAGE;
}

/* n slogfiles, and c's recordings for them: -1 to go on, or the exit
 * code (said). */
static int operands(int n, const cmd_t *c) {
  if (n < 2) {
    fputs(PROG ": at least two slogfiles to compare\n" PROG
               ": see ipcstamp diff --help\n", stderr);
    return CLI_EXIT_USAGE;
  }
  if (n > IPS_DIFF_MAX_NODES) {
    fprintf(stderr, PROG ": at most %d slogfiles\n", IPS_DIFF_MAX_NODES);
    return CLI_EXIT_USAGE;
  }
  if (c->nos && c->nos != n) {
    fprintf(stderr, PROG ": %d --os for %d slogfiles: one recording per "
                    "slogfile, in the same order\n", c->nos, n);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* The options into *o and *c; returns -1 to go on or the exit code. */
static int options(int argc, char **argv, ips_diff_options_t *o, cmd_t *c,
                   const char **outpath) {
  static const struct option opts[] = {
      {"format", required_argument, NULL, D_FORMAT},
      {"output", required_argument, NULL, 'o'},
      {"deliveries", no_argument, NULL, D_DELIVERIES},
      {"top", required_argument, NULL, D_TOP},
      {"window", required_argument, NULL, D_WINDOW},
      {"clock", required_argument, NULL, D_CLOCK},
      {"strict", no_argument, NULL, D_STRICT},
      {"max-line", required_argument, NULL, D_MAX_LINE},
      {"by", required_argument, NULL, D_BY},
      {"os", required_argument, NULL, D_OS},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  long long v;
  int ch;
  while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
    switch (ch) {
      case 'h':
        fputs(usage_text, stdout);
        return CLI_EXIT_OK;
      case 'o':
        *outpath = optarg;
        break;
      case D_FORMAT:
        if ((c->out.format = out_format(optarg)) < 0)
          return bad("--format takes text, json, csv or html", optarg);
        break;
      case D_DELIVERIES:
        c->deliveries = 1;
        break;
      case D_TOP:
        if (cli_count(optarg, 10000, &v))
          return bad("--top takes a count up to 10000", optarg);
        o->top = (size_t)v;
        break;
      case D_WINDOW:
        if (cli_count(optarg, 1 << 24, &v) || v < 16)
          return bad("--window takes a count from 16 to 16777216", optarg);
        o->window = (size_t)v;
        break;
      case D_CLOCK:
        if (cli_clock(optarg, &o->clock) < 0)
          return bad("--clock takes auto, mono or wall", optarg);
        break;
      case D_BY:
        if (!strcmp(optarg, "vat+method")) o->by = IPS_DIFF_BY_VAT_METHOD;
        else if (!strcmp(optarg, "vat")) o->by = IPS_DIFF_BY_VAT;
        else if (!strcmp(optarg, "method")) o->by = IPS_DIFF_BY_METHOD;
        else return bad("--by takes vat+method, vat or method", optarg);
        break;
      case D_STRICT:
        o->src.strict = 1;
        break;
      case D_OS:
        if (c->nos == IPS_DIFF_MAX_NODES)
          return bad("--os once per slogfile, at most 16", optarg);
        c->os[c->nos++] = optarg;
        break;
      case D_MAX_LINE:
        if (cli_max_line(optarg, &o->src.max_line) < 0)
          return bad("--max-line takes a byte count from 1024", optarg);
        break;
      default:
        fputs(PROG ": see ipcstamp diff --help\n", stderr);
        return CLI_EXIT_USAGE;
    }
  }
  return operands(argc - optind, c);
}

/* Each --os FILE read and given to its slogfile's node.  Returns -1 to go
 * on, or an exit code (said). */
static int add_os(ips_diff_t *d, cmd_t *c) {
  int i, rc, worst = CLI_EXIT_OK;
  for (i = 0; i < c->nos; i++) {
    ips_os_t *os;
    rc = cli_os_open(&os, PROG, c->os[i]);
    if (!os)
      return rc;
    if (rc > worst) /* bad records skipped: said, the exit code at the end */
      worst = rc;
    if ((rc = ips_diff_os(d, (size_t)i, os)) < 0) {
      fprintf(stderr, PROG ": --os %s: %s\n", c->os[i], ips_strerror(rc));
      return CLI_EXIT_IO;
    }
  }
  c->out.os = c->nos > 0;
  c->os_rc = worst;
  return -1;
}

/* The exit code of a diff that was read to its end (or a read fault):
 * files with nothing in common (of the deliveries two of them share by
 * key, fewer are the same delivery than differ: unrelated chains share
 * keys such as v1's first delivery, and even some deliveries of the
 * kernel's own vats, and that is not a divergence), then a divergence,
 * then a file that could not be read, then skipped records. */
static int verdict(ips_diff_t *d, int read_rc) {
  const ips_diff_stats_t *st = ips_diff_stats(d);
  uint64_t saturated;
  size_t i;
  int skipped = 0;
  if (st->agree == 0 || st->agree < st->divergences) {
    fprintf(stderr, PROG ": the files have nothing in common: of %llu "
                    "deliveries, %llu are in one file only, %llu differ "
                    "(method or computrons) and %llu are the same: not the "
                    "same chain or workload?\n",
            (unsigned long long)st->joined, (unsigned long long)st->single,
            (unsigned long long)st->divergences,
            (unsigned long long)st->agree);
    return CLI_EXIT_DISJOINT;
  }
  if (st->divergences) {
    fprintf(stderr, PROG ": DIVERGENCE: %llu deliveries differ between the "
                    "files (method or computrons): see the output's first "
                    "lines\n", (unsigned long long)st->divergences);
    return CLI_EXIT_DIVERGE;
  }
  if (read_rc < 0)
    return CLI_EXIT_IO;
  saturated = st->saturated;
  for (i = 0; i < st->n_nodes; i++) {
    const ips_stats_t *s = ips_diff_node(d, i)->stats;
    if (s->skipped_lines || s->skipped_deliveries)
      skipped = 1;
    saturated += s->saturated;
  }
  if (saturated) /* said, and bad input: a figure at the bound is no measure */
    fprintf(stderr, PROG ": %llu sums passed the range of 64 bits and are "
                    "shown at the bound\n", (unsigned long long)saturated);
  return skipped || saturated ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}

static void summary(cmd_t *c) {
  switch (c->out.format) {
    case REPORT_TEXT:
      diff_summary_text(&c->out);
      break;
    case REPORT_JSON:
      diff_summary_json(&c->out);
      break;
    case REPORT_HTML:
      diff_html_close(&c->out);
      break;
    default:
      break;
  }
}

int cmd_diff(int argc, char **argv) {
  ips_diff_options_t o;
  ips_diff_t *d = NULL;
  const char *outpath = NULL;
  char err[512];
  cmd_t c;
  int rc, i;
  memset(&c, 0, sizeof c);
  ips_diff_options_init(&o);
  if ((rc = options(argc, argv, &o, &c, &outpath)) >= 0)
    return rc;
  o.on_delivery = on_delivery;
  o.on_block = on_block;
  o.on_skip = on_skip;
  o.arg = &c;
  if (ips_diff_new(&d, &o) < 0) {
    fputs(PROG ": out of memory\n", stderr);
    return CLI_EXIT_IO;
  }
  c.out.d = d;
  for (i = optind; i < argc; i++) {
    if ((rc = add_file(d, argv[i])) < 0) {
      ips_diff_free(d);
      return rc == IPS_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_IO;
    }
  }
  if ((rc = add_os(d, &c)) >= 0) {
    ips_diff_free(d);
    return rc;
  }
  if (!(c.out.out = cli_output(outpath, "diff"))) {
    ips_diff_free(d);
    return CLI_EXIT_IO;
  }
  if (diff_out_open(&c.out) < 0) {
    fputs(PROG ": out of memory\n", stderr);
    ips_diff_free(d);
    return CLI_EXIT_IO;
  }
  rc = ips_diff_run(d, err, sizeof err);
  if (rc < 0)
    fprintf(stderr, PROG ": %s\n", err);
  if (rc == IPS_ENOMEM || rc == IPS_EINVAL) {
    rc = CLI_EXIT_IO;
  } else {
    for (i = 0; i < (int)ips_diff_stats(d)->n_nodes; i++)
      if (c.skips[i] > 20)
        fprintf(stderr, PROG ": %s: %llu more skipped\n",
                ips_diff_node(d, (size_t)i)->path,
                (unsigned long long)(c.skips[i] - 20));
    summary(&c);
    rc = verdict(d, rc);
    if (rc == CLI_EXIT_OK && c.os_rc) /* a recording's bad records */
      rc = c.os_rc;
  }
  if (cli_output_close(c.out.out, "diff", 1) < 0 &&
      rc != CLI_EXIT_DIVERGE)
    rc = CLI_EXIT_IO;
  diff_out_free(&c.out);
  ips_diff_free(d);
  return rc;
}
