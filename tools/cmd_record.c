/* cmd_record.c — `ipcstamp record`: the collector of what the operating
 * system sees of a parent and its workers (record/, docs/os.md).  Built
 * only with libbpf, bpftool and clang; without them the subcommand says
 * so and exits REC_EXIT_NOBPF. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "record.h"

int cmd_record(int argc, char **argv) {
#ifdef HAVE_BPF
  return rec_main(argc, argv);
#else
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("usage: ipcstamp record [-o FILE] (--pid PID | -- COMMAND [ARGS...])\n"
         "\n"
         "This ipcstamp was built without libbpf, bpftool and clang: record\n"
         "cannot run (docs/os.md).");
    return CLI_EXIT_OK;
  }
  fprintf(stderr, "ipcstamp record: this ipcstamp was built without BPF "
                  "support (configure found no libbpf, bpftool or clang: "
                  "Debian: libbpf-dev bpftool clang)\n");
  return REC_EXIT_NOBPF;
#endif
}
