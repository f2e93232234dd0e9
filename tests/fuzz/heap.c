/* heap.c - fuzzes the reader of gperftools heap and growth profiles (heap profile:, heap_v2/RATE, @ growth). */
#include "fuzz.h"

extern const struct reader reader_heap;

FUZZ_READER(reader_heap)
