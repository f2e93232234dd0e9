/* proto_gzip.c - fuzzes the profile.proto reader behind gzip: damaged streams, and messages compressed here. */
#include <stdlib.h>
#include <zlib.h>

#include "fuzz.h"
#include "proto.h"

/*
 * Inputs that start as gzip does go in as they are (the decoder on broken
 * streams, several members, trailing data); others are compressed first,
 * so that the message behind a sound stream is fuzzed too.  The cap on
 * the inflated size is low enough for a small input to reach it.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct read_options ro = { .max_input = 1 << 20 };
	z_stream z = { 0 };
	unsigned char *gz;
	size_t cap;

	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		return fuzz_reader(&reader_proto, &ro, data, size);
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	cap = deflateBound(&z, size);
	gz = malloc(cap);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)size;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	if (!gz || deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	fuzz_reader(&reader_proto, &ro, gz, cap - z.avail_out);
	deflateEnd(&z);
	free(gz);
	return 0;
}
