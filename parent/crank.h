/* crank.h — the crank-start message the slog writer derives from a
 * delivery (internal; docs/slogfile.md "crank-start"). */
#ifndef IPCSTAMP_PARENT_CRANK_H
#define IPCSTAMP_PARENT_CRANK_H

#include <stddef.h>
#include <yajl/yajl_gen.h>

/* Write into g, as the next value, the run-queue item SwingSet would have
 * put in crank-start's "message" for a delivery of vd[0..n) to vat:
 *   ["evaluate", ..] or ["startVat", ..]       {"type":"startVat","vatID":vat}
 *   ["stopVat" | "bringOutYourDead" | "dropExports" | "retireExports" |
 *    "retireImports", ..]                      {"type":<that>,"vatID":vat}
 *   ["notify", [[vpid, ..], ..]]              {"type":"notify","vatID":vat,
 *                                              "kpid":vpid}
 *   anything else                             {"type":"send","target":vat,
 *     "msg":{"methargs":{"body":"#[method,[]]","slots":[]},"result":null}}
 * where method is vd[1] of ["message", "name", ..] (a simple kernel's
 * shape), else vd[0], else vd itself when it is a string, else null; a
 * name that is not a short UTF-8 string is null.  In SwingSet's own shape
 * ["message", "o+0", {methargs, ..}] the target is that vref and the
 * method null (it is inside methargs, past what is looked at).  Only the first 256
 * bytes of vd are looked at (the type and the name are at its start), so
 * a large payload is not parsed twice.  Returns 1, or 0 when g failed. */
int ips__crank_message(yajl_gen g, const char *vat, const char *vd, size_t n);

#endif
