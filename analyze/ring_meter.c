/* ring_meter.c — a delivery's worker stamps from its worker's live ring,
 * for an xsnap node whose workers keep their metering exactly xsnap's
 * (ring_meter.h; docs/xsnap.md, "Two metering modes").
 *
 * The slogfile then has, per delivery, xsnap's wall timestamps only.  The
 * worker wrote the same moments into its ring (IPCSTAMP_RING_DIR): its
 * stamps d (u r)* e with both clocks, its CPU time, and the marks and
 * spans of the delivery (names cut to the ring's 31 bytes).  Each of its
 * stamps is taken just after xsnap's own of the same moment, in the same
 * process with the same clock, so its d lies between xsnap's first two
 * timestamps: that, the vat, and the number of stamps pick the one
 * delivery of the ring it is, whatever the worker's command count
 * (SwingSet also sends commands that are no delivery) and across
 * restarts of the worker (a new ring each).  Nothing else is assumed of
 * the rings, which are untrusted: a delivery whose stamps do not read d
 * (u r)* e, or whose clocks go back, is not joined.
 *
 * The slogfile is read in time order, so the rings are read only as far
 * as the delivery looked for, and each vat's older deliveries go once
 * passed.  Live (--follow), a delivery's result is in the slogfile only
 * after its worker wrote its e, so reading on then finds it.  Memory:
 * at most RINGM_HELD stamps held (past it the oldest of the vat are
 * dropped), at most IPS__MAX_STAMPS stamps and RINGM_MARKS marks a
 * delivery (more marks are counted as its dropped ones).  A ring lapped before it
 * was read leaves a gap: a delivery that falls in its gap is said
 * (IPS_RING_LAPPED), not joined. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-analyze.h"
#include "ipcstamp-ring.h"
#include "ring_meter.h"

#define RINGM_HELD (1u << 22)
#define RINGM_POLL 65536
#define RINGM_MARKS 4096 /* a delivery's marks kept (of distinct names: as
                            many, at most 31 bytes each) */
#define RINGM_NAME 32

/* A delivery's marks as the analysis reads a metering's (slog.h). */
typedef struct {
  size_t n, nnames, bytes;
  long long dropped;
  ips__mark_t v[RINGM_MARKS];
  uint32_t off[RINGM_MARKS];
  char names[RINGM_MARKS * RINGM_NAME];
} rm_marks_t;

typedef struct rm_entry {
  struct rm_entry *next;
  size_t n;
  int has_cpu;
  int64_t cpu_ns;
  int64_t *wall, *mono; /* n each, ns; after the struct */
  ips__mark_t *marks;   /* nmarks */
  uint32_t *off;        /* nnames */
  char *kinds;          /* n + 1 */
  char *names;          /* bytes */
  size_t nmarks, nnames, bytes;
  long long mdropped;
} rm_entry_t;

typedef struct {
  char vat[16];
  rm_entry_t *head, *tail;
} rm_queue_t;

/* A worker ring's delivery in flight, and its gaps. */
typedef struct {
  long pid;
  char vat[16];
  size_t n;
  uint64_t delivery;
  int open, bad, has_cpu;
  int64_t cpu_ns;
  int64_t *wall, *mono; /* cap each, grown as needed */
  char *kinds;           /* cap + 1 */
  size_t cap;
  int gap;              /* events were lapped: gap_ns not yet known */
  int64_t gap_ns;       /* the ring has nothing of this worker before */
  int64_t start_ns;     /* when the worker opened its ring (wall) */
  rm_marks_t *marks;    /* the delivery's, allocated at its first mark */
} rm_proc_t;

struct ips__ringm {
  ips_ring_dir_t *dir;
  rm_queue_t *q;
  size_t nq;
  rm_proc_t **procs;
  size_t nprocs;
  size_t held;
  uint64_t events;      /* read so far: a poll that adds none is the end */
  size_t errors;
  char error[4400];     /* a ring's path and why it cannot be read */
  int dir_failed;       /* the folder could not be read at a poll */
  size_t skipped;       /* most rings left unread at once (the bound) */
  int64_t *wmono;       /* the joined delivery's, cap each */
  char *kinds;
  size_t cap;
  rm_marks_t out;       /* the joined delivery's marks */
};

