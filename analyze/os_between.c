/* os_between.c — the kernel's time between deliveries (docs/os.md,
 * "Between deliveries").
 *
 * A delivery's own time is split by os_split.c; what lies between two
 * deliveries (the kernel's JavaScript around its records, its database
 * writes, a block's commit: where a stalled validator's time went) is the
 * kernel's thread alone.  That thread is the one that writes the frames
 * to the workers, found from a delivery's frames; its time over any
 * stretch on the recording's clock is split by its recorded waits, like a
 * kernel segment of a delivery, and adds up to the stretch exactly. */
#include "config.h"

#include <string.h>

#include "os.h"

int ips_os_kernel(ips_os_t *os, const ips_delivery_t *d, ips_os_kernel_t *k) {
  ips_os_split_t s;
  int64_t slack;
  memset(k, 0, sizeof *k);
  k->offset = ips__os_clock_offset(os, d, &slack);
  ips_os_split(os, d, &s); /* its frames tell the kernel's thread */
  if (!s.kernel_pid || !s.kernel_tid)
    return 0;
  k->known = 1;
  k->pid = s.kernel_pid;
  k->tid = s.kernel_tid;
  return 1;
}

void ips_os_kernel_time(const ips_os_t *os, const ips_os_kernel_t *k,
                        int64_t from, int64_t to, ips_os_time_t *t) {
  if (to <= from)
    return;
  if (!k->known) {
    t->not_measured += to - from;
    return;
  }
  ips__os_thread_split(os, (uint32_t)k->tid, from, to, t);
}

int ips_os_between(ips_os_t *os, const ips_delivery_t *d, ips_os_time_t *t) {
  ips_os_split_t s;
  ips_os_split(os, d, &s); /* its frames tell the kernel's thread */
  *t = s.before;
  return s.has_before;
}

int ips_os_from_wall(const ips_os_t *os, int64_t wall_ns, int64_t *mono_ns) {
  int64_t m;
  /* A file that lies about its wall clock must not overflow the sums. */
  if (!os->wall_minus_mono ||
      __builtin_sub_overflow(wall_ns, os->wall_minus_mono, &m) ||
      m < -((int64_t)1 << 62) || m > ((int64_t)1 << 62))
    return 0;
  *mono_ns = m;
  return 1;
}

/* The first names seen keep their slots; later ones go to "other". */
static void add_by(ips_os_by_t *sum, const ips_os_by_t *by) {
  size_t i;
  for (i = 0; i < IPS_OS_BY && by[i].sc[0]; i++)
    ips__os_by_add(sum, by[i].sc, by[i].ns);
}

/* Sums of many splits, which hostile input can make pass int64: held at
 * the bound, the one policy (ips_sum_add). */
void ips_os_time_add(ips_os_time_t *sum, const ips_os_time_t *t) {
  ips_sum_add(&sum->on_cpu, t->on_cpu);
  ips_sum_add(&sum->steal, t->steal);
  ips_sum_add(&sum->uncharged, t->uncharged);
  ips_sum_add(&sum->cpu_wait, t->cpu_wait);
  ips_sum_add(&sum->disk, t->disk);
  ips_sum_add(&sum->fault, t->fault);
  ips_sum_add(&sum->sleep, t->sleep);
  ips_sum_add(&sum->not_measured, t->not_measured);
  ips_sum_add(&sum->major_faults, t->major_faults);
  add_by(sum->disk_by, t->disk_by);
  add_by(sum->cpu_wait_by, t->cpu_wait_by);
  add_by(sum->sleep_by, t->sleep_by);
}

/* The system call that took most of by's time into sc. */
static void top_by(const ips_os_by_t *by, char sc[24]) {
  size_t i, best = 0;
  for (i = 1; i < IPS_OS_BY && by[i].sc[0]; i++)
    if (by[i].ns > by[best].ns)
      best = i;
  snprintf(sc, 24, "%s", by[best].sc);
}

const char *ips_os_time_cause(const ips_os_time_t *t, int64_t *ns,
                              char sc[24]) {
  const struct { const char *name; int64_t ns; } part[] = {
      {"on_cpu", t->on_cpu}, {"cpu_wait", t->cpu_wait}, {"disk", t->disk},
      {"page_fault", t->fault}, {"sleep", t->sleep},
      {"not_measured", t->not_measured}};
  size_t i, best = 0;
  for (i = 1; i < sizeof part / sizeof part[0]; i++)
    if (part[i].ns > part[best].ns)
      best = i;
  sc[0] = '\0';
  *ns = part[best].ns;
  if (part[best].ns <= 0)
    return NULL;
  if (best == 2)
    top_by(t->disk_by, sc);
  else if (best == 4)
    top_by(t->sleep_by, sc);
  return part[best].name;
}
