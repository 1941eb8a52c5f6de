/* json.c — the little JSON vocabulary every output format speaks. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "output.h"

void out_str(yajl_gen g, const char *s) {
  yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

void out_int(yajl_gen g, const char *key, long long v) {
  out_str(g, key);
  yajl_gen_integer(g, v);
}

void out_kv(yajl_gen g, const char *key, const char *v) {
  out_str(g, key);
  out_str(g, v);
}

void out_us(yajl_gen g, const char *key, int64_t ns) {
  char b[IPS_US_BUF];
  out_str(g, key);
  ips_format_us(b, ns);
  yajl_gen_number(g, b, strlen(b));
}

void out_flush(yajl_gen g, FILE *f, int nl) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(g, &buf, &len);
  fwrite(buf, 1, len, f);
  yajl_gen_clear(g);
  if (nl) { /* a JSON line is a whole value: the next one starts afresh */
    fputc('\n', f);
    yajl_gen_reset(g, NULL);
  }
}

int out_format(const char *arg) {
  if (!strcmp(arg, "text")) return REPORT_TEXT;
  if (!strcmp(arg, "json")) return REPORT_JSON;
  if (!strcmp(arg, "csv")) return REPORT_CSV;
  if (!strcmp(arg, "html")) return REPORT_HTML;
  return -1;
}

FILE *out_open(const char *prog, const char *path) {
  FILE *f;
  if (!path || !strcmp(path, "-"))
    return stdout;
  if (!(f = fopen(path, "w")))
    fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
  return f;
}

int out_close(const char *prog, FILE *f, const char *path, const char *what) {
  if (fflush(f) != 0 || ferror(f) || (f != stdout && fclose(f) != 0)) {
    fprintf(stderr, "%s: cannot write %s\n", prog,
            path && strcmp(path, "-") ? path : what);
    return -1;
  }
  return 0;
}

yajl_gen out_gen(void) {
  yajl_gen g = yajl_gen_alloc(NULL);
  if (g)
    yajl_gen_config(g, yajl_gen_validate_utf8, 0);
  return g;
}
