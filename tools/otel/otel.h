/* otel.h — `ipcstamp otel`'s parts: deterministic ids (ids.c), the
 * OTLP/JSON encoder (otlp_json.c), the exporter's settings from options and
 * the OpenTelemetry environment variables (config.c), and the HTTP sender
 * (send.c, on libcurl).  None of them reads the slogfile or parses argv:
 * cmd_otel.c ties them together. */
#ifndef IPCSTAMP_TOOLS_OTEL_H
#define IPCSTAMP_TOOLS_OTEL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ipcstamp-analyze.h"

/* ---- ids (ids.c) ------------------------------------------------------- */

/* Where a delivery's spans get their ids.  The identity of the file is
 * its first record's two clocks (time and monotime, in ns): they do not
 * change when the file is read again, copied, gzipped or sent from another
 * machine, and two kernel runs never share them.  A delivery inside it is
 * (vat, crank, deliveryNum, line of its deliver record): the line tells a
 * replayed delivery from its first run. */
typedef struct {
  uint64_t run[2]; /* the file's identity (first record's time, monotime) */
  int with_pid;    /* the rings: the worker's pid is part of a delivery's
                      identity (a restarted worker counts from 1 again) */
} otel_ids_t;

void otel_ids_init(otel_ids_t *ids, const ips_stats_t *st);
/* d's trace id (16 bytes) and the span id (8 bytes) of its span number k:
 * 0 is the delivery, 1 + j its segment j.  Never all zero (OTLP's
 * "invalid" id). */
void otel_trace_id(const otel_ids_t *ids, const ips_delivery_t *d,
                   uint8_t out[16]);
void otel_span_id(const otel_ids_t *ids, const ips_delivery_t *d, size_t k,
                  uint8_t out[8]);

/* The records' own facts, as the analysis keeps them
 * (ipcstamp-analyze-causes.h): a delivery's kind and its causes, each a
 * span link. */
typedef ips_cause_t otel_cause_t;
typedef ips_delivery_causes_t otel_deliver_facts_t;
#define OTEL_MAX_CAUSES IPS_MAX_CAUSES

/* ---- the OTLP/JSON encoder (otlp_json.c) ------------------------------ */

/* Resource attributes from OTEL_RESOURCE_ATTRIBUTES (config.c), decoded:
 * keys and values as the user wrote them, the later of two equal keys
 * kept.  Owns its strings. */
#define OTEL_MAX_ATTRS 64
typedef struct {
  char *key[OTEL_MAX_ATTRS], *val[OTEL_MAX_ATTRS];
  size_t n;
} otel_attrs_t;

/* One ExportTraceServiceRequest being built in memory: one ResourceSpans
 * per worker process (a group), each a buffer of its spans; otlp_req_end()
 * joins them.  A group is itself an otlp_req_t used as a plain buffer.
 * Owns buf and the groups. */
typedef struct otlp_group_s otlp_group_t;
typedef struct otlp_req_s {
  char *buf;
  size_t len, cap;
  size_t nspans;      /* spans in it so far */
  int oom;            /* memory ran out: the request is unusable */
  const char *resource; /* the attributes every resource has, as JSON
                           members without the brackets (kept, not
                           copied) */
  otlp_group_t *groups;
  size_t ngroups, capgroups;
} otlp_req_t;

/* The attributes every resource of the export has, as JSON members (no
 * brackets), in a new string the caller frees (NULL when out of memory):
 * service.name, host.name (when host is not NULL), the slogfile's name
 * (when not NULL), then env's (may be NULL) other keys.  As the
 * specification merges OTEL_RESOURCE_ATTRIBUTES under what the program
 * itself says: env's service.name is the caller's business (it comes after
 * OTEL_SERVICE_NAME and --service-name), env's host.name replaces host (the
 * node's name may be what the operator wants, not the exporting machine's),
 * and the keys that describe the data (process.pid, ipcstamp.*) are
 * ipcstamp's own and not taken from env. */
char *otlp_resource(const char *service, const char *host,
                    const char *slogfile, const otel_attrs_t *env);

/* An empty request for the resource attributes res (kept: it must outlive
 * r).  Returns 0, or -1 when out of memory. */
