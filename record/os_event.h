/* os_event.h — the one event both halves of `ipcstamp record` share: the
 * BPF program (os.bpf.c) fills it in the kernel, the loader (record.c)
 * writes it to the recorded file (docs/os.md).  Plain C types only, so
 * that it compiles for the BPF target (with vmlinux.h) and for the host. */
#ifndef IPCSTAMP_RECORD_OS_EVENT_H
#define IPCSTAMP_RECORD_OS_EVENT_H

/* The first bytes of a frame's payload kept (after its tag), and of an
 * exec's arguments. */
#define OS_HEAD 16
#define OS_ARGS 256

enum {
  OS_EV_EXEC = 1,  /* a traced process ran execve: args */
  OS_EV_FORK,      /* a traced process made a new process: child */
  OS_EV_EXIT,      /* a traced process ended: code */
  OS_EV_FRAME,     /* one side of a netstring frame on a pipe: frame */
  OS_EV_WAIT,      /* a traced thread was off its CPU: wait */
  /* Written by the collector itself, never by the kernel: */
  OS_EV_LOST,      /* events the kernel dropped so far: lost */
  OS_EV_END,       /* the recording's end: end */
  OS_EV_TYPES      /* one past the last type */
};

/* Why a thread left its CPU (its state at the switch). */
enum {
  OS_WAIT_CPU = 0,   /* still runnable: preempted, waiting for a CPU */
  OS_WAIT_SLEEP = 1, /* interruptible sleep (a pipe, futex, epoll...) */
  OS_WAIT_DISK = 2   /* uninterruptible sleep (disk I/O, paging) */
};

struct os_event {
  unsigned int type;   /* OS_EV_* */
  unsigned int tgid;   /* the process */
  unsigned int tid;    /* the thread */
  unsigned int pad;
  unsigned long long ts; /* CLOCK_MONOTONIC ns (bpf_ktime_get_ns) */
  union {
    struct {
      unsigned int ppid, len; /* len: bytes of args (NUL-separated) */
      char args[OS_ARGS];
    } exec;
    struct {
      unsigned int child;
    } fork;
    struct {
      int code;        /* the exit status as wait() gives it */
    } exit;
    struct {
      unsigned long long pipe;  /* the pipe's inode number */
      unsigned long long len;   /* the declared length (tag included) */
      unsigned long long first_enter, first_exit; /* the call with the
                                                      frame's first byte */
      unsigned long long last_enter, last_exit;   /* ... with its last */
      unsigned int fd, calls;   /* calls: system calls that carried it */
      unsigned char write;      /* 1 the writer's side, 0 the reader's */
      unsigned char tag, head_len, pad;
      unsigned char head[OS_HEAD];
    } frame;
    struct {
      unsigned long long off, wake, on; /* wake 0: never woken (CPU) */
      int sc;                   /* the system call it was in, or -1 */
      unsigned int why;         /* OS_WAIT_* */
      /* The thread's major page faults so far when it left its CPU: the
       * kernel counts a fault when its handling ends, after the thread
       * ran again, so the faults a wait slept in show in the next wait's
       * count (docs/os.md). */
      unsigned long long maj_flt;
    } wait;
    struct {
      unsigned long long n;
    } lost;
    struct {
      unsigned long long events, lost; /* events written, lost in all */
      long long collector_cpu_ns;      /* -1: unknown */
      int status;                      /* the command's wait status */
      unsigned int has_status;         /* 0: none (--pid) */
      unsigned long long max_rss_kb;   /* the collector's own peak RSS */
    } end;
  } u;
};

/* The recorded file, format version 2 (docs/os.md, "The file"): this
 * header, then records — each a struct os_event cut to its type's part of
 * the union and padded to 8 bytes — as they came, little-endian.  The
 * header says each type's record size and the system calls' names, so a
 * reader needs nothing of this machine. */
#define OS_FILE_MAGIC "\x89IPS-OS\n"
#define OS_FILE_VERSION 2
#define OS_FILE_TYPES 16   /* entries of size[] */
#define OS_FILE_NAME 20    /* bytes of a system call's name (NUL-padded) */
struct os_file_header {
  char magic[8];
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

#endif
