/* os_split.c — the join of a recording with the deliveries (docs/os.md,
 * "How a delivery is split").
 *
 * A delivery's segments (ips_delivery_segments) follow each other in
 * time from D to E on the parent's clock.  Each pipe segment is one
 * frame: found among the recorded frames by time (written after the
 * segment starts, read before it ends), direction (by the worker's
 * process), and tag; its time is cut at the frame's own instants in
 * order — the write call entered, returned, the reader woken, on a CPU —
 * each clamped into the segment and after the one before, so that the
 * parts never overlap and add up to the segment exactly.  Each worker and
 * kernel segment is the thread's time there, less its recorded waits. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

static int by_side(const void *x, const void *y) {
  const ips__os_side_t *a = x, *b = y;
  if (a->pipe != b->pipe)
    return a->pipe < b->pipe ? -1 : 1;
  if (a->write != b->write)
    return a->write < b->write ? -1 : 1;
  if (a->last_ret != b->last_ret)
    return a->last_ret < b->last_ret ? -1 : 1;
  return a->enter < b->enter ? -1 : a->enter > b->enter;
}

static int by_write(const void *x, const void *y) {
  const ips__os_frame_t *a = x, *b = y;
  return a->w_enter < b->w_enter ? -1 : a->w_enter > b->w_enter;
}

static int by_vat_ns(const void *x, const void *y) {
  const ips__os_proc_t *a = x, *b = y;
  int c = strcmp(a->vat, b->vat);
  if (c)
    return c;
  return a->ns < b->ns ? -1 : a->ns > b->ns;
}

static int by_tid(const void *x, const void *y) {
  const ips__os_task_t *a = x, *b = y;
  return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int by_tid_on(const void *x, const void *y) {
  const ips__os_wait_t *a = x, *b = y;
  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  return a->on < b->on ? -1 : a->on > b->on;
}

/* Pairs one pipe's reads r[0..nr) with its writes w[0..nw), in order: a
 * side that has no match (the recording began or ended inside a frame)
 * is counted unpaired. */
static void pair_pipe(ips_os_t *os, const ips__os_side_t *r, size_t nr,
                      const ips__os_side_t *w, size_t nw) {
  size_t i = 0, j = 0;
  while (i < nw && j < nr) {
    ips__os_frame_t *f;
    if (w[i].len != r[j].len || w[i].tag != r[j].tag ||
        r[j].last_ret < w[i].enter) {
      if (w[i].enter <= r[j].enter) i++;
      else j++;
      os->info.unpaired++;
      continue;
    }
    f = &os->frames[os->nframes++];
    f->w_enter = w[i].enter;
    f->w_ret = w[i].last_ret;
    f->r_enter = r[j].enter;
    f->r_last_enter = r[j].last_enter;
    f->r_ret = r[j].last_ret;
    f->len = w[i].len;
    f->tag = w[i].tag;
    f->wpid = w[i].pid;
    f->wtid = w[i].tid;
    f->rpid = r[j].pid;
    f->rtid = r[j].tid;
    i++;
    j++;
  }
  os->info.unpaired += (nw - i) + (nr - j);
}

/* Each wait's major faults: the kernel counts a fault when its handling
 * ends, after the thread ran again, so the faults a wait slept in show
 * in the thread's next wait's count (waits sorted by thread, then time). */
static void count_faults(ips_os_t *os) {
  size_t i;
  for (i = 0; i + 1 < os->nwaits; i++) {
    ips__os_wait_t *w = &os->waits[i];
    const ips__os_wait_t *n = &os->waits[i + 1];
    uint64_t d;
    if (n->tid != w->tid || !w->has_maj || !n->has_maj ||
        n->maj_flt < w->maj_flt)
      continue;
    d = n->maj_flt - w->maj_flt;
    w->faults = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
  }
}

