/* symbolized.c - fuzzes the reader of symbolized profiles (--- symbol ... --- profile, what --raw writes). */
#include "fuzz.h"

extern const struct reader reader_symbolized;

FUZZ_READER(reader_symbolized)
