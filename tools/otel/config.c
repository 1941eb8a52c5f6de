/* config.c — where to send and with which headers: the options, and the
 * OpenTelemetry SDKs' environment variables read the way the specification
 * says (opentelemetry-specification, protocol/exporter.md):
 *  - OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: the traces go to its
 *    "v1/traces" path; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the full URL,
 *    used as is, and wins over the generic one;
 *  - OTEL_EXPORTER_OTLP_HEADERS (and _TRACES_HEADERS) is a comma-separated
 *    list of key=value in the W3C Baggage form, the values percent-encoded.
 * --endpoint is the generic form (a base URL) since that is what a user
 * copies from a collector's documentation. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "otel.h"

#define DEFAULT_BASE "http://localhost:4318"

__attribute__((format(printf, 3, 4)))
static void say(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static int http_url(const char *u) {
  return !strncmp(u, "http://", 7) ? u[7] != '\0'
       : !strncmp(u, "https://", 8) ? u[8] != '\0' : 0;
}

/* base + "/v1/" + signal, one slash between. */
static char *with_path(const char *base, const char *signal) {
  size_t n = strlen(base), sn = strlen(signal);
  char *u;
  while (n && base[n - 1] == '/')
    n--;
  u = malloc(n + 4 + sn + 1);
  if (u) {
    memcpy(u, base, n);
    memcpy(u + n, "/v1/", 4);
    memcpy(u + n + 4, signal, sn + 1);
  }
  return u;
}

int otel_target_url_for(otel_target_t *t, const char *endpoint,
                        const char *signal, char *err, size_t errlen) {
  const char *what = "--endpoint", *u = endpoint, *e;
  char var[64];
  int full = 0, i;
  /* OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, _METRICS_ENDPOINT */
  snprintf(var, sizeof var, "OTEL_EXPORTER_OTLP_%s_ENDPOINT", signal);
  for (i = 19; var[i] && var[i] != '_'; i++)
    var[i] = (char)toupper((unsigned char)var[i]);
  if (!u && (e = getenv(var)) && *e) {
    u = e;
    what = var;
    full = 1;
  }
  if (!u && (e = getenv("OTEL_EXPORTER_OTLP_ENDPOINT")) && *e) {
    u = e;
    what = "OTEL_EXPORTER_OTLP_ENDPOINT";
  }
  if (!u)
    u = DEFAULT_BASE;
  if (!http_url(u)) {
    say(err, errlen, "%s '%s' is not an http:// or https:// URL", what, u);
    return -1;
  }
  free(t->url);
  t->url = full ? strdup(u) : with_path(u, signal);
  if (!t->url) {
    say(err, errlen, "out of memory");
    return -1;
  }
  return 0;
}

int otel_target_url(otel_target_t *t, const char *endpoint, char *err,
                    size_t errlen) {
  return otel_target_url_for(t, endpoint, "traces", err, errlen);
}

/* A header name as HTTP allows it (RFC 9110 token characters). */
static int token_ok(const char *s, size_t n) {
  size_t i;
  if (!n)
    return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!isalnum(c) && !strchr("!#$%&'*+-.^_`|~", c))
      return 0;
  }
  return 1;
}

/* Sets "name: value" (replacing an earlier header of the same name, so
 * that the last source wins as with the SDKs' precedence). */
static int set_header(otel_target_t *t, const char *name, size_t nn,
                      const char *val, size_t vn, char *err, size_t errlen) {
  size_t i;
  char *h = malloc(nn + vn + 3);
  if (!h) {
    say(err, errlen, "out of memory");
    return -1;
  }
  memcpy(h, name, nn);
  memcpy(h + nn, ": ", 2);
  memcpy(h + nn + 2, val, vn);
  h[nn + 2 + vn] = '\0';
  for (i = 0; i < t->nheaders; i++)
    if (!strncasecmp(t->headers[i], name, nn) && t->headers[i][nn] == ':') {
      free(t->headers[i]);
      t->headers[i] = h;
      return 0;
    }
  if (t->nheaders == OTEL_MAX_HEADERS) {
    free(h);
    say(err, errlen, "more than %d headers", OTEL_MAX_HEADERS);
    return -1;
  }
  t->headers[t->nheaders++] = h;
  return 0;
}

