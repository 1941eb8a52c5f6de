/* blocks.c — a chain node's blocks: the snapshot clock and the block
 * assembler (blocks.h, docs/blocks.md). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "blocks.h"

int ips__block_type(const char *s, size_t n) {
  static const char *const names[IPS__BLK_N] = {
      NULL,
#define X(id, name) name,
      IPS__BLOCK_TYPES(X)
#undef X
  };
  int i;
  /* Most records are SwingSet's, which none of these names starts like. */
  if (n < 18 || (s[0] != 'c' && s[0] != 'h'))
    return IPS__BLK_NONE;
  for (i = 1; i < IPS__BLK_N; i++)
    if (strlen(names[i]) == n && !memcmp(names[i], s, n))
      return i;
  return IPS__BLK_NONE;
}

const char *ips__block_missing(const ips__rec_t *r) {
  if (!(r->have & (IPS__F_TIME | IPS__F_MONO)))
    return "no time and monotime";
  switch (r->sub) {
    case IPS__BLK_BEGIN:
    case IPS__BLK_END_START:
    case IPS__BLK_END_FINISH:
      return (r->have & IPS__F_HEIGHT) ? NULL : "no blockHeight";
    default:
      return NULL;
  }
}

/* ---- the snapshot clock ---------------------------------------------- */

/* The record's time on clock c (0 time, 1 monotime), if it has one the
 * analysis computes with (IPS_STAMP_LIMIT: no difference overflows). */
static int rec_time(const ips__rec_t *r, int c, int64_t *t) {
  if (c == 1 ? !(r->have & IPS__F_MONO) : !(r->have & IPS__F_TIME))
    return 0;
  *t = c == 1 ? r->mono_ns : r->time_ns;
  return *t >= 0 && *t < IPS_STAMP_LIMIT;
}

/* The snapshot clock's sums of many differences, which hostile input can
 * make pass int64: held at the bound (ips_sum_add); the block that takes
 * them counts it (sat_add). */
static int64_t wadd(int64_t a, int64_t b) {
  ips_sum_add(&a, b);
  return a;
}

/* *sum += v in block k, counted in k->saturated when it saturates. */
static void sat_add(ips_block_t *k, int64_t *sum, int64_t v) {
  k->saturated += (uint64_t)ips_sum_add(sum, v);
}

static int is_snap(const ips__rec_t *r, int sub) {
  return r->type == IPS__REC_BLOCK && r->sub == sub;
}

void ips__snap_feed(ips__snap_clock_t *s, const ips__rec_t *r) {
  int c, sub = r->type == IPS__REC_BLOCK ? r->sub : 0;
  /* The load right after a save of the same vat (the restarted worker):
   * from the save's record to its own. */
  int after_save = is_snap(r, IPS__BLK_SNAP_LOAD) &&
                   s->prev_sub == IPS__BLK_SNAP_SAVE &&
                   (r->have & IPS__F_VAT) && !strcmp(s->prev_vat, r->vat);
  s->added = 0;
  s->compress_ns = s->dbsave_ns = 0;
  for (c = 0; c < 2; c++) {
    int64_t t, d;
    s->add_save[c] = s->add_load[c] = 0;
    if (!rec_time(r, c, &t))
      continue;
    d = s->has_prev[c] && t >= s->prev[c] ? t - s->prev[c] : 0;
    if (sub == IPS__BLK_SNAP_SAVE)
      s->add_save[c] = d;
    else if (after_save || s->prev_sub == IPS__BLK_SNAP_LOAD)
      s->add_load[c] = d; /* a load on its own: up to the next record */
    s->save[c] = wadd(s->save[c], s->add_save[c]);
    s->load[c] = wadd(s->load[c], s->add_load[c]);
    s->prev[c] = t;
    s->has_prev[c] = 1;
  }
  if (sub == IPS__BLK_SNAP_SAVE) {
    s->added = 1;
    if (r->have & IPS__F_COMPRESS)
      s->compress_ns = r->compress_ns;
    if (r->have & IPS__F_DBSAVE)
      s->dbsave_ns = r->dbsave_ns;
  } else if (after_save || s->prev_sub == IPS__BLK_SNAP_LOAD) {
    s->added = 2;
  }
  if (s->added)
    snprintf(s->vat, sizeof s->vat, "%s",
             after_save || sub == IPS__BLK_SNAP_SAVE ? r->vat : s->prev_vat);
  if (!(r->have & (IPS__F_TIME | IPS__F_MONO)))
    return; /* not a point in time: the record before stays the last */
  /* A load after a save is done when written; one on its own is open. */
  s->prev_sub = after_save ? 0 : sub == IPS__BLK_SNAP_SAVE ||
                                          sub == IPS__BLK_SNAP_LOAD ? sub : 0;
  snprintf(s->prev_vat, sizeof s->prev_vat, "%s",
           (r->have & IPS__F_VAT) ? r->vat : "");
}

