/* main.c — the program ipcstamp-otel: `ipcstamp otel` (cmd_otel.c), which
 * `ipcstamp` runs in its place (exec.c says why it is a program of its
 * own).  Run directly, it takes the same arguments as `ipcstamp otel`. */
#include "config.h"

#include <getopt.h>

#include "cli.h"

int main(int argc, char **argv) {
  char name[] = "otel";
  /* cmd_otel's argv[0] is the subcommand's name, as under main.c. */
  argv[0] = name;
  int rc;
  optind = 1;
  rc = cmd_otel(argc, argv);
  /* What it printed (its summary, --help) must have reached stdout. */
  if (cli_stdout_close("otel") != 0 && rc == CLI_EXIT_OK)
    rc = CLI_EXIT_IO;
  return rc;
}
