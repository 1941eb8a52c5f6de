/* delivery_text.c — a delivery of the report as text: its line of shares,
 * its segments, its marks and spans, its pipe's split and its facts. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"

static const char *clock_name(char c) { return c == 'm' ? "mono" : "wall"; }

/* One delivery's text is built in memory and written with one fwrite: a
 * stdio call per figure was a quarter of the time of a report of many
 * small deliveries.  A delivery with many upcalls flushes as it goes. */
typedef struct {
  FILE *f;
  size_t n;
  char b[4096];
} tb_t;

/* Inlined: most calls are TB_LIT's, whose memcpy of a constant size is
 * then a move or two instead of a call. */
static inline __attribute__((always_inline)) void tb_put(tb_t *t,
                                                         const char *s,
                                                         size_t n) {
  if (t->n + n > sizeof t->b) {
    fwrite(t->b, 1, t->n, t->f);
    t->n = 0;
    if (n > sizeof t->b) {
      fwrite(s, 1, n, t->f);
      return;
    }
  }
  memcpy(t->b + t->n, s, n);
  t->n += n;
}

#define TB_LIT(t, lit) tb_put((t), (lit), sizeof(lit) - 1)

static void tb_str(tb_t *t, const char *s) { tb_put(t, s, strlen(s)); }

/* Straight into the buffer: formatting elsewhere and copying was a tenth
 * of the report's instructions. */
static void tb_us(tb_t *t, int64_t ns) {
  if (t->n + 32 > sizeof t->b) {
    fwrite(t->b, 1, t->n, t->f);
    t->n = 0;
  }
  t->n += ips_put_us(t->b + t->n, ns);
}

/* The segments' literals, " | worker " and so on, each in 16 bytes so that
 * it is copied as one constant-size move (a report prints some 600,000);
 * the row after the last is room for the last's copy to read. */
static const struct {
  char s[16];
  size_t n;
} seg_lit[IPS_SEG_N + 1] = {
#define SEG_LIT(s) {" | " s " ", sizeof(" | " s " ") - 1}
    SEG_LIT("send"),  SEG_LIT("worker"), SEG_LIT("upcall"),   SEG_LIT("kernel"),
    SEG_LIT("reply"), SEG_LIT("result"), SEG_LIT("unmatched"), {"", 0}
#undef SEG_LIT
};

/* The most segments a delivery's line shows (some 2.5 KB): the rest, a
 * delivery of hundreds of upcalls (a vat's startVat: a line of ~20 KB),
 * are said by their count and their time per kind. */
#define SEG_SHOWN 128

/* " | and N more segments: worker 1.0, upcall 2.0, ..." for the segments
 * past SEG_SHOWN: n of them, sum their time per kind. */
static void tb_cut(tb_t *t, size_t n, const int64_t *sum) {
  const char *sep = ": ";
  size_t k;
  char b[32];
  TB_LIT(t, " | and ");
  tb_put(t, b, (size_t)snprintf(b, sizeof b, "%zu", n));
  TB_LIT(t, " more segments");
  for (k = 0; k < IPS_SEG_N; k++) {
    if (!sum[k])
      continue;
    tb_str(t, sep);
    tb_put(t, seg_lit[k].s + 3, seg_lit[k].n - 3);
    tb_us(t, sum[k]);
    sep = ", ";
  }
}

/* The delivery's segments as the library walks them, a run at a time:
 * "send 1.0 | worker 2.0 | ...", the first SEG_SHOWN of them. */
