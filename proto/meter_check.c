/* meter_check.c — the writer's rules on a decoded metering (meter.h): what
 * the parent holds a worker's metering to before it uses the stamps.
 *
 * Apart from the decoding because the analysis does not apply them: a
 * slogfile's metering that breaks them (an unknown version, kinds that are
 * not d(ur)*e) is a delivery the analysis reports as skipped, with why,
 * not a line it refuses. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ipcstamp-metering.h"
#include "meter.h"

/* The message, placed as the decoder's are: at the byte where the
 * metering was known whole (its end). */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int bad(int rc, const ips__meter_t *m, char *err, size_t errsize,
               const char *fmt, ...) {
  va_list ap;
  size_t len;
  if (errsize) {
    len = (size_t)snprintf(err, errsize, "metering: ");
    if (len < errsize) {
      va_start(ap, fmt);
      vsnprintf(err + len, errsize - len, fmt, ap);
      va_end(ap);
    }
    len = strlen(err);
    snprintf(err + len, errsize - len, " at byte %zu", m->used);
  }
  return rc;
}

/* The stamp sequence a worker writes: d, then u/r pairs, then e. */
static int kinds_ok(const char *k, size_t n) {
  size_t i;
  if (n < 2 || n % 2 || k[0] != 'd' || k[n - 1] != 'e')
    return 0;
  for (i = 1; i + 1 < n; i++)
    if (k[i] != ((i & 1) ? 'u' : 'r'))
      return 0;
  return 1;
}

/* v2's marks: each event names one of the names and lies inside the
 * command's d..e on the worker's mono clock. */
static int marks_ok(const ips__meter_t *m, char *err, size_t errsize) {
  size_t i;
  for (i = 0; i < m->n_marks; i++) {
    const ips__mark_t *e = &m->marks[i];
    if (e->name >= m->n_mnames)
      return bad(IPS_EMETERING, m, err, errsize, "ipcstamp.marks.events[%zu] "
                 "names an index past the names", i);
    if (e->mono < m->mono[0] || e->mono > m->mono[m->n_mono - 1])
      return bad(IPS_EMETERING, m, err, errsize, "ipcstamp.marks.events[%zu] "
                 "lies outside the command's d..e", i);
  }
  return 0;
}

int ips__meter_check(const ips__meter_t *m, char *err, size_t errsize) {
  size_t i;
  if (errsize)
    err[0] = 0;
  for (i = 0; i < m->n_walls; i++)
    if (m->walls[i] < 0)
      return bad(IPS_EMETERING, m, err, errsize, "timestamps[%zu] is not a "
                 "non-negative number of seconds", i);
  if (!(m->have & IPS__M_IPC))
    return 0; /* xsnap's plain list: nothing more to hold it to */
  if (!(m->have & IPS__M_V))
    return bad(IPS_EMETERING, m, err, errsize, "ipcstamp.v is missing");
  if (m->v < IPS_METERING_VERSION || m->v > IPS_METERING_VERSION_MAX)
    return bad(IPS_EVERSION, m, err, errsize, "ipcstamp.v is %" PRId64 ": "
               "unknown version (this reader knows %d to %d)", m->v,
               IPS_METERING_VERSION, IPS_METERING_VERSION_MAX);
  if (!(m->have & IPS__M_KINDS) || !(m->have & IPS__M_MONO))
    return bad(IPS_EMETERING, m, err, errsize, "ipcstamp.%s is missing",
               (m->have & IPS__M_KINDS) ? IPS_MK_MONO : IPS_MK_KINDS);
  if (m->n_kinds != m->n_walls || m->n_mono != m->n_walls)
    return bad(IPS_EMETERING, m, err, errsize, "%zu timestamps but %zu kinds "
               "and %zu mono stamps", m->n_walls, m->n_kinds, m->n_mono);
  if (!kinds_ok(m->kinds, m->n_kinds))
    return bad(IPS_EMETERING, m, err, errsize, "ipcstamp.kinds \"%.40s\" is not "
               "d(ur)*e", m->kinds);
  for (i = 1; i < m->n_mono; i++)
    if (m->mono[i] < m->mono[i - 1])
      return bad(IPS_EMETERING, m, err, errsize, "ipcstamp.mono[%zu] goes "
                 "backwards", i);
  if (m->v == IPS_METERING_VERSION_MARKS && (m->have & IPS__M_MARKS))
    return marks_ok(m, err, errsize);
  return 0;
}
