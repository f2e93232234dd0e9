/* proto.h - the profile.proto codec: reading it into the model and writing the model as it. */
#ifndef PPROF_PROTO_H
#define PPROF_PROTO_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"
#include "profile.h"
#include "reader.h"

/*
 * Reader (src/readers/proto.c).  The reader table's row: claims gzip data
 * (1f 8b) and buffers whose top-level fields all parse as a Profile
 * message's, with a string table.
 */
extern const struct reader reader_proto;

/*
 * Without --max_input, decompressed input may reach PROTO_MAX_INFLATED
 * bytes, and past PROTO_RATIO_FLOOR bytes no more than PROTO_MAX_RATIO
 * times the compressed size: real profiles compress 3 to 20 times, and a
 * small file that inflates far more is a decompression bomb.
 */
#define PROTO_MAX_INFLATED ((size_t)1 << 30)
#define PROTO_MAX_RATIO 200
#define PROTO_RATIO_FLOOR ((size_t)64 << 20)

/*
 * Reads a profile.proto, gzip-compressed or not, from buf into the empty
 * profile p, decompressing at most max_inflated bytes (0: the default
 * rule above).  Validates as Go's
 * profile package does (string_table[0] "", string indexes in range, ids
 * nonzero and unique and every reference resolved, one value per sample
 * type, no concatenated profiles).  Locations keep their lines as the file
 * has them, innermost first; those without lines stay unsymbolized.
 * Returns 0, or -1 with e naming path and, for encoding errors, the offset.
 */
int proto_read_buffer(const char *path, const unsigned char *buf, size_t len,
		      size_t max_inflated, struct profile *p, struct err *e);

/*
 * The usual case of proto_read_buffer's gzip input, by libdeflate (about
 * twice zlib's speed): gzip members one after another (ours writes two, Go
 * one) into a buffer sized by the last trailer and grown as needed, to at
 * most cap bytes.  1 with *out (caller frees) and *outlen set; 0 for
 * anything else, which the reader then inflates by zlib or explains.
 */
int proto_inflate_members(const unsigned char *buf, size_t len, size_t cap,
			  unsigned char **out, size_t *outlen);

/*
 * Writer (src/report/proto.c).  Writes p as gzip-compressed profile.proto:
 * ids are 1-based positions in p's arrays, the string table starts with ""
 * and lists strings in order of first use, mappings' has_* flags say what
 * their locations really carry, fixed-point values (value_scale) are
 * truncated to whole numbers, and equal profiles give equal bytes.
 * Returns 0, or -1 with e set when writing fails.
 */
int proto_write(FILE *out, const struct profile *p, struct err *e);

#endif
