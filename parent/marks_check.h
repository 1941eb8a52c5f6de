/* marks_check.h — checks of metering v2's marks (internal to the parent). */
#ifndef IPCSTAMP_PARENT_MARKS_CHECK_H
#define IPCSTAMP_PARENT_MARKS_CHECK_H

#include <stddef.h>

#include "ipcstamp-parent.h"

/* buf[0..n) is a metering that ips_metering_parse() accepted as v2 into m:
 * check its "ipcstamp.marks" against the worker library's bounds and form
 * (names of 1..255 bytes, at most IPS_MAX_MARKS names and events and
 * IPS_MAX_MARK_BYTES of names; events [kind, name index, wall, mono] with a
 * known kind, an index into the names and mono inside the command's d..e;
 * counts for dropped and unbalanced).  Returns 0, or IPS_EMETERING with a
 * message in err, or IPS_ENOMEM. */
int ips__marks_check(const char *buf, size_t n, const ips_metering_t *m,
                     char *err, size_t errsize);

#endif
