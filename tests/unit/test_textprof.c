/* test_textprof.c - unit tests for the heap, contention, thread and symbolized profile readers and --raw. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "profiles.h"
#include "reader.h"
#include "report.h"
#include "util.h"

/* Reads text as a profile; NULL (with the message noted) when it fails. */
static struct profile *load(const char *text, const struct reader **rd, struct err *e)
{
	struct profile *p = NULL;

	if (reader_load_buffer("t.prof", (const unsigned char *)text, strlen(text), NULL, &p, rd,
			       e) < 0)
		TEST_NOTE("    %s", e->msg);
	return p;
}

static int64_t value(const struct profile *p, const uint64_t *stack, size_t n, size_t i)
{
	const struct sample *s = find_sample(p, stack, n);

	return s ? sample_value(s)[i] : -1;
}

TEST(heap_profiler_dump)
{
	static const uint64_t a[] = { 0x4011a0, 0x4010ff }, b[] = { 0x401050, 0x4010ff };
	const struct reader *rd;
	struct err e;
	struct profile *p = load("heap profile:   10:  5000 [  30:  9000] @ heapprofile\n"
				 "     3:     1500 [    10:     3000] @ 0x4011a0 0x401100\n"
				 "     7:     3500 [    20:     6000] @ 0x401050 0x401100\n"
				 "\nMAPPED_LIBRARIES:\n"
				 "00400000-00500000 r-xp 00000000 08:01 1 /bin/prog\n", &rd, &e);

	if (!CHECK(p))
		return;
	CHECK_STR(rd->name, "gperftools heap profile");
	CHECK_EQ_INT(p->nsample_type, 4);
	CHECK_STR(p->sample_type[0].type, "alloc_objects");
	CHECK_STR(p->sample_type[3].type, "inuse_space");
	CHECK_STR(p->default_sample_type, "inuse_space");
	CHECK(p->value_scale <= 1);
	/* The leaf as it is, callers one byte back. */
	CHECK_EQ_INT(value(p, a, 2, 0), 10);
	CHECK_EQ_INT(value(p, a, 2, 3), 1500);
	CHECK_EQ_INT(value(p, b, 2, 2), 7);
	CHECK_EQ_INT(p->nmapping, 1);
	CHECK(find_location(p, 0x401050) && find_location(p, 0x401050)->mapping);
	profile_free(p);
}

TEST(heap_sampled_v2)
{
	static const uint64_t a[] = { 0x1000 };
	struct err e;
	struct profile *p = load("heap profile: 1: 1024 [ 1: 1024] @ heap_v2/524288\n"
				 "1: 1024 [ 1: 1024] @ 0x1000\n", NULL, &e);
	double f = 1 / (1 - exp(-1024.0 / 524288));

	if (!CHECK(p))
		return;
	/* Equal pairs: Go's two types; the estimate keeps its fractions. */
	CHECK_EQ_INT(p->nsample_type, 2);
	CHECK_STR(p->sample_type[1].type, "space");
	CHECK_EQ_INT(p->value_scale, 65536);
	CHECK_EQ_INT(p->period, 524288);
	CHECK_EQ_INT(value(p, a, 1, 0), llround(f * 65536));
	CHECK_EQ_INT(value(p, a, 1, 1), llround(1024 * f * 65536));
	profile_free(p);
}

TEST(heap_sampled_v1)
{
	static const uint64_t a[] = { 0x1000 };
	struct err e;
	/* RATE/2 = 1024 bytes a sample: 64-byte objects are 1 in 16. */
	struct profile *p = load("heap profile: 2: 128 [ 2: 128] @ heap/2048\n"
				 "2: 128 [ 2: 128] @ 0x1000\n0: 0 [ 2: 128] @ 0x2000\n", NULL, &e);

	if (!CHECK(p))
		return;
	CHECK_EQ_INT(p->nsample_type, 4);
	CHECK_EQ_INT(value(p, a, 1, 3), 2048 * 65536);
	CHECK_EQ_INT(value(p, a, 1, 2), 32 * 65536);
	profile_free(p);
}

