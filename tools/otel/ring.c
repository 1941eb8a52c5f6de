/* ring.c — deliveries assembled from the live rings (docs/ring.md) for
 * `ipcstamp otel --ring DIR`: the parent's ring gives each delivery's D (U
 * R)* E stamps and, for a command answered '.' whose stamps pair up, an
 * attribution event (vat, delivery number, end, shares); the worker's own
 * ring gives its d (u r)* e.  Joined, they are the same P and W a slogfile
 * gives the analysis, so the spans are built by the same encoder.
 *
 * The parent's stamps carry no vat (its ring mixes its children): a
 * delivery's stamps are found from its attribution, as those with its
 * delivery number from its D (end - total) to its E (end).  A host that
 * runs one delivery at a time (a SwingSet kernel, ipcstamp run) gives
 * exactly them; stamps of another child interleaved there would break the
 * shape D (U R)* E or the worker's count, and such a delivery is counted
 * as not joined rather than exported wrong.  Its worker's half is the one
 * of the same vat and delivery number whose d..e lies inside D..E: that
 * also tells a restarted worker (which counts from 1 again) from the old.
 *
 * Memory is bounded: the latest RING_STAMPS parent stamps per parent ring
 * (so a delivery of more than RING_STAMPS / 2 - 1 upcalls is not joined),
 * the stamps of the delivery in flight per worker ring, and at most
 * RING_PENDING halves waiting for their other half (the oldest are dropped,
 * counted), which also wait at most RING_TTL ticks.  A delivery with a
 * stamp or anchor outside [0, 2^62) ns (the analysis' bound on a
 * slogfile's) is not joined: its spans' times could not be computed.
 *
 * The VM's own marks and spans (the worker ring's "mark" events) between
 * a worker's d and e go with its half, paired by the analysis' own code
 * (analyze/mark_pair.c), so that they are the spans a slogfile gives.
 * The ring is untrusted: a mark of another delivery number, of a kind not
 * m/b/e, with an empty name or one longer than a worker writes
 * (RING_NAME_MAX), or at a time outside the worker's d..e (or outside
 * [0, 2^62) ns, as the analysis bounds stamps) is not exported
 * but counted as dropped for its delivery, which is still exported with
 * the rest; an end that closes no begin, and a begin never ended, are
 * counted as unbalanced (what the analysis does with a slogfile's).  The
 * ring does not carry the worker's own counts (marks it dropped at its
 * cap, ends it found unbalanced are never written to the ring), so a
 * joined delivery's marks_dropped and marks_unbalanced are these, not the
 * worker's.  Bounded too: at most RING_MARKS marks per delivery (the
 * worker's default cap, IPS_DEFAULT_MAX_MARKS, 16 times: a worker allowed
 * more has the rest counted as dropped) and RING_MARK_BYTES of distinct
 * names, and at most RING_MARKS_HELD marks held in all, in flight and in
 * waiting halves (past it, a delivery's further marks are dropped). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"
#include "mark_pair.h"
#include "otel.h"

#define RING_STAMPS 4096
#define RING_PENDING 1024
#define RING_TTL 100 /* ticks (polls: 10 s at the default 100 ms) */
#define RING_PROCS 256
#define RING_MARKS (16 * IPS_DEFAULT_MAX_MARKS)
#define RING_MARK_BYTES 16384
#define RING_MARKS_HELD IPS_MAX_MARKS
#define RING_NAME_MAX 255 /* a worker's longest name (proto/marks.c) */

typedef struct {
  char kind;
  uint64_t k;
  int64_t mono;
} pstamp_t;

