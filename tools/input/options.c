/* options.c — the options the analysis subcommands share (the input, its
 * filters, the rings' own), and their values: counts, durations, ranges.
 * The reading itself is in read.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_input_init(cli_input_t *in, const char *prog, const char *usage) {
  memset(in, 0, sizeof *in);
  in->prog = prog;
  in->usage = usage;
  ips_source_options_init(&in->src);
  ips_analysis_options_init(&in->an);
  in->progress = 1;
  in->msgs = stderr;
}

int cli_count(const char *s, long long max, long long *out) {
  char *end;
  long long v;
  if (!*s || *s == '-' || *s == '+')
    return -1;
  v = strtoll(s, &end, 10);
  if (*end || v < 0 || v > max)
    return -1;
  *out = v;
  return 0;
}

int cli_decimal_ns(const char *s, int64_t unit_ns, int64_t *ns) {
  int64_t v = 0, f = 0, scale = unit_ns;
  const char *p = s;
  if (!*p)
    return -1;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p++ - '0');
    if (v > 3155760000000000000LL / unit_ns)
      return -1;
  }
  if (*p == '.') {
    if (!p[1])
      return -1;
    for (p++; *p >= '0' && *p <= '9'; p++)
      if (scale > 1) {
        scale /= 10;
        f += (*p - '0') * scale;
      }
  }
  if (*p || p == s)
    return -1;
  *ns = v * unit_ns + f;
  return 0;
}

/* A duration with its unit ("250us", "1.5ms", "2s", "800ns"; without one,
 * microseconds, the report's unit) into ns; -1 if it is not one. */
static int duration(const char *s, int64_t *ns) {
  static const struct {
    const char *unit;
    int64_t ns;
  } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
  char num[64];
  size_t n = strspn(s, "0123456789."), i;
  if (n == 0 || n >= sizeof num)
    return -1;
  memcpy(num, s, n);
  num[n] = '\0';
  if (!s[n])
    return cli_decimal_ns(num, 1000, ns);
  for (i = 0; i < sizeof units / sizeof units[0]; i++)
    if (!strcmp(s + n, units[i].unit))
      return cli_decimal_ns(num, units[i].ns, ns);
  return -1;
}

/* "A..B", "A..", "..B" or "A" into [*lo, *hi] (*hi 0: no end). */
static int crank_range(const char *s, long long *lo, long long *hi) {
  const char *dots = strstr(s, "..");
  char a[32];
  long long x;
  size_t n = dots ? (size_t)(dots - s) : strlen(s);
  *lo = 0;
  *hi = 0;
  if (n >= sizeof a)
    return -1;
  memcpy(a, s, n);
  a[n] = '\0';
  if (n && cli_count(a, 1LL << 53, lo))
    return -1;
  if (!dots)
    return n ? (*hi = *lo, 0) : -1;
  if (dots[2] && (cli_count(dots + 2, 1LL << 53, &x) || x < *lo || x == 0))
    return -1;
  if (dots[2])
    *hi = x;
  return n || dots[2] ? 0 : -1;
}

int cli_bad_value(const cli_input_t *in, const char *what, const char *arg) {
  fprintf(stderr, "%s: %s, not '%s' (try '%s --help')\n", in->prog, what, arg,
          in->prog);
  return CLI_EXIT_USAGE;
}

int cli_clock(const char *s, int *clock) {
  if (!strcmp(s, "auto"))
    *clock = IPS_CLOCK_AUTO;
  else if (!strcmp(s, "mono"))
    *clock = IPS_CLOCK_MONO;
  else if (!strcmp(s, "wall"))
    *clock = IPS_CLOCK_WALL;
  else
    return -1;
  return 0;
}

int cli_max_line(const char *s, size_t *out) {
  long long v;
  if (cli_count(s, 1LL << 34, &v) || v < IPS_MIN_MAX_LINE)
    return -1;
  *out = (size_t)v;
  return 0;
}

/* A filter's option: 0 when it was one, 1 when it is not, -1 after saying
 * what is wrong. */
