/* export.c — `ipcstamp otel`'s export: deliveries into batches, batches
 * into requests, requests through a bounded queue to the receiver (or to
 * stdout with --dry-run), and the metrics beside them.
 *
 * Requests go out in order as the batches fill.  Reading a whole file, a
 * batch that cannot be delivered after its retries ends the export (the
 * rest would fail the same way, and the exit code says so).  Following a
 * file, the export never ends for that: batches wait in a bounded queue
 * while the receiver is away (one try every few seconds), the oldest are
 * dropped when it is full, and the counts are printed at the end. */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "otel/export.h"

static void now_plus(struct timespec *t, long ms) {
  clock_gettime(CLOCK_MONOTONIC, t);
  t->tv_sec += ms / 1000;
  t->tv_nsec += (ms % 1000) * 1000000L;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec++;
    t->tv_nsec -= 1000000000L;
  }
}

static int due(const struct timespec *t) {
  struct timespec n;
  clock_gettime(CLOCK_MONOTONIC, &n);
  return n.tv_sec > t->tv_sec ||
         (n.tv_sec == t->tv_sec && n.tv_nsec >= t->tv_nsec);
}

static void pop(otel_cmd_t *c) {
  free(c->q[c->qhead].body);
  c->qhead = (c->qhead + 1) % c->qmax;
  c->qn--;
}

/* Sends what is queued, oldest first.  final: the export ends, so a
 * receiver known to be away gets one more try now. */
void otel_export_drain(otel_cmd_t *c, int final) {
  char err[512];
  while (c->qn) {
    pending_t *p = &c->q[c->qhead];
    uint64_t rej;
    int r;
    if (c->down && !final && !due(&c->next_try))
      return;
    if (c->down && final && *cli_stop_flag()) {
      /* Stopped by a signal while the receiver was away: no last try
       * (it could wait a whole --timeout); what is left is not sent. */
      while (c->qn) {
        c->unsent += c->q[c->qhead].nspans;
        pop(c);
      }
      return;
    }
    r = otel_send(c->snd, p->body, p->len, c->down ? 1 : 0, &rej, err,
                  sizeof err);
    if (r == 0 && rej > p->nspans) {
      /* Not a count of these spans (negative, or more than were sent):
       * what was taken cannot be known. */
      snprintf(err, sizeof err, "the receiver's partial success counts %s "
               "rejected spans of the %zu sent: not a count, so they are not "
               "taken as received", rej == UINT64_MAX ? "nonsense" : "more",
               p->nspans);
      r = -1;
    }
    if (r == 0) {
      if (c->down)
        fprintf(stderr, "ipcstamp otel: the receiver is back: sending\n");
      c->down = 0;
      c->requests++;
      c->sent += p->nspans - (rej < p->nspans ? rej : p->nspans);
      if (rej) {
        c->rejected += rej;
        fprintf(stderr, "ipcstamp otel: the receiver rejected %llu of %zu "
                        "spans of a request\n", (unsigned long long)rej,
                p->nspans);
      }
      pop(c);
      continue;
    }
    if (r < 0 || !c->follow) {
      /* Refused (a retry would be refused again), or the last try failed:
       * reading a file, the export ends here. */
      fprintf(stderr, "ipcstamp otel: %s\n", err);
      c->unsent += p->nspans;
      pop(c);
      if (!c->follow) {
        c->failed = 1;
        while (c->qn) {
          c->unsent += c->q[c->qhead].nspans;
          pop(c);
        }
        return;
      }
      continue;
    }
    if (!c->down)
      fprintf(stderr, "ipcstamp otel: %s; keeping up to %zu batches and "
                      "trying again every %d s\n", err, c->qmax,
              DOWN_RETRY_MS / 1000);
    c->down = 1;
    now_plus(&c->next_try, DOWN_RETRY_MS);
    if (final) { /* the one last try failed: what is left is not sent */
      while (c->qn) {
        c->unsent += c->q[c->qhead].nspans;
        pop(c);
      }
    }
    return;
  }
}

/* The batch being filled is complete: out it goes (or into the queue). */
void otel_export_seal(otel_cmd_t *c) {
  size_t len, n = c->req.nspans;
  const char *body;
  pending_t *p;
  if (!n)
    return;
  body = otlp_req_end(&c->req, &len);
  if (!body) {
    c->oom = 1;
    c->unsent += n;
    otlp_req_reset(&c->req);
    return;
  }
  if (c->dry) {
    fwrite(body, 1, len, stdout);
    fputc('\n', stdout);
    c->sent += n;
    c->requests++;
    otlp_req_reset(&c->req);
    return;
  }
  if (c->qn == c->qmax) { /* full: the oldest goes */
    c->dropped += c->q[c->qhead].nspans;
    pop(c);
  }
  p = &c->q[(c->qhead + c->qn) % c->qmax];
  p->body = malloc(len + 1);
  if (!p->body) {
    c->oom = 1;
    c->unsent += n;
  } else {
    memcpy(p->body, body, len + 1);
    p->len = len;
    p->nspans = n;
    c->qn++;
  }
  otlp_req_reset(&c->req);
  otel_export_drain(c, 0);
}

/* The metrics so far, as one request (cumulative: it replaces the last),
 * written (--dry-run) or posted; following, not more often than every
 * METRICS_EVERY_MS, and a failure waits for the next (which says all the
 * same and more).  final: the export ends. */
