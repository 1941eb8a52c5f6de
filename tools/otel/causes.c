/* causes.c — what the analysis does not keep of a slogfile's deliveries:
 * the kind of each one (the deliver record's kd[0], else vd[0]: "message",
 * "notify", ...), which names its span, and the delivery that caused it,
 * which becomes a span link.  A separate pass over the records, read from
 * the file again (line by line, up to the deliver record the analysis
 * reports), so the analysis stays as it is.
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
#include <yajl/yajl_tree.h>
#include <zlib.h>

#include "otel.h"

/* Promises remembered (each its cause), at most: past this the table is
 * emptied and begins again (counted), so memory stays bounded on any file. */
#define MAX_PROMISES (1u << 17)
/* Deliver records read ahead of the analysis: it reports a delivery at its
 * result, a few records after its deliver record. */
#define PENDING 64
/* Records longer than this are stepped over (the analysis' own cap is
 * smaller: it would skip them too). */
#define MAX_RECORD (64u << 20)

typedef struct {
  char key[40]; /* 's' or 'r', then the promise id; "" for a free slot */
  otel_cause_t c;
} promise_t;

struct otel_causes_s {
  promise_t *tab;
  size_t cap, n;
  uint64_t forgotten;
  otel_deliver_facts_t pending[PENDING];
  long pending_line[PENDING];
  /* the deliver record being run: its syscalls' causes are it */
  otel_cause_t cur;
  int cur_ok;
  /* the file */
  gzFile gz;
  char *buf;
  size_t len, cap_buf;
  long line;    /* lines read whole */
  int skipping; /* in a record longer than MAX_RECORD */
  char rbuf[65536]; /* read from the file, not yet taken */
  size_t rpos, rlen;
};

otel_causes_t *otel_causes_new(void) {
  otel_causes_t *x = calloc(1, sizeof *x);
  return x;
}

