/* report.c - gperftools pprof's pipeline from a symbolized profile to keyed flat/cum counts. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "gofilter.h"
#include "htab.h"
#include "names.h"
#include "regex.h"
#include "report.h"
#include "strbuf.h"
#include "strtab.h"
#include "units.h"
#include "util.h"

/*
 * pprof knows each address by its "symlist": the inline chain as (short
 * name, file:line, full name) triples, outermost first.  Here a triple is
 * derived on demand from the location's lines (innermost first in the
 * model), with the per-function parts (full and short name, the
 * "short@addr" rename) computed once per function.
 */
struct fninfo {
	const char *full;      /* name, plus "<addr>" when it came from the symbol table */
	const char *shrt;
	const char *over;      /* "short@addr" when pprof finds the short name ambiguous */
	uint32_t key[2];       /* --functions entry + 1, plain and "(inline)"; 0 = not yet */
	uint8_t outer;         /* the outermost frame of some location */
	uint8_t unknown;       /* the short name is "??" */
	uint8_t uninteresting; /* a name RemoveUninterestingFrames drops */
	uint8_t matches[2];    /* whether --focus, --ignore match the short name: 0 = not yet, 1 no, 2 yes */
	uint8_t file_may[2];   /* whether they are in its file's name (file_may_match), the same way */
};

/* Per location, what the filters make of it: 4 bytes, read for every frame. */
struct locinfo {
	uint8_t has_syms;      /* symbolization was tried: pprof has a symlist */
	uint8_t uninteresting; /* removed by RemoveUninterestingFrames */
	uint8_t focus, ignore;
};

/*
 * Per location, a word read for every frame of every stack: its one entry
 * at the granularity (most have one), or LK_LIST | at when it has none or
 * several: builder.keys[at] is how many, its entries follow, innermost
 * first.  LK_NONE, keys[0] being 0, is the list of none.  Four bytes a
 * location, so that the words of the bench profile's 219k locations are
 * half as many cache lines as two words each were: the reduction of the
 * first graph at the prompt went from 58 to 40 ms a thread.
 */
#define LK_LIST 0x80000000u
#define LK_NONE LK_LIST

/*
 * The distinct (function, line) pairs of the locations' lines, numbered
 * once per profile (the report cache keeps them): locations by the
 * thousand share a few lines, so a report names and matches each
 * "file:line" once.  Triple j of location i (with lines) has number
 * id[first[i] + j].
 */
struct fltable {
	uint32_t *first;           /* per location, nlocation + 1 */
	uint32_t *id;              /* per triple of the locations with lines */
	size_t n;                  /* numbers */
	struct line *pair;         /* per number, its function and line (where met) */
	uint8_t *met;              /* per number, how: FL_MET_PLAIN, FL_MET_INLINED; 0: never */
};

enum { FL_MET_PLAIN = 1, FL_MET_INLINED = 2 };

/* Per number, the entry + 1 at the granularity, plain and "(inline)"; 0 = not yet. */
struct flkey {
	uint32_t key[2];
};

/*
 * The entries of one set of the settings they depend on, as build_keys
 * left them: the cache keeps a few (KEYSETS), for as long as it lives,
 * since reports still held point at their strings.
 */
/* The settings functions' names and frame-removal marks depend on. */
struct name_settings {
	int keep_templates;
	const struct frame_rules *frames;
};

static struct name_settings name_settings_of(const struct report_options *o)
{
	return (struct name_settings){ o->keep_templates, o->frames };
}

static int same_name_settings(struct name_settings a, struct name_settings b)
{
	return a.keep_templates == b.keep_templates && a.frames == b.frames;
}

struct entry_values {
	int64_t flat, cum;
	int kept;
};

struct keyset {
	enum granularity granularity;
	int show_addresses;
	struct name_settings names;
	uint32_t *lk;          /* per location (LK_LIST) */
	uint32_t *keys;
	size_t nkeys;
	struct entry *entry;   /* keys, displays, addresses; no values */
	size_t nentry;
	struct arena strings;
	/*
	 * Per entry, the values of the report made without filters, for one
	 * choice of values and of second-frame removal (NULL before there is
	 * one), and its sums.
	 */
	struct entry_values *valued;
	int si, mean, no_auto_signal_frames;
	int64_t local_total, focus_total, kept_total;
	/*
	 * The merged stacks (merge_stacks) of such a report, for the first
	 * choice that made them, their arrays in stacks_arena: kept as long
	 * as the cache, since reports point into them.
	 */
	struct rstack *stack;
	size_t nstack;
	int has_stacks, stacks_si, stacks_mean, stacks_no_auto_signal_frames;
	struct arena stacks_arena;
};

#define KEYSETS 8

/*
 * report_loc_sums_start's: per location, the values of the stacks through
 * it, a stack counting once per frame (twice where it meets the location
 * twice), and of the stacks whose leaf it is.
 */
struct locsum {
	int64_t cum, flat;
};

/* go_totals' sums, exact: the values, their absolute values, those of --diff_base's samples. */
struct exact_totals {
	__int128 total, all, base;
	int diff;
};

struct loc_sums {
	const struct profile *p;
	int si, mean;
	pthread_t thread;
	int joined;
	int ok;                 /* no sum overflowed */
	struct locsum *sum;     /* per location */
	uint64_t *seen;         /* per location, a bit: in some stack */
	int64_t stacked;        /* the values of the samples with a stack */
	/* go_totals' of every sample, for the cache's first report to take. */
	int64_t *value;
	struct exact_totals sums;
	/* After the first report, on a thread of their own: fl_make's numbers. */
	int symbolized;
	pthread_t lines_thread;
	int lines_started, lines_joined;
	struct fltable *fl;
};

/*
 * The samples whose stacks met an entry twice in the cache's first report
 * by function without filters (values_from_locations reduces them again).
 */
struct repeats {
	const struct keyset *by; /* that report's entries */
	size_t *sample;
	size_t n;
};

/* report.h: what reports of one profile share. */
struct report_cache {
	const struct profile *p;
	size_t nsample, nlocation, nfunction;
	uint32_t *outer;       /* per location, as builder.outer */
	uint8_t *has_syms;     /* per location, as locinfo's */
	struct fltable *fl;    /* as builder.fl */
	/*
	 * Every function's names and whether frame removal takes it, as
	 * build_fninfo made them for these settings; the names live in the
	 * cache (in names, for as long as it lives).
	 */
	struct fninfo *fi;
	struct name_settings fi_settings;
	struct arena names_arena;
	struct strtab *names;
	/* The values of one choice (pick_value's) and what they sum to. */
	int64_t *value;
	int si, mean, split, diff;
	int64_t total, go_total;
	struct keyset keyset[KEYSETS];
	size_t nkeyset;
	struct repeats *rep;   /* NULL before such a report */
	/* report_cache_code's, and the options it was opened with. */
	struct code *code;
	const struct symbolize_options *code_o;
};

struct entry_index {
	struct strtab *keys;
	struct htab by_address; /* --addresses=pcs entries by address: build_keys makes it */
};

struct builder {
	const struct profile *p;
	const struct report_options *o;
	struct report *r;
	struct fninfo *fi;
	struct locinfo *li;
	uint32_t *lk;          /* per location: its entry or list (LK_LIST) */
	/*
	 * pcs_only: per location, a bit for whether it has an entry and one
	 * for whether that is its own (in the ranges); NULL otherwise.
	 */
	uint64_t *keyed_bits, *range_bits;
	uint32_t *keys;        /* the lists of locations of more entries, or none */
	size_t nkeys, cap_keys;
	int keys_cached;       /* lk and keys are the report cache's */
	struct keyset *keyset; /* ... and the entries came from, or went to, this one */
	struct strbuf sb, tmp, fn;
	unsigned addr_digits;
	const char *qq;        /* "??" */
	struct regex *frames_re; /* o->frames->regex */
	uint8_t addr_may[2];    /* whether --focus, --ignore could match an address */
	struct profile *out;   /* report_profile: where kept stacks go, instead of entries */
	struct location **copy; /* copy_stack's stack */
	size_t cap_copy;
	struct location **copied; /* out's location of each of p's, by id - 1 */
	struct label *labels;
	size_t cap_labels;
	struct gofilter *gf;    /* Go pprof's filters, NULL when none is set */
	struct line *lines;     /* copy_stack: the levels a location keeps */
	size_t cap_lines;
	int si;                 /* the sample value reduced */
	int mean;               /* ... divided by the first (--mean_delay) */
	struct fltable *fl;     /* the locations' (function, line) numbers (fl_table) */
	/*
	 * Keys composed on threads (compose_halves), the report's or, when
	 * its entries are cached, the keyset's; per entry, whether its key is
	 * one of them (then the keyset takes it without a copy).
	 */
	struct arena texts;
	uint8_t *composed;
	size_t cap_composed;
	struct flkey *flk;      /* per number, its entries (build_keys) */
	uint8_t *flm[2];        /* per number: --focus, --ignore match? 0 unknown, 1 no, 2 yes */
	uint32_t *skip;         /* per sample: its stack's k (struct wstack) */
	int cut;                /* remove_second_frames took frames from the samples */
	uint32_t *outer;        /* per location: its outermost frame's function id, 0 for none */
	uint32_t *entry_of;     /* per key string's number (entry_for): its entry + 1, 0 for none */
	size_t nentry_of, cap_entry_of;
	struct report_cache *cache; /* o->cache, holding p's; NULL for none */
};

static const char *intern(struct builder *b, const char *s)
{
	return strtab_intern(b->r->index->keys, s, strlen(s));
}

/*
 * The hex digits of v's low 32 bits, most significant first, as the bytes
 * of the value in memory: each nibble spread to a byte, then made a digit.
 */