void ips__snap_reset(ips__snap_clock_t *s) {
  s->save[0] = s->save[1] = s->load[0] = s->load[1] = 0;
}

/* ---- the block assembler --------------------------------------------- */

#define BLOCK_VATS 32 /* vats kept per block for the busiest; more: left out */

struct ips__blocks {
  int clock;             /* the analysis's option */
  ips_block_cb cb;
  void *arg;
  ips_block_t b;         /* the block being read */
  int open;              /* begin-block (or bootstrap start) read */
  int in_end;            /* between end-block-start and -finish */
  int ended;             /* end-block-finish read */
  int c;                 /* its clock: 0 time, 1 monotime */
  int64_t begin_t, start_t, commit_t;
  int has_commit_t;
  int has_compute;
  /* the block before */
  int has_prev;
  long long prev_height, prev_btime;
  int64_t prev_finish;
  int prev_c;
  /* per vat, this block */
  struct { char vat[64]; int64_t ns, snap; uint64_t n; } v[BLOCK_VATS];
  size_t nv;
  /* what no block holds (ips_analysis_blocks_dropped) */
  uint64_t dropped_blocks, dropped_deliveries;
  int orphan;            /* an end-block-start without its begin counted */
};

/* The open block is lost (it never ended): counted, with its deliveries. */
static void drop_open(ips__blocks_t *b) {
  if (!b->open || b->ended)
    return;
  b->dropped_blocks++;
  b->dropped_deliveries += b->b.n_deliveries + b->b.n_skipped;
  b->open = 0;
}

ips__blocks_t *ips__blocks_new(int clock, ips_block_cb cb, void *arg) {
  ips__blocks_t *b = calloc(1, sizeof *b);
  if (!b)
    return NULL;
  b->clock = clock;
  b->cb = cb;
  b->arg = arg;
  return b;
}

void ips__blocks_free(ips__blocks_t *b) { free(b); }

static int vat_slot(ips__blocks_t *b, const char *vat) {
  size_t i;
  for (i = 0; i < b->nv; i++)
    if (!strcmp(b->v[i].vat, vat))
      return (int)i;
  if (b->nv == BLOCK_VATS)
    return -1;
  snprintf(b->v[b->nv].vat, sizeof b->v[b->nv].vat, "%s", vat);
  b->v[b->nv].ns = b->v[b->nv].snap = 0;
  b->v[b->nv].n = 0;
  return (int)b->nv++;
}

/* A new block: everything counted from zero. */
static void open_block(ips__blocks_t *b, const ips__rec_t *r, long line,
                       int bootstrap) {
  int64_t t;
  memset(&b->b, 0, sizeof b->b);
  b->nv = 0;
  b->orphan = 0;
  b->open = 1;
  b->in_end = b->ended = b->has_commit_t = b->has_compute = 0;
  b->b.line = line;
  b->b.bootstrap = bootstrap;
  b->b.height = bootstrap ? -1 : r->height;
  b->b.chain_time = (r->have & IPS__F_BTIME) ? r->btime : 0;
  b->c = b->clock != IPS_CLOCK_WALL && (r->have & IPS__F_MONO) ? 1 : 0;
  b->b.clock = b->c ? 'm' : 'w';
  rec_time(r, b->c, &b->begin_t);
  /* lag: as Agoric's monitor, on the wall clock whatever the block's */
  if ((r->have & IPS__F_TIME) && (r->have & IPS__F_BTIME) &&
      r->btime < IPS_STAMP_LIMIT / 1000000000LL && rec_time(r, 0, &t))
    b->b.lag_ns = t - r->btime * 1000000000LL;
}

