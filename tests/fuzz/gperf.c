/* gperf.c - fuzzes the gperftools CPU profile reader (32- and 64-bit slots, both byte orders). */
#include "fuzz.h"

extern const struct reader reader_gperf;

FUZZ_READER(reader_gperf)
