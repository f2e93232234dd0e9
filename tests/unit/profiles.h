/* profiles.h - building profiles in unit tests: the model by hand, and profile files word by word. */
#ifndef PPROF_TEST_PROFILES_H
#define PPROF_TEST_PROFILES_H

/*
 * In memory (include/profile.h):
 *
 *	struct profile *p = new_profile("samples", "count", "cpu", "nanoseconds", NULL);
 *	static const uint64_t ab[] = { 0x10, 0x20 };            a stack, leaf first
 *	add_stack(p, ab, 2, 1, 10);                              one value per sample type
 *	named_location(p, 0x10, "inl", 5, "f", 12, NULL);       inline chain, innermost first
 *	sample_value(find_sample(p, ab, 2))[1] == 10
 *
 * As the bytes of a file, for the readers (include/reader.h):
 *
 *	struct filebuf f;
 *	filebuf_init(&f, 8, 0);                                  64-bit words, little-endian
 *	filebuf_word(&f, 3);  filebuf_int(&f, 100, 4);  sb_adds(&f.sb, "text");
 *	filebuf_load(&f, "t.prof", f.sb.len, &p, &e);            reader_load_buffer
 *	sb_release(&f.sb);
 *
 * A wrong number of values to add_stack is a failed check (the sample gets
 * the values given, and zeros for the others).
 */

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "profile.h"
#include "reader.h"
#include "strbuf.h"

/* A new profile with these sample types: type, unit pairs, then NULL. */
static inline __attribute__((sentinel)) struct profile *new_profile(const char *type, ...)
{
	struct profile *p = profile_new();
	const char *tu[16];
	size_t n = 0;
	va_list ap;

	va_start(ap, type);
	for (; type && n + 2 <= 16; type = va_arg(ap, const char *)) {
		tu[n++] = type;
		tu[n++] = va_arg(ap, const char *);
	}
	va_end(ap);
	profile_set_sample_types(p, n / 2, tu);
	return p;
}

static inline struct sample *test_add_stack_(struct profile *p, const uint64_t *addr, size_t n,
					     const int64_t *given, size_t ngiven, const char *file,
					     int line)
{
	struct location *loc[64];
	int64_t v[16];
	size_t i;

	if (ngiven != p->nsample_type)
		test_report_(0, file, line, "add_stack: one value per sample type");
	if (n > 64 || p->nsample_type > 16)
		return NULL;
	for (i = 0; i < n; i++)
		loc[i] = profile_location(p, addr[i]);
	for (i = 0; i < p->nsample_type; i++)
		v[i] = i < ngiven ? given[i] : 0;
	return profile_add_sample(p, loc, n, v);
}

/*
 * add_stack(p, addr, n, value...): adds the values to the sample whose stack
 * is the locations of the n addresses at addr, leaf first; returns it.
 */
#define add_stack(p, addr, n, ...) \
	test_add_stack_((p), (addr), (n), (const int64_t[]){ __VA_ARGS__ }, \
			sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t), __FILE__, __LINE__)

/*
 * The location of addr with the inline chain given as function name, line
 * pairs, innermost first, then NULL.  The functions are in file "t.c",
 * starting at line 1, their system names their names.
 */
static inline __attribute__((sentinel)) struct location *named_location(struct profile *p,
									uint64_t addr, ...)
{
	struct location *l = profile_location(p, addr);
	struct line ln[8];
	const char *name;
	size_t n = 0;
	va_list ap;

	va_start(ap, addr);
	while (n < 8 && (name = va_arg(ap, const char *)) != NULL) {
		ln[n].function = profile_function(p, name, name, "t.c", 1, NO_SYMBOL_ADDRESS);
		ln[n++].line = va_arg(ap, int);
	}
	va_end(ap);
	profile_set_lines(p, l, ln, n);
	return l;
}

/* The sample whose stack is the n addresses at addr, leaf first, or NULL. */
static inline const struct sample *find_sample(const struct profile *p, const uint64_t *addr,
					       size_t n)
{
	size_t i, j;

	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];

		if (s->nlocation != n)
			continue;
		for (j = 0; j < n; j++)
			if (sample_location(p, s, j)->address != addr[j])
				break;
		if (j == n)
			return s;
	}
	return NULL;
}

/* The location of addr, or NULL. */
static inline const struct location *find_location(const struct profile *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nlocation; i++)
		if (p->location[i]->address == addr)
			return p->location[i];
	return NULL;
}

/* A profile file under construction: its bytes, and how it writes numbers. */
struct filebuf {
	struct strbuf sb;
	unsigned width;  /* bytes per word: 4 or 8 */
	int big;         /* big-endian */
};

static inline void filebuf_init(struct filebuf *f, unsigned width, int big)
{
	memset(f, 0, sizeof(*f));
	f->width = width;
	f->big = big;
}

/* Appends v as an integer of n bytes (up to 8) in the file's byte order. */
static inline void filebuf_int(struct filebuf *f, uint64_t v, unsigned n)
{
	unsigned char b[8];
	unsigned i;

	for (i = 0; i < n && i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * (f->big ? n - 1 - i : i)));
	sb_add(&f->sb, b, i);
}

/* Appends v as one word. */
static inline void filebuf_word(struct filebuf *f, uint64_t v)
{
	filebuf_int(f, v, f->width);
}

/* Reads the first len bytes with reader_load_buffer, as the file name. */
/* The reader that read the last filebuf_load. */
static const struct reader *filebuf_reader __attribute__((unused));

static inline int filebuf_load(const struct filebuf *f, const char *name, size_t len,
			       struct profile **p, struct err *e)
{
	return reader_load_buffer(name, (const unsigned char *)f->sb.buf, len, NULL, p, &filebuf_reader,
				  e);
}

#endif
