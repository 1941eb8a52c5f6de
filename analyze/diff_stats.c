/* diff_stats.c — what the join hands out, compared and summed: each
 * delivery's fastest and slowest node and the part that made the
 * difference, the divergences, the sums per node, per vat and method and
 * per block, and the kept lists of the largest differences.
 *
 * Everything here is bounded: the lists hold top entries, the groups
 * IPS_DIFF_MAX_GROUPS, the blocks one open row (each is handed out as the
 * next begins).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

static const char *const part_names[IPS_DIFF_NPARTS] = {"pipe", "worker",
                                                        "kernel", "unmatched"};

const char *ips_diff_part_name(int part) {
  if (part == -1)
    return "-";
  return part >= 0 && part < IPS_DIFF_NPARTS ? part_names[part] : "?";
}

static int list_init(diff_list_t *l, size_t cap, size_t size) {
  memset(l, 0, sizeof *l);
  l->size = size;
  if (ips_slowest_init(&l->k, cap) < 0)
    return IPS_ENOMEM;
  if (cap && (!(l->item = malloc(cap * size)) ||
              !(l->sorted = malloc(cap * size))))
    return IPS_ENOMEM;
  return 0;
}

static void list_free(diff_list_t *l) {
  ips_slowest_free(&l->k);
  free(l->item);
  free(l->sorted);
}

static void list_add(diff_list_t *l, int64_t v, uint64_t order,
                     const void *item) {
  long slot = ips_slowest_slot(&l->k, v, order);
  if (slot >= 0)
    memcpy((char *)l->item + (size_t)slot * l->size, item, l->size);
}

/* The kept items, largest first, in l->sorted. */
static size_t list_sorted(diff_list_t *l, const void **out) {
  size_t slots[256], i, n = l->k.n;
  size_t *s = n <= 256 ? slots : malloc(n * sizeof *s);
  if (!s) {
    *out = NULL;
    return 0;
  }
  ips_slowest_order(&l->k, s);
  for (i = 0; i < n; i++)
    memcpy((char *)l->sorted + i * l->size,
           (char *)l->item + s[i] * l->size, l->size);
  if (s != slots)
    free(s);
  *out = l->sorted;
  return n;
}

int ips__diff_sums_init(diff_sums_t *s, size_t n_nodes,
                        const ips_diff_options_t *o) {
  size_t i;
  memset(s, 0, sizeof *s);
  s->st.n_nodes = n_nodes;
  s->max_div = o->divergences;
  if (list_init(&s->spread, o->top, sizeof(ips_diff_delivery_t)) < 0 ||
      list_init(&s->blocks, o->top, sizeof(ips_diff_block_t)) < 0)
    return IPS_ENOMEM;
  for (i = 0; i < n_nodes; i++)
    if (list_init(&s->slowest[i], o->top, sizeof(ips_diff_delivery_t)) < 0)
      return IPS_ENOMEM;
  if (s->max_div && !(s->div = malloc(s->max_div * sizeof *s->div)))
    return IPS_ENOMEM;
  return 0;
}

void ips__diff_sums_free(diff_sums_t *s) {
  size_t i;
  list_free(&s->spread);
  list_free(&s->blocks);
  for (i = 0; i < IPS_DIFF_MAX_NODES; i++)
    list_free(&s->slowest[i]);
  free(s->div);
  free(s->groups.g);
  free(s->groups.hash);
}

/* Of the sums a[] (with their parts p[]), the smallest and the largest,
 * and the part by which the largest's is most over the smallest's. */
static void compare(size_t n, const int64_t *total,
                    int64_t (*part)[IPS_DIFF_NPARTS], size_t *fastest,
                    size_t *slowest, int *part_max) {
  size_t i, lo = 0, hi = 0;
  int p, best = -1;
  int64_t most = 0;
  for (i = 1; i < n; i++) {
    if (total[i] < total[lo])
      lo = i;
    if (total[i] > total[hi])
      hi = i;
  }
  for (p = 0; p < IPS_DIFF_NPARTS; p++) {
    int64_t over = part[hi][p] - part[lo][p];
    if (over > most) {
      most = over;
      best = p;
    }
  }
  *fastest = lo;
  *slowest = hi;
  *part_max = best;
}

/* ---- per delivery ---------------------------------------------------- */

