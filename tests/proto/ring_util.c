/* ring_util.c — see ring_util.h. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring_util.h"

static char dir[PATH_MAX];

const char *ru_tmpdir(void) {
  const char *t = getenv("TMPDIR");
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s/ipcstamp-ring-XXXXXX", t && *t ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  return dir;
}

void ru_cleanup(void) {
  DIR *d;
  struct dirent *e;
  char p[PATH_MAX + 256];
  if (!dir[0]) return;
  d = opendir(dir);
  if (d) {
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
  dir[0] = '\0';
}

void ru_image_init(ru_image_t *im, size_t data_size, const ru_type_t *types,
                   size_t ntypes, long pid) {
  ips__ring_hdr_t h;
  size_t off = IPS__RING_HDR_FIXED, i, j;
  size_t table = 0;
  for (i = 0; i < ntypes; i++)
    table += 32 + 32 * (size_t)types[i].nfields;
  memset(im, 0, sizeof *im);
  im->header_size = (IPS__RING_HDR_FIXED + table + 4095) / 4096 * 4096;
  im->data_size = data_size;
  im->size = im->header_size + data_size;
  im->bytes = calloc(1, im->size);
  ck_assert_ptr_nonnull(im->bytes);
  memset(&h, 0, sizeof h);
  memcpy(h.magic, IPS_RING_MAGIC, 8);
  h.version = IPS_RING_VERSION;
  h.endian = IPS_RING_ENDIAN;
  h.header_size = (uint32_t)im->header_size;
  h.ntypes = (uint32_t)ntypes;
  h.data_size = data_size;
  h.types_off = IPS__RING_HDR_FIXED;
  h.role = IPS_RING_ROLE_WORKER;
  h.pid = pid;
  strcpy(h.program, "hand-written");
  memcpy(im->bytes, &h, sizeof h);
  for (i = 0; i < ntypes; i++) {
    ips__ring_type_t t;
    memset(&t, 0, sizeof t);
    strncpy(t.name, types[i].name, sizeof t.name - 1);
    t.id = types[i].id;
    t.nfields = types[i].nfields;
    t.payload = types[i].payload;
    memcpy(im->bytes + off, &t, sizeof t);
    off += sizeof t;
    for (j = 0; j < types[i].nfields; j++) {
      ips__ring_field_t f;
      memset(&f, 0, sizeof f);
      strncpy(f.name, types[i].fields[j].name, sizeof f.name - 1);
      f.offset = types[i].fields[j].offset;
      f.size = types[i].fields[j].size;
      f.kind = types[i].fields[j].kind;
      memcpy(im->bytes + off, &f, sizeof f);
      off += sizeof f;
    }
  }
}

ips__ring_hdr_t *ru_hdr(ru_image_t *im) {
  return (ips__ring_hdr_t *)(void *)im->bytes;
}

void ru_image_put(ru_image_t *im, uint16_t type, const void *payload,
                  uint32_t plen, uint32_t len) {
  ips__ring_rec_t rec;
  unsigned char *data = im->bytes + im->header_size;
  size_t off;
  if (!len) len = (uint32_t)((16 + plen + 15) & ~15u);
  off = im->head % im->data_size;
  if (off + len > im->data_size) {
    rec.len = (uint32_t)(im->data_size - off);
    rec.type = IPS__RING_PAD;
    rec.flags = 0;
    rec.seq = im->seq;
    memcpy(data + off, &rec, sizeof rec);
    im->head += rec.len;
    off = 0;
  }
  ck_assert_uint_le(len, im->data_size);
  rec.len = len;
  rec.type = type;
  rec.flags = 0;
  rec.seq = im->seq++;
  memset(data + off, 0, len);
  memcpy(data + off, &rec, sizeof rec);
  if (plen) memcpy(data + off + sizeof rec, payload, plen < len - 16 ? plen : len - 16);
  im->head += len;
  ck_assert_uint_le(im->head, im->data_size); /* no overwrite here */
  atomic_store(&ru_hdr(im)->head, im->head);
  atomic_store(&ru_hdr(im)->written, im->seq);
}

void ru_image_free(ru_image_t *im) {
  free(im->bytes);
  im->bytes = NULL;
}

const char *ru_write(const char *name, const void *bytes, size_t n) {
  static char p[PATH_MAX + 256];
  FILE *f;
  snprintf(p, sizeof p, "%s/%s", ru_tmpdir(), name);
  f = fopen(p, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
  return p;
}

unsigned char *ru_read(const char *path, size_t *n) {
  struct stat st;
  unsigned char *b;
  int fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(fstat(fd, &st), 0);
  b = malloc((size_t)st.st_size + 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_int_eq(read(fd, b, (size_t)st.st_size), st.st_size);
  close(fd);
  *n = (size_t)st.st_size;
  return b;
}
