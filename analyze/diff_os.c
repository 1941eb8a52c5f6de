/* diff_os.c — the operating system's parts of the same deliveries
 * compared across nodes (docs/diff.md, "With recordings: --os").
 *
 * Each node's analysis splits its deliveries with its own recording
 * (ips_analysis_os); the join copies the parts into the node's side, flat
 * (ips_diff_side_t.os), so that a delivery that waits in the window costs
 * no more than its numbers.  Then the slowest node's parts are set
 * against the fastest's, as the diff does for pipe, worker and kernel: the
 * part it is most over by names what made it slower there (disk? waiting
 * for a CPU?). */
#include "config.h"

#include <string.h>

#include "diff.h"

/* A thread's parts (of an ips_os_time_t) as the diff compares them, in
 * the order of IPS_DIFF_OS_WORKER's 8: X(name, member), name the part's
 * in "worker.name" and "os_worker_name_ns".  Both the names below and
 * time_parts' values come from it. */
#define TIME_PARTS(X)                                                      \
  X(on_cpu, on_cpu) X(steal, steal) X(uncharged, uncharged)                \
  X(cpu_wait, cpu_wait) X(disk, disk) X(page_fault, fault) X(sleep, sleep) \
  X(not_measured, not_measured)

static const char *const names[IPS_DIFF_OS_NPARTS][2] = {
    {"pipe.before_write", "os_pipe_before_write_ns"},
    {"pipe.write", "os_pipe_write_ns"},
    {"pipe.in_pipe", "os_pipe_in_pipe_ns"},
    {"pipe.sleep", "os_pipe_sleep_ns"},
    {"pipe.page_fault", "os_pipe_page_fault_ns"},
    {"pipe.cpu_wait", "os_pipe_cpu_wait_ns"},
    {"pipe.reader", "os_pipe_reader_ns"},
    {"pipe.not_measured", "os_pipe_not_measured_ns"},
#define WORKER_NAME(name, member) {"worker." #name, "os_worker_" #name "_ns"},
#define KERNEL_NAME(name, member) {"kernel." #name, "os_kernel_" #name "_ns"},
#define BEFORE_NAME(name, member) {"before." #name, "os_before_" #name "_ns"},
    TIME_PARTS(WORKER_NAME) TIME_PARTS(KERNEL_NAME) TIME_PARTS(BEFORE_NAME)
#undef WORKER_NAME
#undef KERNEL_NAME
#undef BEFORE_NAME
};
#define ONE(name, member) +1
_Static_assert(0 TIME_PARTS(ONE) == IPS_DIFF_OS_KERNEL - IPS_DIFF_OS_WORKER,
               "a thread's parts: TIME_PARTS has IPS_DIFF_OS_WORKER's");
#undef ONE

const char *ips_diff_os_part_name(int part) {
  if (part == -1)
    return "-";
  return part >= 0 && part < IPS_DIFF_OS_NPARTS ? names[part][0] : "?";
}

const char *ips_diff_os_part_key(int part) {
  return part >= 0 && part < IPS_DIFF_OS_NPARTS ? names[part][1] : NULL;
}

/* A thread's parts into os[], in the order of names (TIME_PARTS). */
static void time_parts(int64_t *os, const ips_os_time_t *t) {
  size_t k = 0;
#define PART_VALUE(name, member) os[k++] = t->member;
  TIME_PARTS(PART_VALUE)
#undef PART_VALUE
}