static int filter_option(cli_input_t *in, int c, const char *arg) {
  long long v;
  switch (c) {
    case OPT_VAT:
      in->an.vat = arg;
      return 0;
    case OPT_SINCE:
    case OPT_UNTIL:
      if (cli_decimal_ns(arg, 1000000000, c == OPT_SINCE ? &in->an.since_ns : &in->an.until_ns)) {
        cli_bad_value(in, c == OPT_SINCE ? "--since takes seconds"
                                         : "--until takes seconds", arg);
        return -1;
      }
      return 0;
    case OPT_CRANK:
      if (crank_range(arg, &in->an.crank_min, &in->an.crank_max)) {
        cli_bad_value(in, "--crank takes A..B, A.., ..B or A", arg);
        return -1;
      }
      return 0;
    case OPT_METHOD:
      in->method = arg;
      return 0;
    case OPT_OVER:
      if (duration(arg, &in->over_ns)) {
        cli_bad_value(in, "--over takes a duration (250us, 1.5ms, 2s; "
                          "bare: microseconds)", arg);
        return -1;
      }
      in->has_over = 1;
      return 0;
    case OPT_LIMIT:
      if (cli_count(arg, 1LL << 53, &v) || v == 0) {
        cli_bad_value(in, "--limit takes a count of deliveries", arg);
        return -1;
      }
      in->an.limit = (uint64_t)v;
      return 0;
    default:
      return 1;
  }
}

/* A directory's option (--ring, --worker-rings) into *dir: 0, or -1 after
 * saying what is wrong. */
static int dir_option(cli_input_t *in, const char *what, const char *arg,
                      const char **dir) {
  if (!*arg || strlen(arg) >= 4096) {
    cli_bad_value(in, what, arg);
    return -1;
  }
  *dir = arg;
  return 0;
}

/* One option: 0 when it was a shared one (*done set for -h), 1 when it is
 * the subcommand's own, -1 after saying what is wrong. */
static int input_option(cli_input_t *in, int c, const char *arg, int *done) {
  long long v;
  *done = 0;
  switch (c) {
    case OPT_CLOCK:
      if (cli_clock(arg, &in->an.clock) < 0) {
        cli_bad_value(in, "--clock takes auto, mono or wall", arg);
        return -1;
      }
      return 0;
    case OPT_STRICT:
      in->src.strict = 1;
      return 0;
    case OPT_FOLLOW:
      in->src.follow = 1;
      return 0;
    case OPT_OS:
      in->os_path = arg;
      return 0;
    case OPT_MAX_LINE:
      if (cli_max_line(arg, &in->src.max_line) < 0) {
        cli_bad_value(in, "--max-line takes bytes (1024 or more)", arg);
        return -1;
      }
      return 0;
    case OPT_QUAKE_US:
      if (cli_count(arg, 1000000000000LL, &v)) {
        cli_bad_value(in, "--quake-us takes microseconds", arg);
        return -1;
      }
      in->an.quake_ns = v * 1000;
      return 0;
    case OPT_RING:
      return dir_option(in, "--ring takes a directory (its name shorter than "
                            "4096 bytes)", arg, &in->ring);
    case OPT_WORKER_RINGS:
      return dir_option(in, "--worker-rings takes a directory (its name "
                            "shorter than 4096 bytes)", arg, &in->worker_rings);
    case 'h':
      fputs(in->usage, stdout);
      *done = 1;
      return 0;
    default:
      return filter_option(in, c, arg);
  }
}

/* getopt's own messages name argv[0], which is the bare subcommand: they
 * are silenced (opterr 0, a leading ':') and said here with the program's
 * name, as every other message is. */
static void option_error(const cli_input_t *in, int c, char **argv) {
  const char *arg = argv[optind - 1], *what;
  char shortopt[3] = {'-', (char)optopt, '\0'};
  int islong = !strncmp(arg, "--", 2);
  if (c == ':')
    what = "this option needs a value";
  else if (islong && strchr(arg, '='))
    what = "unknown option, or one that takes no value";
  else
    what = "unknown option";
  fprintf(stderr, "%s: %s: '%s' (try '%s --help')\n", in->prog, what,
          islong ? arg : shortopt, in->prog);
}

int cli_next_option(cli_input_t *in, int argc, char **argv,
                    const char *shorts, const struct option *opts, int *rc) {
  int c, r, done;
  char sh[32];
  *rc = -1;
  snprintf(sh, sizeof sh, ":%s", shorts);
  opterr = 0;
  while ((c = getopt_long(argc, argv, sh, opts, NULL)) != -1) {
    if (c == '?' || c == ':') {
      option_error(in, c, argv);
      *rc = CLI_EXIT_USAGE;
      return -1;
    }
    r = input_option(in, c, optarg, &done);
    if (r < 0) {
      *rc = CLI_EXIT_USAGE;
      return -1;
    }
    if (done) {
      *rc = CLI_EXIT_OK;
      return -1;
    }
    if (r == 1)
      return c;
  }
  if (in->an.until_ns && in->an.since_ns >= in->an.until_ns) {
    /* An empty window would give an empty report and no word of why. */
    fprintf(stderr, "%s: --since %.9g is not before --until %.9g: no "
                    "delivery could be chosen\n", in->prog,
            (double)in->an.since_ns / 1e9, (double)in->an.until_ns / 1e9);
    *rc = CLI_EXIT_USAGE;
  }
  return -1;
}

