/* os.bpf.c — the kernel half of `ipcstamp record` (docs/os.md).
 *
 * Follows a set of processes (a map the loader seeds with the first one,
 * which every fork of a traced process extends) and sends to user space,
 * through one ring buffer:
 *  - each netstring frame seen on a pipe by a traced process's read,
 *    write, readv or writev, once per side, when its last byte passed:
 *    the stream's framing is followed here, in the kernel, because a frame
 *    header can be anywhere in a call's bytes (several frames in one
 *    write, a header split over two reads) and copying every byte out
 *    would cost far more;
 *  - each time a traced thread was off its CPU: when, why (its state at
 *    the switch), the system call it was in, when it was woken and when it
 *    ran again;
 *  - exec (with the arguments, which name a SwingSet vat), fork, exit.
 * A traced thread gets its state in task-local storage at its first
 * system call (the tgid looked up in a hash, for threads without storage
 * only), and every program asks that storage first, which is empty — one
 * pointer read — for any thread not traced.  A full ring buffer drops the
 * event and counts it in `lost`: the traced processes are never held up.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "os-format.h"

char LICENSE[] SEC("license") = "GPL";

#define S_IFMT 00170000
#define S_IFIFO 0010000
#define S_IFSOCK 0140000
#define AF_UNIX 1
#define SOCK_STREAM 1

/* Set by the loader before load: the system call numbers of this arch. */
const volatile long nr_read = 0, nr_write = 1, nr_readv = 19, nr_writev = 20;
/* Set by the loader to measure the floor of the collector's cost: every
 * program attached where it always is, and returning at once. */
const volatile int floor_only = 0;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 8 << 20);
} events SEC(".maps");

/* Traced processes: tgid -> 1. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 8192);
  __type(key, u32);
  __type(value, u8);
} traced SEC(".maps");

/* Events the ring buffer could not take. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, u32);
  __type(value, u64);
} lost SEC(".maps");

/* Each traced thread's own state, in the kernel's task-local storage (no
 * hash to search on every system call and context switch; freed with the
 * thread): the system call it is in, whether it did pipe I/O (only such
 * threads' waits are recorded: a Node kernel has a dozen threads of its
 * own whose waits would be most of the events and say nothing of the
 * frames), and the wait it is in. */
struct thread {
  long nr;               /* the system call it is in; -1: none */
  u64 enter;             /* when a read or write entered */
  u64 fd, buf, cnt;      /* read/write's arguments */
  u64 off, wake;         /* off its CPU since; woken at (0: not yet) */
  u64 maj_flt;           /* its major page faults when it left its CPU */
  u64 runtime;           /* ... its se.sum_exec_runtime then */
  u64 steal;             /* ... the CPU's steal clock then */
  int sc;                /* the system call it left its CPU in */
  u32 why;               /* OS_WAIT_* */
  u32 waker, took;       /* who woke it; who took its CPU (preempted) */
  u8 io, offcpu;
};
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct thread);
} threads SEC(".maps");

/* Threads whose name was written (an OS_EV_TASK record): tid -> 1. */
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 16384);
  __type(key, u32);
  __type(value, u8);
} named SEC(".maps");

/* The framing of one side of one pipe. */
enum { PH_HDR, PH_TAG, PH_BODY, PH_UNSYNC };
struct stream_key {
  u64 ino;
  u32 write;
  u32 pad;
};
struct stream {
  u32 phase, ndig, calls, pad;
  u64 len, remaining;
  u64 first_enter, first_exit;
  u8 tag, head_len;
  u8 head[2 * OS_HEAD]; /* the first OS_HEAD kept; see head_more */
};
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 4096);
  __type(key, struct stream_key);
  __type(value, struct stream);
} streams SEC(".maps");

/* One call's part in a stream. */
struct io {
  u32 tgid, tid, fd, write;
  u64 ino, enter, exit;
};

