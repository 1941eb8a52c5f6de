/* ipcstamp-worker-c: a plain C worker for tests and benchmarks.
 *
 * A delivery is a small JSON object; every field is optional:
 *   {"upcalls":3,"upcall_bytes":32,"spin_us":200,"cpu_us":0,"sleep_us":0,
 *    "reply_bytes":64,"fail":"message","exit":N,
 *    "marks":0,"spans":0,"open":0,"stray":0}
 * In that order, the worker makes `upcalls` upcalls of `upcall_bytes` bytes
 * each (["vatstoreGet","k<i>"] padded with spaces: valid JSON in the
 * kernel's syscall shape), busy-works `spin_us` microseconds, then
 * until it has used `cpu_us` microseconds of CPU in the command, sleeps
 * `sleep_us`, then exits at once with status `exit` when given (a crash in
 * the middle of a delivery), answers '!' + `fail` when given, and otherwise
 * answers '.' with a result of `reply_bytes` bytes (a JSON string "xx…x";
 * for 1 byte, the number 0).  An empty or non-JSON delivery counts as all
 * zeros, so a benchmark can send the smallest possible delivery.
 *
 * Marks, for tests and benchmarks: `marks` marks named "mark"
 * before the upcalls; `spans` spans named "span" that share the `spin_us`
 * between them, nested in one span "work" around the upcalls and the spin;
 * `open` begins of "open" never ended and `stray` ends of "stray" never
 * begun (both reported as unbalanced).  A JSON
 * object with a bad value for one of these fields is answered with '!'.
 *
 * It must never be the bottleneck of a benchmark: the command is parsed once
 * per delivery with yajl's event parser (no tree), and the upcall and result
 * buffers grow to the largest size asked for and are then reused.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "ipcstamp-worker.h"

#define PROG "ipcstamp-worker-c"
/* Bounds that keep a typo from running for hours or asking for gigabytes. */
#define MAX_UPCALLS 100000000ull
#define MAX_TIME_US 600000000ull /* ten minutes */
#define MAX_BYTES 900000000ull

enum { K_NONE, K_UPCALLS, K_UPCALL_BYTES, K_SPIN, K_CPU, K_SLEEP, K_REPLY, K_FAIL,
       K_EXIT, K_MARKS, K_SPANS, K_OPEN, K_STRAY, K_OTHER };

typedef struct command_s {
  unsigned long long upcalls, upcall_bytes, spin_us, cpu_us, sleep_us;
  unsigned long long reply_bytes;
  unsigned long long marks, spans, open, stray;
  int has_exit;
  int exit_code;
  int has_fail;
  char fail[512];
  size_t fail_len;
  /* parser state */
  int depth;
  int key;
  char bad[160];
} command_t;

static const struct {
  const char *name;
  int key;
  unsigned long long max;
} keys[] = {
    {"upcalls", K_UPCALLS, MAX_UPCALLS},
    {"upcall_bytes", K_UPCALL_BYTES, MAX_BYTES},
    {"spin_us", K_SPIN, MAX_TIME_US},
    {"cpu_us", K_CPU, MAX_TIME_US},
    {"sleep_us", K_SLEEP, MAX_TIME_US},
    {"reply_bytes", K_REPLY, MAX_BYTES},
    {"fail", K_FAIL, 0},
    {"exit", K_EXIT, 255},
    {"marks", K_MARKS, MAX_UPCALLS},
    {"spans", K_SPANS, MAX_UPCALLS},
    {"open", K_OPEN, MAX_UPCALLS},
    {"stray", K_STRAY, MAX_UPCALLS},
};

static const char *key_name(int key) {
  size_t i;
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (keys[i].key == key) return keys[i].name;
  return "?";
}

static int bad_value(command_t *c, const char *what) {
  snprintf(c->bad, sizeof c->bad, "\"%s\" must be %s", key_name(c->key),
           what);
  return 0; /* stops the parser */
}

static int on_key(void *ctx, const unsigned char *k, size_t n) {
  command_t *c = ctx;
  size_t i;
  c->key = K_OTHER;
  if (c->depth != 1) return 1;
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strlen(keys[i].name) == n && memcmp(keys[i].name, k, n) == 0)
      c->key = keys[i].key;
  return 1;
}

