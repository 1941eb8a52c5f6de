/* read.c — the loop that reads a slogfile (or the rings) into an
 * analysis for the subcommands, with its messages: the skips, the
 * progress bar, a filter that named nothing, following until a signal. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"
#include "ipcstamp-analyze-os.h"

/* The names a filter could have named, for the message when it named
 * none: the first NAMES_SHOWN, in order of appearance. */
#define NAMES_SHOWN 32
typedef struct {
  char *name[NAMES_SHOWN];
  size_t n;
  int more; /* there were others */
} names_t;

static void names_add(names_t *l, const char *name) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (!strcmp(l->name[i], name))
      return;
  if (l->n == NAMES_SHOWN || !(l->name[l->n] = strdup(name)))
    l->more = 1;
  else
    l->n++;
}

static void names_free(names_t *l) {
  while (l->n)
    free(l->name[--l->n]);
}

int cli_names_nothing(const cli_input_t *in, const char *option,
                      const char *value, const char *kind,
                      const char *const *names, size_t n, int more) {
  size_t i;
  fprintf(stderr, "%s: %s %s names no %s of %s; ", in->prog, option, value,
          kind,
          !strcmp(in->path, "-") ? "the input" : in->path);
  if (!n) {
    fprintf(stderr, "it has none\n");
    return CLI_EXIT_USAGE;
  }
  fprintf(stderr, "it has:");
  for (i = 0; i < n; i++)
    fprintf(stderr, " %s", names[i]);
  fprintf(stderr, "%s\n", more ? " (and more)" : "");
  return CLI_EXIT_USAGE;
}

/* The analysis has one argument for all its callbacks: the relay stands
 * in between, to add the messages and the filters, and pass each call
 * on. */
typedef struct {
  cli_input_t *in;
  names_t methods; /* with --method: those of the deliveries it saw */
  uint64_t method_hits;
} relay_t;

/* --method and --over.  Each method is remembered while none matched, so
 * that a --method naming nothing can say what there is. */
static int select_delivery(void *arg, const ips_delivery_t *d) {
  relay_t *r = arg;
  cli_input_t *in = r->in;
  if (in->method) {
    if (strcmp(d->method, in->method)) {
      if (!r->method_hits)
        names_add(&r->methods, d->method);
      return 0;
    }
    r->method_hits++;
  }
  return !in->has_over || d->total > in->over_ns;
}

static void on_delivery(void *arg, const ips_delivery_t *d) {
  relay_t *r = arg;
  r->in->an.on_delivery(r->in->an.arg, d);
}

/* Every skip on stderr, as "prog: path:line: reason: detail (skipped)",
 * then to the subcommand's own callback if it has one. */
static void on_skip(void *arg, const ips_skip_t *s) {
  relay_t *r = arg;
  if (r->in->msgs)
    out_skip_text(r->in->msgs, r->in->prog, r->in->path, s);
  if (r->in->an.on_skip)
    r->in->an.on_skip(r->in->an.arg, s);
}

static void progress(const ips_source_t *src, int final) {
  uint64_t done, total;
  ips_source_progress(src, &done, &total);
  if (final) {
    fputs("\r\033[K", stderr);
  } else if (total > 0) {
    int pct = (int)(done * 100 / total), i;
    char bar[41];
    for (i = 0; i < 40; i++)
      bar[i] = i < pct * 40 / 100 ? '#' : '.';
    bar[40] = '\0';
    fprintf(stderr, "\r[%s] %3d%%", bar, pct > 100 ? 100 : pct);
  } else {
    fprintf(stderr, "\r%" PRIu64 " MB read", done >> 20);
  }
  fflush(stderr);
}

/* Following: the signal that ends it, seen between two reads. */
static volatile sig_atomic_t follow_stop;

static void on_stop(int sig) {
  (void)sig;
  follow_stop = follow_stop + 1; /* counted: otel's sender sees a new one */
}

volatile sig_atomic_t *cli_stop_flag(void) {
  return &follow_stop;
}

/* SIGINT and SIGTERM set follow_stop from now on. */
static void catch_stop(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

void cli_wait_stop(void) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  catch_stop();
  while (!follow_stop)
    sigsuspend(&old);
  sigprocmask(SIG_SETMASK, &old, NULL);
}

