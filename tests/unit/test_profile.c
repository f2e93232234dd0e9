/* test_profile.c - unit tests for the profile model (include/profile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/profile/internal.h"
#include "harness.h"
#include "profile.h"
#include "profiles.h"

/* The sample types of most tests here. */
#define TWO_TYPES "samples", "count", "cpu", "nanoseconds", NULL

/* Whether every location of every sample is one of p's own. */
static int locations_owned(const struct profile *p)
{
	size_t i, j, k;

	for (i = 0; i < p->nsample; i++)
		for (j = 0; j < p->sample[i]->nlocation; j++) {
			for (k = 0; k < p->nlocation; k++)
				if (k == sample_stack(p->sample[i])[j])
					break;
			if (k == p->nlocation)
				return 0;
		}
	return 1;
}

TEST(interning)
{
	struct profile *p = profile_new();
	char a[] = "main", b[] = "main";
	const char *s, *t, *u;
	const char *many[3000];
	char name[32];
	int i, same = 0;

	s = profile_intern(p, a);
	t = profile_intern(p, b);
	CHECK(s == t);
	CHECK(s != a && s != b);
	CHECK_STR(s, "main");
	a[0] = 'x';
	CHECK_STR(s, "main");
	u = profile_intern_n(p, "main() extra", 4);   /* no NUL after n bytes */
	CHECK(u == s);
	CHECK(profile_intern(p, "mai") != s);
	CHECK(profile_intern_n(p, "main", 3) == profile_intern(p, "mai"));
	CHECK(profile_intern(p, "") != NULL);
	CHECK(profile_intern(p, "") == profile_intern_n(p, "xyz", 0));
	CHECK_STR(profile_intern(p, ""), "");
	/* Enough strings to make the table grow; earlier pointers stay. */
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		many[i] = profile_intern(p, name);
	}
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		if (profile_intern(p, name) == many[i] && !strcmp(many[i], name))
			same++;
	}
	CHECK_EQ_INT(same, 3000);
	CHECK(profile_intern(p, "main") == s);
	profile_free(p);
}

TEST(sample_types_and_comments)
{
	struct profile *p = new_profile(TWO_TYPES);

	CHECK_EQ_INT(p->nsample_type, 2);
	CHECK_STR(p->sample_type[0].type, "samples");
	CHECK_STR(p->sample_type[1].unit, "nanoseconds");
	CHECK(p->sample_type[0].type == profile_intern(p, "samples"));
	CHECK(p->sample_type[1].type == profile_intern(p, "cpu"));
	CHECK(p->period_type.type != NULL && p->period_type.unit != NULL);
	profile_add_comment(p, "first");
	profile_add_comment(p, "second");
	CHECK_EQ_INT(p->ncomment, 2);
	CHECK(p->comment[1] == profile_intern(p, "second"));
	profile_free(p);
}

TEST(mappings)
{
	struct profile *p = profile_new();
	struct mapping *outer, *inner, *other;

	outer = profile_add_mapping(p, 0x1000, 0x9000, 0x100, "/bin/prog", "abc");
	inner = profile_add_mapping(p, 0x4000, 0x5000, 0, "/lib/inner.so", "");
	other = profile_add_mapping(p, 0x10000, 0x11000, 0, "/lib/other.so", "");
	CHECK_EQ_INT(p->nmapping, 3);
	CHECK_EQ_INT(outer->id, 1);
	CHECK_EQ_INT(inner->id, 2);
	CHECK(p->mapping[2] == other);
	CHECK(outer->file == profile_intern(p, "/bin/prog"));
	CHECK(outer->build_id == profile_intern(p, "abc"));
	CHECK_EQ_U64(outer->offset, 0x100);
	CHECK(profile_find_mapping(p, 0x1000) == outer);
	CHECK(profile_find_mapping(p, 0x3fff) == outer);
	CHECK(profile_find_mapping(p, 0x4000) == inner);   /* latest start wins */
	CHECK(profile_find_mapping(p, 0x4fff) == inner);
	CHECK(profile_find_mapping(p, 0x5000) == outer);
	CHECK(profile_find_mapping(p, 0x9000) == NULL);    /* limit is exclusive */
	CHECK(profile_find_mapping(p, 0xfff) == NULL);
	CHECK(profile_find_mapping(p, 0x10800) == other);
	profile_free(p);
}

