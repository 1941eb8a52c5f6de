/* cmd_otel.c — `ipcstamp otel`: the attributed deliveries of a slogfile as
 * OpenTelemetry spans, sent to an OTLP/HTTP receiver (a collector, Jaeger,
 * Tempo) in JSON, or written to stdout with --dry-run.  The span model and
 * the ids are in tools/otel/otlp_json.c and ids.c (docs/otel.md).
 *
 * Requests go out in order as the batches fill.  Reading a whole file, a
 * batch that cannot be delivered after its retries ends the export (the
 * rest would fail the same way, and the exit code says so).  Following a
 * file, the export never ends for that: batches wait in a bounded queue
 * while the receiver is away (one try every few seconds), the oldest are
 * dropped when it is full, and the counts are printed at the end. */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --ring is the shared input option, but otel says its own lines for it:
 * it follows the rings until a signal, and --once reads them once. */
#define CLI_RING_HELP ""
#include "cli.h"
#include "otel/otel.h"

static const char usage_text[] =
    "usage: ipcstamp otel SLOG [--endpoint URL] [options]\n"
    "       ipcstamp otel --ring DIR [--endpoint URL] [options]\n"
    "\n"
    "Sends each delivery of SLOG as a trace to an OpenTelemetry receiver\n"
    "(OTLP over HTTP, JSON): a span for the delivery on the kernel's side,\n"
    "with a child span for each pipe transit, worker run and kernel syscall\n"
    "(docs/otel.md).  The ids derive from the file: sending it again sends\n"
    "the same spans.\n"
    "\n"
    "  --endpoint URL    the receiver's base URL; spans go to URL/v1/traces\n"
    "                    (default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is,\n"
    "                    else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, else\n"
    "                    http://localhost:4318/v1/traces)\n"
    "  --header K=V      an HTTP header (repeatable; after the ones of\n"
    "                    OTEL_EXPORTER_OTLP_HEADERS and _TRACES_HEADERS)\n"
    "  --service-name S  the resources' service.name (default:\n"
    "                    OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES'\n"
    "                    service.name, else ipcstamp); one resource per\n"
    "                    worker process, with its process.pid when known\n"
    "  --batch N         spans per request, at most (default 512; a\n"
    "                    delivery's spans always go together)\n"
    "  --retries N       tries after the first on 429, 502, 503, 504 or no\n"
    "                    connection (default 5; backoff from 200 ms doubling\n"
    "                    to 30 s, or the receiver's Retry-After)\n"
    "  --timeout MS      per request (default: OTEL_EXPORTER_OTLP_TIMEOUT, else\n"
    "                    10000)\n"
    "  --queue N         following: batches kept while the receiver is away\n"
    "                    (default 16); beyond, the oldest are dropped\n"
    "  --dry-run         write the requests to stdout, one JSON per line,\n"
    "                    instead of sending them\n"
    "  --ring DIR        instead of SLOG: follow the live rings of DIR (as\n"
    "                    top and watch do; docs/ring.md) and send each\n"
    "                    delivery as its attribution completes, until SIGINT\n"
    "                    or SIGTERM\n"
    "  --interval MS     with --ring: how often to poll, 10..60000 (100)\n"
    "  --once            with --ring: send what the rings hold now and exit\n"
    "  --metrics         also send the deliveries' distributions as OTLP\n"
    "                    metrics to URL/v1/metrics (per vat, kind and\n"
    "                    method; cumulative; every 10 s while following)\n"
    CLI_INPUT_HELP
    "\n"
    "exit codes: 0 ok, 2 bad usage, 3 records skipped, 4 cannot read the\n"
    "input, 5 the receiver did not take the spans (after the retries)\n";

enum {
  OPT_ENDPOINT = OPT_FIRST_OWN,
  OPT_HEADER,
  OPT_SERVICE,
  OPT_BATCH,
  OPT_RETRIES,
  OPT_TIMEOUT,
  OPT_QUEUE,
  OPT_DRY,
  OPT_INTERVAL,
  OPT_ONCE,
  OPT_METRICS
};

/* A request waiting to be sent. */
typedef struct {
  char *body;
  size_t len, nspans;
} pending_t;

