/* text.h - line by line reading of the legacy text profiles (readers' internal). */
#ifndef PPROF_READERS_TEXT_H
#define PPROF_READERS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "profile.h"
#include "reader.h"

/*
 * A text cursor walks a buffer it does not own one line at a time: line
 * and len give the current line without its newline and trailing carriage
 * returns (gperftools pprof drops them), lineno its number from 1.  Errors
 * read "NAME: line N: WHAT".
 */
struct text {
	const char *name;
	const char *buf, *end, *next;
	const char *line;
	size_t len;
	unsigned lineno;
	struct err *e;
};

void text_init(struct text *t, const char *name, const void *buf, size_t len, struct err *e);
/* Moves to the next line: 1, or 0 at the end of the buffer. */
int text_next(struct text *t);
/* Sets e to "NAME: line N: " and the message; returns -1. */
int text_fail(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The offset of the current line's start in the buffer. */
static inline size_t text_offset(const struct text *t) { return (size_t)(t->line - t->buf); }
/* The rest of the buffer from the current line's start (len bytes). */
static inline const char *text_rest(const struct text *t, size_t *len)
{
	*len = (size_t)(t->end - t->line);
	return t->line;
}

/*
 * gperftools pprof's ReadProfileHeader: "%warn TEXT" lines are warned
 * about (unless quiet), other lines starting with '%' are skipped, and the
 * first other line is the header, made the current line.  Returns 1, or 0
 * when the buffer ends first.
 */
int text_header(struct text *t, int quiet);
/* For sniffers: whether the header line of buf starts with prefix. */
int text_header_is(const unsigned char *buf, size_t len, const char *prefix);

/* Whether the line starts with prefix. */
int text_starts(const struct text *t, const char *prefix);

/* Skips blanks (spaces, tabs, carriage returns) from s; returns where they end. */
static inline const char *text_skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s;
}

/*
 * A decimal integer at *s, with an optional '-' when signed_ok, as a signed
 * 64-bit value; moves *s past it.  -1 when there is none or it does not fit.
 */
int text_int(const char **s, const char *end, int signed_ok, int64_t *v);

/*
 * Reads the stack of hexadecimal addresses in [s, end) into sb's next
 * record (stack_builder_reserve): words separated by blanks, each with an
 * optional "0x", leaf first as written.  Frames from index back_from on are
 * taken one byte back, inside the call: 1 for gperftools pprof's text
 * readers (callers' return addresses, the leaf as it is), TEXT_RAW for none
 * (--raw_addresses).  Returns the addresses, *n of them, for the caller to
 * adjust further and commit (stack_builder_commit), or NULL with the error
 * set on a word that is not a 64-bit hexadecimal number.
 */
#define TEXT_RAW SIZE_MAX
uint64_t *text_stack(struct text *t, struct stack_builder *sb, const char *s, const char *end,
		     size_t back_from, size_t *n);


#endif
