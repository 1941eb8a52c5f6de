/* cmd_run.c — `ipcstamp run`: drive a workload through one worker per vat
 * and write a slogfile. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ipcstamp-ring.h"
#include "kernel.h"
#include "demo.h"

#define MAX_VATS 256
#define MAX_ARGS 64

static void usage(FILE *f) {
  fprintf(f,
      "usage: ipcstamp run --worker CMD (--workload FILE | --demo) [options]\n"
      "\n"
      "Drive a workload through workers (one per vat, any program speaking\n"
      "the xsnap worker protocol on fd 3/4) and write a slogfile.\n"
      "\n"
      "  --worker CMD      the worker command line, split at spaces (no\n"
      "                    shell); e.g. 'worker/ipcstamp-worker-js'\n"
      "  --vats N          number of vats, v1..vN, one worker each (1..%d;\n"
      "                    default 1)\n"
      "  --workload FILE   JSON lines: {\"vat\":\"v1\",\"evaluate\":\"<js>\"} or\n"
      "                    {\"vat\":\"v1\",\"vd\":<delivery>}; '-' is stdin\n"
      "  --demo            the built-in demo workload (needs a JavaScript\n"
      "                    worker: ipcstamp-worker-js or xsnap-worker)\n"
      "  --rounds N        rounds of the demo (default 20)\n"
      "  --repeat N        run the workload N times (default 1); it is\n"
      "                    read and checked once, and memory does not grow\n"
      "                    with N\n"
      "  --slog FILE       write the slogfile to FILE (docs/slogfile.md)\n"
      "  --force           replace FILE if it exists\n"
      "  --timeout MS      fail a delivery after MS milliseconds (default: "
      "none)\n"
      "  --max-upcalls N   most upcalls one delivery may make (default:\n"
      "                    none); one more is a fault\n"
      "  --max-frame BYTES largest frame accepted from a worker (default\n"
      "                    64 MiB); a longer one is a fault\n"
      "  --run-delay       stamp each side's wait for a CPU too (Linux\n"
      "                    schedstat; IPCSTAMP_RUN_DELAY=1 does the same), so\n"
      "                    the report splits pipe into transit and waiting\n"
      "  --ring DIR        write the live rings of stamps of the parent and of\n"
      "                    every worker into DIR, for ipcstamp top and watch\n"
      "                    (the same as IPCSTAMP_RING_DIR=DIR)\n"
      "  --quiet           no summary\n"
      "  -h, --help        this help\n"
      "\n"
      "exit codes: 0 ok, 1 a worker fault or an interrupted run, 2 bad usage,\n"
      "            3 bad workload line, 4 cannot read or write a file\n",
      MAX_VATS);
}

__attribute__((format(printf, 1, 2))) static int bad_usage(const char *fmt,
                                                           ...) {
  va_list ap;
  fprintf(stderr, "ipcstamp run: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (try 'ipcstamp run --help')\n");
  return CLI_EXIT_USAGE;
}

static int parse_num(const char *s, long lo, long hi, long *out) {
  char *end;
  long v;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

typedef struct {
  kernel_t k;
  uv_signal_t sig[2];
  uv_timer_t progress;
  int interrupted;
  int progress_shown;
  ips_stamp_t t0;       /* when the run began: the estimate of time left */
  run_feed_t feed;
  ips_ring_t *ring;   /* the parent's live ring (IPCSTAMP_RING_DIR), owned */
} run_t;

static void on_sig(uv_signal_t *h, int signum) {
  run_t *r = h->data;
  if (!r->interrupted) {
    r->interrupted = signum;
    fprintf(stderr, "\nipcstamp run: %s: stopping\n", strsignal(signum));
  }
  kernel_stop(&r->k);
}

static void on_progress(uv_timer_t *t) {
  run_t *r = t->data;
  kernel_t *k = &r->k;
  double x = run_feed_fraction(&r->feed, k);
  char left[64] = "";
  if (x > 0) {
    /* The time so far, scaled: the passes are alike. */
    ips_stamp_t now;
    double s;
    ips_clock_read(&now);
    s = (double)(now.mono_ns - r->t0.mono_ns) / 1e9 * (1 - x) / x;
    if (s < 3600)
      snprintf(left, sizeof left, ", %dm%02ds left", (int)s / 60, (int)s % 60);
    else
      snprintf(left, sizeof left, ", %dh%02dm left", (int)(s / 3600),
               (int)s % 3600 / 60);
  }
  if (x >= 0)
    fprintf(stderr, "\r  %4.1f%%%s: ", x * 100, left);
  else
    fputs("\r  ", stderr);
  fprintf(stderr,
          "%" PRIu64 " deliveries, %" PRIu64 " upcalls, %" PRIu64
          " errors, %zu queued   ",
          k->deliveries, k->upcalls, k->errors + k->faults, k->queued);
  r->progress_shown = 1;
}

