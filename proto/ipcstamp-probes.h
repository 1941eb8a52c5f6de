/* ipcstamp-probes.h — the static tracepoints (USDT probes, provider
 * "ipcstamp") that libipcstamp-worker, libipcstamp-parent and the worker
 * programs carry, for bpftrace, perf, SystemTap, BCC and any tool that
 * reads <sys/sdt.h> notes (docs/probes.md is their reference).
 *
 * A probe is one nop until a tracer attaches, and its arguments are
 * computed only while one is (its semaphore, below).  They are what the
 * caller already holds (no system call, no allocation, no lock), so a
 * script needs no structure offsets to read them.  Without <sys/sdt.h>
 * (configure says so) or with IPS_NO_PROBES defined, every probe compiles
 * to nothing.
 *
 * IPS_PROBES is the one list of the probes: firing one that is not in it
 * does not compile, and tests/probes/probes-list.test checks the binaries'
 * notes and docs/probes.md against it.  Names, argument order and meaning
 * are a public interface, versioned by IPS_PROBES_VERSION: an argument is
 * only ever added at the end, and a change to an existing one is a new
 * version (docs/probes.md, "Stability"). */
#ifndef IPCSTAMP_PROBES_H
#define IPCSTAMP_PROBES_H

#include <stdint.h>

#define IPS_PROBES_VERSION 1

/* X(probe, side, arguments): side is the library that fires it (the
 * worker library is also inside the worker programs); arguments names one
 * of the argument lists below. */
#define IPS_PROBES(X)                                                      \
  X(delivery_received, worker, STAMP)                                      \
  X(upcall_sent, worker, STAMP)                                            \
  X(reply_received, worker, STAMP)                                         \
  X(result_sent, worker, STAMP)                                            \
  X(mark, worker, MARK)                                                    \
  X(span_begin, worker, MARK)                                              \
  X(span_end, worker, MARK)                                                \
  X(frame_refused, worker, REFUSED)                                        \
  X(delivery_sent, parent, STAMP)                                          \
  X(upcall_received, parent, STAMP)                                        \
  X(reply_sent, parent, STAMP)                                             \
  X(result_received, parent, STAMP)                                        \
  X(frame_refused, parent, REFUSED)

/* The arguments, arg0 first (docs/probes.md says what each holds).  The
 * first six are what a bpftrace 0.17 script can read (it stops at arg5);
 * delivery, mono_ns, wall_ns and vat have the same place in every probe. */
#define IPS_PROBE_ARGS_STAMP \
  "delivery upcall mono_ns wall_ns vat pid tag len kind"
#define IPS_PROBE_ARGS_MARK \
  "delivery name_len mono_ns wall_ns vat name tag pid kind"
#define IPS_PROBE_ARGS_REFUSED \
  "delivery code mono_ns wall_ns vat pid message tag len offset"

/* One constant per listed probe (a name listed for both sides once), so
 * that firing a probe the list does not have is a compile error. */
enum {
#define IPS__PROBE_ENUM(probe, side, args) IPS__PROBE_##side##_##probe,
  IPS_PROBES(IPS__PROBE_ENUM)
#undef IPS__PROBE_ENUM
  IPS__PROBE_COUNT
};

#if defined(HAVE_SYS_SDT_H) && !defined(IPS_NO_PROBES)
/* Each probe has a semaphore, which the kernel counts up while a tracer is
 * attached (uprobes' reference counter, Linux 4.20; bpftrace, libbpf, BCC
 * and SystemTap set it): the arguments are computed only then, and a
 * stamp with nobody attached pays one load and one branch per probe. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#define IPS_PROBES_ENABLED 1

/* Repeated for a name both sides have: a tentative definition may be. */
#define IPS__PROBE_SEMAPHORE(probe, side, args)                             \
  __extension__ static unsigned short ipcstamp_##probe##_semaphore          \
      __attribute__((unused, section(".probes")));
IPS_PROBES(IPS__PROBE_SEMAPHORE)
#undef IPS__PROBE_SEMAPHORE
#define IPS__PROBE_ON(probe) __builtin_expect(ipcstamp_##probe##_semaphore, 0)

