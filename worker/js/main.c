/* ipcstamp-worker-js: a JavaScript worker on Duktape, the way xsnap is one
 * on XS.
 *
 *   'e' source        evaluated as global code; '.' with the completion
 *                     value as result when it is bytes or a string
 *   '?' delivery      globalThis.handleCommand(ArrayBuffer); its return value
 *                     is the result: an ArrayBuffer (or typed array), a
 *                     string (sent as UTF-8), undefined/null (empty), or —
 *                     as with xsnap — an object whose .result is one of those
 *   an exception      '!' + String(exception); the next command starts clean
 *
 * Globals added to the engine's own: issueCommand(ArrayBuffer | string) →
 * ArrayBuffer (an upcall), issueStringCommand(string) → string, print(...)
 * (to stdout), and the Web Performance API's performance.now(), .mark(),
 * .measure() and .timeOrigin, whose marks and spans travel in the
 * metering (docs/worker.md).  Nothing else: Duktape has no file, process or
 * network access unless the embedder adds it, and this program adds none.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duktape.h>

#include "js.h"

#define PROG "ipcstamp-worker-js"
/* Duktape's fatal errors (out of memory outside a protected call, internal
 * assertions) end the process with this status; the stream is fine. */
#define EXIT_VM_FATAL 3

static ips_worker_t js_worker;
static const char *prog = PROG;

/* ------------------------------------------------------------------------
 * Allocation counting: the engine's heap in bytes, and what a command
 * allocates, for the metering.  A small header keeps each block's size,
 * since Duktape's free and realloc do not pass it.
 */
typedef union {
  size_t size;
  max_align_t align;
} block_t;

static struct {
  size_t live_bytes;
  unsigned long long alloc_bytes;
  unsigned long long alloc_count;
} heap;

static void *js_alloc(void *udata, duk_size_t n) {
  block_t *b = malloc(sizeof *b + n);
  (void)udata;
  if (!b) return NULL;
  b->size = n;
  heap.live_bytes += n;
  heap.alloc_bytes += n;
  heap.alloc_count++;
  return b + 1;
}

static void js_free(void *udata, void *ptr) {
  block_t *b;
  (void)udata;
  if (!ptr) return;
  b = (block_t *)ptr - 1;
  heap.live_bytes -= b->size;
  free(b);
}

static void *js_realloc(void *udata, void *ptr, duk_size_t n) {
  block_t *b, *q;
  if (!ptr) return js_alloc(udata, n);
  if (n == 0) {
    js_free(udata, ptr);
    return NULL;
  }
  b = (block_t *)ptr - 1;
  size_t old = b->size;
  q = realloc(b, sizeof *q + n);
  if (!q) return NULL;
  q->size = n;
  heap.live_bytes = heap.live_bytes - old + n;
  if (n > old) heap.alloc_bytes += n - old;
  heap.alloc_count++;
  return q + 1;
}

static void js_fatal(void *udata, const char *msg) {
  (void)udata;
  fprintf(stderr, "%s: fatal engine error: %s\n", prog, msg ? msg : "?");
  fflush(NULL);
  exit(EXIT_VM_FATAL);
}

/* ------------------------------------------------------------------------
 * The host functions.
 */
static duk_ret_t js_issue_command(duk_context *ctx) {
  const char *req, *reply;
  size_t n, reply_len;
  int rc;
  if (value_bytes(ctx, 0, &req, &n) != 0)
    return duk_error(ctx, DUK_ERR_TYPE_ERROR,
                     "issueCommand expects an ArrayBuffer or a string");
  rc = ips_worker_upcall(&js_worker, req, n, &reply, &reply_len);
  if (ips_worker_failed(&js_worker)) ips_worker_exit(&js_worker, rc); /* the stream is gone */
  if (rc != 0)
    return duk_error(ctx, DUK_ERR_ERROR, "issueCommand: %s", ips_strerror(rc));
  if (duk_get_current_magic(ctx))
    push_utf8(ctx, reply, reply_len);
  else
    push_array_buffer(ctx, reply, reply_len);
  return 1;
}

static duk_ret_t js_print(duk_context *ctx) {
  duk_idx_t i, n = duk_get_top(ctx);
  for (i = 0; i < n; i++) {
    duk_size_t sz;
    size_t len;
    const char *s = duk_safe_to_lstring(ctx, i, &sz);
    const char *u = to_utf8(s, sz, &len);
    if (i) fputc(' ', stdout);
    if (u) fwrite(u, 1, len, stdout);
  }
  fputc('\n', stdout);
  fflush(stdout);
  return 0;
}

/* ------------------------------------------------------------------------
 * Commands.
 */
