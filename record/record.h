/* record.h — `ipcstamp record`, the collector (docs/os.md): its exit codes
 * and the pieces of its user half. */
#ifndef IPCSTAMP_RECORD_H
#define IPCSTAMP_RECORD_H

#include <stddef.h>
#include <stdio.h>

#include "os_event.h"

/* The recorded file's format version (its first line says it). */
#define REC_FORMAT 1

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

/* loader.c: opens, loads and attaches the BPF program into *skel.
 * Returns 0, or an exit code after saying on stderr why (REC_EXIT_*). */
struct os;
int rec_load(struct os **skel);
/* Events the kernel's side dropped so far (its ring buffer was full). */
unsigned long long rec_lost(struct os *s);
/* Follows process pid (and the processes it starts from now on). */
void rec_trace(struct os *s, unsigned pid);

/* os_write.c: one event as a line of the file. */
void rec_write_event(FILE *f, const struct os_event *e);
/* A process that was there before the collector started, as an exec line
 * (args: its NUL-separated arguments, len bytes). */
void rec_write_proc(FILE *f, unsigned long long ns, unsigned pid,
                    unsigned ppid, const char *args, size_t len);
/* The name of system call nr ("fsync"), or NULL when not in the table. */
const char *rec_syscall_name(long nr);

#endif
