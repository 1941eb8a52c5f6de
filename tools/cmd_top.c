/* cmd_top.c — `ipcstamp top`: the live view of every ring in a directory
 * (docs/cli.md).  The model is tools/top/; this file prints it, once
 * (--once, for scripts) or as a full-screen view refreshed in place with
 * plain ANSI escapes: the view needs cursor home, erase-line and the
 * alternate screen only, which every terminal tmux or xterm emulates, so
 * curses would add a dependency without adding anything we use. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ipcstamp-ring.h"
#include "top/top.h"

static const char usage_text[] =
    "usage: ipcstamp top [DIR] [PID...] [--interval MS] [--once]\n"
    "       ipcstamp top --clean [DIR]\n"
    "\n"
    "Follow the live rings of stamps (docs/ring.md) of every process that\n"
    "writes one into DIR (IPCSTAMP_RING_DIR), and show per process, grouped\n"
    "by run and the busiest first: deliveries per second, the shares of\n"
    "pipe / worker / kernel over the last interval, p50 / p99 of the total\n"
    "over the last 10 s, and the delivery in flight with how long its\n"
    "current segment has lasted.\n"
    "\n"
    "  DIR, --dir DIR  the ring directory (default: $IPCSTAMP_RING_DIR)\n"
    "  PID...          only these processes, and the workers of those that\n"
    "                  are runs (a directory named by digits: ./123)\n"
    "  --interval MS   refresh period, 50..60000 (default 1000)\n"
    "  --once          print one snapshot and exit (no terminal needed)\n"
    "  --clean         remove the rings of processes that have exited (only\n"
    "                  files <pid>.ring that are rings of that pid), say\n"
    "                  which, and exit\n"
    "  -h, --help      this text\n"
    "\n"
    "In the full-screen view, q quits.\n"
    "exit codes: 0 ok, 2 bad usage, 4 cannot read the directory (or, with\n"
    "--clean, remove a ring)\n";

#define PERCENTILE_WINDOW_NS (10 * 1000000000LL)

static int64_t now_mono(void) {
  ips_stamp_t s;
  if (ips_clock_read(&s) != 0) return 0;
  return s.mono_ns;
}

/* A duration for people: "850 ns", "12.3 us", "1.234 ms", "2.301 s". */
static const char *dur(char *buf, size_t n, int64_t ns) {
  if (ns < 0)
    snprintf(buf, n, "-");
  else if (ns < 1000)
    snprintf(buf, n, "%lld ns", (long long)ns);
  else if (ns < 1000000)
    snprintf(buf, n, "%.1f us", (double)ns / 1e3);
  else if (ns < 1000000000)
    snprintf(buf, n, "%.3f ms", (double)ns / 1e6);
  else
    snprintf(buf, n, "%.3f s", (double)ns / 1e9);
  return buf;
}

static const char *share(char *buf, size_t n, int64_t part, int64_t total,
                         int known) {
  if (!known || total <= 0)
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.0f%%", 100.0 * (double)part / (double)total);
  return buf;
}

static const char *role(unsigned r) {
  return r == IPS_RING_ROLE_WORKER ? "worker"
         : r == IPS_RING_ROLE_PARENT ? "parent"
                                     : "?";
}

/* A process's row.  A worker's own ring has no pipe and no kernel figure:
 * what it knows is its wait for each upcall's reply (the pipe both ways,
 * the kernel's handling, and the scheduling of both), shown as WAIT. */
