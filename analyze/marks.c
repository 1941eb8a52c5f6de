/* marks.c — a delivery's marks and spans (metering v2): the
 * worker's events on the delivery's clock, spans paired, in time order, and
 * the per-name totals.  Nothing here runs for a delivery without marks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "mark_pair.h"
#include "marks.h"

static int ready(ips_analysis_t *a) {
  if (a->dmarks)
    return 1;
  a->dmarks = malloc(IPS_MAX_MARKS * sizeof *a->dmarks);
  a->dmnames = malloc(IPS__MNAMES_BYTES);
  a->msort = malloc(IPS_MAX_MARKS * sizeof(ips__mev_t));
  a->mopen = malloc(IPS_MAX_MARKS * sizeof(ips__mopen_t));
  a->mstats = calloc(IPS_MAX_MARK_NAMES, sizeof *a->mstats);
  if (a->dmarks && a->dmnames && a->msort && a->mopen && a->mstats)
    return 1;
  ips__marks_free(a);
  return 0;
}

const char *ips__marks_build(ips_analysis_t *a, const ips__rec_t *r,
                             ips_delivery_t *dv, int use_wall, int64_t off,
                             size_t k) {
  ips__mev_t *ev;
  const int64_t *W = dv->W;
  size_t i, n = r->n_marks;

  if (n == 0)
    return NULL;
  if (!ready(a))
    return "out of memory for the delivery's marks";
  ev = a->msort;
  for (i = 0; i < r->n_mnames; i++)
    ips__marks_sanitise(a->dmnames + r->mname_off[i],
                        r->mnames + r->mname_off[i]);
  for (i = 0; i < n; i++) {
    const ips__mark_t *m = &r->marks[i];
    int64_t src = dv->clock == 'w' && use_wall ? m->wall : m->mono;
    if (m->name >= r->n_mnames)
      return "a mark names an index past ipcstamp.marks.names";
    if (src < 0 || src >= IPS_STAMP_LIMIT)
      return "a mark's stamp is not in [0, 2^62) ns";
    ev[i].t = dv->clock == 'w' || dv->mono_offset ? src - off : src;
    if (ev[i].t < W[0] || ev[i].t > W[k - 1])
      return "a mark lies outside the worker's d..e";
    ev[i].seq = (uint32_t)i;
    ev[i].name = m->name;
    ev[i].kind = m->kind;
  }
  /* The worker counted its unbalanced ends and open spans itself (in the
   * metering): the pairing's own count is not needed here. */
  dv->n_marks = ips__marks_pair(ev, n, a->mopen, a->dmnames, r->mname_off,
                                W, dv->n_up, a->dmarks, NULL);
  dv->marks = dv->n_marks ? a->dmarks : NULL;
  return NULL;
}

void ips__marks_count(ips_analysis_t *a, const ips_delivery_t *dv) {
  size_t i, j;
  /* (a delivery joined from the rings brings its marks built elsewhere) */
  if (!ready(a)) {
    a->marks_over += dv->n_marks;
    return;
  }
  for (i = 0; i < dv->n_marks; i++) {
    const ips_delivery_mark_t *m = &dv->marks[i];
    ips_mark_stats_t *s = NULL;
    for (j = 0; j < a->nmstats; j++)
      if (strcmp(a->mstats[j].name, m->name) == 0) {
        s = &a->mstats[j];
        break;
      }
    if (!s) {
      char *copy;
      if (a->nmstats == IPS_MAX_MARK_NAMES ||
          (copy = strdup(m->name)) == NULL) {
        a->marks_over++;
        continue;
      }
      s = &a->mstats[a->nmstats++];
      s->name = copy;
    }
    if (m->kind == 'm') {
      s->n_marks++;
    } else {
      s->n_spans++;
      /* dur <= 2^62 and the count is far below 2^61 spans... but a sum can
       * still overflow on hostile input: held at the bound. */
      s->saturated += (uint64_t)ips_sum_add(&s->span_ns, m->dur);
      if (m->dur > s->span_max_ns)
        s->span_max_ns = m->dur;
    }
  }
}

void ips__marks_free(ips_analysis_t *a) {
  size_t i;
  for (i = 0; a->mstats && i < a->nmstats; i++)
    free((char *)a->mstats[i].name);
  free(a->dmarks);
  free(a->dmnames);
  free(a->msort);
  free(a->mopen);
  free(a->mstats);
  a->dmarks = NULL;
  a->dmnames = NULL;
  a->msort = NULL;
  a->mopen = NULL;
  a->mstats = NULL;
  a->nmstats = 0;
}

size_t ips_analysis_nmarks(const ips_analysis_t *a) { return a->nmstats; }

const ips_mark_stats_t *ips_analysis_mark(const ips_analysis_t *a, size_t i) {
  return i < a->nmstats ? &a->mstats[i] : NULL;
}

uint64_t ips_analysis_marks_over(const ips_analysis_t *a) {
  return a->marks_over;
}