void otel_export_metrics(otel_cmd_t *c, const ips_stats_t *st, int final) {
  char err[512], *body;
  size_t len, points;
  uint64_t rejected = 0;
  if (!c->metrics || c->failed)
    return;
  if (!final && (!otel_metrics_fresh(c->metrics) || !due(&c->metrics_next)))
    return;
  if (final && !otel_metrics_fresh(c->metrics) && c->metric_requests)
    return;
  now_plus(&c->metrics_next, METRICS_EVERY_MS);
  body = otel_metrics_request(c->metrics, c->res, st, c->metrics_start, &len,
                              &points);
  if (!body) {
    c->oom = 1;
    return;
  }
  c->metric_requests++;
  if (c->dry) {
    fwrite(body, 1, len, stdout);
    fputc('\n', stdout);
    c->metric_points = points;
  } else if (otel_send(c->msnd, body, len, c->follow && !final ? 1 : 0,
                       &rejected, err, sizeof err) == 0) {
    c->metric_points = points;
  } else {
    fprintf(stderr, "ipcstamp otel: metrics: %s\n", err);
    c->metric_failed++;
  }
  free(body);
}

static void add_metrics(otel_cmd_t *c, const ips_stats_t *st,
                        const ips_delivery_t *d, const char *kind) {
  int64_t t0;
  if (!c->metrics)
    return;
  t0 = ips_stats_wall_ns(st, d, d->P[0]);
  if (!c->metrics_start || t0 < c->metrics_start)
    c->metrics_start = t0;
  otel_metrics_add(c->metrics, d, kind, t0 + d->total);
}

void otel_export_on_delivery(void *arg, const ips_delivery_t *d) {
  otel_cmd_t *c = arg;
  size_t n = otlp_delivery_nspans(d);
  otel_deliver_facts_t f;
  int have = 0;
  if (c->failed) {
    c->unsent += n;
    return;
  }
  if (!c->have_ids) {
    /* The first record has been read: the file's identity is known. */
    otel_ids_init(&c->ids, ips_analysis_stats(c->a));
    c->have_ids = 1;
  }
  if (c->req.nspans && c->req.nspans + n > c->batch) {
    otel_export_seal(c);
    if (c->failed) {
      c->unsent += n;
      return;
    }
  }
  have = ips_analysis_causes(c->a, d->line, &f);
  otlp_req_delivery(&c->req, &c->ids, ips_analysis_stats(c->a), d,
                    have ? &f : NULL);
  add_metrics(c, ips_analysis_stats(c->a), d, have ? f.kind : NULL);
}

/* Following, while the reader waits: what has come goes out now. */
void otel_export_on_idle(void *arg) {
  otel_cmd_t *c = arg;
  if (c->failed)
    return;
  if (c->req.nspans)
    otel_export_seal(c);
  else
    otel_export_drain(c, 0);
  otel_export_metrics(c, c->a ? ips_analysis_stats(c->a) : NULL, 0);
  if (c->dry)
    fflush(stdout);
}

/* --ring: a delivery joined from the rings, with its own anchor and ids
 * (each parent ring is a run of its own). */
static void on_ring_delivery(void *arg, const ips_delivery_t *d,
                             const ips_stats_t *st) {
  otel_cmd_t *c = arg;
  size_t n = otlp_delivery_nspans(d);
  otel_ids_t ids;
  otel_ids_init(&ids, st);
  ids.with_pid = 1; /* a ring's worker is known by its pid */
  if (c->req.nspans && c->req.nspans + n > c->batch)
    otel_export_seal(c);
  /* The rings carry no kd/vd: no kind, no causes. */
  otlp_req_delivery(&c->req, &ids, st, d, NULL);
  add_metrics(c, st, d, NULL);
}

static void on_ring_lost(void *arg, const ips_ring_proc_t *p, uint64_t lost) {
  otel_cmd_t *c = arg;
  (void)p;
  c->ring_lost += lost;
}

/* A ring that cannot be read (corrupt, another format version, not a
 * file) is said, once, and makes the exit code 3: not silence. */
static void on_ring_error(void *arg, const ips_ring_proc_t *p) {
  otel_cmd_t *c = arg;
  fprintf(stderr, "ipcstamp otel: ring of pid %ld not read: %s\n", p->pid,
          p->error);
  c->ring_bad++;
}

static void on_ring_stop(int sig) {
  volatile sig_atomic_t *stop = cli_stop_flag();
  (void)sig;
  *stop = *stop + 1;
}

/* --ring: polls every ring of dir (libipcstamp-analyze's ips_ring_dir_t:
 * new rings are picked up at each poll, each poll is bounded, the joined
 * deliveries come to on_ring_delivery) and sends what was joined after
 * each poll, until a signal (or after one poll with once).  Memory is
 * bounded by the directory, its joiner and the queue.  Returns an exit
 * code. */
int otel_export_rings(otel_cmd_t *c, const char *dir, long long interval,
                        int once) {
  ips_ring_dir_callbacks_t cb;
  struct sigaction sa;
  int rc;
  memset(&cb, 0, sizeof cb);
  cb.on_lost = on_ring_lost;
  cb.on_error = on_ring_error;
  cb.on_delivery = on_ring_delivery;
  cb.arg = c;
  /* A backlog (rings written before otel started) is read 256 events at a
   * time from each ring in turn, so the halves waiting for the other ring
   * stay far below the joiner's bound. */
  cb.poll_max = 256;
  if (ips_ring_dir_open(&c->rings, dir, &cb) != 0) {
    fprintf(stderr, "ipcstamp otel: out of memory\n");
    return CLI_EXIT_IO;
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_ring_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  rc = cli_rings_poll(c->rings, "ipcstamp otel", once, interval, cli_stop_flag(),
                      otel_export_on_idle, c);
  ips_ring_dir_finish(c->rings, &c->ring_counts);
  return rc;
}
