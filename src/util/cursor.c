/* cursor.c - bounds-checked reading of binary input. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cursor.h"

void cursor_init(struct cursor *c, const char *name, const void *buf, size_t len)
{
	c->name = name;
	c->buf = buf;
	c->len = len;
	c->off = 0;
	c->big_endian = 0;
}

int cursor_fail(const struct cursor *c, size_t off, struct err *e, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(e, "%s: offset 0x%zx: %s", c->name, off, what);
}

static int need(struct cursor *c, size_t n, const char *what, struct err *e)
{
	if (c->len - c->off < n)
		return cursor_fail(c, c->off, e, "%s runs past end of file", what);
	return 0;
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

int cursor_word(struct cursor *c, unsigned width, uint64_t *v, const char *what, struct err *e)
{
	if (need(c, width, what, e) < 0)
		return -1;
	*v = load_word(c->buf + c->off, width, c->big_endian);
	c->off += width;
	return 0;
}

int cursor_u8(struct cursor *c, uint8_t *v, const char *what, struct err *e)
{
	if (need(c, 1, what, e) < 0)
		return -1;
	*v = c->buf[c->off++];
	return 0;
}

int cursor_u16(struct cursor *c, uint16_t *v, const char *what, struct err *e)
{
	uint64_t w;

	if (cursor_word(c, 2, &w, what, e) < 0)
		return -1;
	*v = (uint16_t)w;
	return 0;
}

int cursor_u32(struct cursor *c, uint32_t *v, const char *what, struct err *e)
{
	uint64_t w;

	if (cursor_word(c, 4, &w, what, e) < 0)
		return -1;
	*v = (uint32_t)w;
	return 0;
}

int cursor_u64(struct cursor *c, uint64_t *v, const char *what, struct err *e)
{
	return cursor_word(c, 8, v, what, e);
}

int cursor_bytes(struct cursor *c, size_t n, const unsigned char **p, const char *what, struct err *e)
{
	if (need(c, n, what, e) < 0)
		return -1;
	*p = c->buf + c->off;
	c->off += n;
	return 0;
}