static void row(FILE *f, const top_proc_t *p, int64_t now, int64_t interval_ns) {
  char a[32], b[32], c[32], d[32], e[32], w[32];
  ips_live_stats_t last, win;
  int worker_only;
  if (p->ring->error[0]) {
    fprintf(f, "%-8ld %s\n", p->ring->pid, p->ring->error);
    return;
  }
  ips_live_stats(&p->hist, now, interval_ns, &last);
  ips_live_stats(&p->hist, now, PERCENTILE_WINDOW_NS, &win);
  worker_only = !last.have_pipe;
  fprintf(f, "%-8ld %-6s %-18.18s %-8.8s %-8s %8.1f %10s %10s %5s %6s %6s "
             "%5s %6llu\n",
          p->ring->pid, role(p->ring->info.role), p->ring->info.program,
          p->ring->vat[0] ? p->ring->vat : "-",
          p->ring->info.paused                 ? "paused"
          : p->ring->info.alive && !p->ring->gone    ? "running"
                                         : "exited",
          last.per_s, dur(a, sizeof a, win.p50_ns),
          dur(b, sizeof b, win.p99_ns),
          share(c, sizeof c, last.pipe_ns, last.total_ns, !worker_only),
          share(d, sizeof d, last.worker_ns, last.total_ns, 1),
          share(e, sizeof e, last.kernel_ns, last.total_ns, !worker_only),
          share(w, sizeof w, last.kernel_ns, last.total_ns, worker_only),
          (unsigned long long)p->ring->lost);
}

/* The title of a run's rows: its parent's program, or only its pid when
 * it writes no ring of its own (a SwingSet kernel with our workers). */
static void run_title(FILE *f, const top_t *t, const top_proc_t *const *o,
                      size_t from, size_t n) {
  long run = ips_ring_proc_run(o[from]->ring);
  size_t i, workers = 0;
  const top_proc_t *parent = NULL;
  (void)t;
  if (run == 0) {
    fprintf(f, "rings that cannot be followed:\n");
    return;
  }
  for (i = from; i < n && ips_ring_proc_run(o[i]->ring) == run; i++) {
    if (o[i]->ring->info.role == IPS_RING_ROLE_PARENT)
      parent = o[i];
    else
      workers++;
  }
  if (parent)
    fprintf(f, "run %ld: %.32s, %zu worker%s\n", run, parent->ring->info.program,
            workers, workers == 1 ? "" : "s");
  else
    fprintf(f, "run %ld (no ring of its own): %zu worker%s\n", run, workers,
            workers == 1 ? "" : "s");
}