static uint64_t hex8(uint32_t v)
{
	uint64_t x = v, letters;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	/* Byte i is nibble i now; 1 in the bytes past 9. */
	letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + letters * ('a' - '0' - 10);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

/* The address in addr_digits hex digits, zero-padded (as "%0*llx" has it, faster); its length. */
static size_t format_addr(const struct builder *b, uint64_t a, char *buf, size_t n)
{
	char d[16];
	uint64_t hi = hex8((uint32_t)(a >> 32)), lo = hex8((uint32_t)a);
	size_t len = a ? (size_t)(67 - __builtin_clzll(a)) / 4 : 1;

	if (len < b->addr_digits)
		len = b->addr_digits;
	if (len >= n)
		len = n - 1;
	memcpy(d, &hi, 8);
	memcpy(d + 8, &lo, 8);
	memcpy(buf, d + 16 - len, len);
	buf[len] = 0;
	return len;
}

static const char *addr_string(struct builder *b, uint64_t a)
{
	char buf[32];

	format_addr(b, a, buf, sizeof(buf));
	return intern(b, buf);
}

/* Triples: j = 0 is the outermost frame. */
static int ntriples(const struct location *loc)
{
	return loc->nline ? (int)loc->nline : 1;
}

static const struct line *triple_line(const struct location *loc, int j)
{
	return &loc->line[loc->nline - 1 - j];
}

/*
 * What a pass over the locations before to reads next, from location i
 * on: the location 16 ahead and the lines of the one 8 ahead (two
 * dependent misses), into the cache.
 */
static void hint_location(struct location *const *loc, size_t i, size_t to)
{
	if (i + 16 < to)
		hint_read(loc[i + 16]);
	if (i + 8 < to && loc[i + 8]->nline)
		hint_read(triple_line(loc[i + 8], 0));
}

/*
 * hint_location for a pass that reads the outermost function too: the
 * location 24 ahead, the lines of the one 16 ahead, the function of the
 * one 8 ahead (three dependent misses).
 */
static void hint_function(struct location *const *loc, size_t i, size_t to)
{
	if (i + 24 < to)
		hint_read(loc[i + 24]);
	if (i + 16 < to && loc[i + 16]->nline)
		hint_read(triple_line(loc[i + 16], 0));
	if (i + 8 < to && loc[i + 8]->nline)
		hint_read(triple_line(loc[i + 8], 0)->function);
}

/* The fninfo of a location's triple j, which has lines: level 0 without touching them. */
static struct fninfo *triple_fi(const struct builder *b, const struct location *loc, int j)
{
	return &b->fi[(j ? triple_line(loc, j)->function->id : b->outer[loc->id - 1]) - 1];
}

/*
 * The locations [from, to) of one thread's share of locate_all: their
 * outermost functions (outer), whether symbolization tried them (syms),
 * and whether frame removal takes them (by their outermost function's
 * short name; "??" passes).
 */
struct loc_share {
	struct builder *b;
	size_t from, to;
	int outer, syms;
};

static void *locate_range(void *arg)
{
	const struct loc_share *ls = arg;
	struct builder *b = ls->b;
	struct location *const *loc = b->p->location;
	size_t i, to = ls->to;

	for (i = ls->from; i < to; i++) {
		/* With the cache's, the locations are not read at all. */
		if (ls->outer)
			hint_function(loc, i, to);
		else if (ls->syms)
			hint_location(loc, i, to);
		/* A location's id is its place + 1. */
		if (ls->outer && loc[i]->nline)
			b->outer[i] = (uint32_t)triple_line(loc[i], 0)->function->id;
		if (ls->syms)
			b->li[i].has_syms = loc[i]->nline > 0 || loc[i]->tried;
		if (b->outer[i])
			b->li[i].uninteresting = b->fi[b->outer[i] - 1].uninteresting;
	}
	return NULL;
}

/*
 * What every report reads of each location (locate_range), the first two
 * kept by the cache; the halves of a big profile's locations on two
 * threads.
 */
static void locate_all(struct builder *b)
{
	struct report_cache *c = b->cache;
	size_t i, n = b->p->nlocation;
	struct loc_share half[2] = { { .b = b, .from = 0, .to = n },
				     { .b = b, .from = n, .to = n } };

	half[0].outer = half[1].outer = !(c && c->outer);
	half[0].syms = half[1].syms = !(c && c->has_syms);
	if (c && c->outer) {
		b->outer = c->outer;
	} else {
		b->outer = xcalloc(n + 1, sizeof(*b->outer));
		if (c)
			c->outer = b->outer;
	}
	if (c && c->has_syms)
		for (i = 0; i < n; i++)
			b->li[i].has_syms = c->has_syms[i];
	if (n >= report_key_share_min) {
		half[0].to = half[1].from = n / 2;
		run_both(locate_range, &half[0], &half[1]);
	} else {
		locate_range(&half[0]);
	}
	if (c && !c->has_syms) {
		c->has_syms = xcalloc(n + 1, sizeof(*c->has_syms));
		for (i = 0; i < n; i++)
			c->has_syms[i] = b->li[i].has_syms;
	}
}

static const char *triple_short(struct builder *b, const struct location *loc, int j)
{
	if (loc->nline)
		return triple_fi(b, loc, j)->shrt;
	return b->li[loc->id - 1].has_syms ? b->qq : addr_string(b, loc->address);
}

/* The file:line of a line, added to sb. */
static void add_line_fileline(struct strbuf *sb, const struct line *ln)
{
	/* Symbolized profiles name no files: pprof's file:line is then "?". */
	if (!strcmp(ln->function->filename, "?") && !ln->line) {
		sb_addc(sb, '?');
		return;
	}
	sb_adds(sb, ln->function->filename[0] ? ln->function->filename : "??");
	sb_addc(sb, ':');
	sb_add_int(sb, ln->line);
}

/* The file:line of a triple, added to sb. */
static void add_fileline(struct strbuf *sb, const struct builder *b, const struct location *loc,
			 int j)
{
	if (loc->nline)
		add_line_fileline(sb, triple_line(loc, j));
	else
		sb_adds(sb, b->li[loc->id - 1].has_syms ? "??:0" : "");
}

/* The file:line of a triple, formatted into b->tmp. */
static const char *triple_fileline(struct builder *b, const struct location *loc, int j)
{
	sb_reset(&b->tmp);
	add_fileline(&b->tmp, b, loc, j);
	return b->tmp.buf;
}

static void fltable_free(struct fltable *t)
{
	if (!t)
		return;
	free(t->first);
	free(t->id);
	free(t->pair);
	free(t->met);
	free(t);
}

/*
 * One thread's share of fl_table: locations [from, to), their triples'
 * functions and lines in the order met (tag: FL_INLINED for inner
 * levels), and per function (by id) the range of its lines met.
 */
#define FL_INLINED 0x80000000u

struct fl_half {
	const struct profile *p;
	size_t from, to;
	uint32_t *first;            /* the table's: here, places in this half's triples */
	uint32_t *tag;              /* per triple: function id, | FL_INLINED */
	int64_t *line;
	size_t n, cap, cap_tag;
	struct fl_span {
		int64_t lo, hi;
		uint64_t count;     /* triples met; 0: none */
	} *span;                    /* per function id */
};

static void *collect_lines(void *arg)
{
	struct fl_half *h = arg;
	struct location *const *loc = h->p->location;
	size_t i, to = h->to;

	/* A line a location, mostly: sized for that at once. */
	GROW(h->tag, h->cap_tag, to - h->from + 1);
	GROW(h->line, h->cap, to - h->from + 1);
	for (i = h->from; i < to; i++) {
		uint32_t j;

		hint_function(loc, i, to);
		h->first[i] = (uint32_t)h->n;
		GROW(h->tag, h->cap_tag, h->n + loc[i]->nline);
		GROW(h->line, h->cap, h->n + loc[i]->nline);
		for (j = 0; j < loc[i]->nline; j++) {
			const struct line *ln = triple_line(loc[i], (int)j);
			struct fl_span *s = &h->span[ln->function->id];

			h->tag[h->n] = (uint32_t)ln->function->id | (j ? FL_INLINED : 0);
			h->line[h->n++] = ln->line;
			if (!s->count++) {
				s->lo = s->hi = ln->line;
			} else if (ln->line < s->lo) {
				s->lo = ln->line;
			} else if (ln->line > s->hi) {
				s->hi = ln->line;
			}
		}
	}
	return NULL;
}

/* The next number, of the pair (f, line). */
static uint32_t new_number(struct fltable *t, size_t *cap, struct function *f, int64_t line)
{
	if (t->n + 1 >= FL_INLINED)
		out_of_memory(t->n * sizeof(*t->pair));
	if (t->n + 1 > *cap) {
		size_t c = *cap;

		GROW(t->met, c, t->n + 1);
		memset(t->met + *cap, 0, c - *cap);
		GROW(t->pair, *cap, t->n + 1);
	}
	t->pair[t->n].function = f;
	t->pair[t->n].line = line;
	return (uint32_t)t->n++;
}

/* The number of a sparse function's pair, by hash. */
static uint32_t sparse_number(struct fltable *t, struct htab *index, size_t *cap,
			      struct function *f, int64_t line)
{
	uint64_t h = hash_u64((uintptr_t)f ^ hash_u64((uint64_t)line));
	size_t k;

	HTAB_FIND(index, h, k, t->pair[index->slot[k].idx - 1].function == f &&
				       t->pair[index->slot[k].idx - 1].line == line);
	if (index->slot[k].idx)
		return index->slot[k].idx - 1;
	htab_insert(index, k, h, new_number(t, cap, f, line) + 1);
	return (uint32_t)(t->n - 1);
}

/*
 * The profile's (function, line) numbers, in the order the locations
 * meet the pairs.  A function's lines are mostly a few dozen close
 * together: its pairs have places (slots) from its base on, by the line
 * less its lowest, and no table is looked up.  A function whose lines are
 * farther apart (its places would be more than four a triple met, and 16)
 * has its pairs looked up by hash.  With two_threads, from
 * report_key_share_min locations on, each half's lines are read on a
 * thread.
 */
static struct fltable *fl_make(const struct profile *p, int two_threads)
{
	size_t i, k, n = p->nlocation, nf = p->nfunction, cap, slots = 0;
	struct fltable *t;
	struct fl_half h[2] = { { .p = p, .from = 0, .to = n }, { .p = p, .from = n, .to = n } };
	uint32_t *base, *number;
	struct htab index;

	t = xcalloc(1, sizeof(*t));
	t->first = h[0].first = h[1].first = xcalloc(n + 1, sizeof(*t->first));
	h[0].span = xcalloc(nf + 1, sizeof(*h[0].span));
	if (two_threads && n >= report_key_share_min) {
		h[0].to = h[1].from = n / 2;
		h[1].span = xcalloc(nf + 1, sizeof(*h[1].span));
		run_both(collect_lines, &h[0], &h[1]);
	} else {
		collect_lines(&h[0]);
	}
	/* The dense functions' bases, in the order of their ids. */
	base = xcalloc(nf + 1, sizeof(*base));
	for (i = 1; i <= nf; i++) {
		struct fl_span *s = &h[0].span[i];
		uint64_t range;

		if (h[1].span && h[1].span[i].count) {
			const struct fl_span *o = &h[1].span[i];

			if (!s->count || o->lo < s->lo)
				s->lo = o->lo;
			if (!s->count || o->hi > s->hi)
				s->hi = o->hi;
			s->count += o->count;
		}
		range = (uint64_t)s->hi - (uint64_t)s->lo;
		base[i] = UINT32_MAX;
		if (s->count && range < 4 * s->count + 16 && slots + range + 1 < FL_INLINED / 2) {
			base[i] = (uint32_t)slots;
			slots += range + 1;
		}
	}
	/* Per slot, its number + 1. */
	number = xcalloc(slots + 1, sizeof(*number));
	cap = 0;
	htab_init(&index, 16);
	for (i = 0; i < 2; i++) {
		for (k = 0; k < h[i].n; k++) {
			uint32_t f = h[i].tag[k] & ~FL_INLINED, id;
			int64_t line = h[i].line[k];

			if (base[f] != UINT32_MAX) {
				uint64_t at = (uint64_t)line - (uint64_t)h[0].span[f].lo;
				uint32_t *slot = &number[base[f] + at];

				if (!*slot)
					*slot = new_number(t, &cap, p->function[f - 1], line) + 1;
				id = *slot - 1;
			} else {
				id = sparse_number(t, &index, &cap, p->function[f - 1], line);
			}
			t->met[id] |= h[i].tag[k] & FL_INLINED ? FL_MET_INLINED : FL_MET_PLAIN;
			/* Numbered in place; the second half's follow the first's. */
			h[i].tag[k] = id;
		}
	}
	for (i = h[1].from; i < n; i++)
		t->first[i] += (uint32_t)h[0].n;
	t->first[n] = (uint32_t)(h[0].n + h[1].n);
	t->id = h[0].tag;
	if (h[1].n) {
		GROW(t->id, h[0].cap_tag, h[0].n + h[1].n);
		memcpy(t->id + h[0].n, h[1].tag, h[1].n * sizeof(*t->id));
	}
	htab_release(&index);
	free(number);
	free(base);
	for (i = 0; i < 2; i++) {
		free(h[i].span);
		free(h[i].line);
	}
	free(h[1].tag);
	return t;
}

static struct fltable *loc_sums_lines(struct loc_sums *ls, const struct profile *p);

/* fl_make's numbers of b's profile: the cache's, else made (and given to it). */
static const struct fltable *fl_table(struct builder *b)
{
	struct fltable *t;

	if (b->fl)
		return b->fl;
	if (b->cache && b->cache->fl)
		return b->fl = b->cache->fl;
	/* Made on a thread after the cache's first report (loc_sums_lines_start). */
	if (!b->cache || !(t = loc_sums_lines(b->o->loc_sums, b->p)))
		t = fl_make(b->p, 1);
	b->fl = t;
	if (b->cache)
		b->cache->fl = t;
	return t;
}

/* The number of location loc's triple j (loc has lines). */
static uint32_t fl_number(struct builder *b, const struct location *loc, int j)
{
	const struct fltable *t = fl_table(b);

	return t->id[t->first[loc->id - 1] + (uint32_t)j];
}

/* Whether RemoveUninterestingFrames takes frames of this short name out. */
static int uninteresting(const struct builder *b, const char *shrt)
{
	const struct frame_rules *fr = b->o->frames;
	size_t k;

	if (!fr)
		return 0;
	if (b->frames_re && regex_matchs(b->frames_re, shrt))
		return 1;
	if (fr->signal_frames && b->o->no_auto_signal_frames)
		return 0;
	for (k = 0; fr->names && fr->names[k]; k++)
		if (!strcmp(shrt, fr->names[k]))
			return 1;
	return 0;
}

/* Every function's names and frame removal: the cache's when it has them for these settings. */
static void build_fninfo(struct builder *b)
{
	const struct profile *p = b->p;
	struct report_cache *c = b->cache;
	struct strtab *names = c ? c->names : b->r->index->keys;
	size_t i, n = p->nfunction;

	if (c && c->fi && same_name_settings(c->fi_settings, name_settings_of(b->o))) {
		memcpy(b->fi, c->fi, n * sizeof(*b->fi));
		return;
	}
	for (i = 0; i < n; i++) {
		const struct function *f = p->function[i];
		struct fninfo *fi = &b->fi[i];

		sb_reset(&b->sb);
		sb_adds(&b->sb, f->name);
		if (f->symbol_address != NO_SYMBOL_ADDRESS)
			sb_addf(&b->sb, "<%016llx>", (unsigned long long)f->symbol_address);
		fi->full = strtab_intern(names, b->sb.buf, b->sb.len);
		short_function_name(fi->full, b->o->keep_templates, &b->tmp);
		fi->shrt = strtab_intern(names, b->tmp.buf, strlen(b->tmp.buf));
		fi->unknown = !strcmp(fi->shrt, "??");
		fi->uninteresting = (uint8_t)uninteresting(b, fi->shrt);
	}
	/* Before a report adds its own marks to them. */
	if (c) {
		free(c->fi);
		c->fi = xcalloc(n + 1, sizeof(*c->fi));
		memcpy(c->fi, b->fi, n * sizeof(*b->fi));
		c->fi_settings = name_settings_of(b->o);
	}
}

/*
 * pprof renames full names whose short name stands for several functions
 * of different addresses to "short@addr", judging by outermost frames
 * (FillFullnameToShortnameMap); the rename then applies at every level.
 */
struct seen {
	const char *key, *val;
	int many;
};

struct seen_map {
	struct htab index;
	struct seen *v;
	size_t n, cap;
};

/* The entry for key (a pointer), created empty when missing. */
static struct seen *seen_get(struct seen_map *m, const char *key)
{
	uint64_t h = hash_u64((uintptr_t)key);
	size_t i;

	HTAB_FIND(&m->index, h, i, m->v[m->index.slot[i].idx - 1].key == key);
	if (m->index.slot[i].idx)
		return &m->v[m->index.slot[i].idx - 1];
	GROW(m->v, m->cap, m->n + 1);
	m->v[m->n].key = key;
	m->v[m->n].val = NULL;
	m->v[m->n].many = 0;
	htab_insert(&m->index, i, h, (uint32_t)++m->n);
	return &m->v[m->n - 1];
}

/* The entry for key, or NULL. */
static struct seen *seen_find(struct seen_map *m, const char *key)
{
	uint64_t h = hash_u64((uintptr_t)key);
	size_t i;

	HTAB_FIND(&m->index, h, i, m->v[m->index.slot[i].idx - 1].key == key);
	return m->index.slot[i].idx ? &m->v[m->index.slot[i].idx - 1] : NULL;
}

static void find_overloads(struct builder *b)
{
	const struct profile *p = b->p;
	struct seen_map by_short = { 0 }, by_full = { 0 };
	size_t i;

	for (i = 0; i < p->nlocation; i++) {
		const struct location *loc = p->location[i];

		if (loc->nline)
			triple_fi(b, loc, 0)->outer = 1;
	}
	htab_init(&by_short.index, p->nfunction * 2);
	htab_init(&by_full.index, 16);
	for (i = 0; i < p->nfunction; i++) {
		struct fninfo *fi = &b->fi[i];
		struct seen *s;

		if (!fi->outer || p->function[i]->symbol_address == NO_SYMBOL_ADDRESS)
			continue;
		s = seen_get(&by_short, fi->shrt);
		if (!s->val)
			s->val = fi->full;
		else if (s->val != fi->full)
			s->many = 1;
	}
	for (i = 0; i < p->nfunction; i++) {
		struct fninfo *fi = &b->fi[i];
		struct seen *t;
		char addr[32];

		if (!fi->outer || p->function[i]->symbol_address == NO_SYMBOL_ADDRESS)
			continue;
		if (!seen_find(&by_short, fi->shrt)->many || seen_find(&by_full, fi->full))
			continue;
		snprintf(addr, sizeof(addr), "%llx", (unsigned long long)p->function[i]->symbol_address);
		sb_reset(&b->sb);
		sb_addf(&b->sb, "%s@%s", fi->shrt, p->function[i]->symbol_address ? addr : "");
		t = seen_get(&by_full, fi->full);
		t->val = intern(b, b->sb.buf);
	}
	/* Any frame with a renamed full name takes the new name. */
	for (i = 0; by_full.n && i < p->nfunction; i++) {
		struct seen *t = seen_find(&by_full, b->fi[i].full);

		if (t)
			b->fi[i].over = t->val;
	}
	htab_release(&by_short.index);
	htab_release(&by_full.index);
	free(by_short.v);
	free(by_full.v);
}

static uint32_t new_entry(struct builder *b, const char *key, const char *display)
{
	struct report *r = b->r;
	struct entry *en;

	GROW(r->entry, r->cap_entry, r->nentry + 1);
	en = &r->entry[r->nentry++];
	memset(en, 0, sizeof(*en));
	en->key = key;
	en->display = display;
	return (uint32_t)(r->nentry - 1);
}

/*
 * The entry keyed by the string s of n bytes, interned; a new one gets
 * display(b, loc) for its display when display is not NULL.  Entries are
 * found by the number strtab_intern_id gives the key.
 */
/* The entry of the interned key numbered id: made (with display(b, loc) when given) the first time. */
static uint32_t entry_of_key(struct builder *b, const char *key, uint32_t id,
			     const char *(*display)(struct builder *, const struct location *),
			     const struct location *loc)
{
	if (id >= b->nentry_of) {
		GROW(b->entry_of, b->cap_entry_of, (size_t)id + 1);
		memset(b->entry_of + b->nentry_of, 0,
		       (id + 1 - b->nentry_of) * sizeof(*b->entry_of));
		b->nentry_of = (size_t)id + 1;
	}
	if (!b->entry_of[id])
		b->entry_of[id] = new_entry(b, key, display ? display(b, loc) : NULL) + 1;
	return b->entry_of[id] - 1;
}

static uint32_t entry_for(struct builder *b, const char *s, size_t n,
			  const char *(*display)(struct builder *, const struct location *),
			  const struct location *loc)
{
	uint32_t id;
	const char *key = strtab_intern_id(b->r->index->keys, s, n, &id);

	return entry_of_key(b, key, id, display, loc);
}

/* How a bare address prints when symbolized: "SHORT FILE:LINE". */
static const char *address_display(struct builder *b, const struct location *loc)
{
	const char *s;

	if (!b->li[loc->id - 1].has_syms)
		return NULL;
	s = triple_short(b, loc, 0);
	sb_reset(&b->sb);
	sb_adds(&b->sb, s);
	sb_addc(&b->sb, ' ');
	sb_adds(&b->sb, triple_fileline(b, loc, 0));
	return intern(b, b->sb.buf);
}

/* The entry of a bare address key. */
static uint32_t address_entry(struct builder *b, const struct location *loc)
{
	char a[32];

	return entry_for(b, a, format_addr(b, loc->address, a, sizeof(a)), address_display, loc);
}

/*
 * --addresses=pcs: entries keyed by the address alone, found by it (an
 * address formats to one key, and one key comes from one address).
 */
static uint32_t pcs_entry(struct builder *b, uint64_t addr)
{
	struct report *r = b->r;
	struct htab *t = &r->index->by_address;
	uint64_t h = hash_u64(addr);
	char a[32];
	uint32_t k;
	size_t i;

	HTAB_FIND(t, h, i, r->entry[t->slot[i].idx - 1].address == addr);
	if (t->slot[i].idx)
		return t->slot[i].idx - 1;
	k = new_entry(b, arena_strndup(&r->arena, a, format_addr(b, addr, a, sizeof(a))), NULL);
	r->entry[k].address = addr;
	htab_insert(t, i, h, k + 1);
	return k;
}

/*
 * A triple's --addresses key, "ADDR FUNCTION FILE:LINE" (an untried
 * address its own function), added to sb.  It only reads the builder:
 * keys are composed on two threads (build_keys).
 */
static void add_address_key(struct strbuf *sb, const struct builder *b, const struct location *loc,
			    int j, int inl)
{
	const struct fninfo *fi = loc->nline ? triple_fi(b, loc, j) : NULL;
	char a[32];
	size_t n = format_addr(b, loc->address, a, sizeof(a));

	sb_add(sb, a, n);
	sb_addc(sb, ' ');
	if (fi)
		sb_adds(sb, fi->over ? fi->over : fi->shrt);
	else if (b->li[loc->id - 1].has_syms)
		sb_adds(sb, b->qq);
	else
		sb_add(sb, a, n);
	if (inl)
		sb_add(sb, " (inline)", 9);
	sb_addc(sb, ' ');
	add_fileline(sb, b, loc, j);
}

/*
 * The entry of one triple at the granularity (pprof's TranslateStack);
 * inl: an inner level, inlined into the next one out.
 */
static uint32_t compose_entry(struct builder *b, const struct location *loc, int j, int inl,
			      int *by_address)
{
	const struct fninfo *fi;
	const char *func, *fl;
	char a[32];

	/* Made in place, a few hundred thousand of them. */
	if (b->o->granularity == GRAN_ADDRESSES) {
		sb_reset(&b->sb);
		add_address_key(&b->sb, b, loc, j, inl);
		return entry_for(b, b->sb.buf, b->sb.len, NULL, NULL);
	}
	fi = loc->nline ? triple_fi(b, loc, j) : NULL;
	func = fi ? (fi->over ? fi->over : fi->shrt) : triple_short(b, loc, j);
	/* The parts are composed in scratch buffers: only the key is interned. */
	sb_reset(&b->fn);
	sb_adds(&b->fn, func);
	if (inl)
		sb_adds(&b->fn, " (inline)");
	func = b->fn.buf;
	fl = triple_fileline(b, loc, j);
	/* The address only where the name shows it (and below, where it could be the name). */
	a[0] = 0;
	if (b->o->show_addresses || b->o->granularity == GRAN_ADDRESSES ||
	    b->o->granularity == GRAN_PCS)
		format_addr(b, loc->address, a, sizeof(a));
	sb_reset(&b->sb);
	switch (b->o->granularity) {
	case GRAN_PCS:  /* build_keys takes these itself */
	case GRAN_ADDRESSES:  /* above */
		sb_adds(&b->sb, a);
		sb_addc(&b->sb, ' ');
		sb_adds(&b->sb, func);
		sb_addc(&b->sb, ' ');
		sb_adds(&b->sb, fl);
		break;
	case GRAN_LINES:
		if (!strcmp(func, "??") && !strcmp(fl, "??:0"))
			return *by_address = 1, address_entry(b, loc);
		sb_adds(&b->sb, func);
		sb_addc(&b->sb, ' ');
		sb_adds(&b->sb, fl);
		if (b->o->show_addresses)
			sb_addf(&b->sb, " (%s)", a);
		break;
	case GRAN_FUNCTIONS:
		if (!strcmp(func, "??"))
			return *by_address = 1, address_entry(b, loc);
		if (b->o->show_addresses)
			sb_addf(&b->sb, "%s (%s)", func, a);
		else
			sb_adds(&b->sb, func);
		break;
	case GRAN_FILEFUNCTIONS:
		if (!strcmp(func, "??") && !strcmp(fl, "??:0"))
			return *by_address = 1, address_entry(b, loc);
		sb_adds(&b->sb, func);
		/* Go names these "function file": the file without its line. */
		if (loc->nline && triple_line(loc, j)->function->filename[0])
			sb_addf(&b->sb, " %s", triple_line(loc, j)->function->filename);
		break;
	case GRAN_FILES:
		if (!strcmp(fl, "??:0") || !fl[0]) {
			return *by_address = 1, address_entry(b, loc);
		} else {
			size_t len = strlen(fl), k = len;

			while (k > 0 && fl[k - 1] >= '0' && fl[k - 1] <= '9')
				k--;
			if (k < len && k > 0 && fl[k - 1] == ':')
				len = k - 1;
			sb_add(&b->sb, fl, len);
		}
		break;
	}
	/*
	 * An untried address keeps it as its name; "ADDR " and the like stay
	 * distinct.  No address has more than 16 digits.
	 */
	if (b->sb.len <= 16 && !a[0])
		format_addr(b, loc->address, a, sizeof(a));
	if (b->sb.len <= 16 && !strcmp(b->sb.buf, a))
		return *by_address = 1, address_entry(b, loc);
	return entry_for(b, b->sb.buf, b->sb.len, NULL, NULL);
}

/*
 * The entry of one triple at the granularity (pprof's TranslateStack);
 * inl: an inner level, inlined into the next one out.  Names alone make
 * one entry per function and inline flag; names with a file or line one
 * per function, line and flag, unless the address had to stand in.
 */
static uint32_t triple_entry(struct builder *b, const struct location *loc, int j, int inl)
{
	const struct fninfo *fi = loc->nline ? triple_fi(b, loc, j) : NULL;
	enum granularity g = b->o->granularity;
	uint32_t *k = NULL;
	int by_address = 0;
	uint32_t e;

	if (fi && !b->o->show_addresses && !fi->unknown) {
		if (g == GRAN_FUNCTIONS) {
			k = &b->fi[fi - b->fi].key[inl];
			if (!*k) {
				sb_reset(&b->sb);
				sb_adds(&b->sb, fi->over ? fi->over : fi->shrt);
				if (inl)
					sb_adds(&b->sb, " (inline)");
				*k = entry_for(b, b->sb.buf, b->sb.len, NULL, NULL) + 1;
			}
			return *k - 1;
		}
		if (g == GRAN_LINES || g == GRAN_FILEFUNCTIONS || g == GRAN_FILES) {
			if (!b->flk)
				b->flk = xcalloc(fl_table(b)->n + 1, sizeof(*b->flk));
			k = &b->flk[fl_number(b, loc, j)].key[inl];
		}
	}
	if (k && *k)
		return *k - 1;
	e = compose_entry(b, loc, j, inl, &by_address);
	if (k && !by_address)
		*k = e + 1;
	return e;
}

/* pcs_only: whether addr is in one of the ranges. */
static int in_pcs_range(const struct report_options *o, uint64_t addr)
{
	size_t lo = 0, hi = o->npcs_range;

	/* The first range ending above addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->pcs_range[mid][1] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->npcs_range && o->pcs_range[lo][0] <= addr;
}

/* Whether build_keys gives location i no entries: frames removed, kernel addresses, hidden. */
static int keyless(const struct builder *b, size_t i)
{
	const struct location *loc = b->p->location[i];

	return b->li[i].uninteresting ||
	       (b->addr_digits == 16 && loc->address > 0x7fffffffffffffffULL) ||
	       (gofilter_flags(b->gf, loc) & GF_HIDDEN);
}

/*
 * Keys composed on two threads into arenas of their own (the report's
 * when they are done), with their lengths and hashes; build_keys interns
 * them.  --addresses without Go's filters composes every level of every
 * location, a chunk of locations at a time on either thread, and
 * build_keys takes the keys in order (struct key_chunks, compose_keys,
 * shared_entry).  By line, half the (function,
 * line) numbers are on a thread, each number's keys as the locations meet
 * it (plain, inlined), and build_keys takes a number's where it meets it
 * first (compose_line_keys, line_entry).
 */
struct key_share {
	const struct builder *b;
	size_t from, to;      /* locations, or by line numbers */
	struct arena text;    /* by line: the keys' text (by address: struct key_chunks) */
	struct shared_key {
		const char *s;
		uint32_t len;
		/* key_chunks.unique: 0, or 1 + the place among its location's keys of the equal one before */
		uint32_t same;
		uint64_t hash;        /* unless key_chunks.unique */
	} *key;
	int unique;           /* by address: the profile's addresses are its locations' alone */
	size_t n, cap, next;  /* keys composed; the next one build_keys takes */
	uint32_t (*at)[2];    /* by line, both halves': per number, plain and inlined, key + 1 */
};

/*
 * Keeps the key composed in sb, its text in text, hashed for build_keys
 * to intern; or, when ks->unique, compared with its location's keys
 * before it alone: it is the nth of them (those before are the last n
 * kept), and no other location, with an address of its own, has a key
 * equal to it.
 */
static void keep_key(struct key_share *ks, struct arena *text, const struct strbuf *sb, uint32_t n)
{
	struct shared_key *k;
	uint32_t j;

	GROW(ks->key, ks->cap, ks->n + 1);
	k = &ks->key[ks->n++];
	k->len = (uint32_t)sb->len;
	k->same = 0;
	if (!ks->unique)
		k->hash = strtab_hash(sb->buf, sb->len);
	for (j = 0; ks->unique && j < n && !k->same; j++) {
		const struct shared_key *o = k - n + j;

		if (o->len == k->len && !memcmp(o->s, sb->buf, sb->len)) {
			k->s = o->s;
			k->same = j + 1;
		}
	}
	if (!k->same)
		k->s = arena_strndup(text, sb->buf, sb->len);
}

/* The --addresses keys of ks's locations, their text in text. */
static void compose_keys(struct key_share *ks, struct arena *text)
{
	const struct builder *b = ks->b;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = ks->from; i < ks->to; i++) {
		const struct location *loc = b->p->location[i];
		int j;

		hint_location(b->p->location, i, ks->to);
		if (keyless(b, i))
			continue;
		for (j = ntriples(loc) - 1; j >= 0; j--) {
			sb_reset(&sb);
			add_address_key(&sb, b, loc, j, j > 0);
			keep_key(ks, text, &sb, (uint32_t)(ntriples(loc) - 1 - j));
		}
	}
	sb_release(&sb);
}

/*
 * --addresses: the keys are composed in chunks of report_key_chunk locations,
 * which a second thread takes in order while build_keys interns them in
 * order.  When the chunk build_keys comes to is not ready, it composes
 * the next one nobody took, or waits for the one the thread is on: the
 * interning, a third of the work, no longer waits for all the composing.
 */
size_t report_key_chunk = 4096;

struct key_chunks {
	struct key_share *chunk;
	size_t n, size;         /* chunks, and locations in each */
	atomic_size_t next;     /* the first chunk nobody took */
	struct arena text[2];   /* the thread's keys, build_keys' */
	pthread_mutex_t mu;
	pthread_cond_t done;
	uint8_t *ready;         /* per chunk, under mu */
	pthread_t thread;
	int threaded;
};

/* Composes the next chunk nobody took, its text into text; 0 when none is left. */
static int compose_next(struct key_chunks *kc, struct arena *text)
{
	size_t c = atomic_fetch_add(&kc->next, 1);

	if (c >= kc->n)
		return 0;
	compose_keys(&kc->chunk[c], text);
	pthread_mutex_lock(&kc->mu);
	kc->ready[c] = 1;
	pthread_cond_broadcast(&kc->done);
	pthread_mutex_unlock(&kc->mu);
	return 1;
}

static void *compose_chunks(void *arg)
{
	struct key_chunks *kc = arg;

	while (compose_next(kc, &kc->text[0]))
		;
	return NULL;
}

/* Chunk c, composed. */
static struct key_share *chunk_ready(struct key_chunks *kc, size_t c)
{
	for (;;) {
		int ready;

		pthread_mutex_lock(&kc->mu);
		ready = kc->ready[c];
		pthread_mutex_unlock(&kc->mu);
		if (ready || !compose_next(kc, &kc->text[1]))
			break;
	}
	/* The thread is on it. */
	pthread_mutex_lock(&kc->mu);
	while (!kc->ready[c])
		pthread_cond_wait(&kc->done, &kc->mu);
	pthread_mutex_unlock(&kc->mu);
	return &kc->chunk[c];
}

/* The chunks of n locations, the thread composing them from the first. */
static void chunks_start(struct key_chunks *kc, const struct builder *b, size_t n, int unique)
{
	size_t c;

	memset(kc, 0, sizeof(*kc));
	kc->size = report_key_chunk ? report_key_chunk : 1;
	kc->n = (n + kc->size - 1) / kc->size;
	kc->chunk = xcalloc(kc->n + 1, sizeof(*kc->chunk));
	kc->ready = xcalloc(kc->n + 1, sizeof(*kc->ready));
	for (c = 0; c < kc->n; c++) {
		kc->chunk[c].b = b;
		kc->chunk[c].from = c * kc->size;
		kc->chunk[c].to = c + 1 < kc->n ? (c + 1) * kc->size : n;
		kc->chunk[c].unique = unique;
	}
	atomic_init(&kc->next, 0);
	arena_init(&kc->text[0]);
	arena_init(&kc->text[1]);
	pthread_mutex_init(&kc->mu, NULL);
	pthread_cond_init(&kc->done, NULL);
	/* Without a thread build_keys composes every chunk itself. */
	kc->threaded = pthread_create(&kc->thread, NULL, compose_chunks, kc) == 0;
}

/* After the last chunk: the keys' text is the report's (b->texts). */
static void chunks_finish(struct key_chunks *kc, struct builder *b)
{
	size_t c;

	if (!kc->chunk)
		return;
	if (kc->threaded)
		pthread_join(kc->thread, NULL);
	for (c = 0; c < kc->n; c++)
		free(kc->chunk[c].key);
	arena_adopt(&b->texts, &kc->text[0]);
	arena_adopt(&b->texts, &kc->text[1]);
	pthread_mutex_destroy(&kc->mu);
	pthread_cond_destroy(&kc->done);
	free(kc->chunk);
	free(kc->ready);
}

/* Entry e's key is text composed on a thread (b->texts). */
static void mark_composed(struct builder *b, uint32_t e)
{
	if (e >= b->cap_composed) {
		size_t cap = b->cap_composed;

		GROW(b->composed, b->cap_composed, (size_t)e + 1);
		memset(b->composed + cap, 0, b->cap_composed - cap);
	}
	b->composed[e] = 1;
}

/* The entry of a key composed on a thread. */
static uint32_t composed_entry(struct builder *b, const struct shared_key *k)
{
	uint32_t id, e;
	const char *key = strtab_intern_stored(b->r->index->keys, k->s, k->len, k->hash, &id);

	e = entry_of_key(b, key, id, NULL, NULL);
	/* Its own string, not one interned before. */
	if (key == k->s)
		mark_composed(b, e);
	return e;
}

/* The entry of the next key composed in ks. */
static uint32_t shared_entry(struct builder *b, struct key_share *ks)
{
	/* Far enough ahead for the table's miss to arrive. */
	enum { AHEAD = 12 };

	if (ks->next + 1 + AHEAD < ks->n)
		strtab_prefetch(b->r->index->keys, ks->key[ks->next + 1 + AHEAD].hash);
	return composed_entry(b, &ks->key[ks->next++]);
}

/*
 * The entry of the next key composed in ks when it is its location's
 * alone (keep_key): a new one, or the one an equal key before it
 * made; the location's entries so far follow keys[at].
 */
static uint32_t own_entry(struct builder *b, struct key_share *ks, size_t at)
{
	const struct shared_key *k = &ks->key[ks->next++];
	uint32_t e;

	if (k->same)
		return b->keys[at + k->same];
	e = new_entry(b, k->s, NULL);
	mark_composed(b, e);
	return e;
}

size_t report_key_share_min = 65536;

/*
 * By line without Go's filters: the keys of numbers [from, to), as
 * compose_entry would make them, plain and inlined as the locations meet
 * them.  Unknown functions ("??") are left to triple_entry (at "??:0"
 * their entries are by address).
 */
static void *compose_line_keys(void *arg)
{
	struct key_share *ls = arg;
	const struct builder *b = ls->b;
	const struct fltable *t = b->fl;
	struct strbuf sb = STRBUF_INIT;
	size_t k;

	for (k = ls->from; k < ls->to; k++) {
		const struct line *ln = &t->pair[k];
		const struct fninfo *fi;
		const char *func;
		int inl;

		if (k + 8 < ls->to && t->met[k + 8])
			hint_read(t->pair[k + 8].function);
		if (!t->met[k])
			continue;
		fi = &b->fi[ln->function->id - 1];
		if (fi->unknown)
			continue;
		func = fi->over ? fi->over : fi->shrt;
		for (inl = 0; inl < 2; inl++) {
			if (!(t->met[k] & (inl ? FL_MET_INLINED : FL_MET_PLAIN)))
				continue;
			sb_reset(&sb);
			sb_adds(&sb, func);
			if (inl)
				sb_adds(&sb, " (inline)");
			sb_addc(&sb, ' ');
			add_line_fileline(&sb, ln);
			keep_key(ls, &ls->text, &sb, 0);
			ls->at[k][inl] = (uint32_t)ls->n;
		}
	}
	sb_release(&sb);
	return NULL;
}

/* triple_entry by line, for triple j of location i, with the numbers' keys composed. */
static uint32_t line_entry(struct builder *b, struct key_share share[2], size_t i, int j)
{
	const struct location *loc = b->p->location[i];
	enum { AHEAD = 12 };
	struct key_share *ks;
	uint32_t id, at, *k;
	int inl = j > 0;

	if (!loc->nline)
		return triple_entry(b, loc, j, inl);
	id = b->fl->id[b->fl->first[i] + (uint32_t)j];
	k = &b->flk[id].key[inl];
	if (*k)
		return *k - 1;
	if (!(at = share[0].at[id][inl]))
		return triple_entry(b, loc, j, inl);
	ks = &share[id >= share[1].from];
	/* Numbered as met: the keys are taken about in order, these next. */
	if (at + AHEAD < ks->n)
		strtab_prefetch(b->r->index->keys, ks->key[at + AHEAD].hash);
	*k = composed_entry(b, &ks->key[at - 1]) + 1;
	return *k - 1;
}

/* The keys of each half of [0, n) composed on a thread, compose's way. */
static void compose_halves(struct builder *b, struct key_share share[2], void *(*compose)(void *),
			   size_t n)
{
	share[0].from = 0;
	share[0].to = share[1].from = n / 2;
	share[1].to = n;
	run_both(compose, &share[0], &share[1]);
	strtab_reserve(b->r->index->keys, share[0].n + share[1].n);
	/* The keys are the report's strings now, or the keyset's (keys_to_cache). */
	arena_adopt(&b->texts, &share[0].text);
	arena_adopt(&b->texts, &share[1].text);
}

/*
 * Location i's word, its entries pushed on keys after their length's place
 * at: the one entry itself, or the list (none and one take no room).
 */
static void close_list(struct builder *b, size_t i, size_t at)
{
	uint32_t n = (uint32_t)(b->nkeys - at - 1);

	if (n > 1) {
		/* Past 2^31 words: as much as 8 GB of lists, more than they can number. */
		if (at >= LK_LIST)
			out_of_memory(at * sizeof(*b->keys));
		b->keys[at] = n;
		b->lk[i] = LK_LIST | (uint32_t)at;
		return;
	}
	b->lk[i] = n ? b->keys[at + 1] : LK_NONE;
	b->nkeys = at;
}

/*
 * What triple_entry reads of location i by line or file, into the cache:
 * the info of its outermost function and its numbers' keys, each a miss
 * in arrays of tens of thousands (by line the bench's build_keys went
 * from a median 68 to 55 ms).
 */
static void hint_numbered(const struct builder *b, size_t i)
{
	const struct fltable *t = b->fl;
	uint32_t k;

	if (b->outer[i])
		hint_read(&b->fi[b->outer[i] - 1]);
	for (k = t->first[i]; k < t->first[i + 1]; k++)
		hint_read(&b->flk[t->id[k]]);
}

/* Every location's entries, innermost first; none for removed or kernel frames. */
static void build_keys(struct builder *b)
{
	const struct profile *p = b->p;
	enum granularity g = b->o->granularity;
	int only = g == GRAN_PCS && b->o->pcs_only;
	/* triple_entry keys these by (function, line) number. */
	int numbered = !b->gf && !b->o->show_addresses &&
		       (g == GRAN_LINES || g == GRAN_FILEFUNCTIONS || g == GRAN_FILES);
	struct key_chunks kc = { 0 };
	struct key_share *ks = NULL;
	/* compose_halves sets their ranges. */
	struct key_share lines[2] = { { .b = b }, { .b = b } };
	size_t i;

	/* keys[0]: the length of LK_NONE's list. */
	GROW(b->keys, b->cap_keys, 1);
	b->keys[b->nkeys++] = 0;
	/* The numbers' keys are hinted ahead (triple_entry would make them on first use). */
	if (numbered && !b->flk)
		b->flk = xcalloc(fl_table(b)->n + 1, sizeof(*b->flk));
	/* An entry per address, about: the table made for them at once. */
	if (g == GRAN_PCS)
		htab_init(&b->r->index->by_address, only ? 64 : p->nlocation / 3 * 4 + 16);
	/* Entry 0: the addresses outside the ranges. */
	if (only) {
		uint32_t other = new_entry(b, intern(b, "(other addresses)"), NULL);

		b->r->entry[other].address = UINT64_MAX;
		b->keyed_bits = xcalloc(p->nlocation / 64 + 1, sizeof(*b->keyed_bits));
		b->range_bits = xcalloc(p->nlocation / 64 + 1, sizeof(*b->range_bits));
	}
	if (g == GRAN_ADDRESSES && !b->gf && p->nlocation >= report_key_share_min) {
		chunks_start(&kc, b, p->nlocation, !p->shared_addresses);
		/* An entry or so per location (room not used is never touched). */
		GROW(b->r->entry, b->r->cap_entry, b->r->nentry + p->nlocation + p->nlocation / 4);
		if (p->shared_addresses)
			strtab_reserve(b->r->index->keys, p->nlocation);
	}
	/* The threads read the numbers (fl_table): made first. */
	if (g == GRAN_LINES && numbered && p->nlocation >= report_key_share_min && fl_table(b)) {
		lines[0].at = lines[1].at = xcalloc(b->fl->n + 1, sizeof(*lines[0].at));
		compose_halves(b, lines, compose_line_keys, b->fl->n);
	}
	for (i = 0; i < p->nlocation; i++) {
		const struct location *loc = p->location[i];
		size_t at = b->nkeys;
		int j;

		b->lk[i] = LK_NONE;
		hint_location(p->location, i, p->nlocation);
		if (numbered && i + 8 < p->nlocation)
			hint_numbered(b, i + 8);
		if (keyless(b, i))
			continue;
		if (g == GRAN_PCS) {
			int own = !only || in_pcs_range(b->o, loc->address);

			b->lk[i] = own ? pcs_entry(b, loc->address) : 0;
			if (only) {
				b->keyed_bits[i / 64] |= (uint64_t)1 << i % 64;
				b->range_bits[i / 64] |= (uint64_t)own << i % 64;
			}
			continue;
		}
		/* The list's length first, then its entries (close_list). */
		GROW(b->keys, b->cap_keys, b->nkeys + 1 + ntriples(loc));
		b->nkeys++;
		if (kc.chunk) {
			if (!ks || i >= ks->to)
				ks = chunk_ready(&kc, i / kc.size);
			for (j = ntriples(loc) - 1; j >= 0; j--)
				b->keys[b->nkeys++] = ks->unique ? own_entry(b, ks, at) : shared_entry(b, ks);
			close_list(b, i, at);
			continue;
		}
		if (lines[0].at) {
			for (j = ntriples(loc) - 1; j >= 0; j--)
				b->keys[b->nkeys++] = line_entry(b, lines, i, j);
			close_list(b, i, at);
			continue;
		}
		/* Levels Go's filters took out are not there; the outermost left is the call. */
		for (j = ntriples(loc) - 1; j >= 0; j--) {
			int k;

			if (!gofilter_keeps(b->gf, loc, ntriples(loc) - 1 - j))
				continue;
			for (k = j - 1; k >= 0 && !gofilter_keeps(b->gf, loc, ntriples(loc) - 1 - k); k--)
				;
			b->keys[b->nkeys++] = triple_entry(b, loc, j, k >= 0);
		}
		close_list(b, i, at);
	}
	chunks_finish(&kc, b);
	free(lines[0].key);
	free(lines[1].key);
	free(lines[0].at);
}

/* Whether entries made with o are those of ks. */
static int keyset_fits(const struct keyset *ks, const struct report_options *o)
{
	return ks->granularity == o->granularity && ks->show_addresses == o->show_addresses &&
	       same_name_settings(ks->names, name_settings_of(o));
}

/* The cache's entries for b's settings instead of build_keys', if it has them. */
static int keys_from_cache(struct builder *b)
{
	struct report_cache *c = b->cache;
	struct keyset *ks = NULL;
	struct report *r = b->r;
	size_t i;

	for (i = 0; c && !b->gf && !b->o->pcs_only && !ks && i < c->nkeyset; i++)
		if (keyset_fits(&c->keyset[i], b->o))
			ks = &c->keyset[i];
	if (!ks)
		return 0;
	b->keyset = ks;
	b->lk = ks->lk;
	b->keys = ks->keys;
	b->nkeys = ks->nkeys;
	b->keys_cached = 1;
	r->entry = xcalloc(ks->nentry + 1, sizeof(*r->entry));
	memcpy(r->entry, ks->entry, ks->nentry * sizeof(*r->entry));
	r->nentry = r->cap_entry = ks->nentry;
	return 1;
}

/* Gives build_keys' entries to the cache, while it has room and Go's filters made none of them. */
static void keys_to_cache(struct builder *b)
{
	struct report_cache *c = b->cache;
	const struct report *r = b->r;
	struct keyset *ks;
	size_t i;

	if (!c || b->gf || b->o->pcs_only || c->nkeyset == KEYSETS)
		return;
	ks = b->keyset = &c->keyset[c->nkeyset++];
	ks->granularity = b->o->granularity;
	ks->show_addresses = b->o->show_addresses;
	ks->names = name_settings_of(b->o);
	ks->lk = b->lk;
	ks->keys = b->keys;
	ks->nkeys = b->nkeys;
	b->keys_cached = 1;
	arena_init(&ks->strings);
	arena_init(&ks->stacks_arena);
	ks->nentry = r->nentry;
	ks->entry = xcalloc(r->nentry + 1, sizeof(*ks->entry));
	/* The composed keys are the keyset's (and the report's: the cache outlives it). */
	arena_adopt(&ks->strings, &b->texts);
	for (i = 0; i < r->nentry; i++) {
		int own = i < b->cap_composed && b->composed[i];

		ks->entry[i].key = own ? r->entry[i].key
				       : arena_strdup(&ks->strings, r->entry[i].key);
		if (r->entry[i].display)
			ks->entry[i].display = arena_strdup(&ks->strings, r->entry[i].display);
		ks->entry[i].address = r->entry[i].address;
	}
}

/*
 * A report without filters of the keyset's settings is the same report
 * each time: its values are kept with the entries, and its stacks when
 * they are merged.  Whether b is one.
 */
static int unfiltered(const struct builder *b, int filtered)
{
	return b->keyset && !filtered && !b->gf && !b->out &&
	       (!b->o->keep_stacks || b->o->merge_stacks);
}

/* Whether the keyset has the stacks b would keep, unfiltered. */
static int stacks_cached(const struct builder *b)
{
	const struct keyset *ks = b->keyset;

	return ks->has_stacks && ks->stacks_si == b->si && ks->stacks_mean == b->mean &&
	       ks->stacks_no_auto_signal_frames == b->o->no_auto_signal_frames;
}

/*
 * Where the arrays of b's stacks go: the keyset's arena when they are
 * to be kept there (merged, unfiltered, and the keyset has none), else
 * the report's.
 */
static struct arena *stacks_arena(struct builder *b, int filtered, int split)
{
	if (b->o->keep_stacks && split && unfiltered(b, filtered) && !b->keyset->has_stacks)
		return &b->keyset->stacks_arena;
	return &b->r->arena;
}

/* Whether the keyset has the values of b's report, unfiltered. */
static int values_cached(const struct builder *b, int filtered)
{
	const struct keyset *ks = b->keyset;

	return unfiltered(b, filtered) && ks->valued && ks->si == b->si && ks->mean == b->mean &&
	       ks->no_auto_signal_frames == b->o->no_auto_signal_frames;
}

/* The values of an unfiltered report made before; 0 when there is none to take. */
static int values_from_cache(struct builder *b, int filtered)
{
	const struct keyset *ks = b->keyset;
	struct report *r = b->r;
	size_t i;

	if (!values_cached(b, filtered))
		return 0;
	if (b->o->keep_stacks) {
		if (!stacks_cached(b))
			return 0;
		r->stack = xcalloc(ks->nstack + 1, sizeof(*r->stack));
		memcpy(r->stack, ks->stack, ks->nstack * sizeof(*r->stack));
		r->nstack = ks->nstack;
		r->cap_stack = ks->nstack + 1;
	}
	for (i = 0; i < ks->nentry; i++) {
		r->entry[i].flat = ks->valued[i].flat;
		r->entry[i].cum = ks->valued[i].cum;
		r->entry[i].kept = ks->valued[i].kept;
	}
	r->local_total = ks->local_total;
	r->focus_total = ks->focus_total;
	r->kept_total = ks->kept_total;
	return 1;
}

/*
 * Keeps an unfiltered report's values with its entries (whose strings are
 * the keyset's), and its stacks when their arrays went to the keyset's arena.
 */
static void values_to_cache(struct builder *b, int filtered, const struct arena *stacks)
{
	struct keyset *ks = b->keyset;
	const struct report *r = b->r;
	size_t i;

	if (!unfiltered(b, filtered))
		return;
	if (stacks == &ks->stacks_arena) {
		ks->stack = xcalloc(r->nstack + 1, sizeof(*ks->stack));
		memcpy(ks->stack, r->stack, r->nstack * sizeof(*ks->stack));
		ks->nstack = r->nstack;
		ks->has_stacks = 1;
		ks->stacks_si = b->si;
		ks->stacks_mean = b->mean;
		ks->stacks_no_auto_signal_frames = b->o->no_auto_signal_frames;
	}
	if (!ks->valued)
		ks->valued = xcalloc(ks->nentry + 1, sizeof(*ks->valued));
	for (i = 0; i < ks->nentry; i++) {
		ks->valued[i].flat = r->entry[i].flat;
		ks->valued[i].cum = r->entry[i].cum;
		ks->valued[i].kept = r->entry[i].kept;
	}
	ks->si = b->si;
	ks->mean = b->mean;
	ks->no_auto_signal_frames = b->o->no_auto_signal_frames;
	ks->local_total = r->local_total;
	ks->focus_total = r->focus_total;
	ks->kept_total = r->kept_total;
}

/* A location's entries, innermost first. */
static const uint32_t *list_keys(const uint32_t *keys, const uint32_t *lk, uint32_t *n)
{
	if (*lk < LK_LIST) {
		*n = 1;
		return lk;
	}
	*n = keys[*lk & ~LK_LIST];
	return keys + (*lk & ~LK_LIST) + 1;
}

static const uint32_t *loc_keys(const struct builder *b, const uint32_t *lk, uint32_t *n)
{
	return list_keys(b->keys, lk, n);
}

/* Whether re (which: 0 --focus, 1 --ignore) matches the short name of loc's triple j; once per function. */
static int short_matches(struct builder *b, const struct location *loc, int j, const struct regex *re,
			 int which)
{
	struct fninfo *fi;

	if (!loc->nline)
		return regex_matchs(re, triple_short(b, loc, j));
	fi = triple_fi(b, loc, j);
	if (!fi->matches[which])
		fi->matches[which] = regex_matchs(re, fi->shrt) ? 2 : 1;
	return fi->matches[which] == 2;
}

/* Whether every byte of s is one of those in set. */
static int only_of(const char *s, const char *set)
{
	return s[strspn(s, set)] == 0;
}

/*
 * Whether re could match a file:line ("FILE:LINE", "??:LINE", "?") of
 * loc's triple j, which has lines.  A plain string cannot when the file
 * name does not hold it and it has no ':' to cross into the line, nor is
 * made of what a line has: a focus on a name (f_2175) needs neither the
 * (function, line) numbers nor the matching of each line.
 */
static int file_may_match(struct builder *b, const struct location *loc, int j,
			  const struct regex *re, int which)
{
	const char *lit = regex_literal(re);
	struct fninfo *fi;

	if (!lit || strchr(lit, ':') || only_of(lit, "?-0123456789"))
		return 1;
	fi = triple_fi(b, loc, j);
	if (!fi->file_may[which])
		fi->file_may[which] = strstr(triple_line(loc, j)->function->filename, lit) ? 2 : 1;
	return fi->file_may[which] == 2;
}

static int loc_matches(struct builder *b, const struct location *loc, const struct regex *re,
		       int which)
{
	char a[32];
	int j;

	if (b->addr_may[which] && regex_match(re, a, format_addr(b, loc->address, a, sizeof(a))))
		return 1;
	if (!b->li[loc->id - 1].has_syms)
		return 0;
	for (j = 0; j < ntriples(loc); j++) {
		uint8_t *m;

		if (short_matches(b, loc, j, re, which))
			return 1;
		if (!loc->nline) {
			triple_fileline(b, loc, j);
			if (regex_match(re, b->tmp.buf, b->tmp.len))
				return 1;
			continue;
		}
		if (!file_may_match(b, loc, j, re, which))
			continue;
		/* A file:line is matched once, for every location with it. */
		if (!b->flm[which])
			b->flm[which] = xcalloc(fl_table(b)->n + 1, 1);
		m = &b->flm[which][fl_number(b, loc, j)];
		if (!*m) {
			triple_fileline(b, loc, j);
			*m = regex_match(re, b->tmp.buf, b->tmp.len) ? 2 : 1;
		}
		if (*m == 2)
			return 1;
	}
	return 0;
}

static void mark_locations(struct builder *b, const struct regex *focus, const struct regex *ignore)
{
	const struct regex *re[2] = { focus, ignore };
	size_t i, nfocus = 0, nignore = 0;

	/* A plain string of other bytes than hex digits is in no address. */
	for (i = 0; i < 2; i++)
		b->addr_may[i] = re[i] && (!regex_literal(re[i]) ||
					   only_of(regex_literal(re[i]), "0123456789abcdef"));
	for (i = 0; (focus || ignore) && i < b->p->nlocation; i++) {
		const struct location *loc;
		struct locinfo *li = &b->li[i];

		/* Matching reads the location and its lines: hinted ahead. */
		if (i + 32 < b->p->nlocation)
			hint_read(b->p->location[i + 32]);
		if (i + 16 < b->p->nlocation && b->p->location[i + 16]->nline)
			hint_read(triple_line(b->p->location[i + 16], 0));
		loc = b->p->location[i];
		if (focus)
			nfocus += li->focus = (uint8_t)loc_matches(b, loc, focus, 0);
		if (ignore)
			nignore += li->ignore = (uint8_t)loc_matches(b, loc, ignore, 1);
	}
	/* A filter that matches nothing is most likely a mistake: say so. */
	if (focus && !nfocus && !b->o->quiet)
		warnf("--focus='%s' matches no function, file or address of the profile",
		      b->o->focus);
	if (ignore && !nignore && !b->o->quiet)
		warnf("--ignore='%s' matches no function, file or address of the profile",
		      b->o->ignore);
}

/*
 * A stack as pprof sees it after removing second frames: leaf, then
 * loc[k..n).  Only k is kept per sample (in builder.skip); the rest is
 * read from the sample when it is reduced.
 */
struct wstack {
	const struct sample *s;
	const uint32_t *ids;    /* s's location indexes */
	uint32_t n, k;
	uint32_t lo, hi;        /* the frames kept: --prune_from and --show_from cut the rest */
	int64_t count;
};

static int64_t value_of(const struct profile *p, const struct sample *s, int si, int mean);

struct report_cache *report_cache_new(const struct profile *p)
{
	struct report_cache *c = xcalloc(1, sizeof(*c));

	c->p = p;
	c->nsample = p->nsample;
	c->nlocation = p->nlocation;
	c->nfunction = p->nfunction;
	arena_init(&c->names_arena);
	c->names = strtab_new(&c->names_arena);
	return c;
}

void report_cache_free(struct report_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nkeyset; i++) {
		free(c->keyset[i].lk);
		free(c->keyset[i].keys);
		free(c->keyset[i].entry);
		free(c->keyset[i].valued);
		arena_release(&c->keyset[i].strings);
		free(c->keyset[i].stack);
		arena_release(&c->keyset[i].stacks_arena);
	}
	free(c->outer);
	free(c->has_syms);
	fltable_free(c->fl);
	free(c->fi);
	strtab_free(c->names);
	arena_release(&c->names_arena);
	free(c->value);
	if (c->rep)
		free(c->rep->sample);
	free(c->rep);
	code_close(c->code);
	free(c);
}

