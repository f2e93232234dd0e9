/* test_cursor.c - unit tests for bounds-checked binary reading (include/cursor.h). */
#include <stdint.h>
#include <string.h>

#include "cursor.h"
#include "harness.h"

static const unsigned char nine[9] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09 };

TEST(little_endian)
{
	struct cursor c;
	struct err e = { { 0 } };

	cursor_init(&c, "le.bin", nine, sizeof(nine), &e);
	CHECK_EQ_INT(c.off, 0);
	CHECK_EQ_INT(cursor_left(&c), 9);
	CHECK_EQ_U64(cursor_u8(&c, "byte"), 0x01);
	CHECK_EQ_U64(cursor_u16(&c, "half"), 0x0302);
	CHECK_EQ_U64(cursor_u32(&c, "word"), 0x07060504);
	CHECK_EQ_INT(cursor_failed(&c), 0);
	CHECK_EQ_INT(c.off, 7);
	CHECK_EQ_INT(cursor_left(&c), 2);

	/* 4 bytes wanted, 2 left: the cursor fails and stays where it was. */
	CHECK_EQ_U64(cursor_u32(&c, "sample count"), 0);
	CHECK_EQ_INT(cursor_failed(&c), -1);
	CHECK_STR(e.msg, "le.bin: offset 0x7: sample count runs past end of file");
	CHECK_EQ_INT(c.off, 7);

	/* Sticky: later reads give 0 and the first message stays. */
	CHECK_EQ_U64(cursor_u16(&c, "half"), 0);
	CHECK_EQ_INT(c.off, 7);
	CHECK_EQ_U64(cursor_u8(&c, "last byte"), 0);
	CHECK_STR(e.msg, "le.bin: offset 0x7: sample count runs past end of file");
}

TEST(big_endian)
{
	struct cursor c;
	struct err e = { { 0 } };

	cursor_init(&c, "be.bin", nine, sizeof(nine), &e);
	c.big_endian = 1;
	CHECK_EQ_U64(cursor_u8(&c, "byte"), 0x01);
	CHECK_EQ_U64(cursor_u16(&c, "half"), 0x0203);
	CHECK_EQ_U64(cursor_u32(&c, "word"), 0x04050607);
	CHECK_EQ_U64(cursor_u16(&c, "half"), 0x0809);
	CHECK_EQ_INT(cursor_failed(&c), 0);
	CHECK_EQ_U64(cursor_u8(&c, "byte"), 0);
	CHECK_STR(e.msg, "be.bin: offset 0x9: byte runs past end of file");
}

TEST(u64_and_word)
{
	struct cursor c;
	struct err e = { { 0 } };

	cursor_init(&c, "w.bin", nine, sizeof(nine), &e);
	CHECK_EQ_U64(cursor_u64(&c, "pc"), 0x0807060504030201ULL);
	CHECK_EQ_U64(cursor_u64(&c, "pc"), 0);
	CHECK_STR(e.msg, "w.bin: offset 0x8: pc runs past end of file");

	cursor_init(&c, "w.bin", nine, sizeof(nine), &e);
	c.big_endian = 1;
	CHECK_EQ_U64(cursor_u64(&c, "pc"), 0x0102030405060708ULL);

	cursor_init(&c, "w.bin", nine, sizeof(nine), &e);
	CHECK_EQ_U64(cursor_word(&c, 4, "slot"), 0x04030201);
	CHECK_EQ_U64(cursor_word(&c, 4, "slot"), 0x08070605);
	CHECK_EQ_INT(cursor_failed(&c), 0);
	CHECK_EQ_U64(cursor_word(&c, 4, "slot"), 0);
	CHECK_STR(e.msg, "w.bin: offset 0x8: slot runs past end of file");

	cursor_init(&c, "w.bin", nine + 1, 8, &e);
	c.big_endian = 1;
	CHECK_EQ_U64(cursor_word(&c, 8, "slot"), 0x0203040506070809ULL);
	cursor_word(&c, 4, "slot");
	CHECK_CONTAINS(e.msg, "offset 0x8");

	/* High bits survive both orders. */
	{
		static const unsigned char ff[8] = { 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88 };

		cursor_init(&c, "hi.bin", ff, 8, &e);
		CHECK_EQ_U64(cursor_u64(&c, "pc"), 0x8899aabbccddeeffULL);
		cursor_init(&c, "hi.bin", ff, 8, &e);
		c.big_endian = 1;
		CHECK_EQ_U64(cursor_u64(&c, "pc"), 0xffeeddccbbaa9988ULL);
	}
}

