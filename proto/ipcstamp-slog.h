/* ipcstamp-slog.h — the slogfile schema, defined once (libc only).
 *
 * The parent's writer (libipcstamp-parent), the analysis readers
 * (libipcstamp-analyze) and the tests all take the record types, their
 * fields in order, the format version and the limits from here, so a
 * change to the format is one change in one place.  docs/slogfile.md is
 * the prose for the same thing, with examples.
 *
 * Contract:
 * - A slogfile is JSON lines, one object per line, "type" first, "time"
 *   and "monotime" last.  Every record ipcstamp writes is of a type that
 *   SwingSet writes, in the fields SwingSet gives it, in the order listed
 *   here; ipcstamp's own information is in extra fields (IPS_SLOG_EXTRA),
 *   which SwingSet's readers ignore.
 * - IPS_SLOG_RECORDS lists every type a reader must know: those ipcstamp
 *   writes today (IPS_SLOG_WRITTEN) and those only older ipcstamp slogfiles
 *   hold (IPS_SLOG_LEGACY, format 1), which readers keep accepting.  Types
 *   not listed (SwingSet has many more) are other SwingSet records: a
 *   reader skips them.
 * - IPS_SLOG_FIELDS lists, per record type, its fields in the order the
 *   writer writes them, each with its JSON kind and whether it is always
 *   there.  "type", "time" and "monotime" are in every record and are not
 *   listed.
 * - Nothing here allocates or needs linking: macros and one enum.
 *
 * Use: define a macro X and expand the list, e.g.
 *     #define X(id, type, status) case IPS_SLOG_##id: return type;
 *     switch (t) { IPS_SLOG_RECORDS(X) }
 *     #undef X
 */
#ifndef IPCSTAMP_SLOG_H
#define IPCSTAMP_SLOG_H

#include "ipcstamp-proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The slogfile format ipcstamp writes, in kernel-init-start's
 * "ipcstamp":{"v":..,"slog":IPS_SLOG_FORMAT}.  1: the first format, with
 * ipcstamp's own record types (slog-start, worker-start, worker-exit) and
 * console lines as {fd, line}; 2: only SwingSet's record types. */
#define IPS_SLOG_FORMAT 2

/* Limits every writer keeps and every reader may rely on. */
#define IPS_SLOG_VAT_MAX 63          /* bytes of a vatID */
#define IPS_SLOG_METHOD_MAX 64       /* bytes of a method name in crank-start */
#define IPS_SLOG_MAX_STAMPS IPS_MAX_STAMPS /* stamps in one metering */
#define IPS_SLOG_MAX_DEPTH 64        /* nesting of an embedded payload */

/* The status of a record type. */
#define IPS_SLOG_WRITTEN 1 /* written by ipcstamp now */
#define IPS_SLOG_LEGACY 0  /* format 1 only: read, never written */

/* X(id, "type", status), in the order they first appear in a file. */
#define IPS_SLOG_RECORDS(X)                                                  \
  X(KERNEL_INIT_START, "kernel-init-start", IPS_SLOG_WRITTEN)                \
  X(KERNEL_INIT_FINISH, "kernel-init-finish", IPS_SLOG_WRITTEN)              \
  X(CREATE_VAT, "create-vat", IPS_SLOG_WRITTEN)                              \
  X(CRANK_START, "crank-start", IPS_SLOG_WRITTEN)                            \
  X(DELIVER, "deliver", IPS_SLOG_WRITTEN)                                    \
  X(SYSCALL, "syscall", IPS_SLOG_WRITTEN)                                    \
  X(SYSCALL_RESULT, "syscall-result", IPS_SLOG_WRITTEN)                      \
  X(DELIVER_RESULT, "deliver-result", IPS_SLOG_WRITTEN)                      \
  X(CRANK_FINISH, "crank-finish", IPS_SLOG_WRITTEN)                          \
  X(CONSOLE, "console", IPS_SLOG_WRITTEN)                                    \
  X(TERMINATE, "terminate", IPS_SLOG_WRITTEN)                                \
  X(SLOG_START, "slog-start", IPS_SLOG_LEGACY)                               \
  X(WORKER_START, "worker-start", IPS_SLOG_LEGACY)                           \
  X(WORKER_EXIT, "worker-exit", IPS_SLOG_LEGACY)

