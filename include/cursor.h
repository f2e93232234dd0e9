/* cursor.h - bounds-checked reading of binary input, with offsets in messages. */
#ifndef PPROF_CURSOR_H
#define PPROF_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * A cursor reads little- or big-endian integers from a byte buffer it does
 * not own.  Every read checks bounds; on failure it fills the err with
 * "NAME: offset 0xOFF: WHAT runs past end of file" and returns -1.
 */
struct cursor {
	const char *name;
	const unsigned char *buf;
	size_t len, off;
	int big_endian;
};

void cursor_init(struct cursor *c, const char *name, const void *buf, size_t len);
static inline size_t cursor_left(const struct cursor *c) { return c->len - c->off; }
int cursor_u8(struct cursor *c, uint8_t *v, const char *what, struct err *e);
int cursor_u16(struct cursor *c, uint16_t *v, const char *what, struct err *e);
int cursor_u32(struct cursor *c, uint32_t *v, const char *what, struct err *e);
int cursor_u64(struct cursor *c, uint64_t *v, const char *what, struct err *e);
/* A 4- or 8-byte word. */
int cursor_word(struct cursor *c, unsigned width, uint64_t *v, const char *what, struct err *e);
/* Points *p at the next n bytes and skips them. */
int cursor_bytes(struct cursor *c, size_t n, const unsigned char **p, const char *what, struct err *e);
/* Unchecked decoding of one word at p (caller checked bounds). */
uint64_t load_word(const unsigned char *p, unsigned width, int big_endian);
/* err_set with the "NAME: offset 0xOFF: " prefix. */
int cursor_fail(const struct cursor *c, size_t off, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
