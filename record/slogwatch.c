/* slogwatch.c — the always-on recorder's triggers from the node's
 * slogfile (--slog FILE; docs/always-on.md, "What makes a dump"): the file
 * followed as `blocks --follow` follows it (the analysis library, as tail
 * -F: through rotation and truncation), each block and each crank's gap
 * checked when its record arrives:
 *
 *  - a phase of a block longer than --stall-phase: cosmos (begin-block to
 *    end-block-start), swingset (end-block-start to -finish), commit
 *    (commit-block-start to -finish), after-commit (commit-block-finish
 *    to the next begin-block);
 *  - else the block longer than --stall-block (end-block-finish to the
 *    next one's);
 *  - a gap between cranks (a delivery's result to the next delivery's
 *    start: the kernel's own time and heap snapshots) longer than
 *    --stall-gap.
 *
 * Its records' times are the wall clock's (the records' `time`), brought
 * to CLOCK_MONOTONIC with the recorder's own offset between the two.  A
 * stall that has not ended yet is the frames' to see (triggers.c). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "always.h"
#include "record.h"
#include "ipcstamp-analyze.h"
#include "metrics/metrics.h"

#define QUEUE 8

struct ao_slog_s {
  const char *path;
  ao_slog_limits_t l;
  ips_metrics_t *m;         /* --metrics: the deliveries' histograms */
  ips_source_t *src;
  ips_analysis_t *a;
  int said;                 /* the file's fault said once */
  unsigned long reopened;   /* times it was rotated or truncated, said */
  uint64_t retry;           /* when to try opening again (mono ns) */
  int64_t prev_commit;      /* the last block's commit-block-finish (wall) */
  int64_t said_until;       /* the end of the last stall said (wall): a
                               later stretch over it counts only after */
  ao_stall_t q[QUEUE];
  size_t nq;
};

