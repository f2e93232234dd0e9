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

/* Reads path with the first reader that claims it; *out is caller-freed. */
int reader_load(const char *path, struct profile **out, struct err *e);
/* The same on a buffer already in memory (path names it in messages). */
int reader_load_buffer(const char *path, const unsigned char *buf, size_t len,
		       struct profile **out, struct err *e);

#endif