/* Reads what the source holds; following, waits for more (100 ms naps,
 * the reader thread looks every 50 ms) until a stop signal.  Returns
 * ips_analysis_read()'s last result: 0 at the end, or an error. */
static long read_all(cli_input_t *in, ips_analysis_t *a, ips_source_t *src,
                     int bar, char *err, size_t errlen) {
  unsigned long reopened = 0;
  for (;;) {
    long n = ips_analysis_read(a, src, bar ? 50000 : 0, err, errlen);
    if (n > 0) {
      if (bar)
        progress(src, 0);
      continue;
    }
    if (n != -EAGAIN)
      return n;
    fflush(stdout); /* what has come so far is on screen while we wait */
    if (ips_source_reopened(src) != reopened) {
      reopened = ips_source_reopened(src);
      fprintf(stderr, "%s: %s was replaced or truncated: reading it again "
                      "from its start\n", in->prog, in->path);
    }
    if (follow_stop)
      return 0;
    if (in->on_idle)
      in->on_idle(in->idle_arg);
    nanosleep(&(struct timespec){0, 100000000L}, NULL);
  }
}

/* A --vat or --method that matched nothing the input has: said, with
 * what it has, and CLI_EXIT_USAGE; else rc. */
static int named_nothing(const cli_input_t *in, const ips_analysis_t *a,
                         const relay_t *r, int rc) {
  const char *names[NAMES_SHOWN];
  size_t i, n = 0, nv = ips_analysis_nvats(a);
  if (in->an.vat) {
    for (i = 0; i < nv; i++)
      if (!strcmp(ips_analysis_vat(a, i)->vat, in->an.vat))
        break;
    if (i == nv) {
      for (i = 0; i < nv && n < NAMES_SHOWN; i++)
        names[n++] = ips_analysis_vat(a, i)->vat;
      return cli_names_nothing(in, "--vat", in->an.vat, "vat", names, n,
                               nv > n);
    }
  }
  if (in->method && !r->method_hits)
    return cli_names_nothing(in, "--method", in->method, "delivered method",
                             (const char *const *)r->methods.name,
                             r->methods.n, r->methods.more);
  return rc;
}

/* --worker-rings: the rings that could not be read, said once at the end
 * (their deliveries were split on xsnap's timestamps, as without). */
static void worker_rings_said(const cli_input_t *in, const ips_analysis_t *a) {
  const char *first;
  size_t n = in->worker_rings ? ips_analysis_worker_rings_errors(a, &first) : 0;
  size_t skipped = in->worker_rings ? ips_analysis_worker_rings_skipped(a) : 0;
  if (n)
    fprintf(in->msgs, "%s: --worker-rings: %zu ring%s not read (%s)\n", in->prog, n,
            n == 1 ? "" : "s", first);
  if (skipped)
    fprintf(in->msgs, "%s: --worker-rings: %zu rings of %s left unread: more "
                      "than %d rings of live workers (or that cannot be "
                      "read) at once; the deliveries of theirs are NO RING\n",
            in->prog, skipped, in->worker_rings, IPS_RING_DIR_MAX_PROCS);
}

/* The folder --worker-rings names cannot be read (errno e: it does not
 * exist, it is a file or a FIFO): said, CLI_EXIT_IO.  The one message of
 * both checks, before the output (cli_inputs_first) and at the join. */
static int worker_rings_refused(const cli_input_t *in, int e) {
  fprintf(stderr, "%s: --worker-rings %s: %s\n", in->prog, in->worker_rings,
          e == ENOTDIR ? "not a folder" : strerror(e));
  return CLI_EXIT_IO;
}

/* --worker-rings DIR joined with a: 0, a negative code, or CLI_EXIT_IO
 * (worker_rings_refused). */
static int worker_rings(const cli_input_t *in, ips_analysis_t *a) {
  int rc = ips_analysis_worker_rings(a, in->worker_rings);
  if (rc >= 0 || rc <= -4096)
    return rc;
  return worker_rings_refused(in, -rc);
}