static void compare_delivery(ips_diff_delivery_t *x, size_t n) {
  size_t i, lo = n, hi = n;
  int p, have_compute = 0, best = -1;
  long long compute = 0;
  int64_t most = 0;
  for (i = 0; i < n; i++) {
    const ips_diff_side_t *sd = &x->side[i];
    if (!sd->present)
      continue;
    if (lo == n || sd->total < x->side[lo].total)
      lo = i;
    if (hi == n || sd->total > x->side[hi].total)
      hi = i;
    if (strcmp(sd->method, x->method))
      x->diverged |= IPS_DIFF_DIV_METHOD;
    if (sd->crank != x->crank)
      x->crank_differs = 1;
    if (sd->has_compute) {
      if (have_compute && sd->compute != compute)
        x->diverged |= IPS_DIFF_DIV_COMPUTE;
      have_compute = 1;
      compute = sd->compute;
    }
  }
  for (p = 0; p < IPS_DIFF_NPARTS; p++) {
    int64_t over = x->side[hi].part[p] - x->side[lo].part[p];
    if (over > most) {
      most = over;
      best = p;
    }
  }
  x->fastest = lo;
  x->slowest = hi;
  x->part = best;
  ips__diff_os_compare(x);
}

/* *s += v, held at the bound (ips_sum_add, the one policy), counted in
 * the diff's saturated. */
static void sum(ips_diff_t *d, int64_t *s, int64_t v) {
  d->s.st.saturated += (uint64_t)ips_sum_add(s, v);
}

/* Each node against the fastest: its time over it, part by part, and the
 * deliveries on which it lost most. */
static void add_over(ips_diff_t *d, const ips_diff_delivery_t *x) {
  const ips_diff_side_t *fast = &x->side[x->fastest];
  size_t i;
  int p;
  for (i = 0; i < d->n; i++) {
    const ips_diff_side_t *sd = &x->side[i];
    ips_diff_node_t *nd = &d->node[i].pub;
    if (!sd->present)
      continue;
    sum(d, &nd->over, sd->total - fast->total);
    for (p = 0; p < IPS_DIFF_NPARTS; p++)
      if (sd->part[p] > fast->part[p])
        sum(d, &nd->over_part[p], sd->part[p] - fast->part[p]);
    if (i == x->slowest && sd->total > fast->total)
      list_add(&d->s.slowest[i], sd->total - fast->total, d->s.seq, x);
  }
  ips__diff_os_over(d, x);
}

/* ---- per vat and method --------------------------------------------- */

/* The project's one hash over vat, a 0xff that no UTF-8 text holds (so
 * that "ab"+"c" and "a"+"bc" differ), and method. */
static uint32_t group_hash(const char *vat, const char *method) {
  static const unsigned char sep = 0xff;
  uint64_t h = ips_fnv1a_str(vat);
  h = ips_fnv1a(h, &sep, 1);
  h = ips_fnv1a(h, method, strlen(method));
  return (uint32_t)(h ^ (h >> 32));
}

static ips_diff_group_t *group_of(diff_groups_t *g, const char *vat,
                                  const char *method) {
  uint32_t h = group_hash(vat, method);
  size_t b, i;
  if (!g->hash) {
    g->hcap = 2 * IPS_DIFF_MAX_GROUPS;
    if (!(g->hash = calloc(g->hcap, sizeof *g->hash)))
      return NULL;
  }
  for (b = h & (g->hcap - 1); g->hash[b]; b = (b + 1) & (g->hcap - 1)) {
    ips_diff_group_t *x = &g->g[g->hash[b] - 1];
    if (!strcmp(x->vat, vat) && !strcmp(x->method, method))
      return x;
  }
  if (g->n == IPS_DIFF_MAX_GROUPS)
    return NULL;
  if (g->n == g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 16;
    ips_diff_group_t *ng = realloc(g->g, cap * sizeof *ng);
    if (!ng)
      return NULL;
    g->g = ng;
    g->cap = cap;
  }
  i = g->n++;
  memset(&g->g[i], 0, sizeof g->g[i]);
  /* both fit: they are a delivery's, cut to these sizes, or "" */
  snprintf(g->g[i].vat, sizeof g->g[i].vat, "%s", vat);
  snprintf(g->g[i].method, sizeof g->g[i].method, "%s", method);
  g->hash[b] = (uint32_t)(i + 1);
  g->sorted = 0;
  return &g->g[i];
}

