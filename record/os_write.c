/* os_write.c — the recorded file (docs/os.md, "The file"): version 2,
 * the kernel's records copied as they came after a header that describes
 * them; or, live (-o -), version 1's lines: one JSON object a line, with
 * names where the kernel gives numbers (system calls, wait states), for
 * people and jq. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>

#include "record.h"

/* The system calls a wait is named by: those a parent or worker waits in
 * (pipes, futexes, polling, sleeps) and those that touch the disk. */
static const struct {
  long nr;
  const char *name;
} names[] = {
#define SC(n) {SYS_##n, #n},
    SC(read) SC(write) SC(readv) SC(writev) SC(pread64) SC(pwrite64)
    SC(preadv) SC(pwritev) SC(fsync) SC(fdatasync) SC(sync) SC(syncfs)
    SC(sync_file_range) SC(futex) SC(epoll_wait) SC(epoll_pwait) SC(poll)
    SC(ppoll) SC(select) SC(pselect6) SC(nanosleep) SC(clock_nanosleep)
    SC(wait4) SC(waitid) SC(openat) SC(close) SC(mmap) SC(munmap)
    SC(mprotect) SC(brk) SC(msync) SC(madvise) SC(io_uring_enter)
    SC(fallocate) SC(ftruncate) SC(rename) SC(renameat) SC(unlink)
    SC(unlinkat) SC(fstat) SC(newfstatat) SC(lseek) SC(sched_yield)
    SC(getdents64) SC(execve) SC(exit_group) SC(accept4) SC(recvfrom)
    SC(sendto) SC(recvmsg) SC(sendmsg) SC(connect) SC(vfork)
    SC(clone) SC(clone3)
#undef SC
};

#define NNAMES (sizeof names / sizeof names[0])

unsigned long long rec_mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull +
         (unsigned long long)t.tv_nsec;
}

long long rec_wall_off(void) {
  struct timespec m, r;
  clock_gettime(CLOCK_MONOTONIC, &m);
  clock_gettime(CLOCK_REALTIME, &r);
  return ((long long)r.tv_sec - m.tv_sec) * 1000000000ll +
         (r.tv_nsec - m.tv_nsec);
}

const char *rec_syscall_name(long nr) {
  size_t i;
  for (i = 0; i < NNAMES; i++)
    if (names[i].nr == nr)
      return names[i].name;
  return NULL;
}

/* s[0..n) as a JSON string: every byte outside printable ASCII escaped,
 * so untrusted arguments never break the line or the encoding. */
static void json_bytes(FILE *f, const unsigned char *s, size_t n) {
  size_t i;
  putc('"', f);
  for (i = 0; i < n; i++) {
    unsigned c = s[i];
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
      fprintf(f, "\\u%04x", c);
    else
      putc((int)c, f);
  }
  putc('"', f);
}

static void write_exec(FILE *f, const struct os_event *e) {
  size_t i, start = 0, n = e->u.exec.len;
  int first = 1;
  const unsigned char *a = (const unsigned char *)e->u.exec.args;
  fprintf(f, "{\"t\":\"exec\",\"ns\":%llu,\"pid\":%u,\"ppid\":%u,\"argv\":[",
          e->ts, e->tgid, e->u.exec.ppid);
  if (n > OS_ARGS)
    n = OS_ARGS;
  for (i = 0; i <= n; i++) {
    if (i < n && a[i] != '\0')
      continue;
    if (i > start || i < n) {
      if (!first)
        putc(',', f);
      json_bytes(f, a + start, i - start);
      first = 0;
    }
    start = i + 1;
  }
  fputs("]}\n", f);
}

/* A line built in a buffer and written at once: frames and waits are
 * nearly every event, and fprintf's parsing of a dozen conversions per
 * line was most of the collector's time. */
typedef struct {
  char b[512];
  size_t n;
} line_t;

static void put(line_t *l, const char *s) {
  size_t k = strlen(s);
  if (k > sizeof l->b - l->n)
    k = sizeof l->b - l->n;
  memcpy(l->b + l->n, s, k);
  l->n += k;
}

/* key (a literal with its quotes, colon and comma) and a number. */
static void put_u(line_t *l, const char *key, unsigned long long v) {
  char d[24];
  size_t i = sizeof d;
  put(l, key);
  do
    d[--i] = (char)('0' + v % 10);
  while ((v /= 10) && i > 0);
  if (sizeof d - i <= sizeof l->b - l->n) {
    memcpy(l->b + l->n, d + i, sizeof d - i);
    l->n += sizeof d - i;
  }
}

static void put_i(line_t *l, const char *key, long long v) {
  if (v < 0) {
    put(l, key);
    put_u(l, "-", (unsigned long long)-(v + 1) + 1);
  } else {
    put_u(l, key, (unsigned long long)v);
  }
}