typedef struct {
  ips_analysis_t *a;    /* set by cli_analyze() before the first delivery */
  otlp_req_t req;       /* the batch being filled */
  otel_ids_t ids;
  int have_ids;
  size_t batch;
  int dry, follow;
  otel_sender_t *snd;
  pending_t *q;         /* ring of qmax */
  size_t qhead, qn, qmax;
  int down;             /* following: the receiver failed its last try */
  struct timespec next_try;
  int failed;           /* not following: a batch could not be delivered */
  int oom;
  uint64_t sent, dropped, rejected, unsent, requests;
  /* --metrics: the distributions, sent to their own URL (/v1/metrics)
   * at the end, and every METRICS_EVERY_MS while following */
  otel_metrics_t *metrics;
  otel_sender_t *msnd;
  const char *metrics_url, *res;
  int64_t metrics_start;  /* the first delivery's start (ns, wall) */
  struct timespec metrics_next;
  uint64_t metric_points, metric_requests, metric_failed;
  otel_causes_t *causes; /* a slogfile: its deliveries' kinds and causes,
                           read again beside the analysis (NULL: none) */
  ips_ring_dir_t *rings;    /* --ring: the rings, joined into deliveries */
  ips_ring_join_counts_t ring_counts; /* --ring: the joiner's, at the end */
  uint64_t ring_lost;   /* events the readers were lapped over */
  uint64_t ring_bad;    /* rings that could not be read (each said) */
} otel_cmd_t;

#define DOWN_RETRY_MS 5000
#define METRICS_EVERY_MS 10000

static void now_plus(struct timespec *t, long ms) {
  clock_gettime(CLOCK_MONOTONIC, t);
  t->tv_sec += ms / 1000;
  t->tv_nsec += (ms % 1000) * 1000000L;
  if (t->tv_nsec >= 1000000000L) {
    t->tv_sec++;
    t->tv_nsec -= 1000000000L;
  }
}

static int due(const struct timespec *t) {
  struct timespec n;
  clock_gettime(CLOCK_MONOTONIC, &n);
  return n.tv_sec > t->tv_sec ||
         (n.tv_sec == t->tv_sec && n.tv_nsec >= t->tv_nsec);
}

static void pop(otel_cmd_t *c) {
  free(c->q[c->qhead].body);
  c->qhead = (c->qhead + 1) % c->qmax;
  c->qn--;
}

/* Sends what is queued, oldest first.  final: the export ends, so a
 * receiver known to be away gets one more try now. */
static void drain(otel_cmd_t *c, int final) {
  char err[512];
  while (c->qn) {
    pending_t *p = &c->q[c->qhead];
    uint64_t rej;
    int r;
    if (c->down && !final && !due(&c->next_try))
      return;
    if (c->down && final && *cli_stop_flag()) {
      /* Stopped by a signal while the receiver was away: no last try
       * (it could wait a whole --timeout); what is left is not sent. */
      while (c->qn) {
        c->unsent += c->q[c->qhead].nspans;
        pop(c);
      }
      return;
    }
    r = otel_send(c->snd, p->body, p->len, c->down ? 1 : 0, &rej, err,
                  sizeof err);
    if (r == 0 && rej > p->nspans) {
      /* Not a count of these spans (negative, or more than were sent):
       * what was taken cannot be known. */
      snprintf(err, sizeof err, "the receiver's partial success counts %s "
               "rejected spans of the %zu sent: not a count, so they are not "
               "taken as received", rej == UINT64_MAX ? "nonsense" : "more",
               p->nspans);
      r = -1;
    }
    if (r == 0) {
      if (c->down)
        fprintf(stderr, "ipcstamp otel: the receiver is back: sending\n");
      c->down = 0;
      c->requests++;
      c->sent += p->nspans - (rej < p->nspans ? rej : p->nspans);
      if (rej) {
        c->rejected += rej;
        fprintf(stderr, "ipcstamp otel: the receiver rejected %llu of %zu "
                        "spans of a request\n", (unsigned long long)rej,
                p->nspans);
      }
      pop(c);
      continue;
    }
    if (r < 0 || !c->follow) {
      /* Refused (a retry would be refused again), or the last try failed:
       * reading a file, the export ends here. */
      fprintf(stderr, "ipcstamp otel: %s\n", err);
      c->unsent += p->nspans;
      pop(c);
      if (!c->follow) {
        c->failed = 1;
        while (c->qn) {
          c->unsent += c->q[c->qhead].nspans;
          pop(c);
        }
        return;
      }
      continue;
    }
    if (!c->down)
      fprintf(stderr, "ipcstamp otel: %s; keeping up to %zu batches and "
                      "trying again every %d s\n", err, c->qmax,
              DOWN_RETRY_MS / 1000);
    c->down = 1;
    now_plus(&c->next_try, DOWN_RETRY_MS);
    if (final) { /* the one last try failed: what is left is not sent */
      while (c->qn) {
        c->unsent += c->q[c->qhead].nspans;
        pop(c);
      }
    }
    return;
  }
}

