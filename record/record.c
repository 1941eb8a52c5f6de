/* record.c — `ipcstamp record`: follows a process and its descendants
 * and writes what the kernel saw of them (docs/os.md).
 *
 * The traced processes are never stopped or changed: a command is held
 * only before its exec, until the probes are attached (so that its first
 * frame is seen), and a process followed with --pid runs on untouched.
 * If the collector dies, the kernel detaches its programs and they run
 * on; stopping the collector (Ctrl-C, SIGTERM) ends the recording, never
 * the command. */
#include "config.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "os.skel.h"
#include "always.h"
#include "record.h"

static const char usage_text[] =
    "usage: ipcstamp record [-o FILE] --pid PID\n"
    "       ipcstamp record [-o FILE] -- COMMAND [ARGS...]\n"
    "\n"
    "Record what the operating system saw of a parent and its workers: every\n"
    "netstring frame on their pipes and every wait of their threads, for\n"
    "`ipcstamp report SLOG --os FILE` (docs/os.md).  Needs root (CAP_BPF and\n"
    "CAP_PERFMON) and a kernel with BTF.\n"
    "\n"
    "  -o, --output FILE  write the recording to FILE (default ipcstamp.os;\n"
    "                     '-' is stdout, each event as it comes)\n"
    "  --pid PID          follow the running process PID (and its\n"
    "                     descendants) until it exits or Ctrl-C\n"
    "  -- COMMAND ARGS    run COMMAND and follow it until it exits\n"
    "  -h, --help         this text\n"
    "\n"
    "For measuring what recording costs (BENCHMARKS.md), never for a recording\n"
    "to read:\n"
    "  --cost-floor       attach the programs, each returning at once: nothing\n"
    "                     is recorded\n"
    "  --cost-attach LIST attach only these programs (comma-separated names)\n"
    "\n"
    "exit codes: 0 ok, 1 COMMAND failed (or could not start), 2 bad usage,\n"
    "4 cannot write FILE, 6 not permitted (not root), 7 no BTF, 8 a\n"
    "tracepoint or BPF helper is missing (Linux 5.17 or later is needed),\n"
    "9 the kernel is locked down against BPF\n"
    "\n";

static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

/* The recording: a file gets version 2, the kernel's records copied as
 * they come (no formatting: the collector's cost per event is a copy);
 * standard output (-o -), a live view, gets version 1's JSON lines. */
typedef struct {
  FILE *out;
  int json;
  unsigned long long events;
  const char *path;      /* -o's, to say it */
  int failed;            /* it could not be written: said, stopped */
} rec_t;

static int on_event(void *ctx, void *data, size_t size) {
  rec_t *r = ctx;
  if (!r->json) {
    if (rec_bin_event(r->out, data, size) == 0)
      r->events++;
  } else {
    struct os_event e;
    /* Each type comes with its own part of the union only. */
    memset(&e, 0, sizeof e);
    memcpy(&e, data, size < sizeof e ? size : sizeof e);
    rec_write_event(r->out, &e);
    r->events++;
  }
  return 0;
}

/* An event the collector makes itself (e zeroed past its type's part). */
static void emit(rec_t *r, const struct os_event *e) {
  if (r->json)
    rec_write_event(r->out, e);
  else
    rec_bin_event(r->out, e, rec_bin_size(e->type));
}

static void header(rec_t *r, long pid) {
  struct timespec w;
  unsigned long long m = rec_mono_ns();
  long long wall;
  clock_gettime(CLOCK_REALTIME, &w);
  wall = (long long)w.tv_sec * 1000000000ll + w.tv_nsec;
  if (r->json)
    rec_write_header(r->out, m, wall, pid);
  else
    rec_bin_header(r->out, m, wall, pid);
}

/* --pid's processes found in /proc (follow.c), written as the kernel's
 * records are. */
static void emit_rec(void *ctx, const struct os_event *e) { emit(ctx, e); }


/* The recording cannot be written (a full disk): said when it happens,
 * and the recording stops (exit 4) — going on would only lose what comes,
 * in silence; the node is never stopped. */
static int output_failed(rec_t *r) {
  if (!ferror(r->out))
    return 0;
  fprintf(stderr, "ipcstamp record: cannot write %s: %s; recording "
                  "stopped\n", r->path, strerror(errno ? errno : EIO));
  return 1;
}

/* Reads the ring buffer until the followed process ends or a signal.
 * *status gets the command's wait status (-1 with --pid). */
static void poll_loop(struct os *s, rec_t *r, pid_t child, long pid,
                      int *status) {
  struct ring_buffer *rb =
      ring_buffer__new(bpf_map__fd(s->maps.events), on_event, r, NULL);
  unsigned long long said = 0;
  *status = -1;
  if (!rb) {
    fprintf(stderr, "ipcstamp record: cannot read the ring buffer: %s\n",
            strerror(errno));
    stop = 1;
  }
  while (!stop) {
    unsigned long long lost;
    int done = 0;
    /* The kernel side wakes this reader only when the buffer is half
     * full: what came in the last 100 ms is read here, either way (poll
     * reads only a buffer that woke it). */
    ring_buffer__poll(rb, 100);
    ring_buffer__consume(rb);
    if (child > 0 && waitpid(child, status, WNOHANG) == child)
      done = 1;
    else if (child <= 0 && rec_process_gone(pid))
      done = 1;
    if ((lost = rec_lost(s)) != said) { /* said as it happens, never hidden */
      struct os_event e;
      memset(&e, 0, sizeof e);
      e.type = OS_EV_LOST;
      e.ts = rec_mono_ns();
      e.u.lost.n = lost;
      emit(r, &e);
      said = lost;
    }
    errno = 0;
    fflush(r->out);
    if (output_failed(r)) {
      r->failed = 1;
      break;
    }
    if (done)
      break;
  }
  if (rb) {
    ring_buffer__consume(rb);
    ring_buffer__free(rb);
  }
}