/* A value a header may hold: no control characters (a CR or LF would
 * start another header). */
static int value_ok(const char *v, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((unsigned char)v[i] < 0x20 && v[i] != '\t')
      return 0;
  return 1;
}

static int hexval(int c) {
  return c >= '0' && c <= '9' ? c - '0'
       : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int otel_target_headers(otel_target_t *t, const char *list, const char *what,
                        char *err, size_t errlen) {
  const char *p = list;
  int item = 0;
  while (*p) {
    const char *end = strchr(p, ','), *eq, *k, *ke, *v, *ve;
    char *dec;
    size_t dn = 0;
    int rc;
    if (!end)
      end = p + strlen(p);
    item++;
    k = p;
    ke = end;
    while (k < ke && (*k == ' ' || *k == '\t'))
      k++;
    while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
      ke--;
    if (k == ke) { /* an empty item ("a=1,,b=2", a trailing comma) */
      p = *end ? end + 1 : end;
      continue;
    }
    eq = memchr(k, '=', (size_t)(ke - k));
    if (!eq) {
      say(err, errlen, "%s: item %d '%.*s' has no '=' (the form is "
                       "key=value,key=value)", what, item, (int)(ke - k), k);
      return -1;
    }
    v = eq + 1;
    ve = ke;
    while (eq > k && (eq[-1] == ' ' || eq[-1] == '\t'))
      eq--;
    while (v < ve && (*v == ' ' || *v == '\t'))
      v++;
    if (!token_ok(k, (size_t)(eq - k))) {
      say(err, errlen, "%s: item %d: '%.*s' is not a header name", what,
          item, (int)(eq - k), k);
      return -1;
    }
    dec = malloc((size_t)(ve - v) + 1);
    if (!dec) {
      say(err, errlen, "out of memory");
      return -1;
    }
    for (; v < ve; v++) {
      if (*v == '%') {
        if (ve - v < 3 || hexval(v[1]) < 0 || hexval(v[2]) < 0) {
          say(err, errlen, "%s: item %d: bad percent-encoding at '%.*s' "
                           "(%% must be followed by two hex digits)",
              what, item, (int)(ve - v < 3 ? ve - v : 3), v);
          free(dec);
          return -1;
        }
        dec[dn++] = (char)(hexval(v[1]) * 16 + hexval(v[2]));
        v += 2;
      } else {
        dec[dn++] = *v;
      }
    }
    if (!value_ok(dec, dn)) {
      say(err, errlen, "%s: item %d: the value of '%.*s' holds a control "
                       "character", what, item, (int)(eq - k), k);
      free(dec);
      return -1;
    }
    rc = set_header(t, k, (size_t)(eq - k), dec, dn, err, errlen);
    free(dec);
    if (rc < 0)
      return -1;
    p = *end ? end + 1 : end;
  }
  return 0;
}

int otel_target_header(otel_target_t *t, const char *kv, char *err,
                       size_t errlen) {
  const char *eq = strchr(kv, '=');
  if (!eq || !token_ok(kv, (size_t)(eq - kv))) {
    say(err, errlen, "--header takes NAME=VALUE with an HTTP header name, "
                     "not '%s'", kv);
    return -1;
  }
  if (!value_ok(eq + 1, strlen(eq + 1))) {
    say(err, errlen, "--header %.*s: the value holds a control character",
        (int)(eq - kv), kv);
    return -1;
  }
  return set_header(t, kv, (size_t)(eq - kv), eq + 1, strlen(eq + 1), err,
                    errlen);
}

void otel_target_free(otel_target_t *t) {
  size_t i;
  free(t->url);
  t->url = NULL;
  for (i = 0; i < t->nheaders; i++)
    free(t->headers[i]);
  t->nheaders = 0;
}

/* s[0..n) percent-decoded into a new string, or NULL with *bad set to
 * where a '%' is not followed by two hex digits (NULL, bad NULL: out of
 * memory); *len gets the decoded length (a %00 would hide the rest). */
static char *pct_decode(const char *s, size_t n, const char **bad,
                        size_t *len) {
  char *d = malloc(n + 1);
  size_t i, o = 0;
  *bad = NULL;
  if (!d)
    return NULL;
  for (i = 0; i < n; i++) {
    if (s[i] != '%') {
      d[o++] = s[i];
      continue;
    }
    if (n - i < 3 || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0) {
      *bad = s + i;
      free(d);
      return NULL;
    }
    d[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
    i += 2;
  }
  d[o] = '\0';
  *len = o;
  return d;
}

/* A decoded key or value a resource attribute can carry: UTF-8 (OTLP's
 * strings are), no control characters. */
static int text_ok(const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return 0;
  return ips_utf8_valid(s, n);
}

static const char *trim(const char *s, const char **end) {
  while (s < *end && (*s == ' ' || *s == '\t'))
    s++;
  while (*end > s && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
    (*end)--;
  return s;
}

int otel_attrs_parse(otel_attrs_t *a, const char *list, const char *what,
                     char *err, size_t errlen) {
  const char *p = list;
  int item = 0;
  while (*p) {
    const char *end = strchr(p, ','), *k, *ke, *v, *ve, *bad;
    char *key, *val;
    size_t i, kn = 0, vn = 0;
    if (!end)
      end = p + strlen(p);
    item++;
    ke = end;
    k = trim(p, &ke);
    p = *end ? end + 1 : end;
    if (k == ke) /* an empty item ("a=1,,b=2", a trailing comma) */
      continue;
    v = memchr(k, '=', (size_t)(ke - k));
    if (!v) {
      say(err, errlen, "%s: item %d '%.*s' has no '=' (the form is "
                       "key=value,key=value)", what, item, (int)(ke - k), k);
      goto fail;
    }
    ve = ke;
    ke = v++;
    k = trim(k, &ke);
    v = trim(v, &ve);
    if (k == ke) {
      say(err, errlen, "%s: item %d has an empty key", what, item);
      goto fail;
    }
    key = pct_decode(k, (size_t)(ke - k), &bad, &kn);
    val = key ? pct_decode(v, (size_t)(ve - v), &bad, &vn) : NULL;
    if (!key || !val) {
      free(key);
      if (bad)
        say(err, errlen, "%s: item %d: bad percent-encoding at '%.*s' (%% "
                         "must be followed by two hex digits)", what, item,
            (int)(end - bad < 3 ? end - bad : 3), bad);
      else
        say(err, errlen, "out of memory");
      goto fail;
    }
    if (!text_ok(key, kn) || !text_ok(val, vn)) {
      say(err, errlen, "%s: item %d: the decoded %s is not UTF-8 text "
                       "(a control character or a bad byte)", what, item,
          text_ok(key, kn) ? "value" : "key");
      free(key);
      free(val);
      goto fail;
    }
    for (i = 0; i < a->n; i++) /* the later of two equal keys wins */
      if (!strcmp(a->key[i], key))
        break;
    if (i < a->n) {
      free(a->key[i]);
      free(a->val[i]);
    } else if (a->n == OTEL_MAX_ATTRS) {
      free(key);
      free(val);
      say(err, errlen, "%s: more than %d attributes", what, OTEL_MAX_ATTRS);
      goto fail;
    } else {
      a->n++;
    }
    a->key[i] = key;
    a->val[i] = val;
  }
  return 0;
fail:
  otel_attrs_free(a);
  return -1;
}

const char *otel_attrs_get(const otel_attrs_t *a, const char *key) {
  size_t i;
  for (i = 0; i < a->n; i++)
    if (!strcmp(a->key[i], key))
      return a->val[i];
  return NULL;
}

void otel_attrs_free(otel_attrs_t *a) {
  size_t i;
  for (i = 0; i < a->n; i++) {
    free(a->key[i]);
    free(a->val[i]);
  }
  a->n = 0;
}
