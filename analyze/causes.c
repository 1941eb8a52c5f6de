/* causes.c — what the analysis keeps of a slogfile's deliveries besides
 * their times, when asked (ips_analysis_keep_causes): the kind of each one
 * (the deliver record's kd[0], else vd[0]: "message", "notify", ...) and
 * the deliveries that caused it (ipcstamp-analyze-causes.h).  Fed the
 * lines the analysis reads, in file order (analysis.c), by the one reader:
 * each deliver and syscall record is scanned here for the few values that
 * matter, apart from the attribution's parse, which skips these payloads.
 *
 * Causes, from the kernel's side of the records (kd and ksc, which
 * SwingSet's kernel writes and `ipcstamp run` does not):
 *  - a syscall send whose message has a result promise R: the message's
 *    delivery (kd ["message", target, {result: R}]) was caused by the
 *    delivery that made the syscall ('s');
 *  - a notify of promise P (kd ["notify", [[P, ...], ...]]) was caused by
 *    the delivery whose syscall resolve resolved P ('r'), and, as Agoric's
 *    converter links it, by the delivery that sent the message whose
 *    result P is ('s').
 * A message sent without a result promise (sendOnly) names nothing the
 * receiving delivery could be matched on: it has no link. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "causes.h"

/* Promises remembered (each its cause), at most: past this the table is
 * emptied and begins again (counted), so memory stays bounded on any file. */
#define MAX_PROMISES (1u << 17)
/* Deliver records kept: the analysis reports a delivery at its result,
 * after its deliver record and its syscalls (and, in a run of many vats,
 * the other vats' records); a delivery's are looked up by its line. */
#define PENDING 1024

typedef struct {
  char key[40]; /* 's' or 'r', then the promise id; "" for a free slot */
  ips_cause_t c;
} promise_t;

struct ips__causes_s {
  promise_t *tab;
  size_t cap, n;
  uint64_t forgotten;
  ips_delivery_causes_t pending[PENDING];
  long pending_line[PENDING];
  /* the deliver record being run: its syscalls' causes are it */
  ips_cause_t cur;
  int cur_ok;
  /* the line being taken (ips__causes_take) */
  char *buf;
  size_t len, cap_buf;
};

ips__causes_t *ips__causes_new(void) {
  ips__causes_t *x = calloc(1, sizeof *x);
  return x;
}

void ips__causes_free(ips__causes_t *x) {
  if (!x)
    return;
  free(x->tab);
  free(x->buf);
  free(x);
}

static promise_t *slot(promise_t *tab, size_t cap, const char *key) {
  size_t i = (size_t)ips_fnv1a_str(key) & (cap - 1);
  while (tab[i].key[0] && strcmp(tab[i].key, key))
    i = (i + 1) & (cap - 1);
  return &tab[i];
}

/* Remembers key's cause (the latest wins). */
static void remember(ips__causes_t *x, const char *key,
                     const ips_cause_t *c) {
  promise_t *p;
  if (strlen(key) >= sizeof p->key)
    return;
  if (x->n >= MAX_PROMISES) { /* forget them all: bounded */
    memset(x->tab, 0, x->cap * sizeof *x->tab);
    x->forgotten += x->n;
    x->n = 0;
  }
  if (2 * (x->n + 1) > x->cap) {
    size_t nc = x->cap ? 2 * x->cap : 1024, i;
    promise_t *nt = calloc(nc, sizeof *nt);
    if (!nt)
      return; /* no memory: this cause is not known, nothing worse */
    for (i = 0; i < x->cap; i++)
      if (x->tab[i].key[0])
        *slot(nt, nc, x->tab[i].key) = x->tab[i];
    free(x->tab);
    x->tab = nt;
    x->cap = nc;
  }
  p = slot(x->tab, x->cap, key);
  if (!p->key[0]) {
    strcpy(p->key, key);
    x->n++;
  }
  p->c = *c;
}

static const ips_cause_t *recall(const ips__causes_t *x, const char *key) {
  const promise_t *p;
  if (!x->cap || strlen(key) >= sizeof p->key)
    return NULL;
  p = slot(x->tab, x->cap, key);
  return p->key[0] ? &p->c : NULL;
}

