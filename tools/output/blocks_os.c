/* blocks_os.c — `ipcstamp blocks --os FILE`: each block's time outside
 * its deliveries, split by what the kernel's thread was doing (docs/os.md,
 * "Between deliveries"; docs/blocks.md).
 *
 * The deliveries come before their block: each one's span (its start and
 * result on the parent's clock) is kept, with the kernel's thread and
 * clock offset its frames tell.  When the block is committed, its
 * stretches without a delivery — from end-block-start to the first
 * delivery, between deliveries, after the last to end-block-finish, and
 * the commit — are split on that thread (ips_os_kernel_time), and the
 * longest (BLOCKS_OS_GAPS of them) are kept with their split, the longest
 * named with its largest part.  Every crank's gap, each split, is in
 * `report --os` (os_before_*): here a block's worst. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/* The most deliveries kept for one block; beyond, the block's split is
 * "not measured" (said in its row) rather than memory without bound. */
#define SPANS_MAX ((size_t)1 << 20)

void blocks_os_delivery(blocks_os_t *o, const ips_delivery_t *d) {
  ips_os_kernel_t k;
  blocks_os_span_t *s;
  if (ips_os_kernel(o->os, d, &k)) {
    o->k = k;
    o->block_k = 1;
  }
  if (o->nspans == o->capspans) {
    size_t cap = o->capspans ? o->capspans * 2 : 64;
    blocks_os_span_t *n;
    if (cap > SPANS_MAX || !(n = realloc(o->spans, cap * sizeof *n))) {
      o->overflow = 1;
      return;
    }
    o->spans = n;
    o->capspans = cap;
  }
  s = &o->spans[o->nspans++];
  s->start = d->P[0];
  s->end = d->P[1 + 2 * d->n_up];
  s->line = d->line;
  s->crank = d->replay ? -1 : d->crank;
  snprintf(s->vat, sizeof s->vat, "%s", d->vat ? d->vat : "");
}

/* A block's instant t on its clock, on the recording's. */
static int block_time(const blocks_os_t *o, const ips_block_t *b, int64_t t,
                      int64_t *rec) {
  if (b->clock == 'w')
    return ips_os_from_wall(o->os, t, rec);
  *rec = t + o->k.offset;
  return 1;
}

/* A stretch into the block's longest, if it is one of them (ties: the
 * first kept). */
static void keep_gap(blocks_os_block_t *c, int64_t len, long line,
                     const blocks_os_span_t *sp, const ips_os_time_t *t) {
  size_t i = c->ngaps < BLOCKS_OS_GAPS ? c->ngaps : BLOCKS_OS_GAPS - 1;
  blocks_os_gap_t *g;
  if (c->ngaps == BLOCKS_OS_GAPS && len <= c->gaps[i].ns)
    return;
  for (; i > 0 && c->gaps[i - 1].ns < len; i--)
    c->gaps[i] = c->gaps[i - 1];
  if (c->ngaps < BLOCKS_OS_GAPS)
    c->ngaps++;
  g = &c->gaps[i];
  g->ns = len;
  g->line = line;
  g->crank = sp ? sp->crank : -1;
  snprintf(g->vat, sizeof g->vat, "%s", sp ? sp->vat : "");
  g->t = *t;
}

/* Stretch [from, to] (the recording's clock) into the block's split,
 * named by what follows it: the delivery sp at line, or (sp NULL) line 0
 * the block's end, -1 its commit. */
static void stretch(blocks_os_t *o, int64_t from, int64_t to, long line,
                    const blocks_os_span_t *sp) {
  ips_os_time_t t;
  int64_t len;
  /* Hostile records can put the ends 2^63 apart: no stretch then. */
  if (to <= from || __builtin_sub_overflow(to, from, &len))
    return;
  memset(&t, 0, sizeof t);
  ips_os_kernel_time(o->os, &o->k, from, to, &t);
  ips_os_time_add(line < 0 ? &o->cur.commit : &o->cur.inside, &t);
  ips_sum_add(&o->cur.between_ns, len);
  if (line < 0)
    ips_sum_add(&o->cur.commit_ns, len);
  keep_gap(&o->cur, len, line, sp, &t);
}