/* One delivery's half: the parent's (P, shares) or the worker's (W). */
typedef struct {
  int used;
  long ppid;             /* the parent ring's pid (parent half) */
  long wpid;             /* the worker's pid (worker half) */
  char vat[16];
  uint64_t k;
  int64_t *s;            /* the stamps, owned */
  size_t n;
  int64_t pipe, worker, kernel, total;
  int64_t anchor_wall, anchor_mono;
  unsigned long born;    /* the tick it came */
  /* worker half: the VM's marks, paired; names in mnames; both owned */
  ips_delivery_mark_t *marks;
  size_t n_marks;
  char *mnames;
  long long mdropped, munbalanced;
} half_t;

/* A ring followed: the parent's stamps so far, or the worker's delivery
 * in flight. */
typedef struct {
  long pid;
  int role;
  pstamp_t *ps;          /* parent: a circle of RING_STAMPS */
  size_t ps_n, ps_next;
  int64_t *w;            /* worker: the delivery in flight's stamps */
  size_t wn;
  uint64_t wk;
  int in_flight;
  int64_t last_mono;     /* of its latest event; INT64_MIN before one */
  /* worker: the marks of the delivery in flight as recorded (grown on
   * demand, at most RING_MARKS), their names interned, NUL-terminated,
   * back to back (name i at mnames + moff[i]), and those not kept */
  ips__mev_t *m;
  size_t mn, mcap;
  char *mnames;
  size_t mnames_len, mnames_cap;
  uint32_t *moff;
  size_t nnames, moff_cap;
  long long mdropped;
} proc_t;

struct otel_ring_s {
  otel_ring_cb cb;
  void *arg;
  proc_t procs[RING_PROCS];
  size_t nprocs;
  half_t p[RING_PENDING], w[RING_PENDING];
  unsigned long tick;
  otel_ring_counts_t c;
  size_t held;              /* marks in flight and in waiting halves */
  int64_t tmp[RING_STAMPS]; /* a parent half being collected */
};

otel_ring_t *otel_ring_new(otel_ring_cb cb, void *arg) {
  otel_ring_t *r = calloc(1, sizeof *r);
  if (r) {
    r->cb = cb;
    r->arg = arg;
  }
  return r;
}

static void drop(otel_ring_t *r, half_t *h) {
  r->held -= h->n_marks;
  free(h->s);
  free(h->marks);
  free(h->mnames);
  memset(h, 0, sizeof *h);
}

/* The marks of pr's delivery in flight are gone (it ended, or will never
 * end whole).  Storage grown past the usual is let go, so that a ring
 * that once had many marks does not keep it: what is held stays within
 * RING_MARKS_HELD. */
static void forget_marks(otel_ring_t *r, proc_t *pr) {
  r->held -= pr->mn;
  pr->mn = pr->nnames = pr->mnames_len = 0;
  pr->mdropped = 0;
  if (pr->mcap > IPS_DEFAULT_MAX_MARKS ||
      pr->moff_cap > IPS_DEFAULT_MAX_MARKS) {
    free(pr->m);
    free(pr->moff);
    pr->m = NULL;
    pr->moff = NULL;
    pr->mcap = pr->moff_cap = 0;
  }
  if (pr->mnames_cap > IPS_DEFAULT_MAX_MARK_BYTES) {
    free(pr->mnames);
    pr->mnames = NULL;
    pr->mnames_cap = 0;
  }
}

void otel_ring_free(otel_ring_t *r) {
  size_t i;
  if (!r)
    return;
  for (i = 0; i < r->nprocs; i++) {
    free(r->procs[i].ps);
    free(r->procs[i].w);
    free(r->procs[i].m);
    free(r->procs[i].mnames);
    free(r->procs[i].moff);
  }
  for (i = 0; i < RING_PENDING; i++) {
    drop(r, &r->p[i]);
    drop(r, &r->w[i]);
  }
  free(r);
}

void otel_ring_get_counts(const otel_ring_t *r, otel_ring_counts_t *c) {
  *c = r->c;
}

