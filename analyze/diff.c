/* diff.c — the public face of a diff: its files, each read through an
 * analysis of its own, and the one pass that reads them side by side.
 *
 * The files are read a slice at a time, always the one whose latest crank
 * is the lowest (less its delta: two runs may number cranks apart; ties:
 * the one that has read fewest deliveries), so that
 * the nodes stay level and the window holds only what one node has read
 * ahead of the others.  A node that started later (its first crank is
 * far on) lets the others read up to it, and what they read before is
 * handed out as theirs alone as soon as it has gone past it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff.h"

/* Lines read from one file before the next is chosen: large enough that
 * the choosing costs nothing, small enough that one slice's deliveries
 * (two lines each at least) fill at most half the window, so the other
 * files are read before the window has to let anything go. */
#define SLICE_LINES 2048u

void ips_diff_options_init(ips_diff_options_t *o) {
  memset(o, 0, sizeof *o);
  ips_source_options_init(&o->src);
  o->clock = IPS_CLOCK_AUTO;
  o->window = IPS_DIFF_WINDOW;
  o->top = 10;
  o->divergences = 100;
}

int ips_diff_new(ips_diff_t **out, const ips_diff_options_t *o) {
  ips_diff_t *d;
  *out = NULL;
  if (!o || o->src.follow || (o->window && o->window < 16) ||
      o->window > (1u << 24) || o->top > 10000 || o->divergences > 100000 ||
      o->by < IPS_DIFF_BY_VAT_METHOD || o->by > IPS_DIFF_BY_METHOD ||
      o->clock < IPS_CLOCK_AUTO || o->clock > IPS_CLOCK_WALL)
    return IPS_EINVAL;
  if (!(d = calloc(1, sizeof *d)))
    return IPS_ENOMEM;
  d->o = *o;
  if (!d->o.window)
    d->o.window = IPS_DIFF_WINDOW;
  *out = d;
  return 0;
}

static void on_delivery(void *arg, const ips_delivery_t *dv) {
  diff_node_t *n = arg;
  long long block = 0;
  int has_block = ips_analysis_current_block(n->a, &block);
  n->pub.deliveries++;
  if (ips__diff_join_add(n->d, n->i, dv, has_block, block) < 0)
    n->d->started = -1; /* out of memory: said by ips_diff_run */
  if (!dv->replay && dv->crank > n->last_crank)
    n->last_crank = dv->crank;
}

static void on_skip(void *arg, const ips_skip_t *s) {
  diff_node_t *n = arg;
  if (n->d->o.on_skip)
    n->d->o.on_skip(n->d->o.arg, n->i, s);
}

int ips_diff_add(ips_diff_t *d, const char *name, const char *path,
                 char *err, size_t errlen) {
  diff_node_t *n;
  ips_analysis_options_t ao;
  struct stat st;
  size_t i;
  int rc;
  if (d->n == IPS_DIFF_MAX_NODES || d->started) {
    snprintf(err, errlen, "%s: at most %d files, added before reading", path,
             IPS_DIFF_MAX_NODES);
    return IPS_EINVAL;
  }
  if (!*name || strlen(name) >= sizeof n->name) {
    snprintf(err, errlen, "%s: a name of 1 to %zu bytes", path,
             sizeof n->name - 1);
    return IPS_EINVAL;
  }
  n = &d->node[d->n];
  memset(n, 0, sizeof *n);
  if (strcmp(path, "-") && stat(path, &st) == 0) {
    n->dev = st.st_dev;
    n->ino = st.st_ino;
    n->regular = 1;
  }
  for (i = 0; i < d->n; i++) {
    if (!strcmp(d->node[i].name, name)) {
      snprintf(err, errlen, "%s: the name %s is taken by %s", path, name,
               d->node[i].path);
      return IPS_EINVAL;
    }
    if ((n->regular && d->node[i].regular && d->node[i].dev == n->dev &&
         d->node[i].ino == n->ino) ||
        (!strcmp(path, "-") && !strcmp(d->node[i].path, "-"))) {
      snprintf(err, errlen, "%s is given twice (as %s and as %s)", path,
               d->node[i].name, name);
      return IPS_EINVAL;
    }
  }
  rc = ips_source_open(&n->src, path, &d->o.src, err, errlen);
  if (rc < 0)
    return rc;
  ips_analysis_options_init(&ao);
  ao.clock = d->o.clock;
  ao.top = 0;
  ao.on_delivery = on_delivery;
  ao.on_skip = on_skip;
  ao.arg = n;
  if ((rc = ips_analysis_new(&n->a, &ao)) < 0 ||
      (rc = ips_analysis_on_block(n->a, NULL, NULL)) < 0 ||
      !(n->path = strdup(path))) {
    ips_analysis_free(n->a);
    ips_source_close(n->src);
    snprintf(err, errlen, "%s: out of memory", path);
    return rc < 0 ? rc : IPS_ENOMEM;
  }
  snprintf(n->name, sizeof n->name, "%s", name);
  n->d = d;
  n->i = d->n;
  n->last_crank = -1;
  n->pub.name = n->name;
  n->pub.path = n->path;
  d->n++;
  return 0;
}