void blocks_os_block(blocks_os_t *o, const ips_block_t *b) {
  int64_t start, finish, prev, c0, c1;
  size_t i;
  memset(&o->cur, 0, sizeof o->cur);
  /* A kernel seen only in blocks before may be another process (a
   * restart): the block is then not measured. */
  o->k.known = o->k.known && o->block_k;
  o->cur.kernel_pid = o->k.known ? o->k.pid : 0;
  if (!block_time(o, b, b->start_t, &start) ||
      !block_time(o, b, b->finish_t, &finish))
    o->overflow = 1; /* no way to the recording's clock */
  if (o->overflow) {
    int64_t rest = b->kernel_own; /* swingset less its deliveries */
    ips_sum_add(&rest, b->snap_save);
    ips_sum_add(&rest, b->snap_load);
    o->cur.inside.not_measured = rest > 0 ? rest : 0;
    o->cur.between_ns = o->cur.inside.not_measured;
    o->cur.overflow = 1;
  } else {
    prev = start;
    for (i = 0; i < o->nspans; i++) {
      int64_t s = o->spans[i].start + o->k.offset;
      int64_t e = o->spans[i].end + o->k.offset;
      if (s < start || e > finish)
        continue; /* not this block's (between blocks) */
      stretch(o, prev, s, o->spans[i].line, &o->spans[i]);
      prev = e > prev ? e : prev;
    }
    stretch(o, prev, finish, 0, NULL);
  }
  if (b->has_commit && block_time(o, b, b->commit_start_t, &c0) &&
      block_time(o, b, b->commit_finish_t, &c1))
    stretch(o, c0, c1, -1, NULL);
  o->nspans = 0;
  o->overflow = 0;
  o->block_k = 0;
  o->n++;
  ips_sum_add(&o->sum_ns, o->cur.between_ns);
  ips_os_time_add(&o->sum, &o->cur.inside);
  ips_os_time_add(&o->sum, &o->cur.commit);
}

void blocks_os_free(blocks_os_t *o) {
  free(o->spans);
  ips_os_free(o->os);
}

/* A stretch's place, in buf. */
static const char *gap_where(const blocks_os_gap_t *w, char *buf, size_t n) {
  if (w->line < 0)
    return "commit";
  if (w->line == 0)
    return "after the last delivery";
  snprintf(buf, n, "before the delivery at line %ld", w->line);
  return buf;
}

/* The worst gap (the longest stretch) and its largest part. */
static void worst_json(yajl_gen g, const blocks_os_gap_t *w) {
  char sc[24], where[64];
  int64_t ns;
  const char *cause = ips_os_time_cause(&w->t, &ns, sc);
  out_str(g, "worst_gap");
  yajl_gen_map_open(g);
  out_kv(g, "where", gap_where(w, where, sizeof where));
  if (w->line > 0)
    out_int(g, "before_line", w->line);
  out_int(g, "ns", w->ns);
  out_kv(g, "cause", cause ? cause : "");
  out_kv(g, "syscall", sc);
  out_int(g, "cause_ns", ns);
  yajl_gen_map_close(g);
}

/* The longest stretches, longest first, each with the delivery after it
 * (its line, crank and vat) and its split. */