/* Options; returns -1 to go on, or an exit code. */
static int options(int argc, char **argv, const char **path, long *pid,
                   char ***cmd, rec_cost_t *cost) {
  enum { O_FLOOR = 256, O_ATTACH };
  static const struct option opts[] = {
      {"output", required_argument, NULL, 'o'},
      {"pid", required_argument, NULL, 'p'},
      {"cost-floor", no_argument, NULL, O_FLOOR},
      {"cost-attach", required_argument, NULL, O_ATTACH},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  int c;
  long long v;
  while ((c = getopt_long(argc, argv, "+ho:", opts, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage_text, stdout);
      fputs(ao_usage_text, stdout);
      return CLI_EXIT_OK;
    } else if (c == 'o') {
      *path = optarg;
    } else if (c == O_FLOOR) {
      cost->floor = 1;
    } else if (c == O_ATTACH) {
      cost->attach = optarg;
    } else if (c == 'p' && cli_count(optarg, 0x3fffffff, &v) == 0 && v > 0) {
      *pid = (long)v;
    } else {
      if (c == 'p')
        fprintf(stderr, "ipcstamp record: --pid takes a process id, not '%s'\n",
                optarg);
      fprintf(stderr, "ipcstamp record: try 'ipcstamp record --help'\n");
      return CLI_EXIT_USAGE;
    }
  }
  *cmd = optind < argc ? argv + optind : NULL;
  if ((*pid > 0) == (*cmd != NULL)) {
    fprintf(stderr, "ipcstamp record: give --pid PID or -- COMMAND (one of "
                    "them; try 'ipcstamp record --help')\n");
    return CLI_EXIT_USAGE;
  }
  if (*pid > 0 && rec_process_gone(*pid)) {
    fprintf(stderr, "ipcstamp record: no process %ld (or it has ended: a "
                    "zombie)\n", *pid);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* The end line, and what the user should know on stderr. */
static int finish(rec_t *r, struct os *s, char **cmd, int status) {
  unsigned long long lost = rec_lost(s);
  int rc = CLI_EXIT_OK;
  struct os_event e;
  rec_end_event(&e, rec_mono_ns(), r->events, lost);
  e.u.end.has_status = cmd && status != -1;
  e.u.end.status = e.u.end.has_status ? status : 0;
  emit(r, &e);
  if (lost)
    fprintf(stderr, "ipcstamp record: %llu events lost (the kernel's ring "
                    "buffer was full): the recording is incomplete\n", lost);
  if (cmd && status != -1 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    if (WIFEXITED(status))
      fprintf(stderr, "ipcstamp record: %s exited with %d\n", cmd[0],
              WEXITSTATUS(status));
    else
      fprintf(stderr, "ipcstamp record: %s was killed by signal %d\n", cmd[0],
              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    rc = CLI_EXIT_FAIL;
  }
  return rc;
}

int rec_main(int argc, char **argv) {
  const char *path = "ipcstamp.os";
  long pid = 0;
  char **cmd = NULL;
  struct os *s = NULL;
  rec_t r = {NULL, 0, 0, NULL, 0};
  rec_cost_t cost = {0, NULL};
  pid_t child = -1;
  int rc, status;
  int i;
  /* --always-on and --dump: the flight recorder (always.c). */
  for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (!strncmp(argv[i], "--always-on", 11) || !strncmp(argv[i], "--dump", 6))
      return ao_main(argc, argv);
  if ((rc = options(argc, argv, &path, &pid, &cmd, &cost)) >= 0)
    return rc;
  if ((rc = rec_load(&s, &cost)) != 0)
    return rc;
  if (!(r.out = cli_output(path, "record"))) {
    os__destroy(s);
    return CLI_EXIT_IO;
  }
  /* The recording is at its name from the start (cli_output writes under
   * a temporary one until the end): a live reader can follow it, and a
   * collector killed mid-way leaves what it wrote where it was asked. */
  cli_output_publish();
  r.json = strcmp(path, "-") == 0;
  r.path = r.json ? "the standard output" : path;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  r.json = 1; /* version 2 is little-endian, as the kernel's records here are not */
#endif
  /* Large writes: a file gets its records in 1 MiB pieces (and at each
   * poll, so that a live reader and a collector killed lose little). */
  if (!r.json)
    setvbuf(r.out, NULL, _IOFBF, 1 << 20);
  /* One thread writes it: no lock taken per record (a fwrite per record
   * is the collector's work per event). */
  __fsetlocking(r.out, FSETLOCKING_BYCALLER);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGPIPE, SIG_IGN);
  header(&r, cmd ? 0 : pid);
  if (cmd) {
    if ((child = rec_start_command(s, cmd)) < 0) {
      os__destroy(s);
      return CLI_EXIT_FAIL;
    }
  } else {
    rec_follow_existing(s, (unsigned)pid, emit_rec, &r);
  }
  poll_loop(s, &r, child, pid, &status);
  rc = finish(&r, s, cmd, status);
  os__destroy(s);
  if (cli_output_close(r.out, "record", 1) != 0 || r.failed)
    rc = CLI_EXIT_IO;
  return rc;
}