int otlp_req_init(otlp_req_t *r, const char *res);
/* How many spans otlp_req_delivery() adds for d: the delivery, its
 * segments, and the VM's marks and spans. */
size_t otlp_delivery_nspans(const ips_delivery_t *d);
/* Adds d's spans (otlp_delivery_nspans(d)) with their ids from ids and
 * wall-clock times from st (ips_stats_wall_ns): what the worker ran under
 * the resource of d's worker process ((vat, worker_pid, worker_line), with
 * process.pid when known), the rest under the kernel's (one per kernel
 * run, st->restarts).  f (NULL: unknown) names the root by the delivery's
 * kind and gives its links. */
void otlp_req_delivery(otlp_req_t *r, const otel_ids_t *ids,
                       const ips_stats_t *st, const ips_delivery_t *d,
                       const otel_deliver_facts_t *f);
/* The root span's name for a delivery of kind (NULL or "": unknown):
 * "deliver-KIND" for the kinds SwingSet and ipcstamp deliver, else
 * "deliver"; always from a fixed set. */
const char *otlp_root_name(const char *kind);
/* The request's JSON (NUL-terminated, valid until the next call on r), or
 * NULL when out of memory.  Further deliveries may not be added. */
const char *otlp_req_end(otlp_req_t *r, size_t *len);
/* Empties r for the next request (keeps its buffer). */
void otlp_req_reset(otlp_req_t *r);
void otlp_req_free(otlp_req_t *r);

/* Appends s as it is to r. */
void otlp_put_raw(otlp_req_t *r, const char *s);
/* Appends an attribute {"key":key,"value":{...}} to r, after a comma
 * unless *first (which it clears). */
void otlp_attr_str(otlp_req_t *r, int *first, const char *key,
                   const char *v);
void otlp_attr_int(otlp_req_t *r, int *first, const char *key, int64_t v);
/* Appends s as a JSON string (quotes included) to r. */
void otlp_put_string(otlp_req_t *r, const char *s);
/* Lowercase hex of n bytes into out (2n + 1 bytes with the NUL). */
void otlp_hex(char *out, const uint8_t *b, size_t n);

/* What a segment is called in the trace ("pipe-send", "worker",
 * "kernel-syscall", ...), from ips_delivery_segment()'s kind. */
const char *otlp_segment_name(const char *kind);

/* ---- metrics (metrics.c) ---------------------------------------------- */

/* The deliveries' distributions, per series (vat, kind, method), as OTLP
 * metrics: exponential histograms of the total time and of each share,
 * counters of deliveries and timequakes; and the analysis' skip counts.
 * Cumulative from the first delivery added.  Bounded: at most
 * OTEL_MAX_SERIES series with a method; past that, a delivery goes to the
 * series of its vat and kind (at most half as many more), then of its vat
 * (as many again), then to one series of everything: never lost. */
#define OTEL_MAX_SERIES 1024
typedef struct otel_metrics_s otel_metrics_t;

otel_metrics_t *otel_metrics_new(void);
/* Adds d, of kind (NULL or "": unknown; then no method either), ending at
 * end_ns (ns since the epoch). */
void otel_metrics_add(otel_metrics_t *m, const ips_delivery_t *d,
                      const char *kind, int64_t end_ns);
/* Deliveries added since the last otel_metrics_request(). */
uint64_t otel_metrics_fresh(const otel_metrics_t *m);
/* Adds to the histograms' sums held at the bound (ips_sum_add, the one
 * policy): those sums are bounds, not measures.  0 for NULL. */
uint64_t otel_metrics_saturated(const otel_metrics_t *m);
/* An ExportMetricsServiceRequest of everything so far (cumulative: from
 * start_ns, the export's start, to the latest delivery's end), under the
 * resource attributes res, with st's skip counts (NULL: none), as a new
 * string the caller frees (*len its length), or NULL when out of memory.
 * *points gets the number of data points. */
char *otel_metrics_request(otel_metrics_t *m, const char *res,
                           const ips_stats_t *st, int64_t start_ns,
                           size_t *len, size_t *points);
void otel_metrics_free(otel_metrics_t *m);

/* ---- settings (config.c) ---------------------------------------------- */

#define OTEL_MAX_HEADERS 64