static proc_t *proc_of(otel_ring_t *r, long pid, int role) {
  size_t i;
  proc_t *p;
  for (i = 0; i < r->nprocs; i++)
    if (r->procs[i].pid == pid)
      return &r->procs[i];
  if (r->nprocs == RING_PROCS)
    return NULL;
  p = &r->procs[r->nprocs];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  p->role = role;
  p->last_mono = INT64_MIN;
  if (role == IPS_RING_ROLE_PARENT)
    p->ps = malloc(RING_STAMPS * sizeof *p->ps);
  else
    p->w = malloc(RING_STAMPS * sizeof *p->w);
  if (!p->ps && !p->w)
    return NULL;
  r->nprocs++;
  return p;
}

/* A free slot of tab, the oldest dropped when there is none (counted when
 * it was a parent's half: a worker's alone was never attributed). */
static half_t *slot(otel_ring_t *r, half_t *tab) {
  size_t i, old = 0;
  for (i = 0; i < RING_PENDING; i++) {
    if (!tab[i].used)
      return &tab[i];
    if (tab[i].born < tab[old].born)
      old = i;
  }
  if (tab == r->p)
    r->c.unjoined++;
  drop(r, &tab[old]);
  return &tab[old];
}

/* The two halves of one delivery: out it goes. */
static void emit(otel_ring_t *r, const half_t *p, const half_t *w) {
  ips_delivery_t d;
  ips_stats_t st;
  otel_ids_t ids;
  memset(&d, 0, sizeof d);
  d.vat = p->vat;
  /* The rings know no method, cranks or slogfile lines: left out of the
   * span (NULL, -1, 0) rather than sent as "" and 0. */
  d.desc = NULL;
  d.method = NULL;
  d.crank = -1;
  d.dnum = (long long)p->k;
  d.ok = 1;     /* an attribution is for a command answered '.' */
  d.clock = 'm';
  d.pclock = 'm';
  d.n_up = (p->n - 2) / 2;
  d.P = p->s;
  d.W = w->s;
  d.pipe = p->pipe;
  d.worker = p->worker;
  d.kernel = p->kernel;
  d.total = p->total;
  d.worker_pid = w->wpid;
  d.n_marks = w->n_marks;
  d.marks = w->marks;
  d.marks_dropped = w->mdropped;
  d.marks_unbalanced = w->munbalanced;
  memset(&st, 0, sizeof st);
  st.first_time_ok = st.first_mono_ok = 1;
  st.first_time = p->anchor_wall;
  st.first_mono = p->anchor_mono;
  otel_ids_init(&ids, &st);
  ids.with_pid = 1;
  r->c.joined++;
  r->c.marks_dropped += (uint64_t)w->mdropped;
  r->cb(r->arg, &d, &st, &ids);
}

/* Whether w is p's worker half: same vat and number, d..e inside D..E,
 * as many stamps. */
static int pair(const half_t *p, const half_t *w) {
  return p->k == w->k && !strcmp(p->vat, w->vat) && p->n == w->n &&
         w->s[0] >= p->s[0] && w->s[w->n - 1] <= p->s[p->n - 1];
}

static void try_join(otel_ring_t *r, half_t *h, int parent) {
  half_t *other = parent ? r->w : r->p;
  size_t i;
  for (i = 0; i < RING_PENDING; i++) {
    half_t *o = &other[i];
    if (!o->used || !(parent ? pair(h, o) : pair(o, h)))
      continue;
    emit(r, parent ? h : o, parent ? o : h);
    drop(r, o);
    drop(r, h);
    return;
  }
}

static int in_range(int64_t t) { return t >= 0 && t < IPS_STAMP_LIMIT; }

/* An attribution: the parent's stamps of that delivery, D at end - total
 * and E at end, with its number, and U R pairs between. */
