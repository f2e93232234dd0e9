/* test_views.c - unit tests for Go pprof's filters in the report engine (hide, show, show_from, prune_from, tags, noinlines). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "profile.h"
#include "profiles.h"
#include "report.h"
#include "views.h"

enum { MAIN = 0x100, A = 0x200, B = 0x300, INL = 0x400, LIB = 0x900 };

/* A sample of stack addr (leaf first) with value v and one string and one numeric label. */
static void labelled(struct profile *p, const uint64_t *addr, size_t n, int64_t v,
		     const char *worker, int64_t bytes)
{
	struct location *loc[8];
	struct label l[2] = {
		{ profile_intern(p, "worker"), profile_intern(p, worker), 0, profile_intern(p, "") },
		{ profile_intern(p, "bytes"), profile_intern(p, ""), bytes, profile_intern(p, "bytes") },
	};
	size_t i;

	for (i = 0; i < n; i++)
		loc[i] = profile_location(p, addr[i]);
	profile_add_sample_labels(p, loc, n, &v, l, 2);
}

/*
 * Stacks, leaf first: a main (10, worker x, 1kB); b a main (5, y, 64kB);
 * inl-in-b main (3, x, 2MB); lib-code b main (2, y, 512B).
 */
static struct profile *sample_profile(void)
{
	static const uint64_t am[] = { A, MAIN }, bam[] = { B, A, MAIN }, im[] = { INL, MAIN },
			      lbm[] = { LIB, B, MAIN };
	struct profile *p = new_profile("samples", "count", NULL);
	struct mapping *m;

	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, A, "a", 10, NULL);
	named_location(p, B, "b", 10, NULL);
	named_location(p, INL, "inl", 5, "b", 11, NULL);
	m = profile_add_mapping(p, 0x800, 0xa00, 0, "/lib/libz.so", "");
	profile_location(p, LIB)->mapping = m;
	labelled(p, am, 2, 10, "x", 1024);
	labelled(p, bam, 3, 5, "y", 65536);
	labelled(p, im, 2, 3, "x", 2 << 20);
	labelled(p, lbm, 3, 2, "y", 512);
	return p;
}

static const struct entry *find(const struct report *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nentry; i++)
		if (!strcmp(r->entry[i].key, key) && (r->entry[i].flat || r->entry[i].cum))
			return &r->entry[i];
	return NULL;
}

/* The flat and cumulative value of key after building with o; -1, -1 when absent. */
static void values(const struct profile *p, const struct report_options *o, const char *key,
		   int64_t *flat, int64_t *cum)
{
	struct report_options ro = *o;
	struct report r;
	struct err e;
	const struct entry *en;

	ro.quiet = 1;
	*flat = *cum = -1;
	if (report_build(p, &ro, &r, &e) < 0)
		return;
	if ((en = find(&r, key))) {
		*flat = en->flat;
		*cum = en->cum;
	}
	report_release(&r);
}

#define CHECK_VALUES(o, key, f, c)                                   \
	do {                                                         \
		int64_t fl_, cu_;                                    \
		values(p, (o), (key), &fl_, &cu_);                   \
		CHECK_EQ_INT(fl_, (f));                              \
		CHECK_EQ_INT(cu_, (c));                              \
	} while (0)

TEST(hide_and_show)
{
	struct profile *p = sample_profile();
	struct report_options o = { 0 };

	/* Hiding a: b a main becomes b main. */
	o.hide = "^a$";
	CHECK_VALUES(&o, "a", -1, -1);
	CHECK_VALUES(&o, "b", 5, 10);
	CHECK_VALUES(&o, "main", 10, 20);
	/* Hiding the inlined level leaves b in its place, no longer inline. */
	o.hide = "inl";
	CHECK_VALUES(&o, "b", 8, 10);
	CHECK_VALUES(&o, "b (inline)", -1, -1);
	/* The library's mapping matches: its code goes, b becomes the leaf. */
	o.hide = "libz";
	CHECK_VALUES(&o, "b", 7, 10);
	/* show keeps matching frames only; an unnamed frame goes. */
	o.hide = NULL;
	o.show = "^[ab]$";
	CHECK_VALUES(&o, "main", -1, -1);
	CHECK_VALUES(&o, "a", 10, 15);
	CHECK_VALUES(&o, "b", 10, 10);
	profile_free(p);
}

TEST(show_from_and_prune_from)
{
	struct profile *p = sample_profile();
	struct report_options o = { 0 };

	/* Callers of a go, and stacks without a go. */
	o.show_from = "^a$";
	CHECK_VALUES(&o, "main", -1, -1);
	CHECK_VALUES(&o, "a", 10, 15);
	CHECK_VALUES(&o, "b", 5, 5);
	/* Callees of b go: b a main and the library stack end at b. */
	o.show_from = NULL;
	o.prune_from = "^b$";
	CHECK_VALUES(&o, "b", 10, 10);
	CHECK_VALUES(&o, "a", 10, 15);
	/* The inlined inl is inside b's location, innermost first: it goes too. */
	CHECK_VALUES(&o, "inl (inline)", -1, -1);
	profile_free(p);
}

TEST(noinlines)
{
	struct profile *p = sample_profile();
	struct report_options o = { 0 };

	CHECK_VALUES(&o, "inl (inline)", 3, 3);
	o.noinlines = 1;
	CHECK_VALUES(&o, "inl (inline)", -1, -1);
	CHECK_VALUES(&o, "b", 8, 10);
	profile_free(p);
}

TEST(tag_filters)
{
	struct profile *p = sample_profile();
	struct report_options o = { 0 };

	o.tagfocus = "worker=x";
	CHECK_VALUES(&o, "main", 0, 13);
	/* Without a key, each regex matches some "key:value" label. */
	o.tagfocus = "worker:y";
	CHECK_VALUES(&o, "main", 0, 7);
	o.tagfocus = "worker:y,bytes";
	CHECK_VALUES(&o, "main", -1, -1);
	/* Numeric ranges, in the range's unit. */
	o.tagfocus = "bytes=1kb:64kb";
	CHECK_VALUES(&o, "main", 0, 15);
	o.tagfocus = "2mb";
	CHECK_VALUES(&o, "main", 0, 3);
	o.tagfocus = ":1023b";
	CHECK_VALUES(&o, "main", 0, 2);
	o.tagfocus = NULL;
	o.tagignore = "worker=x|y";
	CHECK_VALUES(&o, "main", -1, -1);
	o.tagignore = "bytes=64kb:";
	CHECK_VALUES(&o, "main", 0, 12);
	profile_free(p);
}

