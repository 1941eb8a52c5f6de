/* summary_json.c — the report's summary as a JSON line, and as CSV (a row
 * per vat or method). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output/output.h"

#define gs out_str
#define gi out_int
#define gkv out_kv
#define csv_text out_csv_text

static void slow_marks_json(report_out_t *r, const ips_analysis_t *a,
                            size_t k) {
  yajl_gen g = r->g;
  size_t i, n, more;
  const ips_delivery_mark_t *m = ips_analysis_slow_marks(a, k, &n, &more);
  if (!m)
    return;
  out_str(g, "marks");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++)
    out_mark(g, &m[i], m[i].at);
  yajl_gen_array_close(g);
  if (more)
    out_int(g, "marks_more", (long long)more);
}

static void totals_json(yajl_gen g, const ips_totals_t *t) {
#define TOTAL_FIELD(name, unit, value, meaning) gi(g, #name, (long long)(value));
  IPS_TOTALS_FIELDS(TOTAL_FIELD)
#undef TOTAL_FIELD
}

/* The counts: attributed, read, skipped, not attributed by reason, the
 * worker rings' joins and the mono offsets of each kernel run. */
static void counts_json(report_out_t *r, const ips_analysis_t *a) {
  yajl_gen g = r->g;
  const ips_stats_t *st = ips_analysis_stats(a);
  const ips_totals_t *t = &st->all;
  size_t nm, j;
  const ips_mono_run_t *mr;
  totals_json(g, t);
  gi(g, "mono", (long long)t->n_mono);
  gi(g, "wall", (long long)t->n_wall);
  gi(g, "lines", (long long)st->lines);
  gi(g, "lines_skipped", (long long)st->skipped_lines);
  gi(g, "deliveries_skipped", (long long)st->skipped_deliveries);
  gs(g, "not_attributed");
  yajl_gen_map_open(g);
  gi(g, "LOCAL", (long long)t->n_local);
  gi(g, "METER", (long long)st->n_meter_kill);
  gi(g, "ERROR", (long long)st->n_error_unstamped);
  gi(g, "RESTART", (long long)st->n_restart_cut);
  yajl_gen_map_close(g);
  gi(g, "offset_mismatches", (long long)st->n_offset_mismatch);
  if (r->worker_rings) {
    gs(g, "worker_rings");
    yajl_gen_map_open(g);
    gi(g, "joined", (long long)st->n_ring_joined);
    gi(g, "lapped", (long long)st->n_ring_lapped);
    gi(g, "missing", (long long)st->n_ring_missing);
    yajl_gen_map_close(g);
  }
  mr = ips_analysis_mono_runs(a, &nm);
  gs(g, "mono_runs");
  yajl_gen_array_open(g);
  for (j = 0; j < nm; j++) {
    yajl_gen_map_open(g);
    gi(g, "run", (long long)mr[j].run + 1);
    gi(g, "offset_ns", mr[j].offset_ns);
    gi(g, "offset_bound_ns", mr[j].bound_ns);
    gi(g, "deliveries", (long long)mr[j].deliveries);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  if (ips_analysis_mono_runs_over(a))
    gi(g, "mono_runs_more", (long long)ips_analysis_mono_runs_over(a));
}

/* The kernel's other records, the gaps, snapshots, timequakes, CPU and
 * waits. */
static void splits_json(yajl_gen g, const ips_stats_t *st) {
  const ips_totals_t *t = &st->all;
  gi(g, "other_records", (long long)st->other);
  if (st->cut) /* only a file that starts mid-delivery has them */
    gi(g, "records_cut", (long long)st->cut);
  gi(g, "restarts", (long long)st->restarts);
  gi(g, "kernel_between_ns", t->gap);
  if (st->n_snap_save || st->n_snap_load) {
    gi(g, "snapshot_save_ns", st->snap_save);
    gi(g, "snapshot_load_ns", st->snap_load);
  }
  gi(g, "timequakes", (long long)t->n_quake);
  if (t->n_cpu) {
    gi(g, "cpu_ns", t->cpu);
    gi(g, "offcpu_ns", t->offcpu);
  }
  out_wait_totals(g, st);
}

/* Each vat's sums and clock offset. */
static void vats_json(report_out_t *r, const ips_analysis_t *a) {
  yajl_gen g = r->g;
  size_t i, nv = ips_analysis_nvats(a);
  gs(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < nv; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, i);
    if (v->t.n == 0 || (r->vat && strcmp(r->vat, v->vat)))
      continue;
    yajl_gen_map_open(g);
    gkv(g, "vat", v->vat);
    totals_json(g, &v->t);
    if (v->has_offset) {
      gi(g, "offset_ns", v->offset_ns);
      gi(g, "offset_bound_ns", v->bound_ns);
    }
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

/* The slowest deliveries, each with its marks and spans. */
static void slowest_json(report_out_t *r, const ips_analysis_t *a) {
  yajl_gen g = r->g;
  size_t i, nslow;
  const ips_slow_t *slow;
  gs(g, "slowest");
  yajl_gen_array_open(g);
  slow = ips_analysis_slowest(a, &nslow);
  for (i = 0; i < nslow; i++) {
    const ips_slow_t *s = &slow[i];
    yajl_gen_map_open(g);
    if (s->crank < 0) {
      gs(g, "replay");
      yajl_gen_bool(g, 1);
    } else {
      gi(g, "crank", s->crank);
    }
    gkv(g, "vat", s->vat);
    gi(g, "deliveryNum", s->dnum);
    gkv(g, "description", s->desc);
    gi(g, "total_ns", s->total);
    gi(g, "line", s->line);
    slow_marks_json(r, a, i);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

void report_summary_json(report_out_t *r, const ips_analysis_t *a) {
  yajl_gen g = r->g;
  const ips_stats_t *st = ips_analysis_stats(a);
  int k;
  yajl_gen_map_open(g);
  gs(g, "summary");
  yajl_gen_map_open(g);
  counts_json(r, a);
  splits_json(g, st);
  vats_json(r, a);
  if (r->groups.by == IPS_GROUP_METHOD)
    out_methods(g, &r->groups);
  if (ips_analysis_nmarks(a))
    out_mark_names(g, a);
  slowest_json(r, a);
  gs(g, "skipped");
  yajl_gen_map_open(g);
  for (k = 0; k < IPS_SKIP_N; k++)
    if (st->skipped[k])
      gi(g, ips_skip_name(k), (long long)st->skipped[k]);
  yajl_gen_map_close(g);
  if (r->os)
    os_summary_json(g, a);
  yajl_gen_map_close(g);
  yajl_gen_map_close(g);
  out_flush(g, r->out, 1);
}

void report_summary_csv(report_out_t *r, const ips_analysis_t *a) {
  const ips_totals_t *t = &ips_analysis_stats(a)->all;
  size_t i, n;
  const ips_group_t *g = ips_groups_sorted(&r->groups, &n);
  int64_t max = 0;
  fprintf(r->out, "%s,deliveries,pipe_ns,worker_ns,kernel_ns,unmatched_ns,"
                  "total_ns,max_ns\n",
          r->groups.by == IPS_GROUP_METHOD ? "method" : "vat");
  for (i = 0; i < n; i++) {
    csv_text(r->out, g[i].name);
    fprintf(r->out, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                    ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
            g[i].n, g[i].pipe, g[i].worker, g[i].kernel, g[i].unmatched,
            g[i].total, g[i].max);
    if (g[i].max > max)
      max = g[i].max;
  }
  /* "all" is not quoted: no vat or method can be mistaken for it. */
  fprintf(r->out, "all,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                  ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
          t->n, t->pipe, t->worker, t->kernel, t->unmatched, t->total, max);
}
