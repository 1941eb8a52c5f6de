/* cmd_watch.c — `ipcstamp watch`: every event of every ring in a directory
 * as JSON lines, for scripts (docs/cli.md).  The rings are followed by
 * libipcstamp-analyze's ips_ring_dir_t, as for `top` and `otel --ring`,
 * which hands each event here as it is read. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "output/output.h"
#include "ipcstamp-analyze.h"

static const char usage_text[] =
    "usage: ipcstamp watch [DIR] [PID...] [--interval MS] [--once]\n"
    "\n"
    "Print every event of the live rings (docs/ring.md) in DIR\n"
    "(IPCSTAMP_RING_DIR) as one JSON object per line, as it is read:\n"
    "  {\"pid\":P,\"vat\":\"v1\",\"event\":\"stamp\",\"seq\":N,\"fields\":{...}}\n"
    "(vat: the ring's, from its header or events; fields: the event's own,\n"
    "by the names in the ring's table)\n"
    "and a gap a reader was lapped over as {\"pid\":P,\"lost\":N}.\n"
    "New rings are picked up at each poll; SIGINT or SIGTERM ends it.\n"
    "\n"
    "  DIR, --dir DIR  the ring directory (default: $IPCSTAMP_RING_DIR)\n"
    "  PID...          only these processes and their workers (their runs)\n"
    "  --interval MS   how often to poll, 10..60000 (default 100)\n"
    "  --once          print what the rings hold now and exit\n"
    "  -h, --help      this text\n"
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 a ring could not be read (each said),\n"
    "4 cannot read the directory or write\n";

static volatile sig_atomic_t stop;

static void on_stop(int sig) {
  (void)sig;
  stop = 1;
}

typedef struct {
  yajl_gen g;
  FILE *out;
  int bad; /* a ring could not be read */
} watch_t;

/* A ring is untrusted: its text goes out as printable ASCII only, so the
 * line stays one valid JSON object whatever a producer wrote. */
static void text(yajl_gen g, const char *s, size_t n) {
  char buf[256];
  size_t i;
  if (n >= sizeof buf)
    n = sizeof buf - 1;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    buf[i] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
  }
  yajl_gen_string(g, (const unsigned char *)buf, n);
}

static void head(watch_t *w, const ips_ring_proc_t *p) {
  yajl_gen_map_open(w->g);
  out_int(w->g, "pid", p->pid);
  out_str(w->g, "vat");
  text(w->g, p->vat, strlen(p->vat));
}

static void on_event(void *arg, const ips_ring_proc_t *p, const ips_ring_event_t *ev) {
  watch_t *w = arg;
  size_t i;
  head(w, p);
  out_str(w->g, "event");
  text(w->g, ev->name, strlen(ev->name));
  out_int(w->g, "seq", (long long)ev->seq);
  /* A producer names its fields: apart, so none can clash with ours. */
  out_str(w->g, "fields");
  yajl_gen_map_open(w->g);
  for (i = 0; i < ev->nfields; i++) {
    const ips_ring_field_t *f = &ev->fields[i];
    text(w->g, f->name, strlen(f->name));
    if (f->kind == IPS_RING_FIELD_INT) {
      yajl_gen_integer(w->g, f->i);
    } else if (f->kind == IPS_RING_FIELD_UINT) {
      char num[24];
      int n = snprintf(num, sizeof num, "%llu", (unsigned long long)f->u);
      yajl_gen_number(w->g, num, (size_t)n);
    } else {
      text(w->g, f->s ? f->s : "", f->s ? f->len : 0);
    }
  }
  yajl_gen_map_close(w->g);
  yajl_gen_map_close(w->g);
  out_flush(w->g, w->out, 1);
}

static void on_lost(void *arg, const ips_ring_proc_t *p, uint64_t lost) {
  watch_t *w = arg;
  head(w, p);
  out_int(w->g, "lost", (long long)lost);
  yajl_gen_map_close(w->g);
  out_flush(w->g, w->out, 1);
}

/* A ring that cannot be read is said, once (its row in top), and makes
 * the exit code 3: a corrupt ring is not an empty one. */
static void on_error(void *arg, const ips_ring_proc_t *p) {
  watch_t *w = arg;
  fprintf(stderr, "ipcstamp watch: ring of pid %ld not read: %s\n", p->pid,
          p->error);
  w->bad = 1;
}

/* Events read from one ring per refresh at most: bounds one refresh. */
#define WATCH_POLL_MAX 1000000

int cmd_watch(int argc, char **argv) {
  cli_ring_t ro;
  int rc = CLI_EXIT_OK;
  char msg[512];
  ips_ring_dir_t *d = NULL;
  ips_ring_dir_callbacks_t cb;
  watch_t w;
  struct sigaction sa;
  ro.interval = 100;
  rc = cli_ring_options(argc, argv, "watch", usage_text, 10, 0, &ro);
  if (rc >= 0)
    return rc;
  rc = CLI_EXIT_OK;
  memset(&cb, 0, sizeof cb);
  cb.on_event = on_event;
  cb.on_lost = on_lost;
  cb.on_error = on_error;
  cb.arg = &w;
  cb.poll_max = WATCH_POLL_MAX;
  if (!(w.g = out_gen()) || ips_ring_dir_open(&d, ro.dir, &cb) != 0) {
    if (w.g) yajl_gen_free(w.g);
    fprintf(stderr, "ipcstamp watch: out of memory\n");
    return CLI_EXIT_IO;
  }
  w.out = stdout;
  w.bad = 0;
  ips_ring_dir_follow_pids(d, ro.pids, ro.npids);
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  for (;;) {
    struct timespec ts;
    int more = ips_ring_dir_poll(d, msg, sizeof msg);
    if (more < 0) {
      fprintf(stderr, "ipcstamp watch: %s\n", msg);
      rc = CLI_EXIT_IO;
      break;
    }
    if (cli_stdout_close("watch") != 0) {
      rc = CLI_EXIT_IO;
      break;
    }
    if (ro.once && more) {
      size_t i;
      for (i = 0; i < ips_ring_dir_count(d); i++)
        if (ips_ring_dir_proc(d, i)->more)
          fprintf(stderr, "ipcstamp watch: --once stopped after %d events "
                          "of the ring of pid %ld: it holds more (without "
                          "--once, the rest is read at the next polls)\n",
                  WATCH_POLL_MAX, ips_ring_dir_proc(d, i)->pid);
    }
    if (ro.once || stop)
      break;
    ts.tv_sec = ro.interval / 1000;
    ts.tv_nsec = ro.interval % 1000 * 1000000L;
    nanosleep(&ts, NULL);
  }
  ips_ring_dir_close(d);
  yajl_gen_free(w.g);
  if (rc == CLI_EXIT_OK && w.bad)
    rc = CLI_EXIT_INPUT;
  return rc;
}
