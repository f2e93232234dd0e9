/* dcpi.c - fuzzes the DCPI profile reader (text header, binary chunks). */
#include "fuzz.h"

extern const struct reader reader_dcpi;

FUZZ_READER(reader_dcpi)
