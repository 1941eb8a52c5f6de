/* hostile_worker.c — a worker that does what a tiny script says, so that a
 * test can play any misbehaving peer of the parent without a new mode in C
 * (libuv's spawn helpers in spirit).  Test-only, never installed.
 *
 * usage: hostile_worker STEP...        (each argument one step)
 *        hostile_worker -f FILE        (steps separated by white space,
 *                                       '#' starts a comment to the line end)
 *
 * The steps run in order; after the last one the worker exits 0.
 *
 *   read            read one whole netstring frame from fd 3 (blocking);
 *                   at the end of input exit 0, on bad framing exit 102
 *   ok              answer with a '.' frame: no metering, result null
 *   ok:TEXT         the same with result TEXT
 *   frame:TEXT      write the netstring frame of TEXT (TEXT starts with the
 *                   tag: "frame:?[\"log\"]" is an upcall)
 *   big:N:PRE:SUF   write a frame of N payload bytes: PRE, then 'x' bytes,
 *                   then SUF ("big:1000000:.\x01\":\"" is a 1 MB result);
 *                   streamed, never held in memory whole
 *   raw:BYTES       write BYTES to fd 4 as they are
 *   rep:N:BYTES     write BYTES to fd 4, N times
 *   drip:MS:BYTES   write BYTES to fd 4 one byte per write, MS ms apart
 *   close:FD        close fd FD (4: the parent sees the end of input)
 *   out:TEXT        write TEXT and a newline to stdout
 *   err:TEXT        write TEXT and a newline to stderr
 *   sleep:MS        sleep MS milliseconds
 *   pause           sleep until killed
 *   waiteof         read fd 3 until the parent closes it, discarding
 *   fork:MS         leave a child holding every fd, which exits after MS ms
 *   kill:SIG        kill itself with signal number SIG
 *   exit:CODE       exit with CODE
 *   loop            start again from the first step
 *
 * In TEXT and BYTES: \\ \n \s (space: `ipcstamp run --worker` splits its
 * command at spaces) \0 and \xNN.  N and MS are decimal.
 *
 * Exit codes of its own: 100 a bad script (the reason on stderr), 101 a
 * write failed (the parent closed its end), 102 bad framing on fd 3. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_STEPS 256
#define MAX_TEXT 65536

static void die(const char *what, const char *step) {
  fprintf(stderr, "hostile_worker: %s: '%s'\n", what, step);
  exit(100);
}

static void put(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      exit(101);
    p += w;
    n -= (size_t)w;
  }
}

static void sleep_ms(unsigned long ms) {
  struct timespec ts;
  ts.tv_sec = (time_t)(ms / 1000);
  ts.tv_nsec = (long)(ms % 1000) * 1000000L;
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
    ;
}

static unsigned long long number(const char **p, const char *step) {
  char *end;
  unsigned long long v;
  if (**p < '0' || **p > '9')
    die("a number was expected", step);
  errno = 0;
  v = strtoull(*p, &end, 10);
  if (errno)
    die("number out of range", step);
  *p = end;
  return v;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Decode the escapes of s up to stop (or its end) into out (MAX_TEXT);
 * returns the length and sets *rest past the stop character. */
static size_t unescape(const char *s, char stop, char *out, const char **rest,
                       const char *step) {
  size_t n = 0;
  while (*s && *s != stop) {
    char c = *s++;
    if (c == '\\') {
      c = *s++;
      switch (c) {
      case '\\': break;
      case 'n': c = '\n'; break;
      case 's': c = ' '; break;
      case '0': c = 0; break;
      case 'x':
        if (hexval(s[0]) < 0 || hexval(s[1]) < 0)
          die("\\x wants two hex digits", step);
        c = (char)(hexval(s[0]) * 16 + hexval(s[1]));
        s += 2;
        break;
      default:
        die("unknown escape", step);
      }
    }
    if (n == MAX_TEXT)
      die("text too long", step);
    out[n++] = c;
  }
  if (rest)
    *rest = *s ? s + 1 : s;
  return n;
}

static void expect(const char **p, char c, const char *step) {
  if (**p != c)
    die("malformed step", step);
  (*p)++;
}

static void frame(const char *p, size_t n) {
  char hdr[32];
  int k = snprintf(hdr, sizeof hdr, "%zu:", n);
  put(4, hdr, (size_t)k);
  put(4, p, n);
  put(4, ",", 1);
}

static int get_byte(void) {
  unsigned char c;
  for (;;) {
    ssize_t r = read(3, &c, 1);
    if (r == 1)
      return c;
    if (r < 0 && errno == EINTR)
      continue;
    return -1;
  }
}

/* One frame from fd 3, discarded: an independent reader, so a bug in the
 * library under test cannot hide itself. */
static void read_frame(void) {
  unsigned long long len = 0;
  int c, digits = 0;
  while ((c = get_byte()) >= '0' && c <= '9' && digits < 10) {
    len = len * 10 + (unsigned long long)(c - '0');
    digits++;
  }
  if (c < 0 && digits == 0)
    exit(0);
  if (c != ':' || digits == 0)
    exit(102);
  while (len-- > 0)
    if (get_byte() < 0)
      exit(102);
  if (get_byte() != ',')
    exit(102);
}

