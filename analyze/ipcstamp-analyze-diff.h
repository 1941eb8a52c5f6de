/* ipcstamp-analyze-diff.h — the same deliveries compared across nodes:
 * validators of one chain, or runs of one workload (docs/diff.md).
 *
 * Every node of a chain executes the same deliveries in the same order.
 * A diff reads two or more slogfiles side by side (any source
 * ips_source_open takes: plain, gzip, a flight recorder), each through an
 * analysis of its own, and joins their attributed deliveries by vat,
 * delivery number and replay (the crank and the block height checked
 * where both sides have them).  A joined delivery is checked to be the
 * same delivery on every node: a different method or different computrons
 * is a *divergence*, a consensus danger.  Then each node's time is
 * compared with the fastest node's, part by part.
 *
 * The join is windowed: the files are read in one pass, the node that is
 * behind (by crank) read next, and a delivery is handed out as soon as
 * every node has it or has gone past it (or the window is full), so
 * memory is bounded whatever the files' length.  Results leave through
 * callbacks (each joined delivery, each block) and the summaries below.
 *
 * Conventions, ownership and threads are those of ipcstamp-analyze.h:
 * what a callback receives is the diff's, valid during the call.
 */
#ifndef IPCSTAMP_ANALYZE_DIFF_H
#define IPCSTAMP_ANALYZE_DIFF_H

#include "ipcstamp-analyze.h"
#include "ipcstamp-analyze-os.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most files one diff reads. */
#define IPS_DIFF_MAX_NODES 16
/* The default window: deliveries waiting for the other nodes. */
#define IPS_DIFF_WINDOW 16384u

/* The parts of a delivery's time, as ips_delivery_t splits it. */
enum {
  IPS_DIFF_PIPE, IPS_DIFF_WORKER, IPS_DIFF_KERNEL, IPS_DIFF_UNMATCHED,
  IPS_DIFF_NPARTS
};
/* "pipe", "worker", "kernel", "unmatched"; "-" for -1 (no part: the
 * times are equal); "?" out of range.  Static. */
IPS_EXTERN const char *ips_diff_part_name(int part);

/* The operating system's parts of a delivery, when its node was given a
 * recording (ips_diff_os; docs/os.md): ips_os_split_t's, flat.  The first
 * IPS_DIFF_OS_DELIVERY of them split the delivery's own time (pipe,
 * worker, kernel), the rest the gap before it (before). */
enum {
  IPS_DIFF_OS_PIPE_BEFORE_WRITE, IPS_DIFF_OS_PIPE_WRITE,
  IPS_DIFF_OS_PIPE_IN_PIPE, IPS_DIFF_OS_PIPE_SLEEP,
  IPS_DIFF_OS_PIPE_PAGE_FAULT, IPS_DIFF_OS_PIPE_CPU_WAIT,
  IPS_DIFF_OS_PIPE_READER, IPS_DIFF_OS_PIPE_NOT_MEASURED,
  IPS_DIFF_OS_WORKER, /* + on_cpu, steal, uncharged, cpu_wait, disk,
                         page_fault, sleep, not_measured: 8 of them */
  IPS_DIFF_OS_KERNEL = IPS_DIFF_OS_WORKER + 8,
  IPS_DIFF_OS_DELIVERY = IPS_DIFF_OS_KERNEL + 8,
  IPS_DIFF_OS_BEFORE = IPS_DIFF_OS_DELIVERY,
  IPS_DIFF_OS_NPARTS = IPS_DIFF_OS_BEFORE + 8
};
/* "pipe.before_write", "worker.disk", "kernel.cpu_wait", "before.sleep",
 * ...; "-" for -1; "?" out of range.  Static. */
IPS_EXTERN const char *ips_diff_os_part_name(int part);
/* The same part as report's field: "os_pipe_before_write_ns",
 * "os_worker_disk_ns", ...; NULL out of range.  Static. */
IPS_EXTERN const char *ips_diff_os_part_key(int part);

/* What differs in a divergence (bits). */
#define IPS_DIFF_DIV_COMPUTE 1 /* the computrons (metering compute) */
#define IPS_DIFF_DIV_METHOD 2  /* the method or delivery kind */

/* One node's side of a joined delivery. */
typedef struct ips_diff_side_s {
  int present;            /* the node has it; nothing below otherwise */
  long line;              /* its deliver record's line in that file */
  long long crank;        /* -1: none (a replay) */
  int has_block;          /* read inside a block (a chain node's file) */
  long long block;        /* ... its height (-1: the bootstrap block) */
  int has_compute;
  long long compute;      /* computrons */
  int ok;                 /* the result was "ok" */
  char method[64];        /* as ips_delivery_t.method, cut to fit */
  int64_t total;          /* ns */
  int64_t part[IPS_DIFF_NPARTS];
  int has_os;             /* its node has a recording: os[] below, but */
  int has_os_before;      /* ... the before parts only with a delivery
                             before it */
  int64_t os[IPS_DIFF_OS_NPARTS];
} ips_diff_side_t;