typedef struct {
  const ips_command_t *cmd;
  const char *result;
  size_t len;
  char bad[160]; /* a handleCommand result of the wrong type */
} run_t;

/* Runs inside duk_safe_call, so that any error — thrown by the script or by
 * a getter met while reading the result — comes back as a value. */
static duk_ret_t run_command(duk_context *ctx, void *udata) {
  run_t *r = udata;
  const ips_command_t *cmd = r->cmd;

  if (cmd->tag == 'e') {
    push_utf8(ctx, cmd->data, cmd->len);
    duk_eval(ctx);
  } else {
    if (!duk_get_global_string(ctx, "handleCommand") ||
        !duk_is_function(ctx, -1))
      return duk_error(ctx, DUK_ERR_TYPE_ERROR,
                       "globalThis.handleCommand is not a function "
                       "(define it with an 'e' command first)");
    /* Copied now: cmd->data is reused by the first upcall. */
    push_array_buffer(ctx, cmd->data, cmd->len);
    duk_call(ctx, 1);
  }
  /* xsnap's convention: an object with a .result carries the result. */
  if (duk_is_object(ctx, -1) && !duk_is_buffer_data(ctx, -1) &&
      duk_has_prop_string(ctx, -1, "result")) {
    duk_get_prop_string(ctx, -1, "result");
  }
  if (duk_is_null_or_undefined(ctx, -1) ||
      value_bytes(ctx, -1, &r->result, &r->len) != 0) {
    r->result = "";
    r->len = 0;
    if (cmd->tag == '?' && !duk_is_null_or_undefined(ctx, -1)) {
      duk_int_t t = duk_get_type(ctx, -1);
      snprintf(r->bad, sizeof r->bad,
               "handleCommand returned %s: expected an ArrayBuffer, a string "
               "or undefined",
               t == DUK_TYPE_NUMBER    ? "a number"
               : t == DUK_TYPE_BOOLEAN ? "a boolean"
                                       : "an object");
    }
  }
  return 1; /* the result stays on the stack while it is sent */
}

static int handle(ips_worker_t *w, const ips_command_t *cmd, void *arg) {
  duk_context *ctx = arg;
  unsigned long long bytes0 = heap.alloc_bytes, count0 = heap.alloc_count;
  run_t r;
  int rc;

  memset(&r, 0, sizeof r);
  r.cmd = cmd;
  js_performance_command();
  if (duk_safe_call(ctx, run_command, &r, 0, 1) != DUK_EXEC_SUCCESS) {
    duk_size_t sz;
    size_t len;
    const char *s = duk_safe_to_lstring(ctx, -1, &sz);
    const char *u = to_utf8(s, sz, &len);
    rc = ips_worker_reply_error(w, u ? u : "error", u ? len : 5);
  } else if (r.bad[0]) {
    rc = ips_worker_reply_error(w, r.bad, strlen(r.bad));
  } else {
    ips_meter_field_t f[3];
    ips_meter_t m;
    f[0].key = "allocate";
    f[0].value = (int64_t)heap.live_bytes;
    f[1].key = "allocBytes";
    f[1].value = (int64_t)(heap.alloc_bytes - bytes0);
    f[2].key = "allocCount";
    f[2].value = (int64_t)(heap.alloc_count - count0);
    memset(&m, 0, sizeof m);
    m.fields = f;
    m.nfields = 3;
    rc = ips_worker_reply_ok(w, r.result, r.len, &m);
    if (rc == IPS_EINVAL) {
      static const char big[] = "the result is too large for a frame";
      rc = ips_worker_reply_error(w, big, sizeof big - 1);
    }
  }
  duk_set_top(ctx, 0);
  return rc;
}

/* ------------------------------------------------------------------------
 * Start-up.
 */