static void big(const char *step, const char *p) {
  static char pre[MAX_TEXT], suf[MAX_TEXT], fill[65536];
  unsigned long long n = number(&p, step), mid;
  size_t np, ns;
  char hdr[32];
  int k;
  expect(&p, ':', step);
  np = unescape(p, ':', pre, &p, step);
  ns = unescape(p, 0, suf, NULL, step);
  if (n < np + ns)
    die("N is smaller than PRE and SUF", step);
  memset(fill, 'x', sizeof fill);
  k = snprintf(hdr, sizeof hdr, "%llu:", n);
  put(4, hdr, (size_t)k);
  put(4, pre, np);
  for (mid = n - np - ns; mid > 0;) {
    size_t chunk = mid < sizeof fill ? (size_t)mid : sizeof fill;
    put(4, fill, chunk);
    mid -= chunk;
  }
  put(4, suf, ns);
  put(4, ",", 1);
}

static void run_step(const char *step) {
  static char text[MAX_TEXT];
  const char *arg = strchr(step, ':');
  size_t name = arg ? (size_t)(arg - step) : strlen(step), n;
  unsigned long long v;
  const char *p = arg ? arg + 1 : NULL;
#define IS(s) (name == strlen(s) && !strncmp(step, s, name))
  if (IS("read") && !p) {
    read_frame();
  } else if (IS("ok")) {
    text[0] = '.';
    text[1] = 1;
    n = p ? unescape(p, 0, text + 2, NULL, step) : 4;
    if (!p)
      memcpy(text + 2, "null", 4);
    frame(text, n + 2);
  } else if (IS("frame") && p) {
    frame(text, unescape(p, 0, text, NULL, step));
  } else if (IS("big") && p) {
    big(step, p);
  } else if (IS("raw") && p) {
    put(4, text, unescape(p, 0, text, NULL, step));
  } else if (IS("rep") && p) {
    v = number(&p, step);
    expect(&p, ':', step);
    n = unescape(p, 0, text, NULL, step);
    while (v-- > 0)
      put(4, text, n);
  } else if (IS("drip") && p) {
    size_t i;
    v = number(&p, step);
    expect(&p, ':', step);
    n = unescape(p, 0, text, NULL, step);
    for (i = 0; i < n; i++) {
      put(4, text + i, 1);
      if (i + 1 < n)
        sleep_ms((unsigned long)v);
    }
  } else if (IS("close") && p) {
    close((int)number(&p, step));
  } else if ((IS("out") || IS("err")) && p) {
    n = unescape(p, 0, text, NULL, step);
    text[n++] = '\n';
    put(IS("out") ? 1 : 2, text, n);
  } else if (IS("sleep") && p) {
    sleep_ms((unsigned long)number(&p, step));
  } else if (IS("pause") && !p) {
    for (;;)
      pause();
  } else if (IS("waiteof") && !p) {
    while (get_byte() >= 0)
      ;
  } else if (IS("fork") && p) {
    pid_t pid;
    v = number(&p, step);
    pid = fork();
    if (pid < 0)
      die("fork failed", step);
    if (pid == 0) {
      sleep_ms((unsigned long)v);
      _exit(0);
    }
  } else if (IS("kill") && p) {
    v = number(&p, step);
    signal((int)v, SIG_DFL);
    raise((int)v);
    die("the signal did not kill", step);
  } else if (IS("exit") && p) {
    exit((int)number(&p, step));
  } else {
    die("unknown step", step);
  }
#undef IS
}

/* Split a script file at white space, '#' comments removed; the words
 * point into buf (owned by the caller, never freed: the process ends). */
static int load(const char *path, char **steps) {
  static char buf[1 << 20];
  FILE *f = fopen(path, "r");
  size_t n, i;
  int k = 0, comment = 0;
  char *w = NULL;
  if (!f)
    die("cannot open the script", path);
  n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  for (i = 0; i <= n; i++) {
    char c = buf[i];
    if (c == '#' && !w)
      comment = 1;
    if (c == '\n')
      comment = 0;
    if (c == ' ' || c == '\t' || c == '\n' || c == 0) {
      buf[i] = 0;
      if (w) {
        if (k == MAX_STEPS)
          die("too many steps", path);
        steps[k++] = w;
        w = NULL;
      }
    } else if (!w && !comment) {
      w = buf + i;
    }
  }
  return k;
}

int main(int argc, char **argv) {
  static char *steps[MAX_STEPS];
  int n, i;
  /* A write to a closed fd 4 is an exit code, not a silent death. */
  signal(SIGPIPE, SIG_IGN);
  if (argc == 3 && !strcmp(argv[1], "-f")) {
    n = load(argv[2], steps);
  } else {
    if (argc - 1 > MAX_STEPS)
      die("too many steps", argv[0]);
    for (n = 0; n + 1 < argc; n++)
      steps[n] = argv[n + 1];
  }
  for (i = 0; i < n; i++) {
    if (!strcmp(steps[i], "loop")) {
      i = -1;
      continue;
    }
    run_step(steps[i]);
  }
  return 0;
}