TEST(diff_base_total)
{
	struct profile *p = sample_profile();
	struct label l = { profile_intern(p, "pprof::base"), profile_intern(p, "true"), 0,
			   profile_intern(p, "") };
	struct location *loc = profile_location(p, A);
	struct report_options o = { 0 };
	struct report r;
	struct err e;
	int64_t v = -4;

	profile_add_sample_labels(p, &loc, 1, &v, &l, 1);
	o.quiet = 1;
	if (CHECK(report_build(p, &o, &r, &e) == 0)) {
		/* The base's total, |-4|, is the total and the base of percentages. */
		CHECK(r.diff);
		CHECK_EQ_INT(r.go_total, 4);
		CHECK_EQ_INT(r.local_total, 4);
		CHECK_EQ_INT(find(&r, "a")->flat, 6);
		report_release(&r);
	}
	profile_free(p);
}

/* Whether two reports have the same totals and entries (keys, values, kept rows), in order. */
static int same_entries(const struct report *a, const struct report *b)
{
	size_t i;
	int same = a->nentry == b->nentry && a->total == b->total &&
		   a->local_total == b->local_total && a->focus_total == b->focus_total &&
		   a->kept_total == b->kept_total && a->go_total == b->go_total &&
		   a->diff == b->diff;

	for (i = 0; same && i < a->nentry; i++)
		same = !strcmp(a->entry[i].key, b->entry[i].key) &&
		       a->entry[i].flat == b->entry[i].flat && a->entry[i].cum == b->entry[i].cum &&
		       a->entry[i].kept == b->entry[i].kept;
	return same;
}

/* Whether report_build gives the same report for o with and without cache. */
static int same_with_cache(const struct profile *p, const struct report_options *o,
			   struct report_cache *cache)
{
	struct report_options with = *o, without = *o;
	struct report a, b;
	struct err e;
	size_t i;
	int same;

	with.quiet = without.quiet = 1;
	with.cache = cache;
	without.cache = NULL;
	if (!CHECK(report_build(p, &without, &a, &e) == 0))
		return 0;
	if (!CHECK(report_build(p, &with, &b, &e) == 0)) {
		report_release(&a);
		return 0;
	}
	same = same_entries(&a, &b) && a.nstack == b.nstack;
	/* Merged stacks have chains and no entries. */
	for (i = 0; same && i < a.nstack; i++)
		same = a.stack[i].n == b.stack[i].n && a.stack[i].count == b.stack[i].count &&
		       a.stack[i].nchain == b.stack[i].nchain &&
		       (!a.stack[i].n ||
			!memcmp(a.stack[i].entry, b.stack[i].entry, a.stack[i].n * sizeof(uint32_t))) &&
		       !memcmp(a.stack[i].chain, b.stack[i].chain, a.stack[i].nchain * sizeof(uint32_t));
	report_release(&a);
	report_release(&b);
	return same;
}

/*
 * The prompt's cache: reports made one after another with it, settings
 * changing between them (the values counted too), equal those made
 * without; a report of another profile ignores it.
 */
TEST(report_cache)
{
	static const uint64_t am[] = { A, MAIN }, bam[] = { B, A, MAIN }, im[] = { INL, MAIN },
			      tm[] = { 0x500, MAIN };
	struct profile *p = new_profile("samples", "count", "cpu", "nanoseconds", NULL);
	struct profile *other = sample_profile();
	struct report_cache *c;
	struct report_options o = { 0 };
	int64_t big = INT64_MAX - 1;
	atomic_int stop = 1;
	struct report r;
	struct err e;

	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, A, "a", 10, NULL);
	named_location(p, B, "b", 10, NULL);
	named_location(p, INL, "inl", 5, "b", 11, NULL);
	add_stack(p, am, 2, 3, 30);
	add_stack(p, bam, 3, 1, 70);
	add_stack(p, im, 2, 2, 5);
	named_location(p, 0x500, "ns::put<int>(int)", 3, NULL);
	add_stack(p, tm, 2, 4, 40);
	c = report_cache_new(p);
	/* A report interrupted (Ctrl-C at the prompt) leaves the cache to the next. */
	o.interrupt = &stop;
	o.cache = c;
	o.quiet = 1;
	CHECK(report_build(p, &o, &r, &e) < 0);
	o.interrupt = NULL;
	o.cache = NULL;
	CHECK(same_with_cache(p, &o, c));
	o.focus = "^b$";
	CHECK(same_with_cache(p, &o, c));
	/* An address, then names again, through the cache's match table. */
	o.focus = "^0+200$";
	CHECK(same_with_cache(p, &o, c));
	o.focus = "^b$";
	CHECK(same_with_cache(p, &o, c));
	o.sample_index = 1;
	CHECK(same_with_cache(p, &o, c));
	o.focus = NULL;
	o.ignore = "inl";
	CHECK(same_with_cache(p, &o, c));
	o.granularity = GRAN_LINES;
	o.keep_stacks = 1;
	CHECK(same_with_cache(p, &o, c));
	o.sample_index = 0;
	o.hide = "^a$";
	CHECK(same_with_cache(p, &o, c));
	o.hide = NULL;
	o.granularity = GRAN_ADDRESSES;
	CHECK(same_with_cache(p, &o, c));
	/* Entries made before, kept by the cache: lines, then functions with addresses. */
	o.granularity = GRAN_LINES;
	o.focus = "a";
	CHECK(same_with_cache(p, &o, c));
	o.granularity = GRAN_FUNCTIONS;
	o.show_addresses = 1;
	CHECK(same_with_cache(p, &o, c));
	o.show_addresses = 0;
	o.keep_stacks = 0;
	CHECK(same_with_cache(p, &o, c));
	/* Names made again, and again as before. */
	o.keep_templates = 1;
	CHECK(same_with_cache(p, &o, c));
	o.keep_templates = 0;
	CHECK(same_with_cache(p, &o, c));
	/* Reports without filters, made again from the values kept: of each value, and by address. */
	memset(&o, 0, sizeof(o));
	CHECK(same_with_cache(p, &o, c));
	CHECK(same_with_cache(p, &o, c));
	o.sample_index = 1;
	CHECK(same_with_cache(p, &o, c));
	o.sample_index = 0;
	CHECK(same_with_cache(p, &o, c));
	o.granularity = GRAN_PCS;
	CHECK(same_with_cache(p, &o, c));
	CHECK(same_with_cache(p, &o, c));
	o.focus = "^b$";
	CHECK(same_with_cache(p, &o, c));
	o.focus = NULL;
	CHECK(same_with_cache(p, &o, c));
	/* Another profile, then p again with values that saturate (no split). */
	CHECK(same_with_cache(other, &o, c));
	add_stack(p, am, 2, big, 1);
	add_stack(p, bam, 3, big, 1);
	report_cache_free(c);
	c = report_cache_new(p);
	o.granularity = GRAN_FUNCTIONS;
	CHECK(same_with_cache(p, &o, c));
	CHECK(same_with_cache(p, &o, c));
	report_cache_free(c);
	profile_free(other);
	profile_free(p);
}

/*
 * The prompt's first report by function without filters merges its stacks
 * for the cache (the graphs' tree, peek, dot): it equals the report made
 * without the cache (no stacks shown, the same values and kept rows), and
 * so does a graph's report after it, which takes the cache's stacks.
 */