static void write_frame(FILE *f, const struct os_event *e) {
  static const char hex[] = "0123456789abcdef";
  size_t i, hl = e->u.frame.head_len;
  unsigned char tag = e->u.frame.tag;
  line_t l;
  l.n = 0;
  put(&l, e->u.frame.write ? "{\"t\":\"frame\",\"side\":\"w\""
                           : "{\"t\":\"frame\",\"side\":\"r\"");
  put_u(&l, ",\"pid\":", e->tgid);
  put_u(&l, ",\"tid\":", e->tid);
  put_u(&l, ",\"pipe\":", e->u.frame.pipe);
  put_u(&l, ",\"fd\":", e->u.frame.fd);
  put_u(&l, ",\"len\":", e->u.frame.len);
  put(&l, ",\"tag\":\"");
  if (e->u.frame.len > 0 && tag >= 0x20 && tag < 0x7f && tag != '"' && tag != '\\')
    l.b[l.n++] = (char)tag;
  else if (e->u.frame.len > 0)
    l.n += (size_t)snprintf(l.b + l.n, 8, "\\u%04x", tag);
  put(&l, "\",\"head\":\"");
  if (hl > OS_HEAD)
    hl = OS_HEAD;
  for (i = 0; i < hl; i++) {
    l.b[l.n++] = hex[e->u.frame.head[i] >> 4];
    l.b[l.n++] = hex[e->u.frame.head[i] & 15];
  }
  put(&l, "\"");
  put_u(&l, ",\"enter\":", e->u.frame.first_enter);
  put_u(&l, ",\"ret\":", e->u.frame.first_exit);
  put_u(&l, ",\"last_enter\":", e->u.frame.last_enter);
  put_u(&l, ",\"last_ret\":", e->ts);
  put_u(&l, ",\"calls\":", e->u.frame.calls);
  put(&l, "}\n");
  fwrite(l.b, 1, l.n, f);
}

static void write_wait(FILE *f, const struct os_event *e) {
  static const char *const why[] = {"cpu", "sleep", "disk"};
  const char *sc = e->u.wait.sc >= 0 ? rec_syscall_name(e->u.wait.sc) : NULL;
  line_t l;
  l.n = 0;
  put_u(&l, "{\"t\":\"wait\",\"pid\":", e->tgid);
  put_u(&l, ",\"tid\":", e->tid);
  put_u(&l, ",\"off\":", e->u.wait.off);
  put_u(&l, ",\"wake\":", e->u.wait.wake);
  put_u(&l, ",\"on\":", e->ts);
  put(&l, ",\"why\":\"");
  put(&l, why[e->u.wait.why <= OS_WAIT_DISK ? e->u.wait.why : OS_WAIT_SLEEP]);
  put_i(&l, "\",\"nr\":", e->u.wait.sc);
  put_u(&l, ",\"maj_flt\":", e->u.wait.maj_flt);
  put_u(&l, ",\"runtime\":", e->u.wait.runtime);
  put_u(&l, ",\"steal_off\":", e->u.wait.steal_off);
  put_u(&l, ",\"steal_on\":", e->u.wait.steal_on);
  put_u(&l, ",\"waker\":", e->u.wait.waker);
  put_u(&l, ",\"took\":", e->u.wait.took);
  put_u(&l, ",\"left\":", e->u.wait.left);
  put_u(&l, ",\"cpu\":", e->u.wait.cpu);
  if (sc) {
    put(&l, ",\"sc\":\"");
    put(&l, sc);
    put(&l, "\"}\n");
  } else if (e->u.wait.sc >= 0) {
    put_u(&l, ",\"sc\":\"#", (unsigned long long)e->u.wait.sc);
    put(&l, "\"}\n");
  } else {
    put(&l, ",\"sc\":null}\n");
  }
  fwrite(l.b, 1, l.n, f);
}

void rec_write_event(FILE *f, const struct os_event *e) {
  switch (e->type) {
    case OS_EV_EXEC:
      write_exec(f, e);
      break;
    case OS_EV_FORK:
      fprintf(f, "{\"t\":\"fork\",\"ns\":%llu,\"pid\":%u,\"child\":%u}\n",
              e->ts, e->tgid, e->u.fork.child);
      break;
    case OS_EV_EXIT:
      fprintf(f, "{\"t\":\"exit\",\"ns\":%llu,\"pid\":%u,\"code\":%d}\n",
              e->ts, e->tgid, e->u.exit.code);
      break;
    case OS_EV_FRAME:
      write_frame(f, e);
      break;
    case OS_EV_WAIT:
      write_wait(f, e);
      break;
    case OS_EV_TASK:
      fprintf(f, "{\"t\":\"task\",\"pid\":%u,\"tid\":%u,\"comm\":",
              e->tgid, e->tid);
      json_bytes(f, (const unsigned char *)e->u.task.comm,
                 strnlen(e->u.task.comm, OS_COMM));
      fputs("}\n", f);
      break;
    case OS_EV_LOST:
      fprintf(f, "{\"t\":\"lost\",\"n\":%llu}\n", e->u.lost.n);
      break;
    case OS_EV_END:
      fprintf(f, "{\"t\":\"end\",\"ns\":%llu,\"events\":%llu,\"lost\":%llu,"
                 "\"collector_cpu_ns\":%lld", e->ts, e->u.end.events,
              e->u.end.lost, e->u.end.collector_cpu_ns);
      if (e->u.end.has_status)
        fprintf(f, ",\"status\":%d", e->u.end.status);
      fprintf(f, ",\"collector_max_rss_kb\":%llu}\n", e->u.end.max_rss_kb);
      break;
  }
}

