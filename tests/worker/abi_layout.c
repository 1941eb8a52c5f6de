/* abi_layout.c — print the layout of the structs a worker program compiles
 * into itself (docs/embedding.md, "ABI"): every field's offset and every
 * struct's size.  tests/worker/abi_layout.test compares it with
 * tests/data/worker-abi.txt, so a layout change cannot reach a release
 * without the new soname the ABI rule asks for. */
#include <stddef.h>
#include <stdio.h>

#include "ipcstamp-worker.h"

#define SIZE(T) printf("%s size %zu\n", #T, sizeof(T))
#define FIELD(T, f) printf("%s.%s %zu\n", #T, #f, offsetof(T, f))

int main(void) {
  SIZE(ips_worker_t);
  FIELD(ips_worker_t, fd_in);
  FIELD(ips_worker_t, fd_out);
  FIELD(ips_worker_t, flags);
  FIELD(ips_worker_t, name);
  FIELD(ips_worker_t, tags);
  FIELD(ips_worker_t, dec);
  FIELD(ips_worker_t, stamps);
  FIELD(ips_worker_t, rbuf);
  FIELD(ips_worker_t, rsize);
  FIELD(ips_worker_t, rpos);
  FIELD(ips_worker_t, rlen);
  FIELD(ips_worker_t, meter);
  FIELD(ips_worker_t, meter_cap);
  FIELD(ips_worker_t, max_fields);
  FIELD(ips_worker_t, cpu_start_ns);
  FIELD(ips_worker_t, pending);
  FIELD(ips_worker_t, upcalls);
  FIELD(ips_worker_t, failed);
  FIELD(ips_worker_t, ready);
  FIELD(ips_worker_t, msg);
  SIZE(ips_ns_decoder_t);
  SIZE(ips_stamps_t);
  SIZE(ips_worker_options_t);
  FIELD(ips_worker_options_t, fd_in);
  FIELD(ips_worker_options_t, fd_out);
  FIELD(ips_worker_options_t, max_frame);
  FIELD(ips_worker_options_t, stamp_capacity);
  FIELD(ips_worker_options_t, max_meter_fields);
  FIELD(ips_worker_options_t, read_size);
  FIELD(ips_worker_options_t, flags);
  FIELD(ips_worker_options_t, name);
  FIELD(ips_worker_options_t, tags);
  SIZE(ips_command_t);
  FIELD(ips_command_t, tag);
  FIELD(ips_command_t, data);
  FIELD(ips_command_t, len);
  SIZE(ips_meter_t);
  FIELD(ips_meter_t, fields);
  FIELD(ips_meter_t, nfields);
  FIELD(ips_meter_t, has_cpu_ns);
  FIELD(ips_meter_t, cpu_ns);
  SIZE(ips_meter_field_t);
  FIELD(ips_meter_field_t, key);
  FIELD(ips_meter_field_t, value);
  return 0;
}
