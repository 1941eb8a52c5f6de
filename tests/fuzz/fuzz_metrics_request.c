/* fuzz_metrics_request.c — libFuzzer target for what `ipcstamp metrics`'
 * endpoint answers to a request's head (tools/metrics/request.c): any
 * bytes may come from the network.
 *
 * Besides "no crash, no read past the bytes given", the promises checked:
 * the answer is one of the five statuses; the metrics are served only
 * with "200 OK", HEAD only then; a head without a blank line is 431 and
 * one with it is never 431; the same bytes get the same answer. */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "metrics/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const known[] = {
      "200 OK", "400 Bad Request", "404 Not Found", "405 Method Not Allowed",
      "431 Request Header Fields Too Large"};
  int serve, head_only, serve2, head2, found = 0;
  const char *req = (const char *)data;
  const char *st = metrics_request(req, size, &serve, &head_only);
  int ended = memmem(req, size, "\r\n\r\n", 4) || memmem(req, size, "\n\n", 2);
  size_t i;
  for (i = 0; i < sizeof known / sizeof known[0]; i++)
    found |= st == known[i] || !strcmp(st, known[i]);
  CHECK(found);
  CHECK(serve == !strcmp(st, "200 OK"));
  CHECK(!head_only || serve);
  CHECK(ended == !!strcmp(st, "431 Request Header Fields Too Large"));
  CHECK(!strcmp(metrics_request(req, size, &serve2, &head2), st) &&
        serve2 == serve && head2 == head_only);
  return 0;
}