int cli_inputs_first(cli_input_t *in) {
  DIR *d;
  if (in->worker_rings) {
    if (!(d = opendir(in->worker_rings))) /* a FIFO is refused, not opened */
      return worker_rings_refused(in, errno);
    closedir(d);
  }
  return cli_os_first(in);
}

int cli_analyze(cli_input_t *in, ips_analysis_t **out) {
  char err[512];
  ips_source_t *src;
  ips_analysis_options_t ao = in->an;
  const ips_stats_t *st;
  relay_t relay;
  uint64_t done, total;
  long n;
  int rc, bar, os_rc = CLI_EXIT_OK;
  *out = NULL;
  memset(&relay, 0, sizeof relay);
  relay.in = in;
  ao.select = in->method || in->has_over ? select_delivery : NULL;
  ao.on_delivery = in->an.on_delivery ? on_delivery : NULL;
  ao.on_skip = on_skip;
  ao.arg = &relay;
  rc = ips_analysis_new(out, &ao);
  if (rc == 0 && in->on_block)
    rc = ips_analysis_on_block(*out, in->on_block, in->an.arg);
  if (rc == 0 && in->worker_rings)
    rc = worker_rings(in, *out);
  if (rc == 0 && in->keep_causes)
    rc = ips_analysis_keep_causes(*out);
  if (rc != 0) {
    if (rc < 0)
      fprintf(stderr, "%s: %s\n", in->prog, ips_strerror(rc));
    ips_os_free(in->os); /* read first (cli_os_first), joined with nothing */
    in->os = NULL;
    return CLI_EXIT_IO;
  }
  if (in->os_path && (os_rc = cli_os_join(in, *out)) != CLI_EXIT_OK &&
      !ips_analysis_os_recording(*out))
    return os_rc;
  if (in->src.follow)
    catch_stop();
  if (in->ring) {
    if (in->src.follow)
      cli_output_publish();
    rc = cli_read_rings(in, *out, &follow_stop);
    in->opened = rc != CLI_EXIT_IO;
    ips_analysis_finish(*out);
    if (rc != CLI_EXIT_IO)
      rc = named_nothing(in, *out, &relay, rc);
    names_free(&relay.methods);
    return rc == CLI_EXIT_OK ? os_rc : rc;
  }
  if (ips_source_open(&src, in->path, &in->src, err, sizeof err) < 0) {
    fprintf(stderr, "%s: %s\n", in->prog, err);
    return CLI_EXIT_IO;
  }
  in->opened = 1;
  if (in->src.follow)
    cli_output_publish();
  ips_source_progress(src, &done, &total);
  bar = in->progress && !in->src.follow && isatty(2) && total > (64u << 20);
  rc = CLI_EXIT_OK;
  n = read_all(in, *out, src, bar, err, sizeof err);
  if (bar)
    progress(src, 1);
  st = ips_analysis_stats(*out);
  if (n < 0) {
    fprintf(stderr, "%s: %s:%" PRIu64 ": %s\n", in->prog, in->path,
            st->lines + 1, err);
    rc = CLI_EXIT_IO;
  }
  ips_analysis_finish(*out);
  ips_source_close(src);
  worker_rings_said(in, *out);
  if (rc == CLI_EXIT_OK && (st->skipped_lines || st->skipped_deliveries))
    rc = CLI_EXIT_INPUT;
  if (rc != CLI_EXIT_IO)
    rc = named_nothing(in, *out, &relay, rc);
  names_free(&relay.methods);
  return rc == CLI_EXIT_OK ? os_rc : rc;
}

void cli_term_clean(char *buf, size_t len) {
  size_t i = 0;
  while (i < len) {
    /* A run of strict UTF-8 (proto/utf8.c, the one check): its control
     * characters shown as '?', a C1 (C2 80..C2 9F) as "??". */
    size_t end = i + ips_utf8_prefix(buf + i, len - i);
    for (; i < end; i++) {
      unsigned char c = (unsigned char)buf[i];
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        buf[i] = '?';
      } else if (c == 0xc2 && (unsigned char)buf[i + 1] < 0xa0) {
        buf[i] = buf[i + 1] = '?';
        i++;
      }
    }
    if (i < len) /* a byte that begins no whole character */
      buf[i++] = '?';
  }
}
