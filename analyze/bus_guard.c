/* bus_guard.c — turns a SIGBUS from a truncated mapped file into an error
 * (see bus_guard.h for why and when). */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "bus_guard.h"

/* The innermost guard of each thread.  Set before any fault can happen in
 * that thread (entering a guard writes it), so the handler never makes the
 * thread-local storage be allocated.  initial-exec: a guard is entered for
 * every line, and the general model calls __tls_get_addr each time (1% of
 * a report); glibc keeps room for a few such bytes even when the library
 * is loaded with dlopen. */
static __thread ips__guard_t *current __attribute__((tls_model("initial-exec")));

static struct sigaction before; /* SIGBUS's action before ours */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int installed = -1;

static void on_bus(int sig, siginfo_t *si, void *uc) {
  ips__guard_t *g = current;
  const char *at = si ? (const char *)si->si_addr : NULL;
  if (g && at >= g->base && at < g->base + g->len) {
    g->at = at;
    current = g->outer;
    siglongjmp(g->jb, 1);
  }
  /* Not a read of a guarded mapping: what would have happened without us. */
  if (before.sa_flags & SA_SIGINFO) {
    if (before.sa_sigaction) {
      before.sa_sigaction(sig, si, uc);
      return;
    }
  } else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
    before.sa_handler(sig);
    return;
  }
  /* The default (SIG_IGN does not apply to a fault: the kernel kills):
   * put it back and return, so the faulting load runs again and dies of
   * it, core dump included. */
  sigaction(SIGBUS, &before, NULL);
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_bus;
  sigemptyset(&sa.sa_mask);
  /* SA_NODEFER: the jump out of the handler must not leave SIGBUS
   * blocked (sigsetjmp does not save the mask, see IPS__GUARD). */
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  installed = sigaction(SIGBUS, &sa, &before) == 0 ? 0 : -1;
}

int ips__guard_init(void) {
  pthread_once(&once, install);
  return installed;
}

void ips__guard_enter(ips__guard_t *g, const char *base, size_t len) {
  g->base = base;
  g->len = len;
  g->at = NULL;
  g->outer = current;
  current = g;
}

void ips__guard_leave(ips__guard_t *g) { current = g->outer; }
