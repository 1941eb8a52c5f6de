/* ipcstamp-xs.h — the calls ipcstamp's build inserts into a copy of
 * Agoric's xsnap-worker sources (docs/xsnap.md).  This header is ours; it
 * is copied beside the user's xsnap sources at build time and included by
 * the two files the build changes (hooks.list says where).  Plain C with no
 * dependencies, so that it changes nothing else in those files. */
#ifndef IPCSTAMP_XS_H
#define IPCSTAMP_XS_H

/* Once, before the command loop, with main's arguments: read the
 * IPCSTAMP_* environment and set up the stamp table (and the live ring
 * when asked for, naming the vat its kernel named in the arguments).  A bad setting is
 * a warning on stderr and the worker runs without stamps: nothing here may
 * change what the worker computes or how it exits. */
void ips_xs_start(int argc, char **argv);

/* A command's first byte (its tag) has been read, with the rest of it:
 * stamps 'd' for the commands answered with metering ('?', 'e', 's', 'm',
 * 'w'). */
void ips_xs_command(char tag);

/* 'u' just before an upcall is written, 'r' just after its reply is read. */
void ips_xs_stamp(char kind);

/* The '.' reply's prefix as xsnap formatted it (".{...}\1"): returns it
 * with ipcstamp's member spliced in before its closing brace, after
 * stamping 'e' — or the prefix itself, unchanged, when stamps are off,
 * the metering is to be exactly xsnap's (IPCSTAMP_XS_METERING=xsnap, or
 * the mode install set: the stamps then reach the live ring only), or
 * anything is amiss.  The result is valid until the next call. */
char *ips_xs_okay(char *prefix);

/* A span around work the C code does (the command, the promise jobs, a
 * garbage collection, a snapshot write): begin 1 opens it, 0 closes it.
 * Outside a command, or with stamps off, nothing is recorded. */
void ips_xs_span(const char *name, int begin);

/* The same for the spans every delivery has (the command, its promise
 * jobs): recorded only with IPCSTAMP_XS_SPANS=1, for they cost more than
 * the stamps themselves (docs/xsnap.md). */
void ips_xs_command_span(const char *name, int begin);

/* ipcstamp-worker-xs-dev only (dev.c): performance.mark(name), and
 * performance.measure(name, start, end) from the latest mark named start
 * (NULL: the command's start) to the latest named end (NULL: now).
 * Returns 0, or 1 / 2 when start / end names no mark of this command. */
void ips_xs_mark(const char *name);
int ips_xs_measure(const char *name, const char *start, const char *end);

#endif
