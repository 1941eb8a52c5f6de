/* metrics.h — live figures for Prometheus: a registry of histograms and
 * counters that a feeder (the thread that attributes deliveries) fills,
 * and an HTTP/1.x server on a thread of its own that answers
 * GET /metrics with the registry in Prometheus' text exposition format
 * 0.0.4 (docs/operators.md lists every metric).
 *
 * Threads: every ips_metrics_* function may be called from any thread.
 * The feeder holds the registry's lock only to add to a few integers; the
 * server copies the registry under the lock (a memcpy of what is in use)
 * and writes the text from its copy, so a slow scraper, or many, never
 * make the feeder wait longer than that copy.
 *
 * Bounds: labels are vat ids, a delivery's part and a counter's one label
 * (a reason), never a delivery number or anything else that grows with
 * the input.  Distinct vats are capped (max_vats): the deliveries of
 * vats past the cap are counted under vat="_other" and in
 * ipcstamp_vats_over_cap_deliveries_total, so that the totals stay true.
 * A counter's distinct label values are capped the same way
 * (IPS_METRICS_MAX_VALUES, then "_other"). */
#ifndef IPCSTAMP_TOOLS_METRICS_H
#define IPCSTAMP_TOOLS_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* ipcstamp's metrics port: neither CometBFT's Prometheus port (26660)
 * nor the OTel Prometheus exporter's (9464, docs/otel.md). */
#define IPS_METRICS_PORT 9469
#define IPS_METRICS_DEFAULT_LISTEN "127.0.0.1:9469"

#define IPS_METRICS_MAX_PARTS 40   /* a delivery's parts (pipe, worker...,
                                      and the OS's: docs/os.md) */
#define IPS_METRICS_MAX_COUNTERS 32
#define IPS_METRICS_MAX_VALUES 32  /* distinct label values per counter */
#define IPS_METRICS_DEFAULT_MAX_VATS 256
#define IPS_METRICS_MAX_MAX_VATS 4096
#define IPS_METRICS_NAME_MAX 64    /* a vat id or a label value, NUL included:
                                      longer ones are cut */

typedef struct ips_metrics_s ips_metrics_t;

/* The parts of a delivery the histograms keep, in this order, when the
 * caller names none: "pipe", "worker", "kernel", "total". */
extern const char *const ips_metrics_default_parts[];
#define IPS_METRICS_NDEFAULT_PARTS 4

/* A new registry whose deliveries have the nparts parts named by parts
 * (NULL: the default four; the strings must outlive the registry), of
 * at most max_vats distinct vats (0: IPS_METRICS_DEFAULT_MAX_VATS; at
 * most IPS_METRICS_MAX_MAX_VATS).  Its memory is allocated here, once:
 * observing never allocates.  NULL when out of memory or nparts is 0 or
 * over IPS_METRICS_MAX_PARTS.  The caller owns it (ips_metrics_free,
 * after the server using it is stopped). */
ips_metrics_t *ips_metrics_new(const char *const *parts, size_t nparts,
                               size_t max_vats);
void ips_metrics_free(ips_metrics_t *m);

/* One delivery to vat: seconds[i] is the time of part i (of the parts
 * given to ips_metrics_new), a NaN or negative value for a part it has
 * not.  Counted in ipcstamp_deliveries_total{vat} and each part's
 * histogram ipcstamp_delivery_seconds{vat,part}, all under one lock, so
 * that a scrape sees a delivery whole or not at all.  vat NULL or empty
 * is "_unknown". */
void ips_metrics_delivery(ips_metrics_t *m, const char *vat,
                          const double *seconds);

/* The default parts of the attributed delivery d (ipcstamp-analyze.h's
 * ips_delivery_t) into s[0..IPS_METRICS_NDEFAULT_PARTS), in seconds, in
 * the order of ips_metrics_default_parts: what ips_metrics_delivery
 * takes for a registry of the default parts. */
struct ips_delivery_s;
void ips_metrics_default_seconds(const struct ips_delivery_s *d, double *s);

/* Declares a counter (before it is counted; any time, from any thread):
 * name is its full name (ending in _total), help its HELP text, label
 * the name of its one label or NULL for none (all three must outlive the
 * registry).  Returns its id for ips_metrics_count, or -1 when
 * IPS_METRICS_MAX_COUNTERS are declared.  Declaring a name again returns
 * the same id. */
int ips_metrics_counter(ips_metrics_t *m, const char *name, const char *help,
                        const char *label);

/* Adds n to counter id (from ips_metrics_counter; another value is
 * ignored) with its label's value (ignored for a counter without a
 * label; NULL or empty is "_unknown"). */
void ips_metrics_count(ips_metrics_t *m, int id, const char *value,
                       uint64_t n);

/* Declares a gauge as ips_metrics_counter declares a counter (the same
 * ids, the same cap: IPS_METRICS_MAX_COUNTERS in all); its name does not
 * end in _total. */
int ips_metrics_gauge(ips_metrics_t *m, const char *name, const char *help,
                      const char *label);

/* Sets gauge id (from ips_metrics_gauge; another id, or a counter's, is
 * ignored) with its label's value (as ips_metrics_count) to v. */
void ips_metrics_set(ips_metrics_t *m, int id, const char *value, double v);

/* The registry as Prometheus text (format 0.0.4), with the process's own
 * CPU time and resident memory read now (getrusage, /proc/self/statm)
 * and the server's own counters.  *len its length; the caller frees it.
 * NULL when out of memory.  The lock is held only while the figures are
 * copied. */
char *ips_metrics_expose(ips_metrics_t *m, size_t *len);

/* ---- the HTTP server (http.c) --------------------------------------- */

typedef struct ips_metrics_server_s ips_metrics_server_t;

typedef struct {
  const char *listen;     /* HOST:PORT, :PORT or PORT ([V6]:PORT); NULL:
                             IPS_METRICS_DEFAULT_LISTEN; port 0: any free */
  int max_connections;    /* open at once; 0: 16.  More are closed at once
                             and counted */
  int deadline_ms;        /* a connection's whole life, request read and
                             answer written; 0: 10000 */
} ips_metrics_server_options_t;

/* Binds o->listen and starts the server thread answering GET /metrics
 * (with m, which must outlive the server) and 404 to any other path, 405
 * to any other method, 400 to what is not HTTP/1.x.  The socket is bound
 * before it returns, so that a port in use is said here: 0 and *out, or
 * a negative errno (-EADDRINUSE, -EACCES...; -EINVAL for an address that
 * cannot be parsed or resolved) with why written into err (errlen
 * bytes). */
int ips_metrics_serve(ips_metrics_t *m, const ips_metrics_server_options_t *o,
                      ips_metrics_server_t **out, char *err, size_t errlen);

/* The port the server listens on (the one chosen, with port 0). */
int ips_metrics_server_port(const ips_metrics_server_t *s);

/* The address listened on, "HOST:PORT" ("[V6]:PORT"), into buf. */
void ips_metrics_server_address(const ips_metrics_server_t *s, char *buf,
                                size_t len);

/* Stops the thread (open connections are closed), closes the socket and
 * frees s.  NULL is allowed. */
void ips_metrics_server_stop(ips_metrics_server_t *s);

#endif