TEST(heap_signed_header)
{
	struct err e;
	struct profile *p = load("heap profile: -5: 8589934592 [ -3: -7] @ growth\n"
				 "1: 8589934592 [ 1: 8589934592] @ 0x1000\n", NULL, &e);

	if (CHECK(p)) {
		CHECK_EQ_INT(sample_value(p->sample[0])[1], 8589934592LL);
		profile_free(p);
	}
}

TEST(contention_values)
{
	static const uint64_t a[] = { 0x1000, 0x1fff };
	struct err e;
	/* 2 cycles a nanosecond, sampled 1 in 10. */
	struct profile *p = load("--- contentionz 1 ---\ncycles/second = 2000000000\n"
				 "sampling period = 10\nms since reset = 5\n"
				 "  3000 4 @ 0x1000 0x2000\n--- Memory map: ---\n", NULL, &e);

	if (!CHECK(p))
		return;
	CHECK_STR(p->sample_type[0].type, "contentions");
	CHECK_STR(p->sample_type[1].unit, "nanoseconds");
	CHECK_EQ_INT(p->value_scale, 1024);
	CHECK_EQ_INT(value(p, a, 2, 0), 40 * 1024);
	CHECK_EQ_INT(value(p, a, 2, 1), 15000 * 1024);
	CHECK_EQ_INT(p->duration_nanos, 5000000);
	profile_free(p);
}

TEST(thread_same_as_previous)
{
	static const uint64_t a[] = { 0x10, 0x1f };
	struct err e;
	struct profile *p = load("--- threadz 1 ---\n\n"
				 "--- Thread 1 (name: a/1) stack: ---\n  PC: 0x10 0x20\n"
				 "--- Thread 2 (name: b/2) stack: ---\n  [same as previous thread]\n",
				 NULL, &e);

	if (!CHECK(p))
		return;
	CHECK_STR(p->sample_type[0].type, "thread");
	CHECK_EQ_INT(value(p, a, 2, 0), 2);
	profile_free(p);
}

/* "Same as previous" after two stacks adds the second, read into the other buffer. */
TEST(thread_same_after_two)
{
	static const uint64_t a[] = { 0x10, 0x1f }, b[] = { 0x30, 0x3f, 0x4f };
	struct err e;
	struct profile *p = load("--- threadz 1 ---\n\n"
				 "--- Thread 1 (name: a/1) stack: ---\n"
				 "  PC: 0x10 0x20\n"
				 "--- Thread 2 (name: b/2) stack: ---\n"
				 "  PC: 0x30 0x40 0x50\n"
				 "--- Thread 3 (name: c/3) stack: ---\n"
				 "  [same as previous thread]\n"
				 "--- Thread 4 (name: d/4) stack: ---\n"
				 "  PC: 0x10 0x20\n"
				 "--- Thread 5 (name: e/5) stack: ---\n"
				 "  [same as previous thread]\n",
				 NULL, &e);

	if (!CHECK(p))
		return;
	CHECK_EQ_INT(value(p, a, 2, 0), 3);
	CHECK_EQ_INT(value(p, b, 3, 0), 2);
	profile_free(p);
}

/* hex_digit takes either case, lower_hex_digit lowercase only; every other byte is -1. */
TEST(hex_digits)
{
	static const char lower[] = "0123456789abcdef", upper[] = "0123456789ABCDEF";
	int c, bad = 0;

	for (c = 0; c < 256; c++) {
		const char *l = c ? strchr(lower, c) : NULL, *u = c ? strchr(upper, c) : NULL;
		int want = l ? (int)(l - lower) : u ? (int)(u - upper) : -1;

		if (hex_digit((unsigned char)c) != want ||
		    lower_hex_digit((unsigned char)c) != (l ? want : -1)) {
			TEST_NOTE("    byte %d", c);
			bad++;
		}
	}
	CHECK_EQ_INT(bad, 0);
}

TEST(go_count_profile)
{
	static const uint64_t a[] = { 0xf, 0x1f };
	struct err e;
	struct profile *p = load("threadcreate profile: total 3\n3 @ 0x10 0x20\n", NULL, &e);

	if (!CHECK(p))
		return;
	/* Every frame one byte back, the leaf too. */
	CHECK_STR(p->sample_type[0].type, "threadcreate");
	CHECK_EQ_INT(value(p, a, 2, 0), 3);
	profile_free(p);
}

