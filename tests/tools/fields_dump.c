/* fields_dump.c — the list of a delivery's fields (IPS_DELIVERY_FIELDS in
 * ipcstamp-analyze-fields.h) as tab-separated lines, for
 * tests/tools/fields.test, which holds the docs, the schema and every
 * format's output to it:
 *
 *     name  type  unit  in  when  text  otel  meaning
 *
 * (then IPS_OS_FIELDS's, the same way)
 * in: the formats, "json,csv,trace,old,os"; when: the condition's source text
 * ("1": always there); text and otel: "-" for NULL.  Then the sums of a
 * set of deliveries (IPS_TOTALS_FIELDS), as "totals  name  unit  meaning",
 * a skip's (IPS_SKIP_FIELDS) as "skip  name  type  unit  meaning", and the
 * skips' reasons (IPS_SKIP_MAP) as "reason  NAME  message".
 *
 * fields_dump blocks: the fields of a block (IPS_BLOCK_FIELDS), for
 * tests/tools/blocks_fields.test, as
 *
 *     obj  name  csv  type  unit  in  when  text  meaning
 *
 * (csv and text "-" for NULL; in: "json,part,split"), then the block
 * summary's (BLOCKS_SUMMARY_FIELDS) as "summary  name  unit  when  text
 * meaning" and --os's (BLOCKS_OS_FIELDS) as "os  name  type  unit  when
 * meaning". */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ipcstamp-analyze.h"
#include "output/output.h"

static void in_list(unsigned in) {
  static const struct {
    unsigned bit;
    const char *name;
  } f[] = {{IPS_IN_JSON, "json"},
           {IPS_IN_CSV, "csv"},
           {IPS_IN_TRACE, "trace"},
           {IPS_IN_OLD, "old"},
           {IPS_IN_OS, "os"},
           {IPS_IN_PART, "part"},
           {IPS_IN_SPLIT, "split"}};
  const char *sep = "";
  size_t i;
  for (i = 0; i < sizeof f / sizeof f[0]; i++)
    if (in & f[i].bit) {
      printf("%s%s", sep, f[i].name);
      sep = ",";
    }
}

static int blocks(void) {
  const char *s;
#define DUMP(obj, name, csv, type, unit, in, when, value, text, meaning) \
  s = csv;                                                               \
  printf("%s\t%s\t%s\t%s\t%s\t", #obj, #name, s ? s : "-", #type, unit);   \
  in_list(in);                                                           \
  s = text;                                                              \
  printf("\t%s\t%s\t%s\n", #when, s ? s : "-", meaning);
  IPS_BLOCK_FIELDS(DUMP)
#undef DUMP
#define DUMP(name, unit, when, value, text, meaning)                       \
  s = text;                                                              \
  printf("summary\t%s\t%s\t%s\t%s\t%s\n", #name, unit, #when, s ? s : "-", \
         meaning);
  BLOCKS_SUMMARY_FIELDS(DUMP)
#undef DUMP
#define DUMP(name, type, unit, when, value, meaning)                       \
  printf("os\t%s\t%s\t%s\t%s\t%s\n", #name, #type, unit, #when, meaning);
  BLOCKS_OS_FIELDS(DUMP)
#undef DUMP
  return ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv) {
  const char *s;
  if (argc > 1 && !strcmp(argv[1], "blocks"))
    return blocks();
#define DUMP(name, type, unit, in, when, value, text, otel, meaning)     \
  printf("%s\t%s\t%s\t", #name, #type, unit);                            \
  in_list(in);                                                           \
  printf("\t%s\t", #when);                                               \
  s = text;                                                              \
  printf("%s\t", s ? s : "-");                                           \
  s = otel;                                                              \
  printf("%s\t%s\n", s ? s : "-", meaning);
  IPS_DELIVERY_FIELDS(DUMP)
  IPS_OS_FIELDS(DUMP)
#undef DUMP
#define DUMP_TOTAL(name, unit, value, meaning) \
  printf("totals\t%s\t%s\t%s\n", #name, unit, meaning);
  IPS_TOTALS_FIELDS(DUMP_TOTAL)
#undef DUMP_TOTAL
#define DUMP_SKIP(name, type, unit, value, meaning) \
  printf("skip\t%s\t%s\t%s\t%s\n", #name, #type, unit, meaning);
  IPS_SKIP_FIELDS(DUMP_SKIP)
#undef DUMP_SKIP
#define DUMP_REASON(name, msg) printf("reason\t%s\t%s\n", #name, msg);
  IPS_SKIP_MAP(DUMP_REASON)
#undef DUMP_REASON
  return ferror(stdout) ? 1 : 0;
}