static void add_cause(ips_delivery_causes_t *f, const ips__causes_t *x,
                      char why, const char *kpid) {
  char key[48];
  const ips_cause_t *c;
  size_t i;
  snprintf(key, sizeof key, "%c%s", why, kpid);
  if (!(c = recall(x, key)))
    return;
  for (i = 0; i < f->n; i++) /* one link per delivery and reason */
    if (f->c[i].line == c->line && f->c[i].why == why)
      return;
  if (f->n == IPS_MAX_CAUSES)
    return;
  f->c[f->n] = *c;
  f->c[f->n].why = why;
  snprintf(f->c[f->n].kpid, sizeof f->c[f->n].kpid, "%s", kpid);
  f->n++;
}

/* ---- one record, read by yajl's callback parser ------------------------
 * No tree is built: the few values that matter are taken as they pass
 * (each copied into a small buffer, longer ones left out), so a record of
 * any size costs a constant beside its line, and one nested deeper than
 * DEPTH_MAX is given up at that depth instead of recursing. */

#define DEPTH_MAX 64
#define LEVELS 4      /* the deepest place a value is taken from */
#define RESOLVED_MAX 256 /* promises one syscall resolve names, at most */
#define ID_MAX 40        /* a kpid, a vat, a kind: longer is left out */

enum { K_OTHER, K_TYPE, K_VATID, K_VAT, K_CRANK, K_DNUM, K_REPLAY, K_KD,
       K_VD, K_KSC, K_RESULT };

typedef struct {
  ips__causes_t *x;
  int depth;                 /* containers open */
  struct { int array; size_t idx; int key; } lev[LEVELS + 1];
  char type[16], vat_id[ID_MAX], vat[ID_MAX];
  int has_vat_id, vat_id_ok, has_vat, has_kd;
  long long crank, dnum;
  int has_dnum, replay;
  char kd0[ID_MAX], vd0[ID_MAX], ksc0[ID_MAX], kd_result[ID_MAX],
      ksc_result[ID_MAX];
  ips_delivery_causes_t notify; /* kd[1][i][0]'s causes, looked up as read */
  char resolved[RESOLVED_MAX][ID_MAX]; /* ksc[2][i][0] */
  size_t nresolved;
} scan_t;

/* A string of at most ID_MAX - 1 bytes into out; 0 when longer. */
static int take_id(char out[ID_MAX], const unsigned char *s, size_t n) {
  if (n >= ID_MAX)
    return 0;
  memcpy(out, s, n);
  out[n] = '\0';
  return 1;
}

static int key_of(const unsigned char *k, size_t n, int depth) {
  static const struct { const char *name; int id; } keys[] = {
      {"type", K_TYPE}, {"vatID", K_VATID}, {"vat", K_VAT},
      {"crankNum", K_CRANK}, {"deliveryNum", K_DNUM}, {"replay", K_REPLAY},
      {"kd", K_KD}, {"vd", K_VD}, {"ksc", K_KSC}};
  size_t i;
  if (depth == 3)
    return n == 6 && !memcmp(k, "result", 6) ? K_RESULT : K_OTHER;
  for (i = 0; depth == 1 && i < sizeof keys / sizeof keys[0]; i++)
    if (strlen(keys[i].name) == n && !memcmp(keys[i].name, k, n))
      return keys[i].id;
  return K_OTHER;
}

/* Where the value about to come is: the top-level key, then the index or
 * key at each level below (-1 where that level is not an array). */
static int top_key(const scan_t *s) {
  return s->depth >= 1 ? s->lev[1].key : K_OTHER;
}
static long idx_at(const scan_t *s, int d) {
  return s->depth >= d && s->lev[d].array ? (long)s->lev[d].idx : -1;
}

