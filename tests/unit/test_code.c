/* test_code.c - unit tests for listing sessions (include/code.h): symbolization's objects, --list's lines. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"
#include "harness.h"
#include "objects.h"
#include "profile.h"
#include "regex.h"
#include "strbuf.h"
#include "symbolize.h"

/* testdata/golden/prog: a static program; main, mid and leaf_a, as gperftools saw them. */
static char prog[4096];
static const uint64_t stack_pcs[] = { 0x4016c2, 0x401762, 0x401527 };

static struct profile *profile_of_prog(void)
{
	static const char *const types[] = { "samples", "count" };
	struct location *stack[3];
	struct profile *p = profile_new();
	int64_t v = 5;
	size_t i;

	profile_set_sample_types(p, 1, types);
	p->default_sample_type = p->sample_type[0].type;
	for (i = 0; i < 3; i++)
		stack[i] = profile_location(p, stack_pcs[i]);
	profile_add_sample(p, stack, 3, &v);
	return p;
}

/* One session's listing: every routine with samples, and its instructions. */
struct listing {
	struct routine *r;
	size_t nr;
	struct code_insn *ins[8];
	long nins[8];
};

static void list_all(struct code *c, struct listing *l)
{
	static const uint64_t addr[] = { 0x401527, 0x4016c2, 0x401762 };
	struct err e;
	struct regex *re = regex_compile(".", "test", &e);
	size_t i;

	memset(l, 0, sizeof(*l));
	l->nr = code_routines(c, re, addr, 3, &l->r);
	for (i = 0; i < l->nr && i < 8; i++)
		l->nins[i] = code_disassemble(c, &l->r[i], DECODE_ATT, &l->ins[i], &e);
	regex_free(re);
}

static void listing_free(struct listing *l)
{
	size_t i;

	for (i = 0; i < 8; i++)
		free(l->ins[i]);
	free(l->r);
}

/*
 * A listing over the objects symbolization kept reads nothing again and
 * shows what one over objects of its own does: the units symbolization
 * read had line rows for the profile's three addresses only, and every
 * other instruction's line comes from the unit read again whole.
 */
TEST(listing_uses_symbolization_objects)
{
	struct symbolize_options kept = { .program = prog }, own = { .program = prog };
	struct profile *p = profile_of_prog();
	struct listing a, b;
	struct code *ca, *cb;
	struct err e;
	size_t i, lines = 0;
	long k;

	kept.cache = symbolize_cache_new();
	if (!CHECK(symbolize_profile(p, &kept, &e) == 0) || !CHECK(p->location[1]->nline > 0))
		goto out;
	CHECK_EQ_INT(kept.cache->prof == p, 1);
	CHECK_EQ_INT(kept.cache->set.nobjs, 1);
	CHECK_STR(p->location[1]->line[p->location[1]->nline - 1].function->name, "mid");
	ca = code_open(p, &kept);
	cb = code_open(p, &own);
	list_all(ca, &a);
	list_all(cb, &b);
	CHECK_EQ_INT(kept.cache->set.nobjs, 1);
	CHECK_EQ_INT(a.nr, 3);
	if (CHECK_EQ_INT(a.nr, b.nr)) {
		for (i = 0; i < a.nr; i++) {
			CHECK_STR(a.r[i].short_name, b.r[i].short_name);
			if (!CHECK(a.nins[i] > 0 && a.nins[i] == b.nins[i]))
				continue;
			for (k = 0; k < a.nins[i]; k++) {
				const struct code_insn *x = &a.ins[i][k], *y = &b.ins[i][k];

				if (x->addr != y->addr || strcmp(x->text, y->text) ||
				    strcmp(x->top_file, y->top_file) || x->top_line != y->top_line ||
				    strcmp(x->file, y->file) || x->line != y->line) {
					CHECK(!"same instruction and lines");
					TEST_NOTE("    %#llx: %s:%d, %s:%d", (unsigned long long)x->addr,
						  x->top_file, x->top_line, y->top_file, y->top_line);
					break;
				}
				lines += x->top_line > 0;
			}
		}
	}
	/* Most instructions have a line of their own. */
	CHECK(lines > 20);
	listing_free(&a);
	listing_free(&b);
	code_close(ca);
	code_close(cb);
	/* The cache outlives its sessions. */
	CHECK_EQ_INT(kept.cache->set.nobjs, 1);
out:
	symbolize_cache_free(kept.cache);
	profile_free(p);
}

