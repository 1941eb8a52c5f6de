/* json.h — split untrusted JSON (workload lines, upcalls) into its
 * top-level members, each re-serialised compactly, with yajl's streaming
 * parser.  No tree is built. */
#ifndef IPCSTAMP_TOOLS_RUN_JSON_H
#define IPCSTAMP_TOOLS_RUN_JSON_H

#include <stddef.h>

#define RUN_JSON_MAX_ITEMS 8
#define RUN_JSON_MAX_DEPTH 64

typedef struct {
  char *key;     /* member name (objects), NUL-terminated; NULL for arrays */
  char *json;    /* the value re-serialised, NUL-terminated */
  size_t len;
  char *str;     /* the decoded string when the value is a string, else
                    NULL (NUL-terminated; may contain NULs within len) */
  size_t slen;
} run_jitem_t;

typedef struct {
  int is_object;          /* top level: 1 object, 0 array */
  size_t count;           /* members seen (may exceed RUN_JSON_MAX_ITEMS) */
  run_jitem_t item[RUN_JSON_MAX_ITEMS]; /* the first ones; owned */
} run_jsplit_t;

/* Split buf[0..n), which must be one JSON object or array.  Returns 0, or
 * -1 with a message in err (what was wrong and at which byte). */
int run_json_split(const char *buf, size_t n, run_jsplit_t *out, char *err,
                   size_t errsize);
void run_json_free(run_jsplit_t *s);

/* A NUL-terminated malloc'd copy of s[0..n) (which may hold NULs), or NULL;
 * the caller owns it. */
char *ips__dup_n(const char *s, size_t n);

/* The member called key, or NULL. */
const run_jitem_t *run_json_get(const run_jsplit_t *s, const char *key);

#endif