/* The run queue ran dry or the run was stopped: let the loop end once the
 * workers are closed. */
static void on_idle(kernel_t *k) {
  run_t *r = (run_t *)k;
  int i;
  for (i = 0; i < 2; i++)
    if (!uv_is_closing((uv_handle_t *)&r->sig[i]))
      uv_close((uv_handle_t *)&r->sig[i], NULL);
  if (!uv_is_closing((uv_handle_t *)&r->progress))
    uv_close((uv_handle_t *)&r->progress, NULL);
}

/* Split CMD at spaces into argv (no quoting: use a wrapper script for
 * anything fancier). */
static int split_cmd(char *cmd, char **argv, int max) {
  int n = 0;
  char *save, *tok;
  for (tok = strtok_r(cmd, " \t", &save); tok && n < max - 1;
       tok = strtok_r(NULL, " \t", &save))
    argv[n++] = tok;
  argv[n] = NULL;
  return tok ? -1 : n;
}

extern char **environ;

/* This process's environment with IPCSTAMP_VAT=<vat> (replacing any): a
 * worker names its vat in its live ring and its probes.  The array is malloc'd
 * (the strings are environ's and var's); NULL when out of memory. */
static char **env_with_vat(char *var) {
  size_t n = 0, i, j = 0;
  char **env;
  while (environ[n]) n++;
  env = malloc((n + 2) * sizeof *env);
  if (!env) return NULL;
  for (i = 0; i < n; i++)
    if (strncmp(environ[i], "IPCSTAMP_VAT=", 13) != 0) env[j++] = environ[i];
  env[j++] = var;
  env[j] = NULL;
  return env;
}

static int start_vats(run_t *r, char **wargv, uint64_t timeout_ms,
                      size_t max_frame, uint64_t max_upcalls) {
  kernel_t *k = &r->k;
  int i, rc, run_delay;
  /* A development run wants the on/off-CPU split; a worker pays two
   * system calls a command for it, so the worker programs leave it off
   * unless asked.  A value the user set stands. */
  setenv("IPCSTAMP_CPU_TIME", "1", 0);
  /* The run-queue delay costs a /proc read a stamp on each side: only when
   * asked, for both sides at once, so that every pipe segment can be
   * split. */
  run_delay = getenv("IPCSTAMP_RUN_DELAY") &&
              strcmp(getenv("IPCSTAMP_RUN_DELAY"), "1") == 0;
  for (i = 0; i < k->nvats; i++) {
    vat_t *v = &k->vats[i];
    ips_child_options_t o;
    char var[48]; /* IPCSTAMP_VAT=...: lives until the spawn has copied it */
    ips_child_options_init(&o);
    snprintf(v->id, sizeof v->id, "v%d", i + 1);
    v->k = k;
    o.file = wargv[0];
    o.args = wargv;
    o.timeout_ms = timeout_ms;
    o.max_frame = max_frame;
    o.max_upcalls = max_upcalls;
    o.data = v;
    o.ring = r->ring;
    o.ring_vat = v->id;
    o.run_delay = run_delay;
    kernel_worker_options(k, &o);
    /* The workers' rings are theirs (they inherit IPCSTAMP_RING_DIR); only
     * the vat's name must come from here, for the ring and for the
     * probes (docs/probes.md), which a tracer may attach at any time.
     * The spawn copies env. */
    snprintf(var, sizeof var, "IPCSTAMP_VAT=%s", v->id);
    o.env = env_with_vat(var);
    if (!o.env) return IPS_ENOMEM;
    rc = ips_child_spawn(k->loop, &o, &v->w);
    free(o.env);
    if (rc) {
      fprintf(stderr, "ipcstamp run: cannot start the worker '%s': %s\n",
              wargv[0], ips_strerror(rc));
      return rc;
    }
    k->open_workers++;
    if (k->slog)
      kernel_slog_check(k, ips_slog_worker_start(k->slog, v->id,
                                                 ips_child_pid(v->w)));
    rc = kernel_vat_started(k, v);
    if (rc) {
      fprintf(stderr, "ipcstamp run: %s: %s\n", v->id, ips_strerror(rc));
      return rc;
    }
  }
  return 0;
}

