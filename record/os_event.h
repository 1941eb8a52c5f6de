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
  OS_EV_WAIT       /* a traced thread was off its CPU: wait */
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
    } wait;
  } u;
};

#endif
