/* html.h — what the HTML page keeps while reading (collect.c) and writes
 * at the end (page.c): private to tools/output/html/. */
#ifndef IPCSTAMP_TOOLS_OUTPUT_HTML_H
#define IPCSTAMP_TOOLS_OUTPUT_HTML_H

#include "output/output.h"

#define HTML_BINS IPS_LOGHIST_BINS
#define HTML_VATS 64
#define HTML_BUCKETS 2048
#define HTML_SLOW 50
/* Vats in the page's table of shares, at most: the busiest (by total
 * time); the others are counted (vats_left_out), so that the page's size
 * is bounded whatever the input (200,000 vats made a 33 MB page). */
#define HTML_VAT_ROWS 200
#define HTML_SEGS 512
#define HTML_MARKS 1000
#define HTML_SLOW_MARKS 64
#define HTML_METHODS 64
#define NAME_MAX_ 64
#define DESC_MAX_ 96

enum { Q_PIPE, Q_WORKER, Q_KERNEL, Q_TOTAL, Q_UPCALL, Q_N };

typedef struct {
  int64_t t, total;
  long line;
  int vi, mi; /* vat and method index (in html_out's tables); -1: other */
} point_t;

typedef struct {
  uint64_t n;
  point_t lo, hi;
} bucket_t;

typedef struct {
  bucket_t *b;
  size_t n, cap;
  uint64_t width; /* deliveries per full bucket */
} series_t;

typedef struct {
  ips_loghist_t q[Q_N];
} hists_t;

typedef struct {
  char name[NAME_MAX_];
  hists_t h;
  series_t s;
} hvat_t;

typedef struct {
  char vat[NAME_MAX_], desc[DESC_MAX_], method[DESC_MAX_];
  long long crank, dnum;
  long line;
  int ok, quake, replay;
  char clock;
  size_t n_up;
  int64_t t, total, pipe, worker, kernel, unmatched;
  size_t nseg, more; /* segments kept; segments left out (very many) */
  unsigned char kind[HTML_SEGS];
  int64_t len[HTML_SEGS];
  size_t nmarks, marks_more;
  ips_delivery_mark_t marks[HTML_SLOW_MARKS]; /* at: since the worker's d;
                                                  name NULL: in names */
  char names[HTML_SLOW_MARKS][NAME_MAX_];
} hslow_t;

typedef struct {
  int64_t t;
  long line;
  int64_t v;          /* a quake's size */
  char vat[NAME_MAX_];
} mark_t;

/* A skipped delivery, kept whole for the page (its detail cut to fit). */
typedef struct {
  int64_t t;
  ips_skip_t s;       /* s.detail is detail */
  char detail[256];   /* stderr has it whole */
} hskip_t;

struct html_out {
  FILE *out;
  const char *title;
  hists_t all;
  series_t alls;
  hvat_t *vats;
  size_t nvats;
  char methods[HTML_METHODS][DESC_MAX_];
  size_t nmethods;
  uint64_t vats_over; /* deliveries of vats past HTML_VATS */
  hslow_t *slow;         /* maxslow slots, as the keeper says */
  ips_slowest_t keeper;
  size_t maxslow;
  mark_t quakes[HTML_MARKS];
  hskip_t skips[HTML_MARKS];
  size_t nquakes, nskips;
  uint64_t all_quakes, all_skips;
  int64_t last_t;
  int has_t, oom;
  int by_method;       /* the shares per method at first */
};
typedef struct html_out html_t;


#endif