static void on_attribution(otel_ring_t *r, proc_t *pr,
                           const ips_ring_info_t *info,
                           const ips_ring_event_t *ev) {
  uint64_t k = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
  int64_t end = ips_ring_event_int(ev, "mono_ns", 0);
  int64_t total = ips_ring_event_int(ev, "total_ns", -1);
  const char *vat = ips_ring_event_str(ev, "vat");
  int64_t *tmp = r->tmp;
  size_t n = 0, i, j, back;
  half_t *h;
  /* Times as the analysis bounds a slogfile's, [0, 2^62) ns (the anchor
   * too): a span's start is anchor + (stamp - anchor mono), and no sum or
   * difference of such overflows. */
  if (!k || total < 0 || !vat[0] || strlen(vat) >= sizeof h->vat ||
      !in_range(end) || total > end || !in_range(info->start_mono_ns) ||
      info->start_wall_us < 0 ||
      info->start_wall_us >= IPS_STAMP_LIMIT / 1000) {
    r->c.unjoined++;
    return;
  }
  /* Newest first, back to the D; then the stamps are reversed. */
  for (back = 0; back < pr->ps_n; back++) {
    const pstamp_t *s = &pr->ps[(pr->ps_next + RING_STAMPS - 1 - back) %
                                RING_STAMPS];
    if (s->k != k || s->mono > end || s->mono < end - total)
      continue;
    tmp[n++] = s->mono; /* at most ps_n <= RING_STAMPS */
    if (s->kind == 'D')
      break;
  }
  /* The shape: E first (newest) at end, D last at end - total, an even
   * count; the kinds between were U and R by their numbers' order. */
  if (n < 2 || n % 2 || tmp[0] != end || tmp[n - 1] != end - total) {
    r->c.unjoined++;
    return;
  }
  h = slot(r, r->p);
  h->s = malloc(n * sizeof *h->s);
  if (!h->s) {
    r->c.unjoined++;
    return;
  }
  for (i = 0, j = n; i < n; i++)
    h->s[i] = tmp[--j];
  for (i = 1; i < n; i++)
    if (h->s[i] < h->s[i - 1]) { /* not causal: not this delivery's */
      drop(r, h);
      r->c.unjoined++;
      return;
    }
  h->used = 1;
  h->n = n;
  h->k = k;
  h->ppid = pr->pid;
  strcpy(h->vat, vat);
  h->pipe = ips_ring_event_int(ev, "pipe_ns", 0);
  h->worker = ips_ring_event_int(ev, "worker_ns", 0);
  h->kernel = ips_ring_event_int(ev, "kernel_ns", 0);
  h->total = total;
  h->anchor_wall = info->start_wall_us * 1000;
  h->anchor_mono = info->start_mono_ns;
  h->born = r->tick;
  try_join(r, h, 1);
}

/* Room for need elements of size bytes in *p (capacity *cap, at most
 * max): doubled from 16.  0, or -1 past max or out of memory. */
