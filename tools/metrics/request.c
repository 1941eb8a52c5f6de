/* request.c — what the endpoint answers to a request's head: the one
 * parser of bytes from the network here, apart from the server so that it
 * is fuzzed alone (tests/fuzz/fuzz_metrics_request.c). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "metrics/registry.h"

int metrics_head_whole(const char *req, size_t len) {
  return memmem(req, len, "\r\n\r\n", 4) || memmem(req, len, "\n\n", 2);
}

const char *metrics_request(const char *req, size_t len, int *serve,
                            int *head_only) {
  char line[128], method[8], target[64], version[16];
  const char *nl = memchr(req, '\n', len);
  size_t n;
  *serve = *head_only = 0;
  /* The head ends at a blank line; REQ_MAX bytes without one is too much
   * head to read on. */
  if (!metrics_head_whole(req, len))
    return "431 Request Header Fields Too Large";
  /* only the request line: a NUL in it (or none before it) ends it */
  n = (size_t)(nl - req) < sizeof line - 1 ? (size_t)(nl - req)
                                           : sizeof line - 1;
  memcpy(line, req, n);
  line[n] = '\0';
  if (sscanf(line, "%7s %63s %15s", method, target, version) != 3 ||
      strncmp(version, "HTTP/1.", 7))
    return "400 Bad Request";
  if (strcmp(method, "GET") && strcmp(method, "HEAD"))
    return "405 Method Not Allowed";
  if (strcmp(target, "/metrics") && strncmp(target, "/metrics?", 9))
    return "404 Not Found";
  *serve = 1;
  *head_only = !strcmp(method, "HEAD");
  return "200 OK";
}
