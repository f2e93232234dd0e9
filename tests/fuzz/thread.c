/* thread.c - fuzzes the reader of thread profiles as google/pprof's legacy parser reads them. */
#include "fuzz.h"

extern const struct reader reader_thread;

FUZZ_READER(reader_thread)
