/* registry.h — the registry's figures, shared by registry.c (the feeder's
 * side), expose.c (the text) and http.c (the server): private to
 * tools/metrics/. */
#ifndef IPCSTAMP_TOOLS_METRICS_REGISTRY_H
#define IPCSTAMP_TOOLS_METRICS_REGISTRY_H

#include <pthread.h>

#include "metrics/metrics.h"

#define IPS_METRICS_NBOUNDS 25 /* finite bucket bounds; +Inf after them */
extern const double ips_metrics_bounds[IPS_METRICS_NBOUNDS];

typedef struct {
  uint64_t bucket[IPS_METRICS_NBOUNDS + 1]; /* each bucket's own count */
  uint64_t count;
  double sum; /* seconds */
} metrics_hist_t;

typedef struct {
  char name[IPS_METRICS_NAME_MAX];
  uint64_t deliveries;
} metrics_vat_t;

typedef struct {
  char name[IPS_METRICS_NAME_MAX]; /* "" for a counter without a label */
  uint64_t n;                      /* a counter's */
  double v;                        /* a gauge's */
} metrics_value_t;

typedef struct {
  size_t nvalues;
  metrics_value_t value[IPS_METRICS_MAX_VALUES];
} metrics_counter_t;

typedef struct {
  const char *name, *help, *label;
  int gauge; /* a gauge (ips_metrics_gauge): set, not added to */
} metrics_decl_t;

/* What a scrape copies: plain data, no pointer but vats. */
typedef struct {
  size_t nparts, max_vats, nvats;
  int other;             /* vats[max_vats] ("_other") is in use */
  uint64_t over_cap;     /* deliveries counted under "_other" */
  metrics_vat_t *vats;   /* max_vats + 1 */
  metrics_hist_t *hists; /* (max_vats + 1) * nparts: vat i's part p at
                            i * nparts + p */
  size_t ncounters;
  metrics_counter_t counters[IPS_METRICS_MAX_COUNTERS];
} metrics_figures_t;

struct ips_metrics_s {
  pthread_mutex_t lock;  /* over fig, decl and slots */
  metrics_figures_t fig;
  metrics_decl_t decl[IPS_METRICS_MAX_COUNTERS];
  const char *const *parts;
  size_t *slots;         /* open addressing: a vat's index + 1, 0 empty */
  size_t nslots;         /* a power of 2, over twice max_vats */
  double start;          /* the registry's birth, Unix seconds */
};

/* The figures copied into copy (its vats and hists: room for m's
 * max_vats + 1 vats, filled up to nvats, and the "_other" vat at nvats
 * when in use) and the
 * counters' declarations into decl, under the lock. */
void metrics_snapshot(ips_metrics_t *m, metrics_figures_t *copy,
                      metrics_decl_t *decl);

/* 1 when the len bytes at req hold a request's whole head (a blank line
 * ends it, "\r\n\r\n" or a bare "\n\n"), else 0. */
int metrics_head_whole(const char *req, size_t len);

/* What the endpoint answers to a request's head, req (len bytes, not
 * NUL-terminated): its status line's code and reason ("200 OK", "400 Bad
 * Request", "404 Not Found", "405 Method Not Allowed", "431 Request
 * Header Fields Too Large" when no blank line ends the head); *serve is 1
 * for the metrics (GET or HEAD /metrics over HTTP/1.x), *head_only 1 for
 * HEAD.  The string is static. */
const char *metrics_request(const char *req, size_t len, int *serve,
                            int *head_only);

/* The wall clock in Unix seconds. */
double metrics_now(void);

#endif
