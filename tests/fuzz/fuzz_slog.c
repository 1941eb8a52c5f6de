/* fuzz_slog.c — libFuzzer target for the slogfile line parser behind
 * `ipcstamp report`, `trace` and `latency`.
 *
 * Each input is one line, parsed twice: by the fast parser (which jumps
 * over payloads) and by the strict one (yajl reads every byte).  Besides
 * "no crash, no leak, no read past the line", whatever the strict parser
 * accepts, the fast one must accept too, and every figure it reads must be
 * the strict one's: the fast path may know less, never read differently. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slog.h"
#include "fuzz.h"

static ips__parser_t *fast, *strict;

/* The fast parser a, the strict one b.  The fast one may know less (it
 * trusts the documented field order and does not read what it jumps over,
 * see docs/report.md), never something else: every field it has, the strict
 * one has with the same value. */
static void same(const ips__rec_t *a, const ips__rec_t *b) {
  CHECK(a->type == b->type);
  if (a->type == IPS__REC_OTHER) /* ignored by every tool: read no further */
    return;
  CHECK((a->have & ~b->have) == 0);
#define HAS(f) (a->have & IPS__F_##f)
  CHECK(!HAS(CRANK) || a->crank == b->crank);
  CHECK(!HAS(DNUM) || a->dnum == b->dnum);
  CHECK(!HAS(SNUM) || a->snum == b->snum);
  CHECK(!HAS(VAT) ||
        (strcmp(a->vat, b->vat) == 0 && a->vat_len == b->vat_len));
  CHECK(!HAS(TIME) || a->time_ns == b->time_ns);
  CHECK(!HAS(MONO) || a->mono_ns == b->mono_ns);
  CHECK(!HAS(DR) || a->ok == b->ok);
  CHECK(!HAS(IPSV) || a->ipsv == b->ipsv);
  CHECK(!HAS(CPU) || a->cpu_ns == b->cpu_ns);
  /* Not the description: it is only a label, read from a payload. */
  CHECK(!HAS(WALLS) || (a->n_walls == b->n_walls &&
                        memcmp(a->walls, b->walls,
                               a->n_walls * sizeof *a->walls) == 0));
  CHECK(!HAS(WMONO) || (a->n_wmono == b->n_wmono &&
                        memcmp(a->wmono, b->wmono,
                               a->n_wmono * sizeof *a->wmono) == 0));
  CHECK(!HAS(KINDS) || strcmp(a->kinds, b->kinds) == 0);
  CHECK(!HAS(PRUNQ) || a->prunq == b->prunq);
  CHECK(!HAS(WRUNQ) || (a->n_wrunq == b->n_wrunq &&
                        memcmp(a->wrunq, b->wrunq,
                               a->n_wrunq * sizeof *a->wrunq) == 0));
  CHECK(!HAS(COMPUTE) || a->compute == b->compute);
  CHECK(a->type != IPS__REC_BLOCK || a->sub == b->sub);
  CHECK(!HAS(HEIGHT) || a->height == b->height);
  CHECK(!HAS(BTIME) || a->btime == b->btime);
  CHECK(!HAS(COMPRESS) || a->compress_ns == b->compress_ns);
  CHECK(!HAS(DBSAVE) || a->dbsave_ns == b->dbsave_ns);
#undef HAS
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const ips__rec_t *rf, *rs;
  char ef[256], es[256];
  /* An exact-size copy: ASan catches any read past the line's end. */
  char *line = malloc(size ? size : 1);
  int cf, cs;
  if (fast == NULL) {
    fast = ips__parser_new(0);
    strict = ips__parser_new(1);
    CHECK(fast != NULL && strict != NULL);
  }
  CHECK(line != NULL);
  memcpy(line, data, size);
  cf = ips__slog_parse(fast, line, size, &rf, ef, sizeof ef);
  cs = ips__slog_parse(strict, line, size, &rs, es, sizeof es);
  CHECK(cf == 0 || cf == -1 || cf == -2);
  CHECK(cs == 0 || cs == -1 || cs == -2);
  if (cf != 0)
    CHECK(ef[0] != '\0' && memchr(ef, '\0', sizeof ef) != NULL);
  if (cs == 0) {
    CHECK(cf == 0);
    same(rf, rs);
  }
  free(line);
  return 0;
}
