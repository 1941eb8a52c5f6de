/* os_read.c — reading a recording of `ipcstamp record` (docs/os.md, "The
 * file"): version 2 (binary records, os_bin.c) or version 1's JSON lines
 * (here).  The file is untrusted: lines are bounded (IPS_OS_MAX_LINE),
 * records counted (IPS_OS_MAX_RECORDS), every number checked to be a
 * stamp in range, and a line that is not what its type says is counted as
 * bad and skipped, never half-used. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "os.h"
#include "regular.h"

#define OS_FORMAT 1 /* of the JSON lines; os_bin.c reads version 2 */

static yajl_val field(yajl_val o, const char *key) {
  const char *path[2];
  path[0] = key;
  path[1] = NULL;
  return yajl_tree_get(o, path, yajl_t_any);
}

/* An integer field in [0, IPS_STAMP_LIMIT): 0, or -1. */
static int get_int(yajl_val o, const char *key, int64_t *out) {
  yajl_val v = field(o, key);
  if (!v || !YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0 ||
      YAJL_GET_INTEGER(v) >= IPS_STAMP_LIMIT)
    return -1;
  *out = YAJL_GET_INTEGER(v);
  return 0;
}

/* An identifier: any integer from 0 that JSON readers take whole. */
static int get_id(yajl_val o, const char *key, int64_t *out) {
  yajl_val v = field(o, key);
  if (!v || !YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0)
    return -1;
  *out = YAJL_GET_INTEGER(v);
  return 0;
}