/* x in a register.  A global (the worker's pid and vat) would otherwise
 * be described as "sym(%rip)" or "sym@GOTPCREL(%rip)", which tracers such
 * as bpftrace 0.17 cannot read; the empty asm costs the one load. */
#define IPS__PROBE_REG(x)                                                   \
  __extension__({                                                           \
    __typeof__(x) ips__r_ = (x);                                            \
    __asm__("" : "+r"(ips__r_));                                            \
    ips__r_;                                                                \
  })

/* Fire probe, one of side's in the list, with its n arguments, when a
 * tracer is attached. */
#define IPS__PROBE_FIRE(side, probe, n, ...)                                \
  do {                                                                      \
    (void)IPS__PROBE_##side##_##probe;                                      \
    if (IPS__PROBE_ON(probe)) STAP_PROBE##n(ipcstamp, probe, __VA_ARGS__);  \
  } while (0)

/* A stamp: delivery the command's number, upcall the upcall's (0 for
 * the command and its result), the stamp's clocks, the vat, the worker's
 * pid, the command's tag, len the frame's netstring length (-1 where the
 * library does not see the frame), kind the stamp's letter. */
#define IPS_PROBE_STAMP(side, probe, delivery, upcall, mono_ns, wall_ns,    \
                        vat, pid, tag, len, kind)                           \
  IPS__PROBE_FIRE(side, probe, 9, (uint64_t)(delivery), (uint32_t)(upcall), \
                  (int64_t)(mono_ns), (int64_t)(wall_ns),                   \
                  IPS__PROBE_REG((const char *)(vat)),                      \
                  IPS__PROBE_REG((int)(pid)), (int)(tag), (int64_t)(len),   \
                  (int)(kind))

/* A mark or a span's begin or end: name is name_len bytes, not
 * NUL-terminated. */
#define IPS_PROBE_MARK(side, probe, delivery, name_len, mono_ns, wall_ns,   \
                       vat, name, tag, pid, kind)                           \
  IPS__PROBE_FIRE(side, probe, 9, (uint64_t)(delivery),                     \
                  (uint32_t)(name_len), (int64_t)(mono_ns),                 \
                  (int64_t)(wall_ns), IPS__PROBE_REG((const char *)(vat)),  \
                  (const char *)(name), (int)(tag),                         \
                  IPS__PROBE_REG((int)(pid)), (int)(kind))

/* A frame refused: code the IPS_E* error, message NUL-terminated, tag the
 * frame's first byte (-1 when it never completed), len the frame's length
 * (-1 when unknown), offset the stream's byte offset. */
#define IPS_PROBE_REFUSED(side, probe, delivery, code, mono_ns, wall_ns,    \
                          vat, pid, message, tag, len, offset)              \
  IPS__PROBE_FIRE(side, probe, 10, (uint64_t)(delivery), (int)(code),       \
                  (int64_t)(mono_ns), (int64_t)(wall_ns),                   \
                  IPS__PROBE_REG((const char *)(vat)),                      \
                  IPS__PROBE_REG((int)(pid)), (const char *)(message),      \
                  (int)(tag), (int64_t)(len), (uint64_t)(offset))

#else /* compiled out: nothing runs (the if (0) only keeps a variable that
          a probe alone reads "used") */
#define IPS_PROBES_ENABLED 0
#define IPS__PROBE_NONE(side, probe, a0, a1, a2, a3, a4, a5, a6, a7, a8)   \
  do {                                                                      \
    (void)IPS__PROBE_##side##_##probe;                                      \
    if (0) {                                                                \
      (void)(a0), (void)(a1), (void)(a2), (void)(a3), (void)(a4);           \
      (void)(a5), (void)(a6), (void)(a7), (void)(a8);                       \
    }                                                                       \
  } while (0)
#define IPS_PROBE_STAMP IPS__PROBE_NONE
#define IPS_PROBE_MARK IPS__PROBE_NONE
#define IPS_PROBE_REFUSED(side, probe, a0, a1, a2, a3, a4, a5, a6, a7, a8, \
                          a9)                                               \
  do {                                                                      \
    IPS__PROBE_NONE(side, probe, a0, a1, a2, a3, a4, a5, a6, a7, a8);       \
    if (0) (void)(a9);                                                      \
  } while (0)
#endif

#endif /* IPCSTAMP_PROBES_H */
