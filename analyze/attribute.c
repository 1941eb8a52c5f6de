/* attribute.c — assemble deliveries and attribute their time
 * (docs/analyze.md), keeping the statistics as they go. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "marks.h"

/* Per delivery: beyond, the delivery is dropped (its stamps would be more
 * than any side accepts). */
#define MAX_UPCALLS ((IPS_MAX_STAMPS - 2) / 2)

typedef struct {
  int64_t w, m;
  int has_m;
} pst_t;

typedef struct {
  pst_t U, R;
  int has_R, console;
  long long snum;
} up_t; /* a syscall, or a console line (U = R: its record's time) */

/* A vat: its statistics and its delivery in progress. */
struct ips__vat {
  ips_vat_stats_t s;
  char name[IPS__VAT_MAX];
  size_t name_len;
  int shown;     /* passes the vat filter */
  int open, bad; /* bad: already reported, drop silently until the result */
  int replay;
  long long crank, dnum;
  long line;
  long long pid;   /* the worker's, from its create-vat; 0: unknown */
  long pid_line;   /* that create-vat's line; 0: none seen */
  char desc[IPS__DESC_MAX];
  pst_t D;
  up_t *up;
  size_t n_up, cap_up;
  /* Best NTP-style estimate per (worker clock, parent clock) pair. */
  int has_est[4];
  int64_t est_off[4], est_delay[4];
};
typedef struct ips__vat vat_state_t;

static const char *const skip_msgs[] = {
#define XX(name, msg) msg,
    IPS_SKIP_MAP(XX)
#undef XX
};

static const char *const skip_names[] = {
#define XX(name, msg) #name,
    IPS_SKIP_MAP(XX)
#undef XX
};

const char *ips_skip_name(int reason) {
  return reason >= 0 && reason < IPS_SKIP_N ? skip_names[reason] : "?";
}

const char *ips_skip_message(int reason) {
  return reason >= 0 && reason < IPS_SKIP_N ? skip_msgs[reason] : "?";
}

void ips__skip(ips_analysis_t *a, const char *vat, long line, int reason,
               const char *detail) {
  ips_skip_t sk;
  if (a->blocks && reason >= IPS_SKIP_ORPHAN)
    ips__blocks_skipped(a->blocks); /* its block says its time is unsplit */
  /* A delivery of a vat the filter hides is nobody's business; a bad line
   * may have been anybody's, so it always counts. */
  if (vat && a->vat_filter && strcmp(vat, a->vat_filter))
    return;
  a->st.skipped[reason]++;
  if (reason <= IPS_SKIP_TOO_LONG)
    a->st.skipped_lines++;
  else
    a->st.skipped_deliveries++;
  if (a->o.on_skip) {
    sk.reason = reason;
    sk.line = line;
    sk.detail = detail ? detail : "";
    a->o.on_skip(a->o.arg, &sk);
  }
}

void ips__attr_free(ips_analysis_t *a) {
  size_t i;
  for (i = 0; i < a->nvats; i++) {
    free(a->vats[i]->up);
    free(a->vats[i]);
  }
  free(a->vats);
  free(a->hash);
  free(a->P);
  free(a->W);
  ips__marks_free(a);
  ips__blocks_free(a->blocks);
}

size_t ips_analysis_nvats(const ips_analysis_t *a) { return a->nvats; }
const ips_vat_stats_t *ips_analysis_vat(const ips_analysis_t *a, size_t i) {
  return i < a->nvats ? &a->vats[i]->s : NULL;
}

