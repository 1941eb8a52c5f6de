/* attribution.c — the formula and the segment walk (attribution.h).
 * libc only: the parent and the analysis both compile it in. */
#include "config.h"

#include "attribution.h"

/* *a += b; 1 when that overflows. */
static int add_ovf(int64_t *a, int64_t b) {
  return __builtin_add_overflow(*a, b, a);
}

/* *a -= b; 1 when that overflows. */
static int sub_ovf(int64_t *a, int64_t b) {
  return __builtin_sub_overflow(*a, b, a);
}

/* Truncated: known are the transits and the worker's runs up to the last
 * stamped reply, and every syscall's kernel time (the kernel stamped them
 * all); unmatched is the rest: the worker's runs and the transits after
 * its stamps ran out. */
static int attribute_truncated(const ips__attr_in_t *in, ips__attr_out_t *o) {
  const int64_t *P = in->P, *W = in->W;
  size_t n = in->n_up, m = n - in->n_unmatched, i;
  int ovf = 0;
  for (i = 0; i < n && !ovf; i++) {
    ovf = add_ovf(&o->kernel, P[2 + 2 * i] - P[1 + 2 * i]);
    if (i < m)
      ovf = ovf || add_ovf(&o->pipe, P[1 + 2 * i] - W[1 + 2 * i]) ||
            add_ovf(&o->pipe, W[2 + 2 * i] - P[2 + 2 * i]) ||
            add_ovf(&o->worker, W[2 * i + 1] - W[2 * i]);
  }
  o->unmatched = o->total;
  ovf = ovf || sub_ovf(&o->unmatched, o->pipe) ||
        sub_ovf(&o->unmatched, o->worker) || sub_ovf(&o->unmatched, o->kernel);
  return ovf ? -1 : 0;
}

/* A replay at the cap: the worker's runs up to its last reply are exact,
 * the kernel is its records', and unmatched the rest (its waits, and
 * from its last reply to E). */
static int attribute_replay_cap(const ips__attr_in_t *in, ips__attr_out_t *o) {
  const int64_t *W = in->W;
  size_t n = in->n_up, i;
  int ovf = 0;
  o->kernel = in->kernel_recorded;
  for (i = 0; i < n && !ovf; i++)
    ovf = add_ovf(&o->worker, W[2 * i + 1] - W[2 * i]);
  o->unmatched = o->total;
  ovf = ovf || sub_ovf(&o->unmatched, o->pipe) ||
        sub_ovf(&o->unmatched, o->worker) || sub_ovf(&o->unmatched, o->kernel);
  return ovf ? -1 : 0;
}

int ips__attr_in_range(const int64_t *x, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (x[i] <= -IPS__ATTR_LIMIT || x[i] >= IPS__ATTR_LIMIT)
      return 0;
  return 1;
}

int ips__attribute(const ips__attr_in_t *in, ips__attr_out_t *o) {
  const int64_t *P = in->P, *W = in->W;
  size_t n = in->n_up, last = 1 + 2 * n, i;
  int ovf;
  /* Each difference is of two stamps in (-2^62, 2^62): it cannot
   * overflow; the sums can, on hostile input. */
  o->total = P[last] - P[0];
  o->pipe = W[0] - P[0];
  o->worker = o->kernel = o->unmatched = 0;
  if (ips__attr_replay_cap(in))
    return attribute_replay_cap(in, o);
  if (in->truncated)
    return attribute_truncated(in, o);
  ovf = add_ovf(&o->pipe, P[last] - W[last]);
  if (in->n_unmatched) {
    /* Replay: what the worker waited on its upcalls, less the kernel's
     * recorded part. */
    o->kernel = in->kernel_recorded;
    ovf = ovf || sub_ovf(&o->unmatched, in->kernel_recorded);
    for (i = 0; i < n && !ovf; i++)
      ovf = add_ovf(&o->unmatched, W[2 + 2 * i] - W[1 + 2 * i]);
  } else {
    for (i = 0; i < n && !ovf; i++)
      ovf = add_ovf(&o->pipe, P[1 + 2 * i] - W[1 + 2 * i]) ||
            add_ovf(&o->pipe, W[2 + 2 * i] - P[2 + 2 * i]) ||
            add_ovf(&o->kernel, P[2 + 2 * i] - P[1 + 2 * i]);
  }
  for (i = 0; i <= n && !ovf; i++)
    ovf = add_ovf(&o->worker, W[2 * i + 1] - W[2 * i]);
  return ovf ? -1 : 0;
}