/* A string value at the current place. */
static void scan_string(scan_t *s, const unsigned char *v, size_t n) {
  int top = top_key(s);
  if (s->depth == 1) {
    if (top == K_TYPE && n < sizeof s->type) {
      memcpy(s->type, v, n);
      s->type[n] = '\0';
    } else if (top == K_VATID) {
      s->vat_id_ok = take_id(s->vat_id, v, n);
    } else if (top == K_VAT) {
      s->has_vat = take_id(s->vat, v, n);
    }
  } else if (s->depth == 2 && idx_at(s, 2) == 0) {
    if (top == K_KD) take_id(s->kd0, v, n);
    else if (top == K_VD) take_id(s->vd0, v, n);
    else if (top == K_KSC) take_id(s->ksc0, v, n);
  } else if (s->depth == 3 && idx_at(s, 2) == 2 && !s->lev[3].array &&
             s->lev[3].key == K_RESULT) {
    if (top == K_KD) take_id(s->kd_result, v, n);
    else if (top == K_KSC) take_id(s->ksc_result, v, n);
  } else if (s->depth == 4 && idx_at(s, 3) >= 0 && idx_at(s, 4) == 0) {
    char kpid[ID_MAX];
    if (!take_id(kpid, v, n))
      return;
    if (top == K_KD && idx_at(s, 2) == 1) { /* a notify's promise */
      add_cause(&s->notify, s->x, 'r', kpid);
      add_cause(&s->notify, s->x, 's', kpid);
    } else if (top == K_KSC && idx_at(s, 2) == 2) { /* a resolve's */
      if (s->nresolved < RESOLVED_MAX)
        strcpy(s->resolved[s->nresolved++], kpid);
      else
        s->x->forgotten++;
    }
  }
}

/* After a value: the next index of the array it was in. */
static void scan_next(scan_t *s) {
  if (s->depth >= 1 && s->depth <= LEVELS && s->lev[s->depth].array)
    s->lev[s->depth].idx++;
}

static int cb_null(void *ctx) {
  scan_next(ctx);
  return 1;
}
static int cb_bool(void *ctx, int v) {
  scan_t *s = ctx;
  if (s->depth == 1 && top_key(s) == K_REPLAY && v)
    s->replay = 1;
  scan_next(s);
  return 1;
}
static int cb_int(void *ctx, long long v) {
  scan_t *s = ctx;
  if (s->depth == 1 && top_key(s) == K_CRANK)
    s->crank = v;
  if (s->depth == 1 && top_key(s) == K_DNUM) {
    s->dnum = v;
    s->has_dnum = 1;
  }
  scan_next(s);
  return 1;
}
static int cb_double(void *ctx, double v) {
  (void)v;
  scan_next(ctx);
  return 1;
}
static int cb_string(void *ctx, const unsigned char *v, size_t n) {
  scan_string(ctx, v, n);
  scan_next(ctx);
  return 1;
}
static int cb_key(void *ctx, const unsigned char *k, size_t n) {
  scan_t *s = ctx;
  if (s->depth >= 1 && s->depth <= LEVELS) {
    s->lev[s->depth].key = key_of(k, n, s->depth);
    if (s->depth == 1 && s->lev[1].key == K_VATID)
      s->has_vat_id = 1;
    if (s->depth == 1 && s->lev[1].key == K_KD)
      s->has_kd = 1;
  }
  return 1;
}
/* A container opens: refused past DEPTH_MAX (the parse stops there). */
static int open_level(scan_t *s, int array) {
  if (s->depth == 0 && array)
    return 0; /* a record is an object */
  if (++s->depth > DEPTH_MAX)
    return 0;
  if (s->depth <= LEVELS) {
    s->lev[s->depth].array = array;
    s->lev[s->depth].idx = 0;
    s->lev[s->depth].key = K_OTHER;
  }
  return 1;
}
static int cb_start_map(void *ctx) { return open_level(ctx, 0); }
static int cb_start_array(void *ctx) { return open_level(ctx, 1); }
static int cb_end(void *ctx) {
  scan_t *s = ctx;
  s->depth--;
  scan_next(s);
  return 1;
}

static const yajl_callbacks scan_callbacks = {
    cb_null, cb_bool, cb_int, cb_double, NULL, cb_string,
    cb_start_map, cb_key, cb_end, cb_start_array, cb_end};

/* A deliver record read: its facts pending for the analysis, and the
 * delivery its syscalls will name as their cause. */
static void on_deliver(ips__causes_t *x, long line, const scan_t *s) {
  ips_delivery_causes_t *f = &x->pending[line % PENDING];
  const char *kind = s->kd0[0] ? s->kd0 : s->vd0[0] ? s->vd0 : NULL;
  const char *vat = s->has_vat_id ? (s->vat_id_ok ? s->vat_id : NULL)
                                  : s->has_vat ? s->vat : NULL;
  memset(f, 0, sizeof *f);
  x->pending_line[line % PENDING] = line;
  if (kind)
    snprintf(f->kind, sizeof f->kind, "%.*s", (int)sizeof f->kind - 1, kind);
  x->cur_ok = vat && strlen(vat) < sizeof x->cur.vat && !s->replay;
  if (x->cur_ok) {
    memset(&x->cur, 0, sizeof x->cur);
    strcpy(x->cur.vat, vat);
    x->cur.crank = s->crank;
    x->cur.dnum = s->has_dnum ? s->dnum : -1;
    x->cur.line = line;
  }
  if (!kind || !s->has_kd)
    return;
  if (!strcmp(kind, "message") && s->kd_result[0]) {
    add_cause(f, x, 's', s->kd_result);
  } else if (!strcmp(kind, "notify")) {
    memcpy(f->c, s->notify.c, sizeof f->c);
    f->n = s->notify.n;
  }
}