TEST(locations)
{
	struct profile *p = profile_new();
	struct mapping *m = profile_add_mapping(p, 0x400000, 0x500000, 0, "/bin/prog", "");
	struct location *a, *b, *c;
	int i, same = 0;

	a = profile_location(p, 0x401000);
	b = profile_location(p, 0x401000);
	c = profile_location(p, 0x600000);
	CHECK(a == b);
	CHECK(a != c);
	CHECK_EQ_INT(p->nlocation, 2);
	CHECK_EQ_INT(a->id, 1);
	CHECK_EQ_INT(c->id, 2);
	CHECK(p->location[0] == a && p->location[1] == c);
	CHECK_EQ_U64(a->address, 0x401000);
	CHECK(a->mapping == m);
	CHECK(c->mapping == NULL);
	CHECK_EQ_INT(a->nline, 0);
	/* Many addresses: each created once, found again after growth. */
	for (i = 0; i < 5000; i++)
		profile_location(p, 0x10000000 + 16 * (uint64_t)i);
	CHECK_EQ_INT(p->nlocation, 5002);
	for (i = 0; i < 5000; i++) {
		struct location *l = profile_location(p, 0x10000000 + 16 * (uint64_t)i);

		if (l->id == (uint64_t)i + 3 && p->location[i + 2] == l)
			same++;
	}
	CHECK_EQ_INT(same, 5000);
	CHECK_EQ_INT(p->nlocation, 5002);
	CHECK(profile_location(p, 0x401000) == a);
	/* A second location at an address: the first stays the one found. */
	b = profile_add_location(p, m, 0x401000);
	CHECK(b != a && b->id == 5003 && b->address == 0x401000);
	CHECK(profile_location(p, 0x401000) == a);
	/* Address 0 is a key like any other. */
	c = profile_location(p, 0);
	CHECK(c->id == 5004 && profile_location(p, 0) == c);
	profile_free(p);
}

/*
 * A builder drops the index by address when it ends; the next lookup
 * makes it again from the locations, the first at an address winning.
 */
TEST(locations_after_a_build)
{
	struct profile *p = new_profile(TWO_TYPES);
	struct stack_builder *sb = stack_builder_begin(p);
	struct location *first = profile_location(p, 0x500), *second;
	uint64_t st[2] = { 0x500, 0x600 };
	int64_t v[2] = { 1, 10 };

	second = profile_add_location(p, NULL, 0x500);
	stack_builder_add(sb, st, 2, v);
	stack_builder_end(sb);
	CHECK_EQ_INT(p->nlocation, 3);
	CHECK(profile_location(p, 0x500) == first && first != second);
	CHECK(profile_location(p, 0x600) == p->location[2]);
	CHECK(sample_location(p, p->sample[0], 0) == first);
	CHECK(profile_location(p, 0x700)->id == 4);
	profile_free(p);
}

TEST(functions_and_lines)
{
	struct profile *p = profile_new();
	char name[] = "ns::f(int)";
	struct function *f, *g;
	struct location *loc;
	struct line ln[2];

	f = profile_function(p, "ns::f(int)", "_ZN2ns1fEi", "a.cc", 10, NO_SYMBOL_ADDRESS);
	g = profile_function(p, name, "_ZN2ns1fEi", "a.cc", 10, NO_SYMBOL_ADDRESS);
	CHECK(f == g);
	CHECK_EQ_INT(p->nfunction, 1);
	CHECK_EQ_INT(f->id, 1);
	CHECK(f->name == profile_intern(p, "ns::f(int)"));
	CHECK(f->system_name == profile_intern(p, "_ZN2ns1fEi"));
	CHECK(f->filename == profile_intern(p, "a.cc"));
	CHECK_EQ_INT(f->start_line, 10);
	CHECK_EQ_U64(f->symbol_address, NO_SYMBOL_ADDRESS);
	/* Any differing field makes another function. */
	CHECK(profile_function(p, "ns::g(int)", "_ZN2ns1fEi", "a.cc", 10, NO_SYMBOL_ADDRESS) != f);
	CHECK(profile_function(p, "ns::f(int)", "_ZN2ns1gEi", "a.cc", 10, NO_SYMBOL_ADDRESS) != f);
	CHECK(profile_function(p, "ns::f(int)", "_ZN2ns1fEi", "b.cc", 10, NO_SYMBOL_ADDRESS) != f);
	CHECK(profile_function(p, "ns::f(int)", "_ZN2ns1fEi", "a.cc", 11, NO_SYMBOL_ADDRESS) != f);
	g = profile_function(p, "ns::f(int)", "_ZN2ns1fEi", "a.cc", 10, 0x1130);
	CHECK(g != f);
	CHECK_EQ_INT(p->nfunction, 6);
	CHECK(profile_function(p, "ns::f(int)", "_ZN2ns1fEi", "a.cc", 10, 0x1130) == g);
	CHECK_EQ_INT(p->nfunction, 6);
	CHECK(p->function[5] == g && g->id == 6);
	/* A missing file name is "", never NULL. */
	g = profile_function(p, "h", "h", "", 0, NO_SYMBOL_ADDRESS);
	CHECK(g->filename != NULL && g->filename[0] == 0);

	loc = profile_location(p, 0x1000);
	ln[0].function = f;
	ln[0].line = 12;
	ln[1].function = g;
	ln[1].line = 30;
	profile_set_lines(p, loc, ln, 2);
	ln[0].line = 99;           /* the location holds a copy */
	CHECK_EQ_INT(loc->nline, 2);
	if (CHECK(loc->line != NULL)) {
		CHECK(loc->line[0].function == f);
		CHECK_EQ_INT(loc->line[0].line, 12);
		CHECK(loc->line[1].function == g);
	}
	profile_set_lines(p, loc, ln, 1);
	CHECK_EQ_INT(loc->nline, 1);
	CHECK_EQ_INT(loc->line[0].line, 99);
	profile_set_lines(p, loc, NULL, 0);
	CHECK_EQ_INT(loc->nline, 0);
	profile_free(p);
}

