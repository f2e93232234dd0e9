/* strbuf.h - growable NUL-terminated byte buffer. */
#ifndef PPROF_STRBUF_H
#define PPROF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

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
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *p, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);

#endif