/* c when it is p's; reports of other profiles (a filtered copy) go without. */
static struct report_cache *cache_for(struct report_cache *c, const struct profile *p)
{
	return c && c->p == p && c->nsample == p->nsample && c->nlocation == p->nlocation &&
	       c->nfunction == p->nfunction ? c : NULL;
}

struct code *report_cache_code(struct report_cache *c, const struct profile *p,
			       const struct symbolize_options *o)
{
	if (!(c = cache_for(c, p)))
		return NULL;
	if (c->code && c->code_o != o) {
		code_close(c->code);
		c->code = NULL;
	}
	if (!c->code) {
		c->code = code_open(p, o);
		c->code_o = o;
	}
	return c->code;
}

/* Sample i as a stack; 0 when it has none.  A cache has its value. */
static int ws_load(struct wstack *w, const struct builder *b, size_t i)
{
	w->s = b->p->sample[i];
	w->k = b->skip[i];
	w->ids = sample_stack(w->s);
	w->n = w->s->nlocation;
	if (!w->n)
		return 0;
	w->count = b->cache ? b->cache->value[i] : value_of(b->p, w->s, b->si, b->mean);
	return 1;
}

static uint32_t ws_at(const struct wstack *w, uint32_t j)
{
	return j ? w->k + j - 1 : 0;
}