/* The block is done: its last figures, then the callback. */
static void emit(ips__blocks_t *b) {
  ips_block_t *k = &b->b;
  size_t i;
  int64_t best = -1, snap = -1;
  for (i = 0; i < b->nv; i++) {
    if (b->v[i].ns > best) {
      best = b->v[i].ns;
      snprintf(k->busy_vat, sizeof k->busy_vat, "%s", b->v[i].vat);
      k->busy_ns = b->v[i].ns;
      k->busy_n = b->v[i].n;
    }
    if (b->v[i].snap > snap && b->v[i].snap > 0) {
      snap = b->v[i].snap;
      snprintf(k->snap_vat, sizeof k->snap_vat, "%s", b->v[i].vat);
      k->snap_vat_ns = b->v[i].snap;
    }
  }
  b->open = 0;
  if (b->cb)
    b->cb(b->arg, k);
}

/* A heap snapshot the record just added (s->added: 1 a save, 2 a load),
 * into the open block's and its vat's sums. */
static void snap_added(ips__blocks_t *b, const ips__snap_clock_t *s) {
  ips_block_t *k = &b->b;
  int64_t save = s->add_save[b->c], load = s->add_load[b->c];
  int slot = vat_slot(b, s->vat);
  sat_add(k, &k->snap_save, save);
  sat_add(k, &k->snap_load, load);
  if (s->added == 1) {
    k->n_save++;
    sat_add(k, &k->compress_ns, s->compress_ns);
    sat_add(k, &k->dbsave_ns, s->dbsave_ns);
  } else {
    k->n_load++;
  }
  if (slot >= 0) {
    sat_add(k, &b->v[slot].snap, save);
    sat_add(k, &b->v[slot].snap, load);
  }
}

/* kernel_own = swingset_ns - the other parts, each taken away in turn
 * (saturating: a part is at most 2^62, so its negation fits). */
static void sat_sub_parts(ips_block_t *k) {
  const int64_t parts[] = {k->pipe, k->worker, k->kernel, k->unmatched,
                           k->snap_save, k->snap_load};
  size_t i;
  for (i = 0; i < sizeof parts / sizeof parts[0]; i++)
    sat_add(k, &k->kernel_own, parts[i] == INT64_MIN ? INT64_MAX : -parts[i]);
}

/* The block's end (or bootstrap) finishes at t: SwingSet's time, the
 * kernel's own rest, and the interval since the block before. */
static void end_finish(ips__blocks_t *b, int64_t t) {
  ips_block_t *k = &b->b;
  b->in_end = 0;
  b->ended = 1;
  k->swingset_ns = t - b->start_t;
  k->start_t = b->start_t;
  k->finish_t = t;
  /* the rest, so that the parts add up exactly */
  k->kernel_own = k->swingset_ns;
  sat_sub_parts(k);
  if (!k->bootstrap && b->has_prev && b->prev_height == k->height - 1 &&
      b->prev_c == b->c) {
    k->has_prev = 1;
    k->block_ns = t - b->prev_finish;
    k->chain_interval = k->chain_time - b->prev_btime;
  }
  if (!k->bootstrap) {
    b->has_prev = 1;
    b->prev_height = k->height;
    b->prev_btime = k->chain_time;
    b->prev_finish = t;
    b->prev_c = b->c;
  } else {
    emit(b);
  }
}