static void tb_segments(tb_t *t, const ips_delivery_t *d) {
  int64_t len[64], sum[IPS_SEG_N] = {0};
  unsigned char kind[64];
  size_t from = 0, got, j, skip = 3, cut = 0; /* no " | " before the first */
  while ((got = ips_delivery_segments(d, from, 64, len, kind)) > 0) {
    for (j = 0; j < got; j++) {
      if (from + j >= SEG_SHOWN) {
        cut++;
        ips_sum_add(&sum[kind[j]], len[j]); /* held at the bound */
        continue;
      }
      if (t->n + 16 + 32 > sizeof t->b) {
        fwrite(t->b, 1, t->n, t->f);
        t->n = 0;
      }
      memcpy(t->b + t->n, seg_lit[kind[j]].s + skip, 16 - 3);
      t->n += seg_lit[kind[j]].n - skip;
      t->n += ips_put_us(t->b + t->n, len[j]);
      skip = 0;
    }
    from += got;
  }
  if (cut)
    tb_cut(t, cut, sum);
}

static void tb_ll(tb_t *t, long long v) {
  char b[32];
  int n = 0;
  unsigned long long a = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do {
    b[sizeof b - 1 - n++] = (char)('0' + a % 10);
    a /= 10;
  } while (a);
  if (v < 0)
    b[sizeof b - 1 - n++] = '-';
  tb_put(t, b + sizeof b - n, (size_t)n);
}

/* "crank 5 v1 #3 desc [wall] total ... = pipe ... + worker ... + kernel
 * ...", then the segments' line. */
static void tb_head(tb_t *t, const ips_delivery_t *d) {
  if (d->replay) {
    TB_LIT(t, "replay ");
  } else {
    TB_LIT(t, "crank ");
    tb_ll(t, d->crank);
    TB_LIT(t, " ");
  }
  tb_str(t, d->vat);
  TB_LIT(t, " #");
  tb_ll(t, d->dnum);
  TB_LIT(t, " ");
  tb_str(t, d->desc);
  if (d->ok)
    TB_LIT(t, " [");
  else
    TB_LIT(t, " (error) [");
  tb_str(t, clock_name(d->clock));
  TB_LIT(t, "] total ");
  tb_us(t, d->total);
  TB_LIT(t, " = pipe ");
  tb_us(t, d->pipe);
  TB_LIT(t, " + worker ");
  tb_us(t, d->worker);
  TB_LIT(t, " + kernel ");
  tb_us(t, d->kernel);
  if (d->n_unmatched) {
    TB_LIT(t, " + unmatched ");
    tb_us(t, d->unmatched);
  }
  TB_LIT(t, "\n  ");
  tb_segments(t, d);
  TB_LIT(t, "\n");
}

/* The VM's own marks and spans, in time order, indented by nesting, each
 * with the worker stretch it starts in. */
static void tb_marks(tb_t *t, const ips_delivery_t *d) {
  size_t j;
  for (j = 0; j < d->n_marks; j++) {
    const ips_delivery_mark_t *m = &d->marks[j];
    int k;
    TB_LIT(t, "    worker ");
    tb_ll(t, (long long)m->wseg);
    TB_LIT(t, ": ");
    for (k = 0; k < m->depth && k < 16; k++)
      TB_LIT(t, "  ");
    if (m->kind == 's') {
      TB_LIT(t, "span ");
      tb_str(t, m->name);
      TB_LIT(t, " ");
      tb_us(t, m->dur);
    } else {
      TB_LIT(t, "mark ");
      tb_str(t, m->name);
    }
    TB_LIT(t, " at +");
    tb_us(t, m->at - d->W[0]);
    TB_LIT(t, "\n");
  }
  if (d->marks_dropped || d->marks_unbalanced) {
    TB_LIT(t, "    marks dropped ");
    tb_ll(t, d->marks_dropped);
    TB_LIT(t, ", unbalanced ");
    tb_ll(t, d->marks_unbalanced);
    TB_LIT(t, "\n");
  }
}

/* transit + waiting (+ not measured) == pipe, to the ns */
static void tb_wait(tb_t *t, const ips_delivery_t *d) {
  TB_LIT(t, "  pipe ");
  tb_us(t, d->pipe);
  TB_LIT(t, " = transit ");
  tb_us(t, d->pipe_transit);
  TB_LIT(t, " + waiting for a CPU ");
  tb_us(t, d->pipe_wait);
  TB_LIT(t, " (worker ");
  tb_us(t, d->wait_worker);
  TB_LIT(t, ", kernel ");
  tb_us(t, d->pipe_wait - d->wait_worker);
  TB_LIT(t, ")");
  if (d->pipe_unsplit) {
    TB_LIT(t, " + not measured ");
    tb_us(t, d->pipe_unsplit);
  }
  TB_LIT(t, "\n");
}