/* --list's instructions: code_disassemble's, their lines and ends, without text. */
TEST(lines_are_disassembly_without_text)
{
	struct symbolize_options o = { .program = prog };
	struct profile *p = profile_of_prog();
	struct listing a;
	struct code *c;
	struct err e;
	size_t i;
	long k, n;

	o.cache = symbolize_cache_new();
	CHECK(symbolize_profile(p, &o, &e) == 0);
	c = code_open(p, &o);
	list_all(c, &a);
	CHECK_EQ_INT(a.nr, 3);
	for (i = 0; i < a.nr && i < 8; i++) {
		struct code_insn *ins;

		n = code_lines(c, &a.r[i], &ins, &e);
		if (!CHECK_EQ_INT(n, a.nins[i]))
			continue;
		for (k = 0; k < n; k++) {
			const struct code_insn *x = &ins[k], *y = &a.ins[i][k];

			if (x->addr != y->addr || x->end != y->end || x->objaddr != y->objaddr ||
			    strcmp(x->top_file, y->top_file) || x->top_line != y->top_line ||
			    x->text[0] || x->file[0] || x->line != -1 || !y->text[0]) {
				CHECK(!"the instruction, its line, no text");
				TEST_NOTE("    %#llx: '%s' %s:%d", (unsigned long long)x->addr, x->text,
					  x->top_file, x->top_line);
				break;
			}
		}
		CHECK_EQ_INT(k, n);
		free(ins);
	}
	listing_free(&a);
	code_close(c);
	symbolize_cache_free(o.cache);
	profile_free(p);
}

/* A session for another profile reads the objects itself; the cache stays the first's. */
TEST(cache_belongs_to_one_profile)
{
	struct symbolize_options o = { .program = prog };
	struct profile *p = profile_of_prog(), *q = profile_of_prog();
	struct err e;

	o.cache = symbolize_cache_new();
	CHECK(symbolize_profile(p, &o, &e) == 0);
	CHECK(symbolize_profile(q, &o, &e) == 0);
	CHECK(o.cache->prof == p);
	CHECK_EQ_INT(o.cache->set.nobjs, 1);
	if (CHECK(q->location[1]->nline > 0))
		CHECK_STR(q->location[1]->line[q->location[1]->nline - 1].function->name, "mid");
	symbolize_cache_free(o.cache);
	profile_free(p);
	profile_free(q);
}

static int same_frames(const struct frame *a, int na, const struct frame *b, int nb)
{
	int i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].name != b[i].name || a[i].raw != b[i].raw || a[i].symaddr != b[i].symaddr ||
		    a[i].file != b[i].file || a[i].line != b[i].line)
			return 0;
	return 1;
}

/*
 * Looks up every address of [lo, hi) of path's object in ascending order,
 * as symbolization does: each gets the frames of the last address whose
 * name_frames said how many after it would get them, if it reaches this
 * one.  Returns the mismatches; *shared counts the addresses reached.
 */
static size_t check_same(const char *path, uint64_t lo, uint64_t hi, size_t *shared)
{
	struct symbolize_options o = { .program = path };
	struct profile *p = profile_of_prog();
	struct strbuf tmp = STRBUF_INIT;
	struct frame last[MAX_FRAMES], fr[MAX_FRAMES];
	struct symbolizer s;
	struct object *ob;
	uint64_t a, from = 0, same = 0;
	size_t bad = 0;
	int nlast = 0;

	symbolizer_init(&s, p, p, &o);
	ob = program_object(&s);
	if (!ob || !ob->ok) {
		bad = 1;
		goto out;
	}
	object_dwarf(&s, ob);
	for (a = lo; a < hi; a++) {
		uint64_t reach;
		int n = name_frames(&s, ob, a, &a, fr, &tmp, &reach);

		if (a - from < same) {
			++*shared;
			if (!same_frames(fr, n, last, nlast) && bad++ < 5)
				TEST_NOTE("    %s: %#llx names %s:%d, %#llx said %llu after it name %s:%d",
					  path, (unsigned long long)a, fr[0].name ? fr[0].name : "?",
					  fr[0].line, (unsigned long long)from,
					  (unsigned long long)same, last[0].name ? last[0].name : "?",
					  last[0].line);
			continue;
		}
		from = a;
		same = reach;
		memcpy(last, fr, (size_t)n * sizeof(*fr));
		nlast = n;
	}
out:
	sb_release(&tmp);
	symbolizer_release(&s);
	profile_free(p);
	return bad;
}

