/* cursor.h - bounds-checked reading of binary input, with a sticky error and offsets in messages. */
#ifndef PPROF_CURSOR_H
#define PPROF_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/*
 * A cursor reads little- or big-endian integers from a byte buffer it does
 * not own.  Every read checks bounds.  The first failure is sticky: it is
 * written to the err given at init ("NAME: offset 0xOFF: WHAT runs past end
 * of file"), and every later read returns 0 (or NULL) without moving, so a
 * reader reads a whole record and checks cursor_failed once.
 */
struct cursor {
	const char *name;
	const unsigned char *buf;
	size_t len, off;
	int big_endian;
	struct err *e;
	int failed;
};

void cursor_init(struct cursor *c, const char *name, const void *buf, size_t len, struct err *e);
static inline size_t cursor_left(const struct cursor *c) { return c->len - c->off; }
/* -1 once any read or cursor_fail has failed, else 0. */
static inline int cursor_failed(const struct cursor *c) { return c->failed ? -1 : 0; }

uint8_t cursor_u8(struct cursor *c, const char *what);
uint16_t cursor_u16(struct cursor *c, const char *what);
uint32_t cursor_u32(struct cursor *c, const char *what);
uint64_t cursor_u64(struct cursor *c, const char *what);
/* A 2-, 4- or 8-byte word. */
uint64_t cursor_word(struct cursor *c, unsigned width, const char *what);
/* The next n bytes, skipped; NULL on failure. */
const unsigned char *cursor_bytes(struct cursor *c, size_t n, const char *what);
/* Unchecked decoding of one word at p (caller checked bounds). */
uint64_t load_word(const unsigned char *p, unsigned width, int big_endian);
/*
 * Fails the cursor with "NAME: offset 0xOFF: " and the message, unless it
 * has failed already (the first failure is the one reported).  Returns -1.
 */
int cursor_fail(struct cursor *c, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