/* Room for n stamps in *wall (when not NULL), *mono and *kinds (n + 1). */
static int grow(int64_t **wall, int64_t **mono, char **kinds, size_t *cap,
                size_t n) {
  size_t c = *cap ? *cap : 64;
  void *p;
  if (n <= *cap) return 0;
  while (c < n) c *= 2;
  if (wall) {
    if (!(p = realloc(*wall, c * sizeof **wall))) return -1;
    *wall = p;
  }
  if (!(p = realloc(*mono, c * sizeof **mono))) return -1;
  *mono = p;
  if (!(p = realloc(*kinds, c + 1))) return -1;
  *kinds = p;
  *cap = c;
  return 0;
}

static rm_queue_t *queue(ips__ringm_t *m, const char *vat, int make) {
  size_t i;
  rm_queue_t *q;
  for (i = 0; i < m->nq; i++)
    if (!strcmp(m->q[i].vat, vat)) return &m->q[i];
  if (!make || m->nq >= IPS_RING_DIR_MAX_PROCS) return NULL;
  if (!(q = realloc(m->q, (m->nq + 1) * sizeof *q))) return NULL;
  m->q = q;
  q = &m->q[m->nq++];
  memset(q, 0, sizeof *q);
  snprintf(q->vat, sizeof q->vat, "%s", vat);
  return q;
}

static void pop(ips__ringm_t *m, rm_queue_t *q) {
  rm_entry_t *e = q->head;
  q->head = e->next;
  if (!q->head) q->tail = NULL;
  m->held -= e->n;
  free(e);
}

static rm_proc_t *proc(ips__ringm_t *m, const ips_ring_proc_t *p) {
  size_t i;
  rm_proc_t *x, **v;
  for (i = 0; i < m->nprocs; i++)
    if (m->procs[i]->pid == p->pid) return m->procs[i];
  if (!(x = calloc(1, sizeof *x))) return NULL;
  if (!(v = realloc(m->procs, (m->nprocs + 1) * sizeof *v))) {
    free(x);
    return NULL;
  }
  m->procs = v;
  m->procs[m->nprocs++] = x;
  x->pid = p->pid;
  x->start_ns = p->info.start_wall_us * 1000;
  snprintf(x->vat, sizeof x->vat, "%s", p->vat);
  /* Opened after the producer had overwritten events: those before the
   * first one read are gone, as if lapped. */
  if (p->info.overwritten > 0) {
    x->gap = 1;
    x->gap_ns = INT64_MAX;
  }
  return x;
}

/* A new entry of x's delivery: stamps, kinds, then its marks. */
static rm_entry_t *entry_of(const rm_proc_t *x) {
  const rm_marks_t *mk = x->marks;
  size_t n = x->n, nm = mk ? mk->n : 0, nn = mk ? mk->nnames : 0;
  size_t bytes = mk ? mk->bytes : 0;
  rm_entry_t *e = malloc(sizeof *e + 2 * n * sizeof(int64_t) +
                         nm * sizeof(ips__mark_t) + nn * sizeof(uint32_t) +
                         n + 1 + bytes);
  if (!e) return NULL;
  memset(e, 0, sizeof *e);
  e->n = n;
  e->has_cpu = x->has_cpu;
  e->cpu_ns = x->cpu_ns;
  e->wall = (int64_t *)(void *)(e + 1);
  e->mono = e->wall + n;
  e->marks = (ips__mark_t *)(void *)(e->mono + n);
  e->off = (uint32_t *)(void *)(e->marks + nm);
  e->kinds = (char *)(e->off + nn);
  e->names = e->kinds + n + 1;
  memcpy(e->wall, x->wall, n * sizeof(int64_t));
  memcpy(e->mono, x->mono, n * sizeof(int64_t));
  memcpy(e->kinds, x->kinds, n + 1);
  if (mk) {
    memcpy(e->marks, mk->v, nm * sizeof *e->marks);
    memcpy(e->off, mk->off, nn * sizeof *e->off);
    memcpy(e->names, mk->names, bytes);
    e->nmarks = nm;
    e->nnames = nn;
    e->bytes = bytes;
    e->mdropped = mk->dropped;
  }
  return e;
}

