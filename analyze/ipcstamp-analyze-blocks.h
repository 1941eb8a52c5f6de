/* ipcstamp-analyze-blocks.h — the blocks of a chain node's slogfile as the
 * analysis reads them (blocks.c; docs/blocks.md).  Included by
 * ipcstamp-analyze.h, whose types and conventions it uses; include that
 * one.
 */
#ifndef IPCSTAMP_ANALYZE_BLOCKS_API_H
#define IPCSTAMP_ANALYZE_BLOCKS_API_H

#ifndef IPCSTAMP_ANALYZE_H
#error "include <ipcstamp-analyze.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Blocks: a chain node's slogfile (Agoric's cosmic-swingset writes a record
 * at each step of a block), one block at a time (docs/blocks.md).
 */
typedef struct ips_block_s {
  long long height;        /* blockHeight; -1 for the bootstrap block */
  int bootstrap;           /* the chain's bootstrap (its first run) */
  long line;               /* the line of its begin-block */
  char clock;              /* its times: 'w' the records' time, 'm' monotime */
  long long chain_time;    /* blockTime: the chain's, integer seconds */
  /* Since the block before (height - 1), when it was read: */
  int has_prev;
  long long chain_interval;/* blockTime - its blockTime, seconds */
  int64_t block_ns;        /* end-block-finish - its end-block-finish */
  int64_t lag_ns;          /* begin-block's time - blockTime (wall clock) */
  int64_t cosmos_ns;       /* begin-block to end-block-start */
  int64_t swingset_ns;     /* end-block-start to end-block-finish */
  /* swingset_ns = pipe + worker + kernel + unmatched (the deliveries, as
   * the report splits them) + snap_save + snap_load + kernel_own, exactly. */
  int64_t pipe, worker, kernel, unmatched;
  int64_t snap_save, snap_load, kernel_own;
  int64_t compress_ns, dbsave_ns; /* of the saves: SwingSet's own figures */
  uint64_t n_save, n_load;
  int has_commit;
  int64_t commit_ns;       /* commit-block-start to -finish (not swingset) */
  uint64_t n_deliveries;   /* attributed */
  uint64_t n_skipped;      /* deliveries not attributed: their time is in
                              kernel_own (each was reported as a skip) */
  long long computrons;    /* the deliveries' compute */
  /* The vat whose deliveries took longest, the longest delivery, and the
   * vat whose snapshots took longest ("" when none). */
  char busy_vat[64];
  int64_t busy_ns;
  uint64_t busy_n;
  char dom_vat[64], dom_desc[96];
  long long dom_crank, dom_dnum;
  long dom_line;
  int64_t dom_ns;
  char snap_vat[64];
  int64_t snap_vat_ns;
  /* Sums of this block that passed the range of int64 nanoseconds (or of
   * computrons) and were held at the bound (ips_sum_add): its figures are
   * then bounds, not times, and its parts no longer add up.  0 on any
   * real file; hostile input (records 292 years apart) makes it more. */
  uint64_t saturated;
  /* Added after the fields above.  The block's instants on its clock (ns,
   * the records' time or monotime as clock says), to join it with other
   * sources (blocks --os): end-block-start (the bootstrap's start),
   * end-block-finish, and commit-block-start and -finish (has_commit). */
  int64_t start_t, finish_t, commit_start_t, commit_finish_t;
} ips_block_t;

typedef void (*ips_block_cb)(void *arg, const ips_block_t *b);

/* Call cb for each block, when its commit-block-finish is read (the
 * bootstrap block at its finish; a block never committed at
 * ips_analysis_finish).  Call it before the first read.  The block is
 * the analysis's, valid during the call.  Returns 0 or IPS_ENOMEM. */
IPS_EXTERN int ips_analysis_on_block(ips_analysis_t *a, ips_block_cb cb,
                                     void *arg);

/* What the blocks could not hold (after ips_analysis_finish; 0 when
 * ips_analysis_on_block was not asked): *blocks begun and never ended
 * (another began first, or the input ended) or ended without their begin,
 * and *deliveries outside any block's end-block-start..finish (those
 * blocks' and others'), which no block counts. */
IPS_EXTERN void ips_analysis_blocks_dropped(const ips_analysis_t *a,
                                            uint64_t *blocks,
                                            uint64_t *deliveries);
/* The block whose SwingSet run is being read (between its end-block-start
 * and -finish, or inside the bootstrap block): 1 with its height in
 * *height (-1 for the bootstrap block), or 0 outside any.  Called from a
 * delivery callback, that is the delivery's block.  Only after
 * ips_analysis_on_block (cb may be NULL); 0 otherwise. */
IPS_EXTERN int ips_analysis_current_block(const ips_analysis_t *a,
                                          long long *height);

/* The time of b's deliveries: pipe + worker + kernel + unmatched, held at
 * the bound if that passes int64 (b->saturated then says a sum was). */
IPS_EXTERN int64_t ips_block_deliveries(const ips_block_t *b);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_BLOCKS_API_H */