static int on_integer(void *ctx, long long v) {
  command_t *c = ctx;
  unsigned long long *slot = NULL, max = 0;
  size_t i;
  if (c->depth != 1 || c->key == K_OTHER) return 1;
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (keys[i].key == c->key) max = keys[i].max;
  switch (c->key) {
  case K_UPCALLS: slot = &c->upcalls; break;
  case K_UPCALL_BYTES: slot = &c->upcall_bytes; break;
  case K_SPIN: slot = &c->spin_us; break;
  case K_CPU: slot = &c->cpu_us; break;
  case K_SLEEP: slot = &c->sleep_us; break;
  case K_REPLY: slot = &c->reply_bytes; break;
  case K_MARKS: slot = &c->marks; break;
  case K_SPANS: slot = &c->spans; break;
  case K_OPEN: slot = &c->open; break;
  case K_STRAY: slot = &c->stray; break;
  case K_EXIT: break;
  default: return bad_value(c, "a string");
  }
  if (v < 0 || (unsigned long long)v > max) {
    char what[64];
    snprintf(what, sizeof what, "a whole number from 0 to %llu", max);
    return bad_value(c, what);
  }
  if (slot) {
    *slot = (unsigned long long)v;
  } else {
    c->has_exit = 1;
    c->exit_code = (int)v;
  }
  return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n) {
  command_t *c = ctx;
  if (c->depth != 1 || c->key == K_OTHER) return 1;
  if (c->key != K_FAIL) return bad_value(c, "a whole number");
  if (n >= sizeof c->fail) n = sizeof c->fail - 1;
  memcpy(c->fail, s, n);
  c->fail_len = n;
  c->has_fail = 1;
  return 1;
}

/* Any other value of a known key is of the wrong type. */
static int on_other(command_t *c) {
  if (c->depth != 1 || c->key == K_OTHER) return 1;
  return bad_value(c, c->key == K_FAIL ? "a string" : "a whole number");
}
static int on_null(void *ctx) { return on_other(ctx); }
static int on_bool(void *ctx, int b) { (void)b; return on_other(ctx); }
static int on_double(void *ctx, double d) { (void)d; return on_other(ctx); }
static int on_start(void *ctx) {
  command_t *c = ctx;
  if (!on_other(c)) return 0;
  c->depth++;
  return 1;
}
static int on_end(void *ctx) {
  ((command_t *)ctx)->depth--;
  return 1;
}

static const yajl_callbacks callbacks = {
    on_null, on_bool, on_integer, on_double, NULL, on_string,
    on_start, on_key, on_end, on_start, on_end};

/* Parse the delivery into c.  Returns 0, or -1 with c->bad set. */
static int parse_command(command_t *c, const char *data, size_t len) {
  yajl_handle h;
  yajl_status st;
  size_t i = 0;

  memset(c, 0, sizeof *c);
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' ||
                     data[i] == '\r'))
    i++;
  if (i == len || data[i] != '{') return 0; /* not a JSON object: zeros */
  h = yajl_alloc(&callbacks, NULL, c);
  if (!h) return 0;
  st = yajl_parse(h, (const unsigned char *)data, len);
  if (st == yajl_status_ok) st = yajl_complete_parse(h);
  yajl_free(h);
  if (c->bad[0]) return -1;
  if (st != yajl_status_ok) {
    command_t zero;
    memset(&zero, 0, sizeof zero);
    *c = zero; /* not JSON after all: zeros */
  }
  return 0;
}

/* A buffer that grows to the largest size asked for, then is reused. */
typedef struct {
  char *p;
  size_t cap;
} buf_t;

static char *buf_room(buf_t *b, size_t n) {
  if (n > b->cap) {
    char *q = realloc(b->p, n);
    if (!q) return NULL;
    b->p = q;
    b->cap = n;
  }
  return b->p;
}

static long long clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spins until clock id has advanced `us` microseconds.  On
 * CLOCK_MONOTONIC that is wall time (spin_us); on CLOCK_PROCESS_CPUTIME_ID
 * it is CPU time used (cpu_us), which a busy machine can delay but never
 * reduce, so a test can require the CPU time it asked for. */
static void spin(clockid_t id, unsigned long long us) {
  long long end = clock_ns(id) + (long long)us * 1000;
  while (clock_ns(id) < end) {
  }
}