/* One joined delivery: the same vat, delivery number and replay on the
 * nodes that have it.  The key fields are the first present node's. */
typedef struct ips_diff_delivery_s {
  char vat[64];
  long long dnum;
  int replay;
  char method[64];
  long long crank;
  int has_block;
  long long block;
  size_t n_present;       /* nodes that have it */
  int diverged;           /* IPS_DIFF_DIV_* bits; 0: the same delivery */
  int crank_differs;      /* two nodes have it at different cranks */
  size_t fastest, slowest;/* nodes, among the present, by total */
  int part;               /* IPS_DIFF_*: the part of the slowest node's
                             time over the fastest's that is largest; -1
                             when no part of it is over the fastest's */
  int os_part;            /* IPS_DIFF_OS_* below IPS_DIFF_OS_DELIVERY: the
                             same among the operating system's parts, when
                             both nodes have them; -1 otherwise */
  int64_t os_part_ns;     /* ... by this much */
  ips_diff_side_t side[IPS_DIFF_MAX_NODES]; /* [n_nodes] are used */
} ips_diff_delivery_t;

/* One block of the chain (height), over its deliveries every node has:
 * each node's sums. */
typedef struct ips_diff_block_s {
  long long height;       /* -1: the bootstrap block */
  uint64_t n;             /* deliveries every node has */
  int64_t total[IPS_DIFF_MAX_NODES];
  int64_t part[IPS_DIFF_MAX_NODES][IPS_DIFF_NPARTS];
  size_t fastest, slowest;
  int part_max;           /* IPS_DIFF_*: where the slowest lost most (-1:
                             nowhere) */
  int diverged;           /* a divergence in the block */
} ips_diff_block_t;

typedef void (*ips_diff_delivery_cb)(void *arg, const ips_diff_delivery_t *d);
typedef void (*ips_diff_block_cb)(void *arg, const ips_diff_block_t *b);
/* A line or delivery a node's analysis skipped (ipcstamp-analyze.h). */
typedef void (*ips_diff_skip_cb)(void *arg, size_t node, const ips_skip_t *s);

/* What the groups are made by (ips_diff_group_t). */
enum { IPS_DIFF_BY_VAT_METHOD, IPS_DIFF_BY_VAT, IPS_DIFF_BY_METHOD };

typedef struct ips_diff_options_s {
  ips_source_options_t src; /* each file's (follow is refused) */
  int clock;                /* IPS_CLOCK_* */
  size_t window;            /* 0: IPS_DIFF_WINDOW; at least 16 */
  size_t top;               /* each kept list's length (default 10) */
  size_t divergences;       /* divergences kept (default 100; all are
                               counted) */
  int by;                   /* IPS_DIFF_BY_*: the groups' key */
  ips_diff_delivery_cb on_delivery; /* every joined delivery, in order */
  ips_diff_block_cb on_block;       /* every block, in order */
  ips_diff_skip_cb on_skip;
  void *arg;
} ips_diff_options_t;

/* Fill *o with the defaults. */
IPS_EXTERN void ips_diff_options_init(ips_diff_options_t *o);

typedef struct ips_diff_s ips_diff_t;

/* A diff of no file yet; *out is the caller's until ips_diff_free().
 * Returns 0, IPS_EINVAL or IPS_ENOMEM. */
IPS_EXTERN int ips_diff_new(ips_diff_t **out, const ips_diff_options_t *o);

/* Add the file at path as the next node, named name (copied; path "-" is
 * standard input, once).  Returns 0; IPS_EINVAL when the diff already has
 * IPS_DIFF_MAX_NODES files, has started reading, the name is taken, or
 * path is the same file as an earlier node's (the same device and inode,
 * or "-" twice: a file given twice); or the source's error (the file cannot be read).
 * The message, path included, is in err. */
IPS_EXTERN int ips_diff_add(ips_diff_t *d, const char *name, const char *path,
                            char *err, size_t errlen);

/* Joins the recording os (of `ipcstamp record`, docs/os.md) with node's
 * file: each of its deliveries then carries its OS parts (has_os, os[]),
 * and the comparisons take them.  The diff owns os from this call on, also
 * when it fails.  Before ips_diff_run.  Returns 0, or IPS_EINVAL (no such
 * node, a recording given already, the files read already) or
 * IPS_ENOMEM. */
IPS_EXTERN int ips_diff_os(ips_diff_t *d, size_t node, ips_os_t *os);

/* Read every file to its end, joining as it goes; the callbacks run from
 * inside.  At least two files.  Returns 0, or IPS_EIO when a file cannot
 * be read further (a read error, a damaged gzip stream: the message says
 * which file and line); what was read before is joined and counted. */
IPS_EXTERN int ips_diff_run(ips_diff_t *d, char *err, size_t errlen);

/* One node's figures.  The sums are over the deliveries every node has
 * (common), so that they compare. */