/* A stall of [from, to] (the records' wall clock, ns), queued. */
static void put(ao_slog_t *w, int kind, int64_t from, int64_t to,
                const char *what) {
  if (to > w->said_until)
    w->said_until = to;
  long long off = rec_wall_off();
  uint64_t now = rec_mono_ns();
  ao_stall_t *s;
  /* Not one that ended before the window (the file read from its start,
   * or again after a rotation): its records are gone. */
  if (w->nq == QUEUE || from <= off || to < from ||
      (uint64_t)(to - off) + w->l.max_age_ns < now)
    return;
  s = &w->q[w->nq++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->start = (uint64_t)(from - off);
  s->end = (uint64_t)(to - off);
  s->trigger = s->end;
  snprintf(s->what, sizeof s->what, "%s", what);
}

static int64_t longest(int64_t a, int64_t b) { return a > b ? a : b; }

static void on_block(void *arg, const ips_block_t *b) {
  ao_slog_t *w = arg;
  char what[96];
  int64_t begin = b->start_t - b->cosmos_ns, ph = (int64_t)w->l.phase_ns;
  size_t before = w->nq;
  if (b->clock != 'w')
    return; /* not on the wall clock: not placed */
#define PHASE(name, from, to)                                                \
  if (ph > 0 && (to) - (from) > ph) {                                        \
    snprintf(what, sizeof what, "block %lld %s", b->height, name);           \
    put(w, AO_PHASE, from, to, what);                                        \
  }
  if (w->prev_commit && begin > w->prev_commit)
    PHASE("after-commit (the previous commit to this begin-block)",
          w->prev_commit, begin)
  PHASE("cosmos", begin, b->start_t)
  PHASE("swingset", b->start_t, b->finish_t)
  if (b->has_commit)
    PHASE("commit", b->commit_start_t, b->commit_finish_t)
#undef PHASE
  /* A block spans the previous one's commit: what a stall said already
   * (that commit's) is not this block's again. */
  if (w->nq == before && w->l.block_ns && b->has_prev &&
      b->finish_t - longest(b->finish_t - b->block_ns, w->said_until) >
          (int64_t)w->l.block_ns) {
    snprintf(what, sizeof what, "block %lld", b->height);
    put(w, AO_BLOCK, b->finish_t - b->block_ns, b->finish_t, what);
  }
  if (b->has_commit)
    w->prev_commit = b->commit_finish_t;
}

static void on_delivery(void *arg, const ips_delivery_t *d) {
  ao_slog_t *w = arg;
  int64_t gap = d->gap_ns + d->snap_save_ns + d->snap_load_ns;
  char what[96];
  if (w->m) { /* as `ipcstamp metrics SLOG --follow` counts it */
    double s[IPS_METRICS_NDEFAULT_PARTS];
    ips_metrics_default_seconds(d, s);
    ips_metrics_delivery(w->m, d->vat, s);
  }
  /* A replayed delivery (a vat brought online from its transcript) is
   * no crank: its "gap" runs from whatever delivery came last. */
  if (d->replay || !d->has_gap || !w->l.gap_ns || d->pclock != 'w' ||
      !d->P || d->P[0] - longest(d->P[0] - gap, w->said_until) <=
          (int64_t)w->l.gap_ns)
    return; /* short, or a stretch a stall said already (a commit) */
  snprintf(what, sizeof what, "gap before crank %lld (%s %.40s), line %ld",
           d->crank, d->vat ? d->vat : "?", d->method ? d->method : "?",
           d->line);
  put(w, AO_GAP, d->P[0] - gap, d->P[0], what);
}

ao_slog_t *ao_slog_new(const char *path, const ao_slog_limits_t *l,
                       ips_metrics_t *m) {
  ao_slog_t *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->path = path;
  w->l = *l;
  w->m = m;
  return w;
}

static void close_src(ao_slog_t *w) {
  ips_analysis_free(w->a);
  ips_source_close(w->src);
  w->a = NULL;
  w->src = NULL;
}

void ao_slog_free(ao_slog_t *w) {
  if (!w)
    return;
  close_src(w);
  free(w);
}

/* Opens the file and a new analysis of it; 0, or -1 (said once). */
static int open_src(ao_slog_t *w) {
  ips_source_options_t so;
  ips_analysis_options_t ao;
  char err[512];
  ips_source_options_init(&so);
  so.follow = 1;
  ips_analysis_options_init(&ao);
  ao.clock = IPS_CLOCK_WALL;
  ao.on_delivery = on_delivery;
  ao.arg = w;
  if (ips_source_open(&w->src, w->path, &so, err, sizeof err) != 0) {
    if (!w->said++)
      fprintf(stderr, "ipcstamp record: %s (tried again every second)\n", err);
    w->src = NULL;
    return -1;
  }
  if (ips_analysis_new(&w->a, &ao) != 0 ||
      ips_analysis_on_block(w->a, on_block, w) != 0) {
    fprintf(stderr, "ipcstamp record: out of memory for --slog\n");
    close_src(w);
    return -1;
  }
  w->said = 0;
  w->reopened = 0;
  fprintf(stderr, "ipcstamp record: following %s\n", w->path);
  return 0;
}

int ao_slog_poll(ao_slog_t *w, uint64_t now, ao_stall_t *out) {
  char err[512];
  long n;
  if (w->nq) {
    *out = w->q[0];
    memmove(w->q, w->q + 1, --w->nq * sizeof *w->q);
    return 1;
  }
  if (!w->src && (now < w->retry || open_src(w) != 0)) {
    if (now >= w->retry)
      w->retry = now + 1000000000ull;
    return 0;
  }
  /* At most 5,000 lines at a time: the kernel's ring is read between. */
  n = ips_analysis_read(w->a, w->src, 5000, err, sizeof err);
  if (ips_source_reopened(w->src) != w->reopened) {
    w->reopened = ips_source_reopened(w->src);
    fprintf(stderr, "ipcstamp record: %s was rotated or truncated: read "
                    "again from its start\n", w->path);
  }
  if (n < 0 && n != -EAGAIN) {
    fprintf(stderr, "ipcstamp record: %s: reading it again from its "
                    "start in 5 s\n", err);
    close_src(w);
    w->retry = now + 5000000000ull;
  }
  return 0;
}
