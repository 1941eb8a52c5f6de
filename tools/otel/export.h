/* export.h — what `ipcstamp otel` keeps while it exports: the batch being
 * filled, the queue of requests waiting for the receiver, the metrics, and
 * the input's callbacks that feed them (export.c).  cmd_otel.c parses the
 * options and sets this up; export.c sends. */
#ifndef IPCSTAMP_TOOLS_OTEL_EXPORT_H
#define IPCSTAMP_TOOLS_OTEL_EXPORT_H

#include <stdint.h>
#include <time.h>

#include "otel.h"

/* A request waiting to be sent. */
typedef struct {
  char *body;
  size_t len, nspans;
} pending_t;

typedef struct {
  ips_analysis_t *a;    /* set by cli_analyze() before the first delivery */
  otlp_req_t req;       /* the batch being filled */
  otel_ids_t ids;
  int have_ids;
  size_t batch;
  int dry, follow;
  otel_sender_t *snd;
  pending_t *q;         /* ring of qmax */
  size_t qhead, qn, qmax;
  int down;             /* following: the receiver failed its last try */
  struct timespec next_try;
  int failed;           /* not following: a batch could not be delivered */
  int oom;
  uint64_t sent, dropped, rejected, unsent, requests;
  /* --metrics: the distributions, sent to their own URL (/v1/metrics)
   * at the end, and every METRICS_EVERY_MS while following */
  otel_metrics_t *metrics;
  otel_sender_t *msnd;
  const char *metrics_url, *res;
  int64_t metrics_start;  /* the first delivery's start (ns, wall) */
  struct timespec metrics_next;
  uint64_t metric_points, metric_requests, metric_failed;
  ips_ring_dir_t *rings;    /* --ring: the rings, joined into deliveries */
  ips_ring_join_counts_t ring_counts; /* --ring: the joiner's, at the end */
  uint64_t ring_lost;   /* events the readers were lapped over */
  uint64_t ring_bad;    /* rings that could not be read (each said) */
} otel_cmd_t;

#define DOWN_RETRY_MS 5000
#define METRICS_EVERY_MS 10000

/* The batch being filled is complete: out it goes (written with --dry-run,
 * else into the queue, which is then drained). */
void otel_export_seal(otel_cmd_t *c);
/* Sends what is queued, oldest first.  final: the export ends, so a
 * receiver known to be away gets one more try now. */
void otel_export_drain(otel_cmd_t *c, int final);
/* The metrics so far, as one request (cumulative: it replaces the last);
 * following, not more often than every METRICS_EVERY_MS.  final: the export
 * ends. */
void otel_export_metrics(otel_cmd_t *c, const ips_stats_t *st, int final);
/* The analysis' on_delivery callback: d into the batch (arg is the
 * otel_cmd_t). */
void otel_export_on_delivery(void *arg, const ips_delivery_t *d);
/* The reader's on_idle callback while following: what has come goes out
 * now. */
void otel_export_on_idle(void *arg);
/* --ring: polls every ring of dir and sends what was joined after each
 * poll, until a signal (or after one poll with once).  Returns an exit
 * code. */
int otel_export_rings(otel_cmd_t *c, const char *dir, long long interval,
                      int once);

#endif
