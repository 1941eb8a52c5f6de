/* result.h — one deliver-result on its way through the attribution's
 * stages (internal to libipcstamp-analyze).
 *
 * ips__on_result (attribute.c) runs the stages in order; each either hands
 * the result on or skips the delivery with the reason.  validate, align
 * and attribute are in attribute.c; the clock and offset stage, the
 * largest, is clock_offset.c; annotate is annotate.c.  This header is the
 * state they pass along and the two stages that live in other files.
 */
#ifndef IPCSTAMP_ANALYZE_RESULT_H
#define IPCSTAMP_ANALYZE_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "vat.h"

/* One result on its way through the stages. */
typedef struct {
  const ips__rec_t *r;
  long line;            /* the result's line */
  ips__pst_t E;
  size_t nrec;          /* the kernel's upcall records */
  size_t n;             /* upcalls attributed (the worker's, on replay) */
  size_t k;             /* stamps per side: 2 + 2n */
  size_t nw;            /* the worker's stamps in the metering */
  size_t m;             /* truncated: the upcalls the worker stamped */
  int have_ww, have_wm; /* the worker's wall stamps, its mono ones */
  int have_pm;          /* the parent's stamps are on its mono clock */
  int unmatched, truncated;
  int64_t kernel_recorded; /* unmatched: the kernel's R - U, summed */
  int kovf;                /* ... and that sum overflowed */
  int has_pq, has_wq;   /* a->PQ, a->WQ hold run-queue delays */
  int use_wall;         /* clock 'w': the worker's wall stamps were moved */
  int64_t off;          /* ... by this offset */
  char d[160];          /* a skip's detail */
} res_t;

/* Stage 3 (clock_offset.c): both sides of the delivery on one clock, in
 * a->P and a->W, and dv's clock, offset and bound set.  Returns 0 to go
 * on; otherwise the delivery was skipped (ips__skip_of) and is done with. */
int ips__clock_offset(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                      ips_delivery_t *dv);

/* Stage 5 (annotate.c): what else is known of the attributed delivery dv:
 * its marks, CPU, timequake, offset mismatch, and the kernel's own time
 * since the delivery before (a->lastE).  Returns 0 to go on, or -1 when
 * its marks are bad (skipped). */
int ips__annotate(ips_analysis_t *a, ips__vat_t *v, res_t *c,
                  ips_delivery_t *dv);

#endif
