/* ipcstamp-analyze-keepers.h — what an output keeps over a stream of
 * attributed deliveries, with the analysis's own rules: the N slowest
 * (the one keeper: the analysis's slowest list uses it too) and the sums
 * by key.  Included by ipcstamp-analyze.h, whose types and conventions it
 * uses; include that one.  The histograms too: the exact one
 * (percentiles, mean, stddev) and a coarse one for drawing.
 */
#ifndef IPCSTAMP_ANALYZE_KEEPERS_H
#define IPCSTAMP_ANALYZE_KEEPERS_H

#ifndef IPCSTAMP_ANALYZE_H
#error "include <ipcstamp-analyze.h>, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The one keeper of the N slowest deliveries of a stream (the analysis's
 * own list, and any output's), by total: one as slow as the fastest kept
 * does not displace it; a slower one displaces, of the fastest kept, the
 * one of largest order (order: what the caller lists ties by, e.g. the
 * arrival or the line).  The caller keeps its entries in an array of cap
 * slots; the keeper says which slot a delivery goes in.  Its arrays are
 * its own until ips_slowest_free. */
typedef struct ips_slowest_s {
  size_t cap, n;      /* slots; slots used */
  int64_t *total;     /* per slot */
  uint64_t *order;    /* per slot */
  size_t next;        /* n == cap: the slot a slower delivery replaces */
} ips_slowest_t;

/* cap slots (0: keeps none).  Returns 0 or IPS_ENOMEM. */
IPS_EXTERN int ips_slowest_init(ips_slowest_t *k, size_t cap);
/* Where a delivery of this total and order goes: the slot to fill (what
 * the caller kept there is out), or -1 when it is not among the slowest. */
IPS_EXTERN long ips_slowest_slot(ips_slowest_t *k, int64_t total,
                                 uint64_t order);
/* The slots used, slowest first (ties: smaller order first), into
 * slots[0..k->n). */
IPS_EXTERN void ips_slowest_order(const ips_slowest_t *k, size_t *slots);
IPS_EXTERN void ips_slowest_free(ips_slowest_t *k);

/* Deliveries summed by a key, the vat or the method (`report --by`): at
 * most IPS_GROUPS_MAX keys are kept (a hostile file may name a million
 * methods), the deliveries of the others counted in over.  The caller owns
 * the struct; its arrays are its own until ips_groups_free.  Sums saturate
 * rather than wrap: with signed parts (wall clocks) a part of the
 * analysis's checked total may be larger than the whole. */
enum { IPS_GROUP_VAT, IPS_GROUP_METHOD };
#define IPS_GROUPS_MAX 4096

typedef struct ips_group_s {
  char *name;          /* the vat or the method */
  uint64_t n;
  int64_t pipe, worker, kernel, unmatched, total, max;
} ips_group_t;

typedef struct ips_groups_s {
  int by;              /* IPS_GROUP_* */
  ips_group_t *g;
  size_t n, hcap;
  size_t *hash;        /* index + 1 into g; 0 empty */
  uint64_t over;       /* deliveries under keys past IPS_GROUPS_MAX (or
                          when memory ran out) */
  uint64_t saturated;  /* sums held at the bound (ips_sum_add) */
} ips_groups_t;

/* Empty sums by by (IPS_GROUP_*).  Allocates nothing. */
IPS_EXTERN void ips_groups_init(ips_groups_t *g, int by);
/* d into its key's sums (made if there is room; else counted in over). */
IPS_EXTERN void ips_groups_add(ips_groups_t *g, const ips_delivery_t *d);
/* The groups, busiest (largest total) first; *n gets how many.  Owned by
 * g, valid until the next ips_groups_add or ips_groups_free. */
IPS_EXTERN const ips_group_t *ips_groups_sorted(ips_groups_t *g, size_t *n);
/* Frees what g holds; g is then as ips_groups_init left it, by 0. */
IPS_EXTERN void ips_groups_free(ips_groups_t *g);

/* A log-linear histogram of ns values with 3 significant digits: below
 * 2048 every value has its own counter; above, each power of two is split
 * into 1024 counters.  Fixed size (about 430 KiB) whatever the count.
 * The mean and the stddev come from exact integer sums, so that they do not
 * depend on the order the values came in (the rings hand deliveries over
 * in the order their processes wrote them, a slogfile in its own): the
 * same values give the same figures to the last digit. */
#define IPS_HIST_SUB 1024
#define IPS_HIST_N (54 * IPS_HIST_SUB)

typedef struct ips_hist_s {
  uint64_t count;
  uint64_t negative;   /* values below zero, recorded as 0 in c[] */
  int64_t min, max;
  uint64_t sum[2];     /* the sum of the values: 128 bits, two's complement */
  uint64_t sumsq[3];   /* the sum of their squares: 192 bits */
  uint64_t c[IPS_HIST_N];
} ips_hist_t;

/* The caller owns h (allocate it: it is large).  init clears it. */
IPS_EXTERN void ips_hist_init(ips_hist_t *h);
IPS_EXTERN void ips_hist_add(ips_hist_t *h, int64_t v);
/* The value at percentile p (0 < p <= 100): the highest value equivalent to
 * the counter holding the ceil(p% * count)-th smallest value, capped at the
 * largest value recorded.  0 if empty. */
IPS_EXTERN int64_t ips_hist_percentile(const ips_hist_t *h, double p);
/* The mean and the (population) standard deviation of the values
 * recorded, negative ones included; 0 if empty. */
IPS_EXTERN double ips_hist_mean(const ips_hist_t *h);
IPS_EXTERN double ips_hist_stddev(const ips_hist_t *h);
/* Counter index of v, and the lowest and highest value of counter i. */
IPS_EXTERN int ips_hist_index(int64_t v);
IPS_EXTERN int64_t ips_hist_low(int i);
IPS_EXTERN int64_t ips_hist_high(int i);

/* A coarse histogram of ns values for drawing: 4 bins per octave (bin b
 * holds [2^(b/4), 2^((b+1)/4)), the last all above), the values of 0 or
 * less counted apart (no log bin holds them: a 0 is not "1 ns").  2 KiB,
 * fixed, so that a page can keep one per vat and quantity; ips_hist_t is
 * the exact one (percentiles). */
#define IPS_LOGHIST_BINS 256
typedef struct ips_loghist_s {
  uint64_t bin[IPS_LOGHIST_BINS];
  uint64_t zero;                /* values of 0 or less */
} ips_loghist_t;

/* v's bin (0 for v below 1). */
IPS_EXTERN int ips_loghist_bin(int64_t v);
/* Counts v (h zeroed by the caller to start). */
IPS_EXTERN void ips_loghist_add(ips_loghist_t *h, int64_t v);

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_ANALYZE_KEEPERS_H */
