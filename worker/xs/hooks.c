/* hooks.c — ipcstamp's stamps inside Agoric's xsnap-worker (docs/xsnap.md).
 *
 * xsnap keeps its own reader, writer, error messages and exit codes: the
 * calls of ipcstamp-xs.h only read clocks and, in ips_xs_okay(), add one
 * member to the metering JSON of a '.' reply.  So the VM computes exactly
 * what the vanilla worker computes (tests/interop/xs-consensus.test).  The
 * stamps go through libipcstamp-worker in its IPS_WORKER_HOST_IO mode. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-worker.h"
#include "ipcstamp-xs.h"

static const char name[] = "ipcstamp-worker-xs";
/* How `ipcstamp xsnap status|install` tells this binary from xsnap's. */
__attribute__((used)) static const char marker[] =
    "ipcstamp-worker-xs: xsnap-worker with ipcstamp " PACKAGE_VERSION "'s stamps";

static ips_worker_t w;
static int active;   /* the library is set up and stamping */
static char *out;    /* the spliced prefix, grown to the largest needed */
static size_t out_cap;

void ips_xs_start(void) {
  ips_worker_options_t o;
  char msg[256];
  int rc;

  ips_worker_options_init(&o);
  o.name = name;
  rc = ips_worker_options_env(&o, msg, sizeof msg);
  if (rc != 0) {
    fprintf(stderr, "%s: %s; running without ipcstamp's stamps\n", name, msg);
    return;
  }
  if (o.flags & IPS_WORKER_NO_STAMPS) return;
  o.flags |= IPS_WORKER_HOST_IO;
  rc = ips_worker_init(&w, &o);
  if (rc != 0) {
    fprintf(stderr, "%s: %s; running without ipcstamp's stamps\n", name,
            ips_worker_message(&w)[0] ? ips_worker_message(&w)
                                      : ips_strerror(rc));
    return;
  }
  active = 1;
}

/* A clock that cannot be read stops the stamps, never the worker. */
static void check(int rc) {
  if (rc < 0 && ips_worker_failed(&w)) active = 0;
}

void ips_xs_command(char tag) {
  if (!active) return;
  if (strchr("?esmw", tag) && tag != '\0')
    check(ips_worker_begin(&w, tag));
  else
    ips_worker_abandon(&w);
}

void ips_xs_stamp(char kind) {
  if (active) check(ips_worker_stamp(&w, kind));
}

char *ips_xs_okay(char *prefix) {
  const char *json;
  size_t plen, jlen, need;

  if (!active) return prefix;
  check(ips_worker_end(&w, NULL, &json, &jlen));
  if (!active || json == NULL) return prefix;
  plen = strlen(prefix);
  /* xsnap's prefix is ".{...}" + 0x01; anything else is left alone. */
  if (plen < 3 || prefix[0] != '.' || prefix[plen - 2] != '}' ||
      prefix[plen - 1] != '\x01')
    return prefix;
  need = plen + 1 + jlen + 1;
  if (need > out_cap) {
    char *p = realloc(out, need);
    if (p == NULL) return prefix; /* the stamps are lost, not the reply */
    out = p;
    out_cap = need;
  }
  memcpy(out, prefix, plen - 2);
  out[plen - 2] = ',';
  memcpy(out + plen - 1, json, jlen);
  memcpy(out + plen - 1 + jlen, "}\x01", 3);
  return out;
}

void ips_xs_span(const char *span, int begin) {
  if (active) check(ips_worker_mark_n(&w, begin ? 'b' : 'e', span, strlen(span)));
}
