/* cmd_otel.c — `ipcstamp otel`: the attributed deliveries of a slogfile as
 * OpenTelemetry spans, sent to an OTLP/HTTP receiver (a collector, Jaeger,
 * Tempo) in JSON, or written to stdout with --dry-run.  The span model and
 * the ids are in tools/otel/otlp_json.c and ids.c (docs/otel.md); the
 * batches, the queue and the sending in tools/otel/export.c.  This file
 * parses the options, sets the export up and says what it did. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --ring is the shared input option, but otel says its own lines for it:
 * it follows the rings until a signal, and --once reads them once. */
#define CLI_RING_HELP ""
#include "cli.h"
#include "otel/export.h"

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
    "  --os FILE         split each delivery with what `ipcstamp record`\n"
    "                    saw (docs/os.md): span attributes ipcstamp.os.*\n"
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

/* The options of otel's own, as given. */
typedef struct {
  const char *endpoint, *service, *ring_dir;
  const char *hdr_args[OTEL_MAX_HEADERS];
  size_t nhdr;
  long long batch, retries, timeout, queue, interval;
  int once, interval_set, metrics, dry;
} otel_opts_t;

/* One option of otel's own into o.  Returns -1 when it is taken, else an
 * exit code. */
static int own_option(cli_input_t *in, int opt, otel_opts_t *o) {
  switch (opt) {
    case OPT_ENDPOINT:
      o->endpoint = optarg;
      break;
    case OPT_HEADER:
      if (o->nhdr == OTEL_MAX_HEADERS) {
        fprintf(stderr, "ipcstamp otel: more than %d --header\n",
                OTEL_MAX_HEADERS);
        return CLI_EXIT_USAGE;
      }
      o->hdr_args[o->nhdr++] = optarg;
      break;
    case OPT_SERVICE:
      o->service = optarg;
      break;
    case OPT_BATCH:
      if (cli_count(optarg, 1000000, &o->batch) < 0 || o->batch == 0)
        return cli_bad_value(in, "--batch takes a count of spans from 1 "
                                 "to 1000000", optarg);
      break;
    case OPT_RETRIES:
      if (cli_count(optarg, 100, &o->retries) < 0)
        return cli_bad_value(in, "--retries takes a count up to 100",
                             optarg);
      break;
    case OPT_TIMEOUT:
      if (cli_count(optarg, 3600000, &o->timeout) < 0 || o->timeout == 0)
        return cli_bad_value(in, "--timeout takes milliseconds from 1 to "
                                 "3600000", optarg);
      break;
    case OPT_QUEUE:
      if (cli_count(optarg, 100000, &o->queue) < 0 || o->queue == 0)
        return cli_bad_value(in, "--queue takes a count of batches from 1 "
                                 "to 100000", optarg);
      break;
    case OPT_DRY:
      o->dry = 1;
      break;
    case OPT_INTERVAL:
      if (cli_ring_interval("otel", optarg, 10, &o->interval) != 0)
        return CLI_EXIT_USAGE;
      o->interval_set = 1;
      break;
    case OPT_ONCE:
      o->once = 1;
      break;
    case OPT_METRICS:
      o->metrics = 1;
      break;
  }
  return -1;
}

/* The command line into in and o.  Returns -1 to go on, else an exit
 * code. */
