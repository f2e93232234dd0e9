/* gmon.c - fuzzes the gprof gmon.out reader (GNU records, 4.4BSD and old BSD files). */
#include "fuzz.h"

extern const struct reader reader_gmon;

FUZZ_READER(reader_gmon)