typedef struct ips_diff_node_s {
  const char *name, *path;  /* the diff's */
  const ips_stats_t *stats; /* its analysis's: lines, skips */
  uint64_t deliveries;      /* attributed deliveries read */
  uint64_t common;          /* ... that every node has */
  uint64_t only_here;       /* ... that some other node lacks */
  uint64_t missing;         /* deliveries other nodes have and it lacks */
  uint64_t slowest;         /* common deliveries on which it was slowest
                               (and slower than the fastest) */
  int64_t total, part[IPS_DIFF_NPARTS];
  /* Over the deliveries it has with another node: its time over the
   * fastest node's, part by part (never below 0 per delivery). */
  int64_t over, over_part[IPS_DIFF_NPARTS];
  int part_max;             /* IPS_DIFF_*: the largest of over_part */
  /* Where it is slow beyond its own ratio: of the groups (below) of at
   * least 3 deliveries, the one where it lost the most time beyond what
   * its ratio over all (its total over the fastest node's) explains: its
   * total there less that ratio times the group's fastest total.  A cause
   * of its own (one vat's slow worker) rather than what slows everything
   * on it (a busy machine).  beyond_ns 0 and "" when there is none. */
  char beyond_vat[64], beyond_method[64];
  int64_t beyond_ns;        /* that time */
  double beyond_factor;     /* its ratio there over its ratio over all */
  double beyond_ratio;      /* its total over the fastest's, in the group */
  int beyond_part;          /* IPS_DIFF_*: where it lost most there */
  /* With a recording (ips_diff_os), over the deliveries it has with
   * another node and both have their OS parts (os_deliveries): its time
   * over the fastest node's, OS part by part (never below 0 per
   * delivery); the before parts over the node whose gap before the
   * delivery was shortest.  os_part_max: the largest of the delivery's
   * parts, os_before_max of the before parts (-1: none over). */
  uint64_t os_deliveries;
  int64_t os_over[IPS_DIFF_OS_NPARTS];
  int os_part_max, os_before_max;
} ips_diff_node_t;

/* The whole diff's counts. */
typedef struct ips_diff_stats_s {
  size_t n_nodes;
  uint64_t joined;          /* deliveries, joined or not */
  uint64_t common;          /* on every node */
  uint64_t partial;         /* on more than one node, not all */
  uint64_t single;          /* on one node only */
  uint64_t agree;           /* on more than one node, the same delivery
                               on each (no divergence) */
  uint64_t divergences;     /* IPS_DIFF_DIV_*, every one */
  uint64_t crank_differs;
  uint64_t window_full;     /* handed out before a node reached them */
  uint64_t blocks;
  uint64_t saturated;       /* adds to the nodes' and groups' sums held at
                               the bound (ips_sum_add): 0 on real files */
} ips_diff_stats_t;

/* Per vat and method (or per vat, or per method: the option by; the
 * other is ""), over the common deliveries. */
typedef struct ips_diff_group_s {
  char vat[64], method[64];
  uint64_t n;
  int64_t total[IPS_DIFF_MAX_NODES];
  int64_t part[IPS_DIFF_MAX_NODES][IPS_DIFF_NPARTS];
  size_t fastest, slowest;
  int part_max;
} ips_diff_group_t;
/* Groups kept; the deliveries of the others are counted in
 * ips_diff_groups_over(). */
#define IPS_DIFF_MAX_GROUPS 4096u

IPS_EXTERN const ips_diff_stats_t *ips_diff_stats(const ips_diff_t *d);
IPS_EXTERN const ips_diff_node_t *ips_diff_node(const ips_diff_t *d,
                                                size_t i);
/* The groups, busiest (by the sum of the slowest node's total) first. */
IPS_EXTERN size_t ips_diff_ngroups(ips_diff_t *d);
IPS_EXTERN const ips_diff_group_t *ips_diff_group(const ips_diff_t *d,
                                                  size_t i);
IPS_EXTERN uint64_t ips_diff_groups_over(const ips_diff_t *d);

/* The kept lists, each at most the option top long, largest first, in
 * the diff's memory (valid until the next call that asks for the same
 * list): the deliveries and the blocks by the slowest node's total less
 * the fastest's. */
IPS_EXTERN size_t ips_diff_spread(ips_diff_t *d,
                                  const ips_diff_delivery_t **out);
IPS_EXTERN size_t ips_diff_blocks_spread(ips_diff_t *d,
                                         const ips_diff_block_t **out);
/* The deliveries on which node was slowest by most over the fastest. */
IPS_EXTERN size_t ips_diff_node_slowest(ips_diff_t *d, size_t node,
                                        const ips_diff_delivery_t **out);
/* The first divergences (at most the option divergences), in order. */
IPS_EXTERN size_t ips_diff_divergences(const ips_diff_t *d,
                                       const ips_diff_delivery_t **out);

/* Free the diff, its files closed.  NULL is ignored. */
IPS_EXTERN void ips_diff_free(ips_diff_t *d);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_DIFF_H */
