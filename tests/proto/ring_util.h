/* ring_util.h — helpers of tests/proto/check_ring: scratch directories, and ring
 * files written by hand (a producer of another version, a corrupt file). */
#ifndef IPCSTAMP_TESTS_RING_UTIL_H
#define IPCSTAMP_TESTS_RING_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ring-format.h"

/* A fresh directory under $TMPDIR (or /tmp); static storage, one per
 * process (each Check test runs in its own process). */
const char *ru_tmpdir(void);
/* Remove the directory made by ru_tmpdir() and the files in it. */
void ru_cleanup(void);

/* An event type of a hand-written table. */
typedef struct ru_field_s {
  const char *name;
  uint16_t offset, size;
  uint8_t kind;
} ru_field_t;
typedef struct ru_type_s {
  const char *name;
  uint16_t id;
  uint32_t payload;
  const ru_field_t *fields;
  uint16_t nfields;
} ru_type_t;

/* A ring image in memory: header, table, data; head = tail = 0. */
typedef struct ru_image_s {
  unsigned char *bytes;  /* owned */
  size_t size;           /* header_size + data_size */
  size_t header_size;
  size_t data_size;
  uint64_t head, seq;
} ru_image_t;

void ru_image_init(ru_image_t *im, size_t data_size, const ru_type_t *types,
                   size_t ntypes, long pid);
/* Append a record (len = 16 + plen rounded up to 16, or exactly len when
 * len is not 0), with the next seq; pads at the end of the data as the
 * producer does.  head/written are updated in the header. */
void ru_image_put(ru_image_t *im, uint16_t type, const void *payload,
                  uint32_t plen, uint32_t len);
void ru_image_free(ru_image_t *im);
/* The header of im, to poke at. */
ips__ring_hdr_t *ru_hdr(ru_image_t *im);

/* Write n bytes to dir/name; returns the path (static storage). */
const char *ru_write(const char *name, const void *bytes, size_t n);

/* Read a whole file (the caller frees); *n gets its size. */
unsigned char *ru_read(const char *path, size_t *n);

#endif
