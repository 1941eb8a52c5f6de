/* os.c — the operating system's split in the report (docs/os.md): the
 * text's lines under each delivery, and the summary's sums in text and
 * JSON.  The split and its sums are the analysis library's (d->os,
 * ips_analysis_os_sum); a delivery's JSON and CSV fields come from the
 * field list (IPS_OS_FIELDS), not from here. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

void os_by_json(yajl_gen g, const char *key, const ips_os_by_t *by) {
  size_t i;
  out_str(g, key);
  yajl_gen_map_open(g);
  for (i = 0; i < IPS_OS_BY && by[i].sc[0]; i++)
    out_int(g, by[i].sc, by[i].ns);
  yajl_gen_map_close(g);
}

void os_by_csv(FILE *f, const ips_os_by_t *by) {
  char cell[IPS_OS_BY * 48] = "";
  size_t i, n = 0;
  for (i = 0; i < IPS_OS_BY && by[i].sc[0]; i++)
    n += (size_t)snprintf(cell + n, sizeof cell - n, "%s%s=%lld",
                          i ? " " : "", by[i].sc, (long long)by[i].ns);
  /* The names come from the recording, printable but not trusted: a
   * comma or a quote in one would shift the columns, a leading = make a
   * formula. */
  out_csv_maybe(f, cell);
}

void os_time_json(yajl_gen g, const char *key, const ips_os_time_t *t) {
  out_str(g, key);
  yajl_gen_map_open(g);
#define PART_JSON_INT(key, v) out_int(g, key, v)
#define PART_JSON_BY(key, v) os_by_json(g, key, v)
#define PART_JSON(key, member, type) PART_JSON_##type(#key, t->member);
  OS_TIME_PARTS(PART_JSON)
#undef PART_JSON
#undef PART_JSON_BY
#undef PART_JSON_INT
  yajl_gen_map_close(g);
}

static void split_json(yajl_gen g, const ips_os_split_t *s) {
  out_str(g, "pipe");
  yajl_gen_map_open(g);
  out_int(g, "before_write_ns", s->pipe_before_write);
  out_int(g, "write_ns", s->pipe_write);
  out_int(g, "in_pipe_ns", s->pipe_in_pipe);
  out_int(g, "sleep_ns", s->pipe_sleep);
  out_int(g, "page_fault_ns", s->pipe_page_fault);
  out_int(g, "cpu_wait_ns", s->pipe_cpu_wait);
  out_int(g, "reader_ns", s->pipe_reader);
  out_int(g, "not_measured_ns", s->pipe_not_measured);
  yajl_gen_map_close(g);
  os_time_json(g, "worker", &s->worker);
  os_time_json(g, "kernel", &s->kernel);
  /* The deliveries' gaps before them (the sum's has_before: how many). */
  out_int(g, "before_deliveries", s->has_before);
  os_time_json(g, "before", &s->before);
}

/* The writers of IPS_OS_WORK_FIELDS' types. */
#define WORK_JSON_INT(key, v) out_int(g, key, v)
#define WORK_JSON_OSTIME(key, v) os_time_json(g, key, v)
#define WORK_JSON(name, type, unit, value, text, meaning) \
  WORK_JSON_##type(#name, value);

/* Every recorded frame accounted for: those of deliveries, and the others
 * by kind of work (ips_os_other), each kind's exchanges split. */