int cli_filters_given(const cli_input_t *in) {
  return in->an.vat || in->method || in->has_over || in->an.since_ns ||
         in->an.until_ns || in->an.crank_min || in->an.crank_max ||
         in->an.limit;
}

int cli_input_path(cli_input_t *in, int argc, char **argv) {
  if (in->ring && in->worker_rings) {
    fprintf(stderr, "%s: --worker-rings joins rings to a slogfile; --ring "
            "reads rings alone: not both\n", in->prog);
    return -1;
  }
  if (in->ring) {
    if (optind < argc) {
      fprintf(stderr, "%s: --ring DIR takes no slogfile (got '%s')\n",
              in->prog, argv[optind]);
      return -1;
    }
    in->path = in->ring;
    return 0;
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "%s: %s (try '%s --help')\n", in->prog,
            optind == argc ? "which slogfile?" : "one slogfile only", in->prog);
    return -1;
  }
  in->path = argv[optind];
  return 0;
}

int cli_ring_interval(const char *name, const char *arg, long long min_ms,
                      long long *interval) {
  if (cli_count(arg, 60000, interval) != 0 || *interval < min_ms) {
    fprintf(stderr, "ipcstamp %s: --interval takes milliseconds from "
                    "%lld to 60000, not '%s'\n", name, min_ms, arg);
    return -1;
  }
  return 0;
}

int cli_ring_options(int argc, char **argv, const char *name,
                     const char *usage, long long min_ms, int with_clean,
                     cli_ring_t *o) {
  static const struct option opts[] = {
      {"dir", required_argument, NULL, 'd'},
      {"interval", required_argument, NULL, 'i'},
      {"once", no_argument, NULL, '1'},
      {"clean", no_argument, NULL, 'c'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  const char *dir_opt = NULL, *dir_arg = NULL;
  int c;
  o->once = o->clean = 0;
  o->npids = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
    switch (c) {
    case 'd':
      dir_opt = optarg;
      break;
    case 'i':
      if (cli_ring_interval(name, optarg, min_ms, &o->interval) != 0)
        return CLI_EXIT_USAGE;
      break;
    case '1':
      o->once = 1;
      break;
    case 'c':
      if (!with_clean)
        goto unknown;
      o->clean = 1;
      break;
    case 'h':
      fputs(usage, stdout);
      return CLI_EXIT_OK;
    case ':':
      fprintf(stderr, "ipcstamp %s: option '%s' needs a value\n", name,
              argv[optind - 1]);
      return CLI_EXIT_USAGE;
    default:
    unknown:
      fprintf(stderr, "ipcstamp %s: unknown option '%s' (try 'ipcstamp %s "
                      "--help')\n", name, argv[optind - 1], name);
      return CLI_EXIT_USAGE;
    }
  }
  /* What one would type: `ipcstamp top DIR`, `ipcstamp top DIR 4107`. */
  for (; optind < argc; optind++) {
    const char *a = argv[optind];
    long long pid;
    if (cli_count(a, 0x7fffffffLL, &pid) == 0) {
      if (pid == 0 || o->npids == CLI_RING_PIDS) {
        fprintf(stderr, "ipcstamp %s: %s, not '%s'\n", name,
                pid ? "at most 64 process ids" : "a process id is from 1 up",
                a);
        return CLI_EXIT_USAGE;
      }
      o->pids[o->npids++] = (long)pid;
    } else if (dir_opt || dir_arg) {
      fprintf(stderr, "ipcstamp %s: one ring directory only, not '%s' as "
                      "well (a process id is a number)\n", name, a);
      return CLI_EXIT_USAGE;
    } else {
      dir_arg = a;
    }
  }
  o->dir = dir_opt ? dir_opt : dir_arg ? dir_arg : getenv("IPCSTAMP_RING_DIR");
  if (!o->dir || !*o->dir) {
    fprintf(stderr, "ipcstamp %s: no ring directory: give it (ipcstamp %s "
                    "DIR), or set IPCSTAMP_RING_DIR\n", name, name);
    return CLI_EXIT_USAGE;
  }
  if (strlen(o->dir) >= 4096) { /* what ips_ring_dir_open takes */
    fprintf(stderr, "ipcstamp %s: the ring directory's name is longer than "
                    "4095 bytes\n", name);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