/* Where a finished run's slogfile goes.  A run that failed must not leave
 * FILE behind, or the corrected retry stops at "use --force": its record
 * is kept as FILE.failed (what went wrong is in it), or removed when the
 * workers could not be started (a --worker that cannot run: nothing to
 * see in it). */
static void keep_slogfile(const char *path, int exit_code, int started,
                          int quiet) {
  char failed[4096];
  if (exit_code == CLI_EXIT_OK) {
    if (!quiet)
      printf("slogfile: %s\n", path);
    return;
  }
  if (!started) {
    unlink(path);
    return;
  }
  snprintf(failed, sizeof failed, "%s.failed", path);
  if (rename(path, failed) == 0)
    fprintf(stderr, "ipcstamp run: the failed run's slogfile is %s\n", failed);
  else
    fprintf(stderr, "ipcstamp run: cannot rename %s to %s: %s\n", path, failed,
            strerror(errno));
}

/* What the command line asks for. */
typedef struct {
  const char *worker, *workload, *slog_path;
  int demo, force, quiet, repeat_given;
  long vats, rounds, timeout, max_frame, repeat, max_upcalls;
} run_opts_t;

/* One option c (its value in optarg) into o.  Returns -1 when taken, else
 * an exit code (help: 0). */
static int run_option(int c, run_opts_t *o, char **argv) {
  switch (c) {
  case 'w': o->worker = optarg; break;
  case 'l': o->workload = optarg; break;
  case 'd': o->demo = 1; break;
  case 's': o->slog_path = optarg; break;
  case 'f': o->force = 1; break;
  case 'q': o->quiet = 1; break;
  case 'D':
    /* The workers inherit it; the parent reads it below. */
    setenv("IPCSTAMP_RUN_DELAY", "1", 1);
    break;
  case 'n':
    if (parse_num(optarg, 1, MAX_VATS, &o->vats))
      return bad_usage("--vats wants a number from 1 to 256, not '%s'",
                       optarg);
    break;
  case 'r':
    if (parse_num(optarg, 0, 1000000, &o->rounds))
      return bad_usage("--rounds wants a number from 0 to 1000000, not "
                       "'%s'", optarg);
    break;
  case 'R':
    if (parse_num(optarg, 1, 1000000000000L, &o->repeat))
      return bad_usage("--repeat wants a number from 1 to 10^12, not '%s'",
                       optarg);
    o->repeat_given = 1;
    break;
  case 't':
    if (parse_num(optarg, 1, LONG_MAX, &o->timeout))
      return bad_usage("--timeout wants milliseconds (> 0), not '%s'",
                       optarg);
    break;
  case 'm':
    if (parse_num(optarg, 16, (long)IPS_NS_LEN_MAX, &o->max_frame))
      return bad_usage("--max-frame wants bytes from 16 to 999999999, "
                       "not '%s'", optarg);
    break;
  case 'g':
    /* The parent reads it below; the workers inherit it. */
    if (!*optarg || setenv("IPCSTAMP_RING_DIR", optarg, 1) != 0)
      return bad_usage("--ring wants a directory, not '%s'", optarg);
    break;
  case 'u':
    if (parse_num(optarg, 1, LONG_MAX, &o->max_upcalls))
      return bad_usage("--max-upcalls wants a number (> 0), not '%s'",
                       optarg);
    break;
  case 'h':
    usage(stdout);
    return CLI_EXIT_OK;
  case ':':
    return bad_usage("option '%s' needs a value", argv[optind - 1]);
  default:
    return bad_usage("unknown option '%s'", argv[optind - 1]);
  }
  return -1;
}