/* The delivery in flight ended with its e: queued under its vat. */
static void finish(ips__ringm_t *m, rm_proc_t *x) {
  rm_queue_t *q = queue(m, x->vat, 1);
  rm_entry_t *e;
  size_t n = x->n;
  x->open = 0;
  if (x->bad || !q) return;
  while (m->held + n > RINGM_HELD && q->head) pop(m, q);
  if (m->held + n > RINGM_HELD || !(e = entry_of(x))) return;
  m->held += n;
  /* In time order: the rings of a vat's successive workers (a restart,
   * an upgrade) are read in the directory's order, not theirs. */
  if (!q->tail || q->tail->wall[0] <= e->wall[0]) {
    if (q->tail)
      q->tail->next = e;
    else
      q->head = e;
    q->tail = e;
  } else if (q->head->wall[0] > e->wall[0]) {
    e->next = q->head;
    q->head = e;
  } else {
    rm_entry_t *p = q->head;
    while (p->next && p->next->wall[0] <= e->wall[0]) p = p->next;
    e->next = p->next;
    p->next = e;
  }
}

/* One mark of the delivery in flight, kept as a metering's: its name
 * once in the names, each event an index into them. */
static void mark(rm_proc_t *x, const ips_ring_event_t *ev) {
  const char *k = ips_ring_event_str(ev, "kind");
  const char *name = ips_ring_event_str(ev, "name");
  int64_t wall = ips_ring_event_int(ev, "wall_us", -1);
  int64_t mono = ips_ring_event_int(ev, "mono_ns", -1);
  size_t len = strlen(name), i;
  rm_marks_t *mk;
  if (!x->open || (uint64_t)ips_ring_event_int(ev, "delivery", 0) != x->delivery)
    return;
  if (!x->marks && !(x->marks = calloc(1, sizeof *x->marks))) return;
  mk = x->marks;
  if (!strchr("mbe", k[0]) || !k[0] || k[1] || len == 0 || len >= RINGM_NAME ||
      wall < 0 || wall > IPS_STAMP_LIMIT / 1000 || mono < 0 || mk->n == RINGM_MARKS) {
    mk->dropped++;
    return;
  }
  for (i = 0; i < mk->nnames && strcmp(mk->names + mk->off[i], name); i++)
    ;
  if (i == mk->nnames) {
    mk->off[i] = (uint32_t)mk->bytes;
    memcpy(mk->names + mk->bytes, name, len + 1);
    mk->bytes += len + 1;
    mk->nnames++;
  }
  mk->v[mk->n].wall = wall * 1000;
  mk->v[mk->n].mono = mono;
  mk->v[mk->n].name = (uint32_t)i;
  mk->v[mk->n++].kind = k[0];
}

/* One stamp of a worker ring: the shape d (u r)* e, in order, or the
 * delivery is not joined. */
static void stamp(ips__ringm_t *m, rm_proc_t *x, const ips_ring_event_t *ev) {
  const char *k = ips_ring_event_str(ev, "kind");
  int64_t wall = ips_ring_event_int(ev, "wall_us", -1);
  int64_t mono = ips_ring_event_int(ev, "mono_ns", -1);
  uint64_t dn = (uint64_t)ips_ring_event_int(ev, "delivery", 0);
  char last;
  int shape;
  if (x->gap) {
    x->gap = 0;
    x->gap_ns = wall >= 0 ? wall * 1000 : INT64_MAX;
  }
  if (k[0] == 'd') {
    x->open = 1;
    x->bad = x->has_cpu = 0;
    x->n = 0;
    x->delivery = dn;
    if (x->marks) x->marks->n = x->marks->nnames = x->marks->bytes = 0;
    if (x->marks) x->marks->dropped = 0;
  } else if (!x->open) {
    return;
  }
  last = x->n ? x->kinds[x->n - 1] : '\0';
  shape = k[0] == 'd' ? x->n == 0 : k[0] == 'r' ? last == 'u'
          : (k[0] == 'u' || k[0] == 'e') && (last == 'd' || last == 'r');
  if (!shape || k[1] || dn != x->delivery || wall < 0 || mono < 0 ||
      wall > IPS_STAMP_LIMIT / 1000 || mono >= IPS_STAMP_LIMIT ||
      x->n >= IPS__MAX_STAMPS ||
      grow(&x->wall, &x->mono, &x->kinds, &x->cap, x->n + 1) != 0 ||
      (x->n > 0 && (mono < x->mono[x->n - 1] || wall * 1000 < x->wall[x->n - 1]))) {
    x->bad = 1;
    if (k[0] == 'e') x->open = 0;
    return;
  }
  x->wall[x->n] = wall * 1000;
  x->mono[x->n] = mono;
  x->kinds[x->n++] = k[0];
  x->kinds[x->n] = '\0';
  if (k[0] == 'e') finish(m, x);
}