static int parse_options(cli_input_t *in, otel_opts_t *o, int argc,
                         char **argv) {
  static const struct option opts[] = {
      CLI_INPUT_OPTIONS,
      CLI_OS_OPTION,
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
  int opt, rc;
  o->batch = 512;
  o->retries = 5;
  o->timeout = 10000;
  o->queue = 16;
  o->interval = 100;
  cli_input_init(in, "ipcstamp otel", usage_text);
  if (timeout_env(&o->timeout) < 0)
    return CLI_EXIT_USAGE;
  while ((opt = cli_next_option(in, argc, argv, "h", opts, &rc)) != -1) {
    int r = own_option(in, opt, o);
    if (r >= 0)
      return r;
  }
  if (rc >= 0)
    return rc;
  return -1;
}

/* The input: --ring DIR or a slogfile, and the options that go with each.
 * Returns -1 to go on, else an exit code. */
static int check_input(cli_input_t *in, otel_opts_t *o, int argc,
                       char **argv) {
  o->ring_dir = in->ring;
  if (o->ring_dir) {
    /* The rings are the input: no slogfile, nor its options. */
    if (optind < argc) {
      fprintf(stderr, "ipcstamp otel: --ring DIR takes no slogfile (got "
                      "'%s')\n", argv[optind]);
      return CLI_EXIT_USAGE;
    }
    if (in->src.follow) {
      fprintf(stderr, "ipcstamp otel: --ring follows the rings already; "
                      "--follow is for a slogfile\n");
      return CLI_EXIT_USAGE;
    }
    /* The rings' deliveries go out as they are joined, not through an
     * analysis: a filter would be silently ignored, so it is refused. */
    if (cli_filters_given(in)) {
      fprintf(stderr, "ipcstamp otel: --vat, --method, --over, --since, "
                      "--until, --crank and --limit choose among a "
                      "slogfile's deliveries; --ring sends every one the "
                      "rings give\n");
      return CLI_EXIT_USAGE;
    }
  } else if (o->interval_set || o->once) {
    fprintf(stderr, "ipcstamp otel: --interval and --once go with --ring\n");
    return CLI_EXIT_USAGE;
  } else if (cli_input_path(in, argc, argv) < 0) {
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* The headers of the variables named (those set), then of --header, into
 * t.  Returns -1 with err set. */
static int add_headers(otel_target_t *t, const char *var1, const char *var2,
                       const otel_opts_t *o, char *err, size_t errlen) {
  const char *e;
  size_t i;
  if ((e = getenv(var1)) && otel_target_headers(t, e, var1, err, errlen) < 0)
    return -1;
  if ((e = getenv(var2)) && otel_target_headers(t, e, var2, err, errlen) < 0)
    return -1;
  for (i = 0; i < o->nhdr; i++)
    if (otel_target_header(t, o->hdr_args[i], err, errlen) < 0)
      return -1;
  return 0;
}

/* Where to, in the SDKs' order: the environment, then the options; and
 * the service's name and the resource's attributes.  Returns -1 with err
 * set. */
static int targets(otel_opts_t *o, otel_target_t *target,
                   otel_target_t *mtarget, otel_attrs_t *env_attrs, char *err,
                   size_t errlen) {
  const char *e;
  if (otel_target_url(target, o->endpoint, err, errlen) < 0)
    return -1;
  if (o->metrics &&
      (otel_target_url_for(mtarget, o->endpoint, "metrics", err, errlen) < 0 ||
       add_headers(mtarget, "OTEL_EXPORTER_OTLP_HEADERS",
                   "OTEL_EXPORTER_OTLP_METRICS_HEADERS", o, err, errlen) < 0))
    return -1;
  if (add_headers(target, "OTEL_EXPORTER_OTLP_HEADERS",
                  "OTEL_EXPORTER_OTLP_TRACES_HEADERS", o, err, errlen) < 0)
    return -1;
  /* The specification: a value with any error is discarded whole and the
   * error reported; the export goes on without it. */
  if ((e = getenv("OTEL_RESOURCE_ATTRIBUTES")) &&
      otel_attrs_parse(env_attrs, e, "OTEL_RESOURCE_ATTRIBUTES", err,
                       errlen) < 0)
    fprintf(stderr, "ipcstamp otel: %s; the variable is ignored, as the "
                    "OpenTelemetry specification says\n", err);
  if (!o->service && (e = getenv("OTEL_SERVICE_NAME")) && *e)
    o->service = e;
  if (!o->service)
    o->service = otel_attrs_get(env_attrs, "service.name");
  if (!o->service)
    o->service = "ipcstamp";
  return 0;
}

/* The export's state in c: the resource, the batch, the queue, the
 * metrics and the senders.  Returns -1 to go on, else an exit code (said). */
static int start(otel_cmd_t *c, const otel_opts_t *o, const cli_input_t *in,
                 const otel_attrs_t *env_attrs, otel_target_t *target,
                 otel_target_t *mtarget, char **res) {
  char err[512], host[256];
  const char *slash;
  otel_send_options_t so;
  if (gethostname(host, sizeof host) < 0)
    host[0] = '\0';
  host[sizeof host - 1] = '\0';
  slash = o->ring_dir ? NULL : strrchr(in->path, '/');
  *res = otlp_resource(o->service, host[0] ? host : NULL,
                       o->ring_dir ? NULL : slash ? slash + 1 : in->path,
                       env_attrs);
  if (!*res || otlp_req_init(&c->req, *res) < 0)
    goto oom;
  c->res = *res;
  if (o->metrics && !(c->metrics = otel_metrics_new()))
    goto oom;
  c->batch = (size_t)o->batch;
  c->follow = in->src.follow || o->ring_dir;
  c->qmax = c->follow ? (size_t)o->queue : 1;
  c->q = calloc(c->qmax, sizeof *c->q);
  if (!c->q)
    goto oom;
  if (c->dry)
    return -1;
  so.target = target;
  so.retries = (unsigned)o->retries;
  so.timeout_ms = (long)o->timeout;
  so.backoff_ms = 200;
  so.max_backoff_ms = 30000;
  so.stop = cli_stop_flag();
  if (!(c->snd = otel_sender_new(&so, err, sizeof err)))
    goto bad_sender;
  so.target = mtarget;
  if (o->metrics && !(c->msnd = otel_sender_new(&so, err, sizeof err)))
    goto bad_sender;
  return -1;
bad_sender:
  fprintf(stderr, "ipcstamp otel: %s\n", err);
  return CLI_EXIT_SEND;
oom:
  fprintf(stderr, "ipcstamp otel: out of memory\n");
  return CLI_EXIT_IO;
}

/* A slogfile through the analysis, each delivery into the export. */
static int export_file(otel_cmd_t *c, cli_input_t *in) {
  in->an.on_delivery = otel_export_on_delivery;
  in->an.arg = c;
  in->keep_causes = 1; /* the kinds and causes, for the spans' names and links */
  if (c->follow) {
    in->on_idle = otel_export_on_idle;
    in->idle_arg = c;
  }
  return cli_analyze(in, &c->a);
}

/* What was sent and what was not, on stderr. */
static void say_sent(const otel_cmd_t *c, const otel_target_t *target,
                     const otel_target_t *mtarget) {
  fprintf(stderr, "ipcstamp otel: %llu spans sent in %llu requests to %s",
          (unsigned long long)c->sent, (unsigned long long)c->requests,
          target->url);
  if (c->dropped)
    fprintf(stderr, ", %llu dropped (the queue was full)",
            (unsigned long long)c->dropped);
  if (c->unsent)
    fprintf(stderr, ", %llu not sent", (unsigned long long)c->unsent);
  if (c->rejected)
    fprintf(stderr, ", %llu rejected by the receiver",
            (unsigned long long)c->rejected);
  fputc('\n', stderr);
  if (c->metrics)
    fprintf(stderr, "ipcstamp otel: %llu metric points sent to %s (%llu "
                    "requests, %llu failed)\n",
            (unsigned long long)c->metric_points, mtarget->url,
            (unsigned long long)c->metric_requests,
            (unsigned long long)c->metric_failed);
}

/* --ring: what the rings gave, on stderr. */
static void say_rings(const otel_cmd_t *c) {
  const ips_ring_join_counts_t rcn = c->ring_counts;
  fprintf(stderr, "ipcstamp otel: %llu deliveries from the rings",
          (unsigned long long)rcn.joined);
  if (rcn.unjoined)
    fprintf(stderr, ", %llu attributed by the parent but not exported "
                    "(their stamps incomplete in the rings)",
            (unsigned long long)rcn.unjoined);
  if (c->ring_lost)
    fprintf(stderr, ", %llu ring events lost (a reader was lapped)",
            (unsigned long long)c->ring_lost);
  if (rcn.marks_dropped)
    fprintf(stderr, ", %llu VM marks not exported (malformed, outside "
                    "their delivery, or past the bounds)",
            (unsigned long long)rcn.marks_dropped);
  if (c->ring_bad)
    fprintf(stderr, ", %llu ring%s not read (said above)",
            (unsigned long long)c->ring_bad, c->ring_bad == 1 ? "" : "s");
  fputc('\n', stderr);
}

/* The export has ended (rc its input's exit code): the last batch goes,
 * the counts are said.  Returns the command's exit code. */
static int finish(otel_cmd_t *c, const otel_target_t *target,
                  const otel_target_t *mtarget, int rc) {
  if (!c->failed) {
    otel_export_seal(c);
    otel_export_drain(c, 1);
    otel_export_metrics(c, c->a ? ips_analysis_stats(c->a) : NULL, 1);
  } else {
    c->unsent += c->req.nspans;
  }
  if (c->oom) {
    fprintf(stderr, "ipcstamp otel: out of memory: some spans were not "
                    "sent\n");
    rc = CLI_EXIT_IO;
  }
  if (c->dry) {
    if (cli_stdout_close("otel") != 0)
      rc = CLI_EXIT_IO;
  } else {
    say_sent(c, target, mtarget);
  }
  if (otel_metrics_saturated(c->metrics)) {
    /* Said, and bad input: a sum at the bound is not a measure. */
    fprintf(stderr, "ipcstamp otel: %llu metric sums passed the range of 64 "
                    "bits and are sent at the bound\n",
            (unsigned long long)otel_metrics_saturated(c->metrics));
    if (rc == CLI_EXIT_OK)
      rc = CLI_EXIT_INPUT;
  }
  if (c->rings) {
    say_rings(c);
    if (c->ring_bad && rc == CLI_EXIT_OK)
      rc = CLI_EXIT_INPUT;
  }
  if (!c->dry) {
    if (c->failed || c->unsent || c->dropped || c->rejected ||
        (c->metrics && c->metric_failed && !c->metric_points))
      rc = CLI_EXIT_SEND;
  }
  return rc;
}

int cmd_otel(int argc, char **argv) {
  cli_input_t in;
  otel_cmd_t c;
  otel_opts_t o;
  otel_target_t target, mtarget;
  otel_attrs_t env_attrs;
  char err[512], *res = NULL;
  size_t i;
  int rc;

  memset(&c, 0, sizeof c);
  memset(&o, 0, sizeof o);
  memset(&env_attrs, 0, sizeof env_attrs);
  memset(&target, 0, sizeof target);
  memset(&mtarget, 0, sizeof mtarget);
  if ((rc = parse_options(&in, &o, argc, argv)) >= 0 ||
      (rc = check_input(&in, &o, argc, argv)) >= 0)
    return rc;
  c.dry = o.dry;
  if (targets(&o, &target, &mtarget, &env_attrs, err, sizeof err) < 0) {
    fprintf(stderr, "ipcstamp otel: %s\n", err);
    rc = CLI_EXIT_USAGE;
  } else if ((rc = start(&c, &o, &in, &env_attrs, &target, &mtarget,
                         &res)) < 0) {
    if (o.ring_dir)
      rc = otel_export_rings(&c, o.ring_dir, o.interval, o.once);
    else
      rc = export_file(&c, &in);
    rc = finish(&c, &target, &mtarget, rc);
  }
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
  ips_analysis_free(c.a);
  return rc;
}
