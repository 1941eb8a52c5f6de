/* blocks.h — inside the analysis: a chain node's blocks (docs/blocks.md).
 * Internal to libipcstamp-analyze.
 *
 * Agoric's cosmic-swingset writes a record at each step of a block
 * (begin-block, end-block-start/-finish, commit-block-start/-finish) and
 * SwingSet one per heap snapshot saved or loaded.  The parser knows them
 * by type (ips__block_type) and reads their few fields into an ips__rec_t
 * of type IPS__REC_BLOCK; the snapshot clock (snap_*) splits the kernel's
 * time between deliveries into its own and the snapshots'; the block
 * assembler (ips__blocks_*) adds each block's deliveries and snapshots up
 * and hands the block to the on_block callback when it is committed.
 */
#ifndef IPCSTAMP_ANALYZE_BLOCKS_H
#define IPCSTAMP_ANALYZE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-analyze.h"
#include "slog.h"

/* The record types read, by their sub-type in ips__rec_t.sub. */
#define IPS__BLOCK_TYPES(X)                                        \
  X(BEGIN, "cosmic-swingset-begin-block")                          \
  X(END_START, "cosmic-swingset-end-block-start")                  \
  X(END_FINISH, "cosmic-swingset-end-block-finish")                \
  X(COMMIT_START, "cosmic-swingset-commit-block-start")            \
  X(COMMIT_FINISH, "cosmic-swingset-commit-block-finish")          \
  X(BOOT_START, "cosmic-swingset-bootstrap-block-start")           \
  X(BOOT_FINISH, "cosmic-swingset-bootstrap-block-finish")         \
  X(SNAP_SAVE, "heap-snapshot-save")                               \
  X(SNAP_LOAD, "heap-snapshot-load")

enum {
  IPS__BLK_NONE = 0,
#define X(id, name) IPS__BLK_##id,
  IPS__BLOCK_TYPES(X)
#undef X
  IPS__BLK_N
};

/* The sub-type of the record type named by the n bytes at s, or
 * IPS__BLK_NONE when it is none of the above. */
int ips__block_type(const char *s, size_t n);
/* What a block record lacks that the blocks need ("no blockHeight", "no
 * time and monotime"), or NULL. */
const char *ips__block_missing(const ips__rec_t *r);

/* The snapshot clock: per parent clock (0 wall `time`, 1 `monotime`), the
 * time of the record before, and the snapshots' time since the last
 * delivery ended.  A save is the time from the record before it (the
 * bringOutYourDead's result, written just before SwingSet starts the
 * save) to its own record, written when the save is done.  A load is,
 * right after a save of the same vat (the worker restarted from its
 * snapshot while it was saved), the time from the save's record to the
 * load's, which SwingSet writes when the new worker is up; a load on its
 * own (a vat brought online) is written before the worker starts, so it is
 * the time from its record to the next one. */
typedef struct {
  int has_prev[2];
  int64_t prev[2];
  int prev_sub;            /* the record before: IPS__BLK_SNAP_* or 0 */
  char prev_vat[64];       /* its vat */
  int64_t save[2], load[2];/* since the last delivery's end */
  /* What the latest record added, per clock (for the blocks). */
  int64_t add_save[2], add_load[2];
  int64_t compress_ns, dbsave_ns; /* the latest save's, 0 otherwise */
  int added;               /* the latest record added a save (1) or a
                              load (2), of this vat: */
  char vat[64];
} ips__snap_clock_t;

/* One record with its times: advances the snapshot clock. */
void ips__snap_feed(ips__snap_clock_t *s, const ips__rec_t *r);
/* A delivery ended (its result): the snapshots since count from here. */
void ips__snap_reset(ips__snap_clock_t *s);

typedef struct ips__blocks ips__blocks_t;

/* The assembler, or NULL when out of memory.  clock: the analysis's
 * option (IPS_CLOCK_WALL: blocks on `time`, as Agoric's tools measure;
 * otherwise `monotime` when the records have it). */
ips__blocks_t *ips__blocks_new(int clock, ips_block_cb cb, void *arg);
void ips__blocks_free(ips__blocks_t *b);
/* Every record, after the snapshot clock saw it. */
void ips__blocks_record(ips__blocks_t *b, const ips__snap_clock_t *s,
                        const ips__rec_t *r, long line);
/* Every attributed delivery (whatever the filters), and every delivery
 * that could not be attributed (its line). */
void ips__blocks_delivery(ips__blocks_t *b, const ips_delivery_t *d,
                          long long compute, int has_compute);
void ips__blocks_skipped(ips__blocks_t *b);
/* The end of input: a block not yet committed is handed out as it is. */
void ips__blocks_finish(ips__blocks_t *b);

#endif
