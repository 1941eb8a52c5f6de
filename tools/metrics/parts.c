/* parts.c — an attributed delivery's default parts as the registry takes
 * them: one conversion for every feeder (`ipcstamp metrics`, the
 * always-on recorder's --slog). */
#include "config.h"

#include "ipcstamp-analyze.h"
#include "metrics/metrics.h"

void ips_metrics_default_seconds(const struct ips_delivery_s *d, double *s) {
  /* the order of ips_metrics_default_parts */
  s[0] = (double)d->pipe / 1e9;
  s[1] = (double)d->worker / 1e9;
  s[2] = (double)d->kernel / 1e9;
  s[3] = (double)d->total / 1e9;
}
