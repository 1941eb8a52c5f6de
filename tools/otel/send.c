/* send.c — OTLP/HTTP requests on libcurl: one connection kept alive across
 * requests, retries with exponential backoff on what the OTLP specification
 * calls retryable (429, 502, 503, 504, and a failed connection), honouring
 * the receiver's Retry-After, and a message after the last try that says
 * what the receiver answered.
 *
 * Built without libcurl, otel_sender_new() says so and nothing is sent
 * (`ipcstamp otel --dry-run` still works). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "otel.h"

static void say(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

#ifdef HAVE_CURL
#include <curl/curl.h>
#include <yajl/yajl_tree.h>

/* The most of an answer's body kept (for the partial success and the error
 * message); the rest is read and dropped, so a huge answer costs nothing. */
#define BODY_MAX 65536

struct otel_sender_s {
  CURL *curl;
  struct curl_slist *hdrs;
  otel_send_options_t o;
  char body[BODY_MAX + 1];
  size_t blen;
  int bcut;            /* the answer's body was longer than BODY_MAX */
  long retry_after_ms; /* from the last answer; -1: none */
  char curl_err[CURL_ERROR_SIZE];
  sig_atomic_t stop_base; /* *o.stop when otel_send began */
};

static size_t on_body(char *p, size_t size, size_t n, void *arg) {
  otel_sender_t *s = arg;
  size_t len = size * n, room = BODY_MAX - s->blen;
  if (len < room)
    room = len;
  else if (len > room)
    s->bcut = 1;
  memcpy(s->body + s->blen, p, room);
  s->blen += room;
  s->body[s->blen] = '\0';
  return len;
}

/* Retry-After: delay-seconds or an HTTP-date (RFC 9110 10.2.3). */
static size_t on_header(char *p, size_t size, size_t n, void *arg) {
  otel_sender_t *s = arg;
  size_t len = size * n;
  static const char name[] = "retry-after:";
  if (len > sizeof name - 1 && !strncasecmp(p, name, sizeof name - 1)) {
    char v[128];
    size_t vn = len - (sizeof name - 1);
    const char *q = p + sizeof name - 1;
    char *end;
    long secs;
    while (vn && (*q == ' ' || *q == '\t')) {
      q++;
      vn--;
    }
    while (vn && (q[vn - 1] == '\r' || q[vn - 1] == '\n' || q[vn - 1] == ' '))
      vn--;
    if (vn && vn < sizeof v) {
      memcpy(v, q, vn);
      v[vn] = '\0';
      secs = strtol(v, &end, 10);
      if (*end == '\0' && secs >= 0 && v[0] != '-') {
        s->retry_after_ms = secs > 86400 ? 86400000L : secs * 1000;
      } else {
        time_t when = curl_getdate(v, NULL), now = time(NULL);
        if (when != (time_t)-1)
          s->retry_after_ms = when > now ? (long)(when - now) * 1000 : 0;
      }
    }
  }
  return len;
}

static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c,
                       curl_off_t d);