int ips_diff_os(ips_diff_t *d, size_t node, ips_os_t *os) {
  if (!d || node >= d->n || d->started) {
    ips_os_free(os);
    return IPS_EINVAL;
  }
  /* The node's analysis splits each delivery (d->os) before the join
   * takes it. */
  return ips_analysis_os(d->node[node].a, os);
}

/* The node to read next: not at its end, the lowest crank, then the
 * fewest deliveries; d->n when all are at their end. */
static size_t next_node(const ips_diff_t *d) {
  size_t i, best = d->n;
  for (i = 0; i < d->n; i++) {
    const diff_node_t *n = &d->node[i];
    if (n->eof)
      continue;
    long long c = n->last_crank < 0 ? -1 : n->last_crank - n->delta;
    long long cb = best == d->n ? 0 : d->node[best].last_crank < 0
                                          ? -1
                                          : d->node[best].last_crank -
                                                d->node[best].delta;
    if (best == d->n || c < cb ||
        (c == cb &&
         n->pub.deliveries < d->node[best].pub.deliveries))
      best = i;
  }
  return best;
}

static int start(ips_diff_t *d, char *err, size_t errlen) {
  if (d->n < 2) {
    snprintf(err, errlen, "a diff needs at least two files");
    return IPS_EINVAL;
  }
  if (d->started) {
    snprintf(err, errlen, "the files were read already");
    return IPS_EINVAL;
  }
  d->started = 1;
  if (ips__diff_window_init(&d->w, d->n, d->o.window) < 0 ||
      ips__diff_sums_init(&d->s, d->n, &d->o) < 0) {
    snprintf(err, errlen, "out of memory");
    return IPS_ENOMEM;
  }
  return 0;
}

int ips_diff_run(ips_diff_t *d, char *err, size_t errlen) {
  size_t i, slice = d->o.window < SLICE_LINES ? d->o.window : SLICE_LINES;
  int rc = start(d, err, errlen), failed = 0;
  if (rc < 0)
    return rc;
  while ((i = next_node(d)) < d->n) {
    diff_node_t *n = &d->node[i];
    char e[400];
    long r = ips_analysis_read(n->a, n->src, slice, e, sizeof e);
    if (d->started < 0) {
      snprintf(err, errlen, "out of memory");
      return IPS_ENOMEM;
    }
    if (r <= 0) {
      if (r < 0 && !failed) {
        snprintf(err, errlen, "%s:%llu: %s", n->path,
                 (unsigned long long)ips_analysis_stats(n->a)->lines + 1, e);
        failed = 1;
      }
      ips_analysis_finish(n->a);
      n->eof = 1;
    }
    ips__diff_join_drain(d, 0);
  }
  ips__diff_join_drain(d, 1);
  ips__diff_sums_finish(d);
  for (i = 0; i < d->n; i++)
    d->node[i].pub.stats = ips_analysis_stats(d->node[i].a);
  return failed ? IPS_EIO : 0;
}

const ips_diff_node_t *ips_diff_node(const ips_diff_t *d, size_t i) {
  return i < d->n ? &d->node[i].pub : NULL;
}

void ips_diff_free(ips_diff_t *d) {
  size_t i;
  if (!d)
    return;
  for (i = 0; i < d->n; i++) {
    ips_analysis_free(d->node[i].a);
    ips_source_close(d->node[i].src);
    free(d->node[i].path);
  }
  if (d->started) {
    ips__diff_window_free(&d->w);
    ips__diff_sums_free(&d->s);
  }
  free(d);
}
