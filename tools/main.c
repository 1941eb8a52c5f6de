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
          "       ipcstamp help SUBCOMMAND    (= SUBCOMMAND --help)\n"
          "       ipcstamp -V | --version\n"
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
          "            4 cannot read or write a file, 5 (otel) the receiver did not\n"
          "            take the spans, 6 (diff) DIVERGENCE: a delivery differs\n"
          "            between the files, 7 (diff) the files have nothing in common\n");
}

static const command_t *command_of(const char *name) {
  size_t i;
  for (i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(name, commands[i].name))
      return &commands[i];
  fprintf(stderr, "ipcstamp: unknown subcommand '%s' (try 'ipcstamp --help')\n",
          name);
  return NULL;
}

/* The command line's answer: the exit code, whatever its output. */
static int dispatch(int argc, char **argv) {
  const command_t *c;
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
      (!strcmp(argv[1], "help") && argc == 2)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("ipcstamp %s\n", PACKAGE_VERSION);
    return CLI_EXIT_OK;
  }
  if (!strcmp(argv[1], "help")) {
    /* `ipcstamp help SUB` is `ipcstamp SUB --help`, as in git. */
    char *sub[3];
    if (argc > 3) {
      fprintf(stderr, "ipcstamp help: one subcommand only (try 'ipcstamp --help')\n");
      return CLI_EXIT_USAGE;
    }
    if (!(c = command_of(argv[2])))
      return CLI_EXIT_USAGE;
    sub[0] = argv[2];
    sub[1] = (char *)"--help";
    sub[2] = NULL;
    optind = 1;
    return c->run(2, sub);
  }
  if (argv[1][0] == '-') {
    fprintf(stderr, "ipcstamp: unknown option '%s' (try 'ipcstamp --help')\n",
            argv[1]);
    return CLI_EXIT_USAGE;
  }
  if (!(c = command_of(argv[1])))
    return CLI_EXIT_USAGE;
  optind = 1;
  return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv) {
  int rc = dispatch(argc, argv);
  /* Whatever a command printed on stdout (its report, its summary, its
   * --help) must have reached it: a full disk or a closed pipe is said,
   * and an exit code of 0 becomes 4. */
  if (cli_stdout_close(argc > 1 && argv[1][0] != '-' && strcmp(argv[1], "help")
                           ? argv[1]
                           : "") != 0 &&
      rc == CLI_EXIT_OK)
    rc = CLI_EXIT_IO;
  return rc;
}
