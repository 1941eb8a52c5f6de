/* main.c — `ipcstamp SUBCOMMAND [options]`: dispatch to a subcommand. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} command_t;

static const command_t commands[] = {
#define XX(name, summary) {#name, summary, cmd_##name},
    CLI_COMMANDS(XX)
#undef XX
};

static void usage(FILE *f) {
  size_t i;
  fprintf(f,
          "usage: ipcstamp SUBCOMMAND [options]\n"
          "       ipcstamp SUBCOMMAND --help\n"
          "\n"
          "Stamp the pipe between a parent and its workers, and say where the\n"
          "time of each delivery went: worker, kernel or pipe.\n"
          "\n"
          "subcommands:\n");
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n"
          "exit codes: 0 ok, 1 the run failed, 2 bad usage, 3 bad input "
          "(records skipped),\n"
          "            4 cannot read or write a file\n");
}

int main(int argc, char **argv) {
  size_t i;
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      !strcmp(argv[1], "help")) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("ipcstamp %s\n", PACKAGE_VERSION);
    return CLI_EXIT_OK;
  }
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (!strcmp(argv[1], commands[i].name)) {
      optind = 1;
      return commands[i].run(argc - 1, argv + 1);
    }
  }
  fprintf(stderr, "ipcstamp: unknown subcommand '%s' (try 'ipcstamp --help')\n",
          argv[1]);
  return CLI_EXIT_USAGE;
}
