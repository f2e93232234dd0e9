/* contention.c - fuzzes the reader of gperftools contention profiles (--- contention, its headers, --- symbol variants). */
#include "fuzz.h"

extern const struct reader reader_contention;

FUZZ_READER(reader_contention)
