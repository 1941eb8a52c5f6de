/* loaded_cpu.h — a deliberately loaded CPU, for the tests of the run-queue
 * delay: a busy process pinned to the CPU the test runs on, and
 * the test (and everything it starts from then on) pinned there too, at
 * a lower priority.  A thread that wants that CPU then waits for it: at
 * nice 10 against nice 0 the scheduler gives it about a tenth of the CPU
 * while the busy process runs (weights 110 and 1024), so its waits are
 * forced, not a matter of luck (nice 19 forces them too, but for hundreds
 * of ms a wake-up).  Other load on the machine only lengthens
 * them.  Call it inside a Check test (fork mode): the pinning and the nice
 * value end with the test's process. */
#ifndef IPCSTAMP_TESTS_LOADED_CPU_H
#define IPCSTAMP_TESTS_LOADED_CPU_H

#include <sys/types.h>

typedef struct {
  pid_t busy;  /* the busy process, or -1 */
  int cpu;     /* the CPU both are pinned to */
} loaded_cpu_t;

/* Pin this process to one CPU it may run on, start the busy process there
 * and wait until it spins, then lower this process to nice 10.  Returns 0
 * or -errno. */
int loaded_cpu_start(loaded_cpu_t *l);

/* Kill and reap the busy process.  The caller stays pinned and niced. */
void loaded_cpu_stop(loaded_cpu_t *l);

#endif
