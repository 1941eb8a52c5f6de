/* attr.c — assemble deliveries and attribute their time (DESIGN.md §6). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "attr.h"

#define MAX_UPCALLS (1 << 20) /* per delivery: beyond, the delivery is dropped */

typedef struct {
  int64_t w, m;
  int has_m;
} pst_t;

typedef struct {
  pst_t U, R;
  int has_R;
  long long snum;
} up_t;

typedef struct {
  ips__vat_stats_t s;
  char name[IPS__VAT_MAX];
  int open, bad; /* bad: already reported, drop silently until the result */
  long long crank, dnum;
  long line;
  char desc[IPS__DESC_MAX];
  pst_t D;
  up_t *up;
  size_t n_up, cap_up;
  /* Best NTP-style estimate per (worker clock, parent clock) pair. */
  int has_est[4];
  int64_t est_off[4], est_delay[4];
} vat_t;

struct ips__attr {
  int mode;
  int64_t quake_ns;
  ips__delivery_cb cb;
  void *arg;
  vat_t **vats;
  size_t nvats, capvats;
  size_t *hash;
  size_t hcap;
  int has_lastE[2];
  int64_t lastE[2];
  int64_t *P, *W, *wsrc;
  ips__drive_stats_t *st;
  FILE *msgs;
  const char *prog, *path;
};

static const char *const skip_msgs[] = {
#define XX(name, msg) msg,
    IPS__SKIP_MAP(XX)
#undef XX
};

static const char *const skip_names[] = {
#define XX(name, msg) #name,
    IPS__SKIP_MAP(XX)
#undef XX
};

const char *ips__skip_name(int reason) {
  return reason >= 0 && reason < IPS__SKIP_N ? skip_names[reason] : "?";
}

const char *ips__skip_msg(int reason) {
  return reason >= 0 && reason < IPS__SKIP_N ? skip_msgs[reason] : "?";
}

void ips__skip(ips__drive_stats_t *st, FILE *msgs, const char *prog,
               const char *path, long line, int reason, const char *detail) {
  if (st) {
    st->skipped[reason]++;
    if (reason <= IPS__SKIP_TOO_LONG)
      st->skipped_lines++;
    else
      st->skipped_deliveries++;
  }
  if (msgs)
    fprintf(msgs, "%s: %s:%ld: %s%s%s (skipped)\n", prog, path, line,
            ips__skip_msg(reason), detail && *detail ? ": " : "",
            detail ? detail : "");
}

ips__attr_t *ips__attr_new(int clock_mode, int64_t quake_ns,
                           ips__delivery_cb cb, void *arg) {
  ips__attr_t *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  a->mode = clock_mode;
  a->quake_ns = quake_ns;
  a->cb = cb;
  a->arg = arg;
  a->hcap = 64;
  a->hash = calloc(a->hcap, sizeof *a->hash);
  a->P = malloc(sizeof(int64_t) * (2 + 2 * (size_t)MAX_UPCALLS));
  a->W = malloc(sizeof(int64_t) * (2 + 2 * (size_t)MAX_UPCALLS));
  if (!a->hash || !a->P || !a->W) {
    ips__attr_free(a);
    return NULL;
  }
  return a;
}

void ips__attr_free(ips__attr_t *a) {
  size_t i;
  if (!a)
    return;
  for (i = 0; i < a->nvats; i++) {
    free(a->vats[i]->up);
    free(a->vats[i]);
  }
  free(a->vats);
  free(a->hash);
  free(a->P);
  free(a->W);
  free(a);
}

void ips__attr_bind(ips__attr_t *a, ips__drive_stats_t *st, FILE *msgs,
                    const char *prog, const char *path) {
  a->st = st;
  a->msgs = msgs;
  a->prog = prog;
  a->path = path;
}

size_t ips__attr_nvats(const ips__attr_t *a) { return a->nvats; }
const ips__vat_stats_t *ips__attr_vat(const ips__attr_t *a, size_t i) {
  return &a->vats[i]->s;
}

static size_t hash_str(const char *s) {
  size_t h = 1469598103934665603ull;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 1099511628211ull;
  return h;
}