/* A heap profile of one sample line whose stack is words. */
static struct profile *heap_words(const char *words, int raw, struct err *e)
{
	char text[8192];
	struct read_options ro = { .raw_addresses = raw };
	struct profile *p = NULL;

	snprintf(text, sizeof(text), "heap profile: 1: 8 [ 1: 8] @ heapprofile\n"
		 "1: 8 [ 1: 8] @ %s\n", words);
	if (reader_load_buffer("t.prof", (const unsigned char *)text, strlen(text), &ro, &p, NULL,
			       e) < 0)
		return NULL;
	return p;
}

TEST(text_stack_words)
{
	static const uint64_t back[] = { 0x4005d0, 0xabcdef, 0x1f }, raw[] = { 0x4005d0, 0xabcdf0, 0x20 };
	static const uint64_t top[] = { 0xffffffffffffffffull };
	struct profile *p;
	struct err e;

	/* Leading zeros do not count; "0x" is optional, either case, blanks are any. */
	p = heap_words("0x00000000000000000000004005d0\tABCDF0  0X20 \r", 0, &e);
	if (CHECK(p)) {
		CHECK_EQ_INT(value(p, back, 3, 0), 1);
		profile_free(p);
	}
	p = heap_words("0x00000000000000000000004005d0 abcdf0 0x20", 1, &e);
	if (CHECK(p)) {
		CHECK_EQ_INT(value(p, raw, 3, 0), 1);
		profile_free(p);
	}
	p = heap_words("0xffffffffffffffff", 0, &e);
	if (CHECK(p)) {
		CHECK_EQ_INT(value(p, top, 1, 0), 1);
		profile_free(p);
	}
	/* A stack deeper than the first room the parser makes, and blanks between its words. */
	{
		char words[4096];
		uint64_t deep[300];
		size_t i, len = 0;

		for (i = 0; i < 300; i++) {
			deep[i] = 0x1000 + 16 * i - (i > 0);
			len += (size_t)snprintf(words + len, sizeof(words) - len, "%s0x%zx",
						i % 7 ? " " : "  \t ", (size_t)(0x1000 + 16 * i));
		}
		p = heap_words(words, 0, &e);
		if (CHECK(p)) {
			CHECK_EQ_INT(value(p, deep, 300, 0), 1);
			profile_free(p);
		}
	}
	/* Seventeen digits after the zeros, a bare "0x", a word that is not hex. */
	CHECK(!heap_words("0x1 0x000012345678901234567", 0, &e));
	CHECK_CONTAINS(e.msg, "t.prof: line 2: address '0x000012345678901234567' is longer than 64 bits");
	CHECK(!heap_words("0x1 0x 0x2", 0, &e));
	CHECK_CONTAINS(e.msg, "'0x 0x2' is not a hexadecimal address");
	CHECK(!heap_words("0x1 0x2g", 0, &e));
	CHECK_CONTAINS(e.msg, "'0x2g' is not a hexadecimal address");
	CHECK(!heap_words("0x1 -0x2", 0, &e));
	CHECK_CONTAINS(e.msg, "'-0x2' is not a hexadecimal address");
}

TEST(gperftools_symbolized)
{
	static const uint64_t a[] = { 0x1000, 0x2000 };
	const struct reader *rd;
	struct err e;
	const struct location *l;
	struct profile *p = load("--- symbol\nbinary=./prog\n"
				 "0x0000000000001000 outer<0000000000000ff0>--A::operator--(int)\n"
				 "---\n--- contention\n10 1 @ 0x1000 0x2000\n", &rd, &e);

	if (!CHECK(p))
		return;
	/* The hooks are contention's; the names are the file's. */
	CHECK_STR(rd->name, "contention profile");
	CHECK(value(p, a, 2, 0) >= 0);
	l = find_location(p, 0x1000);
	if (CHECK(l && l->nline == 2)) {
		CHECK_STR(l->line[0].function->name, "A::operator--(int)");
		CHECK_STR(l->line[1].function->name, "outer");
		CHECK_EQ_U64(l->line[1].function->symbol_address, 0xff0);
		CHECK_STR(l->line[1].function->filename, "?");
	}
	l = find_location(p, 0x2000);
	if (CHECK(l && l->nline == 1))
		CHECK_STR(l->line[0].function->name, "0x0000000000002000");
	profile_free(p);
}

