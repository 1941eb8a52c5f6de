/* always.c — `ipcstamp record --always-on DIR`: the OS view as a flight
 * recorder an operator leaves running (docs/always-on.md).  The kernel's
 * records go into the window (window.c) and past the triggers
 * (triggers.c); a stall schedules a dump --after seconds later (so that
 * its end is in it), written by a forked child from its copy of the
 * window, so that the recorder goes on reading the kernel's ring while
 * the dump is written and its summary computed.  The followed processes
 * are never stopped or slowed; a dump that fails is said and counted, and
 * recording goes on. */
#include "config.h"

#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "always.h"
#include "cli.h"
#include "os.skel.h"
#include "record.h"

#define S_NS 1000000000ull
#define ROOTS 64

typedef struct {
  ao_dir_t dir;
  long pid;
  const char *process;
  char **cmd;
  uint64_t window_ns, after_ns, min_interval_ns;
  uint64_t window_bytes;
  ao_limits_t lim;
  const char *slog;
  ao_slog_limits_t slim;
  const char *metrics; /* --metrics ADDR; NULL: none */
} opts_t;

typedef struct {
  opts_t o;
  struct os *s;
  ao_window_t *w;
  ao_triggers_t *t;
  ao_slog_t *slog;
  ao_metrics_t *mx;   /* --metrics; never touched by a dump's child */
  ao_counters_t c;
  ao_stall_t pend[AO_MAX_STALLS];
  size_t npend;
  /* The stretches of the last dump's stalls (ends at the dump when still
   * on): a stall over one of them is that stall seen again. */
  uint64_t last_from[AO_MAX_STALLS], last_to[AO_MAX_STALLS];
  size_t nlast;
  uint64_t now, due, last_dump;
  pid_t dumper;
  unsigned roots[ROOTS];
  size_t nroots;
  unsigned long long said_lost;
} ao_t;

static volatile sig_atomic_t stop, manual;
static void on_stop(int sig) {
  (void)sig;
  stop = 1;
}
static void on_usr1(int sig) {
  (void)sig;
  manual = 1;
}

/* A stall: counted and said; a dump scheduled --after it, or the stall
 * added to the one scheduled, or (within --min-interval of the last
 * dump) counted only. */
/* Whether s's stretch overlaps a stall the last dump was for (to its end,
 * or to the dump while it was still on): one stall seen at several levels
 * (a delivery, then its block's phase) is one. */
static int seen(const ao_t *a, const ao_stall_t *s) {
  uint64_t to = s->end ? s->end : s->trigger;
  size_t i;
  for (i = 0; s->kind != AO_MANUAL && i < a->nlast; i++)
    if (s->start <= a->last_to[i] && to >= a->last_from[i])
      return 1;
  return 0;
}

static void on_stall(ao_t *a, const ao_stall_t *s) {
  a->c.stalls[s->kind]++;
  if (s->what[0])
    fprintf(stderr, "ipcstamp record: stall: %s (%s, %.3f s)",
            ao_kind_name[s->kind], s->what,
            (double)(s->end - s->start) / 1e9);
  else
    fprintf(stderr, "ipcstamp record: stall: %s (process %u)",
            ao_kind_name[s->kind], s->worker ? s->worker : s->parent);
  if (a->npend) {
    if (a->npend < AO_MAX_STALLS)
      a->pend[a->npend++] = *s;
    fputs(", in the dump already scheduled\n", stderr);
    return;
  }
  if (seen(a, s)) {
    a->c.overlapping++;
    fputs(": no dump (over the stall the last dump was for)\n", stderr);
    return;
  }
  if (s->kind != AO_MANUAL && a->last_dump &&
      a->now - a->last_dump < a->o.min_interval_ns) {
    a->c.rate_limited++;
    fputs(": no dump (--min-interval since the last)\n", stderr);
    return;
  }
  a->pend[0] = *s;
  a->npend = 1;
  a->due = s->kind == AO_MANUAL ? a->now : a->now + a->o.after_ns;
  fprintf(stderr, ": dump in %.1f s\n", (double)(a->due - a->now) / 1e9);
}