/* The index (id - 1) of frame j's location. */
static uint32_t ws_index(const struct wstack *w, uint32_t j)
{
	return w->ids[ws_at(w, j)];
}

static const struct location *ws_frame(const struct profile *p, const struct wstack *w, uint32_t j)
{
	return p->location[ws_index(w, j)];
}

/* skip: each sample's k, 1 to start with; samples without a stack do not count. */
static void remove_second_frames(struct builder *b, uint32_t *skip)
{
	const struct profile *p = b->p;

	for (;;) {
		const struct location *second = NULL;
		const char *name;
		size_t i;

		for (i = 0; i < p->nsample; i++) {
			const struct sample *s = p->sample[i];

			if (!s->nlocation)
				continue;
			if (s->nlocation - skip[i] + 1 < 2)
				return;
			if (!second)
				second = sample_location(p, s, skip[i]);
			else if (sample_location(p, s, skip[i]) != second)
				return;
		}
		if (!second)
			return;
		name = b->li[second->id - 1].has_syms ? triple_short(b, second, 0)
						      : addr_string(b, second->address);
		if (b->o->no_auto_signal_frames) {
			if (!b->o->quiet)
				fprintf(stderr, "All second stack frames are same: `%s'.\n"
					"Might be stack trace capturing bug.\n", name);
			return;
		}
		if (!b->o->quiet)
			fprintf(stderr, "Removing %s from all stack traces.\n", name);
		b->cut = 1;
		for (i = 0; i < p->nsample; i++) {
			const struct sample *s = p->sample[i];

			if (!s->nlocation)
				continue;
			skip[i]++;
			if (s->nlocation - skip[i] + 1 > 2 &&
			    sample_location(p, s, skip[i])->address + 1 ==
				    sample_location(p, s, 0)->address)
				skip[i]++;
		}
	}
}