TEST(first_report_keeps_graph_stacks)
{
	struct profile *p = sample_profile();
	struct report_cache *c = report_cache_new(p);
	struct report_options o = { 0 };

	CHECK(same_with_cache(p, &o, c));
	o.keep_stacks = o.merge_stacks = 1;
	CHECK(same_with_cache(p, &o, c));
	CHECK(same_with_cache(p, &o, c));
	o.focus = "^b$";
	CHECK(same_with_cache(p, &o, c));
	o.focus = NULL;
	o.granularity = GRAN_LINES;
	CHECK(same_with_cache(p, &o, c));
	report_cache_free(c);
	profile_free(p);
}

/* Whether r's stacks are those of p's samples with an entry named key (any if NULL), in order. */
static int stacks_in_order(const struct profile *p, const struct report *r, const char *key)
{
	size_t i, k = 0;
	uint32_t j;

	for (i = 0; i < p->nsample; i++) {
		const struct rstack *rs = k < r->nstack ? &r->stack[k] : NULL;
		int has = !key;

		for (j = 0; key && rs && rs->sample == p->sample[i] && j < rs->n; j++)
			has |= !strcmp(r->entry[rs->entry[j]].key, key);
		if (!rs || rs->sample != p->sample[i]) {
			/* A sample without a stack: one focus dropped. */
			if (!key)
				return 0;
			continue;
		}
		if (!has || rs->count != sample_value(p->sample[i])[0] || rs->nchain != rs->n ||
		    strcmp(r->entry[rs->entry[rs->n - 1]].key, "main"))
			return 0;
		k++;
	}
	return k == r->nstack;
}

/*
 * Stacks kept for graphs, from a profile big enough that two threads
 * reduce it: one per sample, in sample order, each with its count and its
 * entries; those focus keeps, in order; and the same with the prompt's
 * cache.
 */
TEST(kept_stacks_in_sample_order)
{
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_cache *c;
	struct report_options o = { 0 };
	uint64_t st[3] = { 0, A, MAIN }, sm[2] = { 0, MAIN };
	struct report r;
	struct err e;
	size_t i;

	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, A, "a", 10, NULL);
	/* Every third stack up to the 60,000th has no a: 20,001 of them. */
	for (i = 0; i < 70000; i++) {
		st[0] = sm[0] = 0x100000 + i;
		if (i % 3 || i > 60000)
			add_stack(p, st, 3, (int64_t)(i % 7) + 1);
		else
			add_stack(p, sm, 2, (int64_t)(i % 7) + 1);
	}
	o.quiet = 1;
	o.keep_stacks = 1;
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	CHECK_EQ_INT(r.nstack, 70000);
	CHECK(stacks_in_order(p, &r, NULL));
	report_release(&r);
	o.focus = "^a$";
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		return;
	CHECK_EQ_INT(r.nstack, 70000 - 20001);
	CHECK(stacks_in_order(p, &r, "a"));
	report_release(&r);
	o.focus = NULL;
	c = report_cache_new(p);
	o.cache = c;
	CHECK(same_with_cache(p, &o, c));
	report_cache_free(c);
	profile_free(p);
}

/* Whether two graphs of one report have the same nodes, sums and edges, in the same order. */
static int same_graph(const struct vgraph *a, const struct vgraph *b)
{
	size_t i;

	if (a->nnode != b->nnode || a->nedge != b->nedge)
		return 0;
	for (i = 0; i < a->nnode; i++)
		if (a->node[i] != b->node[i])
			return 0;
	for (i = 0; i < a->r->nentry; i++)
		if (a->flat[i] != b->flat[i] || a->cum[i] != b->cum[i])
			return 0;
	for (i = 0; i < a->nedge; i++)
		if (a->edge[i].src != b->edge[i].src || a->edge[i].dst != b->edge[i].dst ||
		    a->edge[i].w != b->edge[i].w || a->edge[i].inl != b->edge[i].inl)
			return 0;
	return 1;
}

/*
 * Whether part's edges are those of whole with an end at a node want has,
 * in whole's order, with its weights; and its nodes are whole's.
 */
static int edges_at(const struct vgraph *whole, const struct vgraph *part, const uint8_t *want)
{
	size_t i, n = 0;

	if (whole->nnode != part->nnode)
		return 0;
	for (i = 0; i < whole->r->nentry; i++)
		if (whole->flat[i] != part->flat[i] || whole->cum[i] != part->cum[i])
			return 0;
	for (i = 0; i < whole->nedge; i++) {
		const struct vedge *w = &whole->edge[i], *p = &part->edge[n];

		if (!want[w->src] && !want[w->dst])
			continue;
		if (n == part->nedge || p->src != w->src || p->dst != w->dst || p->w != w->w ||
		    p->inl != w->inl)
			return 0;
		n++;
	}
	return n == part->nedge;
}

/* Whether two kept stacks have the same chain, and counts of the same sign. */
static int same_chain(const struct rstack *a, const struct rstack *b)
{
	return a->nchain == b->nchain && (a->count > 0) == (b->count > 0) &&
	       (a->count < 0) == (b->count < 0) &&
	       !memcmp(a->chain, b->chain, a->nchain * sizeof(*a->chain));
}

/*
 * Whether m's stacks are r's merged: one per chain and sign of count, in
 * the order r first has them, with the sample of that first one and the
 * sum of their counts, and no entries (their chains are what graphs read).
 */
static int merged_from(const struct report *r, const struct report *m)
{
	int64_t *sum = calloc(m->nstack + 1, sizeof(*sum));
	size_t i, k, met = 0;
	int ok = 1;

	for (i = 0; ok && i < r->nstack; i++) {
		const struct rstack *s = &r->stack[i];

		for (k = 0; k < met && !same_chain(s, &m->stack[k]); k++)
			;
		if (k == met) {
			ok = met < m->nstack && same_chain(s, &m->stack[k]) && s->n > 0 &&
			     m->stack[k].n == 0 && !m->stack[k].entry &&
			     s->sample == m->stack[k].sample;
			met++;
		}
		sum[k] += s->count;
	}
	ok = ok && met == m->nstack;
	for (k = 0; ok && k < m->nstack; k++)
		ok = sum[k] == m->stack[k].count;
	free(sum);
	return ok;
}

/*
 * Stacks kept merged (merge_stacks) from a profile big enough that two
 * threads reduce it, of 70,000 samples but a few hundred chains, counts
 * of every sign (0 among them): one per chain and sign, in the order first
 * met, their counts summed; Go's graph of them equals the graph of the
 * stacks one per sample, all of it and with entries left out.  Kept by
 * the prompt's cache, they come back the same; a focused report does not
 * take them.  Counts whose sum could saturate stay one per sample.
 */
