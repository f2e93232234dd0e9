/* test_gmon.c - unit tests for the gprof gmon.out reader (src/readers/gmon.c). */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "profiles.h"
#include "reader.h"
#include "strbuf.h"

extern const struct reader reader_gmon;

enum layout { GNU, BSD44, OLDBSD };

/*
 * One histogram 0x1000-0x1010 of 4 bins (2 units each, scale 2) with
 * counts 0, 3, 0, 1 at 100 Hz, and one arc 0x1008 -> 0x100c, count 5.
 */
static void build(struct filebuf *g, enum layout layout, unsigned width, int big)
{
	static const unsigned bins[4] = { 0, 3, 0, 1 };
	unsigned i;

	filebuf_init(g, width, big);
	if (layout == GNU) {
		sb_add(&g->sb, "gmon", 4);
		filebuf_int(g, 1, 4);
		sb_add(&g->sb, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
		sb_addc(&g->sb, 0);
		filebuf_word(g, 0x1000);
		filebuf_word(g, 0x1010);
		filebuf_int(g, 4, 4);
		filebuf_int(g, 100, 4);
		sb_add(&g->sb, "seconds\0\0\0\0\0\0\0\0s", 16);
	} else {
		size_t hdr = layout == BSD44 ? (width == 8 ? 40 : 32) : (width == 8 ? 20 : 12);

		filebuf_word(g, 0x1000);
		filebuf_word(g, 0x1010);
		filebuf_int(g, hdr + 8, 4);
		if (layout == BSD44) {
			filebuf_int(g, 0x00051879, 4);
			filebuf_int(g, 100, 4);
			sb_add(&g->sb, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
		}
	}
	for (i = 0; i < 4; i++)
		filebuf_int(g, bins[i], 2);
	if (layout == GNU)
		sb_addc(&g->sb, 1);
	filebuf_word(g, 0x1008);
	filebuf_word(g, 0x100c);
	filebuf_int(g, 5, layout == GNU ? 4 : width);
}

/* The value of sample type k of the one-frame sample at addr (or arc self <- from). */
static int64_t value_at(const struct profile *p, uint64_t addr, uint64_t from, size_t k)
{
	size_t i;

	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];

		if (sample_location(p, s, 0)->address != addr)
			continue;
		if ((from == 0 && s->nlocation == 1) ||
		    (from && s->nlocation == 2 && sample_location(p, s, 1)->address == from))
			return sample_value(s)[k];
	}
	return -1;
}

static void check_content(const struct profile *p)
{
	CHECK(filebuf_reader == &reader_gmon);
	if (!CHECK_EQ_INT(p->nsample_type, 3))
		return;
	CHECK_STR(p->sample_type[0].type, "seconds");
	CHECK_STR(p->sample_type[0].unit, "nanoseconds");
	CHECK_STR(p->sample_type[1].type, "calls");
	CHECK_STR(p->sample_type[2].type, "executions");
	CHECK_EQ_INT(p->period, 10000000);
	/* Bin 1 = units 0x802, 0x803: 3 ticks / scale 2 each, at the odd byte. */
	CHECK_EQ_INT(value_at(p, 0x1005, 0, 0), 15000000);
	CHECK_EQ_INT(value_at(p, 0x1007, 0, 0), 15000000);
	CHECK_EQ_INT(value_at(p, 0x100d, 0, 0), 5000000);
	CHECK_EQ_INT(value_at(p, 0x100f, 0, 0), 5000000);
	CHECK_EQ_INT(value_at(p, 0x1001, 0, 0), -1);
	CHECK_EQ_INT(value_at(p, 0x100c, 0x1008, 1), 5);
	if (CHECK_EQ_INT(p->nmapping, 1)) {
		CHECK_EQ_U64(p->mapping[0]->start, 0x1000);
		CHECK_EQ_U64(p->mapping[0]->limit, 0x1010);
	}
}

TEST(same_samples_in_every_layout)
{
	static const enum layout layouts[] = { GNU, BSD44, OLDBSD };
	size_t l;
	unsigned width;
	int big;

	for (l = 0; l < 3; l++)
		for (width = 4; width <= 8; width += 4)
			for (big = 0; big <= 1; big++) {
				struct filebuf g;
				struct profile *p = NULL;
				struct err e = { { 0 } };

				build(&g, layouts[l], width, big);
				TEST_NOTE("layout %d, %u-bit, %s endian", (int)layouts[l], width * 8,
					  big ? "big" : "little");
				if (CHECK_EQ_INT(filebuf_load(&g, "t.gmon", g.sb.len, &p, &e), 0)) {
					CHECK_EQ_INT(p->address_bits, width * 8);
					check_content(p);
					profile_free(p);
				} else {
					TEST_NOTE("%s", e.msg);
				}
				sb_release(&g.sb);
			}
}