static void on_event(void *arg, const ips_ring_proc_t *p,
                     const ips_ring_event_t *ev) {
  ips__ringm_t *m = arg;
  rm_proc_t *x;
  m->events++;
  if (p->info.role != IPS_RING_ROLE_WORKER || !(x = proc(m, p))) return;
  if (!strcmp(ev->name, "stamp")) {
    stamp(m, x, ev);
  } else if (!strcmp(ev->name, "mark")) {
    mark(x, ev);
  } else if (!strcmp(ev->name, "cpu") && x->open &&
             (uint64_t)ips_ring_event_int(ev, "delivery", 0) == x->delivery) {
    int64_t c = ips_ring_event_int(ev, "cpu_ns", -1);
    x->has_cpu = c >= 0 && c < IPS_STAMP_LIMIT;
    x->cpu_ns = c;
  }
}

/* Events lapped: what the ring had of this worker before the next event
 * read is gone, and the delivery in flight with it. */
static void on_lost(void *arg, const ips_ring_proc_t *p, uint64_t lost) {
  ips__ringm_t *m = arg;
  rm_proc_t *x = proc(m, p);
  (void)lost;
  if (!x) return;
  x->gap = 1;
  x->gap_ns = INT64_MAX;
  x->open = 0;
}

static void on_error(void *arg, const ips_ring_proc_t *p) {
  ips__ringm_t *m = arg;
  if (m->errors++ == 0)
    snprintf(m->error, sizeof m->error, "%s: %s", p->path, p->error);
}

int ips__ringm_open(ips__ringm_t **out, const char *dir) {
  ips_ring_dir_callbacks_t cb;
  ips__ringm_t *m;
  DIR *dd = opendir(dir); /* a folder the user named: it must be one (a
                             FIFO is refused here, never opened) */
  int rc;
  *out = NULL;
  if (!dd) return -errno;
  closedir(dd);
  if (!(m = calloc(1, sizeof *m))) return IPS_ENOMEM;
  memset(&cb, 0, sizeof cb);
  cb.on_event = on_event;
  cb.on_lost = on_lost;
  cb.on_error = on_error;
  cb.arg = m;
  cb.poll_max = RINGM_POLL;
  /* A busy node that restarts its workers leaves more rings than are read
   * at once: a dead worker's ring read to its end makes room. */
  cb.retire_done = 1;
  if ((rc = ips_ring_dir_open(&m->dir, dir, &cb)) != 0) {
    free(m);
    return rc;
  }
  *out = m;
  return 0;
}

void ips__ringm_free(ips__ringm_t *m) {
  size_t i;
  if (!m) return;
  ips_ring_dir_close(m->dir);
  for (i = 0; i < m->nq; i++)
    while (m->q[i].head) pop(m, &m->q[i]);
  for (i = 0; i < m->nprocs; i++) {
    free(m->procs[i]->wall);
    free(m->procs[i]->mono);
    free(m->procs[i]->kinds);
    free(m->procs[i]->marks);
    free(m->procs[i]);
  }
  free(m->wmono);
  free(m->kinds);
  free(m->procs);
  free(m->q);
  free(m);
}

size_t ips__ringm_errors(const ips__ringm_t *m, const char **first) {
  *first = m->error;
  return m->errors;
}

size_t ips__ringm_skipped(const ips__ringm_t *m) { return m->skipped; }

