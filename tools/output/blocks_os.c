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
 * longest is named with its largest part. */
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
}

/* A block's instant t on its clock, on the recording's. */
static int block_time(const blocks_os_t *o, const ips_block_t *b, int64_t t,
                      int64_t *rec) {
  if (b->clock == 'w')
    return ips_os_from_wall(o->os, t, rec);
  *rec = t + o->k.offset;
  return 1;
}

/* Stretch [from, to] (the recording's clock) into the block's split; the
 * longest is the worst, named by what follows it (line 0: the block's
 * end, -1: its commit). */
static void stretch(blocks_os_t *o, int64_t from, int64_t to, long line) {
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
  if (len > o->cur.worst_ns) {
    o->cur.worst_ns = len;
    o->cur.worst_line = line;
    o->cur.worst = t;
  }
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
      stretch(o, prev, s, o->spans[i].line);
      prev = e > prev ? e : prev;
    }
    stretch(o, prev, finish, 0);
  }
  if (b->has_commit && block_time(o, b, b->commit_start_t, &c0) &&
      block_time(o, b, b->commit_finish_t, &c1))
    stretch(o, c0, c1, -1);
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

/* The worst stretch's place, in buf. */
static const char *worst_where(const blocks_os_block_t *c, char *buf,
                               size_t n) {
  if (c->worst_line < 0)
    return "commit";
  if (c->worst_line == 0)
    return "after the last delivery";
  snprintf(buf, n, "before the delivery at line %ld", c->worst_line);
  return buf;
}

ips_os_time_t blocks_os_between(const blocks_os_block_t *c) {
  ips_os_time_t all = c->inside;
  ips_os_time_add(&all, &c->commit);
  return all;
}

/* The worst gap's object: where, and its largest part. */
static void worst_json(yajl_gen g, const char *key,
                       const blocks_os_block_t *c) {
  char sc[24], where[64];
  int64_t ns;
  const char *cause = ips_os_time_cause(&c->worst, &ns, sc);
  out_str(g, key);
  yajl_gen_map_open(g);
  out_kv(g, "where", worst_where(c, where, sizeof where));
  if (c->worst_line > 0)
    out_int(g, "before_line", c->worst_line);
  out_int(g, "ns", c->worst_ns);
  out_kv(g, "cause", cause ? cause : "");
  out_kv(g, "syscall", sc);
  out_int(g, "cause_ns", ns);
  yajl_gen_map_close(g);
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
  char sc[24], where[64], x[2][IPS_US_BUF];
  int64_t ns;
  const char *cause = ips_os_time_cause(&c->worst, &ns, sc);
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
  if (c->worst_ns && cause)
    fprintf(f, "    os worst gap: %s, %s: %s%s%s %s\n",
            worst_where(c, where, sizeof where), blocks_ms(x[0], c->worst_ns),
            cause, *sc ? " in " : "", sc, blocks_ms(x[1], ns));
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
