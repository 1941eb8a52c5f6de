/* report.h — state of `ipcstamp report` shared by its output formats. */
#ifndef IPCSTAMP_TOOLS_REPORT_H
#define IPCSTAMP_TOOLS_REPORT_H

#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "attr.h"

enum { IPS__FMT_TEXT, IPS__FMT_JSON, IPS__FMT_CSV };

typedef struct {
  char vat[IPS__VAT_MAX];
  char desc[IPS__DESC_MAX];
  long long crank, dnum;
  long line;
  int64_t pipe, worker, kernel, total;
} ips__slow_t;

typedef struct {
  FILE *out;
  int format;
  int summary_only;
  const char *vat;           /* --vat filter, or NULL */
  int64_t quake_ns;
  int clock_mode;
  size_t top, nslow;         /* slowest deliveries kept, sorted by total */
  ips__slow_t *slow;
  uint64_t n, n_cpu, n_gap, n_quake;
  int64_t pipe, worker, kernel, total, cpu, offcpu, cpu_worker, gap;
  yajl_gen g;
} ips__report_t;

void ips__report_delivery_text(ips__report_t *r, const ips__delivery_t *d);
void ips__report_delivery_json(ips__report_t *r, const ips__delivery_t *d);
void ips__report_delivery_csv(ips__report_t *r, const ips__delivery_t *d);
void ips__report_summary_text(ips__report_t *r, ips__attr_t *a,
                              const ips__drive_stats_t *st);
void ips__report_summary_json(ips__report_t *r, ips__attr_t *a,
                              const ips__drive_stats_t *st);

#endif