/* FNV-1a: vat names are short and few. */
static size_t hash_str(const char *s, size_t n) {
  size_t h = 1469598103934665603ull;
  while (n--)
    h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

/* Whether v is the vat named by the n bytes at name.  A loop, not
 * strcmp: names are a few bytes, and strcmp's call was a tenth of the
 * attribution. */
static int is_vat(const vat_state_t *v, const char *name, size_t n) {
  size_t i;
  if (v->name_len != n)
    return 0;
  for (i = 0; i < n; i++)
    if (v->name[i] != name[i])
      return 0;
  return 1;
}

/* The vat's state; hash slots hold index + 1 so zero means empty.  Most
 * records are of the vat the record before was of (a delivery's syscalls
 * and results): that one is tried first. */
static vat_state_t *lookup_vat(ips_analysis_t *a, const char *name,
                               size_t n) {
  size_t m, i;
  if (a->last_vat && is_vat(a->last_vat, name, n))
    return a->last_vat;
  m = a->hcap - 1;
  i = hash_str(name, n) & m;
  while (a->hash[i]) {
    vat_state_t *v = a->vats[a->hash[i] - 1];
    if (is_vat(v, name, n))
      return a->last_vat = v;
    i = (i + 1) & m;
  }
  return NULL;
}

/* The vat named by the record, made if it is new (NULL when out of
 * memory). */
static vat_state_t *find_vat(ips_analysis_t *a, const ips__rec_t *r) {
  const char *name = r->vat;
  size_t n = r->vat_len, m, i;
  vat_state_t *v = lookup_vat(a, name, n);
  if (v)
    return v;
  m = a->hcap - 1;
  i = hash_str(name, n) & m;
  while (a->hash[i])
    i = (i + 1) & m;
  if (a->nvats == a->capvats) {
    size_t nc = a->capvats ? a->capvats * 2 : 16;
    vat_state_t **nv = realloc(a->vats, nc * sizeof *nv);
    if (!nv)
      return NULL;
    a->vats = nv;
    a->capvats = nc;
  }
  if ((a->nvats + 1) * 2 > a->hcap) {
    size_t j, nh = a->hcap * 2;
    size_t *h = calloc(nh, sizeof *h);
    if (!h)
      return NULL;
    for (j = 0; j < a->nvats; j++) {
      size_t k = hash_str(a->vats[j]->name, a->vats[j]->name_len) & (nh - 1);
      while (h[k])
        k = (k + 1) & (nh - 1);
      h[k] = j + 1;
    }
    free(a->hash);
    a->hash = h;
    a->hcap = nh;
    m = nh - 1;
    i = hash_str(name, n) & m;
    while (a->hash[i])
      i = (i + 1) & m;
  }
  v = calloc(1, sizeof *v);
  if (!v)
    return NULL;
  memcpy(v->name, name, n); /* n < IPS__VAT_MAX: the record's bound */
  v->name[n] = '\0';
  v->name_len = n;
  v->s.vat = v->name;
  v->shown = !a->vat_filter || !strcmp(a->vat_filter, v->name);
  a->vats[a->nvats++] = v;
  a->hash[i] = a->nvats;
  return a->last_vat = v;
}

/* Whether the delivery in progress of v passes the time and crank
 * filters (the vat filter is v->shown). */
static int in_window(const ips_analysis_t *a, const vat_state_t *v) {
  const ips_stats_t *st = &a->st;
  int64_t t;
  /* A replayed delivery has no crank (-1): outside any crank window, but
   * shown when there is none. */
  if (v->crank < 0 ? a->o.crank_min > 0 || a->o.crank_max > 0
                   : v->crank < a->o.crank_min ||
                         (a->o.crank_max && v->crank > a->o.crank_max))
    return 0;
  if (!a->o.since_ns && !a->o.until_ns)
    return 1;
  /* On the clock the trace and the report measure from. */
  if (v->D.has_m && st->first_mono_ok)
    t = v->D.m - st->first_mono;
  else if (st->first_time_ok)
    t = v->D.w - st->first_time;
  else
    return 1;
  return t >= a->o.since_ns && (!a->o.until_ns || t < a->o.until_ns);
}

static void skip(ips_analysis_t *a, const vat_state_t *v, long line,
                 int reason, const char *detail) {
  if (v && (!in_window(a, v) || (a->o.limit && a->shown >= a->o.limit)))
    return;
  ips__skip(a, v ? v->name : NULL, line, reason, detail);
}

static pst_t pstamp(const ips__rec_t *r) {
  pst_t s;
  s.w = r->time_ns;
  s.m = r->mono_ns;
  s.has_m = (r->have & IPS__F_MONO) != 0;
  if (!(r->have & IPS__F_TIME))
    s.w = s.m; /* only monotime: there is no wall clock on this side */
  return s;
}

/* The previous delivery of this vat never got its result. */
static void drop_open(ips_analysis_t *a, vat_state_t *v, const char *why) {
  if (v->open && !v->bad)
    skip(a, v, v->line, IPS_SKIP_UNFINISHED, why);
  v->open = 0;
  v->bad = 0;
  v->n_up = 0;
}

static void on_deliver(ips_analysis_t *a, vat_state_t *v, const ips__rec_t *r,
                       long line) {
  size_t n;
  /* The reason is made only when there is something to say: formatting it
   * for every delivery was 3% of a report's time on the caller's thread. */
  if (v->open && !v->bad) {
    char why[200];
    snprintf(why, sizeof why, "line %ld starts another delivery of %s", line,
             v->name);
    drop_open(a, v, why);
  } else {
    drop_open(a, v, NULL);
  }
  v->open = 1;
  /* A replayed delivery has no crank: never the last record's. */
  v->crank = (r->have & IPS__F_CRANK) ? r->crank : -1;
  v->replay = (r->have & IPS__F_REPLAY) != 0;
  v->dnum = r->dnum;
  v->line = line;
  v->D = pstamp(r);
  /* Both are IPS__DESC_MAX bytes and r->desc is NUL-terminated in its. */
  n = strlen(r->desc);
  if (n)
    memcpy(v->desc, r->desc, n + 1);
  else
    memcpy(v->desc, "?", 2);
}

static int matches(const vat_state_t *v, const ips__rec_t *r) {
  return v->open && (!(r->have & IPS__F_DNUM) || r->dnum == v->dnum) &&
         (!(r->have & IPS__F_CRANK) || r->crank == v->crank);
}

/* The next upcall of v's delivery: a syscall (its result comes later) or
 * a console line (the kernel's record is both its arrival and its
 * answer). */
static void add_upcall(ips_analysis_t *a, vat_state_t *v, const ips__rec_t *r,
                       long line, int console) {
  char d[200];
  up_t *u;
  if (v->n_up > 0 && !v->up[v->n_up - 1].has_R) {
    snprintf(d, sizeof d, "%s at line %ld before the result of the last",
             console ? "console" : "syscall", line);
    skip(a, v, v->line, IPS_SKIP_STAMPS, d);
    v->bad = 1;
    return;
  }
  if (v->n_up == MAX_UPCALLS) {
    skip(a, v, v->line, IPS_SKIP_STAMPS, "more than 2^19 upcalls");
    v->bad = 1;
    return;
  }
  if (v->n_up == v->cap_up) {
    size_t nc = v->cap_up ? v->cap_up * 2 : 16;
    up_t *nu = realloc(v->up, nc * sizeof *nu);
    if (!nu) {
      skip(a, v, v->line, IPS_SKIP_STAMPS, "out of memory");
      v->bad = 1;
      return;
    }
    v->up = nu;
    v->cap_up = nc;
  }
  u = &v->up[v->n_up++];
  u->U = pstamp(r);
  u->R = u->U;
  u->has_R = console;
  u->console = console;
  u->snum = !console && (r->have & IPS__F_SNUM) ? r->snum : -1;
}

static void on_syscall(ips_analysis_t *a, vat_state_t *v, const ips__rec_t *r,
                       long line, int is_result) {
  char d[200];
  up_t *u;
  if (!matches(v, r)) {
    snprintf(d, sizeof d, "%s of %s (no delivery in progress)",
             is_result ? "syscall-result" : "syscall", v->name);
    skip(a, v, line, IPS_SKIP_ORPHAN, d);
    return;
  }
  if (v->bad)
    return;
  if (!is_result) {
    add_upcall(a, v, r, line, 0);
    return;
  }
  if (v->n_up == 0 || v->up[v->n_up - 1].has_R ||
      ((r->have & IPS__F_SNUM) && v->up[v->n_up - 1].snum >= 0 &&
       v->up[v->n_up - 1].snum != r->snum)) {
    snprintf(d, sizeof d, "syscall-result of %s has no pending syscall",
             v->name);
    skip(a, v, line, IPS_SKIP_ORPHAN, d);
    return;
  }
  u = &v->up[v->n_up - 1];
  u->R = pstamp(r);
  u->has_R = 1;
}

static int64_t iabs(int64_t x) { return x < 0 ? -x : x; }

static int in_range(int64_t v) { return v >= 0 && v < IPS_STAMP_LIMIT; }
static int pst_in_range(const pst_t *s) {
  return in_range(s->w) && (!s->has_m || in_range(s->m));
}

/* The first stamp of the delivery that is out of range, as text for the
 * skip (NULL when all are in range). */
static const char *out_of_range(const vat_state_t *v, size_t nrec,
                                const pst_t *E, const ips__rec_t *r,
                                size_t k) {
  size_t i;
  if (!pst_in_range(&v->D))
    return "the deliver record's time or monotime";
  for (i = 0; i < nrec; i++)
    if (!pst_in_range(&v->up[i].U) || !pst_in_range(&v->up[i].R))
      return "a syscall record's time or monotime";
  if (!pst_in_range(E))
    return "the deliver-result record's time or monotime";
  for (i = 0; i < k; i++)
    if (((r->have & IPS__F_WALLS) && !in_range(r->walls[i])) ||
        ((r->have & IPS__F_WMONO) && !in_range(r->wmono[i])))
      return "a worker stamp in the metering";
  if ((r->have & IPS__F_CPU) && !in_range(r->cpu_ns))
    return "the metering's cpu_ns";
  return NULL;
}

/* a += b, unless that overflows: then 1. */
static int add_ovf(int64_t *a, int64_t b) {
  return __builtin_add_overflow(*a, b, a);
}

/* Whether adding d to t keeps every sum in range. */
static int totals_fit(const ips_totals_t *t, const ips_delivery_t *d) {
  int64_t x;
  return !__builtin_add_overflow(t->pipe, d->pipe, &x) &&
         !__builtin_add_overflow(t->worker, d->worker, &x) &&
         !__builtin_add_overflow(t->kernel, d->kernel, &x) &&
         !__builtin_add_overflow(t->total, d->total, &x) &&
         !__builtin_add_overflow(t->unmatched, d->unmatched, &x) &&
         !__builtin_add_overflow(t->cpu, d->cpu_ns, &x) &&
         !__builtin_add_overflow(t->offcpu, d->offcpu_ns, &x) &&
         !__builtin_add_overflow(t->cpu_worker, d->worker, &x) &&
         !__builtin_add_overflow(t->gap, d->gap_ns, &x);
}

/* The same for the heap snapshots' sums, which are the input's only. */
static int snaps_fit(const ips_stats_t *st, const ips_delivery_t *d) {
  int64_t x;
  return !__builtin_add_overflow(st->snap_save, d->snap_save_ns, &x) &&
         !__builtin_add_overflow(st->snap_load, d->snap_load_ns, &x);
}

/* NTP-style offset (worker - parent) from the round trips of this delivery,
 * kept per vat when it beats the best so far (smallest delay). */
static void estimate(vat_state_t *v, int slot, const int64_t *P, const int64_t *W,
                     size_t n, size_t first, int64_t *off, int64_t *bound) {
  size_t last = 1 + 2 * n, i;
  int64_t bo = 0, bd = 0;
  int have = 0;
  /* first 1: the delivery's own round trip is unknown (no e) */
  for (i = first; i <= n; i++) {
    int64_t o, dl;
    if (i == 0) { /* the delivery: D -> d ... e -> E */
      o = ((W[0] - P[0]) + (W[last] - P[last])) / 2;
      dl = (P[last] - P[0]) - (W[last] - W[0]);
    } else { /* an upcall, the other way: u -> U ... R -> r */
      size_t j = 2 * i - 1;
      o = ((W[j] - P[j]) + (W[j + 1] - P[j + 1])) / 2;
      dl = (W[j + 1] - W[j]) - (P[j + 1] - P[j]);
    }
    if (dl < 0 && have)
      continue;
    if (!have || dl < bd || bd < 0) {
      bo = o;
      bd = dl;
      have = 1;
    }
  }
  if (!v->has_est[slot] || (bd >= 0 && (bd < v->est_delay[slot] ||
                                        v->est_delay[slot] < 0))) {
    v->has_est[slot] = 1;
    v->est_off[slot] = bo;
    v->est_delay[slot] = bd;
  }
  *off = v->est_off[slot];
  *bound = v->est_delay[slot] / 2;
}

/* One place adds a delivery to a set's sums: a vat's and the whole
 * input's. */
static void add_totals(ips_totals_t *t, const ips_delivery_t *d) {
  t->n++;
  if (d->clock == 'm')
    t->n_mono++;
  else
    t->n_wall++;
  t->pipe += d->pipe;
  t->worker += d->worker;
  t->kernel += d->kernel;
  t->total += d->total;
  if (d->has_cpu) {
    t->n_cpu++;
    t->cpu += d->cpu_ns;
    t->offcpu += d->offcpu_ns;
    t->cpu_worker += d->worker;
  }
  if (d->has_gap) {
    t->n_gap++;
    t->gap += d->gap_ns;
  }
  if (d->quake)
    t->n_quake++;
  if (d->replay)
    t->n_replay++;
  if (d->n_unmatched) {
    t->n_unmatched++;
    t->unmatched += d->unmatched;
  }
  if (d->truncated)
    t->n_truncated++;
  if (!d->ok)
    t->n_error++;
}

/* The slowest deliveries, kept sorted by insertion; ties keep file order. */
static void keep_slow(ips_analysis_t *a, const ips_delivery_t *d) {
  size_t i, top = a->o.top;
  ips_slow_t *s;
  if (top == 0)
    return;
  if (a->nslow == top && a->slow[a->nslow - 1].total >= d->total)
    return;
  i = a->nslow < top ? a->nslow++ : a->nslow - 1;
  while (i > 0 && a->slow[i - 1].total < d->total) {
    a->slow[i] = a->slow[i - 1];
    i--;
  }
  s = &a->slow[i];
  snprintf(s->vat, sizeof s->vat, "%s", d->vat);
  snprintf(s->desc, sizeof s->desc, "%s", d->desc);
  s->crank = d->crank;
  s->dnum = d->dnum;
  s->line = d->line;
  s->pipe = d->pipe;
  s->worker = d->worker;
  s->kernel = d->kernel;
  s->total = d->total;
}

const ips_slow_t *ips_analysis_slowest(const ips_analysis_t *a, size_t *n) {
  *n = a->nslow;
  return a->slow;
}

/* A result without worker stamps (dr[2] null): a local vat's delivery, or a
 * worker's error with no metering.  Counted, not skipped: nothing in the
 * file is wrong. */
static void count_unstamped(ips_analysis_t *a, vat_state_t *v,
                            const ips__rec_t *r) {
  if (!v->shown || !in_window(a, v) || (a->o.limit && a->shown >= a->o.limit))
    return;
  if (r->ok) {
    v->s.t.n_local++;
    a->st.all.n_local++;
  } else {
    v->s.t.n_error++;
    a->st.all.n_error++;
  }
}

static void on_result(ips_analysis_t *a, vat_state_t *v, const ips__rec_t *r,
                      long line) {
  size_t n, k, i, last, nrec, nw, m = 0;
  int have_pm, have_ww, have_wm, causal = 0, slot, ovf, unmatched = 0;
  int truncated = 0;
  int kovf = 0, mk_wall = 0;
  int64_t dv_kernel = 0, mk_off = 0;
  char d[160];
  int64_t *P = a->P, *W = a->W;
  pst_t E = pstamp(r);
  const int64_t *wsrc;
  ips_delivery_t dv;
  if (!matches(v, r)) {
    snprintf(d, sizeof d, "deliver-result of %s (no delivery in progress)",
             v->name);
    skip(a, v, line, IPS_SKIP_ORPHAN, d);
    return;
  }
  v->open = 0;
  if (v->bad) {
    v->bad = 0;
    v->n_up = 0;
    return;
  }
  n = nrec = v->n_up;
  v->n_up = 0;
  if (n > 0 && !v->up[n - 1].has_R) {
    skip(a, v, v->line, IPS_SKIP_STAMPS, "the last syscall has no result");
    return;
  }
  if (r->have & IPS__F_DRNULL) {
    count_unstamped(a, v, r);
    return;
  }
  if (!(r->have & IPS__F_METER)) {
    skip(a, v, v->line, IPS_SKIP_NOSTAMPS, "dr has no metering object");
    return;
  }
  /* v2 is v1 plus marks (issue 14). */
  if ((r->have & IPS__F_IPSV) &&
      (r->ipsv < 1 || r->ipsv > IPS_METERING_VERSION_MAX)) {
    snprintf(d, sizeof d, "ipcstamp.v %ld at line %ld (this reader knows 1 to %d)",
             r->ipsv, line, IPS_METERING_VERSION_MAX);
    skip(a, v, v->line, IPS_SKIP_VERSION, d);
    return;
  }
  if (r->dropped > 0) {
    snprintf(d, sizeof d, "%lld stamps dropped, see line %ld", r->dropped,
             line);
    skip(a, v, v->line, IPS_SKIP_DROPPED, d);
    return;
  }
  k = 2 + 2 * n;
  have_ww = (r->have & IPS__F_WALLS) != 0;
  have_wm = (r->have & IPS__F_WMONO) != 0;
  if (!have_ww && !have_wm) {
    skip(a, v, v->line, IPS_SKIP_NOSTAMPS, "metering has neither timestamps nor ipcstamp.mono");
    return;
  }
  nw = have_wm ? r->n_wmono : r->n_walls;
  if (nw != k) {
    /* A worker whose console lines are not upcalls (its stamps count the
     * syscalls alone): the console records are not its upcalls. */
    size_t j = 0;
    for (i = 0; i < nrec; i++)
      j += !v->up[i].console;
    if (j < nrec && nw == 2 + 2 * j) {
      a->st.other += nrec - j; /* records of nothing we attribute */
      for (i = j = 0; i < nrec; i++)
        if (!v->up[i].console)
          v->up[j++] = v->up[i];
      n = nrec = j;
      k = nw;
    }
  }
  /* More worker upcalls than records.  Replayed, the worker logs its
   * console lines as it did live, but the kernel writes no record of them;
   * live, a vat's testLog (SwingSet's bootstrap vats log so) is a worker
   * call the kernel answers and never records.  Such a delivery is split
   * as a replayed one is.  (At exactly xsnap's 502 stamps its last stamp
   * may not be the end: then only a replay, as before.) */
  if ((v->replay || nw != IPS__XSNAP_MAX_STAMPS || (r->have & IPS__F_KINDS)) &&
      nw > k && nw % 2 == 0 && (!have_ww || r->n_walls == nw) &&
      (!(r->have & IPS__F_KINDS) || r->n_kinds == nw)) {
    unmatched = 1;
    n = (nw - 2) / 2;
    k = nw;
  }
  /* xsnap keeps at most IPS__XSNAP_MAX_STAMPS stamps (its MAX_TIMESTAMPS)
   * and drops the rest without a word, e included: its first m upcalls are
   * stamped, the rest of the delivery is known from the kernel's records
   * only. */
  if (!unmatched && have_ww && !have_wm && !(r->have & IPS__F_KINDS) &&
      nw == IPS__XSNAP_MAX_STAMPS && nw < k) {
    truncated = 1;
    m = (nw - 1) / 2;
  }
  if (truncated) {
    /* checked above: the stamps are the prefix xsnap keeps */
  } else if ((have_ww && r->n_walls != k) || (have_wm && r->n_wmono != k) ||
             ((r->have & IPS__F_KINDS) && r->n_kinds != k)) {
    snprintf(d, sizeof d,
             "%zu syscalls need %zu stamps; the metering at line %ld has %zu",
             n, k, line, have_wm ? r->n_wmono : r->n_walls);
    skip(a, v, v->line, IPS_SKIP_STAMPS, d);
    return;
  }
  if (r->have & IPS__F_KINDS) {
    for (i = 0; i < k; i++) {
      char want = i == 0 ? 'd' : i == k - 1 ? 'e' : (i & 1) ? 'u' : 'r';
      if (r->kinds[i] != want) {
        snprintf(d, sizeof d, "ipcstamp.kinds \"%.40s\" at line %ld", r->kinds,
                 line);
        skip(a, v, v->line, IPS_SKIP_STAMPS, d);
        return;
      }
    }
  }
  {
    const char *bad = out_of_range(v, nrec, &E, r, truncated ? nw : k);
    if (bad) {
      snprintf(d, sizeof d, "%s is not in [0, 2^62) ns", bad);
      skip(a, v, v->line, IPS_SKIP_RANGE, d);
      return;
    }
  }
  have_pm = v->D.has_m && E.has_m;
  for (i = 0; i < nrec; i++)
    have_pm = have_pm && v->up[i].U.has_m && v->up[i].R.has_m;
  /* Parent stamps in its mono clock if it has one (never jumps). */
  if (a->o.clock == IPS_CLOCK_WALL)
    have_pm = 0;
  last = k - 1;
#define PS(s) (have_pm ? (s).m : (s).w)
  P[0] = PS(v->D);
  for (i = 0; i < nrec && !unmatched; i++) {
    P[1 + 2 * i] = PS(v->up[i].U);
    P[2 + 2 * i] = PS(v->up[i].R);
  }
  P[last] = PS(E);
  /* Unmatched, the kernel's side is known only as a sum. */
  for (i = 0; i < nrec && unmatched && !kovf; i++)
    kovf = add_ovf(&dv_kernel, PS(v->up[i].R) - PS(v->up[i].U));
#undef PS
  if (have_pm && have_wm) {
    causal = 1;
    for (i = 0; i < k && causal; i++) {
      int64_t p = P[i], w = r->wmono[i];
      if (unmatched && i != 0 && i != last) { /* only D and E to compare */
        if (r->wmono[i] < r->wmono[i - 1])
          causal = 0;
        continue;
      }
      /* parent sends D, R; the worker sends u, e: the receiver stamps last */
      if ((i == 0 || (i % 2 == 0 && i != last)) ? w < p : p < w)
        causal = 0;
      if (i > 0 && r->wmono[i] < r->wmono[i - 1])
        causal = 0;
    }
  }
  memset(&dv, 0, sizeof dv);
  if (a->o.clock == IPS_CLOCK_MONO) {
    if (!have_pm || !have_wm) {
      skip(a, v, v->line, IPS_SKIP_CLOCK,
           have_wm ? "the parent has no monotime" : "the worker has no ipcstamp.mono");
      return;
    }
    causal = 1;
  } else if (a->o.clock == IPS_CLOCK_WALL && !have_ww) {
    skip(a, v, v->line, IPS_SKIP_CLOCK, "the worker has no wall timestamps");
    return;
  }
  if (causal) {
    memcpy(W, r->wmono, k * sizeof *W);
    dv.clock = 'm';
  } else {
    int64_t off, bound;
    wsrc = have_ww && a->o.clock != IPS_CLOCK_MONO ? r->walls : r->wmono;
    slot = (wsrc == r->walls ? 0 : 2) + (have_pm ? 1 : 0);
    if (unmatched) { /* the delivery's own round trip only */
      int64_t p2[2] = {P[0], P[last]}, w2[2] = {wsrc[0], wsrc[last]};
      estimate(v, slot, p2, w2, 0, 0, &off, &bound);
    } else if (truncated) { /* its stamped upcalls' round trips */
      estimate(v, slot, P, wsrc, m, 1, &off, &bound);
    } else {
      estimate(v, slot, P, wsrc, n, 0, &off, &bound);
    }
    for (i = 0; i < k; i++) {
      /* Truncated, W mirrors P where the worker has no stamp. */
      W[i] = truncated && (i > 2 * m || i == last) ? P[i]
                                                    : wsrc[i] - off; /* both in range */
      if (W[i] <= -IPS_STAMP_LIMIT || W[i] >= IPS_STAMP_LIMIT) {
        skip(a, v, v->line, IPS_SKIP_RANGE,
             "a worker stamp moved by the clock offset estimate");
        return;
      }
    }
    dv.clock = 'w';
    mk_wall = wsrc == r->walls;
    mk_off = off;
    dv.offset_ns = off;
    dv.bound_ns = bound;
  }
  dv.pclock = have_pm ? 'm' : 'w';
  dv.vat = v->name;
  dv.desc = v->desc;
  dv.crank = v->crank;
  dv.replay = v->replay;
  dv.dnum = v->dnum;
  dv.line = v->line;
  dv.worker_pid = v->pid;
  dv.worker_line = v->pid_line;
  dv.ok = r->ok;
  dv.n_up = n;
  dv.P = P;
  dv.W = W;
  /* Each difference below is of two values in (-2^62, 2^62): it cannot
   * overflow; their sums can, on hostile input, and are checked. */
  dv.total = P[last] - P[0];
  dv.pipe = W[0] - P[0];
  ovf = kovf || add_ovf(&dv.pipe, P[last] - W[last]);
  if (unmatched) {
    /* What the worker waited on upcalls, less the kernel's recorded part;
     * P mirrors W there so that every segment is the worker's own. */
    dv.n_unmatched = n;
    dv.kernel = dv_kernel;
    dv.unmatched = -dv_kernel;
    for (i = 0; i < n && !ovf; i++) {
      P[1 + 2 * i] = W[1 + 2 * i];
      P[2 + 2 * i] = W[2 + 2 * i];
      ovf = add_ovf(&dv.unmatched, W[2 + 2 * i] - W[1 + 2 * i]);
    }
  }
  if (truncated) {
    /* Known: transit and worker up to the last stamped reply, and every
     * syscall's kernel time; unmatched is the rest (the worker's runs and
     * the transits after its stamps ran out). */
    dv.n_unmatched = n - m;
    dv.truncated = 1;
    dv.pipe = W[0] - P[0];
    for (i = 0; i < n && !ovf; i++) {
      ovf = add_ovf(&dv.kernel, P[2 + 2 * i] - P[1 + 2 * i]);
      if (i < m)
        ovf = ovf || add_ovf(&dv.pipe, P[1 + 2 * i] - W[1 + 2 * i]) ||
              add_ovf(&dv.pipe, W[2 + 2 * i] - P[2 + 2 * i]) ||
              add_ovf(&dv.worker, W[2 * i + 1] - W[2 * i]);
    }
    dv.unmatched = dv.total;
    ovf = ovf || add_ovf(&dv.unmatched, -dv.pipe) ||
          add_ovf(&dv.unmatched, -dv.worker) ||
          add_ovf(&dv.unmatched, -dv.kernel);
  }
  for (i = 0; i < n && !ovf && !unmatched && !truncated; i++) {
    ovf = add_ovf(&dv.pipe, P[1 + 2 * i] - W[1 + 2 * i]) ||
          add_ovf(&dv.pipe, W[2 + 2 * i] - P[2 + 2 * i]) ||
          add_ovf(&dv.kernel, P[2 + 2 * i] - P[1 + 2 * i]);
  }
  for (i = 0; i <= n && !ovf && !truncated; i++)
    ovf = add_ovf(&dv.worker, W[2 * i + 1] - W[2 * i]);
  if (ovf) {
    skip(a, v, v->line, IPS_SKIP_RANGE, "the segments' sum overflows");
    return;
  }
  if (r->have & IPS__F_MARKS) {
    const char *why = ips__marks_build(a, r, &dv, mk_wall, mk_off, k);
    if (why) {
      snprintf(d, sizeof d, "%s, see line %ld", why, line);
      skip(a, v, v->line, IPS_SKIP_STAMPS, d);
      return;
    }
    dv.marks_dropped = r->mdropped;
    dv.marks_unbalanced = r->munbalanced;
  }
  if (r->have & IPS__F_CPU) {
    dv.has_cpu = 1;
    dv.cpu_ns = r->cpu_ns;
    /* cpu_ns also counts the worker's own system calls for its upcalls,
     * which fall in pipe segments: it may exceed the worker time a little,
     * and then nothing of the worker time was off the CPU. */
    dv.offcpu_ns = dv.worker > dv.cpu_ns ? dv.worker - dv.cpu_ns : 0;
  }
  /* A timequake: wall and mono disagree over the same interval. */
  if (v->D.has_m && E.has_m && (r->have & IPS__F_TIME)) {
    dv.quake_ns = iabs((E.w - v->D.w) - (E.m - v->D.m));
  }
  if (have_ww && have_wm) {
    int64_t q = iabs((r->walls[last] - r->walls[0]) -
                     (r->wmono[last] - r->wmono[0]));
    if (q > dv.quake_ns)
      dv.quake_ns = q;
  }
  /* On one machine and one mono clock, the two sides' wall clocks must
   * agree too: a worker whose wall clock is set apart (faked, or stepped
   * before the delivery) shows as d - D differing between wall and mono. */
  if (dv.clock == 'm' && have_ww) {
    int64_t q = iabs((r->walls[0] - v->D.w) - (r->wmono[0] - v->D.m));
    if (q > dv.quake_ns)
      dv.quake_ns = q;
  }
  dv.quake = dv.quake_ns > a->o.quake_ns;
  if (dv.quake) /* the offset found before the quake is stale now */
    memset(v->has_est, 0, sizeof v->has_est);
  {
    int c = have_pm;
    if (a->has_lastE[c] && P[0] >= a->lastE[c]) {
      dv.has_gap = 1;
      dv.gap_ns = P[0] - a->lastE[c];
      /* The heap snapshots since are theirs, not the kernel's own time
       * (both lie between the two deliveries, unless a clock stepped). */
      int64_t sv = a->snap.save[c], ld = a->snap.load[c];
      dv.snap_save_ns = sv >= 0 && sv < dv.gap_ns ? sv : dv.gap_ns;
      dv.gap_ns -= dv.snap_save_ns;
      dv.snap_load_ns = ld >= 0 && ld < dv.gap_ns ? ld : dv.gap_ns;
      dv.gap_ns -= dv.snap_load_ns;
    }
    if (!a->has_lastE[c] || P[last] > a->lastE[c])
      a->lastE[c] = P[last];
    a->has_lastE[c] = 1;
    ips__snap_reset(&a->snap);
  }
  if (r->have & IPS__F_COMPUTE) {
    dv.has_compute = 1;
    dv.compute = r->compute;
  }
  if (a->blocks)
    ips__blocks_delivery(a->blocks, &dv, dv.compute, dv.has_compute);
  if (!v->shown || !in_window(a, v) ||
      (a->o.limit && a->shown >= a->o.limit))
    return;
  if (!totals_fit(&v->s.t, &dv) || !totals_fit(&a->st.all, &dv) ||
      !snaps_fit(&a->st, &dv)) {
    skip(a, v, v->line, IPS_SKIP_RANGE, "the file's totals would overflow");
    return;
  }
  if (dv.clock == 'w') {
    v->s.has_offset = 1;
    v->s.offset_ns = dv.offset_ns;
    v->s.bound_ns = dv.bound_ns;
  }
  add_totals(&v->s.t, &dv);
  add_totals(&a->st.all, &dv);
  if (dv.snap_save_ns) {
    a->st.n_snap_save++;
    a->st.snap_save += dv.snap_save_ns;
  }
  if (dv.snap_load_ns) {
    a->st.n_snap_load++;
    a->st.snap_load += dv.snap_load_ns;
  }
  a->shown++;
  keep_slow(a, &dv);
  if (dv.n_marks)
    ips__marks_count(a, &dv);
  if (a->o.on_delivery)
    a->o.on_delivery(a->o.arg, &dv);
}

/* A console line: an upcall of the vat's delivery in progress (SwingSet
 * writes the record as it handles the worker's console upcall); outside a
 * delivery (a vat's start-up, a kernel's own line), another record. */
static void on_console(ips_analysis_t *a, const ips__rec_t *r, long line) {
  vat_state_t *v =
      (r->have & IPS__F_VAT) ? lookup_vat(a, r->vat, r->vat_len) : NULL;
  if (!v || !matches(v, r) || !(r->have & (IPS__F_TIME | IPS__F_MONO))) {
    a->st.other++;
    return;
  }
  if (!v->bad)
    add_upcall(a, v, r, line, 1);
}

/* SwingSet's monotime counts from the kernel's start: when it goes back,
 * the kernel restarted and appends to the same file.  What was in flight
 * never finishes, and the time between is not the kernel's. */
static void check_restart(ips_analysis_t *a, const ips__rec_t *r, long line) {
  size_t i;
  char why[96];
  if (!(r->have & IPS__F_MONO))
    return;
  if (a->has_mono && r->mono_ns + 1000000 < a->last_mono) {
    a->st.restarts++;
    a->st.run_ok = 0; /* the next record with both clocks anchors it */
    snprintf(why, sizeof why, "the kernel restarted at line %ld", line);
    for (i = 0; i < a->nvats; i++) {
      drop_open(a, a->vats[i], why);
      memset(a->vats[i]->has_est, 0, sizeof a->vats[i]->has_est);
      /* the old kernel's workers are gone with it */
      a->vats[i]->pid = 0;
      a->vats[i]->pid_line = 0;
    }
    a->has_lastE[0] = a->has_lastE[1] = 0;
  }
  a->has_mono = 1;
  a->last_mono = r->mono_ns;
}

void ips__attr_feed(ips_analysis_t *a, const ips__rec_t *r, long line) {
  vat_state_t *v;
  const char *miss = NULL;
  check_restart(a, r, line);
  ips__snap_feed(&a->snap, r);
  if (a->blocks)
    ips__blocks_record(a->blocks, &a->snap, r, line);
  if (a->st.restarts && !a->st.run_ok &&
      (r->have & (IPS__F_TIME | IPS__F_MONO)) == (IPS__F_TIME | IPS__F_MONO)) {
    a->st.run_ok = 1;
    a->st.run_time = r->time_ns;
    a->st.run_mono = r->mono_ns;
  }
  if (r->type == IPS__REC_OTHER)
    return;
  if (r->type == IPS__REC_BLOCK) {
    const char *no = ips__block_missing(r);
    a->st.other++; /* still other records to the report, as before */
    if (no) /* a block's step that cannot be placed: said, not guessed */
      ips__skip(a, NULL, line, IPS_SKIP_MISSING, no);
    return;
  }
  if (r->type == IPS__REC_CONSOLE) {
    on_console(a, r, line);
    return;
  }
  if (r->type == IPS__REC_WORKER) {
    /* A vat's worker starts: its deliveries from now on are that
     * process's (ipcstamp's parent names its pid; SwingSet does not, and
     * then the pid is unknown rather than the previous worker's).  Still
     * counted as another record type, as before pids were read. */
    a->st.other++;
    if ((r->have & IPS__F_VAT) && (v = find_vat(a, r)) != NULL) {
      v->pid = (r->have & IPS__F_PID) ? r->pid : 0;
      v->pid_line = line;
    }
    return;
  }
  if (r->type == IPS__REC_START) {
    if ((r->have & IPS__F_IPSV) && r->ipsv != 1) {
      char d[80];
      snprintf(d, sizeof d, "the slogfile's start says ipcstamp.v %ld (this "
               "reader knows 1)", r->ipsv);
      skip(a, NULL, line, IPS_SKIP_VERSION, d);
    }
    return;
  }
  if (!(r->have & IPS__F_VAT))
    miss = "vatID";
  else if (!(r->have & (IPS__F_TIME | IPS__F_MONO)))
    miss = "time and monotime";
  else if (r->type == IPS__REC_DELIVER && !(r->have & IPS__F_DNUM))
    miss = "deliveryNum";
  else if (r->type == IPS__REC_RESULT && !(r->have & IPS__F_DR))
    miss = "dr";
  if (miss) {
    char d[64];
    snprintf(d, sizeof d, "no %s", miss);
    ips__skip(a, (r->have & IPS__F_VAT) ? r->vat : NULL, line,
              IPS_SKIP_MISSING, d);
    return;
  }
  v = find_vat(a, r);
  if (!v) {
    ips__skip(a, r->vat, line, IPS_SKIP_MISSING, "out of memory");
    return;
  }
  switch (r->type) {
    case IPS__REC_DELIVER:
      on_deliver(a, v, r, line);
      break;
    case IPS__REC_SYSCALL:
      on_syscall(a, v, r, line, 0);
      break;
    case IPS__REC_SYSCALL_RESULT:
      on_syscall(a, v, r, line, 1);
      break;
    case IPS__REC_RESULT:
      on_result(a, v, r, line);
      break;
  }
}

void ips_analysis_finish(ips_analysis_t *a) {
  size_t i;
  for (i = 0; i < a->nvats; i++)
    drop_open(a, a->vats[i], "the file ends first");
  if (a->blocks)
    ips__blocks_finish(a->blocks);
}

size_t ips_delivery_nsegments(const ips_delivery_t *d) {
  if (d->truncated) /* send, 4 per stamped upcall, 2 per other, the rest */
    return 2 + 4 * (d->n_up - d->n_unmatched) + 2 * d->n_unmatched;
  return d->n_unmatched ? 3 + 2 * d->n_up : 3 + 4 * d->n_up;
}

/* Truncated: after the stamped upcalls, per other upcall the time up to
 * its arrival at the kernel (unmatched) and the kernel's (exact); then the
 * time from the last syscall's result to E (unmatched). */
static int64_t truncated_segment(const ips_delivery_t *d, size_t j,
                                 const char **name) {
  size_t m = d->n_up - d->n_unmatched, t = j - 1 - 4 * m, i = m + t / 2;
  const int64_t *P = d->P, *W = d->W;
  if (i >= d->n_up) {
    *name = "unmatched";
    return P[1 + 2 * d->n_up] - P[2 * d->n_up];
  }
  if (t % 2 == 0) {
    *name = "unmatched";
    return P[2 * i + 1] - (i == m ? W[2 * m] : P[2 * i]);
  }
  *name = "kernel";
  return P[2 * i + 2] - P[2 * i + 1];
}

int64_t ips_delivery_segment(const ips_delivery_t *d, size_t j, const char **name) {
  const int64_t *P = d->P, *W = d->W;
  size_t last = 1 + 2 * d->n_up, i;
  if (j == 0) {
    *name = "send";
    return W[0] - P[0];
  }
  if (d->truncated && j > 4 * (d->n_up - d->n_unmatched))
    return truncated_segment(d, j, name);
  if (j == ips_delivery_nsegments(d) - 1) {
    *name = "result";
    return P[last] - W[last];
  }
  if (d->n_unmatched && !d->truncated) { /* worker, then unmatched, per upcall */
    i = (j - 1) / 2;
    if ((j - 1) % 2 == 0) {
      *name = "worker";
      return W[2 * i + 1] - W[2 * i];
    }
    *name = "unmatched";
    return W[2 * i + 2] - W[2 * i + 1];
  }
  i = (j - 1) / 4; /* upcall number; the worker run before it */
  switch ((j - 1) % 4) {
    case 0:
      *name = "worker";
      return W[2 * i + 1] - W[2 * i];
    case 1:
      *name = "upcall";
      return P[2 * i + 1] - W[2 * i + 1];
    case 2:
      *name = "kernel";
      return P[2 * i + 2] - P[2 * i + 1];
    default:
      *name = "reply";
      return W[2 * i + 2] - P[2 * i + 2];
  }
}
