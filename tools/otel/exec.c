/* exec.c — `ipcstamp otel` in the ipcstamp program: it runs the program
 * ipcstamp-otel (main.c beside this file) in its place.
 *
 * Sending needs libcurl, and linking libcurl pulls two dozen libraries
 * (TLS, Kerberos, LDAP, ...) into every start of the program: 3 ms of
 * loading and their initialisers, a sixth of what `ipcstamp report` takes
 * on a 90 MB slogfile.  So only ipcstamp-otel links it, and the other
 * subcommands start without it.  Nothing is loaded at run time by name:
 * both programs are ordinary executables with their libraries linked.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Replaces this process with ipcstamp-otel and the same arguments (argv[0]
 * is "otel").  The program is $IPCSTAMP_OTEL_PROGRAM when set (the tests
 * run the one in the build tree), else the installed one.  Returns only
 * when it cannot be run: CLI_EXIT_FAIL, having said why. */
int cmd_otel(int argc, char **argv) {
  const char *prog = getenv("IPCSTAMP_OTEL_PROGRAM");
  (void)argc;
  if (!prog || !*prog)
    prog = IPS_OTEL_PROGRAM;
  fflush(NULL);
  execv(prog, argv);
  fprintf(stderr,
          "ipcstamp otel: cannot run %s: %s (it is installed with ipcstamp; "
          "IPCSTAMP_OTEL_PROGRAM names another)\n",
          prog, strerror(errno));
  return CLI_EXIT_FAIL;
}
