/* attribute.h — inside the analysis: the assembler of deliveries and the
 * attribution of their time (docs/report.md, "Formulas"), and the
 * statistics it keeps.  Internal to libipcstamp-analyze.
 *
 * The assembler holds only unfinished deliveries (one per vat: upcalls nest
 * strictly), so memory follows the number of vats, not the file.
 */
#ifndef IPCSTAMP_ANALYZE_ATTRIBUTE_H
#define IPCSTAMP_ANALYZE_ATTRIBUTE_H

#include "blocks.h"
#include "ipcstamp-analyze.h"
#include "slog.h"

typedef struct ips__vat ips__vat_t;

/* The marks of one of the slowest (slow_marks.c). */
typedef struct ips__slow_marks_s {
  size_t n, more;                       /* kept; left out */
  ips_delivery_mark_t m[IPS_SLOW_MARKS]; /* at: since the worker's d */
  char names[IPS_SLOW_MARKS][64];        /* names cut to 63 bytes */
} ips__slow_marks_t;
/* Keeps d's marks in e (none: e is emptied). */
void ips__slow_marks_keep(ips__slow_marks_t *e, const ips_delivery_t *d);

struct ips_analysis_s {
  ips_analysis_options_t o;
  char *vat_filter;              /* owned copy of o.vat */
  ips__vat_t **vats;
  size_t nvats, capvats;
  size_t *hash;                  /* open addressing: index + 1, 0 = empty */
  size_t hcap;
  ips__vat_t *last_vat;          /* the vat looked up last, or NULL */
  int has_lastE[2];
  int64_t lastE[2];
  int has_mono;                  /* the latest parent monotime seen */
  int64_t last_mono;
  int64_t *P, *W;                /* a delivery's stamps, for the callback */
  /* The kernel run's mono offset (worker CLOCK_MONOTONIC - kernel
   * monotime) as the interval its round trips allow so far; run is the
   * run's number (restarts so far). */
  int has_mono_run;
  int64_t mono_lo, mono_hi;
  ips_mono_run_t mono_runs[IPS_MAX_MONO_RUNS];
  size_t n_mono_runs;
  uint64_t mono_runs_over;
  int64_t *PQ, *WQ;              /* beside them, the run-queue delays (-1:
                                    not measured) */
  ips_stats_t st;
  ips_slowest_t keeper;          /* which of slow[] goes (stats.c) */
  ips_slow_t *slow;              /* o.top slots, as the keeper says */
  ips_slow_t *slow_sorted;       /* o.top: ips_analysis_slowest()'s */
  size_t *slow_order;            /* o.top: the slots, slowest first */
  ips__slow_marks_t *slow_marks; /* o.top: slow[]'s marks (slow_marks.c) */
  uint64_t shown;                /* deliveries that passed the filters */
  /* Marks: a delivery's, for the callback (allocated on the
   * first delivery with marks), and the per-name totals. */
  ips_delivery_mark_t *dmarks;
  char *dmnames;                 /* sanitised names, IPS__MNAMES_BYTES */
  void *msort;                   /* the events sorted by time */
  void *mopen;                   /* open spans while pairing */
  ips_mark_stats_t *mstats;      /* IPS_MAX_MARK_NAMES */
  size_t nmstats;
  uint64_t marks_over;
  int delivered;                 /* a deliver record was read */
  /* Heap snapshots between deliveries, and the blocks of a chain node
   * (blocks.h; blocks is NULL unless ips_analysis_on_block asked). */
  ips__snap_clock_t snap;
  ips__blocks_t *blocks;
  /* The worker rings that give an exact-mode xsnap worker's stamps
   * (ring_meter.h; NULL: none), the record joined with them, and what the
   * join found for the deliver-result being fed (IPS_RING_*). */
  struct ips__ringm *ringm;
  ips__rec_t ring_rec;
  int ring_note;
  int read_err;                  /* the source failed: returned again */
  char read_msg[256];
  struct ips__os_join_s *osj;    /* ips_analysis_os(); NULL: none */
  struct ips__causes_s *causes;  /* ips_analysis_keep_causes(); NULL: none */
};

/* One record of the given line.  Skips go to the callback and the stats. */
void ips__attr_feed(ips_analysis_t *a, const ips__rec_t *r, long line);

/* Report a skipped line or delivery of vat (NULL: a line, counted
 * whatever the filter). */
void ips__skip(ips_analysis_t *a, const char *vat, long line, int reason,
               const char *detail);

/* ring_source.c: a delivery joined from the live rings (an
 * ips_ring_join_cb whose arg is the analysis): filtered, counted and
 * handed to the analysis's on_delivery as a slogfile's, st's anchors the
 * analysis's when it has none yet. */
void ips__ring_account(void *arg, const ips_delivery_t *d,
                       const ips_stats_t *st);

/* Release the assembler's state. */
void ips__attr_free(ips_analysis_t *a);
/* os_join.c: dv split by the recording (dv->os set) and summed, when the
 * analysis has one; its state freed (NULL ignored). */
void ips__os_account(ips_analysis_t *a, ips_delivery_t *dv);
void ips__os_join_free(struct ips__os_join_s *j);

#endif