/* --raw of p, read back: the same model. */
TEST(raw_round_trip)
{
	extern const struct report_format report_raw_format;
	struct profile *p = new_profile("alloc_objects", "count", "inuse space", "bytes", NULL), *q = NULL;
	static const uint64_t a[] = { 0x10, 0x20 }, b[] = { 0x30 };
	struct report_options o = { 0 };
	const struct reader *rd;
	struct label lab = { 0 };
	char *buf = NULL;
	size_t len = 0;
	struct err e;
	FILE *f;

	p->value_scale = 1024;
	p->address_bits = 32;
	p->period = 7;
	profile_add_comment(p, "a comment % with = signs");
	named_location(p, 0x10, "in line", 3, "outer fn()", 9, NULL);
	add_stack(p, a, 2, 5, -7);
	lab.key = profile_intern(p, "key");
	lab.str = profile_intern(p, "a value");
	lab.num_unit = profile_intern(p, "");
	profile_add_sample_labels(p, (struct location *[]){ profile_location(p, 0x30) }, 1,
				  (int64_t[]){ 1, 2 }, &lab, 1);
	o.source = reader_named("thread profile");
	f = open_memstream(&buf, &len);
	if (!CHECK(f) || !CHECK(report_raw_format.write(f, p, &o, &e) == 0))
		return;
	fclose(f);
	if (reader_load_buffer("r.raw", (unsigned char *)buf, len, NULL, &q, &rd, &e) < 0)
		TEST_NOTE("    %s", e.msg);
	if (CHECK(q)) {
		const struct location *l = find_location(q, 0x10);

		CHECK_STR(rd->name, "thread profile");
		CHECK_EQ_INT(q->value_scale, 1024);
		CHECK_EQ_INT(q->address_bits, 32);
		CHECK_EQ_INT(q->period, 7);
		CHECK_STR(q->sample_type[1].type, "inuse space");
		CHECK(q->ncomment == 1 && !strcmp(q->comment[0], "a comment % with = signs"));
		CHECK_EQ_INT(value(q, a, 2, 1), -7);
		CHECK(find_sample(q, b, 1) && find_sample(q, b, 1)->nlabel == 1 &&
		      !strcmp(sample_labels(find_sample(q, b, 1))[0].str, "a value"));
		if (CHECK(l && l->nline == 2)) {
			CHECK_STR(l->line[0].function->name, "in line");
			CHECK_EQ_INT(l->line[1].line, 9);
			CHECK_STR(l->line[1].function->filename, "t.c");
		}
		profile_free(q);
	}
	free(buf);
	profile_free(p);
}

/* Profiles of other fixed-point units are summed in the finer one. */
TEST(merge_value_scale)
{
	static const uint64_t a[] = { 0x10 };
	struct profile *p = new_profile("space", "bytes", NULL), *q = new_profile("space", "bytes", NULL);

	add_stack(p, a, 1, 3);
	q->value_scale = 16;
	add_stack(q, a, 1, 8);
	profile_merge(p, q, 1);
	CHECK_EQ_INT(p->value_scale, 16);
	CHECK_EQ_INT(value(p, a, 1, 0), 3 * 16 + 8);
	profile_free(p);
	profile_free(q);
}

int main(void)
{
	RUN(heap_profiler_dump);
	RUN(heap_sampled_v2);
	RUN(heap_sampled_v1);
	RUN(heap_signed_header);
	RUN(contention_values);
	RUN(thread_same_as_previous);
	RUN(thread_same_after_two);
	RUN(hex_digits);
	RUN(go_count_profile);
	RUN(text_stack_words);
	RUN(gperftools_symbolized);
	RUN(raw_round_trip);
	RUN(merge_value_scale);
	return test_done();
}
