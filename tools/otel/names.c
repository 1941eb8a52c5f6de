/* names.c — the names of the spans `ipcstamp otel` makes: a segment's by
 * its kind, a delivery's root by the kind of delivery (docs/otel.md). */
#include "config.h"

#include <string.h>

#include "otel.h"

/* A segment span is named by its kind alone: what crossed the pipe (the
 * delivery, an upcall, a syscall's reply, the result), the worker running,
 * the kernel handling a syscall, or time no record explains. */
const char *otlp_segment_name(const char *kind) {
  static const char *const names[][2] = {
      {"send", "pipe-send"},         {"upcall", "pipe-upcall"},
      {"reply", "pipe-reply"},       {"result", "pipe-result"},
      {"worker", "worker"},          {"kernel", "kernel-syscall"},
      {"unmatched", "unmatched"}};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(kind, names[i][0]))
      return names[i][1];
  return "segment"; /* a kind this version does not know: still fixed */
}

/* The kinds of delivery (vd[0]) that SwingSet's kernel and ipcstamp's own
 * workloads make: each names the root "deliver-KIND", as Agoric's
 * converter names its crank spans, so the two group alike. */
const char *otlp_root_name(const char *kind) {
  static const char *const kinds[][2] = {
      {"message", "deliver-message"},
      {"notify", "deliver-notify"},
      {"dropExports", "deliver-dropExports"},
      {"retireExports", "deliver-retireExports"},
      {"retireImports", "deliver-retireImports"},
      {"changeVatOptions", "deliver-changeVatOptions"},
      {"startVat", "deliver-startVat"},
      {"stopVat", "deliver-stopVat"},
      {"bringOutYourDead", "deliver-bringOutYourDead"},
      {"evaluate", "deliver-evaluate"}};
  size_t i;
  for (i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(kind, kinds[i][0]))
      return kinds[i][1];
  return "deliver";
}