static void usage(FILE *f) {
  fprintf(f,
          "usage: %s [-h|--help] [-v|--version] [-l <limit>] [-i <interval>] [-s <size>] [-p] "
          "[NAME]\n"
          "A JavaScript ipcstamp worker on Duktape %ld.%ld.%ld, started like\n"
          "xsnap-worker: commands on fd 3, answers on fd 4 (netstrings).\n"
          "  -h, --help     print this help\n"
          "  -v, --version  print the version (and Duktape's)\n"
          "  -l <limit>     xsnap's compute limit: accepted and ignored, "
          "Debian's\n"
          "                 Duktape is built without the interrupt counter "
          "that\n"
          "                 metering would need\n"
          "  -i <interval>  xsnap's metering interval: accepted and ignored\n"
          "  -s <size>      xsnap's parser buffer (kB): accepted and ignored, "
          "the\n"
          "                 largest frame is IPCSTAMP_MAX_FRAME\n"
          "  -p             xsnap's metering print: accepted and ignored\n"
          "  -r <snapshot>  refused: this worker has no snapshots\n"
          "  NAME           the worker's name in its messages (xsnap's parent "
          "passes\n"
          "                 the vat's name first)\n"
          "Environment: IPCSTAMP_MAX_FRAME (bytes), IPCSTAMP_STAMP_CAPACITY\n"
          "(default 1024), IPCSTAMP_DISABLE=1 (no stamps), IPCSTAMP_CPU_TIME=1\n"
          "(add cpu_ns, the command's CPU time), IPCSTAMP_RUN_DELAY=1 (add\n"
          "run_delay_ns, each stamp's wait for a CPU), IPCSTAMP_MAX_MARKS\n"
          "(default 256), IPCSTAMP_MAX_MARK_BYTES (default 4096).\n"
          "Exit status: 0 after 'q' or end of input, 1 bad usage or\n"
          "environment, 2 framing, protocol or I/O error, 3 engine fatal "
          "error.\n",
          prog, (long)(DUK_VERSION / 10000), (long)(DUK_VERSION / 100 % 100),
          (long)(DUK_VERSION % 100));
}

static int bad_usage(const char *why, const char *arg) {
  fprintf(stderr, "%s: %s%s%s\n", prog, why, arg ? " " : "", arg ? arg : "");
  usage(stderr);
  return IPS_WORKER_EXIT_USAGE;
}

static int is_count(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int main(int argc, char **argv) {
  ips_worker_options_t o;
  duk_context *ctx;
  char msg[200];
  const char *name = NULL;
  int i, status;

  if (argc > 0 && argv[0][0]) prog = base_name(argv[0]);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
      printf("%s %s (Duktape %ld.%ld.%ld)\n", PROG, PACKAGE_VERSION,
             (long)(DUK_VERSION / 10000), (long)(DUK_VERSION / 100 % 100),
             (long)(DUK_VERSION % 100));
      return 0;
    } else if (strcmp(a, "-l") == 0 || strcmp(a, "-i") == 0 ||
               strcmp(a, "-s") == 0) {
      if (i + 1 >= argc) return bad_usage("missing number after", a);
      if (!is_count(argv[i + 1]))
        return bad_usage("expected a whole number, got", argv[i + 1]);
      i++;
    } else if (strcmp(a, "-p") == 0) {
      continue;
    } else if (strcmp(a, "-r") == 0) {
      return bad_usage("snapshots (-r) are not supported by", PROG);
    } else if (a[0] != '-' && a[0] != '\0') {
      /* Like xsnap-worker: a plain argument is the name the parent gave. */
      name = a;
    } else {
      return bad_usage("unknown argument", a);
    }
  }

  ips_worker_options_init(&o);
  o.name = name != NULL ? name : prog;
  if (ips_worker_options_env(&o, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s: %s\n", prog, msg);
    return IPS_WORKER_EXIT_USAGE;
  }
  i = ips_worker_init(&js_worker, &o);
  if (i != 0) ips_worker_exit(&js_worker, i);

  ctx = duk_create_heap(js_alloc, js_realloc, js_free, NULL, js_fatal);
  if (!ctx) {
    fprintf(stderr, "%s: cannot create the JavaScript heap\n", prog);
    return IPS_WORKER_EXIT_USAGE;
  }
  duk_push_c_function(ctx, js_issue_command, 1);
  duk_put_global_string(ctx, "issueCommand");
  duk_push_c_function(ctx, js_issue_command, 1);
  duk_set_magic(ctx, -1, 1);
  duk_put_global_string(ctx, "issueStringCommand");
  duk_push_c_function(ctx, js_print, DUK_VARARGS);
  duk_put_global_string(ctx, "print");
  /* The decoder push_utf8 uses, taken before any script runs and kept
   * where scripts cannot reach it. */
  duk_push_global_stash(ctx);
  duk_eval_string(ctx, "new TextDecoder()");
  duk_get_prop_string(ctx, -1, "decode");
  duk_put_prop_string(ctx, -3, "decode");
  duk_put_prop_string(ctx, -2, "decoder");
  duk_pop(ctx);
  if (js_install_performance(ctx, &js_worker) != 0) {
    fprintf(stderr, "%s: %s\n", prog, ips_strerror(IPS_ECLOCK));
    return IPS_WORKER_EXIT_USAGE;
  }

  status = ips_worker_run(&js_worker, handle, ctx);
  ips_worker_close(&js_worker);
  duk_destroy_heap(ctx);
  js_strings_free();
  return status;
}