/* The batch being filled is complete: out it goes (or into the queue). */
static void seal(otel_cmd_t *c) {
  size_t len, n = c->req.nspans;
  const char *body;
  pending_t *p;
  if (!n)
    return;
  body = otlp_req_end(&c->req, &len);
  if (!body) {
    c->oom = 1;
    c->unsent += n;
    otlp_req_reset(&c->req);
    return;
  }
  if (c->dry) {
    fwrite(body, 1, len, stdout);
    fputc('\n', stdout);
    c->sent += n;
    c->requests++;
    otlp_req_reset(&c->req);
    return;
  }
  if (c->qn == c->qmax) { /* full: the oldest goes */
    c->dropped += c->q[c->qhead].nspans;
    pop(c);
  }
  p = &c->q[(c->qhead + c->qn) % c->qmax];
  p->body = malloc(len + 1);
  if (!p->body) {
    c->oom = 1;
    c->unsent += n;
  } else {
    memcpy(p->body, body, len + 1);
    p->len = len;
    p->nspans = n;
    c->qn++;
  }
  otlp_req_reset(&c->req);
  drain(c, 0);
}

/* The metrics so far, as one request (cumulative: it replaces the last),
 * written (--dry-run) or posted; following, not more often than every
 * METRICS_EVERY_MS, and a failure waits for the next (which says all the
 * same and more).  final: the export ends. */
static void send_metrics(otel_cmd_t *c, const ips_stats_t *st, int final) {
  char err[512], *body;
  size_t len, points;
  uint64_t rejected = 0;
  if (!c->metrics || c->failed)
    return;
  if (!final && (!otel_metrics_fresh(c->metrics) || !due(&c->metrics_next)))
    return;
  if (final && !otel_metrics_fresh(c->metrics) && c->metric_requests)
    return;
  now_plus(&c->metrics_next, METRICS_EVERY_MS);
  body = otel_metrics_request(c->metrics, c->res, st, c->metrics_start, &len,
                              &points);
  if (!body) {
    c->oom = 1;
    return;
  }
  c->metric_requests++;
  if (c->dry) {
    fwrite(body, 1, len, stdout);
    fputc('\n', stdout);
    c->metric_points = points;
  } else if (otel_send(c->msnd, body, len, c->follow && !final ? 1 : 0,
                       &rejected, err, sizeof err) == 0) {
    c->metric_points = points;
  } else {
    fprintf(stderr, "ipcstamp otel: metrics: %s\n", err);
    c->metric_failed++;
  }
  free(body);
}

static void add_metrics(otel_cmd_t *c, const ips_stats_t *st,
                        const ips_delivery_t *d, const char *kind) {
  int64_t t0;
  if (!c->metrics)
    return;
  t0 = ips_stats_wall_ns(st, d, d->P[0]);
  if (!c->metrics_start || t0 < c->metrics_start)
    c->metrics_start = t0;
  otel_metrics_add(c->metrics, d, kind, t0 + d->total);
}

static void on_delivery(void *arg, const ips_delivery_t *d) {
  otel_cmd_t *c = arg;
  size_t n = otlp_delivery_nspans(d);
  otel_deliver_facts_t f;
  int have = 0;
  if (c->failed) {
    c->unsent += n;
    return;
  }
  if (!c->have_ids) {
    /* The first record has been read: the file's identity is known. */
    otel_ids_init(&c->ids, ips_analysis_stats(c->a));
    c->have_ids = 1;
  }
  if (c->req.nspans && c->req.nspans + n > c->batch) {
    seal(c);
    if (c->failed) {
      c->unsent += n;
      return;
    }
  }
  if (c->causes) { /* the records up to its deliver record */
    otel_causes_read_to(c->causes, d->line);
    have = otel_causes_get(c->causes, d->line, &f);
  }
  otlp_req_delivery(&c->req, &c->ids, ips_analysis_stats(c->a), d,
                    have ? &f : NULL);
  add_metrics(c, ips_analysis_stats(c->a), d, have ? f.kind : NULL);
}