/* One poll of the directory: 1 when it read something new.  A folder
 * that can no longer be read is said once, as a ring that cannot be; the
 * most rings left unread at once is kept to be said. */
static int poll_dir(ips__ringm_t *m) {
  char msg[256];
  uint64_t before = m->events;
  int rc = ips_ring_dir_poll(m->dir, msg, sizeof msg);
  if (ips_ring_dir_skipped(m->dir) > m->skipped)
    m->skipped = ips_ring_dir_skipped(m->dir);
  if (rc < 0) {
    if (!m->dir_failed && m->errors++ == 0)
      snprintf(m->error, sizeof m->error, "%s", msg);
    m->dir_failed = 1; /* a flag: counting every failed poll could overflow */
    return 0;
  }
  return m->events != before;
}

/* The head of vat's queue once the deliveries before r are gone: 1 when
 * it is r's, 0 when it is later than r (r is not in the ring), -1 when
 * the queue is empty (read on). */
static int match(ips__ringm_t *m, const ips__rec_t *r, rm_entry_t **out) {
  rm_queue_t *q = queue(m, r->vat, 0);
  int64_t lo = r->walls[0], hi = r->n_walls > 1 ? r->walls[1] : INT64_MAX;
  rm_entry_t *e;
  while (q && q->head && q->head->wall[0] < lo) pop(m, q);
  if (!q || !(e = q->head)) return -1;
  if (e->wall[0] > hi) return 0;
  /* xsnap keeps 502 timestamps; the ring has every stamp. */
  if (e->n != r->n_walls && !(r->n_walls == IPS__XSNAP_MAX_STAMPS && e->n > r->n_walls))
    return 0;
  *out = e;
  return 1;
}

/* r's delivery fell in a gap of a ring of its vat's workers. */
static int lapped(const ips__ringm_t *m, const ips__rec_t *r) {
  size_t i;
  for (i = 0; i < m->nprocs; i++) {
    const rm_proc_t *x = m->procs[i];
    if (!strcmp(x->vat, r->vat) && x->gap_ns > r->walls[0] &&
        x->start_ns <= r->walls[0])
      return 1;
  }
  return 0;
}

int ips__ringm_fill(ips__ringm_t *m, const ips__rec_t *r, ips__rec_t *copy) {
  rm_entry_t *e = NULL;
  int found;
  if (!r->vat || r->n_walls < 2) return 0;
  while ((found = match(m, r, &e)) < 0 && poll_dir(m))
    ;
  if (found != 1) return lapped(m, r) ? IPS_RING_LAPPED : IPS_RING_MISSING;
  if (grow(NULL, &m->wmono, &m->kinds, &m->cap, e->n) != 0) return 0;
  *copy = *r;
  memcpy(m->wmono, e->mono, e->n * sizeof(int64_t));
  memcpy(m->kinds, e->kinds, e->n + 1);
  copy->wmono = m->wmono;
  copy->n_wmono = copy->n_kinds = e->n;
  copy->kinds = m->kinds;
  copy->have |= IPS__F_WMONO | IPS__F_KINDS | IPS__F_IPSV;
  copy->ipsv = 1;
  if (e->has_cpu) {
    copy->have |= IPS__F_CPU;
    copy->cpu_ns = e->cpu_ns;
  }
  if (e->nmarks || e->mdropped) {
    rm_marks_t *o = &m->out;
    memcpy(o->v, e->marks, e->nmarks * sizeof *o->v);
    memcpy(o->off, e->off, e->nnames * sizeof *o->off);
    memcpy(o->names, e->names, e->bytes);
    copy->marks = o->v;
    copy->mname_off = o->off;
    copy->mnames = o->names;
    copy->n_marks = e->nmarks;
    copy->n_mnames = e->nnames;
    copy->mnames_len = e->bytes;
    copy->mdropped = e->mdropped;
    copy->munbalanced = 0;
    copy->have |= IPS__F_MARKS;
    copy->ipsv = 2;
  }
  {
    rm_queue_t *q = queue(m, r->vat, 0);
    /* Kept until the next delivery of the vat: the copy points into m's
     * own arrays, so the entry can go now. */
    pop(m, q);
  }
  return IPS_RING_JOINED;
}
