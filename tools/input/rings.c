/* rings.c — the live rings as the input of the analysis commands
 * (`report`, `trace`, `latency --ring DIR`) and the polling loop they
 * share with `otel --ring`: libipcstamp-analyze reads the directory and
 * joins the deliveries; this says what could not be read. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

int cli_rings_poll(ips_ring_dir_t *d, const char *prog, int once,
                   long long interval_ms, volatile sig_atomic_t *stop,
                   void (*on_idle)(void *arg), void *arg) {
  char msg[512];
  for (;;) {
    struct timespec ts;
    int more = ips_ring_dir_poll(d, msg, sizeof msg);
    if (more < 0) {
      fprintf(stderr, "%s: %s\n", prog, msg);
      return CLI_EXIT_IO;
    }
    /* A backlog: read on at once (no time passed), the rings kept level
     * in time by the directory. */
    if (more && !*stop)
      continue;
    fflush(stdout); /* what has come so far is out while it waits */
    if (on_idle)
      on_idle(arg);
    if (once || *stop)
      return CLI_EXIT_OK;
    ts.tv_sec = interval_ms / 1000;
    ts.tv_nsec = interval_ms % 1000 * 1000000L;
    nanosleep(&ts, NULL);
  }
}

/* --ring: what the rings hold, each unreadable ring said. */
typedef struct {
  const cli_input_t *in;
  uint64_t bad, lost;
} rings_said_t;

static void ring_error(void *arg, const ips_ring_proc_t *p) {
  rings_said_t *r = arg;
  fprintf(stderr, "%s: ring of pid %ld not read: %s\n", r->in->prog, p->pid,
          p->error);
  r->bad++;
}

static void ring_lost(void *arg, const ips_ring_proc_t *p, uint64_t lost) {
  (void)p;
  ((rings_said_t *)arg)->lost += lost;
}

int cli_read_rings(cli_input_t *in, ips_analysis_t *a,
                   volatile sig_atomic_t *stop) {
  ips_ring_dir_callbacks_t cb;
  ips_ring_dir_t *d;
  ips_ring_join_counts_t jc;
  rings_said_t said = {in, 0, 0};
  int rc;
  memset(&cb, 0, sizeof cb);
  cb.on_error = ring_error;
  cb.on_lost = ring_lost;
  cb.analysis = a;
  cb.arg = &said;
  /* A backlog a few hundred events a ring at a time: the rings kept level
   * in time, the halves waiting to be joined few. */
  cb.poll_max = 256;
  if (ips_ring_dir_open(&d, in->ring, &cb) != 0) {
    fprintf(stderr, "%s: out of memory\n", in->prog);
    return CLI_EXIT_IO;
  }
  rc = cli_rings_poll(d, in->prog, !in->src.follow, 100, stop,
                      in->on_idle, in->idle_arg);
  ips_ring_dir_finish(d, &jc);
  ips_ring_dir_close(d);
  if (jc.unjoined || said.lost)
    fprintf(stderr, "%s: %llu deliveries attributed by the parent but not "
                    "joined (their stamps incomplete in the rings), %llu "
                    "ring events lost (a reader was lapped)\n", in->prog,
            (unsigned long long)jc.unjoined, (unsigned long long)said.lost);
  if (rc == CLI_EXIT_OK && said.bad)
    rc = CLI_EXIT_INPUT;
  return rc;
}