TEST(bytes)
{
	struct cursor c;
	struct err e = { { 0 } };

	cursor_init(&c, "b.bin", nine, sizeof(nine), &e);
	CHECK(cursor_bytes(&c, 3, "magic") == nine);
	CHECK_EQ_INT(c.off, 3);
	CHECK(cursor_bytes(&c, 0, "nothing") == nine + 3);
	CHECK(cursor_bytes(&c, 6, "rest") == nine + 3);
	CHECK_EQ_INT(cursor_left(&c), 0);
	CHECK(cursor_bytes(&c, 0, "nothing") == nine + 9);
	CHECK(cursor_bytes(&c, 1, "one more") == NULL);
	CHECK_STR(e.msg, "b.bin: offset 0x9: one more runs past end of file");

	/* A huge count must not wrap around the bounds check. */
	cursor_init(&c, "b.bin", nine, sizeof(nine), &e);
	cursor_bytes(&c, 3, "magic");
	CHECK(cursor_bytes(&c, SIZE_MAX, "blob") == NULL);
	CHECK_STR(e.msg, "b.bin: offset 0x3: blob runs past end of file");
	cursor_init(&c, "b.bin", nine, sizeof(nine), &e);
	cursor_bytes(&c, 3, "magic");
	CHECK(cursor_bytes(&c, SIZE_MAX - 2, "blob") == NULL);
	CHECK_EQ_INT(c.off, 3);
}

TEST(empty_buffer)
{
	struct cursor c;
	struct err e = { { 0 } };

	cursor_init(&c, "empty", nine, 0, &e);
	CHECK_EQ_INT(cursor_left(&c), 0);
	CHECK_EQ_U64(cursor_u8(&c, "header"), 0);
	CHECK_STR(e.msg, "empty: offset 0x0: header runs past end of file");
	CHECK_EQ_U64(cursor_word(&c, 8, "header"), 0);
	CHECK_STR(e.msg, "empty: offset 0x0: header runs past end of file");
}

TEST(load_word_orders)
{
	CHECK_EQ_U64(load_word(nine, 4, 0), 0x04030201);
	CHECK_EQ_U64(load_word(nine, 4, 1), 0x01020304);
	CHECK_EQ_U64(load_word(nine + 1, 8, 0), 0x0908070605040302ULL);
	CHECK_EQ_U64(load_word(nine + 1, 8, 1), 0x0203040506070809ULL);
}

TEST(fail_formats)
{
	struct cursor c;
	struct err e = { { 0 } };

	cursor_init(&c, "cpu.prof", nine, sizeof(nine), &e);
	CHECK_EQ_INT(cursor_fail(&c, 0x1a0, "stack of %d frames runs past end of file", 70000), -1);
	CHECK_STR(e.msg, "cpu.prof: offset 0x1a0: stack of 70000 frames runs past end of file");
	/* The first failure is the one reported. */
	CHECK_EQ_INT(cursor_fail(&c, 0, "bad magic"), -1);
	CHECK_STR(e.msg, "cpu.prof: offset 0x1a0: stack of 70000 frames runs past end of file");
	cursor_init(&c, "cpu.prof", nine, sizeof(nine), &e);
	CHECK_EQ_INT(cursor_fail(&c, 0, "bad magic"), -1);
	CHECK_STR(e.msg, "cpu.prof: offset 0x0: bad magic");
}

int main(void)
{
	RUN(little_endian);
	RUN(big_endian);
	RUN(u64_and_word);
	RUN(bytes);
	RUN(empty_buffer);
	RUN(load_word_orders);
	RUN(fail_formats);
	return test_done();
}
