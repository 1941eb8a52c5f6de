/* metrics.c — the always-on recorder's Prometheus endpoint (--metrics
 * ADDR; docs/operators.md, "The metrics"): its counters (ao_counters_t)
 * and, with --slog, each delivery of the slogfile in the per-vat
 * histograms, served by tools/metrics/'s HTTP thread.
 *
 * The recorder's loop publishes what changed since its last publication
 * (a few adds under the registry's lock, which a scrape holds only while
 * it copies the figures, never while it writes or sends them).  Only the
 * loop's thread calls in here: the dump's child, forked from that thread,
 * never does (a scrape's copy under way at the fork would leave the lock
 * held in the child). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "always.h"
#include "cli.h"
#include "metrics/metrics.h"

struct ao_metrics_s {
  ips_metrics_t *m;
  ips_metrics_server_t *srv;
  ao_counters_t last; /* as last published */
  int stalls, not_dumped, dumps, failures, events, lost, evicted;
  int bytes, records, seconds;
  double last_seconds;
};

/* The families, declared at the start so that each has its HELP, TYPE
 * and a 0 sample before anything happened. */
static void declare(ao_metrics_t *x) {
  ips_metrics_t *m = x->m;
  size_t k;
  x->stalls = ips_metrics_counter(
      m, "ipcstamp_stalls_total",
      "Stalls the always-on recorder found, by reason (manual: asked by "
      "SIGUSR1 or record --dump).", "reason");
  x->not_dumped = ips_metrics_counter(
      m, "ipcstamp_stalls_not_dumped_total",
      "Stalls that wrote no dump: over the stall the last dump was for "
      "(reason=\"overlapping\"), or within --min-interval of it "
      "(reason=\"min_interval\").", "reason");
  x->dumps = ips_metrics_counter(m, "ipcstamp_dumps_total",
                                 "Dumps the always-on recorder wrote.", NULL);
  x->failures = ips_metrics_counter(
      m, "ipcstamp_dump_failures_total",
      "Dumps that could not be written (said on stderr; nothing left "
      "behind).", NULL);
  x->events = ips_metrics_counter(
      m, "ipcstamp_events_total",
      "Records the always-on recorder took from the kernel.", NULL);
  x->lost = ips_metrics_counter(
      m, "ipcstamp_events_lost_total",
      "Records the kernel could not hand over (its ring buffer full).", NULL);
  x->evicted = ips_metrics_counter(
      m, "ipcstamp_window_evicted_records_total",
      "Records that left the always-on recorder's window (older than "
      "--window, or past --window-bytes).", NULL);
  x->bytes = ips_metrics_gauge(m, "ipcstamp_window_bytes",
                               "Bytes of records the window holds now.", NULL);
  x->records = ips_metrics_gauge(m, "ipcstamp_window_records",
                                 "Records the window holds now.", NULL);
  x->seconds = ips_metrics_gauge(
      m, "ipcstamp_window_seconds",
      "The time the window spans now, from its oldest record, seconds.", NULL);
  for (k = 0; k < AO_KINDS; k++)
    ips_metrics_count(m, x->stalls, ao_kind_name[k], 0);
  ips_metrics_count(m, x->not_dumped, "overlapping", 0);
  ips_metrics_count(m, x->not_dumped, "min_interval", 0);
}

int ao_metrics_start(const char *listen, ao_metrics_t **out) {
  ips_metrics_server_options_t o;
  ao_metrics_t *x = calloc(1, sizeof *x);
  char err[256], where[128];
  int rc;
  *out = NULL;
  if (!x || !(x->m = ips_metrics_new(NULL, 0, 0))) {
    free(x);
    fprintf(stderr, "ipcstamp record: out of memory for --metrics\n");
    return CLI_EXIT_FAIL;
  }
  declare(x);
  memset(&o, 0, sizeof o);
  o.listen = listen;
  if ((rc = ips_metrics_serve(x->m, &o, &x->srv, err, sizeof err)) < 0) {
    fprintf(stderr, "ipcstamp record: --metrics: %s\n", err);
    ips_metrics_free(x->m);
    free(x);
    return rc == -EINVAL ? CLI_EXIT_USAGE : AO_EXIT_LISTEN;
  }
  ips_metrics_server_address(x->srv, where, sizeof where);
  fprintf(stderr, "ipcstamp record: serving http://%s/metrics\n", where);
  *out = x;
  return 0;
}

struct ips_metrics_s *ao_metrics_registry(ao_metrics_t *x) {
  return x ? x->m : NULL;
}

/* Counter id's growth from *last to now (a counter never goes back). */
static void grew(ips_metrics_t *m, int id, const char *label, uint64_t now,
                 uint64_t *last) {
  if (now > *last)
    ips_metrics_count(m, id, label, now - *last);
  *last = now;
}

void ao_metrics_publish(ao_metrics_t *x, const ao_counters_t *c,
                        double window_seconds) {
  ao_counters_t *l;
  size_t k;
  if (!x)
    return;
  l = &x->last;
  for (k = 0; k < AO_KINDS; k++)
    grew(x->m, x->stalls, ao_kind_name[k], c->stalls[k], &l->stalls[k]);
  grew(x->m, x->not_dumped, "overlapping", c->overlapping, &l->overlapping);
  grew(x->m, x->not_dumped, "min_interval", c->rate_limited,
       &l->rate_limited);
  grew(x->m, x->dumps, NULL, c->dumps, &l->dumps);
  grew(x->m, x->failures, NULL, c->dump_failures, &l->dump_failures);
  grew(x->m, x->events, NULL, c->events, &l->events);
  grew(x->m, x->lost, NULL, c->lost, &l->lost);
  grew(x->m, x->evicted, NULL, c->evicted, &l->evicted);
  if (c->window_bytes != l->window_bytes)
    ips_metrics_set(x->m, x->bytes, NULL, (double)c->window_bytes);
  if (c->window_records != l->window_records)
    ips_metrics_set(x->m, x->records, NULL, (double)c->window_records);
  if (window_seconds != x->last_seconds)
    ips_metrics_set(x->m, x->seconds, NULL, window_seconds);
  l->window_bytes = c->window_bytes;
  l->window_records = c->window_records;
  x->last_seconds = window_seconds;
}

void ao_metrics_stop(ao_metrics_t *x) {
  if (!x)
    return;
  ips_metrics_server_stop(x->srv);
  ips_metrics_free(x->m);
  free(x);
}