/* The whole view, one line per '\n'. */
static void render(FILE *f, const top_t *t, int64_t now, int64_t interval_ns,
                   int interval_ms) {
  const top_proc_t *o[TOP_MAX_PROCS];
  size_t i, n, inflight = 0, dead = 0;
  char a[32], b[32];
  time_t wall = time(NULL);
  struct tm tm;
  localtime_r(&wall, &tm);
  fprintf(f, "ipcstamp top  %s  %zu process%s  every %d ms  %02d:%02d:%02d\n",
          t->path, t->nprocs, t->nprocs == 1 ? "" : "es", interval_ms,
          tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (ips_ring_dir_skipped(t->dir))
    fprintf(f, "(%zu more rings not followed: at most %d)\n",
            ips_ring_dir_skipped(t->dir), TOP_MAX_PROCS);
  fprintf(f, "%-8s %-6s %-18s %-8s %-8s %8s %10s %10s %5s %6s %6s %5s %6s\n",
          "PID", "ROLE", "PROGRAM", "VAT", "STATE", "DELIV/S", "P50", "P99",
          "PIPE", "WORKER", "KERNEL", "WAIT", "LOST");
  n = top_order(t, now, PERCENTILE_WINDOW_NS, o);
  for (i = 0; i < n; i++) {
    if (i == 0 || ips_ring_proc_run(o[i]->ring) != ips_ring_proc_run(o[i - 1]->ring))
      run_title(f, t, o, i, n);
    row(f, o[i], now, interval_ns);
    if (o[i]->live.delivery) inflight++;
    if (!o[i]->ring->error[0] && (!o[i]->ring->info.alive || o[i]->ring->gone))
      dead++;
  }
  fprintf(f, "\nin flight: %zu\n", inflight);
  for (i = 0; i < n; i++) {
    const top_proc_t *p = o[i];
    const char *what;
    if (!p->live.delivery) continue;
    what = p->live.seg_kind == 'u' ? "waiting for the reply" : "worker computing";
    if (p->ring->info.alive && !p->ring->gone) {
      fprintf(f, "  %ld %s #%llu: %s", p->ring->pid, p->ring->vat[0] ? p->ring->vat : "-",
              (unsigned long long)p->live.delivery, what);
      if (p->live.seg_kind == 'u') fprintf(f, " to upcall %u", p->live.upcall);
      fprintf(f, " for %s %s (%s in all)\n", dur(a, sizeof a, top_sub(now, p->live.seg_mono_ns)),
              p->live.seg_kind == 'r'   ? "since its last upcall reply"
              : p->live.seg_kind == 'd' ? "since the delivery began"
                                   : "since the upcall",
              dur(b, sizeof b, top_sub(now, p->live.d_mono_ns)));
    } else {
      fprintf(f, "  %ld %s #%llu: the process exited during this delivery "
                 "(%s%s, begun %s ago)\n",
              p->ring->pid, p->ring->vat[0] ? p->ring->vat : "-",
              (unsigned long long)p->live.delivery, what,
              p->ring->info.torn ? ", a torn event" : "",
              dur(a, sizeof a, top_sub(now, p->live.d_mono_ns)));
    }
  }
  fprintf(f, "\nshares over the last interval; p50/p99 of the total over the "
             "last 10 s.  A worker's ring alone has\n"
             "no pipe or kernel figure: WAIT is its wait for upcall replies "
             "(pipe, kernel and scheduling).\n");
  if (dead)
    fprintf(f, "%zu ring%s of exited processes: 'ipcstamp top --clean %s' "
               "removes them.\n", dead, dead == 1 ? "" : "s", t->path);
}

/* What reaches the terminal is the view cleaned (cli_term_clean): a
 * ring's program name, vat and the reader's messages (which quote the file)
 * are written by whoever owns the ring, and ESC, OSC or BEL bytes would
 * drive the terminal (its title, the clipboard, the screen). */
/* The view, rendered and cleaned: the only way it reaches the terminal.
 * NULL when out of memory. */
static char *view(const top_t *t, int64_t now, int64_t interval_ns,
                  int interval_ms, size_t *len) {
  char *buf = NULL;
  FILE *m = open_memstream(&buf, len);
  if (!m) return NULL;
  render(m, t, now, interval_ns, interval_ms);
  if (fclose(m) != 0) {
    free(buf);
    return NULL;
  }
  cli_term_clean(buf, *len);
  return buf;
}

/* ---- the full-screen view -------------------------------------------- */

static volatile sig_atomic_t stop_flag, resized;
static void on_stop(int sig) {
  (void)sig;
  stop_flag = 1;
}
static void on_winch(int sig) {
  (void)sig;
  resized = 1;
}

static struct termios saved_tio;
static int have_tio;

static void term_restore(void) {
  /* Leave the alternate screen, show the cursor. */
  fputs("\033[?25h\033[?1049l", stdout);
  fflush(stdout);
  if (have_tio) tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
}

static void term_setup(void) {
  struct termios tio;
  if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_tio) == 0) {
    have_tio = 1;
    tio = saved_tio;
    /* One key at a time, no echo; signals (^C) still work. */
    tio.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    tio.c_cc[VMIN] = 0;
    tio.c_cc[VTIME] = 0;
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &tio);
  }
  fputs("\033[?1049h\033[?25l", stdout);
}

/* Paint the view from the top left, each line cut to the width and erased
 * to its end, then erase below: no flicker from clearing first. */
static void paint(const char *buf, size_t len) {
  struct winsize ws;
  int cols = 0, rows = 0, row = 0, col = 0;
  size_t i;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
    cols = ws.ws_col;
    rows = ws.ws_row;
  }
  fputs("\033[H", stdout);
  for (i = 0; i < len; i++) {
    if (buf[i] == '\n') {
      if (rows && row + 1 >= rows) break;
      fputs("\033[K\r\n", stdout);
      row++;
      col = 0;
      continue;
    }
    if (!cols || col < cols) fputc(buf[i], stdout);
    col++;
  }
  fputs("\033[K\033[J", stdout);
  fflush(stdout);
}

#define TOP_POLL_MS 50

