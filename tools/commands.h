/* commands.h — the subcommands of the `ipcstamp` command.
 *
 * Each subcommand lives in its own file as `int ips__cmd_<name>(int argc,
 * char **argv)`; argv[0] is the subcommand's name, options follow (parse them
 * with getopt_long; optind is reset by main).  It returns one of the exit
 * codes below and prints its own messages, prefixed "ipcstamp <name>: ".
 */
#ifndef IPCSTAMP_TOOLS_COMMANDS_H
#define IPCSTAMP_TOOLS_COMMANDS_H

/* Exit codes shared by every subcommand (documented in docs/cli.md). */
enum {
  IPS_EXIT_OK = 0,      /* done, nothing skipped */
  IPS_EXIT_FAIL = 1,    /* the run failed (a worker fault, a failed delivery) */
  IPS_EXIT_USAGE = 2,   /* bad option or value */
  IPS_EXIT_INPUT = 3,   /* bad input: records were skipped, each reported */
  IPS_EXIT_IO = 4       /* cannot read the input or write the output */
};

/* name, one-line summary.  One line per subcommand. */
#define IPS_COMMANDS(XX)                                                   \
  XX(run, "drive a workload through workers and write a slogfile")        \
  XX(report, "where the time of each delivery went: pipe, worker, kernel") \
  XX(trace, "a Chrome/Perfetto trace of a slogfile")                      \
  XX(latency, "percentiles of pipe, worker, kernel or total time")

#define XX(name, summary) int ips__cmd_##name(int argc, char **argv);
IPS_COMMANDS(XX)
#undef XX

#endif
