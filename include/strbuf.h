/* strbuf.h - growable NUL-terminated byte buffer. */
#ifndef PPROF_STRBUF_H
#define PPROF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Invariant: buf is never NULL and always NUL-terminated (buf[len] == 0):
 * a buffer that never grew points at strbuf_slopbuf, a shared "" (git's
 * idea), so callers read buf without checking.  Start with STRBUF_INIT or
 * sb_init; sb_release frees and leaves an empty buffer.
 */
struct strbuf {
	char *buf;
	size_t len, cap;   /* cap 0: buf is strbuf_slopbuf */
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { strbuf_slopbuf, 0, 0 }

void sb_init(struct strbuf *sb);

void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
/* Makes room for extra more bytes and the NUL; growing is out of line. */
void sb_grow_to(struct strbuf *sb, size_t extra);
static inline void sb_grow(struct strbuf *sb, size_t extra)
{
	if (__builtin_expect(sb->len + extra + 1 > sb->cap, 0))
		sb_grow_to(sb, extra);
}

static inline void sb_add(struct strbuf *sb, const void *p, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

static inline void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

static inline void sb_addc(struct strbuf *sb, char c)
{
	sb_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = 0;
}

/* n copies of c. */
static inline void sb_addn(struct strbuf *sb, char c, size_t n)
{
	sb_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

/* v in decimal, as "%lld" prints it (without printf's cost). */
void sb_add_int(struct strbuf *sb, int64_t v);

void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

#endif