typedef struct {
  char *url;                       /* the full URL posted to (owned) */
  char *headers[OTEL_MAX_HEADERS]; /* "Key: value" lines (owned) */
  size_t nheaders;
} otel_target_t;

/* The URL to post to: endpoint from --endpoint (NULL: none given) gets
 * "/v1/traces" appended, as the SDKs do for OTEL_EXPORTER_OTLP_ENDPOINT;
 * without it, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is, then
 * OTEL_EXPORTER_OTLP_ENDPOINT with "/v1/traces", then the SDKs' default
 * http://localhost:4318/v1/traces.  Returns 0, or -1 with a message in
 * err. */
int otel_target_url(otel_target_t *t, const char *endpoint, char *err,
                    size_t errlen);
/* The same for another signal ("metrics"): "/v1/metrics" appended, and
 * OTEL_EXPORTER_OTLP_METRICS_ENDPOINT used as is. */
int otel_target_url_for(otel_target_t *t, const char *endpoint,
                        const char *signal, char *err, size_t errlen);
/* Adds the headers of a list in OTEL_EXPORTER_OTLP_HEADERS' form (W3C
 * baggage: "k1=v1,k2=v2", values URL-encoded, spaces around items
 * ignored).  what names the source in messages.  Returns 0, or -1 with a
 * message in err (which item is wrong, and why). */
int otel_target_headers(otel_target_t *t, const char *list, const char *what,
                        char *err, size_t errlen);
/* One --header K=V (the value taken as is, not URL-decoded).  Returns 0
 * or -1 with a message. */
int otel_target_header(otel_target_t *t, const char *kv, char *err,
                       size_t errlen);
void otel_target_free(otel_target_t *t);

/* Parses OTEL_RESOURCE_ATTRIBUTES' form (what names the source in
 * messages) into a, which must be empty: "k1=v1,k2=v2", keys and values
 * percent-decoded (the specification: ',' and '=' in them MUST be
 * encoded), spaces around items, keys and values dropped, empty items
 * skipped.  Returns 0, or -1 with a message in err (the item's number and
 * what is wrong): then a is empty again, since the specification says a
 * value with any error is discarded whole. */
int otel_attrs_parse(otel_attrs_t *a, const char *list, const char *what,
                     char *err, size_t errlen);
/* The value of key in a, or NULL. */
const char *otel_attrs_get(const otel_attrs_t *a, const char *key);
void otel_attrs_free(otel_attrs_t *a);

/* ---- the live rings ------------------------------------------------- */

/* The rings' deliveries come joined from the analysis library
 * (ips_ring_join_*, ipcstamp-analyze.h). */
#include "ipcstamp-ring-read.h"

/* ---- sending (send.c) ------------------------------------------------- */

typedef struct otel_sender_s otel_sender_t;

typedef struct {
  const otel_target_t *target;
  unsigned retries;       /* tries after the first one */
  long timeout_ms;        /* per request */
  long backoff_ms;        /* first wait before a retry (doubles) */
  long max_backoff_ms;    /* longest wait, Retry-After included */
  /* Set by a signal handler (NULL: none): a request in flight or a wait
   * before a retry ends at once, and nothing more is tried. */
  volatile sig_atomic_t *stop;
} otel_send_options_t;

/* NULL with a message in err (built without libcurl, out of memory). */
otel_sender_t *otel_sender_new(const otel_send_options_t *o, char *err,
                               size_t errlen);
/* Posts body (len bytes) with up to 1 + tries - 1 attempts (tries 0: the
 * options' retries + 1), waiting between them: on a connection failure or
 * an answer 429, 502, 503 or 504, the Retry-After the answer gives, else
 * the backoff.  Returns 0 when it was accepted (*rejected gets the spans
 * the receiver said it rejected, from a partial success; UINT64_MAX when
 * its count is not one: negative, a fraction, not a number), 1 after the
 * last try of a retryable failure, -1 on a failure a retry cannot fix
 * (another 4xx, a 2xx whose body is too long to read whole): err says what
 * happened and how often it was tried. */
int otel_send(otel_sender_t *s, const char *body, size_t len, unsigned tries,
              uint64_t *rejected, char *err, size_t errlen);
void otel_sender_free(otel_sender_t *s);

#endif
