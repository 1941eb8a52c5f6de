/* http.c — the /metrics endpoint: an HTTP/1.x server on a thread of its
 * own, one poll() loop over non-blocking sockets.  Each connection reads
 * one request, gets one answer (Connection: close) and has one deadline
 * for all of it; past max_connections a connection is closed at once.
 * The answer is the registry's text made from a copy (expose.c), so
 * however slow a scraper reads, the feeder only ever waits for the copy.
 * Why no library: the HTTP here is one request line and one answer; a
 * server library (libmicrohttpd) would be a dependency of the recorder
 * for that. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "metrics/registry.h"

#define REQ_MAX 4096 /* a request's head; Prometheus sends ~300 bytes */

typedef enum { C_FREE, C_READ, C_WRITE, C_DRAIN } conn_state_t;

typedef struct {
  conn_state_t state;
  int fd;
  long long deadline;   /* ms, CLOCK_MONOTONIC */
  size_t rlen, olen, off;
  char *out;            /* the answer, head and body: owned */
  char req[REQ_MAX];
} conn_t;

struct ips_metrics_server_s {
  ips_metrics_t *m;
  int lfd, wake[2], port, maxc, deadline_ms;
  pthread_t thread;
  conn_t *conns;        /* maxc */
  struct pollfd *pfd;   /* maxc + 2: the thread's poll set */
  int *idx;             /* maxc */
  int c_requests, c_refused, c_timeouts; /* counters' ids */
  long long paused;     /* out of descriptors: accept again after (ms) */
};

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_close(conn_t *c) {
  close(c->fd);
  free(c->out);
  c->out = NULL;
  c->state = C_FREE;
}

/* The answer to c's request (its head complete, or REQ_MAX bytes of it):
 * status and body. */
static void answer(ips_metrics_server_t *s, conn_t *c) {
  static const char ctype[] = "text/plain; version=0.0.4; charset=utf-8";
  char head[256];
  int serve, head_only, n;
  const char *status = metrics_request(c->req, c->rlen, &serve, &head_only);
  const char *extra = !strncmp(status, "405", 3) ? "Allow: GET, HEAD\r\n"
                                                 : "";
  char *body = NULL;
  size_t blen = 0;
  if (serve && !(body = ips_metrics_expose(s->m, &blen)))
    status = "503 Service Unavailable"; /* out of memory */
  if (!body && (body = malloc(strlen(status) + 2)) != NULL)
    blen = (size_t)sprintf(body, "%s\n", status + 4);
  ips_metrics_count(s->m, s->c_requests, (char[4]){status[0], status[1],
                                                   status[2], '\0'}, 1);
  n = snprintf(head, sizeof head,
               "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
               "%sConnection: close\r\n\r\n",
               status, status[0] == '2' ? ctype : "text/plain", blen, extra);
  if (head_only)
    blen = 0;
  c->olen = (size_t)n + blen;
  c->off = 0;
  if (!body || !(c->out = malloc(c->olen))) {
    free(body);
    conn_close(c);
    return;
  }
  memcpy(c->out, head, (size_t)n);
  memcpy(c->out + n, body, blen);
  free(body);
  c->state = C_WRITE;
}

/* Reads what c's peer sent: the request's head, or (draining) whatever
 * follows it, thrown away. */
static void conn_read(ips_metrics_server_t *s, conn_t *c) {
  char junk[512];
  ssize_t r;
  if (c->state == C_DRAIN) {
    while ((r = read(c->fd, junk, sizeof junk)) > 0)
      ;
    if (r == 0 || errno != EAGAIN)
      conn_close(c);
    return;
  }
  r = read(c->fd, c->req + c->rlen, REQ_MAX - 1 - c->rlen);
  if (r <= 0) {
    if (r == 0 || errno != EAGAIN)
      conn_close(c);
    return;
  }
  c->rlen += (size_t)r;
  c->req[c->rlen] = '\0';
  if (metrics_head_whole(c->req, c->rlen) || c->rlen == REQ_MAX - 1)
    answer(s, c); /* a head that does not fit is not HTTP we answer */
}

static void conn_write(conn_t *c) {
  /* send: a peer gone is EPIPE here, never a SIGPIPE that ends us */
  ssize_t w = send(c->fd, c->out + c->off, c->olen - c->off, MSG_NOSIGNAL);
  if (w < 0) {
    if (errno != EAGAIN)
      conn_close(c);
    return;
  }
  c->off += (size_t)w;
  if (c->off == c->olen) {
    /* The answer is out: end our side, and read the peer's until it
     * closes, so that a close with unread bytes (an RST) never cuts the
     * answer short at the peer. */
    shutdown(c->fd, SHUT_WR);
    free(c->out);
    c->out = NULL;
    c->state = C_DRAIN;
  }
}

