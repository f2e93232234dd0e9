/* test_reader.c - unit tests for the gperftools CPU profile reader (include/reader.h). */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "profiles.h"
#include "reader.h"
#include "strbuf.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A CPU profile: header words 0, 3, 0, period, 0 (begin), then records
 * (count, depth, pc...), the trailer (0, 1, 0), then map text.
 */
static void begin(struct filebuf *g, unsigned width, int big, uint64_t period)
{
	filebuf_init(g, width, big);
	filebuf_word(g, 0);
	filebuf_word(g, 3);
	filebuf_word(g, 0);
	filebuf_word(g, period);
	filebuf_word(g, 0);
}

static void record(struct filebuf *g, uint64_t count, size_t depth, const uint64_t *pc)
{
	size_t i;

	filebuf_word(g, count);
	filebuf_word(g, depth);
	for (i = 0; i < depth; i++)
		filebuf_word(g, pc[i]);
}

static void trailer(struct filebuf *g)
{
	filebuf_word(g, 0);
	filebuf_word(g, 1);
	filebuf_word(g, 0);
}

/* Three records, two of them the same stack; raw PCs as in the file. */
static void standard_records(struct filebuf *g)
{
	static const uint64_t s1[] = { 0x1000, 0x2001, 0x3001 }, s2[] = { 0x1000, 0x2001 },
			      s3[] = { 0x1500, 0x3001 };

	record(g, 5, 3, s1);
	record(g, 2, 2, s2);
	record(g, 1, 3, s1);
	record(g, 9, 2, s3);
}

static void check_standard(const struct profile *p, unsigned bits)
{
	static const uint64_t k1[] = { 0x1000, 0x2000, 0x3000 }, k2[] = { 0x1000, 0x2000 },
			      k3[] = { 0x1500, 0x3000 };
	const struct sample *s;

	CHECK_EQ_INT(p->address_bits, bits);
	CHECK_EQ_INT(p->nsample, 3);
	CHECK(p->nsample_type >= 1);
	CHECK_EQ_INT(p->period, 10000 * 1000);     /* 10000 us, in ns */
	if (CHECK((s = find_sample(p, k1, 3)) != NULL))
		CHECK_EQ_INT(sample_value(s)[0], 6);
	if (CHECK((s = find_sample(p, k2, 2)) != NULL))
		CHECK_EQ_INT(sample_value(s)[0], 2);
	if (CHECK((s = find_sample(p, k3, 2)) != NULL))
		CHECK_EQ_INT(sample_value(s)[0], 9);
	/* Callers are looked up inside the call; the leaf is exact. */
	CHECK(find_location(p, 0x1000) != NULL);
	CHECK(find_location(p, 0x0fff) == NULL);
	CHECK(find_location(p, 0x2001) == NULL);
	CHECK(find_location(p, 0x3001) == NULL);
	CHECK_EQ_INT(p->nlocation, 4);
	CHECK_EQ_INT(p->nmapping, 0);
}

