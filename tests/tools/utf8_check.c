/* utf8_check.c — the test scripts' check that an output is valid UTF-8
 * (every JSON output must be: a protobuf-JSON receiver or a browser
 * refuses the whole document for one bad byte).
 *
 *   utf8_check FILE...   (- for standard input)
 *
 * Exit 0 when every file is strict UTF-8 (ips_utf8_valid's rules: no
 * overlong form, surrogate, code point past U+10FFFF or cut character);
 * else 1, naming the first bad file, its line and byte offset and the bytes
 * there.  2 when a file cannot be read. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipcstamp-proto.h"

static int check(const char *path) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  char *buf = NULL;
  size_t len = 0, cap = 0, n, ok, i, line = 1;
  if (!f) {
    perror(path);
    return 2;
  }
  for (;;) {
    if (len == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
      if (!nb) {
        fprintf(stderr, "utf8_check: out of memory\n");
        return 2;
      }
      buf = nb;
    }
    n = fread(buf + len, 1, cap - len, f);
    if (!n)
      break;
    len += n;
  }
  if (ferror(f)) {
    perror(path);
    return 2;
  }
  if (f != stdin)
    fclose(f);
  ok = ips_utf8_prefix(buf, len);
  if (ok == len) {
    free(buf);
    return 0;
  }
  for (i = 0; i < ok; i++)
    if (buf[i] == '\n')
      line++;
  fprintf(stderr, "utf8_check: %s:%zu: byte %zu is not UTF-8:", path, line,
          ok);
  for (i = ok; i < len && i < ok + 4; i++)
    fprintf(stderr, " %02x", (unsigned char)buf[i]);
  fputc('\n', stderr);
  free(buf);
  return 1;
}

int main(int argc, char **argv) {
  int i, rc;
  if (argc < 2) {
    fprintf(stderr, "usage: utf8_check FILE...\n");
    return 2;
  }
  for (i = 1; i < argc; i++)
    if ((rc = check(argv[i])) != 0)
      return rc;
  return 0;
}