/* Following, while the reader waits: what has come goes out now. */
static void on_idle(void *arg) {
  otel_cmd_t *c = arg;
  if (c->failed)
    return;
  if (c->req.nspans)
    seal(c);
  else
    drain(c, 0);
  send_metrics(c, c->a ? ips_analysis_stats(c->a) : NULL, 0);
  if (c->dry)
    fflush(stdout);
}

/* --ring: a delivery joined from the rings, with its own anchor and ids
 * (each parent ring is a run of its own). */
static void on_ring_delivery(void *arg, const ips_delivery_t *d,
                             const ips_stats_t *st) {
  otel_cmd_t *c = arg;
  size_t n = otlp_delivery_nspans(d);
  otel_ids_t ids;
  otel_ids_init(&ids, st);
  ids.with_pid = 1; /* a ring's worker is known by its pid */
  if (c->req.nspans && c->req.nspans + n > c->batch)
    seal(c);
  /* The rings carry no kd/vd: no kind, no causes. */
  otlp_req_delivery(&c->req, &ids, st, d, NULL);
  add_metrics(c, st, d, NULL);
}

static void on_ring_lost(void *arg, const ips_ring_proc_t *p, uint64_t lost) {
  otel_cmd_t *c = arg;
  (void)p;
  c->ring_lost += lost;
}

/* A ring that cannot be read (corrupt, another format version, not a
 * file) is said, once, and makes the exit code 3: not silence. */
static void on_ring_error(void *arg, const ips_ring_proc_t *p) {
  otel_cmd_t *c = arg;
  fprintf(stderr, "ipcstamp otel: ring of pid %ld not read: %s\n", p->pid,
          p->error);
  c->ring_bad++;
}

static void on_ring_stop(int sig) {
  volatile sig_atomic_t *stop = cli_stop_flag();
  (void)sig;
  *stop = *stop + 1;
}

/* --ring: polls every ring of dir (libipcstamp-analyze's ips_ring_dir_t:
 * new rings are picked up at each poll, each poll is bounded, the joined
 * deliveries come to on_ring_delivery) and sends what was joined after
 * each poll, until a signal (or after one poll with once).  Memory is
 * bounded by the directory, its joiner and the queue.  Returns an exit
 * code. */