TEST(truncated)
{
	struct filebuf g;
	size_t n;
	int bad = 0;

	build(&g, GNU, 8, 0);
	/* 20-byte header, 49-byte histogram record, 21-byte arc: cuts inside records fail. */
	for (n = 1; n < g.sb.len; n++) {
		struct profile *p = NULL;
		struct err e = { { 0 } };
		int r = filebuf_load(&g, "t.gmon", n, &p, &e);

		if (n == 20 || n == 69) {
			bad += r != 0;
		} else if (r != -1 || !strstr(e.msg, "t.gmon: offset 0x")) {
			TEST_NOTE("cut at %zu: %s", n, e.msg);
			bad++;
		}
		if (p)
			profile_free(p);
	}
	CHECK_EQ_INT(bad, 0);
	sb_release(&g.sb);
}

TEST(errors)
{
	struct filebuf g;
	struct profile *p = NULL;
	struct err e = { { 0 } };

	build(&g, GNU, 8, 0);
	g.sb.buf[4] = 2;
	CHECK_EQ_INT(filebuf_load(&g, "t.gmon", g.sb.len, &p, &e), -1);
	CHECK_CONTAINS(e.msg, "t.gmon: offset 0x4: unsupported gmon.out version 2");
	g.sb.buf[4] = 1;
	sb_addc(&g.sb, 9);
	CHECK_EQ_INT(filebuf_load(&g, "t.gmon", g.sb.len, &p, &e), -1);
	CHECK_CONTAINS(e.msg, "offset 0x5a: unknown record tag 9");
	sb_release(&g.sb);

	build(&g, GNU, 8, 0);
	memset(g.sb.buf + 29, 0, 8);     /* high_pc = 0x1000... */
	g.sb.buf[30] = 0x10;             /* ... exactly */
	CHECK_EQ_INT(filebuf_load(&g, "t.gmon", g.sb.len, &p, &e), -1);
	CHECK_CONTAINS(e.msg, "offset 0x14: histogram with an empty address range");
	sb_release(&g.sb);
	CHECK(p == NULL);
}

/* A GNU file of n histogram records of one bin each, over 16-byte ranges one after another. */
static void ranges(struct filebuf *g, unsigned n)
{
	unsigned i;

	filebuf_init(g, 8, 0);
	sb_add(&g->sb, "gmon", 4);
	filebuf_int(g, 1, 4);
	sb_add(&g->sb, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	for (i = 0; i < n; i++) {
		sb_addc(&g->sb, 0);
		filebuf_word(g, 0x1000 + 16 * i);
		filebuf_word(g, 0x1010 + 16 * i);
		filebuf_int(g, 1, 4);
		filebuf_int(g, 100, 4);
		sb_add(&g->sb, "seconds\0\0\0\0\0\0\0\0s", 16);
		filebuf_int(g, 1, 2);
	}
}

/* Each record and arc is checked against every range: they are limited. */
TEST(many_ranges)
{
	struct filebuf g;
	struct profile *p = NULL;
	struct err e = { { 0 } };

	ranges(&g, 64);
	if (CHECK_EQ_INT(filebuf_load(&g, "t.gmon", g.sb.len, &p, &e), 0))
		CHECK_EQ_INT(p->nmapping, 64);
	profile_free(p);
	p = NULL;
	sb_release(&g.sb);
	ranges(&g, 65);
	CHECK_EQ_INT(filebuf_load(&g, "t.gmon", g.sb.len, &p, &e), -1);
	CHECK_CONTAINS(e.msg, "t.gmon: offset 0xad4: more than 64 histogram ranges");
	sb_release(&g.sb);
}

TEST(not_claimed)
{
	/* A gperftools CPU profile header (0, 3, 0, period, 0) and an ELF file. */
	static const unsigned char cpu[40] = { 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
					       0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27 };
	static const unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	struct profile *p = NULL;
	struct err e = { { 0 } };

	CHECK_EQ_INT(reader_load_buffer("cpu.prof", cpu, sizeof(cpu), NULL, &p, NULL, &e), -1);
	CHECK(!strstr(e.msg, "gmon"));
	CHECK_EQ_INT(reader_load_buffer("prog", elf, sizeof(elf), NULL, &p, NULL, &e), -1);
	CHECK_CONTAINS(e.msg, "unknown profile format");
	CHECK(p == NULL);
}

int main(void)
{
	RUN(same_samples_in_every_layout);
	RUN(truncated);
	RUN(errors);
	RUN(many_ranges);
	RUN(not_claimed);
	return test_done();
}