static int grow(void **p, size_t *cap, size_t need, size_t size,
                size_t max) {
  size_t c = *cap ? *cap : 16;
  void *q;
  if (need <= *cap)
    return 0;
  if (need > max)
    return -1;
  while (c < need)
    c *= 2;
  if (c > max)
    c = max;
  q = realloc(*p, c * size);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* name[0..len)'s index among the names of pr's delivery in flight, added
 * when new; UINT32_MAX when there is no room.  A linear search, as the
 * worker's own: a delivery uses a handful of names. */
static uint32_t intern(proc_t *pr, const char *name, size_t len) {
  size_t i;
  for (i = 0; i < pr->nnames; i++) {
    const char *o = pr->mnames + pr->moff[i];
    if (o[0] == name[0] && !strcmp(o, name))
      return (uint32_t)i;
  }
  if (pr->mnames_len + len + 1 > RING_MARK_BYTES ||
      grow((void **)&pr->mnames, &pr->mnames_cap, pr->mnames_len + len + 1,
           1, RING_MARK_BYTES) ||
      grow((void **)&pr->moff, &pr->moff_cap, pr->nnames + 1,
           sizeof *pr->moff, RING_MARKS))
    return UINT32_MAX;
  memcpy(pr->mnames + pr->mnames_len, name, len + 1);
  pr->moff[pr->nnames] = (uint32_t)pr->mnames_len;
  pr->mnames_len += len + 1;
  return (uint32_t)pr->nnames++;
}

/* A "mark" event of a worker's ring: kept for the delivery in flight when
 * it can be, else counted as dropped for it (see the top).  Outside a
 * delivery in flight (its d not read, or lost) there is nothing to count
 * it for. */
static void on_worker_mark(otel_ring_t *r, proc_t *pr,
                           const ips_ring_event_t *ev) {
  const char *kind = ips_ring_event_str(ev, "kind");
  const char *name = ips_ring_event_str(ev, "name");
  uint64_t k = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
  int64_t mono = ips_ring_event_int(ev, "mono_ns", INT64_MIN);
  size_t len = strlen(name);
  uint32_t idx;
  ips__mev_t *e;
  if (!pr->in_flight || pr->wn == 0)
    return;
  if (k != pr->wk || !kind[0] || kind[1] || !strchr("mbe", kind[0]) ||
      len == 0 || len > RING_NAME_MAX || !in_range(mono) ||
      mono < pr->w[0] ||
      pr->mn == RING_MARKS || r->held >= RING_MARKS_HELD ||
      grow((void **)&pr->m, &pr->mcap, pr->mn + 1, sizeof *pr->m,
           RING_MARKS) ||
      (idx = intern(pr, name, len)) == UINT32_MAX) {
    pr->mdropped++;
    return;
  }
  e = &pr->m[pr->mn];
  e->t = mono;
  e->seq = (uint32_t)pr->mn; /* the ring's order is the worker's */
  e->name = idx;
  e->kind = kind[0];
  pr->mn++;
  r->held++;
}

/* pr's marks, its delivery's e just read (pr->w whole), paired onto h:
 * those after e dropped; names sanitised into h's own copy.  Out of
 * memory, they are all counted as dropped. */
static void take_marks(otel_ring_t *r, proc_t *pr, half_t *h) {
  size_t i, keep = 0, unbalanced = 0;
  int64_t e = pr->w[pr->wn - 1];
  ips__mopen_t *op = NULL;
  h->mdropped = pr->mdropped;
  for (i = 0; i < pr->mn; i++)
    if (pr->m[i].t <= e)
      pr->m[keep++] = pr->m[i];
    else
      h->mdropped++;
  if (keep) {
    op = malloc(keep * sizeof *op);
    h->marks = malloc(keep * sizeof *h->marks);
    h->mnames = malloc(pr->mnames_len);
  }
  if (keep && (!op || !h->marks || !h->mnames)) {
    free(h->marks);
    free(h->mnames);
    h->marks = NULL;
    h->mnames = NULL;
    h->mdropped += (long long)keep;
    keep = 0;
  }
  if (keep) {
    for (i = 0; i < pr->nnames; i++)
      ips__marks_sanitise(h->mnames + pr->moff[i], pr->mnames + pr->moff[i]);
    h->n_marks = ips__marks_pair(pr->m, keep, op, h->mnames, pr->moff, pr->w,
                                 (pr->wn - 2) / 2, h->marks, &unbalanced);
    h->munbalanced = (long long)unbalanced;
  }
  free(op);
  forget_marks(r, pr);
  r->held += h->n_marks;
}

static void on_worker_stamp(otel_ring_t *r, proc_t *pr, const char *vat,
                            const ips_ring_event_t *ev) {
  const char *kind = ips_ring_event_str(ev, "kind");
  uint64_t k = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
  int64_t mono = ips_ring_event_int(ev, "mono_ns", 0);
  half_t *h;
  if (kind[0] == 'd') {
    pr->in_flight = 1;
    pr->wk = k;
    pr->wn = 0;
    forget_marks(r, pr); /* those of a delivery that never ended */
  }
  if (!pr->in_flight || k != pr->wk || !kind[0] || !strchr("dure", kind[0]))
    return;
  if (pr->wn == RING_STAMPS) { /* longer than a parent half can be */
    pr->in_flight = 0;
    forget_marks(r, pr);
    return;
  }
  if (!in_range(mono)) { /* as the parent's (on_attribution) */
    pr->in_flight = 0;
    forget_marks(r, pr);
    return;
  }
  pr->w[pr->wn++] = mono;
  if (kind[0] != 'e')
    return;
  pr->in_flight = 0;
  if (!vat[0] || strlen(vat) >= sizeof h->vat || pr->wn % 2) {
    forget_marks(r, pr);
    return;
  }
  h = slot(r, r->w);
  h->s = malloc(pr->wn * sizeof *h->s);
  if (!h->s) {
    forget_marks(r, pr);
    return;
  }
  memcpy(h->s, pr->w, pr->wn * sizeof *h->s);
  h->used = 1;
  h->n = pr->wn;
  h->k = k;
  h->wpid = pr->pid;
  strcpy(h->vat, vat);
  h->born = r->tick;
  take_marks(r, pr, h);
  try_join(r, h, 0);
}

void otel_ring_event(otel_ring_t *r, long pid, const ips_ring_info_t *info,
                     const char *vat, const ips_ring_event_t *ev) {
  proc_t *pr = proc_of(r, pid, (int)info->role);
  const ips_ring_field_t *m;
  if (!pr)
    return;
  if ((m = ips_ring_event_field(ev, "mono_ns")) != NULL &&
      m->kind == IPS_RING_FIELD_INT)
    pr->last_mono = m->i;
  if (pr->role == IPS_RING_ROLE_PARENT) {
    if (!strcmp(ev->name, "stamp")) {
      const char *kind = ips_ring_event_str(ev, "kind");
      pstamp_t *s = &pr->ps[pr->ps_next];
      s->kind = kind[0];
      s->k = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
      s->mono = ips_ring_event_int(ev, "mono_ns", 0);
      pr->ps_next = (pr->ps_next + 1) % RING_STAMPS;
      if (pr->ps_n < RING_STAMPS)
        pr->ps_n++;
    } else if (!strcmp(ev->name, "attribution")) {
      on_attribution(r, pr, info, ev);
    }
  } else if (!strcmp(ev->name, "stamp")) {
    const char *v = ips_ring_event_str(ev, "vat");
    on_worker_stamp(r, pr, v[0] ? v : vat, ev);
  } else if (!strcmp(ev->name, "mark")) {
    on_worker_mark(r, pr, ev);
  }
}

int64_t otel_ring_last_mono(const otel_ring_t *r, long pid) {
  size_t i;
  for (i = 0; i < r->nprocs; i++)
    if (r->procs[i].pid == pid)
      return r->procs[i].last_mono;
  return INT64_MIN;
}

void otel_ring_lost(otel_ring_t *r, long pid) {
  size_t i;
  for (i = 0; i < r->nprocs; i++)
    if (r->procs[i].pid == pid) {
      /* what was in flight may have ended in the gap */
      r->procs[i].in_flight = 0;
      r->procs[i].ps_n = 0;
      forget_marks(r, &r->procs[i]);
    }
}

void otel_ring_tick(otel_ring_t *r, int final) {
  size_t i;
  r->tick++;
  for (i = 0; i < RING_PENDING; i++) {
    if (r->p[i].used && (final || r->tick - r->p[i].born > RING_TTL)) {
      r->c.unjoined++;
      drop(r, &r->p[i]);
    }
    /* A worker's half alone is a delivery the parent did not attribute
     * (an error, or stamps that do not pair up): not counted. */
    if (r->w[i].used && (final || r->tick - r->w[i].born > RING_TTL))
      drop(r, &r->w[i]);
  }
}
