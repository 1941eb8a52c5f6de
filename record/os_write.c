/* os_write.c — the recorded file's lines (docs/os.md, "The file"): one
 * JSON object a line, each event as the BPF program sent it, with names
 * where the kernel gives numbers (system calls, wait states), so that the
 * file reads without this program. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

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

const char *rec_syscall_name(long nr) {
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
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

static void write_frame(FILE *f, const struct os_event *e) {
  size_t i, hl = e->u.frame.head_len;
  unsigned char tag = e->u.frame.tag;
  fprintf(f, "{\"t\":\"frame\",\"side\":\"%c\",\"pid\":%u,\"tid\":%u,"
             "\"pipe\":%llu,\"fd\":%u,\"len\":%llu,\"tag\":",
          e->u.frame.write ? 'w' : 'r', e->tgid, e->tid, e->u.frame.pipe,
          e->u.frame.fd, e->u.frame.len);
  json_bytes(f, &tag, e->u.frame.len > 0);
  fputs(",\"head\":\"", f);
  if (hl > OS_HEAD)
    hl = OS_HEAD;
  for (i = 0; i < hl; i++)
    fprintf(f, "%02x", e->u.frame.head[i]);
  fprintf(f, "\",\"enter\":%llu,\"ret\":%llu,\"last_enter\":%llu,"
             "\"last_ret\":%llu,\"calls\":%u}\n",
          e->u.frame.first_enter, e->u.frame.first_exit,
          e->u.frame.last_enter, e->u.frame.last_exit, e->u.frame.calls);
}

static void write_wait(FILE *f, const struct os_event *e) {
  static const char *const why[] = {"cpu", "sleep", "disk"};
  const char *sc = e->u.wait.sc >= 0 ? rec_syscall_name(e->u.wait.sc) : NULL;
  fprintf(f, "{\"t\":\"wait\",\"pid\":%u,\"tid\":%u,\"off\":%llu,"
             "\"wake\":%llu,\"on\":%llu,\"why\":\"%s\",\"nr\":%d,",
          e->tgid, e->tid, e->u.wait.off, e->u.wait.wake, e->u.wait.on,
          why[e->u.wait.why <= OS_WAIT_DISK ? e->u.wait.why : OS_WAIT_SLEEP],
          e->u.wait.sc);
  if (sc)
    fprintf(f, "\"sc\":\"%s\"}\n", sc);
  else if (e->u.wait.sc >= 0)
    fprintf(f, "\"sc\":\"#%d\"}\n", e->u.wait.sc);
  else
    fputs("\"sc\":null}\n", f);
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
  }
}

void rec_write_proc(FILE *f, unsigned long long ns, unsigned pid,
                    unsigned ppid, const char *args, size_t len) {
  struct os_event e;
  memset(&e, 0, sizeof e);
  e.type = OS_EV_EXEC;
  e.ts = ns;
  e.tgid = pid;
  e.u.exec.ppid = ppid;
  e.u.exec.len = len > OS_ARGS ? OS_ARGS : (unsigned)len;
  memcpy(e.u.exec.args, args, e.u.exec.len);
  write_exec(f, &e);
}