void ips__diff_os_fill(ips_diff_side_t *sd, const ips_os_split_t *s) {
  sd->has_os = 1;
  sd->os[IPS_DIFF_OS_PIPE_BEFORE_WRITE] = s->pipe_before_write;
  sd->os[IPS_DIFF_OS_PIPE_WRITE] = s->pipe_write;
  sd->os[IPS_DIFF_OS_PIPE_IN_PIPE] = s->pipe_in_pipe;
  sd->os[IPS_DIFF_OS_PIPE_SLEEP] = s->pipe_sleep;
  sd->os[IPS_DIFF_OS_PIPE_PAGE_FAULT] = s->pipe_page_fault;
  sd->os[IPS_DIFF_OS_PIPE_CPU_WAIT] = s->pipe_cpu_wait;
  sd->os[IPS_DIFF_OS_PIPE_READER] = s->pipe_reader;
  sd->os[IPS_DIFF_OS_PIPE_NOT_MEASURED] = s->pipe_not_measured;
  time_parts(&sd->os[IPS_DIFF_OS_WORKER], &s->worker);
  time_parts(&sd->os[IPS_DIFF_OS_KERNEL], &s->kernel);
  sd->has_os_before = s->has_before;
  if (s->has_before)
    time_parts(&sd->os[IPS_DIFF_OS_BEFORE], &s->before);
}

/* The part of [from, to) by which a is most over b: -1 when none is. */
static int most_over(const int64_t *a, const int64_t *b, int from, int to,
                     int64_t *by) {
  int p, best = -1;
  *by = 0;
  for (p = from; p < to; p++)
    if (a[p] - b[p] > *by) {
      *by = a[p] - b[p];
      best = p;
    }
  return best;
}

void ips__diff_os_compare(ips_diff_delivery_t *x) {
  const ips_diff_side_t *hi = &x->side[x->slowest], *lo = &x->side[x->fastest];
  x->os_part = -1;
  x->os_part_ns = 0;
  if (x->n_present > 1 && hi->has_os && lo->has_os)
    x->os_part = most_over(hi->os, lo->os, 0, IPS_DIFF_OS_DELIVERY,
                           &x->os_part_ns);
}

static int64_t before_sum(const ips_diff_side_t *sd) {
  int64_t s = 0;
  int p;
  for (p = IPS_DIFF_OS_BEFORE; p < IPS_DIFF_OS_NPARTS; p++)
    s += sd->os[p]; /* each below 2^62 and they sum to one gap: no wrap */
  return s;
}

/* The parts [from, to) of sd over ref's into node i's os_over. */
static void over(ips_diff_t *d, size_t i, const ips_diff_side_t *sd,
                 const ips_diff_side_t *ref, int from, int to) {
  ips_diff_node_t *nd = &d->node[i].pub;
  int p;
  for (p = from; p < to; p++)
    if (sd->os[p] > ref->os[p])
      d->s.st.saturated +=
          (uint64_t)ips_sum_add(&nd->os_over[p], sd->os[p] - ref->os[p]);
}

void ips__diff_os_over(ips_diff_t *d, const ips_diff_delivery_t *x) {
  const ips_diff_side_t *fast = &x->side[x->fastest], *gap = NULL;
  size_t i;
  for (i = 0; i < d->n; i++) /* the shortest gap before it */
    if (x->side[i].present && x->side[i].has_os_before &&
        (!gap || before_sum(&x->side[i]) < before_sum(gap)))
      gap = &x->side[i];
  for (i = 0; i < d->n; i++) {
    const ips_diff_side_t *sd = &x->side[i];
    if (!sd->present || !sd->has_os || !fast->has_os)
      continue;
    d->node[i].pub.os_deliveries++;
    over(d, i, sd, fast, 0, IPS_DIFF_OS_DELIVERY);
    if (gap && sd->has_os_before)
      over(d, i, sd, gap, IPS_DIFF_OS_BEFORE, IPS_DIFF_OS_NPARTS);
  }
}

void ips__diff_os_finish(ips_diff_t *d) {
  static const int64_t zero[IPS_DIFF_OS_NPARTS];
  size_t i;
  int64_t by;
  for (i = 0; i < d->n; i++) {
    ips_diff_node_t *nd = &d->node[i].pub;
    nd->os_part_max = most_over(nd->os_over, zero, 0, IPS_DIFF_OS_DELIVERY,
                                &by);
    nd->os_before_max = most_over(nd->os_over, zero, IPS_DIFF_OS_BEFORE,
                                  IPS_DIFF_OS_NPARTS, &by);
  }
}
