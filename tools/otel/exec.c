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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ipcstamp-otel beside the running program, into path (PATH_MAX), or 0:
 * an uninstalled ipcstamp (tools/ipcstamp in the build tree, as the README
 * runs it) finds the ipcstamp-otel built with it, not an older installed
 * one.  Under libtool the running binary is tools/.libs/ipcstamp, and the
 * program to run is the wrapper tools/ipcstamp-otel, which sets up the
 * uninstalled libraries.  An installed ipcstamp (in bindir) has no such
 * neighbour and goes on to the installed path. */
static int beside_me(char *path) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  char *slash;
  size_t dir;
  if (n <= 0)
    return 0;
  self[n] = '\0';
  slash = strrchr(self, '/');
  if (!slash)
    return 0;
  *slash = '\0';
  dir = strlen(self);
  if (dir >= 6 && !strcmp(self + dir - 6, "/.libs"))
    self[dir - 6] = '\0';
  if ((size_t)snprintf(path, PATH_MAX, "%s/ipcstamp-otel", self) >= PATH_MAX)
    return 0;
  return access(path, X_OK) == 0;
}

/* Replaces this process with ipcstamp-otel and the same arguments (argv[0]
 * is "otel").  The program is $IPCSTAMP_OTEL_PROGRAM when set, else the
 * one beside this program (an uninstalled build), else the installed one.
 * Returns only when it cannot be run: CLI_EXIT_FAIL, having said why. */
int cmd_otel(int argc, char **argv) {
  static char near[PATH_MAX];
  const char *prog = getenv("IPCSTAMP_OTEL_PROGRAM");
  (void)argc;
  if (!prog || !*prog)
    prog = beside_me(near) ? near : IPS_OTEL_PROGRAM;
  fflush(NULL);
  execv(prog, argv);
  fprintf(stderr,
          "ipcstamp otel: cannot run %s: %s (it is installed with ipcstamp; "
          "IPCSTAMP_OTEL_PROGRAM names another)\n",
          prog, strerror(errno));
  return CLI_EXIT_FAIL;
}