TEST(samples_merge_by_stack)
{
	struct profile *p = new_profile(TWO_TYPES);
	static const uint64_t ab[] = { 0x10, 0x20 }, ba[] = { 0x20, 0x10 }, a[] = { 0x10 },
			      aab[] = { 0x10, 0x10, 0x20 };
	struct location *loc[2];
	struct sample *s, *t;
	int64_t v[2] = { 4, 40 };

	s = add_stack(p, ab, 2, 1, 10);
	t = add_stack(p, ab, 2, 2, 20);
	CHECK(s == t);
	CHECK_EQ_INT(p->nsample, 1);
	CHECK_EQ_INT(sample_value(s)[0], 3);
	CHECK_EQ_INT(sample_value(s)[1], 30);
	CHECK_EQ_INT(s->nlocation, 2);
	CHECK_EQ_U64(sample_location(p, s, 0)->address, 0x10);   /* leaf first, as given */
	CHECK_EQ_U64(sample_location(p, s, 1)->address, 0x20);

	/* Reversed, a prefix, and a repeated frame are other stacks. */
	CHECK(add_stack(p, ba, 2, 5, 50) != s);
	CHECK(add_stack(p, a, 1, 6, 60) != s);
	CHECK(add_stack(p, aab, 3, 7, 70) != s);
	CHECK_EQ_INT(p->nsample, 4);
	CHECK_EQ_INT(sample_value(find_sample(p, ba, 2))[0], 5);
	CHECK_EQ_INT(sample_value(find_sample(p, a, 1))[1], 60);
	CHECK_EQ_INT(sample_value(find_sample(p, aab, 3))[0], 7);
	CHECK_EQ_INT(sample_value(s)[0], 3);

	/* The location array is copied. */
	loc[0] = profile_location(p, 0x30);
	loc[1] = profile_location(p, 0x40);
	t = profile_add_sample(p, loc, 2, v);
	loc[0] = loc[1];
	CHECK_EQ_U64(sample_location(p, t, 0)->address, 0x30);
	CHECK_EQ_INT(p->nsample, 5);
	profile_free(p);
}

/* Stacks of every depth to 9, each frame changed in turn: all different samples. */
TEST(stacks_differing_in_one_frame)
{
	struct profile *p = new_profile(TWO_TYPES);
	uint64_t st[9];
	size_t n, k, j, want = 0;

	for (n = 1; n <= 9; n++) {
		for (j = 0; j < n; j++)
			st[j] = 0x100 + 16 * j;
		add_stack(p, st, n, 1, 1);
		want++;
		for (k = 0; k < n; k++) {
			st[k] = 0x900 + 16 * k;
			add_stack(p, st, n, 1, 1);
			st[k] = 0x100 + 16 * k;
			want++;
		}
	}
	CHECK_EQ_INT(p->nsample, want);
	/* And once more: every one found, none added. */
	for (n = 1; n <= 9; n++) {
		for (j = 0; j < n; j++)
			st[j] = 0x100 + 16 * j;
		for (k = 0; k < n; k++) {
			st[k] = 0x900 + 16 * k;
			add_stack(p, st, n, 1, 1);
			st[k] = 0x100 + 16 * k;
		}
	}
	CHECK_EQ_INT(p->nsample, want);
	for (k = 0, j = 0; k < p->nsample; k++)
		j += sample_value(p->sample[k])[0] == 1;
	CHECK_EQ_INT(j, 9);   /* the unchanged stacks, added once */
	profile_free(p);
}