TEST(merged_stacks)
{
	static const char *const fn[] = { "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7" };
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_cache *c;
	struct report_options o = { 0 };
	struct vgraph one, merged;
	struct report r, m;
	uint8_t *kept, *want;
	struct err e;
	size_t i;

	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, INL, "inl", 5, "f3", 11, NULL);
	for (i = 0; i < 8; i++)
		named_location(p, A + 0x10 * i, fn[i], 20 + (int)i, NULL);
	for (i = 0; i < 70000; i++) {
		uint64_t st[3] = { 0x100000 + i, i % 13 == 0 ? INL : A + 0x10 * ((i * 3) % 8), MAIN };

		named_location(p, st[0], fn[(i / 7) % 8], 40 + (int)(i % 100), NULL);
		add_stack(p, st, 3, (int64_t)(i % 5) - 1);
	}
	o.quiet = 1;
	o.keep_stacks = 1;
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		goto out;
	o.merge_stacks = 1;
	if (!CHECK(report_build(p, &o, &m, &e) == 0))
		goto out_r;
	CHECK_EQ_INT(r.nstack, 70000);
	CHECK(m.nstack > 64 && m.nstack < 1000);
	CHECK(merged_from(&r, &m));
	/* The entries' values and marks, summed from the merged stacks, are the same. */
	CHECK_EQ_INT(r.nentry, m.nentry);
	for (i = 0; i < r.nentry && i < m.nentry; i++)
		if (!CHECK(r.entry[i].flat == m.entry[i].flat && r.entry[i].cum == m.entry[i].cum &&
			   r.entry[i].kept == m.entry[i].kept))
			break;
	CHECK(r.local_total == m.local_total);
	vgraph_build(&one, &r, &o, NULL, 1);
	vgraph_build(&merged, &m, &o, NULL, 1);
	CHECK(one.nedge > 20);
	CHECK(same_graph(&one, &merged));
	vgraph_release(&merged);
	/* Nodes first and edges after: the same graph; edges at some nodes: the whole's there. */
	vgraph_build(&merged, &m, &o, NULL, 0);
	CHECK_EQ_INT(merged.nedge, 0);
	CHECK_EQ_INT(merged.nnode, one.nnode);
	vgraph_add_edges(&merged, NULL);
	CHECK(same_graph(&one, &merged));
	vgraph_release(&merged);
	want = calloc(m.nentry + 1, 1);
	for (i = 0; i < m.nentry; i++)
		want[i] = !strcmp(m.entry[i].key, "f3") || !strcmp(m.entry[i].key, "inl");
	vgraph_build(&merged, &m, &o, NULL, 0);
	vgraph_add_edges(&merged, want);
	CHECK(merged.nedge > 2 && merged.nedge < one.nedge);
	CHECK(edges_at(&one, &merged, want));
	free(want);
	vgraph_release(&one);
	vgraph_release(&merged);
	kept = calloc(r.nentry + 1, 1);
	for (i = 0; i < r.nentry; i++)
		kept[i] = strcmp(r.entry[i].key, "f2") != 0 && (i % 3) != 0;
	vgraph_build(&one, &r, &o, kept, 1);
	vgraph_build(&merged, &m, &o, kept, 1);
	CHECK(same_graph(&one, &merged));
	vgraph_release(&merged);
	/* Built whole without edges, then again on the entries kept: the same. */
	vgraph_build(&merged, &m, &o, NULL, 0);
	CHECK(merged.nnode > one.nnode);
	vgraph_keep(&merged, kept);
	CHECK(same_graph(&one, &merged));
	vgraph_release(&one);
	vgraph_release(&merged);
	free(kept);
	report_release(&m);

	/* The cache: filled by the first report, taken by the second. */
	c = report_cache_new(p);
	o.cache = c;
	CHECK(same_with_cache(p, &o, c));
	CHECK(same_with_cache(p, &o, c));
	o.focus = "f3";
	CHECK(same_with_cache(p, &o, c));
	o.focus = NULL;
	o.cache = NULL;
	report_release(&r);
	report_cache_free(c);
	profile_free(p);

	/* |counts| summing past INT64_MAX: not merged. */
	p = new_profile("samples", "count", NULL);
	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, A, "f0", 20, NULL);
	named_location(p, A + 1, "f0", 21, NULL);
	{
		uint64_t s1[2] = { A, MAIN }, s2[2] = { A + 1, MAIN };

		add_stack(p, s1, 2, INT64_MAX / 2 + 1);
		add_stack(p, s2, 2, INT64_MAX / 2 + 1);
	}
	if (CHECK(report_build(p, &o, &m, &e) == 0)) {
		CHECK_EQ_INT(m.nstack, 2);
		report_release(&m);
	}
	profile_free(p);
	return;
out_r:
	report_release(&r);
out:
	profile_free(p);
}

/*
 * A graph without edges takes its nodes' values from the report's entries,
 * unless entries share a node: f called and f inlined are one node "f",
 * whose cum counts a stack with both once.  Both ways equal the walk of
 * the stacks (a graph built with its edges).
 */
TEST(graph_values)
{
	static const uint64_t am[] = { A, MAIN }, im[] = { INL, MAIN }, iam[] = { INL, A, MAIN },
			      bm[] = { B, MAIN };
	struct report_options o = { 0 };
	struct profile *p;
	struct vgraph walked, taken;
	struct report r;
	struct err e;
	int shared;

	for (shared = 0; shared < 2; shared++) {
		p = new_profile("samples", "count", NULL);
		named_location(p, MAIN, "main", 10, NULL);
		named_location(p, A, "f", 20, NULL);
		named_location(p, B, "b", 30, NULL);
		/* Inlined into g: f itself when shared, else another function. */
		named_location(p, INL, shared ? "f" : "h", 5, "g", 11, NULL);
		add_stack(p, am, 2, 3);
		add_stack(p, im, 2, 2);
		add_stack(p, iam, 3, 7);
		add_stack(p, bm, 2, -4);
		o.quiet = 1;
		o.keep_stacks = 1;
		o.merge_stacks = 1;
		if (CHECK(report_build(p, &o, &r, &e) == 0)) {
			vgraph_build(&walked, &r, &o, NULL, 1);
			vgraph_build(&taken, &r, &o, NULL, 0);
			CHECK_EQ_INT(taken.shared_names, shared);
			CHECK_EQ_INT(taken.nnode, walked.nnode);
			CHECK(taken.nnode == 5 - (size_t)shared);
			vgraph_add_edges(&taken, NULL);
			CHECK(same_graph(&walked, &taken));
			vgraph_release(&walked);
			vgraph_release(&taken);
			report_release(&r);
		}
		profile_free(p);
	}
}

/* The entry of address addr in a report by address, or NULL. */
static const struct entry *by_address(const struct report *r, uint64_t addr)
{
	size_t i;

	for (i = 0; i < r->nentry; i++)
		if (r->entry[i].address == addr)
			return &r->entry[i];
	return NULL;
}