TEST(same_samples_in_every_layout)
{
	static const struct { unsigned width; int big; } layout[] = { { 4, 0 }, { 8, 0 }, { 8, 1 },
								       { 4, 1 } };
	struct profile *first = NULL;
	size_t i, k;

	for (i = 0; i < ARRAY_LEN(layout); i++) {
		struct filebuf g;
		struct profile *p = NULL;
		struct err e = { { 0 } };

		begin(&g, layout[i].width, layout[i].big, 10000);
		standard_records(&g);
		trailer(&g);
		TEST_NOTE("layout: %u-bit %s-endian", layout[i].width * 8,
			  layout[i].big ? "big" : "little");
		if (!CHECK_EQ_INT(filebuf_load(&g, "t.prof", g.sb.len, &p, &e), 0)) {
			TEST_NOTE("    %s", e.msg);
			sb_release(&g.sb);
			continue;
		}
		check_standard(p, layout[i].width * 8);
		if (!first) {
			first = p;
		} else {
			/* Same sample types and values as the first layout. */
			CHECK_EQ_INT(p->nsample_type, first->nsample_type);
			for (k = 0; k < p->nsample_type && k < first->nsample_type; k++)
				CHECK_STR(p->sample_type[k].type, first->sample_type[k].type);
			for (k = 0; k < first->nsample; k++) {
				const struct sample *a = first->sample[k], *b;
				uint64_t addr[8];
				size_t j;

				for (j = 0; j < a->nlocation && j < 8; j++)
					addr[j] = sample_location(first, a, j)->address;
				b = find_sample(p, addr, a->nlocation);
				CHECK(b != NULL && !memcmp(sample_value(a), sample_value(b),
							   first->nsample_type * sizeof(int64_t)));
			}
			profile_free(p);
		}
		sb_release(&g.sb);
	}
	profile_free(first);
}

TEST(full_width_addresses)
{
	static const uint64_t pcs[] = { 0xffffffff81000010ULL, 0x00007f1234567891ULL };
	static const uint64_t want[] = { 0xffffffff81000010ULL, 0x00007f1234567890ULL };
	static const uint64_t pcs32[] = { 0xfffffff0, 0x80000001 };
	static const uint64_t want32[] = { 0xfffffff0, 0x80000000 };
	int big;

	for (big = 0; big < 2; big++) {
		struct filebuf g;
		struct profile *p = NULL;
		struct err e = { { 0 } };

		begin(&g, 8, big, 100);
		record(&g, 3, 2, pcs);
		trailer(&g);
		if (CHECK_EQ_INT(filebuf_load(&g, "t.prof", g.sb.len, &p, &e), 0)) {
			CHECK(find_sample(p, want, 2) != NULL);
			profile_free(p);
		}
		sb_release(&g.sb);

		begin(&g, 4, big, 100);
		record(&g, 3, 2, pcs32);
		trailer(&g);
		if (CHECK_EQ_INT(filebuf_load(&g, "t.prof", g.sb.len, &p, &e), 0)) {
			CHECK(find_sample(p, want32, 2) != NULL);
			profile_free(p);
		}
		sb_release(&g.sb);
	}
}

TEST(zero_pc_ends_data)
{
	static const uint64_t a[] = { 0x1000, 0x2001 }, stop[] = { 0, 0x4000 }, b[] = { 0x5000 };
	static const uint64_t ka[] = { 0x1000, 0x2000 };
	struct filebuf g;
	struct profile *p = NULL;
	struct err e = { { 0 } };

	begin(&g, 4, 0, 100);
	record(&g, 4, 2, a);
	record(&g, 5, 2, stop);      /* not the canonical (0, 1, 0), still the end */
	record(&g, 7, 1, b);         /* after the end: part of the map text */
	if (CHECK_EQ_INT(filebuf_load(&g, "t.prof", g.sb.len, &p, &e), 0)) {
		CHECK_EQ_INT(p->nsample, 1);
		if (CHECK(find_sample(p, ka, 2) != NULL))
			CHECK_EQ_INT(sample_value(find_sample(p, ka, 2))[0], 4);
		CHECK(find_location(p, 0x5000) == NULL);
		CHECK(find_location(p, 0x4000) == NULL && find_location(p, 0x3fff) == NULL);
		profile_free(p);
	} else {
		TEST_NOTE("    %s", e.msg);
	}
	sb_release(&g.sb);
}

static const struct mapping *mapping_named(const struct profile *p, const char *file)
{
	size_t i;

	for (i = 0; i < p->nmapping; i++)
		if (!strcmp(p->mapping[i]->file, file))
			return p->mapping[i];
	return NULL;
}