/* This program's .text: *size bytes from *addr (0 when not found). */
static void own_text(uint64_t *addr, uint64_t *size)
{
	struct symbolize_options o = { .program = "/proc/self/exe" };
	struct profile *p = profile_of_prog();
	struct symbolizer s;
	struct object *ob;
	Elf_Scn *scn = NULL;
	size_t names;

	*addr = *size = 0;
	symbolizer_init(&s, p, p, &o);
	ob = program_object(&s);
	if (ob && ob->elf && elf_getshdrstrndx(ob->elf, &names) == 0)
		while ((scn = elf_nextscn(ob->elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(ob->elf, names, sh.sh_name)) &&
			    !strcmp(name, ".text")) {
				*addr = sh.sh_addr;
				*size = sh.sh_size;
			}
		}
	symbolizer_release(&s);
	profile_free(p);
}

/*
 * The addresses symbolization skips get what a lookup would: every byte of
 * the program's own routines and of C library routines without debug
 * information, and a stretch of this test's own code, optimized, with
 * inlined functions.
 */
TEST(neighbours_share_frames)
{
	size_t shared = 0, before;
	uint64_t text, size;

	CHECK_EQ_INT(check_same(prog, 0x4014f0, 0x401900, &shared), 0);
	CHECK(shared > 200);
	CHECK_EQ_INT(check_same(prog, 0x409490, 0x409600, &shared), 0);
	own_text(&text, &size);
	if (CHECK(size > 0)) {
		before = shared;
		CHECK_EQ_INT(check_same("/proc/self/exe", text, text + (size < 65536 ? size : 65536),
					&shared), 0);
		CHECK(shared > before + 10000);
	}
}

/*
 * Symbolized in address order, locations whose neighbours name the same
 * frames are given the neighbour's array of lines, not a copy: locations
 * at every byte of the program's routines, made in descending order (so
 * that address order is not theirs), each get the frames a lookup of its
 * address alone gives, and many share an array.
 */
TEST(neighbours_share_line_arrays)
{
	const uint64_t lo = 0x4014f0, hi = 0x401900;
	struct symbolize_options o = { .program = prog };
	struct profile *p = profile_new(), *q = profile_of_prog();
	struct strbuf tmp = STRBUF_INIT;
	struct symbolizer s;
	struct object *ob;
	struct err e;
	size_t shared = 0, bad = 0, i;
	uint64_t a;

	for (a = hi; a-- > lo;)
		profile_location(p, a);
	if (!CHECK(symbolize_profile(p, &o, &e) == 0))
		goto out;
	for (i = 1; i < p->nlocation; i++)
		shared += p->location[i]->nline && p->location[i]->line == p->location[i - 1]->line;
	symbolizer_init(&s, q, q, &o);
	ob = program_object(&s);
	if (!CHECK(ob && ob->ok)) {
		symbolizer_release(&s);
		goto out;
	}
	object_dwarf(&s, ob);
	for (i = p->nlocation; i-- > 0;) {
		const struct location *l = p->location[i];
		struct frame fr[MAX_FRAMES];
		int n = name_frames(&s, ob, l->address, &l->address, fr, &tmp, NULL), j, same;

		same = l->nline ? (int)l->nline == n : n == 1 && !fr[0].name && !fr[0].file;
		for (j = 0; same && j < (int)l->nline; j++)
			same = !strcmp(l->line[j].function->name, fr[j].name ? fr[j].name : "??") &&
			       !strcmp(l->line[j].function->filename, fr[j].file ? fr[j].file : "") &&
			       l->line[j].line == fr[j].line;
		if (!same && bad++ < 5)
			TEST_NOTE("    %#llx: %u lines, a lookup names %d frames (%s)",
				  (unsigned long long)l->address, l->nline, n,
				  fr[0].name ? fr[0].name : "?");
	}
	symbolizer_release(&s);
	CHECK_EQ_INT(bad, 0);
	/* A few dozen lines over about a thousand bytes, a row every few bytes. */
	TEST_NOTE("    %zu of %zu locations share the array of the one before", shared,
		  p->nlocation);
	CHECK(shared > p->nlocation / 4);
out:
	sb_release(&tmp);
	profile_free(q);
	profile_free(p);
}

