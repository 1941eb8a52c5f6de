/* loader.c — the BPF half of `ipcstamp record` in user space: loads the
 * program (os.bpf.c, through the skeleton generated at build time),
 * attaches it, says why when it cannot (each reason its exit code), and
 * reads its counters. */
#include "config.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "os.skel.h"
#include "record.h"

/* libbpf's warnings, kept to be shown only if loading fails. */
static char bpf_log[64 << 10];
static int on_libbpf(enum libbpf_print_level l, const char *fmt, va_list ap) {
  size_t n = strlen(bpf_log);
  if (l == LIBBPF_DEBUG || n >= sizeof bpf_log - 1)
    return 0;
  vsnprintf(bpf_log + n, sizeof bpf_log - n, fmt, ap);
  return 0;
}

/* Whether the kernel's lockdown forbids what BPF tracing needs. */
static int locked_down(void) {
  char buf[256] = "";
  FILE *f = fopen("/sys/kernel/security/lockdown", "r");
  if (!f)
    return 0;
  if (!fgets(buf, sizeof buf, f))
    buf[0] = '\0';
  fclose(f);
  return strstr(buf, "[integrity]") || strstr(buf, "[confidentiality]");
}

/* Why loading or attaching failed (err a negative errno), said, as an
 * exit code. */
static int bpf_fault(const char *what, int err) {
  if (err == -EACCES && geteuid() == 0 && !locked_down()) {
    fprintf(stderr, "ipcstamp record: the kernel's verifier refused the BPF "
                    "program (%s): cannot %s\n%s", strerror(-err), what,
            bpf_log);
    return CLI_EXIT_FAIL;
  }
  if (err == -EPERM || err == -EACCES) {
    if (geteuid() != 0) {
      fprintf(stderr, "ipcstamp record: not permitted to %s: run it as root "
                      "(or with CAP_BPF and CAP_PERFMON)\n", what);
      return REC_EXIT_PERM;
    }
    if (locked_down()) {
      fprintf(stderr, "ipcstamp record: the kernel is locked down against "
                      "BPF (/sys/kernel/security/lockdown): cannot %s\n", what);
      return REC_EXIT_LOCKDOWN;
    }
    fprintf(stderr, "ipcstamp record: not permitted to %s (%s; a security "
                    "module or kernel.unprivileged_bpf_disabled?)\n",
            what, strerror(-err));
    return REC_EXIT_PERM;
  }
  if (err == -ENOENT || err == -ESRCH || err == -EINVAL) {
    fprintf(stderr, "ipcstamp record: cannot %s: %s (a tracepoint or BPF "
                    "helper the collector needs is missing from this kernel: "
                    "it needs Linux 5.17 or later)\n%s",
            what, strerror(-err), bpf_log);
    return REC_EXIT_NOTP;
  }
  fprintf(stderr, "ipcstamp record: cannot %s: %s\n%s", what, strerror(-err),
          bpf_log);
  return CLI_EXIT_FAIL;
}

/* Only the programs named in the comma-separated list only are
 * attached (--cost-attach: each attach point's share of the floor
 * measured alone). */
static void attach_only(struct os *s, const char *only) {
  struct bpf_program *p;
  if (!only)
    return;
  bpf_object__for_each_program(p, s->obj) {
    const char *name = bpf_program__name(p);
    size_t n = strlen(name);
    const char *at = only;
    int keep = 0;
    while ((at = strstr(at, name)) != NULL) {
      if ((at == only || at[-1] == ',') && (at[n] == ',' || at[n] == '\0'))
        keep = 1;
      at += n;
    }
    bpf_program__set_autoattach(p, keep);
  }
}

/* Opens, loads and attaches the program; *skel set.  Returns 0 or an exit
 * code, said. */
int rec_load(struct os **skel, const rec_cost_t *cost) {
  struct os *s;
  int err;
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
    fprintf(stderr, "ipcstamp record: this kernel has no BTF "
                    "(/sys/kernel/btf/vmlinux: %s): it needs "
                    "CONFIG_DEBUG_INFO_BTF=y\n", strerror(errno));
    return REC_EXIT_NOBTF;
  }
  libbpf_set_print(on_libbpf);
  if (!(s = os__open()))
    return bpf_fault("open the BPF program", -errno);
  s->rodata->nr_read = SYS_read;
  s->rodata->nr_write = SYS_write;
  s->rodata->nr_readv = SYS_readv;
  s->rodata->nr_writev = SYS_writev;
  /* --cost-floor: the programs attached and doing nothing, the floor
   * under what recording can cost (docs/os.md, "The cost"). */
  s->rodata->floor_only = cost && cost->floor;
  attach_only(s, cost ? cost->attach : NULL);
  if ((err = os__load(s)) != 0) {
    os__destroy(s);
    return bpf_fault("load the BPF program", err);
  }
  if ((err = os__attach(s)) != 0) {
    os__destroy(s);
    return bpf_fault("attach to the kernel's tracepoints", err);
  }
  *skel = s;
  return 0;
}

unsigned long long rec_lost(struct os *s) {
  int ncpu = libbpf_num_possible_cpus(), i;
  unsigned long long *v, sum = 0;
  unsigned k = 0;
  if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof *v)))
    return 0;
  if (bpf_map__lookup_elem(s->maps.lost, &k, sizeof k, v,
                           sizeof *v * (size_t)ncpu, 0) == 0)
    for (i = 0; i < ncpu; i++)
      sum += v[i];
  free(v);
  return sum;
}

void rec_trace(struct os *s, unsigned pid) {
  unsigned char one = 1;
  bpf_map__update_elem(s->maps.traced, &pid, sizeof pid, &one, sizeof one,
                       BPF_ANY);
}