TEST(map_text)
{
	static const uint64_t st[] = { 0x400123, 0x7f0000001001ULL, 0x7f0000100101ULL };
	struct filebuf g;
	struct profile *p = NULL;
	struct err e = { { 0 } };
	const struct mapping *prog, *lib;

	begin(&g, 8, 0, 100);
	record(&g, 1, 3, st);
	trailer(&g);
	sb_adds(&g.sb,
		"build=/x\n"
		"00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/prog\n"
		"00651000-00652000 rw-p 00051000 08:02 173521      /usr/bin/prog\n"
		"7f0000000000-7f0000080000 r-xp 00001000 fd:01 42 $build/lib.so\n"
		"7f0000100000-7f0000180000 r--p 00000000 fd:01 43 /x/data.so\n"
		"7f0000200000-7f0000280000 rw-p 00000000 00:00 0 \n");
	if (!CHECK_EQ_INT(filebuf_load(&g, "t.prof", g.sb.len, &p, &e), 0)) {
		TEST_NOTE("    %s", e.msg);
		sb_release(&g.sb);
		return;
	}
	CHECK_EQ_INT(p->nmapping, 2);
	prog = mapping_named(p, "/usr/bin/prog");
	lib = mapping_named(p, "/x/lib.so");
	CHECK(mapping_named(p, "$build/lib.so") == NULL);
	CHECK(mapping_named(p, "/x/data.so") == NULL);     /* not executable */
	if (CHECK(prog != NULL)) {
		CHECK_EQ_U64(prog->start, 0x400000);
		CHECK_EQ_U64(prog->limit, 0x452000);
		CHECK_EQ_U64(prog->offset, 0);
	}
	if (CHECK(lib != NULL)) {
		CHECK_EQ_U64(lib->start, 0x7f0000000000ULL);
		CHECK_EQ_U64(lib->limit, 0x7f0000080000ULL);
		CHECK_EQ_U64(lib->offset, 0x1000);
	}
	/* Locations read before the map text still get their mappings. */
	CHECK(find_location(p, 0x400123) && find_location(p, 0x400123)->mapping == prog);
	CHECK(find_location(p, 0x7f0000001000ULL) &&
	      find_location(p, 0x7f0000001000ULL)->mapping == lib);
	CHECK(find_location(p, 0x7f0000100100ULL) &&
	      find_location(p, 0x7f0000100100ULL)->mapping == NULL);
	profile_free(p);
	sb_release(&g.sb);
}

/* Cuts a valid profile at every length inside its binary part. */
static void check_truncations(unsigned width, int big)
{
	static const uint64_t s1[] = { 0x1000, 0x2001, 0x3001 };
	struct filebuf g;
	struct profile *p = NULL;
	struct err e;
	size_t end, len;
	int loaded = 0, returned = 0, unnamed = 0, no_offset = 0;

	begin(&g, width, big, 100);
	record(&g, 5, 3, s1);
	record(&g, 1, 1, s1);
	trailer(&g);
	end = g.sb.len;
	sb_adds(&g.sb, "00400000-00452000 r-xp 00000000 08:02 1 /usr/bin/prog\n");
	TEST_NOTE("layout: %u-bit %s-endian, %zu bytes", width * 8, big ? "big" : "little", end);
	for (len = 1; len < end; len++) {
		memset(&e, 0, sizeof(e));
		if (filebuf_load(&g, "t.prof", len, &p, &e) == 0) {
			if (!loaded++)
				TEST_NOTE("    cut at %zu loaded", len);
			profile_free(p);
			continue;
		}
		if (p != NULL)
			returned++;
		if (!strstr(e.msg, "t.prof")) {
			if (!unnamed++)
				TEST_NOTE("    cut at %zu: '%s'", len, e.msg);
		}
		/* Once the header is recognisable, errors name the offset. */
		if (len >= 4 * width && !strstr(e.msg, "offset 0x")) {
			if (!no_offset++)
				TEST_NOTE("    cut at %zu: '%s'", len, e.msg);
		}
	}
	CHECK_EQ_INT(loaded, 0);
	CHECK_EQ_INT(returned, 0);
	CHECK_EQ_INT(unnamed, 0);
	CHECK_EQ_INT(no_offset, 0);
	/* Cut right after the trailer: a profile without map text. */
	if (CHECK_EQ_INT(filebuf_load(&g, "t.prof", end, &p, &e), 0)) {
		CHECK_EQ_INT(p->nsample, 2);
		CHECK_EQ_INT(p->nmapping, 0);
		profile_free(p);
	}
	sb_release(&g.sb);
}