static int get_u32(yajl_val o, const char *key, uint32_t *out) {
  int64_t v;
  if (get_int(o, key, &v) != 0 || v > 0xffffffffll)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

static int read_frame(ips_os_t *os, yajl_val o) {
  ips__os_side_t s;
  yajl_val side = field(o, "side"), tag = field(o, "tag");
  const char *sd = YAJL_IS_STRING(side) ? YAJL_GET_STRING(side) : NULL;
  const char *tg = YAJL_IS_STRING(tag) ? YAJL_GET_STRING(tag) : NULL;
  int64_t pipe, len;
  memset(&s, 0, sizeof s);
  if (!sd || (strcmp(sd, "w") && strcmp(sd, "r")) || !tg || strlen(tg) > 1 ||
      get_u32(o, "pid", &s.pid) || get_u32(o, "tid", &s.tid) ||
      get_id(o, "pipe", &pipe) || get_int(o, "len", &len) ||
      get_int(o, "enter", &s.enter) || get_int(o, "last_enter", &s.last_enter) ||
      get_int(o, "last_ret", &s.last_ret))
    return 1;
  s.pipe = (uint64_t)pipe;
  s.len = (uint64_t)len;
  s.write = sd[0] == 'w';
  s.tag = (unsigned char)tg[0];
  return ips__os_add_side(os, &s);
}

static int read_wait(ips_os_t *os, yajl_val o) {
  ips__os_wait_t w;
  yajl_val why = field(o, "why"), sc = field(o, "sc");
  const char *wy = YAJL_IS_STRING(why) ? YAJL_GET_STRING(why) : NULL;
  memset(&w, 0, sizeof w);
  if (!wy || get_u32(o, "tid", &w.tid) || get_int(o, "off", &w.off) ||
      get_int(o, "wake", &w.wake) || get_int(o, "on", &w.on))
    return 1;
  if (field(o, "maj_flt")) { /* recorded since the wait carried it */
    int64_t m;
    if (get_int(o, "maj_flt", &m) || m < 0)
      return 1;
    w.maj_flt = (uint64_t)m;
    w.has_maj = 1;
  }
  if (field(o, "runtime")) { /* since the collector's version 3 */
    int64_t rt, so, sn;
    if (get_id(o, "runtime", &rt) || get_id(o, "steal_off", &so) ||
        get_id(o, "steal_on", &sn) || get_u32(o, "waker", &w.waker) ||
        get_u32(o, "took", &w.took) || get_u32(o, "left", &w.left))
      return 1;
    w.runtime = (uint64_t)rt;
    w.steal_off = (uint64_t)so;
    w.steal_on = (uint64_t)sn;
    w.has_run = 1;
  }
  if (!strcmp(wy, "cpu")) w.why = 0;
  else if (!strcmp(wy, "sleep")) w.why = 1;
  else if (!strcmp(wy, "disk")) w.why = 2;
  else return 1;
  if (sc && YAJL_IS_STRING(sc)) {
    snprintf(w.sc, sizeof w.sc, "%s", YAJL_GET_STRING(sc));
    ips__os_printable(w.sc, strlen(w.sc));
  } else if (sc && !YAJL_IS_NULL(sc)) {
    return 1;
  }
  return ips__os_add_wait(os, &w);
}

/* An exec: kept as a launch (its arguments joined as the binary file has
 * them, each NUL-terminated, at most 256 bytes), its process as a vat's
 * worker when its first argument names a vat. */
static int read_exec(ips_os_t *os, yajl_val o) {
  yajl_val argv = field(o, "argv");
  char args[256];
  uint32_t pid, ppid = 0;
  int64_t ns;
  size_t i, len = 0;
  if (get_u32(o, "pid", &pid) || get_int(o, "ns", &ns) || !YAJL_IS_ARRAY(argv))
    return 1;
  get_u32(o, "ppid", &ppid);
  os->info.procs++;
  for (i = 0; i < argv->u.array.len && len < sizeof args; i++) {
    yajl_val a = argv->u.array.values[i];
    const char *str = YAJL_IS_STRING(a) ? YAJL_GET_STRING(a) : NULL;
    size_t n;
    if (!str)
      continue; /* not an argument: left out, the others kept */
    n = strlen(str);
    if (n >= sizeof args - len)
      n = sizeof args - len - 1; /* cut, as the kernel keeps 256 bytes */
    memcpy(args + len, str, n);
    len += n;
    args[len++] = '\0';
  }
  return ips__os_add_exec(os, ns, pid, ppid, args, len);
}

/* An exit: the wait status of a process. */
static int read_exit(ips_os_t *os, yajl_val o) {
  yajl_val code = field(o, "code");
  uint32_t pid;
  int64_t ns;
  if (get_u32(o, "pid", &pid) || get_int(o, "ns", &ns) || !code ||
      !YAJL_IS_INTEGER(code) || YAJL_GET_INTEGER(code) < INT32_MIN ||
      YAJL_GET_INTEGER(code) > INT32_MAX)
    return 1;
  return ips__os_add_exit(os, ns, pid, (int)YAJL_GET_INTEGER(code));
}

/* One record line: 0, 1 (bad: counted), or a negative code. */
static int read_record(ips_os_t *os, yajl_val o) {
  yajl_val t = field(o, "t");
  const char *type = YAJL_IS_STRING(t) ? YAJL_GET_STRING(t) : NULL;
  int64_t v;
  if (!type)
    return 1;
  if (!strcmp(type, "frame"))
    return read_frame(os, o);
  if (!strcmp(type, "wait"))
    return read_wait(os, o);
  if (!strcmp(type, "exec"))
    return read_exec(os, o);
  if (!strcmp(type, "task")) {
    yajl_val comm = field(o, "comm");
    uint32_t tid, pid;
    if (get_u32(o, "tid", &tid) || get_u32(o, "pid", &pid) ||
        !YAJL_IS_STRING(comm))
      return 1;
    return ips__os_add_task(os, tid, pid, YAJL_GET_STRING(comm));
  }
  if (!strcmp(type, "exit"))
    return read_exit(os, o);
  if (!strcmp(type, "lost")) {
    if (get_int(o, "n", &v))
      return 1;
    os->info.lost = (uint64_t)v;
  } else if (!strcmp(type, "end")) {
    if (get_int(o, "ns", &v) || get_int(o, "lost", &v))
      return 1;
    get_int(o, "ns", &os->end);
    os->info.lost = (uint64_t)v;
    os->info.ended = 1;
  } /* fork and types a later version adds: nothing to keep */
  return 0;
}

/* The first line: the format and its version.  0, or -1 with err. */
static int read_header(ips_os_t *os, const char *line, const char *path,
                       char *err, size_t errlen) {
  yajl_val o = yajl_tree_parse(line, NULL, 0), v;
  int rc = -1;
  if (!o || !YAJL_IS_OBJECT(o) || !(v = field(o, "ipcstamp_os")) ||
      !YAJL_IS_INTEGER(v))
    snprintf(err, errlen, "%s: not a recording of ipcstamp record (its "
                          "first line has no \"ipcstamp_os\")", path);
  else if (YAJL_GET_INTEGER(v) == 2 || YAJL_GET_INTEGER(v) == 3)
    snprintf(err, errlen, "%s: JSON lines that say format version %lld: a "
                          "recording in JSON lines must be version 1 "
                          "(version 2 is binary, and so is 3, each beginning "
                          "with the bytes \\x89IPS-OS)", path,
             YAJL_GET_INTEGER(v));
  else if (YAJL_GET_INTEGER(v) != OS_FORMAT)
    snprintf(err, errlen, "%s: format version %lld of ipcstamp record, "
                          "this ipcstamp reads version 1 (JSON lines) and "
                          "versions 2 and 3 (binary)", path,
             YAJL_GET_INTEGER(v));
  else if (get_int(o, "start", &os->start))
    snprintf(err, errlen, "%s: line 1: no \"start\"", path);
  else
    rc = 0;
  if (rc == 0) {
    int64_t wall;
    if (get_int(o, "start_wall_ns", &wall) == 0)
      os->wall_minus_mono = wall - os->start;
  }
  yajl_tree_free(o);
  return rc;
}

/* Reads the lines of f after the first.  0, or a negative code with err. */
static int read_lines(ips_os_t *os, FILE *f, const char *path, char *err,
                      size_t errlen) {
  static char line[IPS_OS_MAX_LINE + 2];
  long n = 1;
  while (fgets(line, sizeof line, f)) {
    size_t len = strlen(line);
    yajl_val o;
    int rc = 1;
    os->at = ++n;
    if (len && line[len - 1] != '\n' && !feof(f)) { /* too long: skip it */
      int c;
      while ((c = getc(f)) != EOF && c != '\n')
        ;
    } else if ((o = yajl_tree_parse(line, NULL, 0))) {
      rc = YAJL_IS_OBJECT(o) ? read_record(os, o) : 1;
      yajl_tree_free(o);
    }
    if (rc < 0) {
      snprintf(err, errlen, "%s: line %ld: %s", path, n,
               rc == -E2BIG ? "more records than ipcstamp reads from one "
                              "recording (IPS_OS_MAX_RECORDS)"
                            : "out of memory");
      return rc;
    }
    if (rc > 0 && !os->info.bad_lines++)
      os->info.first_bad_line = n;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    return -EIO;
  }
  return 0;
}

/* Version 1 (the first byte was '{'): the first line, then the others.
 * 0, or a negative code with err. */
static int read_json(ips_os_t *os, FILE *f, const char *path, char *err,
                     size_t errlen) {
  static char first[IPS_OS_MAX_LINE + 2];
  int rc = -EINVAL;
  if (!fgets(first, sizeof first, f))
    snprintf(err, errlen, "%s: empty, not a recording", path);
  else if (read_header(os, first, path, err, errlen) == 0)
    rc = read_lines(os, f, path, err, errlen);
  return rc;
}

/* Either version, by the first bytes.  0, or a negative code with err. */
static int read_any(ips_os_t *os, FILE *f, const char *path, char *err,
                    size_t errlen) {
  unsigned char h[IPS__OS_BIN_HEAD];
  int c = getc(f);
  size_t n;
  if (c == EOF) {
    snprintf(err, errlen, "%s: empty, not a recording", path);
    return -EINVAL;
  }
  if (c != (unsigned char)OS_FILE_MAGIC[0]) {
    ungetc(c, f);
    return read_json(os, f, path, err, errlen);
  }
  h[0] = (unsigned char)c;
  os->bin = 1;
  n = 1 + fread(h + 1, 1, sizeof h - 1, f);
  if (n < 8 || memcmp(h, OS_FILE_MAGIC, 8) != 0) {
    snprintf(err, errlen, "%s: not a recording of ipcstamp record (neither "
                          "its magic nor a JSON line)", path);
    return -EINVAL;
  }
  if (n < sizeof h) {
    snprintf(err, errlen, "%s: cut short in its header (%zu bytes)", path, n);
    return -EINVAL;
  }
  return ips__os_read_bin(os, f, h, path, err, errlen);
}

int ips_os_open(ips_os_t **out, const char *path, char *err, size_t errlen) {
  struct stat st;
  ips_os_t *os;
  FILE *f = NULL;
  int fd = ips__open_regular(path, 0, NULL, &st), rc;
  *out = NULL;
  if (fd < 0) {
    if (fd == -2)
      snprintf(err, errlen, "%s: %s, not a recording", path,
               ips__file_kind(st.st_mode));
    else
      snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return fd == -2 ? -EINVAL : -errno;
  }
  if (!(os = calloc(1, sizeof *os)) || !(f = fdopen(fd, "r"))) {
    snprintf(err, errlen, "%s: out of memory", path);
    free(os);
    close(fd);
    return -ENOMEM;
  }
  if ((rc = read_any(os, f, path, err, errlen)) == 0 &&
      (rc = ips__os_index(os)) != 0)
    snprintf(err, errlen, "%s: out of memory", path);
  fclose(f);
  if (rc != 0) {
    ips_os_free(os);
    return rc;
  }
  *out = os;
  return 0;
}

void ips_os_free(ips_os_t *os) {
  if (!os)
    return;
  free(os->frames);
  free(os->sides);
  free(os->waits);
  free(os->procs);
  free(os->tasks);
  free(os->launches);
  free(os->exits);
  free(os->names);
  free(os);
}

void ips_os_info(const ips_os_t *os, ips_os_info_t *info) {
  size_t i;
  *info = os->info;
  for (i = 0; i < os->nframes; i++)
    info->unmatched_frames += !os->frames[i].used && os->frames[i].tag &&
                              strchr(IPS__OS_COUNTED_TAGS, os->frames[i].tag);
}