int ips__os_index(ips_os_t *os) {
  size_t i, k;
  if (os->nsides && !(os->frames = calloc(os->nsides, sizeof *os->frames)))
    return -ENOMEM;
  if (os->nsides) /* qsort's array may not be NULL, even empty */
    qsort(os->sides, os->nsides, sizeof *os->sides, by_side);
  ips__os_drop_sides(os);
  for (i = 0; i < os->nsides; i = k) {
    size_t nr = 0;
    for (k = i; k < os->nsides && os->sides[k].pipe == os->sides[i].pipe; k++)
      nr += !os->sides[k].write;
    pair_pipe(os, os->sides + i, nr, os->sides + i + nr, k - i - nr);
  }
  free(os->sides);
  os->sides = NULL;
  if (os->nframes)
    qsort(os->frames, os->nframes, sizeof *os->frames, by_write);
  if (os->nwaits)
    qsort(os->waits, os->nwaits, sizeof *os->waits, by_tid_on);
  ips__os_drop_waits(os);
  count_faults(os);
  if (os->nprocs)
    qsort(os->procs, os->nprocs, sizeof *os->procs, by_vat_ns);
  if (os->ntasks)
    qsort(os->tasks, os->ntasks, sizeof *os->tasks, by_tid);
  os->info.frames = os->nframes;
  os->info.waits = os->nwaits;
  if (!os->info.ended) { /* cut short: it covers what it has */
    for (i = 0; i < os->nframes; i++)
      if (os->frames[i].r_ret > os->end) os->end = os->frames[i].r_ret;
    for (i = 0; i < os->nwaits; i++)
      if (os->waits[i].on > os->end) os->end = os->waits[i].on;
  }
  return 0;
}

