/* reader.h - the table of profile readers: sniffing, reading, and each format's hooks. */
#ifndef PPROF_READER_H
#define PPROF_READER_H

#include <stddef.h>

#include "err.h"
#include "profile.h"
#include "report.h"
#include "symbolize.h"

/*
 * A reader is one row of the table in reader.c, defined in its own file
 * in src/readers/.  It claims a file by content (sniff returns 1); once
 * claimed, its parse errors are final.  read fills an empty profile; on
 * error it returns -1 with e naming the file (and the byte offset where
 * that helps).  Everything else the driver and the reports must know of a
 * format comes from the optional hooks below; NULL means the generic
 * behaviour.  Readers never open object files: fitting and symbolizing go
 * through symbolize.h.
 */
/* What readers are told: limits on untrusted input.  NULL means the defaults. */
struct read_options {
	size_t max_input;   /* bytes compressed input may inflate to; 0: 1 GiB, bombs refused (proto.h) */
};

struct reader {
	const char *name;   /* "gperftools CPU profile" */
	int (*sniff)(const unsigned char *buf, size_t len);
	int (*read)(const char *path, const unsigned char *buf, size_t len,
		    const struct read_options *ro, struct profile *p, struct err *e);
	/*
	 * Fits the profile to its program before symbolization and returns
	 * the program to symbolize with (program, which may be NULL, or a
	 * string of p).  Default: program as given.
	 */
	const char *(*fit)(struct profile *p, const char *program);
	/* Names every location.  Default: symbolize_profile. */
	int (*symbolize)(struct profile *p, const struct symbolize_options *o, struct err *e);
	/* gperftools pprof's uninteresting frames for this kind.  Default: none. */
	const struct frame_rules *frames;
	/* How reports print values.  Default: report_default_style. */
	value_style_fn *style;
	/* Lines text reports print first (the format's metadata).  Default: none. */
	report_header_fn *header;
};

/* Whether some reader claims the file by its content (no full parse). */
int reader_claims(const char *path);

/*
 * Reads path with the first reader that claims it; *out is caller-freed,
 * and *rd (when rd is not NULL) is the reader that read it.
 */
int reader_load(const char *path, const struct read_options *ro, struct profile **out,
		const struct reader **rd, struct err *e);
/* The same on a buffer already in memory (path names it in messages). */
int reader_load_buffer(const char *path, const unsigned char *buf, size_t len,
		       const struct read_options *ro, struct profile **out,
		       const struct reader **rd, struct err *e);

#endif