typedef enum {
#define IPS_SLOG_X_ENUM(id, type, status) IPS_SLOG_##id,
  IPS_SLOG_RECORDS(IPS_SLOG_X_ENUM)
#undef IPS_SLOG_X_ENUM
  IPS_SLOG_NTYPES
} ips_slog_type_t;

/* JSON kinds of a field. */
#define IPS_SLOG_UINT 'u'   /* a non-negative integer */
#define IPS_SLOG_INT 'i'    /* an integer */
#define IPS_SLOG_BOOL 'b'
#define IPS_SLOG_STRING 's' /* a string, or {"base64":..} for bytes that are
                               not UTF-8 */
#define IPS_SLOG_DECIMAL 'd' /* seconds, nine decimals */
#define IPS_SLOG_JSON 'j'   /* any JSON value: an untrusted payload
                               re-serialised, or {"base64":".."} */

/* Whether a field is always there, and whose it is. */
#define IPS_SLOG_REQ 1   /* always, as SwingSet writes it */
#define IPS_SLOG_OPT 2   /* only in some records (see docs/slogfile.md) */
#define IPS_SLOG_EXTRA 3 /* always, ipcstamp's own (SwingSet readers
                            ignore it) */

/* X(record id, "key", kind, presence), per record in field order.  Legacy
 * records are listed as format 1 wrote them. */