static void gaps_json(yajl_gen g, const blocks_os_block_t *c) {
  char where[64];
  size_t i;
  out_str(g, "gaps");
  yajl_gen_array_open(g);
  for (i = 0; i < c->ngaps; i++) {
    const blocks_os_gap_t *w = &c->gaps[i];
    yajl_gen_map_open(g);
    out_kv(g, "where", gap_where(w, where, sizeof where));
    if (w->line > 0)
      out_int(g, "before_line", w->line);
    if (w->line > 0 && w->crank >= 0)
      out_int(g, "crank", w->crank);
    if (w->vat[0])
      out_kv(g, "vat", w->vat);
    out_int(g, "ns", w->ns);
    os_time_json(g, "split", &w->t);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

void blocks_os_json(const blocks_os_t *o, yajl_gen g) {
  const blocks_os_block_t *c = &o->cur;
  ips_os_time_t all = c->inside;
  ips_os_time_add(&all, &c->commit);
  out_str(g, "os");
  yajl_gen_map_open(g);
  out_int(g, "kernel_pid", c->kernel_pid);
  out_int(g, "between_ns", c->between_ns);
  out_int(g, "commit_ns", c->commit_ns);
  if (c->overflow) {
    out_str(g, "not_joined");
    yajl_gen_bool(g, 1);
  }
  os_time_json(g, "between", &all);
  os_time_json(g, "between_deliveries", &c->inside);
  os_time_json(g, "commit", &c->commit);
  if (c->ngaps)
    worst_json(g, &c->gaps[0]);
  gaps_json(g, c);
  yajl_gen_map_close(g);
}

/* t's parts, in milliseconds, each named (those not 0). */
static void parts_text(FILE *f, const ips_os_time_t *t) {
  const struct { const char *name; int64_t ns; const ips_os_by_t *by; } p[] = {
      {"on CPU", t->on_cpu, NULL}, {"waiting for CPU", t->cpu_wait, NULL},
      {"disk", t->disk, t->disk_by}, {"page faults", t->fault, NULL},
      {"sleeping", t->sleep, t->sleep_by},
      {"not measured", t->not_measured, NULL}};
  char x[IPS_US_BUF];
  size_t i, j;
  const char *sep = " ";
  for (i = 0; i < sizeof p / sizeof p[0]; i++) {
    if (!p[i].ns)
      continue;
    fprintf(f, "%s%s %s", sep, p[i].name, blocks_ms(x, p[i].ns));
    sep = ", ";
    for (j = 0; p[i].by && j < IPS_OS_BY && p[i].by[j].sc[0]; j++)
      fprintf(f, "%s%s %s", j ? ", " : " (", p[i].by[j].sc,
              blocks_ms(x, p[i].by[j].ns));
    if (p[i].by && j)
      fputc(')', f);
  }
  fputc('\n', f);
}

void blocks_os_text(const blocks_os_t *o, FILE *f) {
  const blocks_os_block_t *c = &o->cur;
  const blocks_os_gap_t *w = &c->gaps[0];
  char sc[24], where[64], x[2][IPS_US_BUF];
  int64_t ns;
  const char *cause = ips_os_time_cause(&w->t, &ns, sc);
  if (c->overflow)
    fputs("    os: not joined (over 2^20 deliveries, or a wall clock the "
          "recording cannot place)\n", f);
  fprintf(f, "    os between deliveries %s:",
          blocks_ms(x[0], c->between_ns - c->commit_ns));
  parts_text(f, &c->inside);
  if (c->commit_ns) {
    fprintf(f, "    os commit %s:", blocks_ms(x[0], c->commit_ns));
    parts_text(f, &c->commit);
  }
  if (!c->ngaps || !cause)
    return;
  fprintf(f, "    os worst gap: %s", gap_where(w, where, sizeof where));
  if (w->line > 0 && w->crank >= 0)
    fprintf(f, " (crank %lld, %s)", w->crank, w->vat);
  fprintf(f, ", %s: %s%s%s %s\n", blocks_ms(x[0], w->ns), cause,
          *sc ? " in " : "", sc, blocks_ms(x[1], ns));
}

void blocks_os_summary_text(const blocks_os_t *o, FILE *f) {
  char x[IPS_US_BUF];
  fprintf(f, "\noperating system (--os): %" PRIu64 " blocks, between their "
             "deliveries and in their commits %s ms:",
          o->n, blocks_ms(x, o->sum_ns));
  parts_text(f, &o->sum);
}

void blocks_os_summary_json(const blocks_os_t *o, yajl_gen g) {
  out_str(g, "os");
  yajl_gen_map_open(g);
  out_int(g, "blocks", (long long)o->n);
  out_int(g, "between_ns", o->sum_ns);
  os_time_json(g, "between", &o->sum);
  yajl_gen_map_close(g);
}