TEST(many_samples)
{
	struct profile *p = new_profile(TWO_TYPES);
	uint64_t st[3];
	int i, ok = 0;

	for (i = 0; i < 4000; i++) {
		st[0] = 0x1000 + (uint64_t)i % 50;
		st[1] = 0x2000 + (uint64_t)i / 50;
		st[2] = 0x3000;
		add_stack(p, st, 3, 1, 100);
	}
	CHECK_EQ_INT(p->nsample, 4000);
	for (i = 0; i < 4000; i++) {
		st[0] = 0x1000 + (uint64_t)i % 50;
		st[1] = 0x2000 + (uint64_t)i / 50;
		st[2] = 0x3000;
		add_stack(p, st, 3, 2, 200);
	}
	CHECK_EQ_INT(p->nsample, 4000);
	for (i = 0; i < 4000; i++)
		if (sample_value(p->sample[i])[0] == 3 && sample_value(p->sample[i])[1] == 300)
			ok++;
	CHECK_EQ_INT(ok, 4000);
	profile_free(p);
}

/*
 * Samples fill blocks that double in size, and one too big for a block
 * (here a stack of 600,000 frames, with labels) gets memory of its own:
 * the index by stack finds each of them, as it was and again after it was
 * dropped and made from the samples (the blocks' and the big one's in
 * their order).
 */
TEST(samples_in_blocks_and_alone)
{
	enum { DEEP = 100, BIG = 600000 };
	struct profile *p = new_profile(TWO_TYPES);
	struct location **deep = calloc(BIG, sizeof(*deep)), *stack[DEEP];
	struct label lab[2];
	int64_t v[2] = { 1, 10 };
	struct sample *big = NULL;
	int round, i, j, ok = 0;

	if (!CHECK(deep != NULL)) {
		profile_free(p);
		return;
	}
	lab[0] = (struct label){ profile_intern(p, "a"), profile_intern(p, "x"), 0,
				 profile_intern(p, "") };
	lab[1] = (struct label){ profile_intern(p, "b"), profile_intern(p, ""), 7,
				 profile_intern(p, "bytes") };
	for (i = 0; i < BIG; i++)
		deep[i] = profile_location(p, 0x9000 + (uint64_t)i % 3);
	for (round = 0; round < 3; round++) {
		if (round == 2)
			profile_drop_indexes(p);
		for (i = 0; i < 6000; i++) {
			/* Half the stacks before the big sample, half after it. */
			if (i == 3000)
				big = profile_add_sample_labels(p, deep, BIG, v, lab, 2);
			for (j = 0; j < DEEP; j++)
				stack[j] = profile_location(p, 0x1000 + (uint64_t)(i + j) % 7000);
			profile_add_sample(p, stack, DEEP, v);
		}
		CHECK_EQ_INT(p->nsample, 6001);
	}
	for (i = 0; i < 6001; i++)
		ok += sample_value(p->sample[i])[0] == 3 && sample_value(p->sample[i])[1] == 30;
	CHECK_EQ_INT(ok, 6001);
	CHECK(p->sample[3000] == big && big->nlocation == BIG && big->nlabel == 2);
	CHECK(sample_labels(big)[1].num == 7 && sample_stack(big)[BIG - 1] == deep[BIG - 1]->id - 1);
	free(deep);
	profile_free(p);
}

/*
 * The stack builder (callers' addresses repeated for its cache) makes the
 * same samples, in the same order, as adding each stack directly; merging
 * the result (queued: no lines, no labels) doubles every value.  With
 * indexed, every fifth record comes as location indexes
 * (stack_builder_add_indexes), so that the queue's batches are no longer
 * whole builder batches.  Returns the number of mismatches.
 */