/*
 * Locations every few bytes of this program's code (made in descending
 * order), symbolized with split_min as given; returns how many objects
 * were split.
 */
static size_t symbolize_own(struct profile *p, uint64_t text, uint64_t size, size_t split_min)
{
	struct symbolize_options o = { .program = "/proc/self/exe" };
	struct symbolizer s;
	uint64_t a;
	size_t n;

	for (a = text + size; a >= text + 7; a -= 7)
		profile_location(p, a);
	symbolizer_init(&s, p, p, &o);
	s.split_min = split_min;
	symbolize_locations(&s, p);
	n = s.splits;
	symbolizer_release(&s);
	return n;
}

/*
 * An object's addresses looked up on two threads (split.c) get the lines
 * one thread gives them, of functions made in the same order.
 */
TEST(split_matches_one_thread)
{
	struct profile *one = profile_new(), *two = profile_new();
	uint64_t text, size;
	size_t i, j, bad = 0;

	own_text(&text, &size);
	if (!CHECK(size > 4096))
		goto out;
	if (size > (1u << 19))
		size = 1u << 19;
	CHECK_EQ_INT(symbolize_own(one, text, size, 0), 0);
	CHECK_EQ_INT(symbolize_own(two, text, size, 1), 1);
	CHECK(one->nlocation > 10000);
	CHECK(one->nfunction > 100);
	if (!CHECK_EQ_INT(two->nfunction, one->nfunction) ||
	    !CHECK_EQ_INT(two->nlocation, one->nlocation))
		goto out;
	for (i = 0; i < one->nfunction; i++) {
		const struct function *f = one->function[i], *g = two->function[i];

		if ((strcmp(f->name, g->name) || strcmp(f->system_name, g->system_name) ||
		     strcmp(f->filename, g->filename) || f->start_line != g->start_line ||
		     f->symbol_address != g->symbol_address) &&
		    bad++ < 5)
			TEST_NOTE("    function %zu: %s, split %s", i, f->name, g->name);
	}
	for (i = 0; i < one->nlocation; i++) {
		const struct location *l = one->location[i], *m = two->location[i];
		int same = l->nline == m->nline && l->tried == m->tried;

		for (j = 0; same && j < l->nline; j++)
			same = l->line[j].function->id == m->line[j].function->id &&
			       l->line[j].line == m->line[j].line;
		if (!same && bad++ < 5)
			TEST_NOTE("    %#llx: %u lines, split %u (%s)", (unsigned long long)l->address,
				  l->nline, m->nline,
				  l->nline ? l->line[0].function->name : "none");
	}
	CHECK_EQ_INT(bad, 0);
out:
	profile_free(one);
	profile_free(two);
}

int main(void)
{
	const char *td = getenv("TESTDATA");

	snprintf(prog, sizeof(prog), "%s/golden/prog", td && *td ? td : "testdata");
	if (access(prog, R_OK) != 0) {
		printf("skip - %s is not here\n", prog);
		return 0;
	}
	RUN(listing_uses_symbolization_objects);
	RUN(lines_are_disassembly_without_text);
	RUN(cache_belongs_to_one_profile);
	RUN(neighbours_share_frames);
	RUN(neighbours_share_line_arrays);
	RUN(split_matches_one_thread);
	return test_done();
}