static int follow_rings(otel_cmd_t *c, const char *dir, long long interval,
                        int once) {
  ips_ring_dir_callbacks_t cb;
  struct sigaction sa;
  int rc;
  memset(&cb, 0, sizeof cb);
  cb.on_lost = on_ring_lost;
  cb.on_error = on_ring_error;
  cb.on_delivery = on_ring_delivery;
  cb.arg = c;
  /* A backlog (rings written before otel started) is read 256 events at a
   * time from each ring in turn, so the halves waiting for the other ring
   * stay far below the joiner's bound. */
  cb.poll_max = 256;
  if (ips_ring_dir_open(&c->rings, dir, &cb) != 0) {
    fprintf(stderr, "ipcstamp otel: out of memory\n");
    return CLI_EXIT_IO;
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_ring_stop;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  rc = cli_rings_poll(c->rings, "ipcstamp otel", once, interval, cli_stop_flag(),
                      on_idle, c);
  ips_ring_dir_finish(c->rings, &c->ring_counts);
  return rc;
}

static int timeout_env(long long *ms) {
  const char *name = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT";
  const char *e = getenv(name);
  if (!e || !*e)
    e = getenv(name = "OTEL_EXPORTER_OTLP_TIMEOUT");
  if (!e || !*e)
    return 0;
  if (cli_count(e, 3600000, ms) < 0 || *ms == 0) {
    /* the variable the value came from */
    fprintf(stderr, "ipcstamp otel: %s takes milliseconds from 1 to "
                    "3600000, not '%s'\n", name, e);
    return -1;
  }
  return 0;
}

int cmd_otel(int argc, char **argv) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      {"endpoint", required_argument, NULL, OPT_ENDPOINT},
      {"header", required_argument, NULL, OPT_HEADER},
      {"service-name", required_argument, NULL, OPT_SERVICE},
      {"batch", required_argument, NULL, OPT_BATCH},
      {"retries", required_argument, NULL, OPT_RETRIES},
      {"timeout", required_argument, NULL, OPT_TIMEOUT},
      {"queue", required_argument, NULL, OPT_QUEUE},
      {"dry-run", no_argument, NULL, OPT_DRY},
      {"interval", required_argument, NULL, OPT_INTERVAL},
      {"once", no_argument, NULL, OPT_ONCE},
      {"metrics", no_argument, NULL, OPT_METRICS},
      {NULL, 0, NULL, 0}};
  cli_input_t in;
  otel_cmd_t c;
  otel_target_t target, mtarget;
  otel_send_options_t so;
  const char *endpoint = NULL, *service = NULL, *e, *slash;
  const char *hdr_args[OTEL_MAX_HEADERS];
  size_t nhdr = 0, i;
  long long batch = 512, retries = 5, timeout = 10000, queue = 16;
  long long interval = 100;
  const char *ring_dir = NULL;
  int once = 0, interval_set = 0, metrics = 0;
  char err[512], host[256], *res = NULL;
  otel_attrs_t env_attrs;
  int opt, rc;

  memset(&c, 0, sizeof c);
  memset(&env_attrs, 0, sizeof env_attrs);
  memset(&target, 0, sizeof target);
  memset(&mtarget, 0, sizeof mtarget);
  cli_input_init(&in, "ipcstamp otel", usage_text);
  if (timeout_env(&timeout) < 0)
    return CLI_EXIT_USAGE;
  while ((opt = cli_next_option(&in, argc, argv, "h", opts, &rc)) != -1) {
    switch (opt) {
      case OPT_ENDPOINT:
        endpoint = optarg;
        break;
      case OPT_HEADER:
        if (nhdr == OTEL_MAX_HEADERS) {
          fprintf(stderr, "ipcstamp otel: more than %d --header\n",
                  OTEL_MAX_HEADERS);
          return CLI_EXIT_USAGE;
        }
        hdr_args[nhdr++] = optarg;
        break;
      case OPT_SERVICE:
        service = optarg;
        break;
      case OPT_BATCH:
        if (cli_count(optarg, 1000000, &batch) < 0 || batch == 0)
          return cli_bad_value(&in, "--batch takes a count of spans from 1 "
                                    "to 1000000", optarg);
        break;
      case OPT_RETRIES:
        if (cli_count(optarg, 100, &retries) < 0)
          return cli_bad_value(&in, "--retries takes a count up to 100",
                               optarg);
        break;
      case OPT_TIMEOUT:
        if (cli_count(optarg, 3600000, &timeout) < 0 || timeout == 0)
          return cli_bad_value(&in, "--timeout takes milliseconds from 1 to "
                                    "3600000", optarg);
        break;
      case OPT_QUEUE:
        if (cli_count(optarg, 100000, &queue) < 0 || queue == 0)
          return cli_bad_value(&in, "--queue takes a count of batches from 1 "
                                    "to 100000", optarg);
        break;
      case OPT_DRY:
        c.dry = 1;
        break;
      case OPT_INTERVAL:
        if (cli_ring_interval("otel", optarg, 10, &interval) != 0)
          return CLI_EXIT_USAGE;
        interval_set = 1;
        break;
      case OPT_ONCE:
        once = 1;
        break;
      case OPT_METRICS:
        metrics = 1;
        break;
    }
  }
  if (rc >= 0)
    return rc;
  ring_dir = in.ring;
  if (ring_dir) {
    /* The rings are the input: no slogfile, nor its options. */
    if (optind < argc) {
      fprintf(stderr, "ipcstamp otel: --ring DIR takes no slogfile (got "
                      "'%s')\n", argv[optind]);
      return CLI_EXIT_USAGE;
    }
    if (in.src.follow) {
      fprintf(stderr, "ipcstamp otel: --ring follows the rings already; "
                      "--follow is for a slogfile\n");
      return CLI_EXIT_USAGE;
    }
    /* The rings' deliveries go out as they are joined, not through an
     * analysis: a filter would be silently ignored, so it is refused. */
    if (cli_filters_given(&in)) {
      fprintf(stderr, "ipcstamp otel: --vat, --method, --over, --since, "
                      "--until, --crank and --limit choose among a "
                      "slogfile's deliveries; --ring sends every one the "
                      "rings give\n");
      return CLI_EXIT_USAGE;
    }
  } else if (interval_set || once) {
    fprintf(stderr, "ipcstamp otel: --interval and --once go with --ring\n");
    return CLI_EXIT_USAGE;
  } else if (cli_input_path(&in, argc, argv) < 0) {
    return CLI_EXIT_USAGE;
  }

  /* Where to, in the SDKs' order: the environment, then the options. */
  rc = CLI_EXIT_USAGE;
  if (otel_target_url(&target, endpoint, err, sizeof err) < 0)
    goto usage;
  if (metrics &&
      otel_target_url_for(&mtarget, endpoint, "metrics", err, sizeof err) < 0)
    goto usage;
  if (metrics && (e = getenv("OTEL_EXPORTER_OTLP_HEADERS")) &&
      otel_target_headers(&mtarget, e, "OTEL_EXPORTER_OTLP_HEADERS", err,
                          sizeof err) < 0)
    goto usage;
  if (metrics && (e = getenv("OTEL_EXPORTER_OTLP_METRICS_HEADERS")) &&
      otel_target_headers(&mtarget, e, "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
                          err, sizeof err) < 0)
    goto usage;
  for (i = 0; metrics && i < nhdr; i++)
    if (otel_target_header(&mtarget, hdr_args[i], err, sizeof err) < 0)
      goto usage;
  if ((e = getenv("OTEL_EXPORTER_OTLP_HEADERS")) &&
      otel_target_headers(&target, e, "OTEL_EXPORTER_OTLP_HEADERS", err,
                          sizeof err) < 0)
    goto usage;
  if ((e = getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")) &&
      otel_target_headers(&target, e, "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                          err, sizeof err) < 0)
    goto usage;
  for (i = 0; i < nhdr; i++)
    if (otel_target_header(&target, hdr_args[i], err, sizeof err) < 0)
      goto usage;
  /* The specification: a value with any error is discarded whole and the
   * error reported; the export goes on without it. */
  if ((e = getenv("OTEL_RESOURCE_ATTRIBUTES")) &&
      otel_attrs_parse(&env_attrs, e, "OTEL_RESOURCE_ATTRIBUTES", err,
                       sizeof err) < 0)
    fprintf(stderr, "ipcstamp otel: %s; the variable is ignored, as the "
                    "OpenTelemetry specification says\n", err);
  if (!service && (e = getenv("OTEL_SERVICE_NAME")) && *e)
    service = e;
  if (!service)
    service = otel_attrs_get(&env_attrs, "service.name");
  if (!service)
    service = "ipcstamp";

  rc = CLI_EXIT_IO;
  if (gethostname(host, sizeof host) < 0)
    host[0] = '\0';
  host[sizeof host - 1] = '\0';
  slash = ring_dir ? NULL : strrchr(in.path, '/');
  res = otlp_resource(service, host[0] ? host : NULL,
                      ring_dir ? NULL : slash ? slash + 1 : in.path,
                      &env_attrs);
  if (!res || otlp_req_init(&c.req, res) < 0) {
    fprintf(stderr, "ipcstamp otel: out of memory\n");
    goto out;
  }
  c.res = res;
  if (metrics && !(c.metrics = otel_metrics_new())) {
    fprintf(stderr, "ipcstamp otel: out of memory\n");
    goto out;
  }
  c.batch = (size_t)batch;
  c.follow = in.src.follow || ring_dir;
  c.qmax = c.follow ? (size_t)queue : 1;
  c.q = calloc(c.qmax, sizeof *c.q);
  if (!c.q) {
    fprintf(stderr, "ipcstamp otel: out of memory\n");
    goto out;
  }
  if (!c.dry) {
    so.target = &target;
    so.retries = (unsigned)retries;
    so.timeout_ms = (long)timeout;
    so.backoff_ms = 200;
    so.max_backoff_ms = 30000;
    so.stop = cli_stop_flag();
    c.snd = otel_sender_new(&so, err, sizeof err);
    if (!c.snd) {
      fprintf(stderr, "ipcstamp otel: %s\n", err);
      rc = CLI_EXIT_SEND;
      goto out;
    }
    if (metrics) {
      so.target = &mtarget;
      if (!(c.msnd = otel_sender_new(&so, err, sizeof err))) {
        fprintf(stderr, "ipcstamp otel: %s\n", err);
        rc = CLI_EXIT_SEND;
        goto out;
      }
    }
  }
  if (ring_dir) {
    rc = follow_rings(&c, ring_dir, interval, once);
  } else {
    in.an.on_delivery = on_delivery;
    in.an.arg = &c;
    /* The kinds and causes: the same file read again, beside the analysis
     * (not stdin, which cannot be: then the roots are named "deliver"). */
    if (strcmp(in.path, "-") && (c.causes = otel_causes_new()) != NULL &&
        otel_causes_open(c.causes, in.path) < 0) {
      otel_causes_free(c.causes);
      c.causes = NULL;
    }
    if (c.follow) {
      in.on_idle = on_idle;
      in.idle_arg = &c;
    }
    rc = cli_analyze(&in, &c.a);
  }
  if (!c.failed) {
    seal(&c);
    drain(&c, 1);
    send_metrics(&c, c.a ? ips_analysis_stats(c.a) : NULL, 1);
  } else {
    c.unsent += c.req.nspans;
  }
  if (c.oom) {
    fprintf(stderr, "ipcstamp otel: out of memory: some spans were not "
                    "sent\n");
    rc = CLI_EXIT_IO;
  }
  if (c.dry) {
    if (cli_stdout_close("otel") != 0)
      rc = CLI_EXIT_IO;
  } else {
    fprintf(stderr, "ipcstamp otel: %llu spans sent in %llu requests to %s",
            (unsigned long long)c.sent, (unsigned long long)c.requests,
            target.url);
    if (c.dropped)
      fprintf(stderr, ", %llu dropped (the queue was full)",
              (unsigned long long)c.dropped);
    if (c.unsent)
      fprintf(stderr, ", %llu not sent", (unsigned long long)c.unsent);
    if (c.rejected)
      fprintf(stderr, ", %llu rejected by the receiver",
              (unsigned long long)c.rejected);
    fputc('\n', stderr);
    if (c.metrics)
      fprintf(stderr, "ipcstamp otel: %llu metric points sent to %s (%llu "
                      "requests, %llu failed)\n",
              (unsigned long long)c.metric_points, mtarget.url,
              (unsigned long long)c.metric_requests,
              (unsigned long long)c.metric_failed);
  }
  if (c.rings) {
    const ips_ring_join_counts_t rcn = c.ring_counts;
    fprintf(stderr, "ipcstamp otel: %llu deliveries from the rings",
            (unsigned long long)rcn.joined);
    if (rcn.unjoined)
      fprintf(stderr, ", %llu attributed by the parent but not exported "
                      "(their stamps incomplete in the rings)",
              (unsigned long long)rcn.unjoined);
    if (c.ring_lost)
      fprintf(stderr, ", %llu ring events lost (a reader was lapped)",
              (unsigned long long)c.ring_lost);
    if (rcn.marks_dropped)
      fprintf(stderr, ", %llu VM marks not exported (malformed, outside "
                      "their delivery, or past the bounds)",
              (unsigned long long)rcn.marks_dropped);
    if (c.ring_bad)
      fprintf(stderr, ", %llu ring%s not read (said above)",
              (unsigned long long)c.ring_bad, c.ring_bad == 1 ? "" : "s");
    fputc('\n', stderr);
    if (c.ring_bad && rc == CLI_EXIT_OK)
      rc = CLI_EXIT_INPUT;
  }
  if (!c.dry) {
    if (c.failed || c.unsent || c.dropped || c.rejected ||
        (c.metrics && c.metric_failed && !c.metric_points))
      rc = CLI_EXIT_SEND;
  }
out:
  for (i = 0; c.q && i < c.qn; i++)
    free(c.q[(c.qhead + i) % c.qmax].body);
  free(c.q);
  otel_sender_free(c.snd);
  otel_sender_free(c.msnd);
  otel_metrics_free(c.metrics);
  otel_target_free(&mtarget);
  otlp_req_free(&c.req);
  free(res);
  otel_target_free(&target);
  otel_attrs_free(&env_attrs);
  ips_ring_dir_close(c.rings);
  otel_causes_free(c.causes);
  ips_analysis_free(c.a);
  return rc;
usage:
  fprintf(stderr, "ipcstamp otel: %s\n", err);
  otel_target_free(&target);
  otel_target_free(&mtarget);
  otel_attrs_free(&env_attrs);
  return rc;
}