static size_t builder_mismatches(size_t records, uint64_t expect, int new_leaves, int indexed)
{
	struct profile *built = new_profile(TWO_TYPES), *direct = new_profile(TWO_TYPES);
	struct stack_builder *sb = stack_builder_begin(built);
	uint64_t st[12], seed = 12345;
	size_t i, j, bad = 0;

	if (expect)
		stack_builder_expect(sb, expect);
	for (i = 0; i < records; i++) {
		size_t n;
		int64_t v[2];

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (size_t)(seed >> 60) % 12;   /* 0 to 11 frames: empty stacks too */
		for (j = 0; j < n; j++)
			st[j] = j ? 0x2000 + 16 * ((seed >> (4 * j)) % 7)
				  : new_leaves ? 0x100000 + i / 3 : 0x1000 + (seed >> 40) % 300;
		v[0] = 1;
		v[1] = (int64_t)(i % 13);
		if (indexed && i % 5 == 2) {
			uint32_t ids[12];

			for (j = 0; j < n; j++)
				ids[j] = profile_location_index(built, st[j]);
			stack_builder_add_indexes(sb, ids, n, v);
		} else {
			stack_builder_add(sb, st, n, v);
		}
		add_stack(direct, st, n, v[0], v[1]);
	}
	stack_builder_end(sb);
	bad += built->nsample != direct->nsample || !locations_owned(built);
	for (i = 0; i < direct->nsample && i < built->nsample; i++) {
		const struct sample *d = direct->sample[i];
		const struct sample *b;

		for (j = 0; j < d->nlocation; j++)
			st[j] = sample_location(direct, d, j)->address;
		b = find_sample(built, st, d->nlocation);
		bad += !b || b != built->sample[i] || sample_value(b)[0] != sample_value(d)[0] ||
		       sample_value(b)[1] != sample_value(d)[1];
	}
	profile_merge(built, direct, 1);
	bad += built->nsample != direct->nsample;
	for (i = 0; i < direct->nsample; i++) {
		const struct sample *d = direct->sample[i];
		const struct sample *b;

		for (j = 0; j < d->nlocation; j++)
			st[j] = sample_location(direct, d, j)->address;
		b = find_sample(built, st, d->nlocation);
		bad += !b || sample_value(b)[0] != 2 * sample_value(d)[0] || sample_value(b)[1] != 2 * sample_value(d)[1];
	}
	profile_free(built);
	profile_free(direct);
	return bad;
}

/*
 * Record counts around the queue's sizes (queue.c: 512 records a batch, a
 * waiting thread woken 4 batches on, 32 in flight): none queued, part of
 * one batch (no thread), fewer full batches than wake the thread, exactly
 * that many, and enough to go round the slots several times; each with
 * addresses alone, and with some records as indexes.
 */
TEST(builder_matches_direct)
{
	static const size_t records[] = { 0, 100, 512, 1500, 2048, 2100, 20000, 70000 };
	size_t i;

	for (i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
		size_t bad = builder_mismatches(records[i], 0, 0, 0) +
			     builder_mismatches(records[i], 0, 0, 1);

		if (bad)
			fprintf(stderr, "  %zu records: %zu mismatches\n", records[i], bad);
		CHECK_EQ_INT(bad, 0);
	}
}

/*
 * Told how many records come, the builder sizes its indexes once past
 * 2 * ESTIMATE_AT records: the samples are the same, whether the estimate
 * is right, far too high (capped) or too low, and whether new leaves keep
 * coming (the index by address is sized too) or not.
 */
TEST(builder_sized_ahead_matches_direct)
{
	static const uint64_t expect[] = { 70000, 1000000, UINT64_MAX, 1 };
	size_t i, bad;

	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		bad = builder_mismatches(70000, expect[i], 0, 0) + builder_mismatches(70000, expect[i], 1, 0);
		if (bad)
			fprintf(stderr, "  %llu expected: %zu mismatches\n",
				(unsigned long long)expect[i], bad);
		CHECK_EQ_INT(bad, 0);
	}
}

/* The estimate: the growth between two counts continued as a power, at most linear and 16-fold. */
TEST(growth_estimate_of_counts)
{
	size_t size;

	/* Nothing to say: total not past the second count's records, or nothing new. */
	CHECK_EQ_INT(growth_estimate(100, 1000, 200, 2000, 2000), 0);
	CHECK_EQ_INT(growth_estimate(100, 1000, 100, 2000, 100000), 0);
	CHECK_EQ_INT(growth_estimate(0, 1000, 100, 2000, 100000), 0);
	/* Linear: every record new. */
	CHECK_EQ_INT(growth_estimate(1000, 1000, 2000, 2000, 8000), 8000);
	/* A square root: four times the records, twice the things (to rounding). */
	size = growth_estimate(100, 1000, 200, 4000, 64000);
	CHECK(size >= 799 && size <= 800);
	/* Faster than linear is taken as linear. */
	CHECK_EQ_INT(growth_estimate(1000, 1000, 3000, 2000, 4000), 6000);
	/* At most 16 times the second count. */
	CHECK_EQ_INT(growth_estimate(1000, 1000, 2000, 2000, 1000000), 32000);
	CHECK_EQ_INT(growth_estimate(1000, 1000, 2000, 2000, UINT64_MAX), 32000);
}

