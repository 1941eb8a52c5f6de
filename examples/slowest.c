/* slowest.c — the analysis library in 30 lines: read a slogfile, print each
 * vat's pipe / worker / kernel shares and the slowest delivery.
 *   cc slowest.c $(pkg-config --cflags --libs ipcstamp-analyze) -o slowest */
#include <stdio.h>
#include <ipcstamp-analyze.h>

static void on_skip(void *arg, const ips_skip_t *s) {
  fprintf(stderr, "line %ld: %s %s\n", s->line, ips_skip_message(s->reason), s->detail);
}

int main(int argc, char **argv) {
  ips_analysis_options_t o;
  ips_analysis_t *a;
  ips_source_t *src;
  char err[256], b[3][IPS_US_BUF];
  size_t i, nslow;
  long n;
  if (argc != 2) return fprintf(stderr, "usage: slowest SLOG\n"), 2;
  if (ips_source_open(&src, argv[1], NULL, err, sizeof err) < 0)
    return fprintf(stderr, "%s\n", err), 4;
  ips_analysis_options_init(&o);
  o.on_skip = on_skip;
  if (ips_analysis_new(&a, &o) < 0) return 4;
  while ((n = ips_analysis_read(a, src, 0, err, sizeof err)) > 0) {}
  if (n < 0) fprintf(stderr, "%s\n", err);
  ips_analysis_finish(a);
  for (i = 0; i < ips_analysis_nvats(a); i++) {
    const ips_vat_stats_t *v = ips_analysis_vat(a, i);
    printf("%s: %llu deliveries, pipe %s worker %s kernel %s us\n", v->vat,
           (unsigned long long)v->t.n, ips_format_us(b[0], v->t.pipe),
           ips_format_us(b[1], v->t.worker), ips_format_us(b[2], v->t.kernel));
  }
  const ips_slow_t *s = ips_analysis_slowest(a, &nslow);
  if (nslow) printf("slowest: %s #%lld %s, %s us\n", s->vat, s->dnum, s->desc, ips_format_us(b[0], s->total));
  ips_analysis_free(a);
  ips_source_close(src);
  return n < 0 ? 4 : 0;
}
