/* os.c — the operating system's split in the report (docs/os.md): the
 * text's lines under each delivery, and the summary's sums in text and
 * JSON.  The split and its sums are the analysis library's (d->os,
 * ips_analysis_os_sum); a delivery's JSON and CSV fields come from the
 * field list (IPS_OS_FIELDS), not from here. */
#include "config.h"

#include <inttypes.h>
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
   * comma or a quote in one would shift the columns. */
  if (strpbrk(cell, ",\"") || (n && cell[0] == ' '))
    out_csv_text(f, cell);
  else
    fputs(cell, f);
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
  split_json(g, sum);
  yajl_gen_map_close(g);
}

/* A part's time per system call, in parentheses after it. */
static void by_text(FILE *f, const char *open, const ips_os_by_t *by) {
  char b[32];
  size_t i;
  for (i = 0; i < IPS_OS_BY && by[i].sc[0]; i++)
    fprintf(f, "%s%s %s", i ? ", " : open, by[i].sc,
            ips_format_us(b, by[i].ns));
  if (i)
    fputc(')', f);
}

static void time_text(FILE *f, const char *name, const ips_os_time_t *t) {
  char b[5][32];
  fprintf(f, "%s on CPU %s, waiting for CPU %s, disk %s, page faults %s, "
             "sleeping %s", name, ips_format_us(b[0], t->on_cpu),
          ips_format_us(b[1], t->cpu_wait), ips_format_us(b[2], t->disk),
          ips_format_us(b[3], t->fault), ips_format_us(b[4], t->sleep));
  by_text(f, " (waiting for CPU: ", t->cpu_wait_by);
  by_text(f, " (disk: ", t->disk_by);
  by_text(f, " (sleeping: ", t->sleep_by);
  if (t->steal || t->uncharged) /* on a CPU, beyond what it was charged */
    fprintf(f, ", on CPU stolen %s, uncharged %s",
            ips_format_us(b[0], t->steal), ips_format_us(b[1], t->uncharged));
  if (t->not_measured)
    fprintf(f, ", not measured %s", ips_format_us(b[0], t->not_measured));
  if (t->major_faults)
    fprintf(f, ", %lld major faults", (long long)t->major_faults);
  fputc('\n', f);
}

static void split_text(FILE *f, const char *indent, const ips_os_split_t *s) {
  char b[6][32];
  fprintf(f, "%spipe: parent before write %s, write %s, in pipe %s, "
             "waiting for CPU %s, reader's call %s",
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

void os_summary_text(FILE *f, const ips_analysis_t *a) {
  ips_os_info_t info;
  uint64_t n;
  const ips_os_split_t *sum = ips_analysis_os_sum(a, &n);
  if (!sum)
    return;
  ips_os_info(ips_analysis_os_recording(a), &info);
  fprintf(f, "\noperating system (--os): %" PRIu64 " deliveries, %zu"
             " of their %zu frames seen; %" PRIu64 " recorded frames of no "
             "delivery; %" PRIu64 " events lost\n",
          n, sum->frames, sum->frames_expected, info.unmatched_frames,
          info.lost);
  split_text(f, "  ", sum);
  if (sum->has_before) {
    fprintf(f, "  before the deliveries (%d of them), kernel:",
            sum->has_before);
    time_text(f, "", &sum->before);
  }
}
