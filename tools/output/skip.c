/* skip.c — a skipped line or delivery as the outputs say it, from its
 * fields' list (IPS_SKIP_FIELDS): the line on stderr every command writes,
 * and the page's record of it. */
#include "config.h"

#include <string.h>

#include "output.h"

void out_skip_text(FILE *f, const char *prog, const char *path,
                   const ips_skip_t *s) {
  fprintf(f, "%s: %s:%ld: %s%s%s (skipped)\n", prog, path, s->line,
          ips_skip_message(s->reason), *s->detail ? ": " : "", s->detail);
}

/* The JSON writers of the list's types. */
#define SKIP_INT(g, v) yajl_gen_integer(g, v)
#define SKIP_STR(g, v) str(g, v)

/* Without json.c's helpers: the otel program has this file alone. */
static void str(yajl_gen g, const char *s) {
  yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

void out_skip_names(yajl_gen g) {
  yajl_gen_array_open(g);
#define NAME(name, type, unit, value, meaning) str(g, #name);
  IPS_SKIP_FIELDS(NAME)
#undef NAME
  yajl_gen_array_close(g);
}

void out_skip_values(yajl_gen g, const ips_skip_t *s) {
#define VALUE(name, type, unit, value, meaning) SKIP_##type(g, value);
  IPS_SKIP_FIELDS(VALUE)
#undef VALUE
}
