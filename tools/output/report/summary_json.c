/* summary_json.c — the report's summary as a JSON line, and as CSV (a row
 * per vat or method). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output/output.h"

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
#define TOTAL_FIELD(name, unit, value, meaning)                                \
  out_int(g, #name, (long long)(value));
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
  out_int(g, "mono", (long long)t->n_mono);
  out_int(g, "wall", (long long)t->n_wall);
  out_int(g, "lines", (long long)st->lines);
  out_int(g, "lines_skipped", (long long)st->skipped_lines);
  out_int(g, "deliveries_skipped", (long long)st->skipped_deliveries);
  out_str(g, "not_attributed");
  yajl_gen_map_open(g);
  out_int(g, "LOCAL", (long long)t->n_local);
  out_int(g, "METER", (long long)st->n_meter_kill);
  out_int(g, "ERROR", (long long)st->n_error_unstamped);
  out_int(g, "RESTART", (long long)st->n_restart_cut);
  yajl_gen_map_close(g);
  out_int(g, "offset_mismatches", (long long)st->n_offset_mismatch);
  if (r->worker_rings) {
    out_str(g, "worker_rings");
    yajl_gen_map_open(g);
    out_int(g, "joined", (long long)st->n_ring_joined);
    out_int(g, "lapped", (long long)st->n_ring_lapped);
    out_int(g, "missing", (long long)st->n_ring_missing);
    yajl_gen_map_close(g);
  }
  mr = ips_analysis_mono_runs(a, &nm);
  out_str(g, "mono_runs");
  yajl_gen_array_open(g);
  for (j = 0; j < nm; j++) {
    yajl_gen_map_open(g);
    out_int(g, "run", (long long)mr[j].run + 1);
    out_int(g, "offset_ns", mr[j].offset_ns);
    out_int(g, "offset_bound_ns", mr[j].bound_ns);
    out_int(g, "deliveries", (long long)mr[j].deliveries);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  if (ips_analysis_mono_runs_over(a))
    out_int(g, "mono_runs_more", (long long)ips_analysis_mono_runs_over(a));
}

/* The kernel's other records, the gaps, snapshots, timequakes, CPU and
 * waits. */
static void splits_json(yajl_gen g, const ips_stats_t *st) {
  const ips_totals_t *t = &st->all;
  out_int(g, "other_records", (long long)st->other);
  if (st->cut) /* only a file that starts mid-delivery has them */
    out_int(g, "records_cut", (long long)st->cut);
  out_int(g, "restarts", (long long)st->restarts);
  out_int(g, "kernel_between_ns", t->gap);
  if (st->n_snap_save || st->n_snap_load) {
    out_int(g, "snapshot_save_ns", st->snap_save);
    out_int(g, "snapshot_load_ns", st->snap_load);
  }
  out_int(g, "timequakes", (long long)t->n_quake);
  if (t->n_cpu) {
    out_int(g, "cpu_ns", t->cpu);
    out_int(g, "offcpu_ns", t->offcpu);
  }
  out_wait_totals(g, st);
}

/* Each vat's sums and clock offset. */
static void vats_json(report_out_t *r, const ips_analysis_t *a) {
  yajl_gen g = r->g;
  size_t i, nv = ips_analysis_nvats(a);
  out_str(g, "vats");
  yajl_gen_array_open(g);
  for (i = 0; i < nv; i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, i);
    if (v->t.n == 0 || (r->vat && strcmp(r->vat, v->vat)))
      continue;
    yajl_gen_map_open(g);
    out_kv(g, "vat", v->vat);
    totals_json(g, &v->t);
    if (v->has_offset) {
      out_int(g, "offset_ns", v->offset_ns);
      out_int(g, "offset_bound_ns", v->bound_ns);
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
  out_str(g, "slowest");
  yajl_gen_array_open(g);
  slow = ips_analysis_slowest(a, &nslow);
  for (i = 0; i < nslow; i++) {
    const ips_slow_t *s = &slow[i];
    yajl_gen_map_open(g);
    if (s->crank < 0) {
      out_str(g, "replay");
      yajl_gen_bool(g, 1);
    } else {
      out_int(g, "crank", s->crank);
    }
    out_kv(g, "vat", s->vat);
    out_int(g, "deliveryNum", s->dnum);
    out_kv(g, "description", s->desc);
    out_int(g, "total_ns", s->total);
    out_int(g, "line", s->line);
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
  out_str(g, "summary");
  yajl_gen_map_open(g);
  counts_json(r, a);
  splits_json(g, st);
  vats_json(r, a);
  if (r->groups.by == IPS_GROUP_METHOD)
    out_methods(g, &r->groups);
  if (ips_analysis_nmarks(a))
    out_mark_names(g, a);
  slowest_json(r, a);
  out_str(g, "skipped");
  yajl_gen_map_open(g);
  for (k = 0; k < IPS_SKIP_N; k++)
    if (st->skipped[k])
      out_int(g, ips_skip_name(k), (long long)st->skipped[k]);
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
    out_csv_text(r->out, g[i].name);
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