void otel_causes_free(otel_causes_t *x) {
  if (!x)
    return;
  if (x->gz)
    gzclose(x->gz);
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
static void remember(otel_causes_t *x, const char *key,
                     const otel_cause_t *c) {
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

static const otel_cause_t *recall(const otel_causes_t *x, const char *key) {
  const promise_t *p;
  if (!x->cap || strlen(key) >= sizeof p->key)
    return NULL;
  p = slot(x->tab, x->cap, key);
  return p->key[0] ? &p->c : NULL;
}

static void add_cause(otel_deliver_facts_t *f, const otel_causes_t *x,
                      char why, const char *kpid) {
  char key[48];
  const otel_cause_t *c;
  size_t i;
  snprintf(key, sizeof key, "%c%s", why, kpid);
  if (!(c = recall(x, key)))
    return;
  for (i = 0; i < f->n; i++) /* one link per delivery and reason */
    if (f->c[i].line == c->line && f->c[i].why == why)
      return;
  if (f->n == OTEL_MAX_CAUSES)
    return;
  f->c[f->n] = *c;
  f->c[f->n].why = why;
  snprintf(f->c[f->n].kpid, sizeof f->c[f->n].kpid, "%s", kpid);
  f->n++;
}

static const char *str_at(yajl_val v, size_t i) {
  if (!YAJL_IS_ARRAY(v) || i >= v->u.array.len)
    return NULL;
  return YAJL_IS_STRING(v->u.array.values[i])
             ? v->u.array.values[i]->u.string
             : NULL;
}

static yajl_val at(yajl_val v, size_t i) {
  return YAJL_IS_ARRAY(v) && i < v->u.array.len ? v->u.array.values[i]
                                                 : NULL;
}

static yajl_val member(yajl_val o, const char *k) {
  const char *path[2] = {k, NULL};
  return YAJL_IS_OBJECT(o) ? yajl_tree_get(o, path, yajl_t_any) : NULL;
}

static int int_member(yajl_val o, const char *k, long long *out) {
  yajl_val v = member(o, k);
  if (!v || !YAJL_IS_INTEGER(v))
    return 0;
  *out = YAJL_GET_INTEGER(v);
  return 1;
}

static void on_deliver(otel_causes_t *x, long line, yajl_val rec) {
  otel_deliver_facts_t *f = &x->pending[line % PENDING];
  yajl_val kd = member(rec, "kd"), vd = member(rec, "vd"), v;
  const char *kind = str_at(kd, 0), *vat = NULL;
  long long crank = -1, dnum = -1;
  size_t i;
  memset(f, 0, sizeof *f);
  x->pending_line[line % PENDING] = line;
  if (!kind)
    kind = str_at(vd, 0);
  if (kind)
    snprintf(f->kind, sizeof f->kind, "%s", kind);
  /* this delivery's identity, as the analysis makes it (ids.c) */
  v = member(rec, "vatID");
  if (!v)
    v = member(rec, "vat");
  vat = YAJL_IS_STRING(v) ? v->u.string : NULL;
  (void)int_member(rec, "crankNum", &crank);
  (void)int_member(rec, "deliveryNum", &dnum);
  v = member(rec, "replay");
  x->cur_ok = vat && strlen(vat) < sizeof x->cur.vat && !YAJL_IS_TRUE(v);
  if (x->cur_ok) {
    memset(&x->cur, 0, sizeof x->cur);
    strcpy(x->cur.vat, vat);
    x->cur.crank = crank;
    x->cur.dnum = dnum;
    x->cur.line = line;
  }
  if (!kind || !kd)
    return;
  if (!strcmp(kind, "message")) {
    const char *result = YAJL_IS_STRING(member(at(kd, 2), "result"))
                             ? member(at(kd, 2), "result")->u.string
                             : NULL;
    if (result)
      add_cause(f, x, 's', result);
  } else if (!strcmp(kind, "notify")) {
    yajl_val list = at(kd, 1);
    for (i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len; i++) {
      const char *kpid = str_at(list->u.array.values[i], 0);
      if (!kpid)
        continue;
      add_cause(f, x, 'r', kpid);
      add_cause(f, x, 's', kpid);
    }
  }
}

static void on_syscall(otel_causes_t *x, yajl_val rec) {
  yajl_val ksc = member(rec, "ksc"), v = member(rec, "vatID");
  const char *what = str_at(ksc, 0);
  long long dnum = -1;
  size_t i;
  /* only the syscalls of the delivery being run */
  if (!x->cur_ok || !what || !YAJL_IS_STRING(v) ||
      strcmp(v->u.string, x->cur.vat) ||
      (int_member(rec, "deliveryNum", &dnum) && dnum != x->cur.dnum))
    return;
  if (!strcmp(what, "send")) {
    yajl_val r = member(at(ksc, 2), "result");
    char key[48];
    if (YAJL_IS_STRING(r)) {
      snprintf(key, sizeof key, "s%s", r->u.string);
      remember(x, key, &x->cur);
    }
  } else if (!strcmp(what, "resolve")) {
    yajl_val list = at(ksc, 2);
    for (i = 0; YAJL_IS_ARRAY(list) && i < list->u.array.len; i++) {
      const char *kpid = str_at(list->u.array.values[i], 0);
      char key[48];
      if (!kpid)
        continue;
      snprintf(key, sizeof key, "r%s", kpid);
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

void otel_causes_record(otel_causes_t *x, long line, const char *rec,
                        size_t len) {
  int deliver = has_type(rec, len, "deliver"),
      syscall = !deliver && has_type(rec, len, "syscall");
  yajl_val v, t;
  const char *path[2] = {"type", NULL};
  if (!deliver && !syscall)
    return;
  if (rec[len] != '\0') /* yajl_tree_parse wants a C string */
    return;
  v = yajl_tree_parse(rec, NULL, 0);
  if (!v)
    return;
  t = YAJL_IS_OBJECT(v) ? yajl_tree_get(v, path, yajl_t_string) : NULL;
  if (t && !strcmp(t->u.string, "deliver"))
    on_deliver(x, line, v);
  else if (t && !strcmp(t->u.string, "syscall"))
    on_syscall(x, v);
  yajl_tree_free(v);
}

int otel_causes_get(const otel_causes_t *x, long line,
                    otel_deliver_facts_t *out) {
  if (line <= 0 || x->pending_line[line % PENDING] != line)
    return 0;
  *out = x->pending[line % PENDING];
  return 1;
}

uint64_t otel_causes_forgotten(const otel_causes_t *x) {
  return x->forgotten;
}

int otel_causes_open(otel_causes_t *x, const char *path) {
  x->gz = gzopen(path, "rb");
  return x->gz ? 0 : -1;
}

/* Appends n bytes to the record being read (or steps over a record too
 * long, or one there is no memory for). */
static void take(otel_causes_t *x, const char *p, size_t n) {
  if (x->skipping)
    return;
  if (x->len + n + 1 > MAX_RECORD) {
    x->skipping = 1;
    return;
  }
  if (x->len + n + 1 > x->cap_buf) {
    size_t nc = x->cap_buf ? x->cap_buf : 65536;
    char *nb;
    while (nc < x->len + n + 1)
      nc *= 2;
    if (!(nb = realloc(x->buf, nc))) {
      x->skipping = 1;
      return;
    }
    x->buf = nb;
    x->cap_buf = nc;
  }
  memcpy(x->buf + x->len, p, n);
  x->len += n;
  x->buf[x->len] = '\0';
}

void otel_causes_read_to(otel_causes_t *x, long line) {
  if (!x->gz)
    return;
  /* Line by line up to line exactly: the deliver records after it stay
   * unread, so the few pending ones are never overwritten. */
  while (x->line < line) {
    const char *nl;
    size_t n;
    if (x->rpos == x->rlen) {
      int got = gzread(x->gz, x->rbuf, sizeof x->rbuf);
      if (got <= 0) {
        /* zlib remembers an end it met before the file grew: forget it
         * and look once more (the analysis has read this line already). */
        gzclearerr(x->gz);
        got = gzread(x->gz, x->rbuf, sizeof x->rbuf);
      }
      if (got <= 0) { /* the end for now: a followed file may grow */
        gzclearerr(x->gz);
        return;
      }
      x->rpos = 0;
      x->rlen = (size_t)got;
    }
    n = x->rlen - x->rpos;
    nl = memchr(x->rbuf + x->rpos, '\n', n);
    if (nl)
      n = (size_t)(nl - (x->rbuf + x->rpos));
    take(x, x->rbuf + x->rpos, n);
    x->rpos += n;
    if (nl) {
      x->rpos++;
      x->line++;
      if (!x->skipping && x->len)
        otel_causes_record(x, x->line, x->buf, x->len);
      x->len = 0;
      x->skipping = 0;
    }
  }
}