static int on_event(void *ctx, void *data, size_t size) {
  ao_t *a = ctx;
  ao_stall_t s;
  a->c.events++;
  ao_window_add(a->w, data, size, a->now);
  if (ao_triggers_feed(a->t, data, size, &s))
    on_stall(a, &s);
  return 0;
}

/* An event the recorder makes itself (a process found in /proc, a lost
 * count): into the window as the kernel's are. */
static void emit(void *ctx, const struct os_event *e) {
  ao_t *a = ctx;
  ao_window_add(a->w, e, rec_bin_size(e->type), a->now);
  ao_triggers_feed(a->t, e, rec_bin_size(e->type), &(ao_stall_t){0});
}

/* The dump scheduled, now: forked, the child writes it from its copy of
 * the window (copy-on-write: the recorder's pages are shared until it
 * changes them). */
static void dump_now(ao_t *a) {
  size_t i;
  pid_t c;
  a->nlast = 0;
  for (i = 0; i < a->npend; i++) {
    ao_triggers_update(a->t, &a->pend[i]);
    if (a->pend[i].kind != AO_MANUAL) {
      a->last_from[a->nlast] = a->pend[i].start;
      a->last_to[a->nlast++] = a->pend[i].end ? a->pend[i].end : a->now;
    }
  }
  fflush(NULL);
  if ((c = fork()) == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    _exit(ao_dump_write(&a->o.dir, a->w,
                        a->o.pid > 0 ? a->o.pid
                                     : a->nroots ? (long)a->roots[0] : 0,
                        &a->c, a->pend, a->npend));
  }
  if (c < 0) {
    fprintf(stderr, "ipcstamp record: cannot fork to write a dump: %s\n",
            strerror(errno));
    a->c.dump_failures++;
  }
  a->dumper = c > 0 ? c : 0;
  a->last_dump = a->now;
  a->npend = 0;
}

/* The dump child ended (block: wait for it). */
static void reap(ao_t *a, int block) {
  int st;
  if (!a->dumper || waitpid(a->dumper, &st, block ? 0 : WNOHANG) != a->dumper)
    return;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
    a->c.dumps++;
  else
    a->c.dump_failures++;
  a->dumper = 0;
}

/* Whether process pid's name (comm, or argv[0]'s last part) is name. */
static int named(const char *pid, const char *name) {
  char p[64], b[4096];
  size_t n;
  FILE *f;
  int yes = 0;
  snprintf(p, sizeof p, "/proc/%.20s/comm", pid);
  if ((f = fopen(p, "r"))) {
    if (fgets(b, sizeof b, f)) {
      b[strcspn(b, "\n")] = 0;
      yes = strcmp(b, name) == 0;
    }
    fclose(f);
  }
  snprintf(p, sizeof p, "/proc/%.20s/cmdline", pid);
  if (!yes && (f = fopen(p, "r"))) {
    n = fread(b, 1, sizeof b - 1, f);
    b[n] = 0;
    yes = n > 0 && strcmp(strrchr(b, '/') ? strrchr(b, '/') + 1 : b, name) == 0;
    fclose(f);
  }
  return yes;
}

/* --process: every process of that name not followed yet is followed,
 * with its descendants; roots that ended are forgotten (a node that
 * restarts is found again at the next scan). */
