/* registry.c — the figures a feeder adds to and a scrape copies: per vat,
 * each part's histogram and the deliveries' count; the declared counters.
 * All storage is made in ips_metrics_new: observing never allocates. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipcstamp-proto.h"
#include "metrics/registry.h"

const char *const ips_metrics_default_parts[] = {"pipe", "worker", "kernel",
                                                 "total"};

/* Upper bounds of the buckets, in seconds: 1, 2, 5 in each decade from
 * 1 us to 100 s (a delivery's pipe takes microseconds, a slow vat's
 * worker seconds).  Fixed, so that two nodes' buckets add up. */
const double ips_metrics_bounds[IPS_METRICS_NBOUNDS] = {
    1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3,
    1e-2, 2e-2, 5e-2, 0.1,  0.2,  0.5,  1,    2,    5,    10,   20,   50,
    100};

/* s copied into dst (IPS_METRICS_NAME_MAX), cut to fit, and every byte
 * that is not printable ASCII made '?': a label value from the input is
 * then valid UTF-8 and never breaks a line of the exposition. */
static void name_copy(char *dst, const char *s) {
  size_t i;
  if (!s || !*s)
    s = "_unknown";
  for (i = 0; s[i] && i + 1 < IPS_METRICS_NAME_MAX; i++)
    dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
  dst[i] = '\0';
}

double metrics_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

ips_metrics_t *ips_metrics_new(const char *const *parts, size_t nparts,
                               size_t max_vats) {
  ips_metrics_t *m;
  if (!parts) {
    parts = ips_metrics_default_parts;
    nparts = IPS_METRICS_NDEFAULT_PARTS;
  }
  if (nparts == 0 || nparts > IPS_METRICS_MAX_PARTS ||
      max_vats > IPS_METRICS_MAX_MAX_VATS)
    return NULL;
  if (!max_vats)
    max_vats = IPS_METRICS_DEFAULT_MAX_VATS;
  if (!(m = calloc(1, sizeof *m)))
    return NULL;
  m->fig.nparts = nparts;
  m->fig.max_vats = max_vats;
  m->parts = parts;
  /* +1: the "_other" vat of those past the cap */
  m->fig.vats = calloc(max_vats + 1, sizeof *m->fig.vats);
  m->fig.hists = calloc((max_vats + 1) * nparts, sizeof *m->fig.hists);
  for (m->nslots = 1; m->nslots < 2 * (max_vats + 1); m->nslots <<= 1)
    ;
  m->slots = calloc(m->nslots, sizeof *m->slots);
  if (!m->fig.vats || !m->fig.hists || !m->slots ||
      pthread_mutex_init(&m->lock, NULL)) {
    free(m->fig.vats);
    free(m->fig.hists);
    free(m->slots);
    free(m);
    return NULL;
  }
  m->start = metrics_now();
  return m;
}

void ips_metrics_free(ips_metrics_t *m) {
  if (!m)
    return;
  pthread_mutex_destroy(&m->lock);
  free(m->fig.vats);
  free(m->fig.hists);
  free(m->slots);
  free(m);
}

/* vat's series, made on first sight; past the cap, "_other" (counted).
 * Called with the lock held. */
static metrics_vat_t *vat_of(ips_metrics_t *m, const char *vat) {
  char name[IPS_METRICS_NAME_MAX];
  size_t i;
  metrics_figures_t *f = &m->fig;
  name_copy(name, vat);
  for (i = (size_t)ips_fnv1a_str(name) & (m->nslots - 1); m->slots[i];
       i = (i + 1) & (m->nslots - 1))
    if (!strcmp(f->vats[m->slots[i] - 1].name, name))
      return &f->vats[m->slots[i] - 1];
  if (f->nvats < f->max_vats) {
    metrics_vat_t *v = &f->vats[f->nvats++];
    memcpy(v->name, name, sizeof name);
    m->slots[i] = f->nvats;
    return v;
  }
  f->over_cap++;
  if (!f->other) {
    /* the slot after the last vat: it sorts after them all */
    f->other = 1;
    strcpy(f->vats[f->max_vats].name, "_other");
  }
  return &f->vats[f->max_vats];
}

/* The bucket of seconds: the first whose bound is not below it, or
 * IPS_METRICS_NBOUNDS for +Inf. */
