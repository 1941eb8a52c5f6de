/* marks.h — a delivery's marks and spans (metering v2); internal
 * to libipcstamp-analyze. */
#ifndef IPCSTAMP_ANALYZE_MARKS_H
#define IPCSTAMP_ANALYZE_MARKS_H

#include "attribute.h"

/* Put r's marks on dv, on dv's clock (dv->W of k stamps already set; with
 * clock 'w', use_wall says whether W came from the wall stamps, and off is
 * the offset taken from them).  Returns NULL, or why the delivery must be
 * skipped (a mark outside d..e, a bad name index, out of memory). */
const char *ips__marks_build(ips_analysis_t *a, const ips__rec_t *r,
                             ips_delivery_t *dv, int use_wall, int64_t off,
                             size_t k);

/* Add dv's marks to the per-name totals (a delivery that counts). */
void ips__marks_count(ips_analysis_t *a, const ips_delivery_t *dv);

void ips__marks_free(ips_analysis_t *a);

#endif
