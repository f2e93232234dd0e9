/* reader.h - the table of profile readers: sniffing, reading, and each format's hooks. */
#ifndef PPROF_READER_H
#define PPROF_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	/*
	 * The input's return addresses are inside the call already (the body
	 * of a symbolized profile): take every address as it is.
	 */
	int raw_addresses;
	/*
	 * Set by reader_load: buf is a read-only mapping of the file, whose
	 * pages a reader may drop once parsed (they read back from the file).
	 */
	int mapped;
};

struct reader {
	const char *name;   /* "gperftools CPU profile" */
	int (*sniff)(const unsigned char *buf, size_t len);
	int (*read)(const char *path, const unsigned char *buf, size_t len,
		    const struct read_options *ro, struct profile *p, struct err *e);
	/*
	 * Adds the profile in buf to p, which this reader read, when it can
	 * do so without a profile of its own (the same program at the same
	 * addresses): 1 when added, as profile_merge of the profile read
	 * alone would have; 0 when the caller must read and merge it (nothing
	 * was added); -1 on error.  Default: never (0).
	 */
	int (*add)(const char *path, const unsigned char *buf, size_t len,
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
	/*
	 * Which value reports count when --sample_index is not given
	 * (gperftools pprof's --inuse_space and the like).  Default: the
	 * profile's default sample type.
	 */
	value_pick_fn *pick;
	/* What text reports print before their rows with --stacks.  Default: none. */
	report_header_fn *leaks;
	/*
	 * A format that wraps others (symbolized profiles): the row whose hooks
	 * apply to what read makes of buf.  Default: this row.
	 */
	const struct reader *(*wraps)(const unsigned char *buf, size_t len);
	/*
	 * --raw: writes the profile section of a symbolized profile, p in this
	 * format's text, which google-pprof reads with the same total;
	 * location l is written as address addr[l->id - 1].  Default: a
	 * gperftools CPU profile of the reported value.
	 */
	int (*raw_body)(FILE *out, const struct profile *p, const uint64_t *addr,
			const struct report_options *o, struct err *e);
};

/*
 * Adds the mappings of mapped-object text (/proc/self/maps lines, cooked
 * "start-end: path" lines, build=DIR) to p, and gives every location the
 * mapping that covers it (src/readers/text.c).
 */
void reader_maps(struct profile *p, const char *name, const char *text, size_t len);

/* The first row that claims buf by its content, or NULL. */
const struct reader *reader_for(const unsigned char *buf, size_t len);
/* The row called name, or NULL. */
const struct reader *reader_named(const char *name);

/*
 * Adds path to p, read by rd, through rd's add hook when rd claims the
 * file: 1 when added, 0 when the caller must read and merge it, -1 on
 * error.  The buffer form is the same on bytes in memory.
 */
int reader_add(const char *path, const struct read_options *ro, const struct reader *rd,
	       struct profile *p, struct err *e);
int reader_add_buffer(const char *path, const unsigned char *buf, size_t len,
		      const struct read_options *ro, const struct reader *rd, struct profile *p,
		      struct err *e);

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