TEST(merge_sums_per_stack)
{
	struct profile *dst = new_profile(TWO_TYPES), *src = new_profile(TWO_TYPES);
	static const uint64_t A[] = { 0x1010, 0x2000 }, B[] = { 0x1020, 0x2000 },
			      C[] = { 0x1030, 0x2000, 0x3000 };

	add_stack(dst, A, 2, 5, 50);
	add_stack(dst, B, 2, 3, 30);
	add_stack(src, C, 3, 7, 70);     /* src's locations are created in another order */
	add_stack(src, A, 2, 2, 20);
	profile_merge(dst, src, 1);
	CHECK_EQ_INT(dst->nsample, 3);
	if (CHECK(find_sample(dst, A, 2) != NULL)) {
		CHECK_EQ_INT(sample_value(find_sample(dst, A, 2))[0], 7);
		CHECK_EQ_INT(sample_value(find_sample(dst, A, 2))[1], 70);
	}
	if (CHECK(find_sample(dst, B, 2) != NULL))
		CHECK_EQ_INT(sample_value(find_sample(dst, B, 2))[0], 3);
	if (CHECK(find_sample(dst, C, 3) != NULL)) {
		CHECK_EQ_INT(sample_value(find_sample(dst, C, 3))[0], 7);
		CHECK_EQ_INT(sample_value(find_sample(dst, C, 3))[1], 70);
	}
	CHECK(locations_owned(dst));
	CHECK_EQ_INT(dst->nlocation, 5);
	/* src is left as it was. */
	CHECK_EQ_INT(src->nsample, 2);
	CHECK_EQ_INT(sample_value(find_sample(src, A, 2))[0], 2);

	/* Merging again sums again; scale -1 takes it back out. */
	profile_merge(dst, src, 1);
	CHECK_EQ_INT(sample_value(find_sample(dst, A, 2))[0], 9);
	profile_merge(dst, src, -1);
	profile_merge(dst, src, -1);
	CHECK_EQ_INT(sample_value(find_sample(dst, A, 2))[0], 5);
	CHECK_EQ_INT(sample_value(find_sample(dst, A, 2))[1], 50);
	CHECK_EQ_INT(sample_value(find_sample(dst, C, 3))[0], 0);
	CHECK_EQ_INT(sample_value(find_sample(dst, B, 2))[0], 3);
	profile_free(src);
	profile_free(dst);
}

/*
 * profile_merge_labeled: each sample of src comes with one more label after
 * its own, in dst's strings; stacks of dst without it stay apart.
 */
TEST(merge_labeled)
{
	struct profile *dst = new_profile(TWO_TYPES), *src = new_profile(TWO_TYPES);
	static const uint64_t A[] = { 0x1010, 0x2000 };
	struct location *loc[2];
	struct label l = { 0 };
	int64_t v[2] = { 2, 20 };
	size_t i;
	int seen = 0;

	add_stack(dst, A, 2, 5, 50);
	loc[0] = profile_location(src, A[0]);
	loc[1] = profile_location(src, A[1]);
	l.key = profile_intern(src, "k");
	l.str = profile_intern(src, "v");
	l.num_unit = profile_intern(src, "");
	profile_add_sample_labels(src, loc, 2, v, &l, 1);
	v[0] = 3;
	v[1] = 30;
	profile_add_sample(src, loc, 2, v);
	profile_merge_labeled(dst, src, -1, "pprof::base", "true");
	CHECK_EQ_INT(dst->nsample, 3);
	for (i = 0; i < dst->nsample; i++) {
		const struct sample *s = dst->sample[i];
		const struct label *sl = sample_labels(s);

		CHECK_EQ_INT(s->nlocation, 2);
		if (s->nlabel == 0) {
			CHECK(sl == NULL);
			CHECK_EQ_INT(sample_value(s)[0], 5);
			seen |= 1;
		} else if (s->nlabel == 1) {
			CHECK(sl[0].key == profile_intern(dst, "pprof::base"));
			CHECK(sl[0].str == profile_intern(dst, "true"));
			CHECK_EQ_INT(sample_value(s)[0], -3);
			CHECK_EQ_INT(sample_value(s)[1], -30);
			seen |= 2;
		} else if (CHECK_EQ_INT(s->nlabel, 2)) {
			CHECK(sl[0].key == profile_intern(dst, "k"));
			CHECK(sl[0].str == profile_intern(dst, "v"));
			CHECK(sl[1].key == profile_intern(dst, "pprof::base"));
			CHECK_EQ_INT(sample_value(s)[0], -2);
			CHECK_EQ_INT(sample_stack(s)[0], sample_stack(dst->sample[0])[0]);
			seen |= 4;
		}
	}
	CHECK_EQ_INT(seen, 7);
	/* src keeps its own. */
	CHECK_EQ_INT(src->sample[0]->nlabel, 1);
	CHECK_EQ_INT(src->sample[1]->nlabel, 0);
	CHECK_STR(sample_labels(src->sample[0])[0].str, "v");
	profile_free(src);
	profile_free(dst);
}

