/* reader.h - profile readers: format sniffing and loading into the model. */
#ifndef PPROF_READER_H
#define PPROF_READER_H

#include <stddef.h>

#include "err.h"
#include "profile.h"

/*
 * A reader claims a file by content (sniff returns 1); once claimed, its
 * parse errors are final.  read fills an empty profile; on error it returns
 * -1 with e naming the file (and the byte offset where that helps).
 */
struct reader {
	const char *name;   /* "gperftools CPU profile" */
	int (*sniff)(const unsigned char *buf, size_t len);
	int (*read)(const char *path, const unsigned char *buf, size_t len,
		    struct profile *p, struct err *e);
};

extern const struct reader reader_gperf;
extern const struct reader reader_gmon;

/*
 * Whether p holds gprof data read by reader_gmon (src/readers/gmon.c): its
 * sample types are {DIMENSION, "nanoseconds"} (histogram time, period
 * 1/rate), {"calls", "count"} (arcs: two-frame samples callee, caller)
 * and {"executions", "count"} (basic-block counts).
 */
int reader_is_gmon(const struct profile *p);

extern const struct reader reader_dcpi;

/*
 * For a profile read from a DCPI file (src/readers/dcpi.c): the object that
 * holds its image, program when given, else the header's path when that
 * file exists.  Warns when that object has no executable code covering
 * tstart..tstart+tsize, and sets the image mapping's file offset from it so
 * that addresses are looked up as they are.  Returns that object (program,
 * or a string of p), or NULL; other profiles are left alone and get program.
 */
const char *dcpi_fit_program(struct profile *p, const char *program);

/* Whether some reader claims the file by its content (no full parse). */
int reader_claims(const char *path);

/* Reads path with the first reader that claims it; *out is caller-freed. */
int reader_load(const char *path, struct profile **out, struct err *e);
/* The same on a buffer already in memory (path names it in messages). */
int reader_load_buffer(const char *path, const unsigned char *buf, size_t len,
		       struct profile **out, struct err *e);

#endif
