/* errors.c — messages and names for error codes, from the one list in
 * ipcstamp-proto.h, so the enum, the message and the name never drift. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "ipcstamp-proto.h"

static const char *const messages[] = {
#define XX(name, msg) msg,
    IPS_ERRNO_MAP(XX)
#undef XX
};

static const char *const names[] = {
#define XX(name, msg) "IPS_E" #name,
    IPS_ERRNO_MAP(XX)
#undef XX
};

/* Index of an IPS_E* code in the tables, or -1 for anything else. */
static int ips_index(int err) {
  if (err > IPS__ERR_BASE && err < IPS__ERR_END)
    return err - IPS__ERR_BASE - 1;
  return -1;
}

const char *ips_strerror(int err) {
  int i = ips_index(err);
  if (i >= 0)
    return messages[i];
  if (err < 0 && err > -4096)
    return strerror(-err);
  return "unknown error";
}

const char *ips_err_name(int err) {
  int i = ips_index(err);
  if (i >= 0)
    return names[i];
  if (err < 0 && err > -4096) {
    /* strerrorname_np is glibc >= 2.32; its result may be NULL. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *n = strerrorname_np(-err);
    if (n != NULL)
      return n;
#endif
  }
  return "UNKNOWN";
}
