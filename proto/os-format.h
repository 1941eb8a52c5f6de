/* os-format.h — the byte layout of `ipcstamp record`'s file (docs/os.md,
 * "The file"), defined once for the three that use it: the BPF program
 * (record/os.bpf.c) fills these records in the kernel, the collector
 * (record/) copies them to the file after the header below, and the
 * reader (analyze/os_bin.c) finds every field by offsetof from these
 * structs.  Plain C types only, so that it compiles for the BPF target
 * (with vmlinux.h) and for the host; the _Static_asserts pin each
 * record's size and its fields' offsets on both.  Not installed:
 * docs/os.md is the public description.
 *
 * Adding an OS event: its part and type here, the program that emits it,
 * and the split that uses it (a reader skips a type it does not know: the
 * header's size table says each type's size). */
#ifndef IPCSTAMP_OS_FORMAT_H
#define IPCSTAMP_OS_FORMAT_H

/* The file: its first 8 bytes, and the version this collector writes.
 * Readers also read version 2 (the parts marked "version 2" below) and
 * version 1 (JSON lines). */
#define OS_FILE_MAGIC "\x89IPS-OS\n"
#define OS_FILE_VERSION 3
#define OS_FILE_TYPES 16   /* entries of the header's size table */
#define OS_FILE_NAME 20    /* bytes of a system call's name (NUL-padded) */

/* The first bytes of a frame's payload kept (after its tag), of an exec's
 * arguments, and of a thread's name. */
#define OS_HEAD 16
#define OS_ARGS 256
#define OS_COMM 16

enum {
  OS_EV_EXEC = 1,  /* a traced process ran execve: exec */
  OS_EV_FORK,      /* a traced process made a new process: fork */
  OS_EV_EXIT,      /* a traced process ended: exit */
  OS_EV_FRAME,     /* one side of a netstring frame on a pipe: frame */
  OS_EV_WAIT,      /* a traced thread was off its CPU: wait */
  /* Written by the collector itself, never by the kernel: */
  OS_EV_LOST,      /* events the kernel dropped so far: lost */
  OS_EV_END,       /* the recording's end: end */
  /* Since version 3, by the kernel again: */
  OS_EV_TASK,      /* the name of a thread a wait names (took, left) */
  OS_EV_TYPES      /* one past the last type */
};

/* Why a thread left its CPU (its state at the switch). */
enum {
  OS_WAIT_CPU = 0,   /* still runnable: preempted, waiting for a CPU */
  OS_WAIT_SLEEP = 1, /* interruptible sleep (a pipe, futex, epoll...) */
  OS_WAIT_DISK = 2   /* uninterruptible sleep (disk I/O, paging) */
};

/* The 24 bytes every record starts with. */
#define OS_REC_HEAD 24

struct os_exec {
  unsigned int ppid, len;   /* len: bytes of args (NUL-separated) */
  char args[OS_ARGS];
};
struct os_fork {
  unsigned int child;
};
struct os_exit {
  int code;                 /* the exit status as wait() gives it */
};
/* One side of one frame; the record's ts is the return of the call with
 * its last byte. */
struct os_frame {
  unsigned long long pipe;  /* the stream's id (docs/os.md) */
  unsigned long long first_enter, first_exit; /* the call with the
                                                  frame's first byte */
  unsigned long long last_enter;              /* ... with its last */
  unsigned int len;         /* the declared length, tag included (a
                               netstring's 9 digits at most) */
  unsigned int fd, calls;   /* calls: system calls that carried it */
  unsigned char write;      /* 1 the writer's side, 0 the reader's */
  unsigned char tag, head_len, pad;
  unsigned char head[OS_HEAD]; /* head_len bytes of the payload after the
                                  tag (never more than the frame has),
                                  then zeros */
};
/* One time a thread was off its CPU; the record's ts is when it ran
 * again (on). */
struct os_wait {
  unsigned long long off, wake; /* wake 0: never woken (preempted) */
  /* The thread's major page faults so far when it left its CPU: the
   * kernel counts a fault when its handling ends, after the thread ran
   * again, so the faults a wait slept in show in the next wait's count. */
  unsigned long long maj_flt;
  /* The scheduler's own count of the thread's run time
   * (se.sum_exec_runtime) when it left: what its CPU clock says. */
  unsigned long long runtime;
  /* The hypervisor's steal clock of the CPU it left, at off, and of the
   * CPU it came back onto, at on (the run queue's prev_steal_time_rq;
   * 0 on a kernel without it). */
  unsigned long long steal_off, steal_on;
  int sc;                   /* the system call it was in, or -1 */
  unsigned int why;         /* OS_WAIT_* */
  unsigned int waker;       /* the thread that woke it (0: none seen) */
  unsigned int took;        /* preempted: the thread that took its CPU */
  unsigned int left;        /* the thread that left the CPU it came back
                               onto */
  unsigned int cpu;         /* the CPU it came back onto */
};
struct os_lost {
  unsigned long long n;
};
struct os_end {
  unsigned long long events, lost; /* events written, lost in all */
  long long collector_cpu_ns;      /* -1: unknown */
  int status;                      /* the command's wait status */
  unsigned int has_status;         /* 0: none (--pid) */
  unsigned long long max_rss_kb;   /* the collector's own peak RSS */
};
/* A thread a wait names (took, left), once per thread: the head's tgid
 * and tid are its own. */