static void other_json(yajl_gen g, const ips_analysis_t *a) {
  ips_os_other_t o;
  size_t k = 0;
  if (ips_os_other(ips_analysis_os_recording(a), &o) != 0)
    return; /* out of memory: said by none, the sums above stand */
  out_int(g, "delivery_frames", (long long)o.delivery_frames);
  out_str(g, "other_work");
  yajl_gen_map_open(g);
#define KIND_JSON(name, tag, meaning)                                         \
  {                                                                           \
    const ips_os_work_t *w = &o.kind[k++];                                    \
    out_str(g, #name);                                                        \
    yajl_gen_map_open(g);                                                     \
    IPS_OS_WORK_FIELDS(WORK_JSON)                                             \
    yajl_gen_map_close(g);                                                    \
  }
  IPS_OS_WORK_KINDS(KIND_JSON)
#undef KIND_JSON
  yajl_gen_map_close(g);
}

/* The run's longest gaps between deliveries, longest first, each with the
 * delivery after it and its split. */
static void gaps_json(yajl_gen g, const ips_analysis_t *a) {
  size_t n, i;
  const ips_os_gap_t *gap = ips_analysis_os_gaps(a, &n);
  out_str(g, "gaps");
  yajl_gen_array_open(g);
  for (i = 0; gap && i < n; i++) {
    yajl_gen_map_open(g);
    out_int(g, "line", gap[i].line);
    if (gap[i].crank >= 0)
      out_int(g, "crank", gap[i].crank);
    out_kv(g, "vat", gap[i].vat);
    out_int(g, "ns", gap[i].ns);
    os_time_json(g, "split", &gap[i].t);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
}

/* The workers launched, each with its arguments and how it ended. */
static void launches_json(yajl_gen g, const ips_analysis_t *a) {
  ips_os_launch_t *l;
  size_t n, i, k, died = 0;
  if (ips_os_launches(ips_analysis_os_recording(a), &l, &n) != 0)
    return;
  for (i = 0; i < n; i++) /* a signal or a non-zero status */
    died += l[i].ended && (l[i].signal || l[i].exit_code != 0);
  out_int(g, "workers_died", (long long)died);
  out_str(g, "workers");
  yajl_gen_array_open(g);
  for (i = 0; i < n; i++) {
    yajl_gen_map_open(g);
    out_int(g, "pid", l[i].pid);
    out_int(g, "ppid", l[i].ppid);
    out_int(g, "exec_ns", l[i].ns);
    out_kv(g, "vat", l[i].vat);
    out_str(g, "args");
    yajl_gen_array_open(g);
    for (k = 0; k < l[i].len; k += strlen(l[i].args + k) + 1)
      out_str(g, l[i].args + k);
    yajl_gen_array_close(g);
    out_kv(g, "ended", !l[i].ended ? "not seen" : l[i].signal ? "signal"
                                                              : "exit");
    if (l[i].ended) {
      out_int(g, "end_ns", l[i].end_ns);
      out_int(g, "status", l[i].status);
      out_int(g, l[i].signal ? "signal" : "exit_code",
              l[i].signal ? l[i].signal : l[i].exit_code);
    }
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  free(l);
}

void os_summary_json(yajl_gen g, const ips_analysis_t *a) {
  ips_os_info_t info;
  uint64_t n;
  const ips_os_split_t *sum = ips_analysis_os_sum(a, &n);
  if (!sum)
    return;
  ips_os_info(ips_analysis_os_recording(a), &info);
  out_str(g, "os");
  yajl_gen_map_open(g);
  out_int(g, "deliveries", (long long)n);
  out_int(g, "frames", (long long)sum->frames);
  out_int(g, "frames_expected", (long long)sum->frames_expected);
  out_int(g, "recorded_frames", (long long)info.frames);
  out_int(g, "unpaired_frame_sides", (long long)info.unpaired);
  out_int(g, "unmatched_frames", (long long)info.unmatched_frames);
  out_int(g, "recorded_waits", (long long)info.waits);
  out_int(g, "lost_events", (long long)info.lost);
  out_int(g, "bad_lines", (long long)info.bad_lines);
  out_int(g, "contradicting_records", (long long)info.contradicting);
  split_json(g, sum);
  other_json(g, a);
  gaps_json(g, a);
  launches_json(g, a);
  yajl_gen_map_close(g);
}

size_t os_by_shown(const ips_os_by_t *by, const ips_os_by_t **shown,
                   size_t *more, int64_t *more_ns) {
  size_t n = 0, i, k, m = 0;
  while (n < IPS_OS_BY && by[n].sc[0])
    n++;
  *more = 0;
  *more_ns = 0;
  if (n <= OS_BY_SHOWN) {
    for (i = 0; i < n; i++)
      shown[i] = &by[i];
    return n;
  }
  for (i = 0; i < n; i++) { /* by[i] into the largest, largest first */
    if (m == OS_BY_SHOWN && by[i].ns <= shown[m - 1]->ns)
      continue;
    k = m < OS_BY_SHOWN ? m : OS_BY_SHOWN - 1;
    for (; k > 0 && shown[k - 1]->ns < by[i].ns; k--)
      shown[k] = shown[k - 1];
    shown[k] = &by[i];
    if (m < OS_BY_SHOWN)
      m++;
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < m && shown[k] != &by[i]; k++)
      ;
    if (k == m) {
      ++*more;
      ips_sum_add(more_ns, by[i].ns);
    }
  }
  return m;
}

void os_by_text(FILE *f, const char *open, const ips_os_by_t *by,
                const char *(*fmt)(char *buf, int64_t ns)) {
  const ips_os_by_t *shown[OS_BY_SHOWN];
  char b[IPS_US_BUF];
  size_t i, more;
  int64_t more_ns;
  size_t n = os_by_shown(by, shown, &more, &more_ns);
  for (i = 0; i < n; i++)
    fprintf(f, "%s%s %s", i ? ", " : open, shown[i]->sc,
            fmt(b, shown[i]->ns));
  if (more)
    fprintf(f, ", and %zu more: %s", more, fmt(b, more_ns));
  if (i)
    fputc(')', f);
}

static void time_text(FILE *f, const char *name, const ips_os_time_t *t) {
  char b[5][32];
  fprintf(f, "%s on CPU %s, waiting for CPU %s, disk %s, page faults %s, "
             "sleeping %s", name, ips_format_us(b[0], t->on_cpu),
          ips_format_us(b[1], t->cpu_wait), ips_format_us(b[2], t->disk),
          ips_format_us(b[3], t->fault), ips_format_us(b[4], t->sleep));
  os_by_text(f, " (waiting for CPU: ", t->cpu_wait_by, ips_format_us);
  os_by_text(f, " (disk: ", t->disk_by, ips_format_us);
  os_by_text(f, " (sleeping: ", t->sleep_by, ips_format_us);
  if (t->steal || t->uncharged) /* on a CPU, beyond what it was charged */
    fprintf(f, ", on CPU stolen %s, uncharged %s",
            ips_format_us(b[0], t->steal), ips_format_us(b[1], t->uncharged));
  if (t->not_measured)
    fprintf(f, ", not measured %s", ips_format_us(b[0], t->not_measured));
  if (t->major_faults)
    fprintf(f, ", %lld major fault%s", (long long)t->major_faults,
            t->major_faults == 1 ? "" : "s");
  fputc('\n', f);
}

static void split_text(FILE *f, const char *indent, const ips_os_split_t *s) {
  char b[6][32];
  fprintf(f, "%spipe: parent before write %s, write %s, in pipe %s, "
             "waiting for CPU %s, reader to its stamp %s",
          indent, ips_format_us(b[0], s->pipe_before_write),
          ips_format_us(b[1], s->pipe_write), ips_format_us(b[2], s->pipe_in_pipe),
          ips_format_us(b[3], s->pipe_cpu_wait), ips_format_us(b[4], s->pipe_reader));
  if (s->pipe_sleep || s->pipe_page_fault) /* the reader's own waits */
    fprintf(f, ", reader asleep %s, reader's faults %s",
            ips_format_us(b[0], s->pipe_sleep),
            ips_format_us(b[1], s->pipe_page_fault));
  if (s->pipe_not_measured)
    fprintf(f, ", not measured %s", ips_format_us(b[5], s->pipe_not_measured));
  fputc('\n', f);
  fputs(indent, f);
  time_text(f, "worker:", &s->worker);
  fputs(indent, f);
  time_text(f, "kernel:", &s->kernel);
}

void os_text(FILE *f, const ips_os_split_t *s) {
  fprintf(f, "    os: %zu of %zu frames seen\n", s->frames, s->frames_expected);
  split_text(f, "    os ", s);
  if (s->has_before)
    time_text(f, "    os before it (kernel):", &s->before);
}

/* The text's words of IPS_OS_WORK_FIELDS: counts as they are, times in
 * µs; the split (OSTIME) on a line of its own. */
#define WORK_TEXT_INT(value, text, unit)                                      \
  if (text)                                                                   \
    fprintf(f, "%s%s %s", sep, text,                                          \
            !strcmp(unit, "ns") ? ips_format_us(b, value)                      \
                                : (snprintf(b, sizeof b, "%lld",               \
                                            (long long)(value)), b)),          \
        sep = ", ";
#define WORK_TEXT_OSTIME(value, text, unit) t = value;
#define WORK_TEXT(name, type, unit, value, text, meaning) \
  WORK_TEXT_##type(value, text, unit)

static void work_text(FILE *f, const char *name, const ips_os_work_t *w) {
  char b[IPS_US_BUF];
  const char *sep = ": ";
  const ips_os_time_t *t = NULL;
  fprintf(f, "    %s", name);
  IPS_OS_WORK_FIELDS(WORK_TEXT)
  fputc('\n', f);
  if (t && w->worker_ns)
    time_text(f, "      its worker:", t);
}

/* Every recorded frame accounted for: a delivery's, or a kind of work's. */
static void other_text(FILE *f, const ips_os_other_t *op) {
  ips_os_other_t o = *op;
  size_t k = 0;
  fprintf(f, "  frames recorded %" PRIu64 ": %" PRIu64 " of deliveries, %"
             PRIu64 " of other work (times in us)%s\n", o.frames,
          o.delivery_frames, o.frames - o.delivery_frames,
          o.frames > o.delivery_frames ? ":" : "");
#define KIND_TEXT(name, tag, meaning)                                         \
  if (o.kind[k++].frames)                                                     \
    work_text(f, #name, &o.kind[k - 1]);
  IPS_OS_WORK_KINDS(KIND_TEXT)
#undef KIND_TEXT
}

/* How launch l ended, in words, into b. */
static const char *ended_text(const ips_os_launch_t *l, char *b, size_t n) {
  if (!l->ended)
    snprintf(b, n, "not seen to end");
  else if (l->signal)
    snprintf(b, n, "KILLED by signal %d (%s)", l->signal,
             strsignal(l->signal));
  else
    snprintf(b, n, "exit %s%d", l->exit_code ? "STATUS " : "", l->exit_code);
  return b;
}

/* A worker that died (a signal, a non-zero status): said first, in
 * capitals, right under the summary's first line. */
static int died(const ips_os_launch_t *l) {
  return l->ended && (l->signal || l->exit_code != 0);
}

/* The workers launched: who died first, then each (when, pid, vat, its
 * arguments, how it ended). */
static void launches_text(FILE *f, const ips_os_launch_t *l, size_t n,
                          int deaths) {
  char b[96];
  size_t i, k;
  for (i = 0; deaths && i < n; i++)
    if (died(&l[i]))
      fprintf(f, "  !! WORKER DIED: pid %lld%s%s%s: %s\n", l[i].pid,
              l[i].vat[0] ? " (" : "", l[i].vat, l[i].vat[0] ? ")" : "",
              ended_text(&l[i], b, sizeof b));
  if (deaths || !n)
    return;
  fprintf(f, "  workers launched: %zu (when: CLOCK_MONOTONIC, s; the program "
             "by its file's name)\n", n);
  for (i = 0; i < n; i++) {
    const char *prog = strrchr(l[i].args, '/');
    fprintf(f, "    pid %lld at %.3f: %s", l[i].pid, (double)l[i].ns / 1e9,
            prog ? prog + 1 : l[i].args);
    for (k = strlen(l[i].args) + 1; k < l[i].len;
         k += strlen(l[i].args + k) + 1)
      fprintf(f, " %s", l[i].args + k);
    fprintf(f, "; %s", ended_text(&l[i], b, sizeof b));
    if (l[i].ended)
      fprintf(f, " after %.3f s", (double)(l[i].end_ns - l[i].ns) / 1e9);
    fputc('\n', f);
  }
}

/* The run's longest gaps between deliveries, each split. */
static void gaps_text(FILE *f, const ips_analysis_t *a) {
  size_t n, i;
  const ips_os_gap_t *gap = ips_analysis_os_gaps(a, &n);
  char b[IPS_US_BUF], name[160];
  if (!gap || !n)
    return;
  fprintf(f, "  longest gaps between deliveries (%zu, kernel's thread):\n", n);
  for (i = 0; i < n; i++) {
    if (gap[i].crank >= 0)
      snprintf(name, sizeof name, "    before crank %lld (%s, line %ld) %s:",
               gap[i].crank, gap[i].vat, gap[i].line,
               ips_format_us(b, gap[i].ns));
    else
      snprintf(name, sizeof name, "    before a replay (%s, line %ld) %s:",
               gap[i].vat, gap[i].line, ips_format_us(b, gap[i].ns));
    time_text(f, name, &gap[i].t);
  }
}

void os_summary_text(FILE *f, const ips_analysis_t *a) {
  ips_os_info_t info;
  ips_os_other_t o;
  ips_os_launch_t *l = NULL;
  size_t nl = 0;
  uint64_t n;
  const ips_os_split_t *sum = ips_analysis_os_sum(a, &n);
  int other;
  if (!sum)
    return;
  ips_os_info(ips_analysis_os_recording(a), &info);
  other = ips_os_other(ips_analysis_os_recording(a), &o) == 0;
  fprintf(f, "\noperating system (--os): %" PRIu64 " deliveries, %zu"
             " of their %zu frames seen; %" PRIu64 " recorded frames of no "
             "delivery; %" PRIu64 " events lost\n",
          n, sum->frames, sum->frames_expected,
          other ? o.frames - o.delivery_frames : info.unmatched_frames,
          info.lost);
  if (!ips_os_launches(ips_analysis_os_recording(a), &l, &nl))
    launches_text(f, l, nl, 1);
  split_text(f, "  ", sum);
  if (sum->has_before) {
    fprintf(f, "  before the deliveries (%d of them), kernel:",
            sum->has_before);
    time_text(f, "", &sum->before);
  }
  if (other)
    other_text(f, &o);
  gaps_text(f, a);
  if (l)
    launches_text(f, l, nl, 0);
  free(l);
}