/*
 * An entry's cum and flat in a reducer, and the stamp of the stack that
 * last saw it: what a stack adds to an entry, in one half of a cache line.
 * A stack's first entry takes its flat where its cum was just added: with
 * the flats apart, --addresses (an entry per address, most of them out of
 * the cache) missed twice on every leaf, and reduced in 82 ms instead of 53.
 */
struct sums {
	int64_t cum, flat;
	uint32_t seen;
} __attribute__((aligned(32)));

/*
 * One thread's share of the reduction: samples [from, to), their sums
 * kept apart so that two threads can reduce at once.
 */
struct reducer {
	struct builder *b;
	size_t from, to;
	int focus, ignore;
	uint32_t *path;         /* a stack's entries */
	struct sums *sum;       /* by entry */
	int64_t local_total, focus_total, kept_total;
	int interrupted;
	/*
	 * keep_stacks: the stacks of its samples, in order, from its place in
	 * the report's array (room for one per sample), their arrays in its arena.
	 */
	struct rstack *stack;
	size_t nstack;
	struct arena arena;
	uint32_t *chain;        /* a stack's entries before de-duplication */
	size_t cap_chain;
	/*
	 * merge_stacks: its stacks by chain and sign of count (same_stack),
	 * unset otherwise; the stacks are then its own array's, and for each
	 * it keeps the index of its first sample and its stack_hash.
	 */
	struct htab merged;
	size_t cap_stack, cap_first, cap_hash;
	uint32_t *first;
	uint64_t *hash;
	int hint_sums;          /* the sums outgrow the cache: hinted too (hint_sums) */
	int copied;             /* merge_stacks: its stacks' arrays went elsewhere (sort_by_first) */
	/* Samples handed out in chunks to both reducers, instead of [from, to); or NULL. */
	struct shared_samples *shared;
	/*
	 * For the cache's struct repeats: the samples whose stacks meet an
	 * entry twice (note); merge_stacks: per merged stack whether its
	 * chain does, and the stamps of the entries a new chain met.
	 */
	int note;
	uint8_t *again;
	size_t cap_again;
	uint32_t *met;
	size_t *repeat, nrepeat, cap_repeat;
};

/*
 * The samples of a reduction that keeps no stacks or merges them, in
 * chunks to whichever reducer comes for the next: halves can cost unlike
 * amounts (the bench's second half took 1.6 times the first's, stacks
 * first met late missing the cache more), sums come out the same in any
 * order, and merged stacks are put in the order of their first samples.
 */
size_t report_chunk = 4096;
struct shared_samples {
	atomic_size_t next;
	size_t n;
};

static int has_bit(const uint64_t *bits, uint32_t i)
{
	return bits[i / 64] >> i % 64 & 1;
}

/*
 * pcs_only (--list, --disasm): a stack with no location in the ranges
 * counts only to entry 0, the other addresses, as its flat and cum when
 * any frame has an entry at all.  Such are nearly all stacks, and their
 * locations' bits (27 kB for the bench's 219k) stay in the cache where
 * their words do not.  1 when w was one.
 */
static int other_only(struct reducer *rd, const struct wstack *w, uint32_t stamp)
{
	const struct builder *b = rd->b;
	const uint32_t *ids = w->ids + w->k - 1;
	int keyed = 0;
	uint32_t j;

	for (j = w->lo; j <= w->hi; j++) {
		uint32_t x = j ? ids[j] : w->ids[0];

		if (has_bit(b->range_bits, x))
			return 0;
		keyed |= has_bit(b->keyed_bits, x);
	}
	if (keyed) {
		rd->sum[0].seen = stamp;
		rd->sum[0].cum = sat_add(rd->sum[0].cum, w->count);
		rd->sum[0].flat = sat_add(rd->sum[0].flat, w->count);
		rd->local_total = sat_add(rd->local_total, w->count);
	}
	return 1;
}

/* struct repeats: sample i's stack meets an entry twice. */
static void note_repeat(struct reducer *rd, size_t i)
{
	GROW(rd->repeat, rd->cap_repeat, rd->nrepeat + 1);
	rd->repeat[rd->nrepeat++] = i;
}

/* merge_stacks: whether the chain of stack stamp meets an entry twice. */
static int meets_twice(struct reducer *rd, const uint32_t *chain, uint32_t n, uint32_t stamp)
{
	uint32_t j;
	int again = 0;

	for (j = 0; j < n; j++) {
		again |= rd->met[chain[j]] == stamp;
		rd->met[chain[j]] = stamp;
	}
	return again;
}

/*
 * reduce_stack without stacks kept: each entry's cum as it is first met,
 * the first one's flat.  The usual case, and the prompt's inner loop.
 */
static void reduce_sums(struct reducer *rd, const struct wstack *w, uint32_t stamp)
{
	const struct builder *b = rd->b;
	const uint32_t *lk = b->lk;
	const uint32_t *keys = b->keys, *ids = w->ids + w->k - 1;
	struct sums *sum = rd->sum;
	int64_t count = w->count;
	uint32_t j, first = UINT32_MAX;

	if (b->range_bits && other_only(rd, w, stamp))
		return;
	/* Frame 0 is ids[0]; frame j > 0 is ids[k + j - 1] (ws_index). */
	for (j = w->lo; j <= w->hi; j++) {
		const uint32_t *k = &lk[j ? ids[j] : w->ids[0]], *end = k + 1;

		if (*k >= LK_LIST) {
			k = keys + (*k & ~LK_LIST) + 1;
			end = k + k[-1];
		}
		for (; k < end; k++) {
			struct sums *e = &sum[*k];

			if (e->seen == stamp)
				continue;
			e->seen = stamp;
			e->cum = sat_add(e->cum, count);
			if (first == UINT32_MAX)
				first = *k;
		}
	}
	if (first == UINT32_MAX)
		return;
	sum[first].flat = sat_add(sum[first].flat, count);
	rd->local_total = sat_add(rd->local_total, count);
}

static int sign_of(int64_t v)
{
	return (v > 0) - (v < 0);
}

/* The hash of a kept stack under merge_stacks: its chain and the sign of its count. */
static uint64_t stack_hash(const uint32_t *chain, uint32_t n, int64_t count)
{
	return hash_bytes(chain, n * sizeof(*chain)) + (uint64_t)(sign_of(count) + 1);
}

/*
 * The stack of rd's with this chain and a count of the same sign, or NULL.
 * Signs stay apart so that a merged count is 0 only when every one was:
 * Go's graphs skip stacks of 0, and a stack that makes no edge must not
 * move another's first edge to its place.
 */
static struct rstack *same_stack(struct reducer *rd, const uint32_t *chain, uint32_t n,
				 int64_t count, uint64_t h, size_t *slot)
{
	size_t i;

	HTAB_FIND(&rd->merged, h, i,
		  rd->stack[rd->merged.slot[i].idx - 1].nchain == n &&
			  sign_of(rd->stack[rd->merged.slot[i].idx - 1].count) == sign_of(count) &&
			  !memcmp(rd->stack[rd->merged.slot[i].idx - 1].chain, chain, n * sizeof(*chain)));
	*slot = i;
	return rd->merged.slot[i].idx ? &rd->stack[rd->merged.slot[i].idx - 1] : NULL;
}

/* A kept stack's count: flat to its first entry, cum to each of its n (distinct) entries. */
static void add_counts(struct reducer *rd, const uint32_t *entry, uint32_t n, int64_t count)
{
	uint32_t j;

	rd->sum[entry[0]].flat = sat_add(rd->sum[entry[0]].flat, count);
	rd->local_total = sat_add(rd->local_total, count);
	for (j = 0; j < n; j++)
		rd->sum[entry[j]].cum = sat_add(rd->sum[entry[j]].cum, count);
}

/* The distinct entries of a chain of nc, in order, into path (sums stamped); returns their number. */
static uint32_t distinct_entries(struct sums *sum, const uint32_t *chain, uint32_t nc,
				 uint32_t stamp, uint32_t *path)
{
	uint32_t j, np = 0;

	for (j = 0; j < nc; j++) {
		if (sum[chain[j]].seen == stamp)
			continue;
		sum[chain[j]].seen = stamp;
		path[np++] = chain[j];
	}
	return np;
}