/*
 * A report by address for the listings' ranges only (pcs_only): each
 * address in them has the values it has in the report of every address;
 * entry 0 sums the others' flat values, and takes each stack with any of
 * them once; no other address has an entry, and a stack of kernel frames
 * (which have none) counts nowhere.  The prompt's cache neither
 * gives it entries nor takes them from it: a whole report after it is
 * the same.
 */
TEST(pcs_only)
{
	static const uint64_t range[2][2] = { { B, B + 0x10 }, { 0x500, 0x600 } };
	static const uint64_t am[] = { A, MAIN }, bam[] = { B, A, MAIN }, b2m[] = { B + 8, MAIN },
			      tm[] = { 0x580, B + 4, MAIN }, m[] = { MAIN },
			      kernel[] = { 0xffffffff81000000ULL };
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_cache *c;
	struct report_options o = { 0 };
	struct report all, only;
	struct err e;
	int64_t other_flat = 0;
	size_t i, n = 0;

	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, A, "a", 10, NULL);
	named_location(p, B, "b", 10, NULL);
	named_location(p, B + 4, "b", 11, NULL);
	named_location(p, B + 8, "b", 12, NULL);
	named_location(p, 0x580, "t", 3, NULL);
	add_stack(p, am, 2, 3);
	add_stack(p, bam, 3, 5);
	add_stack(p, b2m, 2, 7);
	add_stack(p, tm, 3, 11);
	add_stack(p, m, 1, 13);
	profile_location(p, kernel[0]);
	add_stack(p, kernel, 1, 17);
	c = report_cache_new(p);
	o.quiet = 1;
	o.granularity = GRAN_PCS;
	if (!CHECK(report_build(p, &o, &all, &e) == 0))
		goto out;
	o.cache = c;
	o.pcs_only = 1;
	o.pcs_range = range;
	o.npcs_range = 2;
	if (!CHECK(report_build(p, &o, &only, &e) == 0))
		goto out_all;
	CHECK_EQ_INT(only.entry[0].address, UINT64_MAX);
	for (i = 1; i < only.nentry; i++) {
		const struct entry *x = &only.entry[i], *y = by_address(&all, x->address);

		n++;
		CHECK((x->address >= B && x->address < B + 0x10) ||
		      (x->address >= 0x500 && x->address < 0x600));
		CHECK(y && x->flat == y->flat && x->cum == y->cum);
	}
	CHECK_EQ_INT(n, 4);
	for (i = 0; i < all.nentry; i++)
		if (!(all.entry[i].address >= B && all.entry[i].address < B + 0x10) &&
		    !(all.entry[i].address >= 0x500 && all.entry[i].address < 0x600))
			other_flat += all.entry[i].flat;
	CHECK_EQ_INT(only.entry[0].flat, other_flat);
	/* Stacks through main, a or both: all five. */
	CHECK_EQ_INT(only.entry[0].cum, 3 + 5 + 7 + 11 + 13);
	CHECK_EQ_INT(only.local_total, all.local_total);
	report_release(&only);
	o.pcs_only = 0;
	o.pcs_range = NULL;
	o.npcs_range = 0;
	CHECK(same_with_cache(p, &o, c));
	CHECK(same_with_cache(p, &o, c));
out_all:
	report_release(&all);
out:
	report_cache_free(c);
	profile_free(p);
}

/*
 * Entries ranked in two halves on two threads and merged come in the order
 * ranking them all on one gives: 70,000 functions whose names share their
 * first 16 bytes (strcmp settles their ties), of seven values, flat and
 * cum; largest first, then by name.
 */
TEST(sorted_in_two_halves)
{
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o = { 0 };
	const struct entry **one, **two;
	size_t i, saved = report_sorted_share_min, bad = 0;
	struct report r;
	struct err e;
	int cum;

	named_location(p, MAIN, "main", 10, NULL);
	for (i = 0; i < 70000; i++) {
		uint64_t st[2] = { 0x100000 + i, MAIN };
		char name[64];

		snprintf(name, sizeof(name), "a_common_prefix_of_names_%05zu", (i * 7919) % 70000);
		named_location(p, st[0], name, 20, NULL);
		add_stack(p, st, 2, (int64_t)(i % 7) + 1);
	}
	o.quiet = 1;
	if (!CHECK(report_build(p, &o, &r, &e) == 0))
		goto out;
	CHECK(r.nentry > 70000);
	for (cum = 0; cum < 2; cum++) {
		report_sorted_share_min = SIZE_MAX;
		one = report_sorted(&r, cum);
		report_sorted_share_min = 1;
		two = report_sorted(&r, cum);
		for (i = 0; i < r.nentry; i++)
			bad += one[i] != two[i];
		for (i = 1; i < r.nentry; i++) {
			int64_t a = cum ? two[i - 1]->cum : two[i - 1]->flat;
			int64_t b = cum ? two[i]->cum : two[i]->flat;

			bad += a < b || (a == b && strcmp(two[i - 1]->key, two[i]->key) >= 0);
		}
		free(one);
		free(two);
	}
	CHECK_EQ_INT(bad, 0);
	report_sorted_share_min = saved;
	report_release(&r);
out:
	profile_free(p);
}

/*
 * The text rows' percentages are printf's "%.1f%%" of the same doubles,
 * for totals large and small and values at and beside the ties of a
 * twentieth of a percent (0.05% of 2000 is one sample), negative ones too.
 */
TEST(row_percentages_as_printf)
{
	static const int64_t totals[] = { 1, 3, 7, 2000, 20000, 999983, 1590076,
					  1000000000039LL, INT64_MAX / 1000 };
	struct report_options o = { 0 };
	size_t t, i, bad = 0, rows = 0;
	uint64_t seed = 12345;

	for (t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
		enum { N = 3000 };
		struct report r;
		char name[N][16], *text = NULL, *line, *save;
		size_t len = 0;
		int64_t total = totals[t], sum = 0;
		FILE *out;

		memset(&r, 0, sizeof(r));
		r.style.divisor = 1;
		r.local_total = r.total = total;
		r.entry = xcalloc(N, sizeof(*r.entry));
		r.nentry = N;
		for (i = 0; i < N; i++) {
			struct entry *e = &r.entry[i];

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			snprintf(name[i], sizeof(name[i]), "e%zu", i);
			e->key = name[i];
			/* The first ones count up from 0; the rest anywhere up to the total. */
			e->flat = i < N / 2 ? (int64_t)i : (int64_t)((seed >> 11) % (uint64_t)total);
			e->cum = i % 3 == 0 ? e->flat : (int64_t)((seed >> 7) % (uint64_t)total) + i % 2;
			if (i % 97 == 5)
				e->flat = -e->flat;
		}
		out = open_memstream(&text, &len);
		report_text_rows(out, &r, &o, 0);
		fclose(out);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char flat_p[48], sum_p[48], cum_p[48], want[48], who[16];
			long long flat, cum;
			size_t k;

			if (sscanf(line, "%lld %47s %47s %lld %47s %15s", &flat, flat_p, sum_p, &cum,
				   cum_p, who) != 6 || who[0] != 'e') {
				bad++;
				continue;
			}
			k = (size_t)strtoul(who + 1, NULL, 10);
			sum += flat;
			rows++;
			snprintf(want, sizeof(want), "%.1f%%",
				 (double)r.entry[k].flat * 100.0 / (double)total);
			bad += strcmp(flat_p, want) != 0;
			snprintf(want, sizeof(want), "%.1f%%",
				 (double)sum * 100.0 / (double)total);
			bad += strcmp(sum_p, want) != 0;
			snprintf(want, sizeof(want), "%.1f%%",
				 (double)r.entry[k].cum * 100.0 / (double)total);
			bad += strcmp(cum_p, want) != 0;
		}
		free(text);
		free(r.entry);
	}
	CHECK(rows > 20000);
	CHECK_EQ_INT(bad, 0);
}

