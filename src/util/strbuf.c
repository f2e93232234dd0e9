/* strbuf.c - growable NUL-terminated byte buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

/* What every empty buffer that never grew points at: "" (never written to). */
char strbuf_slopbuf[1];

void sb_init(struct strbuf *sb)
{
	sb->buf = strbuf_slopbuf;
	sb->len = sb->cap = 0;
}

void sb_release(struct strbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	sb_init(sb);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = 0;
}

void sb_grow_to(struct strbuf *sb, size_t extra)
{
	size_t cap = sb->cap ? sb->cap : 64;

	if (sb->len + extra + 1 <= sb->cap)
		return;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	if (sb->cap) {
		sb->buf = xrealloc(sb->buf, cap);
	} else {
		sb->buf = xmalloc(cap);
		sb->buf[0] = 0;
	}
	sb->cap = cap;
}

void sb_add_int(struct strbuf *sb, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n = 0;

	do {
		tmp[sizeof(tmp) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[sizeof(tmp) - 1 - n++] = '-';
	sb_add(sb, tmp + sizeof(tmp) - n, (size_t)n);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	sb_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed");
	if ((size_t)n >= sb->cap - sb->len) {
		sb_grow(sb, n);
		n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}
