/* delivery.c — what the library says of a delivery it handed out
 * (ipcstamp-analyze.h): its segments and upcalls, by the formula's own
 * walk (proto/attribution.c), which every output uses. */
#include "config.h"

#include "attribution.h"
#include "ipcstamp-analyze.h"

/* The public segment walk: the formula's, on the delivery's stamps. */
static ips__attr_in_t attr_in(const ips_delivery_t *d) {
  ips__attr_in_t in;
  in.P = d->P;
  in.W = d->W;
  in.n_up = d->n_up;
  in.n_unmatched = d->n_unmatched;
  in.truncated = d->truncated;
  in.kernel_recorded = d->kernel;
  in.PQ = d->PQ;
  in.WQ = d->WQ;
  return in;
}

size_t ips_delivery_nsegments(const ips_delivery_t *d) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_nsegments(&in);
}

int64_t ips_delivery_segment(const ips_delivery_t *d, size_t j,
                             const char **name) {
  ips__attr_in_t in = attr_in(d);
  int kind;
  int64_t len = ips__attr_segment(&in, j, &kind);
  *name = ips__attr_seg_name(kind);
  return len;
}

/* The public kinds are the formula's. */
_Static_assert((int)IPS_SEG_N == (int)IPS__SEG_N &&
                   (int)IPS_SEG_UNMATCHED == (int)IPS__SEG_UNMATCHED &&
                   (int)IPS_SEG_RESULT == (int)IPS__SEG_RESULT,
               "segment kinds");

const char *ips_segment_name(int kind) { return ips__attr_seg_name(kind); }

size_t ips_delivery_segments(const ips_delivery_t *d, size_t from, size_t cap,
                             int64_t *len, unsigned char *kind) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_segments(&in, from, cap, len, kind);
}

size_t ips_delivery_stamped_upcalls(const ips_delivery_t *d) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_stamped(&in);
}

int64_t ips_delivery_upcall_wait(const ips_delivery_t *d, size_t i) {
  ips__attr_in_t in = attr_in(d);
  return ips__attr_upcall_wait(&in, i);
}

int64_t ips_delivery_segment_wait(const ips_delivery_t *d, size_t j) {
  ips__attr_in_t in = attr_in(d);
  int kind;
  int64_t len;
  if (j >= ips__attr_nsegments(&in))
    return -1;
  len = ips__attr_segment(&in, j, &kind);
  return ips__attr_seg_wait(&in, j, kind, len);
}
