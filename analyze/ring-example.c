/* ring-example: print the events of a ring file, then its state. */
#include <stdio.h>
#include <stdlib.h>

#include "ipcstamp-ring-read.h"

static int on_event(void *arg, const ips_ring_event_t *ev) {
  (void)arg;
  printf("#%llu %s", (unsigned long long)ev->seq, ev->name);
  for (size_t i = 0; i < ev->nfields; i++) {
    const ips_ring_field_t *f = &ev->fields[i];
    if (f->kind == IPS_RING_FIELD_STR)
      printf(" %s=\"%s\"", f->name, f->s);
    else if (f->kind == IPS_RING_FIELD_INT)
      printf(" %s=%lld", f->name, (long long)f->i);
    else
      printf(" %s=%llu", f->name, (unsigned long long)f->u);
  }
  printf("\n");
  return 0;
}

static void on_lost(void *arg, uint64_t n) {
  (void)arg;
  printf("lost %llu events\n", (unsigned long long)n);
}

int main(int argc, char **argv) {
  ips_ring_reader_t *r;
  ips_ring_info_t info;
  char msg[512];
  int n;
  if (argc != 2) {
    fprintf(stderr, "usage: ring-example FILE.ring\n");
    return 2;
  }
  if (ips_ring_reader_open(&r, argv[1], msg, sizeof msg) != 0) {
    fprintf(stderr, "ring-example: %s\n", msg);
    return 1;
  }
  /* A live program would call this every few milliseconds. */
  while ((n = ips_ring_reader_poll(r, 0, on_event, on_lost, NULL)) > 0) {
  }
  if (n < 0 || ips_ring_reader_info(r, &info) != 0) {
    fprintf(stderr, "ring-example: %s\n", ips_ring_reader_message(r));
    ips_ring_reader_close(r);
    return 1;
  }
  printf("pid %ld (%s) %s: %llu written, %llu overwritten\n", info.pid,
         info.program, info.alive ? "running" : "exited",
         (unsigned long long)info.written,
         (unsigned long long)info.overwritten);
  ips_ring_reader_close(r);
  return 0;
}
