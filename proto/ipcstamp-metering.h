/* ipcstamp-metering.h — the metering schema, defined once (libc only).
 *
 * The metering is the JSON object a worker sends before each result (the
 * "." reply, docs/protocol.md) and the parent embeds in the slogfile's
 * deliver-result.  Its writer (proto/metering.c) and its one decoder
 * (proto/meter.h: the exact form in meter_fast.c, yajl in meter_read.c,
 * the writer's rules in meter_check.c), which the parent and the analysis
 * both read it with, take the keys from here, as they take the
 * slogfile's from ipcstamp-slog.h: a new key is one line here and the
 * code that uses it.
 * docs/protocol.md ("Metering") is the prose for the same thing.
 *
 * Contract:
 * - xsnap's own keys come first ("compute", "allocate", any other VM
 *   counter), then IPS_MK_TIMESTAMPS (the worker's wall stamps, seconds),
 *   then IPS_MK_IPCSTAMP, an object with ipcstamp's own keys in the order
 *   IPS_METERING_FIELDS lists them.  A reader that knows xsnap's form only
 *   reads "timestamps" and ignores "ipcstamp".
 * - ipcstamp.v is IPS_METERING_VERSION (1) or, with "marks",
 *   IPS_METERING_VERSION_MARKS (2) (ipcstamp-proto.h); a reader refuses a
 *   version above IPS_METERING_VERSION_MAX.
 * - Nothing here allocates or needs linking: string macros and a list.
 */
#ifndef IPCSTAMP_METERING_H
#define IPCSTAMP_METERING_H

#include "ipcstamp-proto.h"

/* The top level. */
#define IPS_MK_COMPUTE "compute"       /* xsnap's VM counter */
#define IPS_MK_ALLOCATE "allocate"     /* xsnap's VM counter */
#define IPS_MK_METER_TYPE "meterType"  /* xsnap's name for its meter: its
                                          timestamps are then xsnap's own */
#define IPS_MK_TIMESTAMPS "timestamps" /* [wall seconds, ...]: d (u r)* e */
#define IPS_MK_IPCSTAMP "ipcstamp"     /* ipcstamp's own object */

/* In "ipcstamp". */
#define IPS_MK_V "v"                   /* the metering version */
#define IPS_MK_KINDS "kinds"           /* "d(ur)*e", one letter per stamp */
#define IPS_MK_MONO "mono"             /* [mono ns, ...], one per stamp */
#define IPS_MK_DROPPED "dropped"       /* stamps (or, in marks, marks) lost */
#define IPS_MK_CPU_NS "cpu_ns"         /* the worker's CPU time, optional */
#define IPS_MK_RUN_DELAY_NS "run_delay_ns" /* [ns, ...], one per stamp,
                                              optional (run-queue delay) */
#define IPS_MK_MARKS "marks"           /* v2: the VM's marks, below */

/* In "marks" (v2). */
#define IPS_MK_NAMES "names"           /* [name, ...] */
#define IPS_MK_EVENTS "events"         /* [[kind, name index, wall, mono]] */
#define IPS_MK_UNBALANCED "unbalanced" /* span ends without a begin, and
                                          begins never ended */

/* X(key, where, required), in the order the writer writes them: where is
 * 't' (top level), 'i' (in "ipcstamp") or 'm' (in "marks"). */
#define IPS_METERING_FIELDS(X)                                               \
  X(IPS_MK_TIMESTAMPS, 't', 1)                                               \
  X(IPS_MK_IPCSTAMP, 't', 0)                                                 \
  X(IPS_MK_V, 'i', 1)                                                        \
  X(IPS_MK_KINDS, 'i', 1)                                                    \
  X(IPS_MK_MONO, 'i', 1)                                                     \
  X(IPS_MK_DROPPED, 'i', 1)                                                  \
  X(IPS_MK_CPU_NS, 'i', 0)                                                   \
  X(IPS_MK_RUN_DELAY_NS, 'i', 0)                                             \
  X(IPS_MK_MARKS, 'i', 0)                                                    \
  X(IPS_MK_NAMES, 'm', 1)                                                    \
  X(IPS_MK_EVENTS, 'm', 1)                                                   \
  X(IPS_MK_DROPPED, 'm', 1)                                                  \
  X(IPS_MK_UNBALANCED, 'm', 1)

#endif
