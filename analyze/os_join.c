/* os_join.c — a recording of `ipcstamp record` joined with an analysis
 * (docs/os.md): every delivery the analysis counts is split by what the
 * operating system saw (os_split.c) before the caller sees it, so that
 * every output takes the parts from the delivery itself (d->os, the
 * fields of IPS_OS_FIELDS), and the splits are summed here, once, for
 * every summary. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "os.h"

struct ips__os_join_s {
  ips_os_t *os;
  ips_os_split_t split; /* the delivery being handed out */
  ips_os_split_t sum;
  uint64_t n;
  ips_os_gap_t gaps[IPS_OS_GAPS]; /* the longest gaps, longest first */
  size_t ngaps;
};

int ips_analysis_os(ips_analysis_t *a, ips_os_t *os) {
  if (!a || !os || a->osj || a->st.lines) {
    ips_os_free(os);
    return IPS_EINVAL;
  }
  if (!(a->osj = calloc(1, sizeof *a->osj))) {
    ips_os_free(os);
    return IPS_ENOMEM;
  }
  a->osj->os = os;
  return 0;
}

const ips_os_t *ips_analysis_os_recording(const ips_analysis_t *a) {
  return a && a->osj ? a->osj->os : NULL;
}

const ips_os_split_t *ips_analysis_os_sum(const ips_analysis_t *a,
                                          uint64_t *n) {
  if (!a || !a->osj)
    return NULL;
  *n = a->osj->n;
  return &a->osj->sum;
}

const ips_os_gap_t *ips_analysis_os_gaps(const ips_analysis_t *a,
                                         size_t *n) {
  if (!a || !a->osj)
    return NULL;
  *n = a->osj->ngaps;
  return a->osj->gaps;
}

/* The gap before dv (split s->before) into the longest kept, if it is one
 * of them (ties: the first kept). */
static void keep_gap(struct ips__os_join_s *j, const ips_delivery_t *dv,
                     const ips_os_split_t *s) {
  int64_t ns = 0;
  size_t i = j->ngaps < IPS_OS_GAPS ? j->ngaps : IPS_OS_GAPS - 1;
  ips_sum_add(&ns, dv->gap_ns);
  ips_sum_add(&ns, dv->snap_save_ns);
  ips_sum_add(&ns, dv->snap_load_ns);
  if (j->ngaps == IPS_OS_GAPS && ns <= j->gaps[i].ns)
    return;
  for (; i > 0 && j->gaps[i - 1].ns < ns; i--)
    j->gaps[i] = j->gaps[i - 1];
  if (j->ngaps < IPS_OS_GAPS)
    j->ngaps++;
  j->gaps[i].line = dv->line;
  j->gaps[i].crank = dv->replay ? -1 : dv->crank;
  snprintf(j->gaps[i].vat, sizeof j->gaps[i].vat, "%s", dv->vat ? dv->vat : "");
  j->gaps[i].ns = ns;
  j->gaps[i].t = s->before;
}

void ips__os_account(ips_analysis_t *a, ips_delivery_t *dv) {
  struct ips__os_join_s *j = a->osj;
  ips_os_split_t *s, *t;
  if (!j)
    return;
  s = &j->split;
  t = &j->sum;
  ips_os_split(j->os, dv, s);
  dv->os = s;
  j->n++;
  t->frames += s->frames;
  t->frames_expected += s->frames_expected;
  ips_sum_add(&t->pipe_before_write, s->pipe_before_write);
  ips_sum_add(&t->pipe_write, s->pipe_write);
  ips_sum_add(&t->pipe_in_pipe, s->pipe_in_pipe);
  ips_sum_add(&t->pipe_sleep, s->pipe_sleep);
  ips_sum_add(&t->pipe_page_fault, s->pipe_page_fault);
  ips_sum_add(&t->pipe_cpu_wait, s->pipe_cpu_wait);
  ips_sum_add(&t->pipe_reader, s->pipe_reader);
  ips_sum_add(&t->pipe_not_measured, s->pipe_not_measured);
  ips_os_time_add(&t->worker, &s->worker);
  ips_os_time_add(&t->kernel, &s->kernel);
  if (s->has_before) { /* the sum's has_before: how many had one */
    t->has_before++;
    ips_os_time_add(&t->before, &s->before);
    keep_gap(j, dv, s);
  }
}

void ips__os_join_free(struct ips__os_join_s *j) {
  if (!j)
    return;
  ips_os_free(j->os);
  free(j);
}
