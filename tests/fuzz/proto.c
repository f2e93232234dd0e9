/* proto.c - fuzzes the profile.proto reader on uncompressed messages. */
#include "fuzz.h"
#include "proto.h"

FUZZ_READER(reader_proto)