/* The command line into o.  Returns -1 to go on, else an exit code. */
static int run_options(int argc, char **argv, run_opts_t *o) {
  static const struct option opts[] = {
      {"worker", required_argument, NULL, 'w'},
      {"vats", required_argument, NULL, 'n'},
      {"workload", required_argument, NULL, 'l'},
      {"demo", no_argument, NULL, 'd'},
      {"rounds", required_argument, NULL, 'r'},
      {"repeat", required_argument, NULL, 'R'},
      {"slog", required_argument, NULL, 's'},
      {"force", no_argument, NULL, 'f'},
      {"timeout", required_argument, NULL, 't'},
      {"max-frame", required_argument, NULL, 'm'},
      {"max-upcalls", required_argument, NULL, 'u'},
      {"ring", required_argument, NULL, 'g'},
      {"run-delay", no_argument, NULL, 'D'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c, rc;
  memset(o, 0, sizeof *o);
  o->vats = 1;
  o->rounds = 20;
  o->repeat = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1)
    if ((rc = run_option(c, o, argv)) >= 0)
      return rc;
  if (optind < argc)
    return bad_usage("unexpected argument '%s'", argv[optind]);
  if (!o->worker || !*o->worker)
    return bad_usage("--worker CMD is required");
  if (!o->workload == !o->demo)
    return bad_usage("give exactly one of --workload FILE and --demo");
  if (o->demo && o->repeat_given)
    return bad_usage("--repeat goes with --workload (the demo has --rounds)");
  return -1;
}

/* IPCSTAMP_RING_DIR: the parent's ring (its stamps and each delivery's
 * attribution); the workers inherit the variable and write their own.
 * Opened before the slogfile: a ring that cannot be made must not leave a
 * slogfile behind (the retry would stop at "use --force").  Then the
 * slogfile.  Returns -1 to go on, else an exit code (said). */
static int open_outputs(run_t *r, const run_opts_t *o, int argc,
                        char **argv) {
  ips_ring_options_t ro;
  char m[300];
  int rc;
  ips_ring_options_init(&ro);
  ro.role = IPS_RING_ROLE_PARENT;
  ro.program = "ipcstamp run";
  if (ips_ring_options_env(&ro, m, sizeof m) != 0) {
    fprintf(stderr, "ipcstamp run: %s\n", m);
    return CLI_EXIT_USAGE;
  }
  if (ro.dir && ips_ring_open(&r->ring, &ro, m, sizeof m) != 0) {
    fprintf(stderr, "ipcstamp run: %s\n", m);
    return CLI_EXIT_IO;
  }
  if (!o->slog_path)
    return -1;
  rc = ips_slog_open(&r->k.slog, o->slog_path, o->force ? IPS_SLOG_FORCE : 0,
                     argc, argv);
  if (rc) {
    fprintf(stderr, "ipcstamp run: cannot write the slogfile %s: %s%s\n",
            o->slog_path, ips_strerror(rc),
            rc == -EEXIST ? " (use --force to replace it)" : "");
    if (r->ring) /* nothing ran: no ring of a run to look at */
      unlink(ips_ring_path(r->ring));
    return CLI_EXIT_IO;
  }
  return -1;
}

/* The run itself: the signals, the progress line, the workers, the loop
 * until the work is done.  *started: the workers were started.  Returns
 * the exit code so far; t1 - t0 is how long it ran. */
static int run_loop(run_t *r, const run_opts_t *o, char **wargv,
                    int *started, ips_stamp_t *t0, ips_stamp_t *t1) {
  int i, rc, exit_code = CLI_EXIT_OK;
  for (i = 0; i < 2; i++) {
    uv_signal_init(r->k.loop, &r->sig[i]);
    r->sig[i].data = r;
    uv_signal_start(&r->sig[i], on_sig, i ? SIGTERM : SIGINT);
  }
  uv_timer_init(r->k.loop, &r->progress);
  r->progress.data = r;
  if (isatty(2) && !o->quiet)
    uv_timer_start(&r->progress, on_progress, 1000, 500);
  ips_clock_read(t0);
  r->t0 = *t0;

  rc = start_vats(r, wargv, (uint64_t)o->timeout, (size_t)o->max_frame,
                  (uint64_t)o->max_upcalls);
  if (rc != 0) {
    /* A --worker that cannot be run is a bad value. */
    exit_code = rc == UV_ENOENT || rc == UV_EACCES ? CLI_EXIT_USAGE
                                                   : CLI_EXIT_FAIL;
    kernel_stop(&r->k);
  } else {
    *started = 1;
    kernel_pump(&r->k);
  }
  uv_run(r->k.loop, UV_RUN_DEFAULT);
  ips_clock_read(t1);
  if (r->progress_shown)
    fputc('\n', stderr);
  if (r->k.slog) {
    rc = ips_slog_close(r->k.slog);
    r->k.slog = NULL;
    if (rc)
      kernel_slog_check(&r->k, rc);
  }
  if (r->k.slog_failed)
    exit_code = CLI_EXIT_IO;
  else if (exit_code == CLI_EXIT_OK && (r->k.faults || r->interrupted))
    exit_code = CLI_EXIT_FAIL;
  return exit_code;
}

/* The run's counts: on stdout after a success, on stderr as part of a
 * failure (never a summary that reads as a success); the workers'
 * start-up times after a success. */
static void say_counts(const run_t *r, int exit_code, int quiet,
                       double seconds) {
  int i, shown = 0;
  if (!quiet || exit_code != CLI_EXIT_OK)
    fprintf(exit_code == CLI_EXIT_OK ? stdout : stderr,
            "ipcstamp run: %s%d vat%s, %" PRIu64 " deliveries and %" PRIu64
            " evaluations (%" PRIu64 " errors, %" PRIu64 " faults, %" PRIu64
            " not run), %" PRIu64 " upcalls (%" PRIu64 " sends) in %.3f s\n",
            exit_code == CLI_EXIT_OK ? "" : "failed: ", r->k.nvats,
            r->k.nvats == 1 ? "" : "s", r->k.deliveries, r->k.evaluations,
            r->k.errors, r->k.faults, r->k.skipped, r->k.upcalls, r->k.sends,
            seconds);
  if (quiet || exit_code != CLI_EXIT_OK)
    return;
  /* Timed apart (the readiness ping), so no first delivery carries it. */
  for (i = 0; i < r->k.nvats; i++)
    if (r->k.vats[i].ready_ns > 0)
      printf("%s%s %.1f ms", shown++ ? ", " : "worker start-up: ",
             r->k.vats[i].id, (double)r->k.vats[i].ready_ns / 1e6);
  if (shown)
    putchar('\n');
}

/* The vats, the worker's command line and the workload, checked whole
 * before anything starts.  Returns -1 to go on, else an exit code. */
static int prepare(run_t *r, const run_opts_t *o, char *cmd, char **wargv) {
  int i, rc;
  r->k.nvats = (int)o->vats;
  r->k.vats = calloc((size_t)o->vats, sizeof *r->k.vats);
  r->k.on_idle = on_idle;
  r->k.slog_path = o->slog_path;
  if (!r->k.vats || !cmd) {
    fprintf(stderr, "ipcstamp run: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  if (split_cmd(cmd, wargv, MAX_ARGS) <= 0)
    return bad_usage("--worker '%s' is empty or has too many words",
                     o->worker);
  for (i = 0; i < r->k.nvats; i++)
    snprintf(r->k.vats[i].id, sizeof r->k.vats[i].id, "v%d", i + 1);
  if (o->workload) {
    rc = run_load_workload(&r->k, &r->feed, o->workload, (uint64_t)o->repeat);
    if (rc)
      return rc;
  } else {
    run_demo_workload(&r->k, &r->feed, (int)o->rounds);
  }
  return -1;
}

int cmd_run(int argc, char **argv) {
  run_opts_t o;
  int rc, exit_code = CLI_EXIT_OK, started = 0;
  char *cmd = NULL, *wargv[MAX_ARGS];
  uv_loop_t loop;
  run_t r;
  ips_stamp_t t0, t1;

  if ((rc = run_options(argc, argv, &o)) >= 0)
    return rc;
  memset(&r, 0, sizeof r);
  if (uv_loop_init(&loop) != 0) {
    fprintf(stderr, "ipcstamp run: cannot start the event loop\n");
    return CLI_EXIT_FAIL;
  }
  r.k.loop = &loop;
  cmd = strdup(o.worker);
  if ((rc = prepare(&r, &o, cmd, wargv)) >= 0 ||
      (rc = open_outputs(&r, &o, argc, argv)) >= 0) {
    exit_code = rc;
    goto out;
  }
  exit_code = run_loop(&r, &o, wargv, &started, &t0, &t1);
  if (started)
    say_counts(&r, exit_code, o.quiet,
               (double)(t1.mono_ns - t0.mono_ns) / 1e9);
  if (o.slog_path && !r.k.slog_failed)
    keep_slogfile(o.slog_path, exit_code, started, o.quiet);

out:
  kernel_free(&r.k);
  run_feed_free(&r.feed);
  if (r.k.slog)
    ips_slog_close(r.k.slog);
  uv_run(&loop, UV_RUN_DEFAULT);
  ips_ring_close(r.ring); /* after the workers: they wrote into it */
  if (uv_loop_close(&loop) != 0 && exit_code == CLI_EXIT_OK)
    exit_code = CLI_EXIT_FAIL;
  free(cmd);
  fflush(stdout);
  return exit_code;
}