static void accept_one(ips_metrics_server_t *s) {
  int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), i;
  if (fd < 0) {
    /* Out of descriptors, the connection stays queued and the socket
     * readable: rest 100 ms rather than spin on it. */
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
        errno == ENOMEM)
      s->paused = now_ms() + 100;
    return;
  }
  for (i = 0; i < s->maxc && s->conns[i].state != C_FREE; i++)
    ;
  if (i == s->maxc) {
    close(fd);
    ips_metrics_count(s->m, s->c_refused, NULL, 1);
    return;
  }
  s->conns[i].fd = fd;
  s->conns[i].rlen = 0;
  s->conns[i].state = C_READ;
  s->conns[i].deadline = now_ms() + s->deadline_ms;
}

/* The poll set: the wake pipe, the socket, each open connection (idx[k]
 * is pfd[k + 2]'s connection).  Returns the next deadline's wait (ms, -1
 * for none); *n is the set's size. */
static int poll_set(ips_metrics_server_t *s, struct pollfd *pfd, int *idx,
                    nfds_t *n) {
  long long now = now_ms(), wait = -1;
  int i;
  pfd[0] = (struct pollfd){s->wake[0], POLLIN, 0};
  pfd[1] = (struct pollfd){s->lfd, now < s->paused ? 0 : POLLIN, 0};
  *n = 2;
  if (now < s->paused)
    wait = s->paused - now;
  for (i = 0; i < s->maxc; i++) {
    conn_t *c = &s->conns[i];
    if (c->state == C_FREE)
      continue;
    if (c->deadline <= now) {
      ips_metrics_count(s->m, s->c_timeouts, NULL, 1);
      conn_close(c);
      continue;
    }
    if (wait < 0 || c->deadline - now < wait)
      wait = c->deadline - now;
    idx[*n - 2] = i;
    pfd[(*n)++] = (struct pollfd){c->fd,
                                  c->state == C_WRITE ? POLLOUT : POLLIN, 0};
  }
  return (int)wait;
}

static void *serve(void *arg) {
  ips_metrics_server_t *s = arg;
  struct pollfd *pfd = s->pfd;
  int *idx = s->idx;
  for (;;) {
    nfds_t n, k;
    int wait = poll_set(s, pfd, idx, &n);
    if (poll(pfd, n, wait) < 0 && errno != EINTR)
      break;
    if (pfd[0].revents)
      break;
    for (k = 2; k < n; k++) {
      conn_t *c = &s->conns[idx[k - 2]];
      if (!pfd[k].revents)
        continue;
      if (c->state == C_WRITE)
        conn_write(c);
      else
        conn_read(s, c);
    }
    if (pfd[1].revents & POLLIN)
      accept_one(s);
  }
  return NULL;
}

/* addr ("HOST:PORT", ":PORT", "PORT", "[V6]:PORT") resolved into *res.
 * 0, or -EINVAL with why in err. */
static int resolve(const char *addr, struct addrinfo **res, char *err,
                   size_t errlen) {
  char host[256], *port;
  const char *colon = strrchr(addr, ':');
  struct addrinfo hints;
  char *end;
  long p;
  int rc;
  if (strlen(addr) >= sizeof host)
    return snprintf(err, errlen, "'%s' is too long", addr), -EINVAL;
  strcpy(host, addr);
  port = colon ? host + (colon - addr) + 1 : host;
  if (colon)
    host[colon - addr] = '\0';
  else
    host[0] = '\0', port = (char *)addr;
  errno = 0;
  p = strtol(port, &end, 10);
  if (!*port || *end || errno || p < 0 || p > 65535)
    return snprintf(err, errlen, "'%s': the port is not a number from 0 "
                                 "to 65535 (HOST:PORT, :PORT or PORT)",
                    addr), -EINVAL;
  if (host[0] == '[' && host[strlen(host) - 1] == ']') {
    memmove(host, host + 1, strlen(host));
    host[strlen(host) - 1] = '\0';
  }
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  if ((rc = getaddrinfo(host[0] ? host : NULL, port, &hints, res)) != 0)
    return snprintf(err, errlen, "'%s': %s", addr, gai_strerror(rc)),
           -EINVAL;
  return 0;
}

/* A listening socket on addr into s->lfd and s->port: 0, or a negative
 * errno with why in err. */
