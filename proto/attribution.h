/* attribution.h — the formula of docs/report.md ("Formulas"): a
 * delivery's time split into pipe, worker and kernel from
 * the parent's stamps D (U R)* E and the worker's d (u r)* e, and the
 * segment walk that lays the same time out end to end.
 *
 * This is the only copy.  The analysis (analyze/attribute.c), the
 * parent's live-ring events (parent/ring.c) and, through
 * ips_delivery_segment() and its neighbours, every output call it.  It
 * depends on libc alone so that the parent, which must not link the
 * analysis library, can compile it in: it is listed in the sources of
 * both libraries (proto/local.mk says why), and its symbols stay hidden.
 *
 * Internal to ipcstamp; not installed.
 */
#ifndef IPCSTAMP_PROTO_ATTRIBUTION_H
#define IPCSTAMP_PROTO_ATTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

/* A delivery's two stamp lists, already on one clock (the worker's moved
 * by the offset estimate when the clocks differ), and how they pair up.
 * The caller owns P and W; nothing here keeps a pointer.
 *
 *   P[0] = D, P[2i+1] = U(i+1), P[2i+2] = R(i+1), P[1+2n] = E
 *   W[0] = d, W[2i+1] = u(i+1), W[2i+2] = r(i+1), W[1+2n] = e
 *
 * The three shapes (the same encoding as ips_delivery_t's fields):
 *   matched    n_unmatched 0, truncated 0: every upcall stamped on both
 *              sides.
 *   replay     n_unmatched = n_up, truncated 0: the worker's upcalls are
 *              not the kernel's records (a replayed vat's console lines
 *              have none), so the kernel's time is known only as the sum
 *              kernel_recorded of its records' R - U, and P[1..2n] mirror
 *              W[1..2n].
 *   truncated  truncated 1: the worker stamped only its first
 *              n_up - n_unmatched upcalls (xsnap's cap); W mirrors P after
 *              them, E included.
 *   replay at the cap  truncated 1 and n_unmatched = n_up: a replay whose
 *              worker kept xsnap's 502 stamps, possibly cut: its n_up
 *              upcalls are its own (as a replay's, P[1..2n] mirror W and
 *              the kernel is kernel_recorded), and W[1+2n] mirrors E (its
 *              last stamp may be e or another upcall's send). */
typedef struct ips__attr_in_s {
  const int64_t *P, *W;
  size_t n_up;
  size_t n_unmatched;
  int truncated;
  int64_t kernel_recorded; /* replay only */
  /* Waiting for a CPU (docs/report.md): per stamp, the stamping
   * thread's run-queue delay since its previous stamp, in ns, or -1 where
   * it was not measured; NULL when not at all.  PQ beside P (the parent's
   * at U and E are the ones used), WQ beside W (the worker's at d and r
   * split the pipe, at u and e its own time). */
  const int64_t *PQ, *WQ;
} ips__attr_in_t;

/* The figures; total = pipe + worker + kernel + unmatched, exactly. */
typedef struct ips__attr_out_s {
  int64_t total, pipe, worker, kernel;
  int64_t unmatched; /* replay: the worker's upcall time the kernel did not
                        record; truncated: the time after the worker's
                        stamps ran out that no stamp splits */
} ips__attr_out_t;

/* The pipe split by the receivers' waits for a CPU (ips__attr_wait):
 * pipe = wait + transit + unsplit, exactly; wait and transit over the
 * segments whose receiver measured its wait, unsplit the others'. */
typedef struct ips__attr_wait_s {
  int64_t wait, transit, unsplit;
  int64_t wait_worker;  /* of wait: the worker's (send, reply segments) */
  size_t split;         /* pipe segments split */
  int has_runnable;     /* the worker measured its own stretches */
  int64_t runnable;     /* its run-queue delay over its own time (u, e) */
} ips__attr_wait_t;

/* The stamps the formula takes: in (-2^62, 2^62), so that any difference
 * of two fits in an int64_t. */
#define IPS__ATTR_LIMIT ((int64_t)1 << 62)

/* Whether the n stamps at x are all within IPS__ATTR_LIMIT. */
int ips__attr_in_range(const int64_t *x, size_t n);

/* Fills *out from *in.  Each stamp must be in (-2^62, 2^62), so every
 * difference fits; the sums are checked.  Returns 0, or -1 when a sum
 * overflows (hostile input): *out is then not to be used. */
int ips__attribute(const ips__attr_in_t *in, ips__attr_out_t *out);

/* The segment walk: the delivery's time from D to E as consecutive
 * segments whose lengths add up to total.  Their names:
 *   matched    send, then per upcall worker, upcall, kernel, reply, then
 *              worker, result (3 + 4n);
 *   replay     send, then per upcall worker, unmatched, then worker,
 *              result (3 + 2n);
 *   truncated  send, per stamped upcall worker, upcall, kernel, reply;
 *              per other upcall unmatched, kernel; then unmatched (the
 *              rest, to E);
 *   replay at the cap  send, per upcall worker, unmatched, then unmatched
 *              (the rest, to E) (2 + 2n). */
size_t ips__attr_nsegments(const ips__attr_in_t *in);

/* The segments' kinds, in the order of their names' table. */
enum {
  IPS__SEG_SEND, IPS__SEG_WORKER, IPS__SEG_UPCALL, IPS__SEG_KERNEL,
  IPS__SEG_REPLY, IPS__SEG_RESULT, IPS__SEG_UNMATCHED, IPS__SEG_N
};
/* A kind's name (a static string; "?" for none). */
const char *ips__attr_seg_name(int kind);

/* Segment j's length in ns, j < ips__attr_nsegments(in); *kind gets its
 * kind. */
int64_t ips__attr_segment(const ips__attr_in_t *in, size_t j, int *kind);

/* Segments from, from + 1, ... up to cap of them and the last, into
 * len[] and kind[]: returns how many.  One call for a run of segments,
 * for the outputs that write them all. */
size_t ips__attr_segments(const ips__attr_in_t *in, size_t from, size_t cap,
                          int64_t *len, unsigned char *kind);

/* Segment j's waiting for a CPU (len and kind: ips__attr_segment's): for
 * a pipe segment whose receiver measured its run-queue delay at its
 * receive stamp (d, r: the worker; U, E: the parent), that delay, at most
 * the segment (and 0 for a segment not above 0); -1 otherwise.  transit is
 * len minus it. */
int64_t ips__attr_seg_wait(const ips__attr_in_t *in, size_t j, int kind,
                           int64_t len);

/* The delivery's pipe split (ips__attr_wait_t), from in's PQ and WQ.
 * Returns 0, or -1 when a sum overflows (hostile input). */
int ips__attr_wait(const ips__attr_in_t *in, ips__attr_wait_t *out);

/* Whether the shape is a replay at xsnap's cap. */
static inline int ips__attr_replay_cap(const ips__attr_in_t *in) {
  return in->truncated && in->n_unmatched == in->n_up;
}

/* The upcalls the worker stamped, and upcall i's time as the worker waited
 * for it (r - u: upcall + kernel + reply), i below that count. */
size_t ips__attr_stamped(const ips__attr_in_t *in);
int64_t ips__attr_upcall_wait(const ips__attr_in_t *in, size_t i);

#endif