TEST(merge_mappings)
{
	struct profile *dst = new_profile(TWO_TYPES), *src = new_profile(TWO_TYPES);
	static const uint64_t both[] = { 0x1100 }, only_src[] = { 0x5100 };
	struct mapping *dm;
	const struct sample *s;
	char file[] = "/lib/src.so";

	dm = profile_add_mapping(dst, 0x1000, 0x2000, 0, "/bin/dst", "");
	profile_add_mapping(src, 0x1000, 0x2000, 0, "/bin/src", "");
	profile_add_mapping(src, 0x5000, 0x6000, 0x200, file, "id1");
	add_stack(dst, both, 1, 1, 1);
	add_stack(src, both, 1, 1, 1);
	add_stack(src, only_src, 1, 1, 1);
	profile_merge(dst, src, 1);
	file[1] = 'X';
	s = find_sample(dst, both, 1);
	if (CHECK(s != NULL))
		CHECK(sample_location(dst, s, 0)->mapping == dm);      /* dst's own mapping wins */
	CHECK(profile_find_mapping(dst, 0x1100) == dm);
	s = find_sample(dst, only_src, 1);
	if (CHECK(s != NULL) && CHECK(sample_location(dst, s, 0)->mapping != NULL)) {
		const struct mapping *m = sample_location(dst, s, 0)->mapping;

		CHECK_STR(m->file, "/lib/src.so");
		CHECK(m->file == profile_intern(dst, "/lib/src.so"));   /* dst's string */
		CHECK(m->build_id == profile_intern(dst, "id1"));
		CHECK_EQ_U64(m->start, 0x5000);
		CHECK_EQ_U64(m->limit, 0x6000);
		CHECK_EQ_U64(m->offset, 0x200);
	}
	profile_free(src);
	/* Nothing of dst points into the freed src. */
	CHECK_STR(sample_location(dst, find_sample(dst, only_src, 1), 0)->mapping->file, "/lib/src.so");
	profile_free(dst);
}

TEST(merge_mapping_gaps)
{
	struct profile *dst = new_profile(TWO_TYPES), *src = new_profile(TWO_TYPES);
	static const uint64_t in_dst[] = { 0x1100 }, past_dst[] = { 0x2500 },
			      unmapped[] = { 0x7100 };
	struct mapping *dm;
	const struct sample *s;

	/* src's mapping starts where dst's does but reaches further. */
	dm = profile_add_mapping(dst, 0x1000, 0x2000, 0, "/bin/a", "");
	profile_add_mapping(src, 0x1000, 0x3000, 0, "/bin/b", "");
	profile_add_mapping(src, 0x7000, 0x8000, 0, "/lib/c.so", "");
	add_stack(dst, in_dst, 1, 1, 1);
	add_stack(dst, unmapped, 1, 1, 1);     /* dst has no mapping for 0x7100 */
	add_stack(src, past_dst, 1, 1, 1);
	add_stack(src, unmapped, 1, 1, 1);
	profile_merge(dst, src, 1);

	s = find_sample(dst, in_dst, 1);
	CHECK(s && sample_location(dst, s, 0)->mapping == dm);
	/* dst has no mapping for 0x2500: src's is used. */
	s = find_sample(dst, past_dst, 1);
	if (CHECK(s != NULL) && CHECK(sample_location(dst, s, 0)->mapping != NULL))
		CHECK_STR(sample_location(dst, s, 0)->mapping->file, "/bin/b");
	/* A location's mapping is NULL only when no mapping covers it. */
	s = find_sample(dst, unmapped, 1);
	if (CHECK(s != NULL) && CHECK(sample_location(dst, s, 0)->mapping != NULL))
		CHECK_STR(sample_location(dst, s, 0)->mapping->file, "/lib/c.so");
	if (CHECK(s != NULL))
		CHECK_EQ_INT(sample_value(s)[0], 2);
	profile_free(src);
	profile_free(dst);
}