/* ---- per block -------------------------------------------------------- */

static void block_out(ips_diff_t *d) {
  ips_diff_block_t *b = &d->s.block;
  if (!d->s.has_block)
    return;
  d->s.has_block = 0;
  compare(d->n, b->total, b->part, &b->fastest, &b->slowest, &b->part_max);
  d->s.st.blocks++;
  list_add(&d->s.blocks, b->total[b->slowest] - b->total[b->fastest],
           (uint64_t)d->s.st.blocks, b);
  if (d->o.on_block)
    d->o.on_block(d->o.arg, b);
}

static void add_block(ips_diff_t *d, const ips_diff_delivery_t *x) {
  ips_diff_block_t *b = &d->s.block;
  size_t i;
  int p;
  if (!x->has_block)
    return;
  if (d->s.has_block && b->height != x->block)
    block_out(d);
  if (!d->s.has_block) {
    memset(b, 0, sizeof *b);
    b->height = x->block;
    d->s.has_block = 1;
  }
  b->n++;
  if (x->diverged)
    b->diverged = 1;
  for (i = 0; i < d->n; i++) {
    b->total[i] += x->side[i].total;
    for (p = 0; p < IPS_DIFF_NPARTS; p++)
      b->part[i][p] += x->side[i].part[p];
  }
}

/* ---- the common deliveries ------------------------------------------ */

static void add_common(ips_diff_t *d, const ips_diff_delivery_t *x) {
  ips_diff_group_t *g =
      group_of(&d->s.groups, d->o.by == IPS_DIFF_BY_METHOD ? "" : x->vat,
               d->o.by == IPS_DIFF_BY_VAT ? "" : x->method);
  size_t i;
  int p;
  d->s.st.common++;
  if (x->side[x->slowest].total > x->side[x->fastest].total)
    d->node[x->slowest].pub.slowest++;
  for (i = 0; i < d->n; i++) {
    ips_diff_node_t *nd = &d->node[i].pub;
    nd->common++;
    sum(d, &nd->total, x->side[i].total);
    for (p = 0; p < IPS_DIFF_NPARTS; p++)
      sum(d, &nd->part[p], x->side[i].part[p]);
  }
  if (!g) {
    d->s.groups.over++;
  } else {
    g->n++;
    for (i = 0; i < d->n; i++) {
      sum(d, &g->total[i], x->side[i].total);
      for (p = 0; p < IPS_DIFF_NPARTS; p++)
        sum(d, &g->part[i][p], x->side[i].part[p]);
    }
  }
  add_block(d, x);
}

void ips__diff_sums_add(ips_diff_t *d, ips_diff_delivery_t *x) {
  diff_sums_t *s = &d->s;
  size_t i;
  compare_delivery(x, d->n);
  s->seq++;
  s->st.joined++;
  for (i = 0; i < d->n; i++) {
    if (!x->side[i].present)
      d->node[i].pub.missing++;
    else if (x->n_present < d->n)
      d->node[i].pub.only_here++;
  }
  if (x->n_present == 1) {
    s->st.single++;
  } else {
    if (x->n_present < d->n)
      s->st.partial++;
    if (x->crank_differs)
      s->st.crank_differs++;
    if (!x->diverged)
      s->st.agree++;
    if (x->diverged) {
      s->st.divergences++;
      if (s->n_div < s->max_div)
        s->div[s->n_div++] = *x;
    }
    add_over(d, x);
    list_add(&s->spread, x->side[x->slowest].total - x->side[x->fastest].total,
             s->seq, x);
    if (x->n_present == d->n)
      add_common(d, x);
  }
  if (d->o.on_delivery)
    d->o.on_delivery(d->o.arg, x);
}

