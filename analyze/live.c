/* live.c — a delivery as it runs, from its worker's stamps alone, and the
 * figures of the latest finished ones (`ipcstamp top`'s; the contracts are
 * in ipcstamp-analyze-rings.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ipcstamp-analyze.h"

int ips_worker_live_stamp(ips_worker_live_t *w, char kind, int64_t mono_ns,
                          uint64_t delivery, uint32_t upcall,
                          ips_live_done_t *done) {
  switch (kind) {
    case 'd':
      w->delivery = delivery ? delivery : 1;
      w->d_mono_ns = w->seg_mono_ns = mono_ns;
      w->seg_kind = 'd';
      w->upcall = 0;
      w->wait_ns = 0;
      return 0;
    case 'u':
      if (!w->delivery)
        return 0;
      w->seg_kind = 'u';
      w->seg_mono_ns = mono_ns;
      w->upcall = upcall;
      return 0;
    case 'r':
      if (!w->delivery)
        return 0;
      if (w->seg_kind == 'u')
        ips_sum_add(&w->wait_ns, ips_sub_held(mono_ns, w->seg_mono_ns));
      w->seg_kind = 'r';
      w->seg_mono_ns = mono_ns;
      return 0;
    case 'e':
      if (!w->delivery)
        return 0;
      w->delivery = 0;
      done->end_mono_ns = mono_ns;
      done->total_ns = ips_sub_held(mono_ns, w->d_mono_ns);
      done->pipe_ns = -1;
      done->kernel_ns = w->wait_ns;
      done->worker_ns = ips_sub_held(done->total_ns, w->wait_ns);
      return 1;
    default:
      return 0;
  }
}

void ips_live_add(ips_live_history_t *h, const ips_live_done_t *d) {
  h->done[h->next] = *d;
  h->next = (h->next + 1) % IPS_LIVE_HISTORY;
  if (h->ndone < IPS_LIVE_HISTORY)
    h->ndone++;
  h->finished++;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

void ips_live_stats(const ips_live_history_t *h, int64_t now_ns,
                    int64_t window_ns, ips_live_stats_t *s) {
  int64_t totals[IPS_LIVE_HISTORY];
  int64_t from = ips_sub_held(now_ns, window_ns);
  size_t i;
  memset(s, 0, sizeof *s);
  s->p50_ns = s->p99_ns = -1;
  s->have_pipe = 1;
  for (i = 0; i < h->ndone; i++) {
    const ips_live_done_t *d = &h->done[i];
    if (d->end_mono_ns < from || d->end_mono_ns > now_ns)
      continue;
    totals[s->n++] = d->total_ns;
    ips_sum_add(&s->total_ns, d->total_ns);
    ips_sum_add(&s->worker_ns, d->worker_ns);
    ips_sum_add(&s->kernel_ns, d->kernel_ns);
    if (d->pipe_ns < 0)
      s->have_pipe = 0;
    else
      ips_sum_add(&s->pipe_ns, d->pipe_ns);
  }
  if (!s->n)
    return;
  s->per_s = (double)s->n * 1e9 / (double)window_ns;
  qsort(totals, s->n, sizeof totals[0], cmp_i64);
  /* Nearest rank. */
  s->p50_ns = totals[(s->n * 50 + 99) / 100 - 1];
  s->p99_ns = totals[(s->n * 99 + 99) / 100 - 1];
}