void ips__blocks_record(ips__blocks_t *b, const ips__snap_clock_t *s,
                        const ips__rec_t *r, long line) {
  ips_block_t *k = &b->b;
  int64_t t;
  if (b->open && b->in_end && s->added)
    snap_added(b, s);
  if (r->type != IPS__REC_BLOCK)
    return;
  switch (r->sub) {
    case IPS__BLK_BEGIN:
      if (!(r->have & IPS__F_HEIGHT))
        return;
      if (b->open && b->ended)
        emit(b); /* never committed: handed out as it is */
      drop_open(b);
      open_block(b, r, line, 0);
      return;
    case IPS__BLK_BOOT_START:
      if (b->open && b->ended)
        emit(b);
      drop_open(b);
      open_block(b, r, line, 1);
      b->start_t = b->begin_t;
      b->in_end = 1;
      return;
    case IPS__BLK_END_START:
      if (!b->open && !b->orphan) {
        b->dropped_blocks++; /* its begin is missing */
        b->orphan = 1;
      }
      if (!b->open || b->in_end || b->ended ||
          !(r->have & IPS__F_HEIGHT) || r->height != k->height ||
          !rec_time(r, b->c, &t))
        return;
      b->start_t = t;
      k->cosmos_ns = t - b->begin_t;
      b->in_end = 1;
      return;
    case IPS__BLK_END_FINISH:
    case IPS__BLK_BOOT_FINISH:
      if (!b->open && !b->orphan)
        b->dropped_blocks++; /* its begin (and end-block-start) missing */
      b->orphan = 0;
      if (!b->open || !b->in_end || !rec_time(r, b->c, &t) ||
          (r->sub == IPS__BLK_BOOT_FINISH) != k->bootstrap ||
          (!k->bootstrap && (!(r->have & IPS__F_HEIGHT) ||
                             r->height != k->height)))
        return;
      end_finish(b, t);
      return;
    case IPS__BLK_COMMIT_START:
      if (b->open && b->ended && rec_time(r, b->c, &t)) {
        b->commit_t = t;
        b->has_commit_t = 1;
      }
      return;
    case IPS__BLK_COMMIT_FINISH:
      if (!b->open || !b->ended)
        return;
      if (b->has_commit_t && rec_time(r, b->c, &t)) {
        k->has_commit = 1;
        k->commit_ns = t - b->commit_t;
        k->commit_start_t = b->commit_t;
        k->commit_finish_t = t;
      }
      emit(b);
      return;
  }
}

void ips__blocks_delivery(ips__blocks_t *b, const ips_delivery_t *d,
                          long long compute, int has_compute) {
  ips_block_t *k = &b->b;
  int slot;
  if (!b->open || !b->in_end) {
    b->dropped_deliveries++;
    return;
  }
  k->n_deliveries++;
  sat_add(k, &k->pipe, d->pipe);
  sat_add(k, &k->worker, d->worker);
  sat_add(k, &k->kernel, d->kernel);
  sat_add(k, &k->unmatched, d->unmatched);
  if (has_compute) {
    int64_t c = k->computrons;
    sat_add(k, &c, compute);
    k->computrons = c;
  }
  if (d->total > k->dom_ns || k->n_deliveries == 1) {
    k->dom_ns = d->total;
    snprintf(k->dom_vat, sizeof k->dom_vat, "%s", d->vat);
    snprintf(k->dom_desc, sizeof k->dom_desc, "%s", d->desc);
    k->dom_crank = d->crank;
    k->dom_dnum = d->dnum;
    k->dom_line = d->line;
  }
  slot = vat_slot(b, d->vat);
  if (slot >= 0) {
    sat_add(k, &b->v[slot].ns, d->total);
    b->v[slot].n++;
  }
}

void ips__blocks_skipped(ips__blocks_t *b) {
  if (b->open && b->in_end)
    b->b.n_skipped++;
  else
    b->dropped_deliveries++;
}

void ips__blocks_finish(ips__blocks_t *b) {
  if (b->open && b->ended)
    emit(b);
  drop_open(b);
  b->open = 0;
}

void ips_analysis_blocks_dropped(const ips_analysis_t *a, uint64_t *blocks,
                                 uint64_t *deliveries) {
  *blocks = a->blocks ? a->blocks->dropped_blocks : 0;
  *deliveries = a->blocks ? a->blocks->dropped_deliveries : 0;
}

int ips_analysis_on_block(ips_analysis_t *a, ips_block_cb cb, void *arg) {
  ips__blocks_free(a->blocks);
  a->blocks = ips__blocks_new(a->o.clock, cb, arg);
  return a->blocks ? 0 : IPS_ENOMEM;
}

int ips_analysis_current_block(const ips_analysis_t *a, long long *height) {
  const ips__blocks_t *b = a->blocks;
  if (!b || !b->open || !b->in_end)
    return 0;
  *height = b->b.height;
  return 1;
}

int64_t ips_block_deliveries(const ips_block_t *b) {
  int64_t v = b->pipe;
  ips_sum_add(&v, b->worker);
  ips_sum_add(&v, b->kernel);
  ips_sum_add(&v, b->unmatched);
  return v;
}
