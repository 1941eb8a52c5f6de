/* loaded_cpu.c — see loaded_cpu.h. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loaded_cpu.h"

int loaded_cpu_start(loaded_cpu_t *l) {
  cpu_set_t set;
  int p[2], cpu;
  char c;
  l->busy = -1;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return -errno;
  for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
    ;
  if (cpu == CPU_SETSIZE)
    return -EINVAL;
  l->cpu = cpu;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0 || pipe(p) != 0)
    return -errno;
  l->busy = fork();
  if (l->busy < 0) {
    int e = errno;
    close(p[0]);
    close(p[1]);
    return -e;
  }
  if (l->busy == 0) {
    /* Inherits the pinning; says it runs, then spins until killed. */
    volatile unsigned long n = 0;
    close(p[0]);
    if (write(p[1], "x", 1) != 1)
      _exit(1);
    close(p[1]);
    for (;;)
      n++;
  }
  close(p[1]);
  while (read(p[0], &c, 1) < 0 && errno == EINTR)
    ;
  close(p[0]);
  /* Only now: the busy process keeps nice 0. */
  if (setpriority(PRIO_PROCESS, 0, 10) != 0) {
    int e = errno;
    loaded_cpu_stop(l);
    return -e;
  }
  return 0;
}

void loaded_cpu_stop(loaded_cpu_t *l) {
  if (l->busy > 0) {
    kill(l->busy, SIGKILL);
    while (waitpid(l->busy, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  l->busy = -1;
}
