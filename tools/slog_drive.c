/* slog_drive.c — read a slogfile line by line into the assembler. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "attr.h"
#include "commands.h"

/* By hand rather than snprintf: the report prints a dozen per delivery,
 * and this was a tenth of its instructions one digit at a time.  The
 * length is known first, so the digits go straight to their place, two
 * per division, from the last; the last three are the fraction. */
size_t ips__put_us(char *buf, int64_t ns) {
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  uint64_t q = a / 1000, t;
  unsigned r = (unsigned)(a % 1000);
  size_t n = 1 + (ns < 0), len;
  char *p;
  for (t = q; t >= 10; t /= 10)
    n++;
  len = n + 4;
  p = buf + len - 4;
  p[0] = '.';
  p[1] = (char)('0' + r / 100);
  p[2] = (char)('0' + r / 10 % 10);
  p[3] = (char)('0' + r % 10);
  while (q >= 100) {
    unsigned v = (unsigned)(q % 100);
    q /= 100;
    p -= 2;
    p[0] = (char)('0' + v / 10);
    p[1] = (char)('0' + v % 10);
  }
  if (q >= 10) {
    p -= 2;
    p[0] = (char)('0' + q / 10);
    p[1] = (char)('0' + q % 10);
  } else {
    *--p = (char)('0' + q);
  }
  if (ns < 0)
    *--p = '-';
  return len;
}

const char *ips__fmt_us(char *buf, int64_t ns) {
  buf[ips__put_us(buf, ns)] = '\0';
  return buf;
}

void ips__drive_opts_init(ips__drive_opts_t *o, const char *prog) {
  memset(o, 0, sizeof *o);
  o->prog = prog;
  o->max_line = 64u << 20;
  o->progress = 1;
  o->msgs = stderr;
}

int ips__drive_clock(const char *prog, const char *arg, int *mode) {
  if (!strcmp(arg, "auto"))
    *mode = IPS__CLOCK_AUTO;
  else if (!strcmp(arg, "mono"))
    *mode = IPS__CLOCK_MONO;
  else if (!strcmp(arg, "wall"))
    *mode = IPS__CLOCK_WALL;
  else {
    fprintf(stderr, "%s: --clock takes auto, mono or wall, not '%s' (try '%s "
                    "--help')\n", prog, arg, prog);
    return -1;
  }
  return 0;
}

static void progress(ips__slog_ahead_t *in, int final) {
  uint64_t done, total;
  ips__slog_ahead_progress(in, &done, &total);
  if (final) {
    fputs("\r\033[K", stderr);
  } else if (total > 0) {
    int pct = (int)(done * 100 / total), i;
    char bar[41];
    for (i = 0; i < 40; i++)
      bar[i] = i < pct * 40 / 100 ? '#' : '.';
    bar[40] = '\0';
    fprintf(stderr, "\r[%s] %3d%%", bar, pct > 100 ? 100 : pct);
  } else {
    fprintf(stderr, "\r%" PRIu64 " MB read", done >> 20);
  }
  fflush(stderr);
}

int ips__drive(const ips__drive_opts_t *o, ips__attr_t *a,
               ips__drive_stats_t *st) {
  char err[256];
  ips__slog_ahead_t *in;
  ips__slog_item_t it;
  int r, rc = IPS_EXIT_OK, bar;
  uint64_t next_bar = 0, done, total;
  memset(st, 0, sizeof *st);
  in = ips__slog_ahead_open(o->path, o->max_line, o->strict, err, sizeof err);
  if (!in) {
    fprintf(stderr, "%s: %s\n", o->prog, err);
    return IPS_EXIT_IO;
  }
  ips__attr_bind(a, st, o->msgs, o->prog, o->path);
  ips__slog_ahead_progress(in, &done, &total);
  bar = o->progress && isatty(2) && total > (64u << 20);
  while ((r = ips__slog_ahead_next(in, &it, err, sizeof err)) > 0) {
    const ips__rec_t *rec = it.rec;
    long ln = ips__slog_ahead_lineno(in);
    st->lines++;
    if (bar && st->lines >= next_bar) {
      progress(in, 0);
      next_bar = st->lines + 50000;
    }
    if (it.flags & IPS__LINE_TOOLONG) {
      char d[64];
      snprintf(d, sizeof d, "%zu bytes", it.len);
      ips__skip(st, o->msgs, o->prog, o->path, ln, IPS__SKIP_TOO_LONG, d);
      continue;
    }
    if (it.parsed < 0) {
      ips__skip(st, o->msgs, o->prog, o->path, ln,
                it.parsed == -2                ? IPS__SKIP_MISSING
                : (it.flags & IPS__LINE_NOEOL) ? IPS__SKIP_TRUNCATED
                                               : IPS__SKIP_NOT_JSON,
                it.err);
      continue;
    }
    if (rec->type == IPS__REC_OTHER) {
      st->other++;
    }
    if (!st->first_time_ok && (rec->have & IPS__F_TIME)) {
      st->first_time_ok = 1;
      st->first_time = rec->time_ns;
    }
    if (!st->first_mono_ok && (rec->have & IPS__F_MONO)) {
      st->first_mono_ok = 1;
      st->first_mono = rec->mono_ns;
    }
    ips__attr_feed(a, rec, ln);
  }
  if (bar)
    progress(in, 1);
  if (r < 0) {
    fprintf(stderr, "%s: %s:%ld: %s\n", o->prog, o->path,
            ips__slog_ahead_lineno(in) + 1, err);
    rc = IPS_EXIT_IO;
  }
  ips__attr_finish(a);
  ips__slog_ahead_close(in);
  if (rc == IPS_EXIT_OK && (st->skipped_lines || st->skipped_deliveries))
    rc = IPS_EXIT_INPUT;
  return rc;
}