void rec_write_header(FILE *f, unsigned long long start, long long wall,
                      long pid) {
  struct utsname u;
  if (uname(&u) != 0)
    strcpy(u.release, "?");
  fprintf(f, "{\"ipcstamp_os\":1,\"clock\":\"CLOCK_MONOTONIC\",\"unit\":\"ns\","
             "\"start\":%llu,\"start_wall_ns\":%lld,\"kernel\":\"%s\",",
          start, wall, u.release);
  if (pid <= 0)
    fputs("\"follow\":\"command\"}\n", f);
  else
    fprintf(f, "\"follow\":\"pid\",\"pid\":%ld}\n", pid);
}

/* Each type's record in the file: its part as the kernel reserves it
 * (os.bpf.c's RESERVE), padded to 8 bytes (proto/os-format.h). */
static const size_t file_size[OS_EV_TYPES] = {OS_PARTS(OS_FILE_SIZE_INIT)};

/* s into a field of n bytes, NUL-padded, cut to n - 1. */
static void fixed(char *dst, size_t n, const char *s) {
  size_t k = strlen(s);
  memset(dst, 0, n);
  memcpy(dst, s, k < n ? k : n - 1);
}

size_t rec_bin_size(unsigned type) {
  return type < OS_EV_TYPES ? file_size[type] : 0;
}

int rec_bin_header(FILE *f, unsigned long long start, long long wall,
                   long pid) {
  struct os_file_header h;
  struct os_file_name n;
  struct utsname u;
  size_t i;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, OS_FILE_MAGIC, sizeof h.magic);
  h.version = OS_FILE_VERSION;
  h.header_size = (unsigned)OS_PAD8(sizeof h + NNAMES * sizeof n);
  h.clock = 1;
  h.follow = pid > 0;
  h.start = start;
  h.start_wall_ns = wall;
  h.pid = pid > 0 ? (unsigned)pid : 0;
  h.ntypes = OS_FILE_TYPES;
  for (i = 1; i < OS_EV_TYPES; i++)
    h.size[i] = (unsigned)rec_bin_size((unsigned)i);
  if (uname(&u) == 0) {
    fixed(h.kernel, sizeof h.kernel, u.release);
    fixed(h.machine, sizeof h.machine, u.machine);
  }
  h.nnames = (unsigned)NNAMES;
  h.name_size = sizeof n;
  if (fwrite(&h, sizeof h, 1, f) != 1)
    return -1;
  for (i = 0; i < NNAMES; i++) {
    memset(&n, 0, sizeof n);
    n.nr = (int)names[i].nr;
    fixed(n.name, sizeof n.name, names[i].name);
    if (fwrite(&n, sizeof n, 1, f) != 1)
      return -1;
  }
  for (i = sizeof h + NNAMES * sizeof n; i < h.header_size; i++)
    putc(0, f);
  return 0;
}

int rec_bin_event(FILE *f, const void *data, size_t size) {
  static const char zero[8];
  unsigned type;
  size_t want;
  if (size < sizeof type)
    return -1;
  memcpy(&type, data, sizeof type);
  if (!(want = rec_bin_size(type)) || size > want)
    return -1;
  fwrite(data, 1, size, f);
  /* The kernel's record may end short of its type's padded size (a fork
   * is 28 bytes): zeros to the record's size. */
  if (want > size)
    fwrite(zero, 1, want - size, f);
  return 0;
}

void rec_proc_event(struct os_event *e, unsigned long long ns, unsigned pid,
                    unsigned ppid, const char *args, size_t len) {
  memset(e, 0, sizeof *e);
  e->type = OS_EV_EXEC;
  e->ts = ns;
  e->tgid = pid;
  e->u.exec.ppid = ppid;
  e->u.exec.len = len > OS_ARGS ? OS_ARGS : (unsigned)len;
  memcpy(e->u.exec.args, args, e->u.exec.len);
}

void rec_end_event(struct os_event *e, unsigned long long ns,
                   unsigned long long events, unsigned long long lost) {
  struct rusage ru;
  memset(e, 0, sizeof *e);
  e->type = OS_EV_END;
  e->ts = ns;
  e->u.end.events = events;
  e->u.end.lost = lost;
  e->u.end.collector_cpu_ns = -1;
  /* The collector's own CPU time and memory, so that its cost is in the
   * file. */
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    e->u.end.collector_cpu_ns =
        ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
        ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll;
    e->u.end.max_rss_kb = (unsigned long long)ru.ru_maxrss;
  }
}
