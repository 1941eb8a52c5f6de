/* json.c — the little JSON vocabulary every output format speaks, and its
 * text cut to a width. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"

#include "output.h"

/* Every string an output writes is valid UTF-8, whatever it came from (a
 * file name, a vatID, text cut to a width): each byte that does not start
 * a whole, strict UTF-8 character is written as U+FFFD.  yajl writes a
 * string in one call, so a string that needs it is mended into a copy. */
void out_str(yajl_gen g, const char *s) {
  size_t n = strlen(s), i = 0, o = 0, k;
  char *m;
  if ((k = ips_utf8_prefix(s, n)) == n) {
    yajl_gen_string(g, (const unsigned char *)s, n);
    return;
  }
  m = malloc(3 * n);
  if (!m) { /* the text is lost, not the output's validity */
    yajl_gen_string(g, (const unsigned char *)s, k);
    return;
  }
  while (i < n) {
    memcpy(m + o, s + i, k);
    o += k;
    i += k;
    if (i == n)
      break;
    memcpy(m + o, "\xef\xbf\xbd", 3);
    o += 3;
    i++;
    k = ips_utf8_prefix(s + i, n - i);
  }
  yajl_gen_string(g, (const unsigned char *)m, o);
  free(m);
}

void out_int(yajl_gen g, const char *key, long long v) {
  out_str(g, key);
  yajl_gen_integer(g, v);
}

void out_kv(yajl_gen g, const char *key, const char *v) {
  out_str(g, key);
  out_str(g, v);
}

void out_us(yajl_gen g, const char *key, int64_t ns) {
  char b[IPS_US_BUF];
  out_str(g, key);
  ips_format_us(b, ns);
  yajl_gen_number(g, b, strlen(b));
}

void out_flush(yajl_gen g, FILE *f, int nl) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(g, &buf, &len);
  fwrite(buf, 1, len, f);
  yajl_gen_clear(g);
  if (nl) { /* a JSON line is a whole value: the next one starts afresh */
    fputc('\n', f);
    yajl_gen_reset(g, NULL);
  }
}

void out_flush_script(yajl_gen g, FILE *f) {
  const unsigned char *buf;
  size_t len, i, from = 0;
  yajl_gen_get_buf(g, &buf, &len);
  for (i = 0; i < len; i++) {
    if (buf[i] == '<') {
      fwrite(buf + from, 1, i - from, f);
      fputs("\\u003c", f);
      from = i + 1;
    }
  }
  fwrite(buf + from, 1, len - from, f);
  yajl_gen_clear(g);
}

int out_format(const char *arg) {
  if (!strcmp(arg, "text")) return REPORT_TEXT;
  if (!strcmp(arg, "json")) return REPORT_JSON;
  if (!strcmp(arg, "csv")) return REPORT_CSV;
  if (!strcmp(arg, "html")) return REPORT_HTML;
  return -1;
}

yajl_gen out_gen(void) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (g)
    yajl_gen_config(g, yajl_gen_validate_utf8, 0);
  return g;
}

void out_wait_totals(yajl_gen g, const ips_stats_t *st) {
  const ips_wait_totals_t *w = &st->wait;
  if (w->n_wait) { /* over those deliveries: pipe = transit + wait + unsplit */
    out_int(g, "wait_deliveries", (long long)w->n_wait);
    out_int(g, "wait_pipe_ns", w->wait_pipe);
    out_int(g, "pipe_transit_ns", w->pipe_transit);
    out_int(g, "pipe_wait_ns", w->pipe_wait);
    out_int(g, "pipe_wait_worker_ns", w->wait_worker);
    out_int(g, "pipe_unsplit_ns", w->pipe_unsplit);
  }
  if (w->n_runnable) {
    out_int(g, "runnable_deliveries", (long long)w->n_runnable);
    out_int(g, "runnable_ns", w->runnable);
  }
  if (w->n_blocked) {
    out_int(g, "blocked_deliveries", (long long)w->n_blocked);
    out_int(g, "split_offcpu_ns", w->split_offcpu);
    out_int(g, "split_runnable_ns", w->split_runnable);
    out_int(g, "blocked_ns", w->blocked);
  }
  out_kv(g, "kernel_stamps", st->ipcstamp_parent ? "pipe" : "records");
}

void out_mark(yajl_gen g, const ips_delivery_mark_t *m, int64_t at) {
  yajl_gen_map_open(g);
  out_kv(g, "kind", m->kind == 's' ? "span" : "mark");
  out_kv(g, "name", m->name);
  out_int(g, "worker", (long long)m->wseg);
  out_int(g, "depth", m->depth);
  out_int(g, "at_ns", at);
  if (m->kind == 's')
    out_int(g, "dur_ns", m->dur);
  yajl_gen_map_close(g);
}

void out_mark_names(yajl_gen g, const ips_analysis_t *a) {
  size_t i, n = ips_analysis_nmarks(a);
  out_str(g, "marks");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    const ips_mark_stats_t *m = ips_analysis_mark(a, i);
    yajl_gen_map_open(g);
    out_kv(g, "name", m->name);
    out_int(g, "marks", (long long)m->n_marks);
    out_int(g, "spans", (long long)m->n_spans);
    out_int(g, "span_ns", m->span_ns);
    out_int(g, "span_max_ns", m->span_max_ns);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  out_int(g, "marks_over", (long long)ips_analysis_marks_over(a));
}

void out_methods(yajl_gen g, ips_groups_t *gr) {
  size_t i, n = 0;
  const ips_group_t *m = gr ? ips_groups_sorted(gr, &n) : NULL;
  out_str(g, "methods");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    yajl_gen_map_open(g);
    out_kv(g, "method", m[i].name);
    out_int(g, "deliveries", (long long)m[i].n);
    out_int(g, "pipe_ns", m[i].pipe);
    out_int(g, "worker_ns", m[i].worker);
    out_int(g, "kernel_ns", m[i].kernel);
    out_int(g, "unmatched_ns", m[i].unmatched);
    out_int(g, "total_ns", m[i].total);
    out_int(g, "max_ns", m[i].max);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  out_int(g, "methods_over", gr ? (long long)gr->over : 0);
}

void out_copy_cut(char *dst, size_t n, const char *s) {
  ips_copy_cut(dst, n, s);
}

/* A spreadsheet takes a cell that begins with = + - @ (or a tab or a
 * carriage return, which it skips first) as a formula: a vat or method
 * named "=HYPERLINK(...)" would run as one.  Such a text cell gets a
 * leading ' (a spreadsheet's own "this is text"); numbers are never
 * written here, so -1.5 stays a number. */
static int csv_formula(const char *s) { return *s && strchr("=+-@\t\r", *s); }

/* s inside a quoted cell: its quotes doubled. */
static void csv_body(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
}

void out_csv_text(FILE *f, const char *s) {
  fputc('"', f);
  if (csv_formula(s))
    fputc('\'', f);
  csv_body(f, s);
  fputc('"', f);
}

void out_csv_column(FILE *f, const char *name, const char *suffix) {
  fputc('"', f);
  if (csv_formula(name))
    fputc('\'', f);
  csv_body(f, name);
  fputc('_', f);
  csv_body(f, suffix);
  fputc('"', f);
}

void out_csv_maybe(FILE *f, const char *s) {
  if (strpbrk(s, ",\"") || *s == ' ' || csv_formula(s))
    out_csv_text(f, s);
  else
    fputs(s, f);
}