static void scan(ao_t *a) {
  DIR *d = opendir("/proc");
  struct dirent *de;
  size_t i, j;
  for (i = j = 0; i < a->nroots; i++)
    if (!rec_process_gone((long)a->roots[i]))
      a->roots[j++] = a->roots[i];
  a->nroots = j;
  while (d && (de = readdir(d))) {
    unsigned pid;
    if (de->d_name[0] < '1' || de->d_name[0] > '9')
      continue;
    pid = (unsigned)strtoul(de->d_name, NULL, 10);
    for (i = 0; i < a->nroots && a->roots[i] != pid; i++)
      ;
    if (i < a->nroots || pid == (unsigned)getpid() ||
        pid == (unsigned)a->dumper || !named(de->d_name, a->o.process))
      continue;
    if (a->nroots < ROOTS)
      a->roots[a->nroots++] = pid;
    fprintf(stderr, "ipcstamp record: following %s (pid %u)\n",
            a->o.process, pid);
    rec_follow_existing(a->s, pid, emit, a);
  }
  if (d)
    closedir(d);
}

/* What happens between two reads of the kernel's ring. */
static void tick(ao_t *a) {
  unsigned long long lost = rec_lost(a->s);
  ao_stall_t s;
  if (lost != a->said_lost) { /* in the window as it happens */
    struct os_event e;
    memset(&e, 0, sizeof e);
    e.type = OS_EV_LOST;
    e.ts = a->now;
    e.u.lost.n = lost;
    emit(a, &e);
    a->said_lost = a->c.lost = lost;
  }
  ao_window_expire(a->w, a->now);
  while (ao_triggers_check(a->t, a->now, &s))
    on_stall(a, &s);
  while (a->slog && ao_slog_poll(a->slog, a->now, &s)) {
    /* The kernel's thread, whose time the summary splits. */
    ao_triggers_kernel(a->t, &s.parent, &s.parent_tid);
    on_stall(a, &s);
  }
  if (manual) {
    manual = 0;
    memset(&s, 0, sizeof s);
    s.kind = AO_MANUAL;
    s.start = s.trigger = a->now;
    if (a->npend)
      a->due = a->now;
    else
      on_stall(a, &s);
  }
  reap(a, 0);
  if (a->npend && a->now >= a->due && !a->dumper)
    dump_now(a);
  ao_metrics_publish(a->mx, &a->c, ao_window_seconds(a->w, a->now));
}

/* Reads the ring until stopped (or the followed process or command
 * ended); *status the command's wait status. */
static void run(ao_t *a, pid_t child, int *status) {
  struct ring_buffer *rb =
      ring_buffer__new(bpf_map__fd(a->s->maps.events), on_event, a, NULL);
  uint64_t scanned = 0;
  *status = -1;
  if (!rb) {
    fprintf(stderr, "ipcstamp record: cannot read the ring buffer: %s\n",
            strerror(errno));
    return;
  }
  while (!stop) {
    a->now = rec_mono_ns();
    if (a->o.process && a->now - scanned >= S_NS) {
      scan(a);
      scanned = a->now;
    }
    ring_buffer__poll(rb, 100);
    ring_buffer__consume(rb);
    a->now = rec_mono_ns();
    tick(a);
    if (child > 0 && waitpid(child, status, WNOHANG) == child)
      break;
    if (a->o.pid > 0 && rec_process_gone(a->o.pid))
      break;
  }
  ring_buffer__consume(rb);
  ring_buffer__free(rb);
  a->now = rec_mono_ns();
  tick(a);
  reap(a, 1);
  if (a->npend) { /* a dump scheduled: written before the end */
    dump_now(a);
    reap(a, 1);
  }
}

