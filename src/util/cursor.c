/* cursor.c - bounds-checked reading of binary input (see cursor.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"

void cursor_init(struct cursor *c, const char *name, const void *buf, size_t len, struct err *e)
{
	c->name = name;
	c->buf = buf;
	c->len = len;
	c->off = 0;
	c->big_endian = 0;
	c->e = e;
	c->failed = 0;
}

int cursor_fail(struct cursor *c, size_t off, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (c->failed)
		return -1;
	c->failed = 1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(c->e, "%s: offset 0x%zx: %s", c->name, off, what);
}

/* Whether n more bytes can be read; fails the cursor otherwise. */
static int have(struct cursor *c, size_t n, const char *what)
{
	if (c->failed)
		return 0;
	if (c->len - c->off < n) {
		cursor_fail(c, c->off, "%s runs past end of file", what);
		return 0;
	}
	return 1;
}

uint64_t load_word(const unsigned char *p, unsigned width, int big_endian)
{
	uint64_t v = 0;
	unsigned i;

	if (big_endian)
		for (i = 0; i < width; i++)
			v = v << 8 | p[i];
	else
		for (i = width; i-- > 0;)
			v = v << 8 | p[i];
	return v;
}

uint64_t cursor_word(struct cursor *c, unsigned width, const char *what)
{
	uint64_t v;

	if (!have(c, width, what))
		return 0;
	v = load_word(c->buf + c->off, width, c->big_endian);
	c->off += width;
	return v;
}

uint8_t cursor_u8(struct cursor *c, const char *what)
{
	return have(c, 1, what) ? c->buf[c->off++] : 0;
}

uint16_t cursor_u16(struct cursor *c, const char *what)
{
	return (uint16_t)cursor_word(c, 2, what);
}

uint32_t cursor_u32(struct cursor *c, const char *what)
{
	return (uint32_t)cursor_word(c, 4, what);
}

uint64_t cursor_u64(struct cursor *c, const char *what)
{
	return cursor_word(c, 8, what);
}

const unsigned char *cursor_bytes(struct cursor *c, size_t n, const char *what)
{
	const unsigned char *p;

	if (!have(c, n, what))
		return NULL;
	p = c->buf + c->off;
	c->off += n;
	return p;
}