static int run_screen(top_t *t, int interval_ms) {
  struct sigaction sa;
  char msg[512];
  int rc = CLI_EXIT_OK;

  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sa.sa_handler = on_winch;
  sigaction(SIGWINCH, &sa, NULL);
  term_setup();
  while (!stop_flag) {
    char *buf;
    size_t len = 0;
    int64_t deadline;
    if (top_refresh(t, msg, sizeof msg) != 0) {
      term_restore();
      fprintf(stderr, "ipcstamp top: %s\n", msg);
      return CLI_EXIT_IO;
    }
    buf = view(t, now_mono(), (int64_t)interval_ms * 1000000, interval_ms,
               &len);
    if (!buf) break;
    paint(buf, len);
    free(buf);
    /* Wait for the next refresh, a key or a signal. */
    deadline = now_mono() + (int64_t)interval_ms * 1000000;
    while (!stop_flag && !resized) {
      struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
      int64_t left = (deadline - now_mono()) / 1000000;
      int n;
      if (left <= 0) break;
      /* Read the rings every 50 ms whatever the refresh: a 1 MiB ring
       * holds 16,384 events, which a producer at 100,000 a second fills
       * in 160 ms; between two repaints nothing must be lost. */
      n = poll(&pfd, 1, left < TOP_POLL_MS ? (int)left : TOP_POLL_MS);
      if (n == 0) {
        if (top_refresh(t, msg, sizeof msg) != 0)
          break; /* said at the next refresh */
        continue;
      }
      if (n > 0) {
        char k[16];
        ssize_t got = read(STDIN_FILENO, k, sizeof k);
        if (got <= 0) {
          /* stdin closed: keep refreshing on the timer alone. */
          usleep((useconds_t)left * 1000);
          break;
        }
        if (memchr(k, 'q', (size_t)got) || memchr(k, 'Q', (size_t)got))
          stop_flag = 1;
      }
    }
    resized = 0;
  }
  term_restore();
  return rc;
}

/* --clean: the rings of exited processes removed, each said. */
static int clean(const char *dir) {
  size_t removed, kept;
  char msg[512];
  int rc = ips_ring_dir_clean(dir, stdout, &removed, &kept, msg, sizeof msg);
  printf("%zu ring%s removed, %zu kept\n", removed, removed == 1 ? "" : "s",
         kept);
  if (rc != 0)
    fprintf(stderr, "ipcstamp top: %s\n", msg);
  if (fflush(stdout) != 0)
    rc = -EIO;
  return rc ? CLI_EXIT_IO : CLI_EXIT_OK;
}

int cmd_top(int argc, char **argv) {
  cli_ring_t ro;
  int rc;
  top_t *t;
  char msg[512];

  ro.interval = 1000;
  rc = cli_ring_options(argc, argv, "top", usage_text, 50, 1, &ro);
  if (rc >= 0)
    return rc;
  if (ro.clean) {
    if (ro.npids || ro.once) {
      fprintf(stderr, "ipcstamp top: --clean takes the directory only\n");
      return CLI_EXIT_USAGE;
    }
    return clean(ro.dir);
  }
  if (!ro.once && !isatty(STDOUT_FILENO)) {
    fprintf(stderr, "ipcstamp top: the output is not a terminal: use --once "
                    "for a plain snapshot\n");
    return CLI_EXIT_USAGE;
  }
  t = malloc(sizeof *t);
  if (!t) {
    fprintf(stderr, "ipcstamp top: out of memory\n");
    return CLI_EXIT_FAIL;
  }
  if (top_init(t, ro.dir, ro.pids, ro.npids) != 0) {
    fprintf(stderr, "ipcstamp top: out of memory\n");
    free(t);
    return CLI_EXIT_FAIL;
  }
  if (ro.once) {
    rc = top_refresh(t, msg, sizeof msg);
    if (rc != 0) {
      fprintf(stderr, "ipcstamp top: %s\n", msg);
      rc = CLI_EXIT_IO;
    } else {
      size_t len = 0;
      char *buf = view(t, now_mono(), ro.interval * 1000000, (int)ro.interval, &len);
      if (!buf)
        fprintf(stderr, "ipcstamp top: out of memory\n");
      else
        fwrite(buf, 1, len, stdout);
      rc = !buf ? CLI_EXIT_FAIL
                : cli_stdout_close("top") != 0 ? CLI_EXIT_IO : CLI_EXIT_OK;
      free(buf);
    }
  } else {
    rc = run_screen(t, (int)ro.interval);
  }
  top_free(t);
  free(t);
  return rc;
}
