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
const char *text_skip_blanks(const char *s, const char *end);
/*
 * A decimal integer at *s, with an optional '-' when signed_ok, as a signed
 * 64-bit value; moves *s past it.  -1 when there is none or it does not fit.
 */
int text_int(const char **s, const char *end, int signed_ok, int64_t *v);

/*
 * The stack of hexadecimal addresses in [s, end): words separated by
 * blanks, each with an optional "0x".  Fills *addr (grown with GROW; *cap
 * its capacity) with *n addresses, leaf first as written.  -1 with the
 * error set on a word that is not a 64-bit hexadecimal number.
 */
int text_addresses(struct text *t, const char *s, const char *end, uint64_t **addr, size_t *n,
		   size_t *cap);

/*
 * Adds the sample of a stack as gperftools pprof's text readers do:
 * callers' return addresses are taken one byte back, inside the call
 * (unless raw), the leaf as it is.  Returns the sample.
 */
struct sample *text_add_stack(struct profile *p, const uint64_t *addr, size_t n, const int64_t *value,
		    int raw, struct location ***buf, size_t *cap);

/*
 * The same through a stack builder, for readers of many samples that need
 * none of them back: their lookups are batched and the samples added on
 * the builder's thread.
 */
void text_build_stack(struct stack_builder *sb, const uint64_t *addr, size_t n,
		      const int64_t *value, int raw);


#endif