const char ao_usage_text[] =
    "usage: ipcstamp record --always-on DIR [OPTIONS] (--pid PID | --process NAME\n"
    "                       | -- COMMAND [ARGS...])\n"
    "       ipcstamp record --dump DIR\n"
    "\n"
    "--always-on: a flight recorder (docs/always-on.md).  Runs until stopped,\n"
    "keeps the last window in memory and writes nothing to DIR while all is\n"
    "well; a stall writes the window to DIR/ipcstamp-TIME-REASON.os with a\n"
    "summary beside it (.summary.txt) naming the stall and its largest parts.\n"
    "  --process NAME          follow every process named NAME (comm or argv[0])\n"
    "                          and its descendants, found again when restarted\n"
    "  --window SECONDS        the window kept (default 120)\n"
    "  --window-bytes SIZE     ... and at most SIZE of records (default 64M;\n"
    "                          suffixes k, M, G)\n"
    "  --after SECONDS         written after a stall, so its end is in the dump\n"
    "                          (default 10)\n"
    "  --max-dumps N           dumps kept in DIR, oldest removed (default 20)\n"
    "  --max-dump-bytes SIZE   bytes of dumps kept in DIR (default 1G)\n"
    "  --stall-delivery SECONDS  a delivery this long is a stall (default 10;\n"
    "                          0: off)\n"
    "  --stall-upcall SECONDS  an upcall this long is a stall (default 10; 0: off)\n"
    "  --min-interval SECONDS  at most one dump per (default 60; asked dumps\n"
    "                          are not limited)\n"
    "  --slog FILE             follow the node's slogfile (as blocks --follow)\n"
    "                          for these stalls, each said when it ends:\n"
    "  --stall-block SECONDS   a block this long (default 30; 0: off)\n"
    "  --stall-phase SECONDS   a block's phase: cosmos, swingset, commit,\n"
    "                          after-commit (default 10; 0: off)\n"
    "  --stall-gap SECONDS     a gap between cranks (default 5; 0: off)\n"
    "  --metrics ADDR          serve the recorder's counters (stalls, dumps, lost\n"
    "                          events, the window) and --slog's deliveries per\n"
    "                          vat to Prometheus on http://ADDR/metrics\n"
    "                          (docs/operators.md): HOST:PORT, :PORT or PORT,\n"
    "                          as `ipcstamp metrics --listen` (port 0: any free;\n"
    "                          the address is said on stderr).  Default: none\n"
    "A worker or followed process ended by a signal or a non-zero status is a\n"
    "stall too.  SIGUSR1 to the recorder, or `record --dump DIR` (which finds\n"
    "it by DIR/recorder.pid, waits for the dump and prints its path), dumps now.\n";

/* SECONDS (a decimal number, as --since's, at most a year) as ns; -1
 * when not one. */
static int secs_arg(const char *s, uint64_t *ns) {
  int64_t v;
  if (cli_decimal_ns(s, (int64_t)S_NS, &v) || v > 31536000 * (int64_t)S_NS)
    return -1;
  *ns = (uint64_t)v;
  return 0;
}

/* SIZE (bytes, with k, M or G) from min to 1T; -1 when not one. */
static int size_arg(const char *s, uint64_t min, uint64_t *out) {
  char *end;
  unsigned long long v;
  uint64_t m = 1;
  if (*s < '0' || *s > '9')
    return -1;
  errno = 0;
  v = strtoull(s, &end, 10);
  if (*end == 'k' || *end == 'K')
    m = 1024;
  else if (*end == 'M')
    m = 1024 * 1024;
  else if (*end == 'G')
    m = 1024 * 1024 * 1024;
  if (errno || (m > 1 && *++end) || (m == 1 && *end) ||
      v > (1ull << 40) / m || v * m < min)
    return -1;
  *out = v * m;
  return 0;
}

enum { O_AO = 256, O_DUMP, O_PID, O_PROC, O_WIN, O_WINB, O_AFTER, O_MAXD,
       O_MAXB, O_SDEL, O_SUP, O_MIN, O_SLOG, O_SBLOCK, O_SPHASE, O_SGAP,
       O_METRICS };