/*
 * Keys by address composed on two threads (chunks of locations taken in
 * turn, big or a few locations each) make the entries one thread makes,
 * in the same order, with the same values: locations with inline chains
 * (some with two levels of one key), untried addresses, symbolized ones
 * without lines, removed frames among them; those focus keeps, too; and
 * with two locations at one address, whose keys can be equal.
 */
TEST(address_keys_on_two_threads)
{
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o = { 0 };
	struct frame_rules fr = { 0 };
	static const char *const drop[] = { "drop_me", NULL };
	size_t saved = report_key_share_min, chunk = report_key_chunk, i, pass;

	named_location(p, MAIN, "main", 10, NULL);
	for (i = 0; i < 1000; i++) {
		uint64_t st[3] = { 0x100000 + i * 4, 0x200000 + (i % 50) * 4, MAIN };

		switch (i % 4) {
		case 0:
			if (i % 8)
				named_location(p, st[0], "leaf", 5 + (int)(i % 9), "mid", 20, NULL);
			else
				named_location(p, st[0], "rec", 7, "rec", 7, "rec", 7, "mid", 20, NULL);
			break;
		case 1: named_location(p, st[0], "drop_me", 3, NULL); break;
		case 2: profile_location(p, st[0])->tried = 1; break;
		default: break; /* untried */
		}
		named_location(p, st[1], i % 2 ? "caller" : "other", 30 + (int)(i % 50), NULL);
		add_stack(p, st, 3, (int64_t)(i % 5) + 1);
	}
	fr.names = drop;
	o.frames = &fr;
	o.quiet = 1;
	o.granularity = GRAN_ADDRESSES;
	for (pass = 0; pass < 3; pass++) {
		struct report one, two;
		struct err e;

		o.focus = pass == 1 ? "leaf" : NULL;
		if (pass == 2) {
			/* A second place at 0x100008 (as symbolized input can say), the same key or not. */
			struct line ln = { profile_function(p, "other", "other", "t.c", 1,
							    NO_SYMBOL_ADDRESS), 30 };
			struct location *st[2] = { profile_add_location(p, NULL, 0x100008), NULL };
			int64_t v = 3;

			st[0]->tried = 1;
			st[1] = profile_add_location(p, NULL, 0x100008);
			profile_set_lines(p, st[1], &ln, 1);
			profile_add_sample(p, st, 2, &v);
			CHECK(p->shared_addresses);
		} else {
			/* Each address its location's alone: no key is looked up (keep_own_key). */
			CHECK(!p->shared_addresses);
		}
		report_key_share_min = SIZE_MAX;
		if (!CHECK(report_build(p, &o, &one, &e) == 0))
			break;
		report_key_share_min = 1;
		/* Chunks of a few locations: both threads compose and wait for each other. */
		report_key_chunk = pass == 1 ? 7 : 300;
		if (!CHECK(report_build(p, &o, &two, &e) == 0)) {
			report_release(&one);
			break;
		}
		CHECK(one.nentry > 1000 && same_entries(&one, &two));
		report_release(&one);
		report_release(&two);
	}
	report_key_share_min = saved;
	report_key_chunk = chunk;
	profile_free(p);
}

/* A location at addr: function name at each line of lines, innermost first. */
static void location_at_lines(struct profile *p, uint64_t addr, const char *const *name,
			      const int64_t *lines, size_t n)
{
	struct line ln[4];
	size_t i;

	for (i = 0; i < n && i < 4; i++) {
		ln[i].function = profile_function(p, name[i], name[i], "t.c", 1, NO_SYMBOL_ADDRESS);
		ln[i].line = lines[i];
	}
	profile_set_lines(p, profile_location(p, addr), ln, i);
}

/*
 * By line, each (function, line) pair is numbered once: a function's
 * lines close together by their span, those far apart (to the ends of
 * int64) by hash, plain and inlined apart; on one thread or two, with the
 * cache or without, every pair has its own entry.
 */
TEST(lines_numbered_by_span_and_by_hash)
{
	static const int64_t far[] = { 1, 1000000, -7, INT64_MAX, INT64_MIN, 1000000 };
	static const struct {
		const char *key;
		int64_t cum;
	} want[] = {
		{ "d t.c:100", 2 }, { "d t.c:101", 1 }, { "d t.c:138", 1 }, { "d t.c:139", 2 },
		{ "inl (inline) t.c:5", 1 }, { "inl t.c:5", 1 }, { "s t.c:1", 1 },
		{ "s t.c:1000000", 2 }, { "s t.c:-7", 1 }, { "s t.c:9223372036854775807", 1 },
		{ "s t.c:-9223372036854775808", 1 }, { "s (inline) t.c:1000000", 1 },
		{ "main t.c:10", 49 },
	};
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o = { 0 };
	size_t saved = report_key_share_min, i, k, pass;
	const char *ds[] = { "d" }, *s[] = { "s" };
	const char *inl_d[] = { "inl", "d" }, *s_d[] = { "s", "d" };
	uint64_t st[2] = { 0, MAIN };

	named_location(p, MAIN, "main", 10, NULL);
	for (k = 0; k < 40; k++) {
		int64_t line = 100 + (int64_t)k;

		location_at_lines(p, st[0] = 0x1000 + k * 4, ds, &line, 1);
		add_stack(p, st, 2, 1);
	}
	location_at_lines(p, st[0] = 0x2000, inl_d, (const int64_t[]){ 5, 100 }, 2);
	add_stack(p, st, 2, 1);
	named_location(p, st[0] = 0x2004, "inl", 5, NULL);
	add_stack(p, st, 2, 1);
	for (k = 0; k < 6; k++) {
		location_at_lines(p, st[0] = 0x3000 + k * 4, s, &far[k], 1);
		add_stack(p, st, 2, 1);
	}
	location_at_lines(p, st[0] = 0x4000, s_d, (const int64_t[]){ 1000000, 139 }, 2);
	add_stack(p, st, 2, 1);
	o.granularity = GRAN_LINES;
	o.quiet = 1;
	for (pass = 0; pass < 4; pass++) {
		struct report_cache *c = pass / 2 ? report_cache_new(p) : NULL;
		struct report r;
		struct err e;

		report_key_share_min = pass % 2 ? 1 : SIZE_MAX;
		o.cache = c;
		for (k = 0; k < (c ? 2u : 1u); k++) {
			if (!CHECK(report_build(p, &o, &r, &e) == 0))
				break;
			CHECK_EQ_INT(r.nentry, 49);
			for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
				const struct entry *en = find(&r, want[i].key);

				if (!CHECK(en != NULL))
					fprintf(stderr, "  no entry %s\n", want[i].key);
				else
					CHECK_EQ_INT(en->cum, want[i].cum);
			}
			report_release(&r);
		}
		/* Focus on a file:line matches it once for every location with it. */
		o.focus = "^t.c:1000000$";
		if (CHECK(report_build(p, &o, &r, &e) == 0)) {
			CHECK_EQ_INT(find(&r, "main t.c:10")->cum, 3);
			report_release(&r);
		}
		o.focus = NULL;
		o.cache = NULL;
		report_cache_free(c);
	}
	report_key_share_min = saved;
	profile_free(p);
}

