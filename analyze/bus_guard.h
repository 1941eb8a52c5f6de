/* bus_guard.h — reading a mapped file that someone may truncate (internal).
 *
 * The reader maps a regular file instead of copying it into a buffer
 * (slog_read.c).  If another process truncates the file meanwhile, a read
 * of a mapped page past the new end raises SIGBUS, which would kill the
 * report.  Every read of the mapping therefore runs inside a guard: a
 * SIGBUS at an address the current thread's guard covers jumps back to
 * where the guard was entered, which then reports "the file shrank" like
 * any other read error.  A SIGBUS anywhere else goes to whatever handled it
 * before (by default: the process dies, as it would have).
 *
 * The fault is synchronous: it happens at a load from the mapping, inside
 * memchr or the line parsers, never inside malloc or a lock, so jumping out
 * of the handler leaves no lock held and no heap half-updated.  What the
 * guarded code was building (a parser's state) is dropped: after a fault
 * the reader only reports the error.
 */
#ifndef IPCSTAMP_ANALYZE_BUS_GUARD_H
#define IPCSTAMP_ANALYZE_BUS_GUARD_H

#include <setjmp.h>
#include <stddef.h>

typedef struct ips__guard {
  sigjmp_buf jb;
  const char *base;         /* the mapping it covers */
  size_t len;
  const char *volatile at;  /* the faulting address, after a fault */
  struct ips__guard *outer; /* the thread's guard before this one */
} ips__guard_t;

/* Installs the SIGBUS handler, once per process (later calls do nothing).
 * Returns 0, or -1 when it cannot: then do not map. */
int ips__guard_init(void);

/* Entering a guard: IPS__GUARD(g, base, len) is 0 when entered, and
 * nonzero when a read of [base, base + len) faulted after that (g->at says
 * where; the guard has been left).  Must be a macro: sigsetjmp's frame
 * has to stay live until the guard is left.  The mask is not saved (a
 * system call each time): the handler runs with SA_NODEFER, so jumping out
 * of it leaves the thread's mask as it was.  Locals changed between the
 * entry and a fault are indeterminate after it, unless volatile: guarded
 * code should store its results through pointers. */
#define IPS__GUARD(g, b, n) \
  (ips__guard_enter((g), (b), (n)), sigsetjmp((g)->jb, 0))
void ips__guard_enter(ips__guard_t *g, const char *base, size_t len);
/* Leaves g, the innermost guard entered by this thread. */
void ips__guard_leave(ips__guard_t *g);

#endif