/* A syscall record read: the promises it sends or resolves remember the
 * delivery being run as their cause. */
static void on_syscall(ips__causes_t *x, const scan_t *s) {
  const char *vat = s->has_vat_id && s->vat_id_ok ? s->vat_id : NULL;
  char key[48];
  size_t i;
  /* only the syscalls of the delivery being run */
  if (!x->cur_ok || !s->ksc0[0] || !vat || strcmp(vat, x->cur.vat) ||
      (s->has_dnum && s->dnum != x->cur.dnum))
    return;
  if (!strcmp(s->ksc0, "send") && s->ksc_result[0]) {
    snprintf(key, sizeof key, "s%s", s->ksc_result);
    remember(x, key, &x->cur);
  } else if (!strcmp(s->ksc0, "resolve")) {
    for (i = 0; i < s->nresolved; i++) {
      snprintf(key, sizeof key, "r%s", s->resolved[i]);
      remember(x, key, &x->cur);
    }
  }
}

/* Is the record of this type?  A cheap look before parsing: the records
 * that matter are few of a slogfile's bytes. */
static int has_type(const char *rec, size_t len, const char *type) {
  char pat[40];
  size_t n = (size_t)snprintf(pat, sizeof pat, "\"type\":\"%s\"", type);
  const char *p = rec, *end = rec + len;
  while ((p = memchr(p, '"', (size_t)(end - p))) != NULL) {
    if ((size_t)(end - p) >= n && !memcmp(p, pat, n))
      return 1;
    p++;
  }
  return 0;
}

void ips__causes_record(ips__causes_t *x, long line, const char *rec,
                        size_t len) {
  scan_t *s;
  yajl_handle h;
  int deliver = has_type(rec, len, "deliver"),
      syscall = !deliver && has_type(rec, len, "syscall");
  if (!deliver && !syscall)
    return;
  if (!(s = calloc(1, sizeof *s)))
    return;
  s->x = x;
  s->crank = -1;
  if ((h = yajl_alloc(&scan_callbacks, NULL, s)) != NULL) {
    /* A record the parser refuses, or one nested too deep, says nothing. */
    if (yajl_parse(h, (const unsigned char *)rec, len) == yajl_status_ok &&
        yajl_complete_parse(h) == yajl_status_ok) {
      if (!strcmp(s->type, "deliver"))
        on_deliver(x, line, s);
      else if (!strcmp(s->type, "syscall"))
        on_syscall(x, s);
    }
    yajl_free(h);
  }
  free(s);
}

int ips__causes_get(const ips__causes_t *x, long line,
                    ips_delivery_causes_t *out) {
  if (line <= 0 || x->pending_line[line % PENDING] != line)
    return 0;
  *out = x->pending[line % PENDING];
  return 1;
}

uint64_t ips__causes_forgotten(const ips__causes_t *x) {
  return x->forgotten;
}

/* A deliver or syscall record's bytes into x's buffer (under the reader's
 * guard when the file is mapped: only the copy reads the file). */
int ips__causes_take(void *arg, const char *p, size_t len) {
  ips__causes_t *x = arg;
  if (!has_type(p, len, "deliver") && !has_type(p, len, "syscall"))
    return 0;
  if (len + 1 > x->cap_buf) {
    size_t nc = x->cap_buf ? x->cap_buf : 65536;
    char *nb;
    while (nc < len + 1)
      nc *= 2;
    if (!(nb = realloc(x->buf, nc)))
      return 0; /* no memory: this record says nothing, nothing worse */
    x->buf = nb;
    x->cap_buf = nc;
  }
  memcpy(x->buf, p, len);
  x->buf[len] = '\0';
  x->len = len;
  return 1;
}

void ips__causes_line(ips__causes_t *x, long line) {
  ips__causes_record(x, line, x->buf, x->len);
}
