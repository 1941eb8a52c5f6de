/* Worker options: defaults and the IPCSTAMP_* environment variables. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-ring.h"
#include "ipcstamp-worker.h"
#include "worker-int.h"

void ips_worker_options_init(ips_worker_options_t *o) {
  memset(o, 0, sizeof *o);
  o->fd_in = 3;
  o->fd_out = 4;
  o->max_frame = IPS_DEFAULT_MAX_FRAME;
  o->stamp_capacity = IPS_DEFAULT_STAMP_CAPACITY;
  o->max_meter_fields = IPS__WORKER_DEFAULT_FIELDS;
  o->read_size = IPS__WORKER_DEFAULT_READ;
  o->name = "ipcstamp-worker";
  o->tags = "?e";
  o->max_marks = IPS_DEFAULT_MAX_MARKS;
  o->max_mark_bytes = IPS_DEFAULT_MAX_MARK_BYTES;
}

/* A whole decimal number in [min, max]: digits only, so "1e6", " 5", "-1"
 * and "0x10" are refused rather than half-read by strtoul. */
static int parse_count(const char *s, uint64_t min, uint64_t max,
                       uint64_t *out) {
  uint64_t v = 0;
  if (*s == '\0') return IPS_EINVAL;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return IPS_EINVAL;
    v = v * 10 + (uint64_t)(*s - '0');
    if (v > max) return IPS_EINVAL;
  }
  if (v < min) return IPS_EINVAL;
  *out = v;
  return 0;
}

/* The variable name, when set and not empty: "1" sets flag in *flags,
 * "0" clears it; anything else is IPS_EINVAL with a message saying what
 * was expected. */
static int env_flag(const char *name, unsigned flag, const char *expected,
                    unsigned *flags, char *msg, size_t size) {
  const char *v = getenv(name);
  if (!v || !*v)
    return 0;
  if (strcmp(v, "1") == 0) {
    *flags |= flag;
  } else if (strcmp(v, "0") == 0) {
    *flags &= ~flag;
  } else {
    if (msg)
      snprintf(msg, size, "%s=\"%.40s\": expected %s", name, v, expected);
    return IPS_EINVAL;
  }
  return 0;
}

int ips_worker_options_env(ips_worker_options_t *o, char *msg, size_t size) {
  ips_worker_options_t n = *o;
  const char *v;
  uint64_t x;

  if (msg && size) msg[0] = '\0';
  v = getenv("IPCSTAMP_MAX_FRAME");
  if (v && *v) {
    if (parse_count(v, 1, IPS_NS_LEN_MAX, &x) != 0) {
      if (msg)
        snprintf(msg, size,
                 "IPCSTAMP_MAX_FRAME=\"%.40s\": expected a whole number of "
                 "bytes from 1 to %u",
                 v, IPS_NS_LEN_MAX);
      return IPS_EINVAL;
    }
    n.max_frame = (size_t)x;
  }
  v = getenv("IPCSTAMP_STAMP_CAPACITY");
  if (v && *v) {
    if (parse_count(v, 2, IPS__WORKER_MAX_STAMPS, &x) != 0) {
      if (msg)
        snprintf(msg, size,
                 "IPCSTAMP_STAMP_CAPACITY=\"%.40s\": expected a whole number "
                 "of stamps from 2 to %u",
                 v, IPS__WORKER_MAX_STAMPS);
      return IPS_EINVAL;
    }
    n.stamp_capacity = (uint32_t)x;
  }
  v = getenv("IPCSTAMP_MAX_MARKS");
  if (v && *v) {
    if (parse_count(v, 1, IPS_MAX_MARKS, &x) != 0) {
      if (msg)
        snprintf(msg, size,
                 "IPCSTAMP_MAX_MARKS=\"%.40s\": expected a whole number of "
                 "mark events per command from 1 to %u",
                 v, IPS_MAX_MARKS);
      return IPS_EINVAL;
    }
    n.max_marks = (uint32_t)x;
  }
  v = getenv("IPCSTAMP_MAX_MARK_BYTES");
  if (v && *v) {
    if (parse_count(v, 1, IPS_MAX_MARK_BYTES, &x) != 0) {
      if (msg)
        snprintf(msg, size,
                 "IPCSTAMP_MAX_MARK_BYTES=\"%.40s\": expected a whole number "
                 "of bytes of mark names from 1 to %u",
                 v, IPS_MAX_MARK_BYTES);
      return IPS_EINVAL;
    }
    n.max_mark_bytes = (size_t)x;
  }
  if (env_flag("IPCSTAMP_DISABLE", IPS_WORKER_NO_STAMPS, "1 (no stamps) or 0 "
               "(stamps)", &n.flags, msg, size) != 0)
    return IPS_EINVAL;
  /* Two CPU-clock system calls per command (about 0.4 us together, most
   * of an empty delivery's instrumentation: BENCHMARKS.md): asked for. */
  if (env_flag("IPCSTAMP_CPU_TIME", IPS_WORKER_CPU_TIME, "1 (add cpu_ns) or 0 "
               "(none)", &n.flags, msg, size) != 0)
    return IPS_EINVAL;
  /* A pread() of /proc per stamp (BENCHMARKS.md): asked for, like cpu_ns. */
  if (env_flag("IPCSTAMP_RUN_DELAY", IPS_WORKER_RUN_DELAY, "1 (add "
               "run_delay_ns) or 0 (none)", &n.flags, msg, size) != 0)
    return IPS_EINVAL;
  {
    ips_ring_options_t ro;
    ips_ring_options_init(&ro);
    ro.dir = n.ring_dir;
    if (n.ring_size) ro.size = n.ring_size;
    if (ips_ring_options_env(&ro, msg, size) != 0) return IPS_EINVAL;
    n.ring_dir = ro.dir;
    n.ring_size = ro.size;
    if (ro.vat) n.ring_vat = ro.vat;
  }
  *o = n;
  return 0;
}
