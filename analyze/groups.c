/* groups.c — deliveries summed by a key, `report --by vat` or `--by
 * method` (ipcstamp-analyze.h): a hash table of at most IPS_GROUPS_MAX
 * keys, the deliveries of the others counted in `over`. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-analyze.h"

/* Keys are short: FNV-1a. */
static size_t hash(const char *s) { return (size_t)ips_fnv1a_str(s); }

/* Sums saturate (ips_sum_add), counted: a group's sum is a part of the
 * analysis's checked total, but with signed parts (wall clocks) a part
 * may be larger than the whole. */
static void add(ips_groups_t *g, int64_t *sum, int64_t v) {
  g->saturated += (uint64_t)ips_sum_add(sum, v);
}

void ips_groups_init(ips_groups_t *g, int by) {
  memset(g, 0, sizeof *g);
  g->by = by;
}

/* The group of key, made if there is room; NULL when there is none. */
static ips_group_t *find(ips_groups_t *g, const char *key) {
  size_t i, m;
  if (g->hcap == 0 || 2 * (g->n + 1) > g->hcap) {
    size_t nh = g->hcap ? 2 * g->hcap : 64, j;
    size_t *h;
    ips_group_t *ng;
    if (g->n == IPS_GROUPS_MAX)
      goto look; /* full: only existing keys are found */
    h = calloc(nh, sizeof *h);
    ng = realloc(g->g, (nh / 2) * sizeof *ng);
    if (!h || !ng) {
      free(h);
      if (ng)
        g->g = ng;
      return NULL;
    }
    g->g = ng;
    for (j = 0; j < g->n; j++) {
      i = hash(g->g[j].name) & (nh - 1);
      while (h[i])
        i = (i + 1) & (nh - 1);
      h[i] = j + 1;
    }
    free(g->hash);
    g->hash = h;
    g->hcap = nh;
  }
look:
  m = g->hcap - 1;
  for (i = hash(key) & m; g->hash[i]; i = (i + 1) & m)
    if (!strcmp(g->g[g->hash[i] - 1].name, key))
      return &g->g[g->hash[i] - 1];
  if (g->n == IPS_GROUPS_MAX || 2 * (g->n + 1) > g->hcap)
    return NULL;
  memset(&g->g[g->n], 0, sizeof g->g[g->n]);
  if (!(g->g[g->n].name = strdup(key)))
    return NULL;
  g->hash[i] = ++g->n;
  return &g->g[g->n - 1];
}

void ips_groups_add(ips_groups_t *g, const ips_delivery_t *d) {
  ips_group_t *e = find(g, g->by == IPS_GROUP_METHOD ? d->method : d->vat);
  if (!e) {
    g->over++;
    return;
  }
  e->n++;
  add(g, &e->pipe, d->pipe);
  add(g, &e->worker, d->worker);
  add(g, &e->kernel, d->kernel);
  add(g, &e->unmatched, d->unmatched);
  add(g, &e->total, d->total);
  if (e->n == 1 || d->total > e->max)
    e->max = d->total;
}

static int busiest(const void *x, const void *y) {
  const ips_group_t *a = x, *b = y;
  return a->total > b->total ? -1 : a->total < b->total;
}

const ips_group_t *ips_groups_sorted(ips_groups_t *g, size_t *n) {
  size_t i;
  if (g->n)
    qsort(g->g, g->n, sizeof *g->g, busiest);
  /* The hash holds indices: remake it for the new order. */
  if (g->hash)
    memset(g->hash, 0, g->hcap * sizeof *g->hash);
  for (i = 0; i < g->n; i++) {
    size_t j = hash(g->g[i].name) & (g->hcap - 1);
    while (g->hash[j])
      j = (j + 1) & (g->hcap - 1);
    g->hash[j] = i + 1;
  }
  *n = g->n;
  return g->g;
}

void ips_groups_free(ips_groups_t *g) {
  size_t i;
  for (i = 0; i < g->n; i++)
    free(g->g[i].name);
  free(g->g);
  free(g->hash);
  memset(g, 0, sizeof *g);
}