/* The worker's time on and off a CPU, after sep; returns the next sep. */
static const char *tb_cpu(tb_t *t, const ips_delivery_t *d, const char *sep) {
  if (d->has_cpu) {
    tb_str(t, sep);
    TB_LIT(t, "worker on-cpu ");
    tb_us(t, d->worker - d->offcpu_ns); /* the two add up to worker */
    TB_LIT(t, " off-cpu ");
    tb_us(t, d->offcpu_ns);
    if (d->has_runnable) { /* the two add up to off-cpu */
      TB_LIT(t, " (runnable ");
      tb_us(t, d->runnable_ns);
      TB_LIT(t, ", blocked ");
      tb_us(t, d->blocked_ns);
      TB_LIT(t, ")");
    }
    return "; ";
  }
  if (d->has_runnable) {
    tb_str(t, sep);
    TB_LIT(t, "worker runnable ");
    tb_us(t, d->runnable_ns);
    return "; ";
  }
  return sep;
}

/* The clocks' offset and what went wrong with the clocks or the rings,
 * after sep. */
static void tb_clocks(tb_t *t, const ips_delivery_t *d, const char *sep) {
  if (d->clock == 'w' || d->mono_offset) {
    tb_str(t, sep);
    if (d->mono_offset)
      TB_LIT(t, "mono ");
    TB_LIT(t, "offset ");
    tb_us(t, d->offset_ns);
    TB_LIT(t, " +- ");
    tb_us(t, d->bound_ns);
    sep = "; ";
  }
  if (d->offset_mismatch) {
    tb_str(t, sep);
    TB_LIT(t, "OFFSET MISMATCH");
    sep = "; ";
  }
  if (d->ring == IPS_RING_LAPPED || d->ring == IPS_RING_MISSING) {
    tb_str(t, sep);
    if (d->ring == IPS_RING_LAPPED)
      TB_LIT(t, "RING LAPPED: its worker's stamps were overwritten before they were read");
    else
      TB_LIT(t, "NO RING: no worker ring of --worker-rings has its stamps");
    sep = "; ";
  }
  if (d->quake) {
    tb_str(t, sep);
    TB_LIT(t, "TIMEQUAKE wall and mono differ by ");
    tb_us(t, d->quake_ns);
  }
}

/* The facts' line: the kernel before it, the snapshots, the CPU, the
 * clocks. */
static void tb_facts(tb_t *t, const ips_delivery_t *d) {
  const char *sep = "";
  TB_LIT(t, "  ");
  if (d->has_gap) {
    TB_LIT(t, "kernel before ");
    tb_us(t, d->gap_ns);
    sep = "; ";
  }
  if (d->snap_save_ns || d->snap_load_ns) { /* heap snapshots, apart */
    TB_LIT(t, "; snapshot save ");
    tb_us(t, d->snap_save_ns);
    TB_LIT(t, " load ");
    tb_us(t, d->snap_load_ns);
  }
  sep = tb_cpu(t, d, sep);
  tb_clocks(t, d, sep);
  TB_LIT(t, "\n");
}

void report_delivery_text(report_out_t *r, const ips_delivery_t *d) {
  tb_t t;
  t.f = r->out;
  t.n = 0;
  tb_head(&t, d);
  tb_marks(&t, d);
  if (d->has_wait)
    tb_wait(&t, d);
  if (d->has_cpu || d->has_gap || d->quake || d->clock == 'w' ||
      d->mono_offset || d->has_runnable)
    tb_facts(&t, d);
  fwrite(t.b, 1, t.n, t.f);
  if (d->os)
    os_text(t.f, d->os);
}