/* Each node's group of ips_diff_node_t.beyond_*. */
static void beyond(ips_diff_t *d) {
  diff_groups_t *gs = &d->s.groups;
  int64_t fast = INT64_MAX;
  size_t i, k;
  for (i = 0; i < d->n; i++)
    if (d->node[i].pub.total < fast)
      fast = d->node[i].pub.total;
  for (k = 0; k < gs->n; k++) {
    ips_diff_group_t *g = &gs->g[k];
    compare(d->n, g->total, g->part, &g->fastest, &g->slowest, &g->part_max);
  }
  for (i = 0; i < d->n && fast > 0; i++) {
    ips_diff_node_t *nd = &d->node[i].pub;
    double all = (double)nd->total / (double)fast;
    for (k = 0; k < gs->n; k++) {
      const ips_diff_group_t *g = &gs->g[k];
      int64_t gf = g->total[g->fastest];
      double r, lost;
      int p;
      if (g->n < 3 || gf <= 0)
        continue;
      r = (double)g->total[i] / (double)gf;
      lost = (double)g->total[i] - all * (double)gf;
      if (lost <= (double)nd->beyond_ns)
        continue;
      nd->beyond_ns = (int64_t)lost;
      nd->beyond_factor = r / all;
      nd->beyond_ratio = r;
      memcpy(nd->beyond_vat, g->vat, sizeof nd->beyond_vat);
      memcpy(nd->beyond_method, g->method, sizeof nd->beyond_method);
      nd->beyond_part = IPS_DIFF_WORKER;
      for (p = 0; p < IPS_DIFF_NPARTS; p++)
        if (g->part[i][p] - g->part[g->fastest][p] >
            g->part[i][nd->beyond_part] - g->part[g->fastest][nd->beyond_part])
          nd->beyond_part = p;
    }
  }
}

void ips__diff_sums_finish(ips_diff_t *d) {
  size_t i;
  block_out(d);
  beyond(d);
  ips__diff_os_finish(d);
  for (i = 0; i < d->n; i++) {
    ips_diff_node_t *nd = &d->node[i].pub;
    int p;
    int64_t most = 0;
    nd->part_max = -1;
    for (p = 0; p < IPS_DIFF_NPARTS; p++)
      if (nd->over_part[p] > most) {
        most = nd->over_part[p];
        nd->part_max = p;
      }
  }
}

/* ---- what the caller reads ------------------------------------------- */

const ips_diff_stats_t *ips_diff_stats(const ips_diff_t *d) { return &d->s.st; }

static int64_t group_slowest_total(const ips_diff_group_t *g, size_t n) {
  size_t i;
  int64_t m = 0;
  for (i = 0; i < n; i++)
    if (g->total[i] > m)
      m = g->total[i];
  return m;
}

static size_t sort_n; /* qsort has no argument: set just before */
static int by_busiest(const void *a, const void *b) {
  int64_t x = group_slowest_total(a, sort_n), y = group_slowest_total(b, sort_n);
  return x < y ? 1 : x > y ? -1 : 0;
}

size_t ips_diff_ngroups(ips_diff_t *d) {
  diff_groups_t *g = &d->s.groups;
  size_t i;
  if (!g->sorted && g->n) {
    for (i = 0; i < g->n; i++)
      compare(d->n, g->g[i].total, g->g[i].part, &g->g[i].fastest,
              &g->g[i].slowest, &g->g[i].part_max);
    sort_n = d->n;
    qsort(g->g, g->n, sizeof *g->g, by_busiest);
    /* the hash points at the old places: no group is added after this */
    free(g->hash);
    g->hash = NULL;
    g->sorted = 1;
  }
  return g->n;
}

const ips_diff_group_t *ips_diff_group(const ips_diff_t *d, size_t i) {
  return i < d->s.groups.n ? &d->s.groups.g[i] : NULL;
}

uint64_t ips_diff_groups_over(const ips_diff_t *d) { return d->s.groups.over; }

size_t ips_diff_spread(ips_diff_t *d, const ips_diff_delivery_t **out) {
  return list_sorted(&d->s.spread, (const void **)out);
}

size_t ips_diff_blocks_spread(ips_diff_t *d, const ips_diff_block_t **out) {
  return list_sorted(&d->s.blocks, (const void **)out);
}

size_t ips_diff_node_slowest(ips_diff_t *d, size_t node,
                             const ips_diff_delivery_t **out) {
  if (node >= d->n) {
    *out = NULL;
    return 0;
  }
  return list_sorted(&d->s.slowest[node], (const void **)out);
}

size_t ips_diff_divergences(const ips_diff_t *d,
                            const ips_diff_delivery_t **out) {
  *out = d->s.div;
  return d->s.n_div;
}