/* One option's value into o; -1 when it is bad (said). */
static int option(opts_t *o, int c, const char *v) {
  long long n;
  int ok = 0;
  if (c == O_AO || c == O_DUMP) {
    o->dir.dir = v;
    ok = *v != 0;
  } else if (c == O_PID) {
    ok = cli_count(v, 0x3fffffff, &n) == 0 && n > 0;
    o->pid = (long)n;
  } else if (c == O_PROC || c == O_SLOG || c == O_METRICS) {
    *(c == O_PROC ? &o->process : c == O_SLOG ? &o->slog : &o->metrics) = v;
    ok = *v != 0;
  } else if (c == O_MAXD) {
    ok = cli_count(v, 100000, &n) == 0 && n > 0;
    o->dir.max_dumps = (unsigned)n;
  } else if (c == O_WINB) {
    ok = size_arg(v, 65536, &o->window_bytes) == 0;
  } else if (c == O_MAXB) {
    ok = size_arg(v, 1, &o->dir.max_bytes) == 0;
  } else {
    uint64_t *ns = c == O_WIN     ? &o->window_ns
                   : c == O_AFTER ? &o->after_ns
                   : c == O_SDEL  ? &o->lim.delivery_ns
                   : c == O_SUP   ? &o->lim.upcall_ns
                   : c == O_SBLOCK ? &o->slim.block_ns
                   : c == O_SPHASE ? &o->slim.phase_ns
                   : c == O_SGAP  ? &o->slim.gap_ns
                                  : &o->min_interval_ns;
    ok = secs_arg(v, ns) == 0;
  }
  return ok ? 0 : -1;
}