static __always_inline int is_traced(u32 tgid) {
  return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

/* An event of type whose part of the union is size bytes: each type takes
 * only its own room in the ring buffer (an exec's arguments are most of
 * the struct).  ts: when it happened, where the program has read the clock
 * already (a frame's last call's return, a wait's end), else 0: now. */
#define RESERVE(type, tgid, tid, part, ts) \
  reserve(type, tgid, tid, OS_PART(part), ts)

static __always_inline struct os_event *reserve(u32 type, u32 tgid, u32 tid,
                                                u64 size, u64 ts) {
  struct os_event *e = bpf_ringbuf_reserve(&events, size, 0);
  if (!e) {
    u32 k = 0;
    u64 *n = bpf_map_lookup_elem(&lost, &k);
    if (n)
      __sync_fetch_and_add(n, 1);
    return NULL;
  }
  e->type = type;
  e->tgid = tgid;
  e->tid = tid;
  e->pad = 0;
  e->ts = ts ? ts : bpf_ktime_get_ns();
  return e;
}

/* The reader is woken only when the buffer is half full: a wake-up per
 * event would cost a context switch each (it polls every 100 ms anyway). */
static __always_inline void submit(struct os_event *e) {
  u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
  bpf_ringbuf_submit(e, avail > (4 << 20) ? BPF_RB_FORCE_WAKEUP
                                          : BPF_RB_NO_WAKEUP);
}

static __always_inline void emit_frame(struct stream *s, const struct io *io) {
  struct os_event *e = RESERVE(OS_EV_FRAME, io->tgid, io->tid, frame, io->exit);
  if (!e)
    return;
  e->u.frame.pipe = io->ino;
  e->u.frame.len = (u32)s->len; /* at most 9 digits */
  e->u.frame.first_enter = s->first_enter;
  e->u.frame.first_exit = s->first_exit;
  e->u.frame.last_enter = io->enter; /* the last call's return: e->ts */
  e->u.frame.fd = io->fd;
  e->u.frame.calls = s->calls;
  e->u.frame.write = io->write;
  e->u.frame.tag = s->tag;
  e->u.frame.head_len = s->head_len;
  e->u.frame.pad = 0;
  __builtin_memcpy(e->u.frame.head, s->head, OS_HEAD);
  submit(e);
}

#include "os_frame.bpf.h"

/* The stream behind fd of the current process, or 0: a pipe's inode
 * number, or for a Unix stream socket (what Node's child_process makes of
 * a 'pipe') the address of the socket that receives the bytes, marked — the peer
 * for a write, the socket itself for a read — so that the writer's and the
 * reader's sides of a frame have the same id. */
static __always_inline u64 stream_id(u64 fd, int write) {
  /* The task's own pointers are read directly (BTF-typed loads, no
   * helper call each): this runs on every read and write of a traced
   * process. */
  struct task_struct *t = bpf_get_current_task_btf();
  struct fdtable *fdt = t->files->fdt;
  struct file **fds;
  struct file *f = NULL;
  struct inode *ino;
  struct socket *sock;
  struct sock *sk;
  unsigned int max = fdt->max_fds;
  umode_t mode;
  if (fd >= max)
    return 0;
  fds = fdt->fd;
  bpf_probe_read_kernel(&f, sizeof f, fds + fd);
  if (!f)
    return 0;
  ino = BPF_CORE_READ(f, f_inode);
  mode = BPF_CORE_READ(ino, i_mode) & S_IFMT;
  if (mode == S_IFIFO)
    return BPF_CORE_READ(ino, i_ino);
  if (mode != S_IFSOCK)
    return 0;
  sock = BPF_CORE_READ(f, private_data);
  if (!sock || BPF_CORE_READ(sock, type) != SOCK_STREAM)
    return 0;
  sk = BPF_CORE_READ(sock, sk);
  if (!sk || BPF_CORE_READ(sk, __sk_common.skc_family) != AF_UNIX)
    return 0;
  if (write)
    sk = BPF_CORE_READ((struct unix_sock *)sk, peer);
  if (!sk)
    return 0;
  /* Apart from pipes' inode numbers, and within 63 bits: a JSON number
   * every reader takes whole (the socket's address, less the high bits
   * that all kernel addresses share). */
  return (1ull << 56) | ((u64)sk & 0xffffffffffffull);
}

static __always_inline struct stream *stream_of(u64 ino, u32 write, int start) {
  struct stream_key k = {.ino = ino, .write = write};
  struct stream *s = bpf_map_lookup_elem(&streams, &k);
  if (!s) {
    struct stream z = {};
    /* Seen first at a call's start: try to frame from there. */
    z.phase = start ? PH_HDR : PH_UNSYNC;
    bpf_map_update_elem(&streams, &k, &z, BPF_NOEXIST);
    s = bpf_map_lookup_elem(&streams, &k);
  }
  if (s && s->phase == PH_UNSYNC && start) {
    /* Writers start frames at a call's start: resync there. */
    s->phase = PH_HDR;
    s->ndig = 0;
    s->len = 0;
  }
  return s;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_enter, struct pt_regs *regs, long id) {
  struct task_struct *task;
  struct thread *c;
  if (floor_only)
    return 0;
  /* A thread with storage is traced (one pointer read); the hash of
   * traced processes is asked only for a thread without, i.e. once per
   * traced thread and on every system call of the others. */
  task = bpf_get_current_task_btf();
  c = bpf_task_storage_get(&threads, task, 0, 0);
  if (!c) {
    if (!is_traced(bpf_get_current_pid_tgid() >> 32))
      return 0;
    c = bpf_task_storage_get(&threads, task, 0,
                             BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!c)
      return 0;
  }
  c->nr = id;
  /* Only a read's or a write's entry is ever written out (a frame's
   * enter): the clock is read for those alone. */
  if (id == nr_read || id == nr_write || id == nr_readv || id == nr_writev) {
    c->enter = bpf_ktime_get_ns();
    c->fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
    c->buf = PT_REGS_PARM2_CORE_SYSCALL(regs);
    c->cnt = PT_REGS_PARM3_CORE_SYSCALL(regs);
  }
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_exit, struct pt_regs *regs, long ret) {
  u64 pt = bpf_get_current_pid_tgid();
  u32 tid = (u32)pt;
  struct thread *c;
  struct io io = {};
  struct stream *s;
  long nr;
  if (floor_only)
    return 0;
  /* Only a traced thread has the storage (on_enter made it). */
  c = bpf_task_storage_get(&threads, bpf_get_current_task_btf(), 0, 0);
  if (!c)
    return 0;
  nr = c->nr;
  c->nr = -1;
  if (ret <= 0 ||
      !(nr == nr_read || nr == nr_write || nr == nr_readv || nr == nr_writev))
    return 0;
  io.write = nr == nr_write || nr == nr_writev;
  io.ino = stream_id(c->fd, io.write);
  if (!io.ino)
    return 0;
  io.tgid = pt >> 32;
  io.tid = tid;
  io.fd = c->fd;
  c->io = 1; /* its waits are recorded from now on */
  io.enter = c->enter;
  io.exit = bpf_ktime_get_ns();
  s = stream_of(io.ino, io.write, 1);
  if (!s)
    return 0;
  if (s->phase != PH_HDR || s->ndig > 0) /* a frame goes on in this call */
    s->calls++;
  if (nr == nr_read || nr == nr_write) {
    feed(s, c->buf, (u64)ret, &io);
  } else {
    /* readv/writev: the iovecs in order, as far as ret goes. */
    const struct iovec *iov = (const struct iovec *)c->buf;
    u64 left = (u64)ret;
    int i;
    for (i = 0; i < 8; i++) {
      struct iovec v = {};
      u64 n;
      if (left == 0 || (u64)i >= c->cnt)
        break;
      if (bpf_probe_read_user(&v, sizeof v, iov + i) != 0)
        break;
      n = v.iov_len < left ? v.iov_len : left;
      feed(s, (u64)v.iov_base, n, &io);
      left -= n;
    }
  }
  return 0;
}

/* The steal clock of the run queue of p's CPU (p leaving it or coming
 * onto it): what the hypervisor took of that CPU so far, as the scheduler
 * last read it; 0 on a kernel built without steal time accounting.  The
 * run queue is reached through p's own fair-class queue: the per-CPU
 * `runqueues` is not in every kernel's symbol table (without
 * CONFIG_KALLSYMS_ALL, ksyms of data cannot be resolved). */
static __always_inline u64 steal_of(struct task_struct *p) {
  struct cfs_rq *cq = BPF_CORE_READ(p, se.cfs_rq);
  struct rq *rq;
  if (!cq || !bpf_core_field_exists(rq->prev_steal_time_rq))
    return 0;
  if (bpf_core_field_exists(cq->rq)) /* CONFIG_FAIR_GROUP_SCHED */
    rq = BPF_CORE_READ(cq, rq);
  else /* the CPU's own queue, inside its rq */
    rq = (struct rq *)((char *)cq - bpf_core_field_offset(struct rq, cfs));
  return rq ? BPF_CORE_READ(rq, prev_steal_time_rq) : 0;
}

/* The name of thread p, once (an OS_EV_TASK record), for a wait that
 * names it (took, left): a record per thread, not 16 bytes per wait. */
static __always_inline void name_task(struct task_struct *p) {
  u32 tid = p->pid;
  u8 one = 1;
  struct os_event *e;
  if (!tid || bpf_map_lookup_elem(&named, &tid))
    return;
  bpf_map_update_elem(&named, &tid, &one, BPF_ANY);
  e = RESERVE(OS_EV_TASK, p->tgid, tid, task, 0);
  if (!e)
    return;
  __builtin_memcpy(e->u.task.comm, p->comm, OS_COMM);
  submit(e);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
             struct task_struct *next, unsigned int prev_state) {
  u64 now = bpf_ktime_get_ns();
  struct thread *t;
  if (floor_only)
    return 0;
  if ((t = bpf_task_storage_get(&threads, prev, 0, 0)) && t->io) {
    t->off = now;
    t->wake = 0;
    t->waker = 0;
    t->sc = t->nr >= 0 ? (int)t->nr : -1;
    t->why = (prev_state & 0xff) == 0 ? OS_WAIT_CPU
             : (prev_state & 2)       ? OS_WAIT_DISK
                                      : OS_WAIT_SLEEP;
    /* BTF-typed loads: no helper call.  The scheduler charged prev's run
     * before this tracepoint (put_prev_task), so runtime is up to date. */
    t->maj_flt = prev->maj_flt;
    t->runtime = prev->se.sum_exec_runtime;
    t->steal = steal_of(prev);
    t->took = 0;
    if (t->why == OS_WAIT_CPU) {
      t->took = next->pid;
      name_task(next);
    }
    t->offcpu = 1;
  }
  if ((t = bpf_task_storage_get(&threads, next, 0, 0)) && t->offcpu) {
    struct os_event *e = RESERVE(OS_EV_WAIT, next->tgid, next->pid, wait, now);
    if (e) {
      e->u.wait.off = t->off;
      e->u.wait.wake = t->wake;
      e->u.wait.maj_flt = t->maj_flt;
      e->u.wait.runtime = t->runtime;
      e->u.wait.steal_off = t->steal;
      e->u.wait.steal_on = steal_of(next);
      e->u.wait.sc = t->sc;
      e->u.wait.why = t->why;
      e->u.wait.waker = t->waker;
      e->u.wait.took = t->took;
      e->u.wait.left = prev->pid;
      e->u.wait.cpu = bpf_get_smp_processor_id();
      submit(e);
    }
    name_task(prev);
    t->offcpu = 0;
  }
  return 0;
}

static __always_inline void woken(struct task_struct *p) {
  struct thread *t;
  if (floor_only)
    return;
  t = bpf_task_storage_get(&threads, p, 0, 0);
  if (t && t->offcpu && !t->wake) {
    t->wake = bpf_ktime_get_ns();
    /* The waker is the thread running here (in an interrupt, whichever
     * thread it interrupted). */
    t->waker = (u32)bpf_get_current_pid_tgid();
  }
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p) {
  woken(p);
  return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child) {
  u32 ptgid = parent->tgid, ctgid = child->tgid;
  u8 one = 1;
  struct os_event *e;
  if (floor_only || ptgid == ctgid || !is_traced(ptgid))
    return 0;
  bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY);
  e = RESERVE(OS_EV_FORK, ptgid, parent->pid, fork, 0);
  if (e) {
    e->u.fork.child = ctgid;
    submit(e);
  }
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid,
             struct linux_binprm *bprm) {
  u32 tgid = p->tgid;
  struct os_event *e;
  u64 start, end, len;
  if (floor_only || !is_traced(tgid))
    return 0;
  e = RESERVE(OS_EV_EXEC, tgid, p->pid, exec, 0);
  if (!e)
    return 0;
  e->u.exec.ppid = BPF_CORE_READ(p, real_parent, tgid);
  start = BPF_CORE_READ(p, mm, arg_start);
  end = BPF_CORE_READ(p, mm, arg_end);
  len = end > start ? end - start : 0;
  if (len > OS_ARGS)
    len = OS_ARGS;
  e->u.exec.len = 0;
  if (len > 0 && len <= OS_ARGS &&
      bpf_probe_read_user(e->u.exec.args, len, (const void *)start) == 0)
    e->u.exec.len = len;
  submit(e);
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit_proc, struct task_struct *p) {
  u32 tgid = p->tgid, tid = p->pid;
  struct os_event *e;
  if (floor_only || !is_traced(tgid))
    return 0;
  if (tid != tgid)
    return 0;
  e = RESERVE(OS_EV_EXIT, tgid, tid, exit, 0);
  if (e) {
    e->u.exit.code = BPF_CORE_READ(p, exit_code);
    submit(e);
  }
  bpf_map_delete_elem(&traced, &tgid);
  return 0;
}