static size_t bucket_of(double seconds) {
  size_t lo = 0, hi = IPS_METRICS_NBOUNDS;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ips_metrics_bounds[mid] < seconds)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void ips_metrics_delivery(ips_metrics_t *m, const char *vat,
                          const double *seconds) {
  size_t p, b[IPS_METRICS_MAX_PARTS];
  metrics_vat_t *v;
  metrics_hist_t *h;
  /* the buckets found before the lock is taken: it is held for the adds */
  for (p = 0; p < m->fig.nparts; p++)
    b[p] = isnan(seconds[p]) || seconds[p] < 0 ? (size_t)-1
                                               : bucket_of(seconds[p]);
  pthread_mutex_lock(&m->lock);
  v = vat_of(m, vat);
  v->deliveries++;
  h = &m->fig.hists[(size_t)(v - m->fig.vats) * m->fig.nparts];
  for (p = 0; p < m->fig.nparts; p++)
    if (b[p] != (size_t)-1) {
      h[p].bucket[b[p]]++;
      h[p].count++;
      h[p].sum += seconds[p];
    }
  pthread_mutex_unlock(&m->lock);
}

/* A counter's or a gauge's declaration: the id of name, declared now
 * when it is new. */
static int declare(ips_metrics_t *m, const char *name, const char *help,
                   const char *label, int gauge) {
  size_t i;
  int id = -1;
  pthread_mutex_lock(&m->lock);
  for (i = 0; i < m->fig.ncounters; i++)
    if (!strcmp(m->decl[i].name, name))
      id = (int)i;
  if (id < 0 && m->fig.ncounters < IPS_METRICS_MAX_COUNTERS) {
    id = (int)m->fig.ncounters++;
    m->decl[id].name = name;
    m->decl[id].help = help;
    m->decl[id].label = label;
    m->decl[id].gauge = gauge;
  }
  pthread_mutex_unlock(&m->lock);
  return id;
}

int ips_metrics_counter(ips_metrics_t *m, const char *name, const char *help,
                        const char *label) {
  return declare(m, name, help, label, 0);
}

int ips_metrics_gauge(ips_metrics_t *m, const char *name, const char *help,
                      const char *label) {
  return declare(m, name, help, label, 1);
}

/* The slot of counter or gauge id's value name (IPS_METRICS_NAME_MAX,
 * already copied), made on first sight; past the cap, "_other".  Called
 * with the lock held; NULL when id is not declared. */
static metrics_value_t *value_of(ips_metrics_t *m, int id, char *name) {
  metrics_counter_t *c;
  size_t i;
  if ((size_t)id >= m->fig.ncounters)
    return NULL;
  c = &m->fig.counters[id];
  if (!m->decl[id].label)
    name[0] = '\0';
  for (i = 0; i < c->nvalues && strcmp(c->value[i].name, name); i++)
    ;
  if (i == c->nvalues && c->nvalues < IPS_METRICS_MAX_VALUES - 1) {
    memcpy(c->value[c->nvalues++].name, name, IPS_METRICS_NAME_MAX);
  } else if (i == c->nvalues) {
    /* past the cap: the last slot stands for all the others */
    i = IPS_METRICS_MAX_VALUES - 1;
    strcpy(c->value[i].name, "_other");
    c->nvalues = IPS_METRICS_MAX_VALUES;
  }
  return &c->value[i];
}

/* Counter or gauge id's value named value: n added to a counter's, a
 * gauge's set to v; nothing when id is not declared as that kind. */
static void update(ips_metrics_t *m, int id, const char *value, int gauge,
                   uint64_t n, double v) {
  char name[IPS_METRICS_NAME_MAX];
  metrics_value_t *x;
  if (id < 0 || id >= IPS_METRICS_MAX_COUNTERS)
    return;
  name_copy(name, value);
  pthread_mutex_lock(&m->lock);
  if ((x = value_of(m, id, name)) && m->decl[id].gauge == gauge) {
    if (gauge)
      x->v = v;
    else
      x->n += n;
  }
  pthread_mutex_unlock(&m->lock);
}

void ips_metrics_count(ips_metrics_t *m, int id, const char *value,
                       uint64_t n) {
  update(m, id, value, 0, n, 0);
}

void ips_metrics_set(ips_metrics_t *m, int id, const char *value, double v) {
  update(m, id, value, 1, 0, v);
}

void metrics_snapshot(ips_metrics_t *m, metrics_figures_t *copy,
                      metrics_decl_t *decl) {
  metrics_vat_t *vats = copy->vats;
  metrics_hist_t *hists = copy->hists;
  size_t n, np = m->fig.nparts;
  pthread_mutex_lock(&m->lock);
  n = m->fig.nvats;
  *copy = m->fig;
  copy->vats = vats;
  copy->hists = hists;
  memcpy(vats, m->fig.vats, n * sizeof *vats);
  memcpy(hists, m->fig.hists, n * np * sizeof *hists);
  if (m->fig.other) {
    vats[n] = m->fig.vats[m->fig.max_vats];
    memcpy(hists + n * np, m->fig.hists + m->fig.max_vats * np,
           np * sizeof *hists);
  }
  memcpy(decl, m->decl, m->fig.ncounters * sizeof *decl);
  pthread_mutex_unlock(&m->lock);
}
