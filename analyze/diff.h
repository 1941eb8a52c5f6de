/* diff.h — inside a diff (ipcstamp-analyze-diff.h): the nodes and their
 * reading (diff.c), the window that joins their deliveries (diff_join.c)
 * and the summaries of what the join hands out (diff_stats.c).  Internal
 * to libipcstamp-analyze.
 *
 * Data flows one way: each node's analysis hands its deliveries to the
 * window (ips__diff_join_add); the window hands each joined delivery, in
 * order, to the summaries (ips__diff_stats_add), which call the user's
 * callbacks.
 */
#ifndef IPCSTAMP_ANALYZE_DIFF_PRIV_H
#define IPCSTAMP_ANALYZE_DIFF_PRIV_H

#include <stdint.h>
#include <sys/types.h>

#include "ipcstamp-analyze-diff.h"

/* One entry of the window: the key, then a side per node. */
typedef struct diff_ent_s {
  uint64_t h;             /* the key's hash */
  uint32_t next;          /* the next slot + 1 in its bucket; 0: none */
  uint32_t mask;          /* the nodes that have it; 0: it left (a hole) */
  long long key_crank;    /* its crank, or for a replay the crank its node
                             had read before it, less that node's delta:
                             gone past by a node that has read a later
                             crank (less its own delta) */
  char vat[64];
  long long dnum;
  int replay;
  ips_diff_side_t side[]; /* n_nodes of them */
} diff_ent_t;

/* The window: a ring of entries in the order they were first read, and a
 * hash of their keys. */
typedef struct {
  size_t n_nodes, stride;  /* bytes per entry */
  size_t cap, max;         /* slots allocated; at most (the option) */
  size_t head, len;        /* the oldest; slots from it to the newest */
  size_t holes;            /* of them, entries that left (mask 0) */
  unsigned char *ring;
  uint32_t *bucket;        /* slot + 1; nb buckets */
  size_t nb;
} diff_window_t;

/* The kept copies of a list of the largest (ips_slowest_t's slots). */
typedef struct {
  ips_slowest_t k;
  void *item;              /* cap items of size bytes */
  size_t size;
  void *sorted;            /* the same, in order, when asked */
  size_t n_sorted;
} diff_list_t;

typedef struct {
  ips_diff_group_t *g;
  size_t n, cap;
  uint32_t *hash;          /* index + 1; hcap buckets */
  size_t hcap;
  uint64_t over;
  int sorted;
} diff_groups_t;

/* The summaries. */
typedef struct {
  ips_diff_stats_t st;
  uint64_t seq;
  diff_list_t spread, blocks, slowest[IPS_DIFF_MAX_NODES];
  ips_diff_delivery_t *div;  /* the first divergences */
  size_t n_div, max_div;
  diff_groups_t groups;
  int has_block;             /* a block row is open */
  ips_diff_block_t block;
} diff_sums_t;

typedef struct {
  char name[64];
  char *path;
  dev_t dev;
  ino_t ino;
  int regular;
  ips_source_t *src;
  ips_analysis_t *a;
  struct ips_diff_s *d;      /* back, for the callbacks */
  size_t i;
  int eof;
  long long last_crank;      /* the latest crank read; -1: none yet */
  /* Its cranks less the first file's for the same delivery (two runs
   * may number cranks apart): learnt from each delivery joined with
   * another file's, 0 until then.  Cranks are compared less it. */
  long long delta;
  ips_diff_node_t pub;
} diff_node_t;

struct ips_diff_s {
  ips_diff_options_t o;
  size_t n;
  int started;
  diff_node_t node[IPS_DIFF_MAX_NODES];
  diff_window_t w;
  diff_sums_t s;
  ips_diff_delivery_t out;   /* what the window hands out */
};

/* The window (diff_join.c). */
int ips__diff_window_init(diff_window_t *w, size_t n_nodes, size_t max);
void ips__diff_window_free(diff_window_t *w);
/* Node i's delivery (with its block, when known) into the window.
 * Returns 0 or IPS_ENOMEM. */
int ips__diff_join_add(ips_diff_t *d, size_t i, const ips_delivery_t *dv,
                       int has_block, long long block);
/* Hand out each entry at the window's head that is done: every node has
 * it or has gone past it; with all, every entry (the end of input). */
void ips__diff_join_drain(ips_diff_t *d, int all);

/* The operating system's parts (diff_os.c): a side's from its
 * delivery's split; a delivery's os_part (after its fastest and slowest
 * are known); each node's os_over (from add_over); the nodes' largest at
 * the end. */
void ips__diff_os_fill(ips_diff_side_t *sd, const ips_os_split_t *s);
void ips__diff_os_compare(ips_diff_delivery_t *x);
void ips__diff_os_over(ips_diff_t *d, const ips_diff_delivery_t *x);
void ips__diff_os_finish(ips_diff_t *d);

/* The summaries (diff_stats.c). */
int ips__diff_sums_init(diff_sums_t *s, size_t n_nodes,
                        const ips_diff_options_t *o);
void ips__diff_sums_free(diff_sums_t *s);
/* One joined delivery, complete but for its comparison, which this
 * fills in (fastest, slowest, part, diverged, crank_differs) before it
 * counts it and calls the options' callbacks. */
void ips__diff_sums_add(ips_diff_t *d, ips_diff_delivery_t *x);
/* The input is over: the last block row out. */
void ips__diff_sums_finish(ips_diff_t *d);

#endif