size_t ips__attr_nsegments(const ips__attr_in_t *in) {
  if (ips__attr_replay_cap(in))
    return 2 + 2 * in->n_up;
  if (in->truncated) /* send, 4 per stamped upcall, 2 per other, the rest */
    return 2 + 4 * (in->n_up - in->n_unmatched) + 2 * in->n_unmatched;
  return in->n_unmatched ? 3 + 2 * in->n_up : 3 + 4 * in->n_up;
}

static const char *const seg_names[IPS__SEG_N] = {
    "send", "worker", "upcall", "kernel", "reply", "result", "unmatched"};

const char *ips__attr_seg_name(int kind) {
  return kind >= 0 && kind < IPS__SEG_N ? seg_names[kind] : "?";
}

/* Truncated: after the stamped upcalls, per other upcall the time up to
 * its arrival at the kernel (unmatched) and the kernel's (exact); then the
 * time from the last syscall's result to E (unmatched). */
static int64_t truncated_segment(const ips__attr_in_t *in, size_t j,
                                 int *kind) {
  size_t m = in->n_up - in->n_unmatched, t = j - 1 - 4 * m, i = m + t / 2;
  const int64_t *P = in->P, *W = in->W;
  if (i >= in->n_up) {
    *kind = IPS__SEG_UNMATCHED;
    return P[1 + 2 * in->n_up] - P[2 * in->n_up];
  }
  if (t % 2 == 0) {
    *kind = IPS__SEG_UNMATCHED;
    return P[2 * i + 1] - (i == m ? W[2 * m] : P[2 * i]);
  }
  *kind = IPS__SEG_KERNEL;
  return P[2 * i + 2] - P[2 * i + 1];
}

/* The walk itself; inlined into both ways of calling it. */
static inline int64_t segment(const ips__attr_in_t *in, size_t ns, size_t j,
                              int *kind) {
  const int64_t *P = in->P, *W = in->W;
  size_t last = 1 + 2 * in->n_up, i;
  if (j == 0) {
    *kind = IPS__SEG_SEND;
    return W[0] - P[0];
  }
  if (ips__attr_replay_cap(in)) { /* worker, unmatched per upcall; the rest */
    i = (j - 1) / 2;
    if (j == ns - 1) {
      *kind = IPS__SEG_UNMATCHED;
      return P[last] - W[2 * in->n_up];
    }
    if ((j - 1) % 2 == 0) {
      *kind = IPS__SEG_WORKER;
      return W[2 * i + 1] - W[2 * i];
    }
    *kind = IPS__SEG_UNMATCHED;
    return W[2 * i + 2] - W[2 * i + 1];
  }
  if (in->truncated && j > 4 * (in->n_up - in->n_unmatched))
    return truncated_segment(in, j, kind);
  if (j == ns - 1) {
    *kind = IPS__SEG_RESULT;
    return P[last] - W[last];
  }
  if (in->n_unmatched && !in->truncated) { /* worker, unmatched per upcall */
    i = (j - 1) / 2;
    if ((j - 1) % 2 == 0) {
      *kind = IPS__SEG_WORKER;
      return W[2 * i + 1] - W[2 * i];
    }
    *kind = IPS__SEG_UNMATCHED;
    return W[2 * i + 2] - W[2 * i + 1];
  }
  i = (j - 1) / 4; /* upcall number; the worker run before it */
  switch ((j - 1) % 4) {
    case 0:
      *kind = IPS__SEG_WORKER;
      return W[2 * i + 1] - W[2 * i];
    case 1:
      *kind = IPS__SEG_UPCALL;
      return P[2 * i + 1] - W[2 * i + 1];
    case 2:
      *kind = IPS__SEG_KERNEL;
      return P[2 * i + 2] - P[2 * i + 1];
    default:
      *kind = IPS__SEG_REPLY;
      return W[2 * i + 2] - P[2 * i + 2];
  }
}