/*
 * What every report reads of each location (outermost functions, whether
 * tried, frames removed) and the totals, each half's on a thread, make
 * the report one thread makes: by function, line (its keys composed on
 * two threads too), file and file and function (the last three read the
 * lines of each half's (function, line) pairs on a thread), with and
 * without the prompt's cache, with a --diff_base part, and with values
 * whose sums saturate (added in order, on one thread, after all).
 */
TEST(locations_and_totals_on_two_threads)
{
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o = { 0 };
	struct frame_rules fr = { 0 };
	static const char *const drop[] = { "drop_me", NULL };
	size_t saved_keys = report_key_share_min, saved_split = report_split_min, i, pass;
	struct label base = { profile_intern(p, "pprof::base"), profile_intern(p, "true"), 0,
			      profile_intern(p, "") };

	named_location(p, MAIN, "main", 10, NULL);
	for (i = 0; i < 1000; i++) {
		uint64_t st[3] = { 0x100000 + i * 4, 0x200000 + (i % 50) * 4, MAIN };
		struct location *loc[3];
		int64_t v = (int64_t)(i % 7) - 2;
		size_t k;

		switch (i % 4) {
		case 0: named_location(p, st[0], "leaf", 5 + (int)(i % 9), "mid", 20, NULL); break;
		case 1: named_location(p, st[0], i % 8 == 1 ? "drop_me" : "kept", 3, NULL); break;
		case 2: profile_location(p, st[0])->tried = 1; break;
		default: break; /* untried */
		}
		named_location(p, st[1], i % 2 ? "caller" : "drop_me", 30 + (int)(i % 50), NULL);
		add_stack(p, st, 3, v);
		if (i % 10 == 3) {
			for (k = 0; k < 3; k++)
				loc[k] = profile_location(p, st[k]);
			profile_add_sample_labels(p, loc, 3, &v, &base, 1);
		}
	}
	fr.names = drop;
	o.frames = &fr;
	o.quiet = 1;
	for (pass = 0; pass < 16; pass++) {
		static const enum granularity g[] = { GRAN_FUNCTIONS, GRAN_LINES, GRAN_FILES,
						      GRAN_FILEFUNCTIONS };
		struct report_cache *c = pass / 4 % 2 ? report_cache_new(p) : NULL;
		struct report one, two, again;
		struct err e;
		int k;

		/* The last passes: a sample whose value makes the sums saturate. */
		if (pass == 12) {
			uint64_t st[2] = { 0x300000, MAIN };
			int64_t huge = INT64_MAX - 5;

			named_location(p, st[0], "huge", 1, NULL);
			add_stack(p, st, 2, huge);
		}
		o.granularity = g[pass % 4];
		o.focus = pass % 3 == 2 ? "leaf" : NULL;
		report_key_share_min = report_split_min = SIZE_MAX;
		if (!CHECK(report_build(p, &o, &one, &e) == 0))
			break;
		report_key_share_min = report_split_min = 1;
		o.cache = c;
		CHECK(report_build(p, &o, &two, &e) == 0);
		CHECK(report_build(p, &o, &again, &e) == 0);
		o.cache = NULL;
		/* The cache's outermost functions and tries, made on two threads, read back. */
		CHECK(one.nentry > 10 && same_entries(&one, &two) && same_entries(&one, &again));
		/* No entry of removed frames; the base's total; the huge value's unless focused. */
		for (i = 0, k = 0; i < one.nentry; i++) {
			CHECK(!strstr(one.entry[i].key, "drop_me"));
			if (!strncmp(one.entry[i].key, "huge", 4))
				k = one.entry[i].flat == INT64_MAX - 5;
		}
		CHECK(one.diff);
		CHECK_EQ_INT(k, pass >= 12 && !o.focus);
		report_release(&one);
		report_release(&two);
		report_release(&again);
		report_cache_free(c);
	}
	report_key_share_min = saved_keys;
	report_split_min = saved_split;
	profile_free(p);
}

/* The report's cum of the entry keyed key (0 when its stacks were dropped), or -1 when it has none. */
static int64_t cum_of(const struct report *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nentry; i++)
		if (!strcmp(r->entry[i].key, key))
			return r->entry[i].cum;
	return -1;
}

/*
 * A plain string as --focus matches a file name or an address as any
 * regex does (only what cannot hold it is skipped); one crossing into the
 * line, or made of digits, matches file:lines too.
 */
TEST(plain_focus_on_files_and_addresses)
{
	struct profile *p = new_profile("samples", "count", NULL);
	struct location *l = profile_location(p, 0x1a2b00);
	struct line ln = { profile_function(p, "leaf", "leaf", "src/abc_file.c", 1, NO_SYMBOL_ADDRESS), 42 };
	static const struct { const char *focus; int64_t leaf, other; } cases[] = {
		{ "abc_file", 3, 0 },   /* in the file's name */
		{ "le_42", 0, 0 },      /* in nothing */
		{ "1a2b", 3, 0 },       /* in the leaf's address */
		{ "c:42", 3, 0 },       /* across the file and its line */
		{ "42", 3, 0 },         /* in the line */
		{ "other", 0, 5 },      /* a function's name */
		{ "abc_fil.", 3, 0 },   /* a regex, in the file's name */
	};
	struct report_options o = { 0 };
	uint64_t a[2] = { 0x1a2b00, MAIN }, b[2] = { 0x300000, MAIN };
	size_t i;

	profile_set_lines(p, l, &ln, 1);
	named_location(p, MAIN, "main", 10, NULL);
	named_location(p, 0x300000, "other", 7, NULL);
	add_stack(p, a, 2, 3);
	add_stack(p, b, 2, 5);
	o.quiet = 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report r;
		struct err e;

		o.focus = cases[i].focus;
		if (!CHECK(report_build(p, &o, &r, &e) == 0))
			break;
		if (!CHECK(cum_of(&r, "leaf") == cases[i].leaf && cum_of(&r, "other") == cases[i].other))
			fprintf(stderr, "# --focus=%s: leaf %lld, other %lld\n", cases[i].focus,
				(long long)cum_of(&r, "leaf"), (long long)cum_of(&r, "other"));
		report_release(&r);
	}
	profile_free(p);
}