TEST(truncated)
{
	check_truncations(4, 0);
	check_truncations(8, 0);
	check_truncations(8, 1);
	check_truncations(4, 1);
}

/* Loads the given header words followed by a trailer; expects an error naming t.prof. */
static void check_bad_header(unsigned width, int big, const uint64_t *w, size_t n)
{
	struct filebuf g;
	struct profile *p = NULL;
	struct err e = { { 0 } };
	size_t i;

	filebuf_init(&g, width, big);
	for (i = 0; i < n; i++)
		filebuf_word(&g, w[i]);
	trailer(&g);
	CHECK_EQ_INT(filebuf_load(&g, "t.prof", g.sb.len, &p, &e), -1);
	CHECK_CONTAINS(e.msg, "t.prof");
	CHECK(p == NULL);
	sb_release(&g.sb);
}

TEST(bad_headers)
{
	static const uint64_t huge_period[] = { 0, 3, 0, 0x100000001ULL, 0 };
	static const uint64_t too_few[] = { 0, 1, 0, 100, 0 };
	static const uint64_t too_many[] = { 0, 5000, 0, 100, 0 };
	static const uint64_t first_nonzero[] = { 7, 3, 0, 100, 0 };
	static const uint64_t halves[] = { 0, 0x01010101, 0, 100, 0 };

	check_bad_header(8, 0, huge_period, 5);
	check_bad_header(8, 1, huge_period, 5);
	check_bad_header(4, 0, too_few, 5);
	check_bad_header(8, 1, too_few, 5);
	check_bad_header(4, 0, too_many, 5);
	check_bad_header(8, 0, too_many, 5);
	check_bad_header(4, 0, first_nonzero, 5);
	check_bad_header(8, 0, first_nonzero, 5);
	check_bad_header(4, 0, halves, 5);
}

TEST(not_a_profile)
{
	static const char text[] = "this is not a CPU profile\n";
	struct profile *p = NULL;
	struct err e = { { 0 } };

	CHECK_EQ_INT(reader_load_buffer("notes.txt", (const unsigned char *)text, sizeof(text) - 1,
					NULL, &p, NULL, &e), -1);
	CHECK_CONTAINS(e.msg, "notes.txt");
	CHECK(p == NULL);
}

TEST(empty_buffer)
{
	static const unsigned char none[1];
	struct profile *p = NULL;
	struct err e = { { 0 } };

	CHECK_EQ_INT(reader_load_buffer("empty.prof", none, 0, NULL, &p, NULL, &e), -1);
	CHECK_CONTAINS(e.msg, "empty.prof");
	CHECK(p == NULL);
}

TEST(load_missing_file)
{
	struct profile *p = NULL;
	struct err e = { { 0 } };

	CHECK_EQ_INT(reader_load("/nonexistent/dir/cpu.prof", NULL, &p, NULL, &e), -1);
	CHECK_CONTAINS(e.msg, "/nonexistent/dir/cpu.prof");
	CHECK(p == NULL);
}

int main(void)
{
	RUN(same_samples_in_every_layout);
	RUN(full_width_addresses);
	RUN(zero_pc_ends_data);
	RUN(map_text);
	RUN(truncated);
	RUN(bad_headers);
	RUN(not_a_profile);
	RUN(empty_buffer);
	RUN(load_missing_file);
	return test_done();
}