static int listen_on(ips_metrics_server_t *s, const char *addr, char *err,
                     size_t errlen) {
  struct addrinfo *res;
  struct sockaddr_storage sa;
  socklen_t salen = sizeof sa;
  int one = 1, rc = resolve(addr, &res, err, errlen);
  if (rc < 0)
    return rc;
  s->lfd = socket(res->ai_family, res->ai_socktype | SOCK_NONBLOCK |
                  SOCK_CLOEXEC, res->ai_protocol);
  /* SO_REUSEADDR: a restarted service binds again at once, past the
   * TIME_WAIT of its last answers; a listener there still fails. */
  if (s->lfd < 0 ||
      setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
      bind(s->lfd, res->ai_addr, res->ai_addrlen) || listen(s->lfd, 64) ||
      getsockname(s->lfd, (struct sockaddr *)&sa, &salen)) {
    rc = -errno;
    snprintf(err, errlen, "cannot listen on %s: %s%s", addr, strerror(errno),
             errno == EADDRINUSE ? " (another program has the port: "
                                   "choose another one)" : "");
    if (s->lfd >= 0)
      close(s->lfd);
    freeaddrinfo(res);
    return rc;
  }
  freeaddrinfo(res);
  s->port = ntohs(sa.ss_family == AF_INET6
                      ? ((struct sockaddr_in6 *)&sa)->sin6_port
                      : ((struct sockaddr_in *)&sa)->sin_port);
  return 0;
}

int ips_metrics_serve(ips_metrics_t *m, const ips_metrics_server_options_t *o,
                      ips_metrics_server_t **out, char *err, size_t errlen) {
  ips_metrics_server_t *s = calloc(1, sizeof *s);
  sigset_t all, old;
  int rc;
  if (!s)
    return snprintf(err, errlen, "out of memory"), -ENOMEM;
  s->m = m;
  s->maxc = o && o->max_connections > 0 ? o->max_connections : 16;
  s->deadline_ms = o && o->deadline_ms > 0 ? o->deadline_ms : 10000;
  s->conns = calloc((size_t)s->maxc, sizeof *s->conns);
  s->pfd = calloc((size_t)s->maxc + 2, sizeof *s->pfd);
  s->idx = calloc((size_t)s->maxc, sizeof *s->idx);
  s->wake[0] = s->wake[1] = -1;
  if (!s->conns || !s->pfd || !s->idx || pipe2(s->wake, O_CLOEXEC)) {
    rc = -(errno ? errno : ENOMEM);
    snprintf(err, errlen, "%s", strerror(-rc));
    goto error;
  }
  if ((rc = listen_on(s, o && o->listen ? o->listen
                                        : IPS_METRICS_DEFAULT_LISTEN,
                      err, errlen)) < 0)
    goto error;
  s->c_requests = ips_metrics_counter(
      m, "ipcstamp_metrics_requests_total",
      "HTTP requests answered by the metrics endpoint, by status code.",
      "code");
  s->c_refused = ips_metrics_counter(
      m, "ipcstamp_metrics_connections_refused_total",
      "Connections closed at once: the cap on open connections was "
      "reached.", NULL);
  s->c_timeouts = ips_metrics_counter(
      m, "ipcstamp_metrics_connections_timed_out_total",
      "Connections closed at their deadline, the answer not read.", NULL);
  /* The thread takes no signal: a SIGTERM is for the thread that reads
   * (which may be waiting for it in sigsuspend), never handled here. */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  rc = -pthread_create(&s->thread, NULL, serve, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc < 0) {
    snprintf(err, errlen, "cannot start a thread: %s", strerror(-rc));
    close(s->lfd);
    goto error;
  }
  *out = s;
  return 0;
error:
  if (s->wake[0] >= 0)
    close(s->wake[0]), close(s->wake[1]);
  free(s->conns);
  free(s->pfd);
  free(s->idx);
  free(s);
  return rc;
}

int ips_metrics_server_port(const ips_metrics_server_t *s) {
  return s->port;
}

void ips_metrics_server_address(const ips_metrics_server_t *s, char *buf,
                                size_t len) {
  struct sockaddr_storage sa;
  socklen_t salen = sizeof sa;
  char host[NI_MAXHOST];
  if (getsockname(s->lfd, (struct sockaddr *)&sa, &salen) ||
      getnameinfo((struct sockaddr *)&sa, salen, host, sizeof host, NULL, 0,
                  NI_NUMERICHOST))
    strcpy(host, "?");
  snprintf(buf, len, sa.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", host,
           s->port);
}

void ips_metrics_server_stop(ips_metrics_server_t *s) {
  int i;
  if (!s)
    return;
  while (write(s->wake[1], "x", 1) < 0 && errno == EINTR)
    ;
  pthread_join(s->thread, NULL);
  for (i = 0; i < s->maxc; i++)
    if (s->conns[i].state != C_FREE)
      conn_close(&s->conns[i]);
  close(s->lfd);
  close(s->wake[0]);
  close(s->wake[1]);
  free(s->conns);
  free(s->pfd);
  free(s->idx);
  free(s);
}