/* The chain of w, every frame's entries leaf first, into *chain (grown); returns its length. */
static uint32_t make_chain(const struct builder *b, const struct wstack *w, uint32_t **chain,
			   size_t *cap)
{
	uint32_t j, nc = 0;

	for (j = w->lo; j <= w->hi; j++) {
		uint32_t i, n;
		const uint32_t *k = loc_keys(b, &b->lk[ws_index(w, j)], &n);

		GROW(*chain, *cap, nc + n);
		for (i = 0; i < n; i++)
			(*chain)[nc++] = k[i];
	}
	return nc;
}

/*
 * Keeps a stack of nc entries in chain (nc > 0), h its stack_hash when
 * merging: a chain met before only grows its stack's count, a new one is
 * kept with its chain alone (sums_of_merged adds each merged stack's count
 * to the sums once, at the end).  Unmerged, a stack is kept with its
 * entries once each, its count added to their sums.
 */
static void keep_chain(struct reducer *rd, const struct wstack *w, const uint32_t *chain,
		       uint32_t nc, uint64_t h, uint32_t stamp)
{
	uint32_t np, *path = rd->path;
	struct rstack *rs;
	size_t slot = 0;

	if (rd->merged.slot) {
		if ((rs = same_stack(rd, chain, nc, w->count, h, &slot))) {
			rs->count += w->count; /* cannot overflow: reduce_all checked */
			if (rd->note && rd->again[rs - rd->stack])
				note_repeat(rd, stamp - 1);
			return;
		}
		if (rd->note) {
			GROW(rd->again, rd->cap_again, rd->nstack + 1);
			rd->again[rd->nstack] = (uint8_t)meets_twice(rd, chain, nc, (uint32_t)rd->nstack + 1);
			if (rd->again[rd->nstack])
				note_repeat(rd, stamp - 1);
		}
		/* Its chain only: sums_of_merged finds the entries once each. */
		htab_insert(&rd->merged, slot, h, (uint32_t)rd->nstack + 1);
		GROW(rd->stack, rd->cap_stack, rd->nstack + 1);
		GROW(rd->first, rd->cap_first, rd->nstack + 1);
		GROW(rd->hash, rd->cap_hash, rd->nstack + 1);
		rd->first[rd->nstack] = stamp - 1;
		rd->hash[rd->nstack] = h;
		rs = &rd->stack[rd->nstack++];
		rs->n = 0;
		rs->entry = NULL;
	} else {
		np = distinct_entries(rd->sum, chain, nc, stamp, path);
		add_counts(rd, path, np, w->count);
		rs = &rd->stack[rd->nstack++];
		rs->n = np;
		rs->entry = arena_memdup(&rd->arena, path, np * sizeof(*path));
	}
	rs->count = w->count;
	rs->nchain = nc;
	rs->chain = arena_memdup(&rd->arena, chain, nc * sizeof(*chain));
	rs->sample = w->s;
}

/* Adds one stack to the sums: flat to its first entry, cum to each once. */
static void reduce_stack(struct reducer *rd, const struct wstack *w, uint32_t stamp)
{
	uint32_t nc;

	if (!rd->b->o->keep_stacks) {
		reduce_sums(rd, w, stamp);
		return;
	}
	/* Stacks kept unmerged: merging ones go through reduce_merged. */
	if ((nc = make_chain(rd->b, w, &rd->chain, &rd->cap_chain)))
		keep_chain(rd, w, rd->chain, nc, 0, stamp);
}

/* A copy d of location l keeps only the levels Go's filters left. */
static void keep_levels(struct builder *b, struct location *d, const struct location *l)
{
	uint32_t i, n = 0;

	if (!b->gf || !l->nline)
		return;
	GROW(b->lines, b->cap_lines, d->nline);
	for (i = 0; i < d->nline; i++)
		if (gofilter_keeps(b->gf, l, (int)i))
			b->lines[n++] = d->line[i];
	if (n != d->nline)
		profile_set_lines(b->out, d, b->lines, n);
}

/*
 * Go's filters on one stack: the sample's labels, --show_from (callers of
 * the outermost match go; no match, no stack), --prune_from (callees of
 * the innermost match go).  Sets w->lo and w->hi; 0 when nothing is left.
 */
static int cut_stack(struct builder *b, struct wstack *w)
{
	int64_t top = -1, bottom = -1, any = 0;
	uint32_t j;

	w->lo = 0;
	w->hi = w->n - w->k;
	if (!b->gf)
		return 1;
	if (!gofilter_sample(b->gf, w->s))
		return 0;
	for (j = 0; j <= w->n - w->k; j++) {
		const struct location *l = ws_frame(b->p, w, j);
		unsigned fl = gofilter_flags(b->gf, l);

		if ((fl & GF_HIDDEN) || b->li[l->id - 1].uninteresting)
			continue;
		any = 1;
		if (fl & GF_SHOW_FROM)
			top = j;
		if ((fl & GF_PRUNE_FROM) && bottom < 0)
			bottom = j;
	}
	if (!any || (b->gf->show_from && top < 0))
		return 0;
	if (top >= 0)
		w->hi = (uint32_t)top;
	if (bottom >= 0 && bottom <= w->hi)
		w->lo = (uint32_t)bottom;
	return 1;
}

/*
 * --focus and --ignore on one stack (judged by its frames before Go's
 * filters took any out): whether it stays.  focus_total counts what
 * --focus kept.
 */
static int focus_ignore(struct reducer *rd, const struct wstack *w, int focus, int ignore)
{
	const struct builder *b = rd->b;
	int keep = !focus, drop = 0;
	uint32_t j;

	for (j = 0; (focus || ignore) && j <= w->n - w->k; j++) {
		const struct locinfo *li = &b->li[ws_index(w, j)];

		if (li->uninteresting)
			continue;
		keep |= li->focus;
		drop |= li->ignore;
		/* Nothing more to learn. */
		if (keep && (drop || !ignore))
			break;
	}
	if (!keep)
		return 0;
	rd->focus_total = sat_add(rd->focus_total, w->count);
	return !drop;
}

/* report_profile: the stack as reports see it, as a sample of b->out. */
static void copy_stack(struct builder *b, const struct wstack *w)
{
	const struct sample *s = w->s;
	struct profile *out = b->out;
	uint32_t j, n = 0;

	GROW(b->copy, b->cap_copy, w->n - w->k + 2);
	for (j = w->lo; j <= w->hi; j++) {
		const struct location *l = ws_frame(b->p, w, j);
		struct location *d;

		if (b->li[l->id - 1].uninteresting || (gofilter_flags(b->gf, l) & GF_HIDDEN))
			continue;
		/* One location of out per location of p, even where addresses repeat. */
		if (!(d = b->copied[l->id - 1])) {
			d = profile_add_location(out, l->mapping ? out->mapping[l->mapping->id - 1] : NULL,
						 l->address);
			profile_copy_lines(out, d, l);
			keep_levels(b, d, l);
			d->tried = l->tried;
			b->copied[l->id - 1] = d;
		}
		b->copy[n++] = d;
	}
	if (!n)
		return;
	GROW(b->labels, b->cap_labels, s->nlabel + 1);
	for (j = 0; j < s->nlabel; j++) {
		b->labels[j].key = profile_intern(out, sample_labels(s)[j].key);
		b->labels[j].str = profile_intern(out, sample_labels(s)[j].str);
		b->labels[j].num = sample_labels(s)[j].num;
		b->labels[j].num_unit = profile_intern(out, sample_labels(s)[j].num_unit);
	}
	profile_add_sample_labels(out, b->copy, n, sample_value(s), b->labels, s->nlabel);
}

void report_measured_style(const struct profile *p, int si, const struct report_options *o,
			   struct value_style *vs)
{
	const struct value_type *vt = &p->sample_type[si];

	memset(vs, 0, sizeof(*vs));
	vs->unit = vt->type;
	vs->divisor = (double)profile_value_scale(p);
	vs->decimals = 0;
	vs->measure = vt->unit;
	vs->multiplier = 1;
	vs->show = o->unit ? o->unit : "minimum";
	/* Asked for a unit, samples of a periodic profile are amounts of its period. */
	if (o->unit && !strcmp(vt->unit, "count") && p->period > 0 &&
	    units_family(p->period_type.unit)) {
		vs->measure = p->period_type.unit;
		vs->multiplier = p->period;
	}
}

void report_default_style(const struct profile *p, int si, const struct report_options *o,
			  struct value_style *vs)
{
	const struct value_type *vt = p->nsample_type ? &p->sample_type[si] : NULL;

	memset(vs, 0, sizeof(*vs));
	if (vt && o->unit)
		return report_measured_style(p, si, o, vs);
	vs->unit = "samples";
	vs->divisor = 1;
	vs->decimals = 0;
	if (p->value_scale > 1) {
		vs->divisor = (double)p->value_scale;
		vs->whole = 1;
	}
	if (!vt || !strcmp(vt->type, "samples"))
		return;
	if (!strcmp(vt->unit, "nanoseconds")) {
		vs->unit = "s";
		vs->divisor *= 1e9;
		vs->decimals = 2;
		vs->whole = 0;
	} else if (si > 0 && !strcmp(vt->unit, "count")) {
		vs->unit = vt->type;
	}
}

/* The value reports count (o->pick's choice, or --sample_index's), and whether it is a mean. */
static int pick_value(const struct profile *p, const struct report_options *o, int *mean)
{
	int si = o->sample_index;

	*mean = 0;
	if (o->pick)
		o->pick(p, o, &si, mean);
	if (si < 0 || (size_t)si >= p->nsample_type)
		si = 0;
	return si;
}

static int64_t value_of(const struct profile *p, const struct sample *s, int si, int mean)
{
	const int64_t *v = sample_value(s);

	if (!mean)
		return v[si];
	/* A mean keeps the fixed-point unit of the values. */
	return v[0] ? sat_mul(v[si], profile_value_scale(p)) / v[0] : 0;
}

/* Sample s, of value v, added to t. */
static void add_exact(struct exact_totals *t, const struct sample *s, int64_t v)
{
	__int128 a = v < 0 ? -(__int128)v : v;

	t->total += v;
	t->all += a;
	if (s->nlabel && gofilter_diff_base(s)) {
		t->base += a;
		t->diff = 1;
	}
}

/* report_loc_sums_start's thread. */
static void *add_loc_sums(void *arg)
{
	enum { AHEAD = 8 };
	struct loc_sums *ls = arg;
	const struct profile *p = ls->p;
	size_t i, n = p->nsample;
	int over = 0;

	ls->sum = xcalloc_lines(p->nlocation + 1, sizeof(*ls->sum));
	ls->seen = xcalloc(p->nlocation / 64 + 1, sizeof(*ls->seen));
	ls->value = xcalloc(n + 1, sizeof(*ls->value));
	for (i = 0; i < n; i++) {
		const struct sample *s = p->sample[i];
		const uint32_t *ids = sample_stack(s);
		int64_t v = value_of(p, s, ls->si, ls->mean);
		uint32_t j;

		/* The samples ahead, then the sums of their locations. */
		if (i + 2 * AHEAD < n)
			hint_read(p->sample[i + 2 * AHEAD]);
		if (i + AHEAD < n) {
			const struct sample *a = p->sample[i + AHEAD];

			for (j = 0; j < a->nlocation; j++)
				hint_write(&ls->sum[sample_stack(a)[j]]);
		}
		ls->value[i] = v;
		add_exact(&ls->sums, s, v);
		if (!s->nlocation)
			continue;
		over |= __builtin_add_overflow(ls->stacked, v, &ls->stacked);
		over |= __builtin_add_overflow(ls->sum[ids[0]].flat, v, &ls->sum[ids[0]].flat);
		for (j = 0; j < s->nlocation; j++) {
			over |= __builtin_add_overflow(ls->sum[ids[j]].cum, v, &ls->sum[ids[j]].cum);
			ls->seen[ids[j] / 64] |= (uint64_t)1 << ids[j] % 64;
		}
	}
	ls->ok = !over;
	return NULL;
}

struct loc_sums *report_loc_sums_start(const struct profile *p, const struct report_options *o)
{
	struct loc_sums *ls = xcalloc(1, sizeof(*ls));

	ls->p = p;
	ls->si = pick_value(p, o, &ls->mean);
	if (pthread_create(&ls->thread, NULL, add_loc_sums, ls) != 0) {
		free(ls);
		return NULL;
	}
	return ls;
}

/* Whether ls's sums are there to take, once its thread is done. */
static int loc_sums_ready(struct loc_sums *ls)
{
	if (!ls->joined)
		pthread_join(ls->thread, NULL);
	ls->joined = 1;
	return ls->ok;
}

static void *make_lines(void *arg)
{
	struct loc_sums *ls = arg;

	/* One thread: the first report runs beside it. */
	ls->fl = fl_make(ls->p, 0);
	return NULL;
}

void report_loc_sums_symbolized(struct loc_sums *ls)
{
	if (ls)
		ls->symbolized = 1;
}

/* After the first report of p with a cache: fl_make's numbers begin on a thread. */
static void loc_sums_lines_start(struct loc_sums *ls, const struct profile *p)
{
	if (ls && ls->p == p && ls->symbolized && !ls->lines_started)
		ls->lines_started = pthread_create(&ls->lines_thread, NULL, make_lines, ls) == 0;
}

/* The numbers made on ls's thread, for p, given to the caller; NULL when there are none. */
static struct fltable *loc_sums_lines(struct loc_sums *ls, const struct profile *p)
{
	struct fltable *t;

	if (!ls || ls->p != p || !ls->lines_started)
		return NULL;
	if (!ls->lines_joined)
		pthread_join(ls->lines_thread, NULL);
	ls->lines_joined = 1;
	t = ls->fl;
	ls->fl = NULL;
	return t;
}

/*
 * go_totals' sums from exact ones: 1, or 0 when they could have
 * saturated (then the order of the additions matters).  Below INT64_MAX
 * in all, no sum of any of them in any order saturates.
 */
static int exact_to_report(const struct exact_totals *t, struct report *r, int64_t *all,
			   int64_t *base)
{
	if (t->all >= INT64_MAX)
		return 0;
	r->total = (int64_t)t->total;
	*all = (int64_t)t->all;
	*base = (int64_t)t->base;
	r->diff = t->diff;
	return 1;
}

/*
 * go_totals from ls's thread: the samples' values, given to the caller,
 * with their sums; NULL when ls has not them to give.
 */
static int64_t *totals_from_loc_sums(struct loc_sums *ls, const struct profile *p, int si,
				     int mean, struct report *r, int64_t *all, int64_t *base)
{
	int64_t *value;

	if (!ls || ls->p != p || ls->si != si || ls->mean != mean)
		return NULL;
	/* The thread made them: read once it is done. */
	loc_sums_ready(ls);
	if (!ls->value || !exact_to_report(&ls->sums, r, all, base))
		return NULL;
	value = ls->value;
	ls->value = NULL;
	return value;
}

void report_loc_sums_free(struct loc_sums *ls)
{
	if (!ls)
		return;
	loc_sums_ready(ls);
	if (ls->lines_started && !ls->lines_joined)
		pthread_join(ls->lines_thread, NULL);
	fltable_free(ls->fl);
	free(ls->sum);
	free(ls->seen);
	free(ls->value);
	free(ls);
}

int64_t report_sample_value(const struct profile *p, const struct sample *s,
			    const struct report_options *o)
{
	int mean, si = pick_value(p, o, &mean);

	return p->nsample_type ? value_of(p, s, si, mean) : 0;
}

int report_value_index(const struct profile *p, const struct report_options *o)
{
	int mean;

	return pick_value(p, o, &mean);
}

struct total_share {
	const struct profile *p;
	int si, mean;
	int64_t *value;         /* the cache's, or NULL */
	size_t from, to;
	struct exact_totals sums;
};

