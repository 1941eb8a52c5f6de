/* vat.h — inside the attribution: a vat's state (its statistics and its
 * delivery in progress) and the functions the stages share.  Internal to
 * libipcstamp-analyze.
 *
 * The flow, one file per step:
 *   assemble.c   records -> a vat's delivery in progress (D, its upcalls)
 *   attribute.c  a deliver-result -> an ips_delivery_t, in stages:
 *                validate -> align -> clock and offset -> attribute
 *                (proto/attribution.c, the formula) -> annotate
 *   stats.c      a finished delivery -> the sums, the slowest, the
 *                callback; the skips
 *   vats.c       the vats by name
 */
#ifndef IPCSTAMP_ANALYZE_VAT_H
#define IPCSTAMP_ANALYZE_VAT_H

#include "attribute.h"

/* Per delivery: beyond, the delivery is dropped (its stamps would be more
 * than any side accepts). */
#define IPS__MAX_UPCALLS ((IPS_MAX_STAMPS - 2) / 2)

/* A parent stamp: wall, and mono when the record has it. */
typedef struct {
  int64_t w, m;
  int has_m;
} ips__pst_t;

/* A syscall, or a console line (U = R: its record's time). */
typedef struct {
  ips__pst_t U, R;
  int has_R, console;
  long long snum;
  int64_t Uq;      /* the parent's wait for a CPU at U (runDelayNs), or -1 */
} ips__up_t;

/* A vat: its statistics and its delivery in progress. */
struct ips__vat {
  ips_vat_stats_t s;
  char name[IPS__VAT_MAX];
  size_t name_len;
  int shown;     /* passes the vat filter */
  int open, bad; /* bad: already reported, drop silently until the result */
  int replay;
  int notify;    /* the delivery in progress is a notify */
  long long crank, dnum;
  long line;
  long long pid;   /* the worker's, from its create-vat; 0: unknown */
  long pid_line;   /* that create-vat's line; 0: none seen */
  char desc[IPS__DESC_MAX];
  ips__pst_t D;
  ips__up_t *up;   /* owned; n_up used of cap_up */
  size_t n_up, cap_up;
  /* Best NTP-style estimate per (worker clock, parent clock) pair. */
  int has_est[4];
  int64_t est_off[4], est_delay[4];
};
typedef struct ips__vat ips__vat_t;

/* vats.c: the vat named by the n bytes at name, or NULL; the same, made
 * if new (NULL when out of memory; n < IPS__VAT_MAX). */
ips__vat_t *ips__vat_lookup(ips_analysis_t *a, const char *name, size_t n);
ips__vat_t *ips__vat_find(ips_analysis_t *a, const char *name, size_t n);

/* The record's stamp (its time, or its monotime when it has no time). */
static inline ips__pst_t ips__pstamp(const ips__rec_t *r) {
  ips__pst_t s;
  s.w = r->time_ns;
  s.m = r->mono_ns;
  s.has_m = (r->have & IPS__F_MONO) != 0;
  if (!(r->have & IPS__F_TIME))
    s.w = s.m; /* only monotime: there is no wall clock on this side */
  return s;
}

/* Whether v's delivery in progress is the one r is of. */
static inline int ips__matches(const ips__vat_t *v, const ips__rec_t *r) {
  return v->open && (!(r->have & IPS__F_DNUM) || r->dnum == v->dnum) &&
         (!(r->have & IPS__F_CRANK) || r->crank == v->crank);
}

/* attribute.c: v's deliver-result r, at line. */
void ips__on_result(ips_analysis_t *a, ips__vat_t *v, const ips__rec_t *r,
                    long line);

/* stats.c */
/* Whether a record of v's with no delivery in progress belongs to a
 * delivery that started before the input does (counted in st.cut). */
int ips__cut_at_start(ips_analysis_t *a, const ips__vat_t *v);
/* A skip of v's delivery (NULL: of a line), unless the filters hide it. */
void ips__skip_of(ips_analysis_t *a, const ips__vat_t *v, long line,
                  int reason, const char *detail);
/* Whether v's delivery passes the filters (vat, time, crank, limit). */
int ips__counts(const ips_analysis_t *a, const ips__vat_t *v);
/* A result without worker stamps: counted, not attributed. */
void ips__count_unstamped(ips_analysis_t *a, ips__vat_t *v,
                          const ips__rec_t *r);
/* A delivery attributed: into the sums, the slowest and the callback, if
 * the filters let it through. */
void ips__account(ips_analysis_t *a, ips__vat_t *v, ips_delivery_t *dv);

#endif