/* The vat's state; hash slots hold index + 1 so zero means empty. */
static vat_t *find_vat(ips__attr_t *a, const char *name) {
  size_t m = a->hcap - 1, i = hash_str(name) & m;
  vat_t *v;
  while (a->hash[i]) {
    v = a->vats[a->hash[i] - 1];
    if (!strcmp(v->name, name))
      return v;
    i = (i + 1) & m;
  }
  if (a->nvats == a->capvats) {
    size_t nc = a->capvats ? a->capvats * 2 : 16;
    vat_t **nv = realloc(a->vats, nc * sizeof *nv);
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
      size_t k = hash_str(a->vats[j]->name) & (nh - 1);
      while (h[k])
        k = (k + 1) & (nh - 1);
      h[k] = j + 1;
    }
    free(a->hash);
    a->hash = h;
    a->hcap = nh;
    m = nh - 1;
    i = hash_str(name) & m;
    while (a->hash[i])
      i = (i + 1) & m;
  }
  v = calloc(1, sizeof *v);
  if (!v)
    return NULL;
  strcpy(v->name, name);
  v->s.vat = v->name;
  a->vats[a->nvats++] = v;
  a->hash[i] = a->nvats;
  return v;
}

static void skip(ips__attr_t *a, long line, int reason, const char *detail) {
  ips__skip(a->st, a->msgs, a->prog, a->path, line, reason, detail);
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
static void drop_open(ips__attr_t *a, vat_t *v, const char *why) {
  if (v->open && !v->bad)
    skip(a, v->line, IPS__SKIP_UNFINISHED, why);
  v->open = 0;
  v->bad = 0;
  v->n_up = 0;
}

static void on_deliver(ips__attr_t *a, vat_t *v, const ips__rec_t *r,
                       long line) {
  char why[200];
  snprintf(why, sizeof why, "line %ld starts another delivery of %s", line,
           v->name);
  drop_open(a, v, why);
  v->open = 1;
  v->crank = r->crank;
  v->dnum = r->dnum;
  v->line = line;
  v->D = pstamp(r);
  snprintf(v->desc, sizeof v->desc, "%s", r->desc[0] ? r->desc : "?");
}

static int matches(const vat_t *v, const ips__rec_t *r) {
  return v->open && (!(r->have & IPS__F_DNUM) || r->dnum == v->dnum) &&
         (!(r->have & IPS__F_CRANK) || r->crank == v->crank);
}

static void on_syscall(ips__attr_t *a, vat_t *v, const ips__rec_t *r,
                       long line, int is_result) {
  char d[200];
  up_t *u;
  if (!matches(v, r)) {
    snprintf(d, sizeof d, "%s of %s (no delivery in progress)",
             is_result ? "syscall-result" : "syscall", v->name);
    skip(a, line, IPS__SKIP_ORPHAN, d);
    return;
  }
  if (v->bad)
    return;
  if (!is_result) {
    if (v->n_up > 0 && !v->up[v->n_up - 1].has_R) {
      snprintf(d, sizeof d, "syscall at line %ld before the result of the last",
               line);
      skip(a, v->line, IPS__SKIP_STAMPS, d);
      v->bad = 1;
      return;
    }
    if (v->n_up == MAX_UPCALLS) {
      skip(a, v->line, IPS__SKIP_STAMPS, "more than 2^20 syscalls");
      v->bad = 1;
      return;
    }
    if (v->n_up == v->cap_up) {
      size_t nc = v->cap_up ? v->cap_up * 2 : 16;
      up_t *nu = realloc(v->up, nc * sizeof *nu);
      if (!nu) {
        skip(a, v->line, IPS__SKIP_STAMPS, "out of memory");
        v->bad = 1;
        return;
      }
      v->up = nu;
      v->cap_up = nc;
    }
    u = &v->up[v->n_up++];
    u->U = pstamp(r);
    u->has_R = 0;
    u->snum = (r->have & IPS__F_SNUM) ? r->snum : -1;
    return;
  }
  if (v->n_up == 0 || v->up[v->n_up - 1].has_R ||
      ((r->have & IPS__F_SNUM) && v->up[v->n_up - 1].snum >= 0 &&
       v->up[v->n_up - 1].snum != r->snum)) {
    snprintf(d, sizeof d, "syscall-result of %s has no pending syscall",
             v->name);
    skip(a, line, IPS__SKIP_ORPHAN, d);
    return;
  }
  u = &v->up[v->n_up - 1];
  u->R = pstamp(r);
  u->has_R = 1;
}

static int64_t iabs(int64_t x) { return x < 0 ? -x : x; }

/* NTP-style offset (worker - parent) from the round trips of this delivery,
 * kept per vat when it beats the best so far (smallest delay). */
static void estimate(vat_t *v, int slot, const int64_t *P, const int64_t *W,
                     size_t n, int64_t *off, int64_t *bound) {
  size_t last = 1 + 2 * n, i;
  int64_t bo = 0, bd = 0;
  int have = 0;
  for (i = 0; i <= n; i++) {
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

static void on_result(ips__attr_t *a, vat_t *v, const ips__rec_t *r,
                      long line) {
  size_t n, k, i, last;
  int have_pm, have_ww, have_wm, causal = 0, slot;
  char d[160];
  int64_t *P = a->P, *W = a->W;
  pst_t E = pstamp(r);
  const int64_t *wsrc;
  ips__delivery_t dv;
  if (!matches(v, r)) {
    snprintf(d, sizeof d, "deliver-result of %s (no delivery in progress)",
             v->name);
    skip(a, line, IPS__SKIP_ORPHAN, d);
    return;
  }
  v->open = 0;
  if (v->bad) {
    v->bad = 0;
    v->n_up = 0;
    return;
  }
  n = v->n_up;
  v->n_up = 0;
  if (n > 0 && !v->up[n - 1].has_R) {
    skip(a, v->line, IPS__SKIP_STAMPS, "the last syscall has no result");
    return;
  }
  if (!(r->have & IPS__F_METER)) {
    skip(a, v->line, IPS__SKIP_NOSTAMPS, "dr has no metering object");
    return;
  }
  if ((r->have & IPS__F_IPSV) && r->ipsv != 1) {
    snprintf(d, sizeof d, "ipcstamp.v %ld at line %ld (this reader knows 1)",
             r->ipsv, line);
    skip(a, v->line, IPS__SKIP_VERSION, d);
    return;
  }
  if (r->dropped > 0) {
    snprintf(d, sizeof d, "%lld stamps dropped, see line %ld", r->dropped,
             line);
    skip(a, v->line, IPS__SKIP_DROPPED, d);
    return;
  }
  k = 2 + 2 * n;
  have_ww = (r->have & IPS__F_WALLS) != 0;
  have_wm = (r->have & IPS__F_WMONO) != 0;
  if (!have_ww && !have_wm) {
    skip(a, v->line, IPS__SKIP_NOSTAMPS, "metering has neither timestamps nor ipcstamp.mono");
    return;
  }
  if ((have_ww && r->n_walls != k) || (have_wm && r->n_wmono != k) ||
      ((r->have & IPS__F_KINDS) && r->n_kinds != k)) {
    snprintf(d, sizeof d,
             "%zu syscalls need %zu stamps; the metering at line %ld has %zu",
             n, k, line, have_wm ? r->n_wmono : r->n_walls);
    skip(a, v->line, IPS__SKIP_STAMPS, d);
    return;
  }
  if (r->have & IPS__F_KINDS) {
    for (i = 0; i < k; i++) {
      char want = i == 0 ? 'd' : i == k - 1 ? 'e' : (i & 1) ? 'u' : 'r';
      if (r->kinds[i] != want) {
        snprintf(d, sizeof d, "ipcstamp.kinds \"%.40s\" at line %ld", r->kinds,
                 line);
        skip(a, v->line, IPS__SKIP_STAMPS, d);
        return;
      }
    }
  }
  have_pm = v->D.has_m && E.has_m;
  for (i = 0; i < n; i++)
    have_pm = have_pm && v->up[i].U.has_m && v->up[i].R.has_m;
  /* Parent stamps in its mono clock if it has one (never jumps). */
  if (a->mode == IPS__CLOCK_WALL)
    have_pm = 0;
  last = k - 1;
#define PS(s) (have_pm ? (s).m : (s).w)
  P[0] = PS(v->D);
  for (i = 0; i < n; i++) {
    P[1 + 2 * i] = PS(v->up[i].U);
    P[2 + 2 * i] = PS(v->up[i].R);
  }
  P[last] = PS(E);
#undef PS
  if (have_pm && have_wm) {
    causal = 1;
    for (i = 0; i < k && causal; i++) {
      int64_t p = P[i], w = r->wmono[i];
      /* parent sends D, R; the worker sends u, e: the receiver stamps last */
      if ((i == 0 || (i % 2 == 0 && i != last)) ? w < p : p < w)
        causal = 0;
      if (i > 0 && r->wmono[i] < r->wmono[i - 1])
        causal = 0;
    }
  }
  memset(&dv, 0, sizeof dv);
  if (a->mode == IPS__CLOCK_MONO) {
    if (!have_pm || !have_wm) {
      skip(a, v->line, IPS__SKIP_CLOCK,
           have_wm ? "the parent has no monotime" : "the worker has no ipcstamp.mono");
      return;
    }
    causal = 1;
  } else if (a->mode == IPS__CLOCK_WALL && !have_ww) {
    skip(a, v->line, IPS__SKIP_CLOCK, "the worker has no wall timestamps");
    return;
  }
  if (causal) {
    memcpy(W, r->wmono, k * sizeof *W);
    dv.clock = 'm';
  } else {
    int64_t off, bound;
    wsrc = have_ww && a->mode != IPS__CLOCK_MONO ? r->walls : r->wmono;
    slot = (wsrc == r->walls ? 0 : 2) + (have_pm ? 1 : 0);
    estimate(v, slot, P, wsrc, n, &off, &bound);
    for (i = 0; i < k; i++)
      W[i] = wsrc[i] - off;
    dv.clock = 'w';
    dv.offset_ns = off;
    dv.bound_ns = bound;
  }
  dv.pclock = have_pm ? 'm' : 'w';
  dv.vat = v->name;
  dv.desc = v->desc;
  dv.crank = v->crank;
  dv.dnum = v->dnum;
  dv.line = v->line;
  dv.ok = r->ok;
  dv.n_up = n;
  dv.P = P;
  dv.W = W;
  dv.total = P[last] - P[0];
  dv.pipe = (W[0] - P[0]) + (P[last] - W[last]);
  for (i = 0; i < n; i++) {
    dv.pipe += (P[1 + 2 * i] - W[1 + 2 * i]) + (W[2 + 2 * i] - P[2 + 2 * i]);
    dv.kernel += P[2 + 2 * i] - P[1 + 2 * i];
  }
  for (i = 0; i <= n; i++)
    dv.worker += W[2 * i + 1] - W[2 * i];
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
  dv.quake = dv.quake_ns > a->quake_ns;
  if (dv.quake) /* the offset found before the quake is stale now */
    memset(v->has_est, 0, sizeof v->has_est);
  {
    int c = have_pm;
    if (a->has_lastE[c] && P[0] >= a->lastE[c]) {
      dv.has_gap = 1;
      dv.gap_ns = P[0] - a->lastE[c];
    }
    if (!a->has_lastE[c] || P[last] > a->lastE[c])
      a->lastE[c] = P[last];
    a->has_lastE[c] = 1;
  }
  v->s.n++;
  if (dv.clock == 'm')
    v->s.n_mono++;
  else {
    v->s.n_wall++;
    v->s.has_offset = 1;
    v->s.offset_ns = dv.offset_ns;
    v->s.bound_ns = dv.bound_ns;
  }
  v->s.pipe += dv.pipe;
  v->s.worker += dv.worker;
  v->s.kernel += dv.kernel;
  v->s.total += dv.total;
  if (dv.has_cpu) {
    v->s.n_cpu++;
    v->s.cpu += dv.cpu_ns;
  }
  if (dv.quake)
    v->s.quakes++;
  if (a->st) {
    a->st->deliveries++;
    if (dv.clock == 'm')
      a->st->n_mono++;
    else
      a->st->n_wall++;
    if (dv.quake)
      a->st->quakes++;
  }
  if (a->cb)
    a->cb(a->arg, &dv);
}

void ips__attr_feed(ips__attr_t *a, const ips__rec_t *r, long line) {
  vat_t *v;
  const char *miss = NULL;
  if (r->type == IPS__REC_OTHER)
    return;
  if (r->type == IPS__REC_START) {
    if ((r->have & IPS__F_IPSV) && r->ipsv != 1) {
      char d[80];
      snprintf(d, sizeof d, "slog-start says ipcstamp.v %ld (this reader knows 1)",
               r->ipsv);
      skip(a, line, IPS__SKIP_VERSION, d);
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
    skip(a, line, IPS__SKIP_MISSING, d);
    return;
  }
  v = find_vat(a, r->vat);
  if (!v) {
    skip(a, line, IPS__SKIP_MISSING, "out of memory");
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

void ips__attr_finish(ips__attr_t *a) {
  size_t i;
  for (i = 0; i < a->nvats; i++)
    drop_open(a, a->vats[i], "the file ends first");
}

size_t ips__nsegments(const ips__delivery_t *d) { return 3 + 4 * d->n_up; }

int64_t ips__segment(const ips__delivery_t *d, size_t j, const char **name) {
  const int64_t *P = d->P, *W = d->W;
  size_t last = 1 + 2 * d->n_up, i;
  if (j == 0) {
    *name = "send";
    return W[0] - P[0];
  }
  if (j == 2 + 4 * d->n_up) {
    *name = "result";
    return P[last] - W[last];
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