/* The exact sums of samples [from, to): values, their absolute values, those of the base's. */
static void *total_range(void *arg)
{
	struct total_share *t = arg;
	size_t i;

	for (i = t->from; i < t->to; i++) {
		const struct sample *s = t->p->sample[i];
		int64_t v = value_of(t->p, s, t->si, t->mean);

		if (i + 8 < t->to)
			hint_read(t->p->sample[i + 8]);
		if (t->value)
			t->value[i] = v;
		add_exact(&t->sums, s, v);
	}
	return NULL;
}

/* go_totals of many samples, each half's on a thread, as exact_to_report. */
static int totals_on_two_threads(const struct profile *p, int si, int mean, struct report *r,
				 int64_t *value, int64_t *all, int64_t *base)
{
	struct total_share h[2] = { { .p = p, .si = si, .mean = mean, .value = value },
				    { .p = p, .si = si, .mean = mean, .value = value } };

	h[0].to = h[1].from = p->nsample / 2;
	h[1].to = p->nsample;
	run_both(total_range, &h[0], &h[1]);
	h[0].sums.total += h[1].sums.total;
	h[0].sums.all += h[1].sums.all;
	h[0].sums.base += h[1].sums.base;
	h[0].sums.diff |= h[1].sums.diff;
	return exact_to_report(&h[0].sums, r, all, base);
}

/*
 * The total (the sum of the values), and Go pprof's: the sum of their
 * absolute values, or with --diff_base samples that of theirs alone.
 * Returns whether no sum of these values can saturate, in any order:
 * then the reduction may be split between threads.  A cache keeps the
 * values and the answer.
 */
static int go_totals(const struct profile *p, int si, int mean, struct report *r,
		     struct report_cache *c, struct loc_sums *ls)
{
	int64_t all = 0, base = 0, *taken = NULL;
	size_t i;

	if (c && c->value && c->si == si && c->mean == mean) {
		r->total = c->total;
		r->go_total = c->go_total;
		r->diff = c->diff;
		return c->split;
	}
	/* The cache's first values may be the locations' thread's. */
	if (c && !c->value)
		taken = totals_from_loc_sums(ls, p, si, mean, r, &all, &base);
	if (c) {
		free(c->value);
		c->value = taken ? taken : xcalloc(p->nsample + 1, sizeof(*c->value));
		c->si = si;
		c->mean = mean;
	}
	i = taken ? p->nsample : 0;
	if (!taken && p->nsample >= report_split_min &&
	    totals_on_two_threads(p, si, mean, r, c ? c->value : NULL, &all, &base))
		i = p->nsample;
	for (; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];
		int64_t v = value_of(p, s, si, mean);

		if (c)
			c->value[i] = v;
		r->total = sat_add(r->total, v);
		v = sat_abs(v);
		all = sat_add(all, v);
		if (s->nlabel && gofilter_diff_base(s)) {
			base = sat_add(base, v);
			r->diff = 1;
		}
	}
	r->go_total = r->diff && base > 0 ? base : all;
	r->diff = r->diff && base > 0;
	if (c) {
		c->total = r->total;
		c->go_total = r->go_total;
		c->diff = r->diff;
		c->split = all < INT64_MAX;
	}
	return all < INT64_MAX;
}

/* report_profile: whether frame removal and the filters leave every sample as it is. */
static int unchanged(const struct builder *b, int filtered)
{
	size_t i;

	if (filtered || b->cut)
		return 0;
	for (i = 0; i < b->p->nlocation; i++)
		if (b->li[i].uninteresting)
			return 0;
	return 1;
}

#define AHEAD 12  /* stacks between the hints for a stack's locations and their infos */
#define SUMS_IN_CACHE 16384  /* entries whose sums (32 bytes each, 512 kB) stay in the cache, about */

/* What the reduction reads of location index k, into the cache: its filter flags when filtering. */
static void hint_info(const struct builder *b, uint32_t k, int filter)
{
	if (filter)
		hint_read(&b->li[k]);
	/* pcs_only: the bits are read instead, and are in the cache. */
	if (b->lk && !b->range_bits)
		hint_read(&b->lk[k]);
}

/*
 * The reduction misses the cache on every frame (its sample's stack, then
 * the infos of each location): hint both for the stacks ahead, in two
 * stages.
 */
static void hint(const struct builder *b, size_t i, size_t to, int filter)
{
	const struct sample *s;
	size_t j;

	if (i + 2 * AHEAD < to) {
		/* The sample and its stack's indexes. */
		hint_read(b->p->sample[i + 2 * AHEAD]);
		hint_read((const char *)b->p->sample[i + 2 * AHEAD] + 64);
	}
	if (i + AHEAD < to) {
		s = b->p->sample[i + AHEAD];
		for (j = 0; j < s->nlocation; j++)
			hint_info(b, sample_stack(s)[j], filter);
	}
}

/*
 * A third stage, when the sums are many (--addresses): the sums of the
 * stack AHEAD / 2 ahead, found through its locations' keys hinted before.
 */
static void hint_sums(const struct reducer *rd, size_t i)
{
	const struct builder *b = rd->b;
	const struct sample *s;
	size_t j;

	if (i + AHEAD / 2 >= rd->to)
		return;
	s = b->p->sample[i + AHEAD / 2];
	for (j = 0; j < s->nlocation; j++) {
		uint32_t k = b->lk[sample_stack(s)[j]];

		if (k < LK_LIST)
			hint_read(&rd->sum[k]);
	}
}

/*
 * merge_stacks: each merged stack's count added to the sums, flat to its
 * first entry and cum to each once, as its samples' counts would have been
 * one by one: merging is only done when no sum can saturate, so the order
 * does not matter.
 */
static void sums_of_merged(struct reducer *rd)
{
	size_t i;

	for (i = 0; i < rd->nstack; i++) {
		const struct rstack *s = &rd->stack[i];
		/* Stamped by the stack's place: nothing else marks the sums of merged stacks. */
		uint32_t np = distinct_entries(rd->sum, s->chain, s->nchain, (uint32_t)(i + 1), rd->path);

		add_counts(rd, rd->path, np, s->count);
	}
}

/*
 * Stack i of rd's share, loaded into w (its hints given for the stacks
 * ahead): 1 when it stays, its count then kept; 0 when it has none or the
 * filters take it; -1 when the report was interrupted (looked at every
 * 65536 stacks, before the stack is loaded).
 */
static int take_stack(struct reducer *rd, struct wstack *w, size_t i)
{
	struct builder *b = rd->b;

	/* Looked at whether or not the stack stays: a focus may take most of them. */
	if (b->o->interrupt && !(i & 0xffff) &&
	    atomic_load_explicit(b->o->interrupt, memory_order_relaxed)) {
		rd->interrupted = 1;
		return -1;
	}
	hint(b, i, rd->to, rd->focus || rd->ignore);
	if (rd->hint_sums)
		hint_sums(rd, i);
	if (!ws_load(w, b, i) || !cut_stack(b, w) || !focus_ignore(rd, w, rd->focus, rd->ignore))
		return 0;
	rd->kept_total = sat_add(rd->kept_total, w->count);
	return 1;
}

/*
 * reduce_range when merging stacks: a stack met before costs three
 * dependent misses (its table slot, its stack, the stack's chain), so each
 * stack's chain is made and hashed MERGE_AHEAD stacks before it is looked
 * up, and the three are hinted in stages between.  Stacks are still kept
 * in sample order.
 */
#define MERGE_AHEAD 12

struct ahead {
	struct wstack w;
	uint32_t *chain;
	size_t cap;
	uint32_t nc;            /* 0: no chain to keep */
	uint64_t h;
};

/* The ring's stack made back stacks before stack i, if it has a chain. */
static struct ahead *behind(struct ahead *ring, const struct reducer *rd, size_t i, size_t back)
{
	struct ahead *a;

	if (i < rd->from + back || i - back >= rd->to)
		return NULL;
	a = &ring[(i - back) % MERGE_AHEAD];
	return a->nc ? a : NULL;
}

static int reduce_merged(struct reducer *rd)
{
	struct ahead ring[MERGE_AHEAD], *a;
	size_t i, k;
	uint32_t idx;
	int kept;

	memset(ring, 0, sizeof(ring));
	for (i = rd->from; i < rd->to + MERGE_AHEAD; i++) {
		/* The stack made MERGE_AHEAD ago, whose place in the ring is taken next. */
		if ((a = behind(ring, rd, i, MERGE_AHEAD)))
			keep_chain(rd, &a->w, a->chain, a->nc, a->h, (uint32_t)(i - MERGE_AHEAD + 1));
		if (i < rd->to) {
			a = &ring[i % MERGE_AHEAD];
			a->nc = 0;
			if ((kept = take_stack(rd, &a->w, i)) < 0)
				break;
			if (kept && (a->nc = make_chain(rd->b, &a->w, &a->chain, &a->cap))) {
				a->h = stack_hash(a->chain, a->nc, a->w.count);
				htab_prefetch(&rd->merged, a->h);
			}
		}
		/* A third of the way: the stack the slot names; two thirds: its chain. */
		if ((a = behind(ring, rd, i, MERGE_AHEAD / 3)) && (idx = htab_guess(&rd->merged, a->h)))
			hint_read(&rd->stack[idx - 1]);
		if ((a = behind(ring, rd, i, 2 * MERGE_AHEAD / 3)) && (idx = htab_guess(&rd->merged, a->h)))
			hint_read(rd->stack[idx - 1].chain);
	}
	for (k = 0; k < MERGE_AHEAD; k++)
		free(ring[k].chain);
	return rd->interrupted ? -1 : 0;
}

/* The samples [from, to) of rd; -1 when interrupted. */
static int reduce_span(struct reducer *rd)
{
	size_t i;
	int kept;

	for (i = rd->from; i < rd->to; i++) {
		struct wstack w;

		if ((kept = take_stack(rd, &w, i)) < 0)
			return -1;
		if (!kept)
			continue;
		if (rd->b->out)
			copy_stack(rd->b, &w);
		else
			reduce_stack(rd, &w, (uint32_t)(i + 1));
	}
	return 0;
}

/*
 * A stack's entries, each once, and the sums by entry: made on the
 * reducer's own thread (reduce_range), since with an entry per address
 * (--addresses) the sums are megabytes to zero, each page a fault.
 */
static void reducer_arrays(struct reducer *rd)
{
	rd->path = xcalloc(rd->b->r->nentry + 1, sizeof(*rd->path));
	rd->sum = xcalloc_lines(rd->b->r->nentry + 1, sizeof(*rd->sum));
}

static void *reduce_range(void *arg)
{
	struct reducer *rd = arg;
	int merged = rd->merged.slot != NULL;
	size_t at;

	reducer_arrays(rd);
	if (!rd->shared) {
		if (merged)
			reduce_merged(rd);
		else
			reduce_span(rd);
	}
	/* A chunk at a time, while any is left. */
	while (rd->shared && (at = atomic_fetch_add(&rd->shared->next, report_chunk)) < rd->shared->n) {
		rd->from = at;
		rd->to = at + report_chunk < rd->shared->n ? at + report_chunk : rd->shared->n;
		if ((merged ? reduce_merged(rd) : reduce_span(rd)) < 0)
			break;
	}
	if (merged)
		sums_of_merged(rd);
	return NULL;
}

static void reducer_init(struct reducer *rd, struct builder *b, size_t from, size_t to)
{
	memset(rd, 0, sizeof(*rd));
	rd->b = b;
	rd->from = from;
	rd->to = to;
	rd->hint_sums = b->lk && b->r->nentry >= SUMS_IN_CACHE;
	arena_init(&rd->arena);
}

/*
 * Adds a reducer's sums, and its stacks after those before, to the report
 * (their arrays to the arena stacks); frees them.
 */
static void reducer_finish(struct reducer *rd, struct report *r, struct arena *stacks)
{
	size_t i;

	/* The stacks of the samples before come first: these follow them. */
	if (rd->nstack && rd->stack != r->stack + r->nstack)
		memmove(r->stack + r->nstack, rd->stack, rd->nstack * sizeof(*rd->stack));
	r->nstack += rd->nstack;
	if (rd->copied)
		arena_release(&rd->arena);
	else
		arena_adopt(stacks, &rd->arena);
	free(rd->chain);
	/* merge_stacks: the second's stacks went to the first's array, which is the report's. */
	if (rd->merged.slot && rd->stack != r->stack)
		free(rd->stack);
	htab_release(&rd->merged);
	free(rd->first);
	free(rd->hash);

	for (i = 0; i < r->nentry; i++) {
		r->entry[i].flat = sat_add(r->entry[i].flat, rd->sum[i].flat);
		r->entry[i].cum = sat_add(r->entry[i].cum, rd->sum[i].cum);
		/* On a stack that stayed, even when its values sum to nothing. */
		if (rd->sum[i].seen)
			r->entry[i].kept = 1;
	}
	r->local_total = sat_add(r->local_total, rd->local_total);
	r->focus_total = sat_add(r->focus_total, rd->focus_total);
	r->kept_total = sat_add(r->kept_total, rd->kept_total);
	free(rd->path);
	free(rd->sum);
}

size_t report_split_min = 65536;

/* For sort_by_key: a stack's first sample, then its place. */
static uint64_t first_then_place(const void *x)
{
	return *(const uint64_t *)x;
}

/* Stacks [from, to) of s, their chains copied in that order into the arena. */
struct chain_copy {
	struct rstack *s;
	size_t from, to;
	struct arena arena;
};

static void *copy_chains(void *arg)
{
	struct chain_copy *c = arg;
	size_t i;

	for (i = c->from; i < c->to; i++)
		c->s[i].chain = arena_memdup(&c->arena, c->s[i].chain,
					     c->s[i].nchain * sizeof(*c->s[i].chain));
	return NULL;
}

/*
 * a's stacks in the order of their first samples, as one thread would
 * have met them, their chains copied to arena to in that order: those in
 * the reducers' arenas lie among the arrays of stacks merged away, and the
 * graphs read them all again for every report (a dot of the bench profile
 * took 11.5 ms instead of 7.5 before they were copied).  Many are copied
 * in two halves at once, the second into an arena of its own that to
 * adopts after; their array is one of huge pages, written in one go.
 */
static void sort_by_first(struct reducer *a, struct arena *to)
{
	uint64_t *order = xcalloc(a->nstack + 1, sizeof(*order));
	struct rstack *sorted = xcalloc_lines(a->nstack + 1, sizeof(*sorted));
	struct chain_copy half[2] = { { .s = sorted, .to = a->nstack }, { .s = sorted } };
	size_t i;

	for (i = 0; i < a->nstack; i++)
		order[i] = (uint64_t)a->first[i] << 32 | i;
	sort_by_key(order, a->nstack, sizeof(*order), first_then_place);
	for (i = 0; i < a->nstack; i++)
		sorted[i] = a->stack[(uint32_t)order[i]];
	half[0].arena = *to;
	if (a->nstack >= report_split_min) {
		half[0].to = half[1].from = a->nstack / 2;
		half[1].to = a->nstack;
		run_both(copy_chains, &half[0], &half[1]);
	} else {
		copy_chains(&half[0]);
	}
	*to = half[0].arena;
	arena_adopt(to, &half[1].arena);
	free(order);
	free(a->stack);
	a->stack = sorted;
	a->cap_stack = a->nstack + 1;
	a->copied = 1;
}

/*
 * merge_stacks: the second reducer's stacks added to the first's, each to
 * the one of the same chain and sign (which then starts at the earlier of
 * their first samples), or after them as a new one; then in the order of
 * first samples.  The first's table is hinted for the stacks ahead.
 */