/* The first wait of tid whose end is after t (or os->nwaits). */
static size_t first_wait(const ips_os_t *os, uint32_t tid, int64_t t) {
  size_t lo = 0, hi = os->nwaits;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const ips__os_wait_t *w = &os->waits[mid];
    if (w->tid < tid || (w->tid == tid && w->on <= t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int64_t overlap(int64_t x0, int64_t x1, int64_t a, int64_t b) {
  int64_t lo = x0 > a ? x0 : a, hi = x1 < b ? x1 : b;
  return hi > lo ? hi - lo : 0;
}

/* When wait w's sleep ended: a preemption (why 0) did not sleep, a wake
 * not recorded is taken as its return to a CPU.  From then to w->on it
 * waited for a CPU. */
static int64_t woken(const ips__os_wait_t *w) {
  return w->why == 0 ? w->off : w->wake ? w->wake : w->on;
}

/* Wait w's sleep (*sl) and its wait for a CPU after it (*cw) within
 * [a, b]. */
static void wait_parts(const ips__os_wait_t *w, int64_t a, int64_t b,
                       int64_t *sl, int64_t *cw) {
  int64_t s = woken(w);
  *sl = overlap(w->off, s, a, b);
  *cw = overlap(s, w->on, a, b);
}

void ips__os_by_add(ips_os_by_t *by, const char *sc, int64_t ns) {
  size_t i, last = IPS_OS_BY - 1;
  if (!ns)
    return;
  for (i = 0; i < last && by[i].sc[0] && strcmp(by[i].sc, sc); i++)
    ;
  if (i == last && by[i].sc[0] && strcmp(by[i].sc, sc))
    sc = "other"; /* a name past the table's: the last slot is "other" */
  if (strcmp(by[i].sc, sc))
    snprintf(by[i].sc, sizeof by[i].sc, "%s", sc);
  ips_sum_add(&by[i].ns, ns);
}

/* 1 when system call sc only waits for the storage: its sleep is "disk"
 * whatever the thread's state (a FUSE or network file system sleeps
 * interruptibly there, a local disk uninterruptibly). */
static int sc_sync(const char *sc) {
  static const char *const sync[] = {"fsync", "fdatasync", "sync_file_range",
                                     "syncfs", "sync", "msync"};
  size_t i;
  for (i = 0; i < sizeof sync / sizeof sync[0]; i++)
    if (!strcmp(sc, sync[i]))
      return 1;
  return 0;
}

/* The scheduler's charge and the hypervisor's steal over one run of a
 * thread: from wait p's end to wait n's start (n the next wait of the same
 * thread, recorded with the run time and steal clocks).  0, or -1 when
 * the records cannot say (an event lost between them, a counter gone
 * backwards, a charge far beyond the run: the run is then all on_cpu). */
static int run_charge(const ips__os_wait_t *p, const ips__os_wait_t *n,
                      int64_t *charged, int64_t *steal) {
  int64_t wall = n->off - p->on;
  uint64_t c, st = 0;
  if (!p->has_run || !n->has_run || wall <= 0 || n->runtime < p->runtime)
    return -1;
  c = n->runtime - p->runtime;
  if (n->steal_off >= p->steal_on)
    st = n->steal_off - p->steal_on;
  /* Two clocks read at nearly the same instants: beyond twice the run
   * and a millisecond they are not of this run. */
  if (c > 2 * (uint64_t)wall + 1000000 || st > (uint64_t)wall)
    return -1;
  *charged = (int64_t)c;
  *steal = (int64_t)st;
  return 0;
}

/* Thread tid's running time over [a, b] (on_cpu: the time not in its
 * waits, ran), split by the scheduler's own count: what it charged to the
 * thread (its CPU clock: on_cpu), what the hypervisor stole from the CPU
 * meanwhile (steal), and the rest of the time it held the CPU (uncharged:
 * negative when the kernel charged the run more than the switches show).
 * A run partly inside [a, b] gives its charge and steal in proportion. */
static void run_split(const ips_os_t *os, uint32_t tid, int64_t a, int64_t b,
                      int64_t on_cpu, ips_os_time_t *t) {
  size_t k = first_wait(os, tid, a);
  int64_t known = 0;
  if (k > 0 && os->waits[k - 1].tid == tid)
    k--; /* the run going on at a */
  for (; k + 1 < os->nwaits; k++) {
    const ips__os_wait_t *p = &os->waits[k], *n = &os->waits[k + 1];
    int64_t ov, c, st, wall;
    if (p->tid != tid || n->tid != tid || p->on >= b)
      break;
    ov = overlap(p->on, n->off, a, b);
    if (!ov || run_charge(p, n, &c, &st) != 0)
      continue;
    wall = n->off - p->on;
    if (ov < wall) { /* in proportion: within int64 as doubles */
      c = (int64_t)((double)c * (double)ov / (double)wall);
      st = (int64_t)((double)st * (double)ov / (double)wall);
    }
    t->on_cpu += c;
    t->steal += st;
    t->uncharged += ov - c - st;
    known += ov;
  }
  t->on_cpu += on_cpu - known;
}

/* The name a wait's CPU holder is counted under: "comm:pid" (a name
 * without spaces or '=': a CSV cell lists them as "name=ns"), "(idle)"
 * for none, "#tid" when the recording does not name it. */
static void holder_name(const ips_os_t *os, uint32_t tid, char out[24]) {
  size_t lo = 0, hi = os->ntasks, i;
  if (!tid) {
    snprintf(out, 24, "(idle)");
    return;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (os->tasks[mid].tid < tid) lo = mid + 1;
    else hi = mid;
  }
  if (lo == os->ntasks || os->tasks[lo].tid != tid) {
    snprintf(out, 24, "#%lu", (unsigned long)tid);
    return;
  }
  { /* the pid whole, the name cut to fit: 24 bytes in all */
    char pid[16];
    int n = snprintf(pid, sizeof pid, ":%lu", (unsigned long)os->tasks[lo].pid);
    snprintf(out, 24, "%.*s%s", 23 - n, os->tasks[lo].comm, pid);
  }
  for (i = 0; out[i]; i++)
    if (out[i] == ' ' || out[i] == '=')
      out[i] = '_';
}

/* Thread tid's time over [a, b] into t. */
static void thread_split(const ips_os_t *os, uint32_t tid, int64_t a,
                         int64_t b, ips_os_time_t *t) {
  size_t i;
  int64_t off = 0;
  if (b <= a || !tid || a < os->start || b > os->end) {
    t->not_measured += b - a;
    return;
  }
  for (i = first_wait(os, tid, a); i < os->nwaits; i++) {
    const ips__os_wait_t *w = &os->waits[i];
    int64_t sl, cw;
    if (w->tid != tid || w->off >= b)
      break;
    wait_parts(w, a, b, &sl, &cw);
    t->cpu_wait += cw;
    if (cw && w->has_run) { /* who had the CPU meanwhile (version 3) */
      char who[24];
      holder_name(os, w->why == 0 ? w->took : w->left, who);
      ips__os_by_add(t->cpu_wait_by, who, cw);
    }
    if (w->off >= a) /* a wait's faults go where it began: counted once */
      t->major_faults += w->faults;
    if ((w->why == 2 && w->sc[0]) ||
        (w->why == 1 && sc_sync(w->sc))) {
      t->disk += sl;
      ips__os_by_add(t->disk_by, w->sc, sl);
    } else if (w->why == 2) {
      t->fault += sl;
    } else {
      t->sleep += sl;
      ips__os_by_add(t->sleep_by, w->sc[0] ? w->sc : "(none)", sl);
    }
    off += sl + cw;
  }
  run_split(os, tid, a, b, (b - a) - off, t);
}

/* The worker of vat (SwingSet names it in the worker's first argument,
 * "v12:bank") that was started last by t: its pid, or 0. */
static uint32_t vat_worker(const ips_os_t *os, const char *vat, int64_t t) {
  size_t lo = 0, hi = os->nprocs;
  while (lo < hi) { /* the first after (vat, t) */
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(os->procs[mid].vat, vat);
    if (c < 0 || (c == 0 && os->procs[mid].ns <= t)) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && !strcmp(os->procs[lo - 1].vat, vat) ? os->procs[lo - 1].pid
                                                        : 0;
}

void ips__os_thread_split(const ips_os_t *os, uint32_t tid, int64_t a,
                          int64_t b, ips_os_time_t *t) {
  thread_split(os, tid, a, b, t);
}

/* The frame of a pipe segment [a, b] (on the recording's clock, each end
 * known to within slack): tag, written by the worker (to_parent) or to it,
 * by process wpid when known, written after the delivery's previous frame
 * was read (after: each frame of a delivery answers the one before), and
 * taken by no other delivery (d itself split again finds its own); NULL
 * if none. */
static ips__os_frame_t *find_frame(ips_os_t *os, const ips_delivery_t *d,
                                   int64_t a, int64_t b, int64_t slack,
                                   int64_t after, const char *tags,
                                   int to_parent, uint32_t wpid) {
  size_t lo = 0, hi = os->nframes;
  int64_t from = a - slack > after ? a - slack : after;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (os->frames[mid].w_enter < from) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < os->nframes && os->frames[lo].w_enter <= b + slack; lo++) {
    ips__os_frame_t *f = &os->frames[lo];
    uint32_t worker = to_parent ? f->wpid : f->rpid;
    int other = f->used && (f->owner_line != d->line || f->owner_d != d->P[0]);
    if (!other && f->r_ret <= b + slack && f->tag &&
        strchr(tags, f->tag) && (!wpid || worker == wpid))
      return f;
  }
  return NULL;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* The reader's time over [x, y] of the pipe's stretch (the bytes
 * written, the reader not yet woken for them), by its own waits there:
 * asleep since before the bytes came — in its read, or its poll — is
 * the pipe's (in_pipe); a sleep it began after them was for something
 * else (sleep), uninterruptible ones are faults or the disk (page_fault),
 * runnable ones are waiting for a CPU; the rest it ran (its own code,
 * with the bytes waiting: reader). */
static void reader_stretch(const ips_os_t *os, uint32_t tid, int64_t x,
                           int64_t y, ips_os_split_t *out) {
  int64_t waited = 0;
  size_t i;
  for (i = first_wait(os, tid, x); i < os->nwaits && x < y; i++) {
    const ips__os_wait_t *w = &os->waits[i];
    int64_t sl, cw;
    if (w->tid != tid || w->off >= y)
      break;
    wait_parts(w, x, y, &sl, &cw);
    out->pipe_cpu_wait += cw;
    if (w->why == 2)
      out->pipe_page_fault += sl;
    else if (w->off < x)
      out->pipe_in_pipe += sl;
    else
      out->pipe_sleep += sl;
    waited += sl + cw;
  }
  out->pipe_reader += (y - x) - waited;
}

/* Segment [a, b] of the pipe, carried by frame f, into out. */
static void pipe_split(const ips_os_t *os, const ips__os_frame_t *f,
                       int64_t a, int64_t b, ips_os_split_t *out) {
  int64_t p1, p2, p3, p4, wake = f->r_enter, on = f->r_enter;
  size_t i = first_wait(os, f->rtid, f->r_ret);
  /* The reader's last wait before it had the frame's last byte, if it
   * ended after the write began: it was woken for the frame (in its read,
   * or in the poll before it: a parent on libuv reads only when epoll
   * says it can). */
  if (i > 0 && os->waits[i - 1].tid == f->rtid &&
      os->waits[i - 1].on >= f->w_enter) {
    const ips__os_wait_t *w = &os->waits[i - 1];
    wake = woken(w);
    on = w->on;
  }
  p1 = clamp(f->w_enter, a, b);
  p2 = clamp(f->w_ret, p1, b);
  p3 = clamp(wake, p2, b);
  p4 = clamp(on, p3, b);
  out->pipe_before_write += p1 - a;
  out->pipe_write += p2 - p1;
  reader_stretch(os, f->rtid, p2, p3, out);
  out->pipe_cpu_wait += p4 - p3;
  out->pipe_reader += b - p4;
}

/* The offset from d's parent clock to the recording's (CLOCK_MONOTONIC),
 * and how far it may be off (*slack).  ipcstamp's own parent stamps
 * CLOCK_MONOTONIC itself.  SwingSet's monotime counts from the kernel's
 * start: then the worker's stamps give the way, through the offset the
 * analysis estimated between the two processes (docs/report.md, Clocks) —
 * the worker's CLOCK_MONOTONIC (mono_offset), or its wall clock (xsnap's
 * timestamps), which the recording's first line ties to its own. */
static int64_t clock_offset(const ips_os_t *os, const ips_delivery_t *d,
                            int64_t *slack) {
  int64_t o = 0;
  *slack = 0;
  if (d->clock == 'm' && !d->mono_offset)
    return 0;
  *slack = d->bound_ns > 0 && d->bound_ns < 1000000000 ? d->bound_ns : 0;
  if (d->clock == 'm')
    o = d->offset_ns;
  else if (os->wall_minus_mono)
    o = d->offset_ns - os->wall_minus_mono;
  /* Stamps and the recording's times are below 2^62: an offset beyond
   * 2^61 comes from a file that lies, and would overflow the sums. */
  return o > ((int64_t)1 << 61) || o < -((int64_t)1 << 61) ? 0 : o;
}

int64_t ips__os_clock_offset(const ips_os_t *os, const ips_delivery_t *d,
                             int64_t *slack) {
  return clock_offset(os, d, slack);
}

/* The time between the delivery before d and d, which ends at d's start
 * (o: d's clock offset), on the kernel's thread that d's frames found:
 * the parent's own time (its JavaScript, its database, a heap snapshot),
 * no frame of d is in it. */
static void before_split(const ips_os_t *os, const ips_delivery_t *d,
                         int64_t o, ips_os_split_t *out) {
  int64_t start = d->P[0] + o, gap;
  if (!d->has_gap)
    return;
  out->has_before = 1;
  /* Each part is below 2^62 (the stamps' limit): the sum cannot wrap. */
  gap = d->gap_ns + d->snap_save_ns + d->snap_load_ns;
  if (gap > 0)
    thread_split(os, (uint32_t)out->kernel_tid, start - gap, start,
                 &out->before);
}

int ips_os_split(ips_os_t *os, const ips_delivery_t *d, ips_os_split_t *out) {
  enum { CHUNK = 64 };
  int64_t slack, o = clock_offset(os, d, &slack);
  int64_t len[CHUNK], t = d->P[0] + o;
  unsigned char kind[CHUNK];
  uint32_t wpid = d->worker_pid > 0 && d->worker_pid < 0xffffffffll
                      ? (uint32_t)d->worker_pid : 0;
  uint32_t wtid = 0, ktid = 0, kpid = 0;
  size_t from = 0, n, j, pass;
  int64_t after = INT64_MIN;
  memset(out, 0, sizeof *out);
  if (!wpid && d->vat)
    wpid = vat_worker(os, d->vat, t + slack);
  out->frames_expected = 2 + 2 * d->n_up;
  /* Pass 0 finds the frames (and so the threads), pass 1 splits the
   * worker's and the kernel's stretches on those threads. */
  for (pass = 0; pass < 2; pass++, from = 0, t = d->P[0] + o)
    while ((n = ips_delivery_segments(d, from, CHUNK, len, kind)) > 0) {
      for (j = 0; j < n; t += len[j], j++) {
        int k = kind[j], up = k == IPS_SEG_UPCALL || k == IPS_SEG_RESULT;
        ips__os_frame_t *f;
        if (k == IPS_SEG_WORKER || k == IPS_SEG_KERNEL) {
          if (pass == 1)
            thread_split(os, k == IPS_SEG_WORKER ? wtid : ktid, t, t + len[j],
                         k == IPS_SEG_WORKER ? &out->worker : &out->kernel);
          continue;
        }
        if (k == IPS_SEG_UNMATCHED || pass == 1)
          continue;
        f = find_frame(os, d, t, t + len[j], slack, after,
                       k == IPS_SEG_SEND ? "?e" : k == IPS_SEG_REPLY ? "/"
                       : k == IPS_SEG_UPCALL ? "?" : ".!", up, wpid);
        if (!f) {
          out->pipe_not_measured += len[j];
          continue;
        }
        out->frames++;
        f->used = 1;
        f->owner_line = d->line;
        f->owner_d = d->P[0];
        after = f->r_ret;
        wpid = up ? f->wpid : f->rpid;
        if (!wtid) wtid = up ? f->wtid : f->rtid;
        if (!ktid) ktid = up ? f->rtid : f->wtid;
        if (!kpid) kpid = up ? f->rpid : f->wpid;
        pipe_split(os, f, t, t + len[j], out);
      }
      from += n;
    }
  out->worker_pid = wpid;
  out->kernel_pid = kpid;
  out->kernel_tid = ktid;
  before_split(os, d, o, out);
  return 0;
}
