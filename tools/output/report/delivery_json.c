/* delivery_json.c — a delivery of the report as a JSON line and as a CSV
 * row, both written from the field list (ipcstamp-analyze-fields.h). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "output/output.h"

/* The JSON writers of the field list's types (ipcstamp-analyze-fields.h):
 * key and value; a list's writers take the delivery, whose list it is. */
#define JSON_INT(g, key, d, v) out_int(g, key, v)
#define JSON_BOOL(g, key, d, v) (out_str(g, key), yajl_gen_bool(g, v))
#define JSON_STR(g, key, d, v) out_kv(g, key, v)
#define JSON_SEGMENTS(g, key, d, n) json_segments(g, key, d, (size_t)(n))
#define JSON_SEGWAIT(g, key, d, n) json_segwait(g, key, d, (size_t)(n))
#define JSON_MARKS(g, key, d, n) json_marks(g, key, d, (size_t)(n))
#define JSON_BY(g, key, d, by) os_by_json(g, key, by)

static void json_segments(yajl_gen g, const char *key, const ips_delivery_t *d,
                          size_t ns) {
  size_t j;
  out_str(g, key);
  yajl_gen_array_open(g);
  for (j = 0; j < ns; j++) {
    const char *name;
    int64_t v = ips_delivery_segment(d, j, &name);
    yajl_gen_array_open(g);
    out_str(g, name);
    yajl_gen_integer(g, v);
    yajl_gen_array_close(g);
  }
  yajl_gen_array_close(g);
}

/* One per segment: its wait for a CPU, or null. */
static void json_segwait(yajl_gen g, const char *key, const ips_delivery_t *d,
                         size_t ns) {
  size_t j;
  out_str(g, key);
  yajl_gen_array_open(g);
  for (j = 0; j < ns; j++) {
    int64_t w = ips_delivery_segment_wait(d, j);
    if (w < 0)
      yajl_gen_null(g);
    else
      yajl_gen_integer(g, w);
  }
  yajl_gen_array_close(g);
}

static void json_marks(yajl_gen g, const char *key, const ips_delivery_t *d,
                       size_t n) {
  size_t j;
  out_str(g, key);
  yajl_gen_array_open(g);
  for (j = 0; j < n; j++) /* at: since the worker's d */
    out_mark(g, &d->marks[j], d->marks[j].at - d->W[0]);
  yajl_gen_array_close(g);
}

void report_delivery_json(report_out_t *r, const ips_delivery_t *d) {
  yajl_gen g = r->g;
  yajl_gen_map_open(g);
#define JSON_FIELD(name, type, unit, in, when, value, text, otel, meaning) \
  if (((in) & IPS_IN_JSON) && (when))                                        \
    JSON_##type(g, #name, d, value);
  IPS_DELIVERY_FIELDS(JSON_FIELD)
  IPS_OS_FIELDS(JSON_FIELD)
#undef JSON_FIELD
  yajl_gen_map_close(g);
  out_flush(r->g, r->out, 1);
}

/* The CSV cells of the field list's types: empty where the delivery has
 * no such field (nothing is invented), but a flag is 1 or 0. */
#define CSV_INT(f, has, v) \
  (has ? (void)fprintf(f, "%lld", (long long)(v)) : (void)0)
#define CSV_BOOL(f, has, v) fputc((has) && (v) ? '1' : '0', f)
#define CSV_STR(f, has, v) (has ? out_csv_text(f, v) : (void)0)
#define CSV_SEGMENTS CSV_INT
#define CSV_SEGWAIT CSV_INT
#define CSV_MARKS CSV_INT
#define CSV_BY(f, has, by) (has ? os_by_csv(f, by) : (void)0)

/* The header: the list's fields for CSV, in its order. */
void report_csv_header(report_out_t *r) {
  const char *sep = "";
#define CSV_NAME(name, type, unit, in, when, value, text, otel, meaning) \
  if ((in) & IPS_IN_CSV) {                                                 \
    fputs(sep, r->out);                                                    \
    fputs(#name, r->out);                                                  \
    sep = ",";                                                             \
  }
  IPS_DELIVERY_FIELDS(CSV_NAME)
  if (r->os) { /* --os: the OS's columns too */
    IPS_OS_FIELDS(CSV_NAME)
  }
#undef CSV_NAME
  fputc('\n', r->out);
}

void report_delivery_csv(report_out_t *r, const ips_delivery_t *d) {
  FILE *f = r->out;
  int first = 1;
#define CSV_CELL(name, type, unit, in, when, value, text, otel, meaning) \
  if ((in) & IPS_IN_CSV) {                                                 \
    if (!first)                                                            \
      fputc(',', f);                                                       \
    first = 0;                                                             \
    CSV_##type(f, (when), value);                                          \
  }
  IPS_DELIVERY_FIELDS(CSV_CELL)
  if (r->os) { /* --os: the OS's columns too */
    IPS_OS_FIELDS(CSV_CELL)
  }
#undef CSV_CELL
  fputc('\n', f);
}