/* Whether two reports' kept stacks are the same, in the same order, with the same first samples. */
static int same_stacks(const struct report *one, const struct report *two)
{
	size_t i;

	if (one->nstack != two->nstack)
		return 0;
	for (i = 0; i < one->nstack; i++) {
		const struct rstack *a = &one->stack[i], *b = &two->stack[i];

		/* Merged stacks have chains and no entries. */
		if (a->count != b->count || a->n != b->n || a->nchain != b->nchain ||
		    a->sample != b->sample ||
		    (a->n && memcmp(a->entry, b->entry, a->n * sizeof(*a->entry))) ||
		    memcmp(a->chain, b->chain, a->nchain * sizeof(*a->chain)))
			return 0;
	}
	return 1;
}

/*
 * Sums reduced on two threads, the samples handed out in chunks, are those
 * of one thread: by function, line and address, with recursion, inline
 * levels, focus and ignore, and values of both signs; and so are merged
 * stacks (the graphs'), in the order of their first samples.
 */
TEST(sums_on_two_threads)
{
	static const char *const fn[] = { "main", "a", "b", "c", "d", "e" };
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o = { 0 };
	size_t saved = report_split_min, saved_chunk = report_chunk, i, pass;
	uint64_t st[8];
	int bad = 0;

	for (i = 0; i < 64; i++) {
		if (i % 8 == 7)
			named_location(p, 0x1000 + i * 16, fn[i % 6], 10 + (int)i, fn[(i + 1) % 6], 50, NULL);
		else
			named_location(p, 0x1000 + i * 16, fn[i % 6], 10 + (int)(i % 5), NULL);
	}
	for (i = 0; i < 20000; i++) {
		size_t n = 3 + i % 5, k;

		/* i's base-64 digits: every sample a stack of its own, many calling a function twice. */
		for (k = 0; k < n; k++)
			st[k] = 0x1000 + (k < 3 ? (i >> (6 * k)) & 63 : (i * 7 + k) % 64) * 16;
		add_stack(p, st, n, (int64_t)(i % 9) - 2);
	}
	CHECK(p->nsample > 16000);
	o.quiet = 1;
	/* Small chunks: both threads take some, whichever starts first. */
	report_chunk = 64;
	for (pass = 0; pass < 18; pass++) {
		struct report one, two;
		struct err e;

		o.granularity = pass % 3 == 0 ? GRAN_FUNCTIONS : pass % 3 == 1 ? GRAN_LINES : GRAN_ADDRESSES;
		o.focus = pass / 3 % 3 == 1 ? "^[ab]" : NULL;
		o.ignore = pass / 3 % 3 == 2 ? "^c" : NULL;
		o.keep_stacks = o.merge_stacks = pass >= 9;
		report_split_min = SIZE_MAX;
		if (!CHECK(report_build(p, &o, &one, &e) == 0))
			break;
		report_split_min = 1;
		if (!CHECK(report_build(p, &o, &two, &e) == 0)) {
			report_release(&one);
			break;
		}
		if (one.nentry != two.nentry || one.total != two.total ||
		    one.local_total != two.local_total || one.local_total == 0)
			bad++;
		for (i = 0; i < one.nentry && one.nentry == two.nentry; i++)
			if (strcmp(one.entry[i].key, two.entry[i].key) ||
			    one.entry[i].flat != two.entry[i].flat || one.entry[i].cum != two.entry[i].cum ||
			    one.entry[i].kept != two.entry[i].kept)
				bad++;
		if (o.merge_stacks && (!same_stacks(&one, &two) || one.nstack < 100))
			bad++;
		report_release(&one);
		report_release(&two);
	}
	CHECK_EQ_INT(bad, 0);
	report_split_min = saved;
	report_chunk = saved_chunk;
	profile_free(p);
}

/*
 * A frame whose function has no name ("??") but a file and line, as DWARF
 * lines without a symbol give: by function each address is its own entry
 * (pprof's hex address), by line each line; named frames still share one.
 */
TEST(unnamed_functions_by_address)
{
	static const uint64_t s1[] = { 0x1000, 0x3000 }, s2[] = { 0x2000, 0x3000 },
			      s3[] = { 0x2008, 0x3000 };
	struct profile *p = new_profile("samples", "count", NULL);
	struct report_options o = { 0 };
	struct location *l;
	struct line ln;

	ln.function = profile_function(p, "??", "", "t.c", 0, NO_SYMBOL_ADDRESS);
	ln.line = 3;
	l = profile_location(p, 0x1000);
	profile_set_lines(p, l, &ln, 1);
	ln.line = 4;
	l = profile_location(p, 0x2000);
	profile_set_lines(p, l, &ln, 1);
	l = profile_location(p, 0x2008);
	profile_set_lines(p, l, &ln, 1);
	named_location(p, 0x3000, "main", 10, NULL);
	add_stack(p, s1, 2, 1);
	add_stack(p, s2, 2, 2);
	add_stack(p, s3, 2, 4);

	o.granularity = GRAN_FUNCTIONS;
	CHECK_VALUES(&o, "??", -1, -1);
	CHECK_VALUES(&o, "0000000000001000", 1, 1);
	CHECK_VALUES(&o, "0000000000002000", 2, 2);
	CHECK_VALUES(&o, "0000000000002008", 4, 4);
	CHECK_VALUES(&o, "main", 0, 7);
	o.granularity = GRAN_LINES;
	CHECK_VALUES(&o, "?? t.c:3", 1, 1);
	CHECK_VALUES(&o, "?? t.c:4", 6, 6);
	CHECK_VALUES(&o, "main t.c:10", 0, 7);
	profile_free(p);
}

int main(void)
{
	RUN(hide_and_show);
	RUN(show_from_and_prune_from);
	RUN(noinlines);
	RUN(graph_values);
	RUN(tag_filters);
	RUN(diff_base_total);
	RUN(report_cache);
	RUN(first_report_keeps_graph_stacks);
	RUN(kept_stacks_in_sample_order);
	RUN(merged_stacks);
	RUN(pcs_only);
	RUN(sorted_in_two_halves);
	RUN(row_percentages_as_printf);
	RUN(address_keys_on_two_threads);
	RUN(locations_and_totals_on_two_threads);
	RUN(lines_numbered_by_span_and_by_hash);
	RUN(sums_on_two_threads);
	RUN(plain_focus_on_files_and_addresses);
	RUN(unnamed_functions_by_address);
	return test_done();
}