/* p: A=5, B=1, D=4; base: A=2, B=3, C=4, D=4. */
static void subtract_inputs(struct profile **p, struct profile **base)
{
	static const uint64_t A[] = { 0x10, 0x99 }, B[] = { 0x20, 0x99 }, C[] = { 0x30, 0x99 },
			      D[] = { 0x40 };

	*p = new_profile(TWO_TYPES);
	*base = new_profile(TWO_TYPES);
	add_stack(*p, A, 2, 5, 500);
	add_stack(*p, B, 2, 1, 100);
	add_stack(*p, D, 1, 4, 400);
	add_stack(*base, C, 2, 4, 400);
	add_stack(*base, B, 2, 3, 300);
	add_stack(*base, A, 2, 2, 200);
	add_stack(*base, D, 1, 4, 400);
}

TEST(subtract_keeps_negative)
{
	struct profile *p, *base;
	static const uint64_t A[] = { 0x10, 0x99 }, B[] = { 0x20, 0x99 }, C[] = { 0x30, 0x99 },
			      D[] = { 0x40 };
	const struct sample *s;

	subtract_inputs(&p, &base);
	profile_subtract(p, base, 0);
	if (CHECK((s = find_sample(p, A, 2)) != NULL)) {
		CHECK_EQ_INT(sample_value(s)[0], 3);
		CHECK_EQ_INT(sample_value(s)[1], 300);
	}
	if (CHECK((s = find_sample(p, B, 2)) != NULL)) {
		CHECK_EQ_INT(sample_value(s)[0], -2);
		CHECK_EQ_INT(sample_value(s)[1], -200);
	}
	/* Only in base: enters negated. */
	if (CHECK((s = find_sample(p, C, 2)) != NULL)) {
		CHECK_EQ_INT(sample_value(s)[0], -4);
		CHECK_EQ_INT(sample_value(s)[1], -400);
	}
	if (CHECK((s = find_sample(p, D, 1)) != NULL))
		CHECK_EQ_INT(sample_value(s)[0], 0);
	CHECK_EQ_INT(p->nsample, 4);
	CHECK(locations_owned(p));
	CHECK_EQ_INT(base->nsample, 4);
	CHECK_EQ_INT(sample_value(find_sample(base, A, 2))[0], 2);
	profile_free(base);
	profile_free(p);
}

TEST(subtract_drop_negative)
{
	struct profile *p, *base;
	static const uint64_t A[] = { 0x10, 0x99 }, B[] = { 0x20, 0x99 }, C[] = { 0x30, 0x99 },
			      D[] = { 0x40 };
	const struct sample *s;

	subtract_inputs(&p, &base);
	profile_subtract(p, base, 1);
	if (CHECK((s = find_sample(p, A, 2)) != NULL)) {
		CHECK_EQ_INT(sample_value(s)[0], 3);
		CHECK_EQ_INT(sample_value(s)[1], 300);
	}
	/* Negative results become 0. */
	if (CHECK((s = find_sample(p, B, 2)) != NULL)) {
		CHECK_EQ_INT(sample_value(s)[0], 0);
		CHECK_EQ_INT(sample_value(s)[1], 0);
	}
	if (CHECK((s = find_sample(p, D, 1)) != NULL))
		CHECK_EQ_INT(sample_value(s)[0], 0);
	/* Stacks only in base are not added. */
	CHECK(find_sample(p, C, 2) == NULL);
	CHECK_EQ_INT(p->nsample, 3);
	profile_free(base);
	profile_free(p);
}

TEST(clone_by_merge_into_empty)
{
	struct profile *p = new_profile(TWO_TYPES), *q = new_profile(TWO_TYPES);
	static const uint64_t A[] = { 0xffffffffffff0010ULL, 0x7f0000001234ULL };

	add_stack(p, A, 2, 1, 2);
	profile_merge(q, p, 1);
	CHECK_EQ_INT(q->nsample, 1);
	if (CHECK(find_sample(q, A, 2) != NULL))
		CHECK_EQ_INT(sample_value(find_sample(q, A, 2))[1], 2);
	profile_free(p);
	profile_free(q);
}

int main(void)
{
	RUN(interning);
	RUN(sample_types_and_comments);
	RUN(mappings);
	RUN(locations);
	RUN(locations_after_a_build);
	RUN(functions_and_lines);
	RUN(samples_merge_by_stack);
	RUN(stacks_differing_in_one_frame);
	RUN(many_samples);
	RUN(samples_in_blocks_and_alone);
	RUN(builder_matches_direct);
	RUN(builder_sized_ahead_matches_direct);
	RUN(growth_estimate_of_counts);
	RUN(merge_sums_per_stack);
	RUN(merge_labeled);
	RUN(merge_mappings);
	RUN(merge_mapping_gaps);
	RUN(subtract_keeps_negative);
	RUN(subtract_drop_negative);
	RUN(clone_by_merge_into_empty);
	return test_done();
}
