/* fuzz_otel_config.c — libFuzzer target for the two parsers of the
 * OpenTelemetry environment (tools/otel/config.c): OTEL_RESOURCE_ATTRIBUTES
 * and OTEL_EXPORTER_OTLP_HEADERS.  Both read what an operator's
 * environment holds, so any bytes may come.
 *
 * The first byte chooses the parser; the rest, up to a NUL, is the list.
 * Besides "no crash, no leak", the promises checked: a refused list leaves
 * no attribute behind and says why; an accepted one holds at most
 * OTEL_MAX_ATTRS pairs, none with an empty key or two with the same key,
 * and encoding each pair back (every byte as %XX) parses to the same
 * pairs in the same order; every header line is "Key: value". */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "otel.h"

/* s with every byte percent-encoded, appended at *o. */
static void encode(char *out, size_t *o, const char *s) {
  for (; *s; s++) {
    snprintf(out + *o, 4, "%%%02X", (unsigned char)*s);
    *o += 3;
  }
}

static void attrs(const char *list) {
  otel_attrs_t a, b;
  char err[256] = "", *again;
  size_t i, j, o = 0, cap = 1;
  memset(&a, 0, sizeof a);
  if (otel_attrs_parse(&a, list, "fuzz", err, sizeof err) != 0) {
    CHECK(a.n == 0 && err[0] != '\0');
    return;
  }
  CHECK(a.n <= OTEL_MAX_ATTRS);
  for (i = 0; i < a.n; i++) {
    CHECK(a.key[i][0] != '\0');
    for (j = 0; j < i; j++)
      CHECK(strcmp(a.key[i], a.key[j]) != 0);
    cap += 3 * (strlen(a.key[i]) + strlen(a.val[i])) + 2;
  }
  again = malloc(cap);
  CHECK(again != NULL);
  for (i = 0; i < a.n; i++) {
    if (i)
      again[o++] = ',';
    encode(again, &o, a.key[i]);
    again[o++] = '=';
    encode(again, &o, a.val[i]);
  }
  again[o] = '\0';
  memset(&b, 0, sizeof b);
  CHECK(otel_attrs_parse(&b, again, "fuzz", err, sizeof err) == 0);
  CHECK(b.n == a.n);
  for (i = 0; i < a.n; i++)
    CHECK(!strcmp(a.key[i], b.key[i]) && !strcmp(a.val[i], b.val[i]));
  otel_attrs_free(&a);
  otel_attrs_free(&b);
  free(again);
}

static void headers(const char *list) {
  otel_target_t t;
  char err[256] = "";
  size_t i;
  memset(&t, 0, sizeof t);
  if (otel_target_headers(&t, list, "fuzz", err, sizeof err) != 0)
    CHECK(err[0] != '\0');
  CHECK(t.nheaders <= OTEL_MAX_HEADERS);
  for (i = 0; i < t.nheaders; i++)
    CHECK(strstr(t.headers[i], ": ") != NULL && t.headers[i][0] != ':');
  otel_target_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *list;
  if (size < 1)
    return 0;
  list = malloc(size);
  CHECK(list != NULL);
  memcpy(list, data + 1, size - 1);
  list[size - 1] = '\0';
  if (data[0] & 1)
    headers(list);
  else
    attrs(list);
  free(list);
  return 0;
}