static void merge_reducers(struct reducer *a, struct reducer *b, struct arena *to)
{
	size_t i, slot;
	uint32_t idx;

	for (i = 0; i < b->nstack; i++) {
		const struct rstack *s = &b->stack[i];
		struct rstack *same;

		if (i + MERGE_AHEAD < b->nstack)
			htab_prefetch(&a->merged, b->hash[i + MERGE_AHEAD]);
		if (i + MERGE_AHEAD / 2 < b->nstack &&
		    (idx = htab_guess(&a->merged, b->hash[i + MERGE_AHEAD / 2])))
			hint_read(a->stack[idx - 1].chain);
		same = same_stack(a, s->chain, s->nchain, s->count, b->hash[i], &slot);
		if (same) {
			same->count += s->count;
			/* Its first sample (whose labels tags show) may be the second's. */
			if (b->first[i] < a->first[same - a->stack]) {
				a->first[same - a->stack] = b->first[i];
				same->sample = s->sample;
			}
			continue;
		}
		GROW(a->stack, a->cap_stack, a->nstack + 1);
		GROW(a->first, a->cap_first, a->nstack + 1);
		a->stack[a->nstack] = *s;
		a->first[a->nstack++] = b->first[i];
	}
	if (b->nstack) {
		sort_by_first(a, to);
		b->copied = 1;
	}
	b->nstack = 0;
}

/* Both reducers' samples that met an entry twice, to the cache. */
static void repeats_to_cache(struct builder *b, const struct reducer rd[2])
{
	struct repeats *rp = xcalloc(1, sizeof(*rp));

	rp->by = b->keyset;
	rp->n = rd[0].nrepeat + rd[1].nrepeat;
	rp->sample = xcalloc(rp->n + 1, sizeof(*rp->sample));
	if (rd[0].nrepeat)
		memcpy(rp->sample, rd[0].repeat, rd[0].nrepeat * sizeof(*rp->sample));
	if (rd[1].nrepeat)
		memcpy(rp->sample + rd[0].nrepeat, rd[1].repeat, rd[1].nrepeat * sizeof(*rp->sample));
	b->cache->rep = rp;
}

/*
 * Reduces every sample's stack; 0, or -1 when interrupted.  The samples
 * are split between two threads when the sums come out the same in any
 * order (split, or not saturating) and nothing depends on the order in
 * which stacks are met (a profile written out, Go's filters that count
 * their matches); kept stacks are put back in sample order.
 */
static int reduce_all(struct builder *b, int focus, int ignore, int split, struct arena *stacks,
		      int note)
{
	struct reducer rd[2];
	struct shared_samples shared;
	size_t n = b->p->nsample, mid = n;
	int ret, t;

	if (split && n >= report_split_min && !b->out && !b->gf)
		mid = n / 2;
	reducer_init(&rd[0], b, 0, mid);
	reducer_init(&rd[1], b, mid, n);
	/*
	 * report_profile's copy keeps no stacks.  Merged counts are sums in
	 * another order: only when none can saturate; the reducers grow their
	 * own arrays.
	 */
	if (b->o->keep_stacks && !b->out && b->o->merge_stacks && split) {
		htab_init(&rd[0].merged, 1024);
		htab_init(&rd[1].merged, 1024);
	} else if (b->o->keep_stacks && !b->out) {
		b->r->stack = xcalloc(n + 1, sizeof(*b->r->stack));
		b->r->cap_stack = n + 1;
		rd[0].stack = b->r->stack;
		rd[1].stack = b->r->stack + mid;
	}
	if (mid < n && (!b->o->keep_stacks || rd[0].merged.slot)) {
		atomic_init(&shared.next, 0);
		shared.n = n;
		rd[0].shared = rd[1].shared = &shared;
	}
	rd[0].focus = rd[1].focus = focus;
	rd[0].ignore = rd[1].ignore = ignore;
	for (t = 0; t < 2 && note; t++) {
		rd[t].note = 1;
		if (rd[t].merged.slot)
			rd[t].met = xcalloc(b->r->nentry + 1, sizeof(*rd[t].met));
	}
	if (mid < n) {
		run_both(reduce_range, &rd[0], &rd[1]);
	} else {
		reduce_range(&rd[0]);
		reduce_range(&rd[1]);
	}
	ret = rd[0].interrupted || rd[1].interrupted ? -1 : 0;
	/* An interrupted report's stacks are not kept. */
	if (ret < 0)
		stacks = &b->r->arena;
	if (rd[0].merged.slot) {
		merge_reducers(&rd[0], &rd[1], stacks);
		/* Its array is the report's, with room for the one past the last. */
		GROW(rd[0].stack, rd[0].cap_stack, rd[0].nstack + 1);
		b->r->stack = rd[0].stack;
		b->r->cap_stack = rd[0].cap_stack;
	}
	reducer_finish(&rd[0], b->r, stacks);
	reducer_finish(&rd[1], b->r, stacks);
	if (note && ret == 0)
		repeats_to_cache(b, rd);
	for (t = 0; t < 2; t++) {
		free(rd[t].met);
		free(rd[t].again);
		free(rd[t].repeat);
	}
	/* What filters kept can be far fewer. */
	if (b->r->stack && b->r->nstack + 1 < b->r->cap_stack) {
		b->r->stack = xrealloc(b->r->stack, (b->r->nstack + 1) * sizeof(*b->r->stack));
		b->r->cap_stack = b->r->nstack + 1;
	}
	return ret;
}

static int loc_sums_ready(struct loc_sums *ls);

/*
 * a + b and a - b modulo 2^64: values_from_locations' sums may pass
 * values past int64_t's on their way to their own, which are not (split).
 */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/*
 * An unfiltered report by line, or by file and function, from the
 * locations' sums (o->loc_sums) instead of the stacks: each location's
 * sums go to its entries, then the stacks that the cache's report by
 * function found meeting an entry twice are taken out and reduced as
 * stacks.  That holds when every entry of b's is of one entry of that
 * report's, level by level, and every location has entries: then a stack
 * that meets no entry of that report's twice meets none of b's twice, and
 * its first frame has its flat.  1 when the values were made so; 0 when
 * they cannot be (the stacks are reduced); -1 when interrupted.
 */
static int values_from_locations(struct builder *b, int filtered, int split)
{
	const struct report_options *o = b->o;
	struct loc_sums *ls = o->loc_sums;
	const struct repeats *rp = b->cache ? b->cache->rep : NULL;
	const struct profile *p = b->p;
	struct reducer rd;
	uint32_t *of;
	size_t i;
	int ok = 1;

	if (!ls || ls->p != p || !rp || !split || !unfiltered(b, filtered) || o->keep_stacks ||
	    (o->granularity != GRAN_LINES && o->granularity != GRAN_FILEFUNCTIONS) ||
	    ls->si != b->si || ls->mean != b->mean || b->cut ||
	    !same_name_settings(rp->by->names, name_settings_of(o)) || !loc_sums_ready(ls))
		return 0;
	reducer_init(&rd, b, 0, p->nsample);
	reducer_arrays(&rd);
	/* Per entry, the entry + 1 by function of the levels that have it. */
	of = xcalloc(b->r->nentry + 1, sizeof(*of));
	for (i = 0; ok && i < p->nlocation; i++) {
		const struct locsum *l = &ls->sum[i];
		uint32_t n, nby, j;
		const uint32_t *k = loc_keys(b, &b->lk[i], &n);
		const uint32_t *by = list_keys(rp->by->keys, &rp->by->lk[i], &nby);

		ok = n && n == nby;
		for (j = 0; ok && j < n; j++) {
			if (!of[k[j]])
				of[k[j]] = by[j] + 1;
			ok = of[k[j]] == by[j] + 1;
		}
		if (!ok || !has_bit(ls->seen, (uint32_t)i))
			continue;
		for (j = 0; j < n; j++) {
			rd.sum[k[j]].cum = wrap_add(rd.sum[k[j]].cum, l->cum);
			/* Never a stamp: those are sample places + 1. */
			rd.sum[k[j]].seen = UINT32_MAX;
		}
		rd.sum[k[0]].flat = wrap_add(rd.sum[k[0]].flat, l->flat);
	}
	free(of);
	if (!ok) {
		free(rd.path);
		free(rd.sum);
		return 0;
	}
	for (i = 0; i < rp->n; i++) {
		struct wstack w;
		uint32_t j;
		int kept = take_stack(&rd, &w, rp->sample[i]);

		if (kept < 0)
			break;
		if (!kept)
			continue;
		/* What each frame added, then the stack's own. */
		for (j = 0; j < w.n; j++) {
			uint32_t n, m;
			const uint32_t *k = loc_keys(b, &b->lk[w.ids[j]], &n);

			for (m = 0; m < n; m++)
				rd.sum[k[m]].cum = wrap_sub(rd.sum[k[m]].cum, w.count);
			if (j == 0)
				rd.sum[k[0]].flat = wrap_sub(rd.sum[k[0]].flat, w.count);
		}
		reduce_sums(&rd, &w, (uint32_t)(rp->sample[i] + 1));
	}
	/* Every stack stayed and had entries. */
	rd.local_total = rd.focus_total = rd.kept_total = ls->stacked;
	reducer_finish(&rd, b->r, &b->r->arena);
	return rd.interrupted ? -1 : 1;
}

/*
 * report_build, or with out, report_profile's filling of out; 1 (and out
 * left empty) when out would equal p.
 */
static int build(const struct profile *p, const struct report_options *o, struct report *r,
		 struct profile *out, struct err *e)
{
	struct builder b = { .p = p, .o = o, .r = r, .sb = STRBUF_INIT, .tmp = STRBUF_INIT,
			     .fn = STRBUF_INIT, .out = out };
	struct regex *focus = NULL, *ignore = NULL;
	struct report_options graph_o;
	size_t i;
	int ret = -1, split, from;

	memset(r, 0, sizeof(*r));
	arena_init(&r->arena);
	r->index = xcalloc(1, sizeof(*r->index));
	r->index->keys = strtab_new(&r->arena);
	b.addr_digits = p->address_bits == 32 ? 8 : 16;
	b.qq = intern(&b, "??");
	b.si = pick_value(p, o, &b.mean);
	(o->style ? o->style : report_default_style)(p, b.si, o, &r->style);
	if (o->focus && o->focus[0] && !(focus = regex_compile(o->focus, "--focus", e)))
		goto out;
	if (o->ignore && o->ignore[0] && !(ignore = regex_compile(o->ignore, "--ignore", e)))
		goto out;
	if (o->frames && o->frames->regex &&
	    !(b.frames_re = regex_compile(o->frames->regex, "uninteresting frames", e)))
		goto out;

	b.cache = cache_for(o->cache, p);
	split = go_totals(p, b.si, b.mean, r, b.cache, o->loc_sums);
	b.fi = xcalloc(p->nfunction + 1, sizeof(*b.fi));
	b.li = xcalloc(p->nlocation + 1, sizeof(*b.li));
	build_fninfo(&b);
	locate_all(&b);
	mark_locations(&b, focus, ignore);
	if (gofilter_new(p, o, &b.gf, e) < 0)
		goto out;
	if (out)
		b.copied = xcalloc(p->nlocation + 1, sizeof(*b.copied));
	else if (!keys_from_cache(&b)) {
		b.lk = xcalloc(p->nlocation + 1, sizeof(*b.lk));
		find_overloads(&b);
		build_keys(&b);
		keys_to_cache(&b);
	}

	b.skip = xcalloc(p->nsample + 1, sizeof(*b.skip));
	for (i = 0; i < p->nsample; i++)
		b.skip[i] = 1;
	if (o->frames && o->frames->signal_frames)
		remove_second_frames(&b, b.skip);
	if (out && unchanged(&b, focus || ignore || b.gf)) {
		ret = 1;
		goto out;
	}
	/*
	 * The first report by function without filters (the prompt's, the web
	 * page's) merges its stacks for the cache, as the graphs (tree, peek,
	 * dot) want them: a merged reduction costs as much as theirs, and the
	 * first report has time to spare where they have not.
	 */
	if (o->granularity == GRAN_FUNCTIONS && !o->keep_stacks &&
	    unfiltered(&b, focus || ignore) && split && !b.keyset->has_stacks &&
	    !values_cached(&b, 0)) {
		graph_o = *o;
		graph_o.keep_stacks = graph_o.merge_stacks = 1;
		b.o = &graph_o;
	}
	from = values_from_cache(&b, focus || ignore);
	/* Values from the locations are kept like the stacks' (values_to_cache). */
	if (!from && (from = values_from_locations(&b, focus || ignore, split)) > 0)
		values_to_cache(&b, focus || ignore, &r->arena);
	if (from < 0) {
		err_set(e, "interrupted");
		goto out;
	}
	if (!from) {
		struct arena *stacks = stacks_arena(&b, focus || ignore, split);
		/*
		 * The cache's first report by function without filters (which
		 * merges its stacks) says which stacks meet a function twice.
		 */
		int note = b.cache && !b.cache->rep && o->granularity == GRAN_FUNCTIONS &&
			   !o->show_addresses && o->loc_sums && b.o->keep_stacks &&
			   b.o->merge_stacks && split && unfiltered(&b, focus || ignore) && !b.cut;

		if (reduce_all(&b, focus != NULL, ignore != NULL, split, stacks, note) < 0) {
			err_set(e, "interrupted");
			goto out;
		}
		values_to_cache(&b, focus || ignore, stacks);
		/* The stacks merged for the graphs are the cache's alone. */
		if (b.o == &graph_o) {
			free(r->stack);
			r->stack = NULL;
			r->nstack = r->cap_stack = 0;
		}
	}
	gofilter_warn_tags(b.gf, o);
	if (b.cache)
		loc_sums_lines_start(o->loc_sums, p);
	/* Go pprof's --diff_base: percentages of the base. */
	if (r->diff)
		r->total = r->local_total = r->go_total;
	ret = 0;
out:
	arena_adopt(&r->arena, &b.texts);
	free(b.composed);
	free(b.skip);
	free(b.entry_of);
	if (!b.cache)
		fltable_free(b.fl);
	free(b.flk);
	free(b.flm[0]);
	free(b.flm[1]);
	free(b.fi);
	free(b.li);
	if (!b.keys_cached) {
		free(b.lk);
		free(b.keys);
	}
	free(b.keyed_bits);
	free(b.range_bits);
	if (!b.cache)
		free(b.outer);
	free(b.copy);
	free(b.copied);
	free(b.labels);
	free(b.lines);
	gofilter_free(b.gf);
	sb_release(&b.sb);
	sb_release(&b.tmp);
	sb_release(&b.fn);
	regex_free(focus);
	regex_free(ignore);
	regex_free(b.frames_re);
	/* A failed build leaves nothing for the caller to release. */
	if (ret < 0)
		report_release(r);
	return ret;
}

/* "minimum": the unit Go pprof's text report would choose for these entries. */
static void choose_unit(struct report *r)
{
	int64_t *flat = xcalloc(r->nentry + 1, sizeof(*flat)), *cum = xcalloc(r->nentry + 1, sizeof(*cum));
	size_t i, n = 0;

	for (i = 0; i < r->nentry; i++) {
		if (!r->entry[i].flat && !r->entry[i].cum)
			continue;
		flat[n] = report_measure(&r->style, r->entry[i].flat);
		cum[n++] = report_measure(&r->style, r->entry[i].cum);
	}
	r->style.show = units_report_unit(flat, cum, n, report_measure(&r->style, r->total),
					  r->style.measure);
	free(flat);
	free(cum);
}

int report_build(const struct profile *p, const struct report_options *o, struct report *r,
		 struct err *e)
{
	if (build(p, o, r, NULL, e) < 0)
		return -1;
	if (r->style.measure && (!strcmp(r->style.show, "minimum") || !strcmp(r->style.show, "auto")))
		choose_unit(r);
	return 0;
}

void report_profile_release(const struct profile *p, const struct profile *q)
{
	if (q && q != p)
		profile_free((struct profile *)q);
}

const struct profile *report_profile(const struct profile *p, const struct report_options *o,
				     struct err *e)
{
	struct profile *out = profile_new_like(p);
	struct report r;
	int rc = build(p, o, &r, out, e);

	if (rc < 0) {
		profile_free(out);
		return NULL;
	}
	report_release(&r);
	if (rc == 1) {
		profile_free(out);
		return p;
	}
	return out;
}

void report_release(struct report *r)
{
	if (r->index) {
		strtab_free(r->index->keys);
		htab_release(&r->index->by_address);
		free(r->index);
	}
	free(r->entry);
	free(r->stack);
	arena_release(&r->arena);
	memset(r, 0, sizeof(*r));
}