struct os_task {
  char comm[OS_COMM];
};

/* A record as the kernel makes it: the head, then its type's part (each
 * type reserves only its own part: see OS_PART). */
struct os_event {
  unsigned int type;   /* OS_EV_* */
  unsigned int tgid;   /* the process */
  unsigned int tid;    /* the thread */
  unsigned int pad;
  unsigned long long ts; /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
  union {
    struct os_exec exec;
    struct os_fork fork;
    struct os_exit exit;
    struct os_frame frame;
    struct os_wait wait;
    struct os_lost lost;
    struct os_end end;
    struct os_task task;
  } u;
};

/* A record's bytes as the kernel reserves them, and as the file has them
 * (padded to 8). */
#define OS_PART(part) (OS_REC_HEAD + sizeof(struct os_##part))
#define OS_PAD8(n) (((n) + 7) / 8 * 8)
/* Each type and its part: X(type, part).  The collector's size table
 * (the header's) and the reader's least sizes come from it. */
#define OS_PARTS(X)                                                        \
  X(OS_EV_EXEC, exec) X(OS_EV_FORK, fork) X(OS_EV_EXIT, exit)              \
  X(OS_EV_FRAME, frame) X(OS_EV_WAIT, wait) X(OS_EV_LOST, lost)            \
  X(OS_EV_END, end) X(OS_EV_TASK, task)
/* The bytes of a type's record in the file (0: not a type), as an
 * initializer of an array indexed by type. */
#define OS_FILE_SIZE_INIT(t, part) [t] = OS_PAD8(OS_PART(part)),
/* Where a field is in a record of the file. */
#define OS_AT(part, field) (OS_REC_HEAD + __builtin_offsetof(struct os_##part, field))

/* The file's header: this, then nnames struct os_file_name, then zeros up
 * to header_size, then the records as they came, little-endian (the
 * collector writes this format only on a little-endian machine). */
struct os_file_header {
  char magic[8];            /* OS_FILE_MAGIC */
  unsigned int version;     /* OS_FILE_VERSION */
  unsigned int header_size; /* bytes before the first record */
  unsigned int clock;       /* 1: CLOCK_MONOTONIC */
  unsigned int follow;      /* 0: a command, 1: --pid */
  unsigned long long start; /* CLOCK_MONOTONIC ns when recording began */
  long long start_wall_ns;  /* CLOCK_REALTIME ns at the same instant */
  unsigned int pid;         /* follow 1: the pid */
  unsigned int ntypes;      /* OS_FILE_TYPES */
  unsigned int size[OS_FILE_TYPES]; /* size[t]: bytes of a type t record;
                                       0: no such type */
  char kernel[64];          /* uname's release, NUL-padded */
  char machine[16];         /* uname's machine */
  unsigned int nnames;      /* system call names that follow */
  unsigned int name_size;   /* bytes of each: 4 + OS_FILE_NAME */
};
struct os_file_name {
  int nr;
  char name[OS_FILE_NAME];
};

/* Version 2's records where version 3 changed them (the others are the
 * same): the reader's offsets for files recorded before. */
struct os_frame_v2 {
  unsigned long long pipe, len;
  unsigned long long first_enter, first_exit, last_enter, last_exit;
  unsigned int fd, calls;
  unsigned char write, tag, head_len, pad;
  unsigned char head[OS_HEAD];
};
struct os_wait_v2 {
  unsigned long long off, wake, on;
  int sc;
  unsigned int why;
  unsigned long long maj_flt; /* absent from the first version 2 files
                                 (56-byte waits) */
};

/* The layout, pinned: a change here is a change of the file's format. */
_Static_assert(__builtin_offsetof(struct os_event, u) == OS_REC_HEAD,
               "the 24-byte record head");
_Static_assert(sizeof(struct os_file_header) == 200, "the header's fixed part");
_Static_assert(__builtin_offsetof(struct os_file_header, size) == 48 &&
               __builtin_offsetof(struct os_file_header, nnames) == 192,
               "the header's fields");
_Static_assert(sizeof(struct os_file_name) == 4 + OS_FILE_NAME, "a name");
_Static_assert(OS_PAD8(OS_PART(exec)) == 288, "an exec record");
_Static_assert(OS_PAD8(OS_PART(fork)) == 32 && OS_PAD8(OS_PART(exit)) == 32,
               "fork and exit records");
_Static_assert(OS_PART(frame) == 88 && OS_AT(frame, len) == 56 &&
               OS_AT(frame, write) == 68 && OS_AT(frame, head) == 72,
               "a frame record (version 3)");
_Static_assert(OS_PART(wait) == 96 && OS_AT(wait, runtime) == 48 &&
               OS_AT(wait, sc) == 72 && OS_AT(wait, cpu) == 92,
               "a wait record (version 3)");
_Static_assert(OS_PART(lost) == 32 && OS_PART(end) == 64, "lost and end");
_Static_assert(OS_PART(task) == 40, "a task record");
_Static_assert(OS_PART(frame_v2) == 104 && OS_AT(frame_v2, head) == 84,
               "a frame record (version 2)");
_Static_assert(OS_PART(wait_v2) == 64 && OS_AT(wait_v2, maj_flt) == 56,
               "a wait record (version 2)");

#endif