static void pause_us(unsigned long long us) {
  struct timespec ts;
  ts.tv_sec = (time_t)(us / 1000000);
  ts.tv_nsec = (long)(us % 1000000) * 1000;
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

typedef struct {
  buf_t upcall;
  buf_t result;
} state_t;

static int reply_no_memory(ips_worker_t *w) {
  static const char m[] = PROG ": out of memory";
  return ips_worker_reply_error(w, m, sizeof m - 1);
}

static int handle(ips_worker_t *w, const ips_command_t *cmd, void *arg) {
  state_t *st = arg;
  command_t c;
  unsigned long long i;
  int rc;

  if (parse_command(&c, cmd->data, cmd->len) != 0)
    return ips_worker_reply_error(w, c.bad, strlen(c.bad));
  /* A mark that is dropped or unbalanced is counted by the library: only a
   * stream error stops the command. */
#define MARK(kind, name)                                                   \
  do {                                                                     \
    rc = ips_worker_mark_n(w, kind, name, sizeof name - 1);                \
    if (rc < 0 && ips_worker_failed(w)) return rc;                         \
  } while (0)
  for (i = 0; i < c.marks; i++) MARK('m', "mark");
  for (i = 0; i < c.open; i++) MARK('b', "open");
  for (i = 0; i < c.stray; i++) MARK('e', "stray");
  if (c.spans) MARK('b', "work");
  /* cmd->data is gone after the first upcall; c holds all we need. */
  for (i = 0; i < c.upcalls; i++) {
    const char *reply;
    size_t reply_len, want = (size_t)c.upcall_bytes, n;
    char head[64];
    int k = snprintf(head, sizeof head, "[\"vatstoreGet\",\"k%llu\"", i);
    n = (size_t)k + 1 > want ? (size_t)k + 1 : want;
    char *p = buf_room(&st->upcall, n);
    if (!p) return reply_no_memory(w);
    memcpy(p, head, (size_t)k);
    memset(p + k, ' ', n - (size_t)k - 1);
    p[n - 1] = ']';
    rc = ips_worker_upcall(w, p, n, &reply, &reply_len);
    if (rc != 0) return rc;
  }
  if (c.spans) {
    for (i = 0; i < c.spans; i++) {
      MARK('b', "span");
      spin(CLOCK_MONOTONIC, c.spin_us / c.spans);
      MARK('e', "span");
    }
    MARK('e', "work");
  } else if (c.spin_us) {
    spin(CLOCK_MONOTONIC, c.spin_us);
  }
#undef MARK
  if (c.cpu_us) spin(CLOCK_PROCESS_CPUTIME_ID, c.cpu_us);
  if (c.sleep_us) pause_us(c.sleep_us);
  if (c.has_exit) {
    fflush(NULL);
    _exit(c.exit_code);
  }
  if (c.has_fail) return ips_worker_reply_error(w, c.fail, c.fail_len);

  size_t n = (size_t)c.reply_bytes;
  char *r = buf_room(&st->result, n ? n : 1);
  if (!r) return reply_no_memory(w);
  if (n == 1) {
    r[0] = '0';
  } else if (n >= 2) {
    memset(r, 'x', n);
    r[0] = r[n - 1] = '"';
  }
  return ips_worker_reply_ok(w, r, n, NULL);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: " PROG " [-h|--help] [-v|--version]\n"
          "A plain C ipcstamp worker for tests and benchmarks: it reads\n"
          "commands on fd 3 and answers on fd 4 (netstrings).  A delivery\n"
          "is a JSON object, every field optional:\n"
          "  {\"upcalls\":N, \"upcall_bytes\":N, \"spin_us\":N, "
          "\"sleep_us\":N,\n"
          "   \"reply_bytes\":N, \"fail\":\"message\", \"exit\":N,\n"
          "   \"marks\":N, \"spans\":N, \"open\":N, \"stray\":N}\n"
          "Environment: IPCSTAMP_MAX_FRAME (bytes), IPCSTAMP_STAMP_CAPACITY\n"
          "(default 1024), IPCSTAMP_DISABLE=1 (no stamps), IPCSTAMP_CPU_TIME=1\n"
          "(add cpu_ns, the command's CPU time), IPCSTAMP_RUN_DELAY=1 (add\n"
          "run_delay_ns, each stamp's wait for a CPU), IPCSTAMP_MAX_MARKS\n"
          "(default 256), IPCSTAMP_MAX_MARK_BYTES (default 4096).\n"
          "Exit status: 0 after 'q' or end of input, 1 bad usage or\n"
          "environment, 2 framing, protocol or I/O error.\n"
          "  -h, --help     print this help\n"
          "  -v, --version  print the version\n");
}

int main(int argc, char **argv) {
  ips_worker_options_t o;
  ips_worker_t w;
  state_t st;
  char msg[200];
  int i, status;

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "-v") == 0 ||
               strcmp(argv[i], "--version") == 0) {
      printf(PROG " " PACKAGE_VERSION "\n");
      return 0;
    } else {
      fprintf(stderr, PROG ": unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return IPS_WORKER_EXIT_USAGE;
    }
  }

  ips_worker_options_init(&o);
  o.name = PROG;
  o.tags = "?"; /* no VM: 'e' is answered with '!' by the library */
  if (ips_worker_options_env(&o, msg, sizeof msg) != 0) {
    fprintf(stderr, PROG ": %s\n", msg);
    return IPS_WORKER_EXIT_USAGE;
  }
  i = ips_worker_init(&w, &o);
  if (i != 0) ips_worker_exit(&w, i);
  memset(&st, 0, sizeof st);
  status = ips_worker_run(&w, handle, &st);
  ips_worker_close(&w);
  free(st.upcall.p);
  free(st.result.p);
  return status;
}
