/* os_file.c — `--os FILE`: the recording of `ipcstamp record` that an
 * analysis command joins with its slogfile (docs/os.md), opened and what
 * it could not hold said, the same way for each command; and joined with
 * the analysis (each delivery's d->os) for those that take the shared
 * option (report, trace, latency, otel). */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "cli.h"

int cli_os_open(ips_os_t **os, const char *prog, const char *path) {
  char err[512];
  int rc;
  ips_os_info_t info;
  *os = NULL;
  if ((rc = ips_os_open(os, path, err, sizeof err)) != 0) {
    fprintf(stderr, "%s: --os %s\n", prog, err);
    return rc == -ENOENT || rc == -EACCES || rc == -EIO ? CLI_EXIT_IO
                                                        : CLI_EXIT_INPUT;
  }
  ips_os_info(*os, &info);
  if (info.bad_lines && info.first_bad_offset) /* version 2: binary */
    fprintf(stderr, "%s: --os %s: %llu bad records skipped (the first: at "
                    "byte offset %lld)\n", prog, path,
            (unsigned long long)info.bad_lines,
            (long long)info.first_bad_offset);
  else if (info.bad_lines)
    fprintf(stderr, "%s: --os %s: %llu bad lines skipped (the first: line "
                    "%ld)\n", prog, path, (unsigned long long)info.bad_lines,
            info.first_bad_line);
  if (info.contradicting)
    fprintf(stderr, "%s: --os %s: %llu of them contradict a record before "
                    "them (a thread's waits or a stream's frames "
                    "overlapping: a recording written twice?), not "
                    "believed: the figures leave them out\n", prog, path,
            (unsigned long long)info.contradicting);
  if (info.lost)
    fprintf(stderr, "%s: --os %s: the recording lost %llu events: what "
                    "they held is not measured\n", prog, path,
            (unsigned long long)info.lost);
  if (!info.ended)
    fprintf(stderr, "%s: --os %s: the recording has no end (cut "
                    "short?)\n", prog, path);
  return info.bad_lines ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}

int cli_os_first(cli_input_t *in) {
  if (!in->os_path || in->os)
    return -1;
  in->os_rc = cli_os_open(&in->os, in->prog, in->os_path);
  return in->os ? -1 : in->os_rc;
}

int cli_os_join(cli_input_t *in, ips_analysis_t *a) {
  ips_os_t *os = in->os;
  int rc = os ? in->os_rc : cli_os_open(&os, in->prog, in->os_path), jrc;
  in->os = NULL; /* a's from here */
  if (!os)
    return rc;
  if ((jrc = ips_analysis_os(a, os)) < 0) { /* os is a's, or freed */
    fprintf(stderr, "%s: --os %s: %s\n", in->prog, in->os_path,
            ips_strerror(jrc));
    return CLI_EXIT_IO;
  }
  return rc;
}