static const struct option opts[] = {
    {"always-on", required_argument, NULL, O_AO},
    {"dump", required_argument, NULL, O_DUMP},
    {"pid", required_argument, NULL, O_PID},
    {"process", required_argument, NULL, O_PROC},
    {"window", required_argument, NULL, O_WIN},
    {"window-bytes", required_argument, NULL, O_WINB},
    {"after", required_argument, NULL, O_AFTER},
    {"max-dumps", required_argument, NULL, O_MAXD},
    {"max-dump-bytes", required_argument, NULL, O_MAXB},
    {"stall-delivery", required_argument, NULL, O_SDEL},
    {"stall-upcall", required_argument, NULL, O_SUP},
    {"min-interval", required_argument, NULL, O_MIN},
    {"slog", required_argument, NULL, O_SLOG},
    {"stall-block", required_argument, NULL, O_SBLOCK},
    {"stall-phase", required_argument, NULL, O_SPHASE},
    {"stall-gap", required_argument, NULL, O_SGAP},
    {"metrics", required_argument, NULL, O_METRICS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Options; -1 to go on, or an exit code.  *dump: --dump was given. */
static int options(int argc, char **argv, opts_t *o, int *dump) {
  int c, idx, n;
  *o = (opts_t){{NULL, 20, 1ull << 30}, 0, NULL, NULL, 120 * S_NS,
                10 * S_NS, 60 * S_NS, 64ull << 20, {10 * S_NS, 10 * S_NS},
                NULL, {30 * S_NS, 10 * S_NS, 5 * S_NS, 0}, NULL};
  *dump = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+h", opts, &idx)) != -1) {
    if (c == 'h') {
      fputs(ao_usage_text, stdout);
      return CLI_EXIT_OK;
    }
    if (c == '?' || option(o, c, optarg) != 0) {
      if (c != '?')
        fprintf(stderr, "ipcstamp record: --%s: not a good value: '%s'\n",
                opts[idx].name, optarg);
      fprintf(stderr, "ipcstamp record: try 'ipcstamp record --help'\n");
      return CLI_EXIT_USAGE;
    }
    *dump |= c == O_DUMP;
  }
  o->cmd = optind < argc ? argv + optind : NULL;
  o->slim.max_age_ns = o->window_ns;
  n = (o->pid > 0) + (o->process != NULL) + (o->cmd != NULL);
  if (*dump ? n != 0 : n != 1) {
    fprintf(stderr, "ipcstamp record: %s (try 'ipcstamp record --help')\n",
            *dump ? "--dump DIR takes nothing else"
                  : "--always-on takes one of --pid PID, --process NAME "
                    "or -- COMMAND");
    return CLI_EXIT_USAGE;
  }
  if (o->pid > 0 && rec_process_gone(o->pid)) {
    fprintf(stderr, "ipcstamp record: no process %ld\n", o->pid);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* The counters, said at the end. */
static void said(const ao_t *a) {
  const ao_counters_t *c = &a->c;
  fprintf(stderr, "ipcstamp record: stalls: %llu delivery, %llu upcall, "
                  "%llu exit, %llu block, %llu phase, %llu gap, %llu asked "
                  "(%llu over a stall dumped, %llu within --min-interval); "
                  "%llu dumps written, %llu failed; %llu events, %llu lost\n",
          (unsigned long long)c->stalls[AO_DELIVERY],
          (unsigned long long)c->stalls[AO_UPCALL],
          (unsigned long long)c->stalls[AO_EXIT],
          (unsigned long long)c->stalls[AO_BLOCK],
          (unsigned long long)c->stalls[AO_PHASE],
          (unsigned long long)c->stalls[AO_GAP],
          (unsigned long long)c->stalls[AO_MANUAL],
          (unsigned long long)c->overlapping,
          (unsigned long long)c->rate_limited, (unsigned long long)c->dumps,
          (unsigned long long)c->dump_failures, (unsigned long long)c->events,
          (unsigned long long)c->lost);
}

/* Starts what is followed: the command (held until traced), the
 * process, or the first scan for the name.  0, or an exit code. */
static int follow(ao_t *a, pid_t *child) {
  *child = -1;
  a->now = rec_mono_ns();
  if (a->o.cmd) {
    if ((*child = rec_start_command(a->s, a->o.cmd)) < 0)
      return CLI_EXIT_FAIL;
  } else if (a->o.pid > 0) {
    rec_follow_existing(a->s, (unsigned)a->o.pid, emit, a);
  }
  return 0;
}

/* The window, the triggers, the endpoint (--metrics), the slogfile's
 * follower (--slog, feeding the endpoint) and the BPF programs: 0, or an
 * exit code, said. */
static int setup(ao_t *a) {
  int rc;
  if (!(a->w = ao_window_new((size_t)a->o.window_bytes, a->o.window_ns,
                             &a->c)) ||
      !(a->t = ao_triggers_new(&a->o.lim, a->w))) {
    fprintf(stderr, "ipcstamp record: out of memory for the window\n");
    return CLI_EXIT_FAIL;
  }
  if (a->o.metrics && (rc = ao_metrics_start(a->o.metrics, &a->mx)) != 0)
    return rc;
  if (a->o.slog && !(a->slog = ao_slog_new(a->o.slog, &a->o.slim,
                                           ao_metrics_registry(a->mx)))) {
    fprintf(stderr, "ipcstamp record: out of memory for --slog\n");
    return CLI_EXIT_FAIL;
  }
  return rec_load(&a->s, NULL);
}

int ao_main(int argc, char **argv) {
  static ao_t a; /* static: the window's and tables' pointers only */
  int rc, dump, status;
  pid_t child;
  if ((rc = options(argc, argv, &a.o, &dump)) >= 0)
    return rc;
  if (dump)
    return ao_dump_request(a.o.dir.dir);
  if ((rc = ao_pid_file(&a.o.dir)) != 0)
    return rc;
  if ((rc = setup(&a)) == 0) {
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    signal(SIGUSR1, on_usr1);
    signal(SIGPIPE, SIG_IGN);
    rc = follow(&a, &child);
  }
  if (rc == 0) {
    fprintf(stderr, "ipcstamp record: always on, dumps to %s\n", a.o.dir.dir);
    run(&a, child, &status);
    said(&a);
    if (a.o.cmd && status != -1 &&
        !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      rc = CLI_EXIT_FAIL;
  }
  {
    char p[4096];
    snprintf(p, sizeof p, "%s/recorder.pid", a.o.dir.dir);
    unlink(p);
  }
  os__destroy(a.s);
  ao_triggers_free(a.t);
  ao_slog_free(a.slog);
  ao_metrics_stop(a.mx); /* after the follower, which feeds its registry */
  ao_window_free(a.w);
  return rc;
}
