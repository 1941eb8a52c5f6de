/* os_option.c — `--os FILE` of the analysis subcommands (docs/os.md): the
 * recording of `ipcstamp record` read and joined with the analysis, once
 * for every subcommand that takes it, with the same messages and exit
 * codes. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "ipcstamp-analyze-os.h"

int cli_os_open(const cli_input_t *in, ips_analysis_t *a) {
  char err[512];
  ips_os_t *os;
  ips_os_info_t info;
  int rc;
  if ((rc = ips_os_open(&os, in->os_path, err, sizeof err)) != 0) {
    fprintf(stderr, "%s: --os %s\n", in->prog, err);
    return rc == -ENOENT || rc == -EACCES || rc == -EIO ? CLI_EXIT_IO
                                                        : CLI_EXIT_INPUT;
  }
  ips_os_info(os, &info);
  if (info.bad_lines)
    fprintf(stderr, "%s: --os %s: %llu bad lines skipped (the first: line "
                    "%ld)\n", in->prog, in->os_path,
            (unsigned long long)info.bad_lines, info.first_bad_line);
  if (info.lost)
    fprintf(stderr, "%s: --os %s: the recording lost %llu events: what "
                    "they held is not measured\n", in->prog, in->os_path,
            (unsigned long long)info.lost);
  if (!info.ended)
    fprintf(stderr, "%s: --os %s: the recording has no end line (cut "
                    "short?)\n", in->prog, in->os_path);
  if ((rc = ips_analysis_os(a, os)) < 0) { /* os is a's, or freed */
    fprintf(stderr, "%s: --os %s: %s\n", in->prog, in->os_path,
            ips_strerror(rc));
    return CLI_EXIT_IO;
  }
  return info.bad_lines ? CLI_EXIT_INPUT : CLI_EXIT_OK;
}