int64_t ips__attr_segment(const ips__attr_in_t *in, size_t j, int *kind) {
  return segment(in, ips__attr_nsegments(in), j, kind);
}

/* Every upcall matched, the walk steps through the upcalls instead of
 * working out each segment's place: a report writes some 600,000. */
static size_t matched_segments(const ips__attr_in_t *in, size_t from,
                               size_t cap, int64_t *len,
                               unsigned char *kind) {
  const int64_t *P = in->P, *W = in->W;
  size_t n = in->n_up, ns = 3 + 4 * n, j = from, end, got = 0, i, ph;
  end = ns - from < cap ? ns : from + cap;
  if (j == 0 && j < end) {
    len[got] = W[0] - P[0];
    kind[got++] = IPS__SEG_SEND;
    j++;
  }
  i = (j - 1) / 4;
  ph = (j - 1) % 4;
  for (; ph == 0 && j + 4 <= end && j + 4 <= ns - 2; j += 4, i++) {
    len[got] = W[2 * i + 1] - W[2 * i];
    len[got + 1] = P[2 * i + 1] - W[2 * i + 1];
    len[got + 2] = P[2 * i + 2] - P[2 * i + 1];
    len[got + 3] = W[2 * i + 2] - P[2 * i + 2];
    kind[got] = IPS__SEG_WORKER;
    kind[got + 1] = IPS__SEG_UPCALL;
    kind[got + 2] = IPS__SEG_KERNEL;
    kind[got + 3] = IPS__SEG_REPLY;
    got += 4;
  }
  for (; j < end && j < ns - 2; j++) {
    switch (ph) {
      case 0: len[got] = W[2 * i + 1] - W[2 * i]; kind[got] = IPS__SEG_WORKER; break;
      case 1: len[got] = P[2 * i + 1] - W[2 * i + 1]; kind[got] = IPS__SEG_UPCALL; break;
      case 2: len[got] = P[2 * i + 2] - P[2 * i + 1]; kind[got] = IPS__SEG_KERNEL; break;
      default: len[got] = W[2 * i + 2] - P[2 * i + 2]; kind[got] = IPS__SEG_REPLY; break;
    }
    got++;
    if (++ph == 4) {
      ph = 0;
      i++;
    }
  }
  if (j == ns - 2 && j < end) {
    len[got] = W[2 * n + 1] - W[2 * n];
    kind[got++] = IPS__SEG_WORKER;
    j++;
  }
  if (j == ns - 1 && j < end) {
    len[got] = P[2 * n + 1] - W[2 * n + 1];
    kind[got++] = IPS__SEG_RESULT;
  }
  return got;
}

size_t ips__attr_segments(const ips__attr_in_t *in, size_t from, size_t cap,
                          int64_t *len, unsigned char *kind) {
  size_t ns = ips__attr_nsegments(in), j;
  int k;
  if (from >= ns)
    return 0;
  if (!in->n_unmatched && !in->truncated)
    return matched_segments(in, from, cap, len, kind);
  for (j = 0; j < cap && from + j < ns; j++) {
    len[j] = segment(in, ns, from + j, &k);
    kind[j] = (unsigned char)k;
  }
  return j;
}

size_t ips__attr_stamped(const ips__attr_in_t *in) {
  if (ips__attr_replay_cap(in))
    return in->n_up;
  return in->n_up - (in->truncated ? in->n_unmatched : 0);
}

int64_t ips__attr_upcall_wait(const ips__attr_in_t *in, size_t i) {
  return in->W[2 + 2 * i] - in->W[1 + 2 * i];
}
