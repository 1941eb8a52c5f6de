/* os_event.h — the records both halves of `ipcstamp record` share are the
 * file's own layout, defined once in proto/os-format.h (the BPF program,
 * the collector and the reader all include it). */
#ifndef IPCSTAMP_RECORD_OS_EVENT_H
#define IPCSTAMP_RECORD_OS_EVENT_H
#include "os-format.h"
#endif
