/* strbuf.h - growable NUL-terminated byte buffer. */
#ifndef PPROF_STRBUF_H
#define PPROF_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Invariant: buf is always NUL-terminated (buf[len] == 0) once any
 * operation has run; a zeroed strbuf is an empty one.  sb_release frees.
 */
struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT { 0, 0, 0 }

void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *p, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Returns buf ("" for an empty buffer that never grew). */
const char *sb_str(const struct strbuf *sb);

#endif
