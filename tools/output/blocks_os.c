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

/* g into list (*n of at most max, longest first) if it is one of the
 * longest (ties: the first kept). */
static void gap_insert(blocks_os_gap_t *list, size_t *n, size_t max,
                       const blocks_os_gap_t *g) {
  size_t i = *n < max ? *n : max - 1;
  if (*n == max && g->ns <= list[i].ns)
    return;
  for (; i > 0 && list[i - 1].ns < g->ns; i--)
    list[i] = list[i - 1];
  if (*n < max)
    ++*n;
  list[i] = *g;
}

/* A stretch into the block's longest. */
static void keep_gap(blocks_os_block_t *c, int64_t len, long line,
                     const blocks_os_span_t *sp, const ips_os_time_t *t) {
  blocks_os_gap_t g;
  g.ns = len;
  g.line = line;
  g.crank = sp ? sp->crank : -1;
  snprintf(g.vat, sizeof g.vat, "%s", sp ? sp->vat : "");
  g.t = *t;
  g.height = 0; /* the block's, once it is known */
  gap_insert(c->gaps, &c->ngaps, BLOCKS_OS_GAPS, &g);
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
  for (i = 0; i < o->cur.ngaps; i++) { /* into the run's longest */
    o->cur.gaps[i].height = b->bootstrap ? -1 : b->height;
    gap_insert(o->run_gaps, &o->nrun_gaps, BLOCKS_OS_RUN_GAPS,
               &o->cur.gaps[i]);
  }
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

ips_os_time_t blocks_os_between(const blocks_os_block_t *c) {
  ips_os_time_t all = c->inside;
  ips_os_time_add(&all, &c->commit);
  return all;
}

/* The worst gap (the longest stretch) and its largest part. */
static void worst_json(yajl_gen g, const char *key, const blocks_os_gap_t *w) {
  char sc[24], where[64];
  int64_t ns;
  const char *cause = ips_os_time_cause(&w->t, &ns, sc);
  out_str(g, key);
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
static void gaps_json(yajl_gen g, const char *key, const blocks_os_block_t *c) {
  char where[64];
  size_t i;
  out_str(g, key);
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

/* The JSON writers of BLOCKS_OS_FIELDS' types. */
#define OS_JSON_INT(g, key, v) out_int(g, key, (long long)(v))
#define OS_JSON_BOOL(g, key, v) (out_str(g, key), yajl_gen_bool(g, v))
#define OS_JSON_OSTIME(g, key, v)                                             \
  do {                                                                        \
    ips_os_time_t t_ = (v);                                                   \
    os_time_json(g, key, &t_);                                                \
  } while (0)
#define OS_JSON_GAP(g, key, v) worst_json(g, key, v)
#define OS_JSON_GAPS(g, key, v) gaps_json(g, key, v)

void blocks_os_json(const blocks_os_t *o, yajl_gen g) {
  const blocks_os_block_t *c = &o->cur;
  out_str(g, "os");
  yajl_gen_map_open(g);
#define OS_FIELD(name, type, unit, when, value, meaning) \
  if (when)                                             \
    OS_JSON_##type(g, #name, value);
  BLOCKS_OS_FIELDS(OS_FIELD)
#undef OS_FIELD
  yajl_gen_map_close(g);
}

/* A split's parts as text and the page show them, each with its list
 * by system call or by CPU holder: the one table of both. */
typedef struct {
  const char *name;
  int64_t ns;
  const ips_os_by_t *by;
} part_t;
enum { NPARTS = 8 };
static void parts_of(const ips_os_time_t *t, part_t p[NPARTS]) {
  const part_t all[NPARTS] = {
      {"on CPU", t->on_cpu, NULL}, {"stolen", t->steal, NULL},
      {"uncharged", t->uncharged, NULL},
      {"waiting for CPU", t->cpu_wait, t->cpu_wait_by},
      {"disk", t->disk, t->disk_by}, {"page faults", t->fault, NULL},
      {"sleeping", t->sleep, t->sleep_by},
      {"not measured", t->not_measured, NULL}};
  memcpy(p, all, sizeof all);
}

/* t's parts, in milliseconds, each named (those not 0). */
static void parts_text(FILE *f, const ips_os_time_t *t) {
  part_t p[NPARTS];
  char x[IPS_US_BUF];
  size_t i;
  const char *sep = " ";
  parts_of(t, p);
  for (i = 0; i < NPARTS; i++) {
    if (!p[i].ns)
      continue;
    fprintf(f, "%s%s %s", sep, p[i].name, blocks_ms(x, p[i].ns));
    sep = ", ";
    if (p[i].by)
      os_by_text(f, " (", p[i].by, blocks_ms);
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
  if (!o->n) { /* not an error: blocks itself exits 0 on such a file */
    fputs("\noperating system (--os): no blocks in the input, nothing "
          "between deliveries of a block to split (each delivery's own "
          "split and the gap before it: report --os)\n", f);
    return;
  }
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

/* ---- --format csv and html ------------------------------------------ */

/* The columns of a split (OS_TIME_PARTS, as os_time_json's keys), each
 * after a prefix. */
static void time_header_csv(FILE *f, const char *prefix) {
#define PART_COL(key, member, type) fprintf(f, ",%s" #key, prefix);
  OS_TIME_PARTS(PART_COL)
#undef PART_COL
}

/* t's cells, in the columns' order. */
static void time_csv(FILE *f, const ips_os_time_t *t) {
#define PART_CSV_INT(v) fprintf(f, ",%lld", (long long)(v))
#define PART_CSV_BY(v) (fputc(',', f), os_by_csv(f, v))
#define PART_CSV(key, member, type) PART_CSV_##type(t->member);
  OS_TIME_PARTS(PART_CSV)
#undef PART_CSV
#undef PART_CSV_BY
#undef PART_CSV_INT
}

/* The worst gap's cells (empty when the block has none). */
static void worst_csv(FILE *f, const blocks_os_block_t *c) {
  const blocks_os_gap_t *w = &c->gaps[0];
  char sc[24], where[64];
  int64_t ns;
  const char *cause;
  if (!c->ngaps) {
    fputs(",,,,,,,,", f);
    return;
  }
  cause = ips_os_time_cause(&w->t, &ns, sc);
  fprintf(f, ",%s,", gap_where(w, where, sizeof where));
  if (w->line > 0)
    fprintf(f, "%ld", w->line);
  fputc(',', f);
  if (w->line > 0 && w->crank >= 0)
    fprintf(f, "%lld", w->crank);
  fputc(',', f);
  if (w->vat[0])
    out_csv_text(f, w->vat);
  fprintf(f, ",%lld,%s,", (long long)w->ns, cause ? cause : "");
  if (*sc) /* from the recording: quoted */
    out_csv_text(f, sc);
  fprintf(f, ",%lld", (long long)ns);
}

void blocks_os_csv(const blocks_os_t *o, FILE *f, int header) {
  const blocks_os_block_t *c = &o->cur;
  if (header) {
    fputs(",os_kernel_pid,os_not_joined,os_between_ns,os_commit_ns", f);
    time_header_csv(f, "os_between_deliveries_");
    time_header_csv(f, "os_commit_");
    fputs(",os_worst_where,os_worst_line,os_worst_crank,os_worst_vat,"
          "os_worst_ns,os_worst_cause,os_worst_syscall,os_worst_cause_ns", f);
    return;
  }
  fprintf(f, ",%lld,%d,%lld,%lld", c->kernel_pid, c->overflow ? 1 : 0,
          (long long)c->between_ns, (long long)c->commit_ns);
  time_csv(f, &c->inside);
  time_csv(f, &c->commit);
  worst_csv(f, c);
}

/* One row of the page's table of parts: name, ms, share of all. */
static void part_row(FILE *f, const char *name, const char *sc, int64_t ns,
                     int64_t all) {
  char x[IPS_US_BUF];
  fputs("<tr><td class=\"l\">", f);
  if (sc) {
    fputs("&nbsp;&nbsp;in ", f);
    blocks_html_esc(f, sc);
  } else {
    fputs(name, f);
  }
  fprintf(f, "</td><td>%s</td><td>%.1f%%</td></tr>\n", blocks_ms(x, ns),
          all > 0 ? 100.0 * (double)ns / (double)all : 0.0);
}

/* The parts of t, each system call under its part. */
static void parts_html(FILE *f, const ips_os_time_t *t, int64_t all) {
  part_t p[NPARTS];
  size_t i, j;
  parts_of(t, p);
  fputs("<table><tr><th class=\"l\">part</th><th>ms</th><th>share</th>"
        "</tr>\n", f);
  for (i = 0; i < NPARTS; i++) {
    part_row(f, p[i].name, NULL, p[i].ns, all);
    for (j = 0; p[i].by && j < IPS_OS_BY && p[i].by[j].sc[0]; j++)
      part_row(f, NULL, p[i].by[j].sc, p[i].by[j].ns, all);
  }
  fputs("</table>\n", f);
}

/* The run's longest gaps, each split. */
static void gaps_html(FILE *f, const blocks_os_t *o) {
  char x[IPS_US_BUF], sc[24], where[64];
  size_t i;
  fputs("<h2>Longest gaps</h2>\n<table><tr><th>height</th><th class=\"l\">"
        "where</th><th>crank</th><th class=\"l\">vat</th><th>ms</th>"
        "<th>on CPU</th><th>waiting for CPU</th><th>disk</th>"
        "<th>page faults</th><th>sleeping</th><th>not measured</th>"
        "<th class=\"l\">largest part</th></tr>\n", f);
  for (i = 0; i < o->nrun_gaps; i++) {
    const blocks_os_gap_t *w = &o->run_gaps[i];
    const int64_t part[] = {w->t.on_cpu, w->t.cpu_wait, w->t.disk,
                            w->t.fault, w->t.sleep, w->t.not_measured};
    int64_t ns;
    const char *cause = ips_os_time_cause(&w->t, &ns, sc);
    size_t k;
    if (w->height < 0)
      fputs("<tr><td>bootstrap</td><td class=\"l\">", f);
    else
      fprintf(f, "<tr><td>%lld</td><td class=\"l\">", w->height);
    fprintf(f, "%s</td><td>", gap_where(w, where, sizeof where));
    if (w->line > 0 && w->crank >= 0)
      fprintf(f, "%lld", w->crank);
    fputs("</td><td class=\"l\">", f);
    blocks_html_esc(f, w->vat);
    fprintf(f, "</td><td>%s</td>", blocks_ms(x, w->ns));
    for (k = 0; k < sizeof part / sizeof *part; k++)
      fprintf(f, "<td>%s</td>", blocks_ms(x, part[k]));
    fprintf(f, "<td class=\"l\">%s", cause ? cause : "");
    if (*sc) {
      fputs(" in ", f);
      blocks_html_esc(f, sc);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

void blocks_os_html(const blocks_os_t *o, FILE *f) {
  char x[IPS_US_BUF];
  fprintf(f, "<h2>What the kernel's thread was doing (--os)</h2>\n<p>%"
             PRIu64 " blocks: between their deliveries and in their commits"
             " %s ms, split by what ipcstamp record saw the kernel's thread"
             " do (docs/os.md).</p>\n", o->n, blocks_ms(x, o->sum_ns));
  parts_html(f, &o->sum, o->sum_ns);
  gaps_html(f, o);
}