#define IPS_SLOG_FIELDS(X)                                                   \
  X(KERNEL_INIT_START, "ipcstamp", IPS_SLOG_JSON, IPS_SLOG_EXTRA)            \
  X(KERNEL_INIT_START, "version", IPS_SLOG_STRING, IPS_SLOG_EXTRA)           \
  X(KERNEL_INIT_START, "pid", IPS_SLOG_INT, IPS_SLOG_EXTRA)                  \
  X(KERNEL_INIT_START, "argv", IPS_SLOG_JSON, IPS_SLOG_EXTRA)                \
  X(CREATE_VAT, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                      \
  X(CREATE_VAT, "dynamic", IPS_SLOG_BOOL, IPS_SLOG_REQ)                      \
  X(CREATE_VAT, "description", IPS_SLOG_STRING, IPS_SLOG_REQ)                \
  X(CREATE_VAT, "name", IPS_SLOG_STRING, IPS_SLOG_REQ)                       \
  X(CREATE_VAT, "managerType", IPS_SLOG_STRING, IPS_SLOG_REQ)                \
  X(CREATE_VAT, "pid", IPS_SLOG_INT, IPS_SLOG_EXTRA)                         \
  X(CRANK_START, "crankType", IPS_SLOG_STRING, IPS_SLOG_REQ)                 \
  X(CRANK_START, "crankNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                    \
  X(CRANK_START, "message", IPS_SLOG_JSON, IPS_SLOG_REQ)                     \
  X(DELIVER, "crankNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                        \
  X(DELIVER, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                         \
  X(DELIVER, "deliveryNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                     \
  X(DELIVER, "vd", IPS_SLOG_JSON, IPS_SLOG_REQ)                              \
  X(SYSCALL, "crankNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                        \
  X(SYSCALL, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                         \
  X(SYSCALL, "deliveryNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                     \
  X(SYSCALL, "syscallNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                      \
  X(SYSCALL, "runDelayNs", IPS_SLOG_UINT, IPS_SLOG_OPT)                      \
  X(SYSCALL, "vsc", IPS_SLOG_JSON, IPS_SLOG_REQ)                             \
  X(SYSCALL_RESULT, "crankNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                 \
  X(SYSCALL_RESULT, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                  \
  X(SYSCALL_RESULT, "deliveryNum", IPS_SLOG_UINT, IPS_SLOG_REQ)              \
  X(SYSCALL_RESULT, "syscallNum", IPS_SLOG_UINT, IPS_SLOG_REQ)               \
  X(SYSCALL_RESULT, "vsr", IPS_SLOG_JSON, IPS_SLOG_REQ)                      \
  X(DELIVER_RESULT, "crankNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                 \
  X(DELIVER_RESULT, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                  \
  X(DELIVER_RESULT, "deliveryNum", IPS_SLOG_UINT, IPS_SLOG_REQ)              \
  X(DELIVER_RESULT, "dr", IPS_SLOG_JSON, IPS_SLOG_REQ)                       \
  X(DELIVER_RESULT, "seconds", IPS_SLOG_DECIMAL, IPS_SLOG_EXTRA)             \
  X(DELIVER_RESULT, "runDelayNs", IPS_SLOG_UINT, IPS_SLOG_OPT)               \
  X(DELIVER_RESULT, "fault", IPS_SLOG_STRING, IPS_SLOG_OPT)                  \
  X(DELIVER_RESULT, "meteringError", IPS_SLOG_STRING, IPS_SLOG_OPT)          \
  X(CRANK_FINISH, "crankNum", IPS_SLOG_UINT, IPS_SLOG_REQ)                   \
  X(CONSOLE, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                         \
  X(CONSOLE, "source", IPS_SLOG_STRING, IPS_SLOG_REQ)                        \
  X(CONSOLE, "level", IPS_SLOG_STRING, IPS_SLOG_REQ)                         \
  X(CONSOLE, "args", IPS_SLOG_JSON, IPS_SLOG_REQ)                            \
  X(CONSOLE, "fd", IPS_SLOG_INT, IPS_SLOG_EXTRA)                             \
  X(TERMINATE, "vatID", IPS_SLOG_STRING, IPS_SLOG_REQ)                       \
  X(TERMINATE, "shouldReject", IPS_SLOG_BOOL, IPS_SLOG_REQ)                  \
  X(TERMINATE, "info", IPS_SLOG_JSON, IPS_SLOG_REQ)                          \
  X(TERMINATE, "exitStatus", IPS_SLOG_INT, IPS_SLOG_OPT)                     \
  X(TERMINATE, "signal", IPS_SLOG_INT, IPS_SLOG_OPT)                         \
  X(TERMINATE, "fault", IPS_SLOG_STRING, IPS_SLOG_OPT)                       \
  X(TERMINATE, "message", IPS_SLOG_STRING, IPS_SLOG_OPT)                     \
  X(SLOG_START, "ipcstamp", IPS_SLOG_JSON, IPS_SLOG_EXTRA)                   \
  X(SLOG_START, "version", IPS_SLOG_STRING, IPS_SLOG_EXTRA)                  \
  X(SLOG_START, "pid", IPS_SLOG_INT, IPS_SLOG_EXTRA)                         \
  X(SLOG_START, "argv", IPS_SLOG_JSON, IPS_SLOG_EXTRA)                       \
  X(WORKER_START, "vatID", IPS_SLOG_STRING, IPS_SLOG_EXTRA)                  \
  X(WORKER_START, "pid", IPS_SLOG_INT, IPS_SLOG_EXTRA)                       \
  X(WORKER_EXIT, "vatID", IPS_SLOG_STRING, IPS_SLOG_EXTRA)                   \
  X(WORKER_EXIT, "exitStatus", IPS_SLOG_INT, IPS_SLOG_EXTRA)                 \
  X(WORKER_EXIT, "signal", IPS_SLOG_INT, IPS_SLOG_EXTRA)

/* The values ipcstamp gives SwingSet's fields where it has no SwingSet
 * meaning of its own (docs/slogfile.md). */
#define IPS_SLOG_CRANK_TYPE "delivery"
#define IPS_SLOG_MANAGER_TYPE "ipcstamp-worker"
#define IPS_SLOG_CONSOLE_SOURCE "worker"

#ifdef __cplusplus
}
#endif
#endif /* IPCSTAMP_SLOG_H */
