/* kernel.h — the small kernel behind `ipcstamp run`: vats (one worker
 * each) with a key-value store, one run queue, and an upcall handler that
 * does real work (vatstore, send, log), so that a run has real kernel time
 * between and inside deliveries. */
#ifndef IPCSTAMP_TOOLS_KERNEL_H
#define IPCSTAMP_TOOLS_KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "ipcstamp-parent.h"

#define KERNEL_STORE_BUCKETS 256

typedef struct kv_s {
  struct kv_s *next;
  char *key;
  char *val; /* JSON text */
} kv_t;

typedef struct run_item_s {
  struct run_item_s *next;
  int vat;
  int evaluate;  /* 'e' with the source in src; else '?' with vd */
  char *vd;      /* JSON text: what the slog records as vd, and for '?' the
                    delivery itself */
  size_t vdlen;
  char *src;     /* evaluate only: the source text */
  size_t srclen;
} run_item_t;

typedef struct kernel_s kernel_t;

typedef struct {
  char id[32];
  ips_child_t *w;
  kernel_t *k;
  kv_t *store[KERNEL_STORE_BUCKETS];
  uint64_t deliveries; /* deliveryNum of the last one */
  int closed;
  int64_t spawn_ns;    /* mono: when the worker was started */
  int64_t ready_ns;    /* its start-up (spawn to readiness), 0 if unknown */
} vat_t;

struct kernel_s {
  uv_loop_t *loop;
  vat_t *vats;
  int nvats;
  run_item_t *head, *tail;
  size_t queued;
  ips_slog_t *slog;        /* NULL: no slogfile */
  const char *slog_path;
  /* the crank in flight */
  run_item_t *cur;
  uint64_t crank, dnum, snum;
  /* totals */
  uint64_t deliveries, evaluations, upcalls, errors, faults, skipped, sends;
  int slog_failed;         /* reported once */
  int stopping;
  int open_workers;
  void (*on_idle)(kernel_t *k); /* the run queue ran dry, or stop */
  /* Called when the queue is empty and no crank runs, to queue the next
   * part of the workload (a pass of --repeat, a round of the demo), so that
   * a long run holds one part in memory, never the whole run.  Returns 1
   * when it queued something, 0 when the workload is done, -1 when out of
   * memory.  NULL: the queue is all there is. */
  int (*refill)(kernel_t *k);
  void *refill_data;       /* for refill */
};

/* Queue an item (the kernel takes ownership). */
void kernel_push(kernel_t *k, run_item_t *it);
void kernel_item_free(run_item_t *it);
/* The vat called id, or -1. */
int kernel_vat_index(const kernel_t *k, const char *id);
/* Start the next crank if none is running. */
void kernel_pump(kernel_t *k);
/* Stop: cancel what runs, close every worker. */
void kernel_stop(kernel_t *k);
/* The worker options every vat gets (callbacks set here). */
void kernel_worker_options(kernel_t *k, ips_child_options_t *o);
/* v's worker was just spawned: queue xsnap's readiness ping ahead of any
 * command, so that its start-up is timed on its own (v->ready_ns) and
 * never counted in its first delivery.  Returns ips_child_ready()'s. */
int kernel_vat_started(kernel_t *k, vat_t *v);
/* Note a slog error once; returns 1 when rc was an error. */
int kernel_slog_check(kernel_t *k, int rc);
void kernel_free(kernel_t *k);

#endif
