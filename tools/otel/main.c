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
  optind = 1;
  return cmd_otel(argc, argv);
}
