/* record.h — `ipcstamp record`, the collector (docs/os.md): its exit codes
 * and the pieces of its user half. */
#ifndef IPCSTAMP_RECORD_H
#define IPCSTAMP_RECORD_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "os_event.h"


/* Exit codes of `ipcstamp record` beyond the command's own (docs/os.md):
 * each reason BPF cannot be used is its own, so that a script can say
 * which one. */
enum {
  REC_EXIT_PERM = 6,      /* not root: no CAP_BPF and CAP_PERFMON */
  REC_EXIT_NOBTF = 7,     /* the kernel has no BTF (/sys/kernel/btf/vmlinux) */
  REC_EXIT_NOTP = 8,      /* a tracepoint the collector needs is missing */
  REC_EXIT_LOCKDOWN = 9,  /* the kernel is locked down against BPF */
  REC_EXIT_NOBPF = 10     /* ipcstamp was built without libbpf */
};

/* The collector: `ipcstamp record [-o FILE] (--pid PID | -- COMMAND...)`
 * (argv[0] is "record").  Returns an exit code (cli.h's and the above). */
int rec_main(int argc, char **argv);

/* What the cost's measurement (tests/os/os-cost.sh, BENCHMARKS.md) asks
 * of the loader, from record's --cost-floor and --cost-attach: never set
 * by a recording that is used. */
typedef struct {
  int floor;          /* the programs attached, each returning at once */
  const char *attach; /* NULL, or only these programs (comma-separated) */
} rec_cost_t;

/* loader.c: opens, loads and attaches the BPF program into *skel (as cost
 * says, or whole when it is NULL).  Returns 0, or an exit code after
 * saying on stderr why (REC_EXIT_*). */
struct os;
int rec_load(struct os **skel, const rec_cost_t *cost);
/* Events the kernel's side dropped so far (its ring buffer was full). */
unsigned long long rec_lost(struct os *s);
/* Follows process pid (and the processes it starts from now on). */
void rec_trace(struct os *s, unsigned pid);

/* follow.c: whether process pid has ended — no such process, or a zombie
 * (kill(pid, 0) still succeeds on one until its parent reaps it, and a
 * recording of it would never end), from /proc/PID/stat's state. */
int rec_process_gone(long pid);

/* record.c: a record the collector makes itself, handed to its writer. */
typedef void (*rec_emit_fn)(void *ctx, const struct os_event *e);
/* Follows process root and the descendants it has now (from /proc), each
 * named by an exec record (its argv) handed to emit_fn. */
void rec_follow_existing(struct os *s, unsigned root, rec_emit_fn emit_fn,
                         void *ctx);
/* -- COMMAND: forked, held on a pipe until s follows it (rec_trace), then
 * run.  Returns its pid, or -1 (said). */
pid_t rec_start_command(struct os *s, char **cmd);
/* always.c: the --always-on part of `record --help`. */
extern const char ao_usage_text[];

/* os_write.c, version 1 (the live view, -o -): the first line (pid 0: a
 * command is followed), then one event as a line. */
void rec_write_header(FILE *f, unsigned long long start, long long wall,
                      long pid);
void rec_write_event(FILE *f, const struct os_event *e);
/* A process that was there before the collector started, as an exec
 * event in *e (args: its NUL-separated arguments, len bytes). */
void rec_proc_event(struct os_event *e, unsigned long long ns, unsigned pid,
                    unsigned ppid, const char *args, size_t len);
/* The end record, in *e: at ns, events written and lost, and the
 * collector's own CPU time and peak memory so far (no status). */
void rec_end_event(struct os_event *e, unsigned long long ns,
                   unsigned long long events, unsigned long long lost);
/* CLOCK_MONOTONIC now, in ns: the records' clock. */
unsigned long long rec_mono_ns(void);
/* CLOCK_REALTIME less CLOCK_MONOTONIC now, in ns: a record's ns plus it
 * is its wall time. */
long long rec_wall_off(void);
/* The name of system call nr ("fsync"), or NULL when not in the table. */
const char *rec_syscall_name(long nr);

/* os_write.c, version 2 (a file): the header (pid 0: a command), then
 * each record as the kernel made it (size bytes at data, a struct
 * os_event cut to its type), padded to its type's size.  0, or -1 when the
 * record is not one this collector knows (nothing written) or the header
 * cannot be written. */
int rec_bin_header(FILE *f, unsigned long long start, long long wall,
                   long pid);
int rec_bin_event(FILE *f, const void *data, size_t size);
/* The bytes of a type's record in the file; 0 for a type not known. */
size_t rec_bin_size(unsigned type);

#endif
