/* json.c — the little JSON vocabulary every output format speaks. */
#include "config.h"

#include <string.h>

#include "output.h"

void out_str(yajl_gen g, const char *s) {
  yajl_gen_string(g, (const unsigned char *)s, strlen(s));
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
