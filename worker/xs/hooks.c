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
/* Defined by dev.c in ipcstamp-worker-xs-dev only; absent (NULL) here. */
extern const char ips_xs_dev[] __attribute__((weak));
static void dev_command(void);
/* How `ipcstamp xsnap status|install` tells this binary from xsnap's. */
__attribute__((used)) static const char marker[] =
    "ipcstamp-worker-xs: xsnap-worker with ipcstamp " PACKAGE_VERSION "'s stamps";

/* The metering mode `ipcstamp xsnap install --metering` writes into the
 * copy it installs (tools/xsnap/binary.c finds the prefix; the 16 bytes
 * after it hold the mode, NUL-padded).  volatile: read as the file holds
 * it, never folded into the code. */
__attribute__((used)) static volatile char metering_slot[21 + 16] =
    "ipcstamp-xs-metering=ipcstamp";

static ips_worker_t w;
static int active;   /* the library is set up and stamping */
static int exact;    /* metering exactly xsnap's: stamps to the ring only */
static int command_spans; /* IPCSTAMP_XS_SPANS=1 */
static char *out;    /* the spliced prefix, grown to the largest needed */
static size_t out_cap;

/* IPCSTAMP_XS_METERING, else the installed mode: 1 for "xsnap".  An
 * unknown value is said and taken as "xsnap", the mode that changes
 * nothing the parent sees. */
static int metering_exact(void) {
  char slot[17];
  const char *v = getenv("IPCSTAMP_XS_METERING");
  size_t i;
  if (!v || !*v) {
    for (i = 0; i < 16; i++) slot[i] = metering_slot[21 + i];
    slot[16] = '\0';
    v = slot;
  }
  if (strcmp(v, "xsnap") == 0) return 1;
  if (strcmp(v, "ipcstamp") == 0) return 0;
  fprintf(stderr, "%s: IPCSTAMP_XS_METERING=\"%.40s\": expected ipcstamp or "
          "xsnap; the metering is xsnap's exactly\n", name, v);
  return 1;
}

/* The vat a SwingSet kernel names in the worker's arguments (its one
 * argument that is no option, "v12:bank" gives "v12"), for the ring
 * unless IPCSTAMP_VAT says: xsnap's name is not the program's. */
static const char *vat_arg(int argc, char **argv) {
  static char vat[16];
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    size_t n = 1;
    if (a[0] == '-' && a[1] && strchr("ilrs", a[1]) && !a[2]) {
      i++; /* the option's value */
      continue;
    }
    if (a[0] != 'v' || a[1] < '0' || a[1] > '9') continue;
    while (a[n] >= '0' && a[n] <= '9') n++;
    if ((a[n] == ':' || a[n] == '\0') && n < sizeof vat) {
      memcpy(vat, a, n);
      vat[n] = '\0';
      return vat;
    }
  }
  return NULL;
}

void ips_xs_start(int argc, char **argv) {
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
  /* Exact metering keeps the stamps in the live ring alone: without one
   * there is nothing to take them for. */
  if ((exact = metering_exact()) && (!o.ring_dir || !*o.ring_dir)) return;
  {
    const char *v = getenv("IPCSTAMP_XS_SPANS");
    if (v && strcmp(v, "1") == 0)
      command_spans = 1;
    else if (v && *v && strcmp(v, "0") != 0)
      fprintf(stderr, "%s: IPCSTAMP_XS_SPANS=\"%.40s\": expected 1 or 0; "
              "no spans of every delivery\n", name, v);
  }
  if (!o.ring_vat) o.ring_vat = vat_arg(argc, argv);
  o.flags |= IPS_WORKER_HOST_IO;
  rc = ips_worker_init(&w, &o);
  if (rc != 0) {
    fprintf(stderr, "%s: %s; running without ipcstamp's stamps\n", name,
            ips_worker_message(&w)[0] ? ips_worker_message(&w)
                                      : ips_strerror(rc));
    return;
  }
  active = 1;
  if (ips_xs_dev)
    fprintf(stderr, "%s\n", ips_xs_dev);
}

/* A clock that cannot be read stops the stamps, never the worker. */
static void check(int rc) {
  if (rc < 0 && ips_worker_failed(&w)) active = 0;
}

void ips_xs_command(char tag) {
  if (!active) return;
  if (strchr("?esmw", tag) && tag != '\0') {
    check(ips_worker_begin(&w, tag));
    if (ips_xs_dev) dev_command();
  } else
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
  if (!active || json == NULL || exact) return prefix;
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

void ips_xs_command_span(const char *span, int begin) {
  if (command_spans) ips_xs_span(span, begin);
}

/* ---- ipcstamp-worker-xs-dev only (dev.c defines ips_xs_dev) -------------
 * The marks of this command by name, for measure(); and the command's start.
 * In the chain build ips_xs_dev is absent and none of this runs. */
#define DEV_MARKS 256
static struct {
  char name[256];
  ips_stamp_t at;
} dev_marks[DEV_MARKS];
static unsigned dev_n;
static ips_stamp_t dev_start;

static void dev_command(void) {
  dev_n = 0;
  if (ips_clock_read(&dev_start) != 0) active = 0;
}

void ips_xs_mark(const char *mark) {
  ips_stamp_t s;
  size_t len = strlen(mark);
  if (!active || len == 0 || len > 255) return;
  if (ips_clock_read(&s) != 0) {
    active = 0;
    return;
  }
  check(ips_worker_mark_at(&w, 'm', mark, len, &s));
  if (dev_n < DEV_MARKS) {
    memcpy(dev_marks[dev_n].name, mark, len + 1);
    dev_marks[dev_n++].at = s;
  }
}

/* The latest mark named name in this command, into *s. */
static int find_mark(const char *mark, ips_stamp_t *s) {
  unsigned i;
  for (i = dev_n; i-- > 0;)
    if (strcmp(dev_marks[i].name, mark) == 0) {
      *s = dev_marks[i].at;
      return 1;
    }
  return 0;
}

int ips_xs_measure(const char *span, const char *start, const char *end) {
  ips_stamp_t s0 = dev_start, s1;
  size_t len = strlen(span);
  if (!active || len == 0 || len > 255) return 0;
  if (start && !find_mark(start, &s0)) return 1;
  if (end ? !find_mark(end, &s1) : ips_clock_read(&s1) != 0) return 2;
  check(ips_worker_mark_at(&w, 'b', span, len, &s0));
  check(ips_worker_mark_at(&w, 'e', span, len, &s1));
  return 0;
}