otel_sender_t *otel_sender_new(const otel_send_options_t *o, char *err,
                               size_t errlen) {
  otel_sender_t *s;
  size_t i;
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
    say(err, errlen, "libcurl could not start");
    return NULL;
  }
  s = calloc(1, sizeof *s);
  if (!s || !(s->curl = curl_easy_init())) {
    free(s);
    say(err, errlen, "out of memory");
    return NULL;
  }
  s->o = *o;
  s->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
  for (i = 0; s->hdrs && i < o->target->nheaders; i++) {
    struct curl_slist *n = curl_slist_append(s->hdrs, o->target->headers[i]);
    if (!n) {
      curl_slist_free_all(s->hdrs);
      s->hdrs = NULL;
    } else {
      s->hdrs = n;
    }
  }
  if (!s->hdrs) {
    otel_sender_free(s);
    say(err, errlen, "out of memory");
    return NULL;
  }
  curl_easy_setopt(s->curl, CURLOPT_URL, o->target->url);
  curl_easy_setopt(s->curl, CURLOPT_HTTPHEADER, s->hdrs);
  curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS, o->timeout_ms);
  curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
  curl_easy_setopt(s->curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(s->curl, CURLOPT_HEADERDATA, s);
  curl_easy_setopt(s->curl, CURLOPT_USERAGENT, "ipcstamp/" PACKAGE_VERSION);
  /* Only the URL given: a redirect to elsewhere would carry the headers
   * (an authorization) to a host nobody named. */
  curl_easy_setopt(s->curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(s->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(s->curl, CURLOPT_XFERINFODATA, s);
  curl_easy_setopt(s->curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->curl_err);
  return s;
}

/* rejectedSpans of a partial success (an int64: a number, or a string of
 * digits as protobuf-JSON writes 64-bit integers); 0 when there is none
 * (an empty body).  UINT64_MAX when it is there but not a count (negative,
 * a fraction, past int64, not a number): the caller cannot know what was
 * taken.  -1 when the body is not JSON at all: nor can it then. */
static int rejected_of(const char *body, uint64_t *out) {
  static const char *path[] = {"partialSuccess", "rejectedSpans", NULL};
  yajl_val root, v;
  uint64_t n = 0;
  *out = 0;
  if (!*body)
    return 0;
  root = yajl_tree_parse(body, NULL, 0);
  if (!root)
    return -1;
  v = yajl_tree_get(root, path, yajl_t_any);
  if (!v || YAJL_IS_NULL(v)) {
    n = 0;
  } else if (YAJL_IS_INTEGER(v)) {
    n = YAJL_GET_INTEGER(v) >= 0 ? (uint64_t)YAJL_GET_INTEGER(v) : UINT64_MAX;
  } else if (YAJL_IS_STRING(v) && v->u.string) {
    const char *p = v->u.string;
    size_t len = strlen(p);
    n = len && len <= 18 && strspn(p, "0123456789") == len
            ? strtoull(p, NULL, 10)
            : UINT64_MAX;
  } else {
    n = UINT64_MAX;
  }
  yajl_tree_free(root);
  *out = n;
  return 0;
}

/* A signal came since this otel_send began (one before it ended the
 * reading only: the last batches are still sent, once). */
static int stopped(const otel_sender_t *s) {
  return s->o.stop && *s->o.stop != s->stop_base;
}

/* Waits ms, in slices of 50 ms so that a signal ends the wait within one
 * (a handler without SA_RESTART interrupts nanosleep too). */
static void nap_ms(const otel_sender_t *s, long ms) {
  while (ms > 0 && !stopped(s)) {
    long d = ms < 50 ? ms : 50;
    struct timespec ts = {0, d * 1000000L};
    nanosleep(&ts, NULL);
    ms -= d;
  }
}

/* libcurl's progress callback, called while a request waits too: a
 * non-zero answer aborts the request (a signal ends a run within one). */
static int on_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c,
                       curl_off_t d) {
  (void)a;
  (void)b;
  (void)c;
  (void)d;
  return stopped(arg);
}

/* The body for a message: its first line, at most 200 bytes, cleaned for
 * a terminal (the receiver's bytes: no escape sequence reaches stderr). */
static const char *snippet(otel_sender_t *s, char *buf, size_t n) {
  size_t i;
  for (i = 0; i + 1 < n && i < 200 && s->body[i] && s->body[i] != '\n' &&
              s->body[i] != '\r'; i++)
    buf[i] = s->body[i];
  buf[i] = '\0';
  cli_term_clean(buf, i);
  return buf;
}

/* Why a request failed, in libcurl's words.  libcurl gives up on an
 * answer header longer than it takes (100 KiB) with "out of memory", which
 * would send the user looking for memory that is there: said as what it is. */
static const char *failure(otel_sender_t *s, CURLcode cc) {
  if (cc == CURLE_OUT_OF_MEMORY)
    return "its answer could not be taken: a header longer than libcurl's "
           "100 KiB (or no memory left)";
  return s->curl_err[0] ? s->curl_err : curl_easy_strerror(cc);
}

int otel_send(otel_sender_t *s, const char *body, size_t len, unsigned tries,
              uint64_t *rejected, char *err, size_t errlen) {
  unsigned t;
  long wait = s->o.backoff_ms;
  char last[400] = "";
  if (!tries)
    tries = s->o.retries + 1;
  *rejected = 0;
  s->stop_base = s->o.stop ? *s->o.stop : 0;
  curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  for (t = 1;; t++) {
    long code = 0, delay;
    char sn[256];
    CURLcode cc;
    s->curl_err[0] = '\0';
    s->blen = 0;
    s->bcut = 0;
    s->body[0] = '\0';
    s->retry_after_ms = -1;
    cc = curl_easy_perform(s->curl);
    if (cc == CURLE_OK) {
      curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
      if (code >= 200 && code < 300) {
        /* A partial success we could not read whole is no confirmation:
         * it may say any number of spans were rejected. */
        if (s->bcut) {
          say(err, errlen, "%s answered HTTP %ld with a body of more than %d "
              "bytes: its partial success cannot be read whole, so the "
              "spans are not taken as received", s->o.target->url, code,
              BODY_MAX);
          return -1;
        }
        if (rejected_of(s->body, rejected) != 0) {
          say(err, errlen, "%s answered HTTP %ld with a body that is not "
              "JSON (%s): its partial success cannot be read, so the spans "
              "are not taken as received", s->o.target->url, code,
              snippet(s, sn, sizeof sn));
          return -1;
        }
        return 0;
      }
      snprintf(last, sizeof last, "%s answered HTTP %ld%s%s", s->o.target->url,
               code, s->blen ? ": " : "", snippet(s, sn, sizeof sn));
      if (code != 429 && code != 502 && code != 503 && code != 504) {
        say(err, errlen, "%s (not retried: the request itself was refused)",
            last);
        return -1;
      }
    } else if (stopped(s)) {
      snprintf(last, sizeof last, "interrupted while sending to %s",
               s->o.target->url);
    } else {
      snprintf(last, sizeof last, "cannot send to %s: %s", s->o.target->url,
               failure(s, cc));
    }
    if (t >= tries || stopped(s))
      break;
    delay = s->retry_after_ms >= 0 ? s->retry_after_ms : wait;
    if (delay > s->o.max_backoff_ms)
      delay = s->o.max_backoff_ms;
    nap_ms(s, delay);
    if (stopped(s)) {
      snprintf(last + strlen(last), sizeof last - strlen(last),
               "; interrupted before the next try");
      break;
    }
    if (wait < s->o.max_backoff_ms / 2)
      wait *= 2;
    else
      wait = s->o.max_backoff_ms;
  }
  say(err, errlen, "%s (tried %u time%s)", last, t, t == 1 ? "" : "s");
  return 1;
}

void otel_sender_free(otel_sender_t *s) {
  if (!s)
    return;
  if (s->curl)
    curl_easy_cleanup(s->curl);
  curl_slist_free_all(s->hdrs);
  free(s);
  curl_global_cleanup();
}

#else /* !HAVE_CURL */

struct otel_sender_s {
  int unused;
};

otel_sender_t *otel_sender_new(const otel_send_options_t *o, char *err,
                               size_t errlen) {
  (void)o;
  say(err, errlen, "this ipcstamp was built without libcurl, so it cannot "
                   "send (install libcurl's development files, e.g. Debian's "
                   "libcurl4-openssl-dev, and configure again; --dry-run "
                   "works without it)");
  return NULL;
}

int otel_send(otel_sender_t *s, const char *body, size_t len, unsigned tries,
              uint64_t *rejected, char *err, size_t errlen) {
  (void)s;
  (void)body;
  (void)len;
  (void)tries;
  *rejected = 0;
  say(err, errlen, "built without libcurl");
  return -1;
}

void otel_sender_free(otel_sender_t *s) { (void)s; }

#endif
