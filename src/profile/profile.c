/* profile.c - building the profile model: mappings, locations, functions, samples. */
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "strtab.h"
#include "util.h"

/*
 * Open-addressing tables.  A slot keeps the entry's 64-bit hash beside its
 * 1-based index into the profile array, so probing touches no entry; the
 * location hash is a bijection of the address, so equal hashes are equal
 * addresses there.
 */
struct slot {
	uint64_t hash;
	uint32_t idx;
};

struct table {
	struct slot *slot;
	size_t mask;   /* capacity - 1, capacity a power of two */
	size_t used;
};

struct profile_index {
	struct table loc;    /* by address */
	struct table fn;     /* by all fields */
	struct table sample; /* by stack */
	/* Mappings by start, then by id; rebuilt when mappings were added. */
	struct mapping **by_start;
	uint64_t *max_limit;   /* max_limit[i]: the largest limit among by_start[0..i] */
	size_t nby_start;
};

static void table_init(struct table *t, size_t cap)
{
	t->slot = xcalloc(cap, sizeof(*t->slot));
	t->mask = cap - 1;
	t->used = 0;
}

/* Sets out_slot to the slot for hash h whose entry satisfies eq, or the empty slot. */
#define TABLE_FIND(t, h, eq_expr, out_slot) do {                          \
		size_t i_ = (size_t)(h) & (t)->mask;                            \
		for (;; i_ = (i_ + 1) & (t)->mask) {                            \
			struct slot *s_ = &(t)->slot[i_];                       \
			uint32_t idx = s_->idx;                                 \
			if (!idx || (s_->hash == (h) && (eq_expr))) {           \
				(out_slot) = s_;                                \
				break;                                          \
			}                                                       \
		}                                                               \
	} while (0)

/* Fills an empty slot and grows the table when it gets three quarters full. */
static void table_insert(struct table *t, struct slot *s, uint64_t h, size_t idx)
{
	s->hash = h;
	s->idx = (uint32_t)idx;
	if (++t->used * 4 > (t->mask + 1) * 3) {
		struct table n;
		size_t i;

		table_init(&n, (t->mask + 1) * 2);
		for (i = 0; i <= t->mask; i++) {
			size_t j;

			if (!t->slot[i].idx)
				continue;
			for (j = t->slot[i].hash & n.mask; n.slot[j].idx; j = (j + 1) & n.mask)
				;
			n.slot[j] = t->slot[i];
		}
		n.used = t->used;
		free(t->slot);
		*t = n;
	}
}

struct profile *profile_new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	arena_init(&p->arena);
	arena_init(&p->sample_arena);
	p->strings = strtab_new(&p->arena);
	p->index = xcalloc(1, sizeof(*p->index));
	table_init(&p->index->loc, 1024);
	table_init(&p->index->fn, 256);
	table_init(&p->index->sample, 1024);
	p->period_type.type = p->period_type.unit = profile_intern(p, "");
	p->address_bits = 64;
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	free(p->index->loc.slot);
	free(p->index->fn.slot);
	free(p->index->sample.slot);
	free(p->index->by_start);
	free(p->index->max_limit);
	free(p->index);
	free(p->mapping);
	free(p->location);
	free(p->function);
	free(p->sample);
	free(p->comment);
	free(p->sample_type);
	strtab_free(p->strings);
	arena_release(&p->sample_arena);
	arena_release(&p->arena);
	free(p);
}

const char *profile_intern_n(struct profile *p, const char *s, size_t n)
{
	return strtab_intern(p->strings, s, n);
}

const char *profile_intern(struct profile *p, const char *s)
{
	return strtab_intern(p->strings, s ? s : "", s ? strlen(s) : 0);
}

void profile_set_sample_types(struct profile *p, size_t n, const char *const *type_unit)
{
	size_t i;

	free(p->sample_type);
	p->sample_type = xcalloc(n, sizeof(*p->sample_type));
	p->nsample_type = n;
	for (i = 0; i < n; i++) {
		p->sample_type[i].type = profile_intern(p, type_unit[2 * i]);
		p->sample_type[i].unit = profile_intern(p, type_unit[2 * i + 1]);
	}
}

void profile_add_comment(struct profile *p, const char *text)
{
	GROW(p->comment, p->cap_comment, p->ncomment + 1);
	p->comment[p->ncomment++] = profile_intern(p, text);
}

struct mapping *profile_add_mapping(struct profile *p, uint64_t start, uint64_t limit,
				    uint64_t offset, const char *file, const char *build_id)
{
	struct mapping *m = arena_calloc(&p->arena, 1, sizeof(*m));

	m->start = start;
	m->limit = limit;
	m->offset = offset;
	m->file = profile_intern(p, file);
	m->build_id = profile_intern(p, build_id);
	GROW(p->mapping, p->cap_mapping, p->nmapping + 1);
	p->mapping[p->nmapping++] = m;
	m->id = p->nmapping;
	return m;
}

static int cmp_start(const void *a, const void *b)
{
	const struct mapping *x = *(struct mapping *const *)a, *y = *(struct mapping *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static uint64_t mapping_start(const void *m)
{
	return (*(struct mapping *const *)m)->start;
}

struct mapping *profile_find_mapping(const struct profile *p, uint64_t addr)
{
	struct profile_index *ix = p->index;
	size_t lo, i;

	if (ix->nby_start != p->nmapping) {
		ix->by_start = xrealloc(ix->by_start, (p->nmapping + 1) * sizeof(*ix->by_start));
		memcpy(ix->by_start, p->mapping, p->nmapping * sizeof(*ix->by_start));
		if (p->nmapping > 1)
			qsort(ix->by_start, p->nmapping, sizeof(*ix->by_start), cmp_start);
		ix->max_limit = xrealloc(ix->max_limit, (p->nmapping + 1) * sizeof(*ix->max_limit));
		for (i = 0; i < p->nmapping; i++)
			ix->max_limit[i] = i && ix->max_limit[i - 1] > ix->by_start[i]->limit
						   ? ix->max_limit[i - 1] : ix->by_start[i]->limit;
		ix->nby_start = p->nmapping;
	}
	/* Past the last mapping starting at or below addr, then back. */
	lo = search_above(ix->by_start, p->nmapping, sizeof(*ix->by_start), addr, mapping_start);
	/* Groups of equal start, latest first; in a group the first added wins. */
	for (i = lo; i > 0 && addr < ix->max_limit[i - 1];) {
		size_t first = i - 1, k;

		while (first > 0 && ix->by_start[first - 1]->start == ix->by_start[i - 1]->start)
			first--;
		for (k = first; k < i; k++)
			if (addr < ix->by_start[k]->limit)
				return ix->by_start[k];
		i = first;
	}
	return NULL;
}

struct location *profile_location(struct profile *p, uint64_t addr)
{
	struct table *t = &p->index->loc;
	uint64_t h = hash_u64(addr);
	struct slot *slot;
	struct location *l;

	TABLE_FIND(t, h, 1, slot);
	if (slot->idx)
		return p->location[slot->idx - 1];
	l = arena_calloc(&p->arena, 1, sizeof(*l));
	l->address = addr;
	l->mapping = profile_find_mapping(p, addr);
	GROW(p->location, p->cap_location, p->nlocation + 1);
	p->location[p->nlocation++] = l;
	l->id = p->nlocation;
	table_insert(t, slot, h, p->nlocation);
	return l;
}

static uint64_t fn_hash_fields(const char *name, const char *sys, const char *file,
			       int64_t line, uint64_t addr)
{
	uint64_t h = hash_u64((uintptr_t)name);

	h = hash_u64(h ^ (uintptr_t)sys);
	h = hash_u64(h ^ (uintptr_t)file);
	h = hash_u64(h ^ (uint64_t)line);
	return hash_u64(h ^ addr);
}

struct function *profile_function(struct profile *p, const char *name, const char *system_name,
				  const char *filename, int64_t start_line, uint64_t symbol_address)
{
	struct table *t = &p->index->fn;
	struct slot *slot;
	struct function *f;
	uint64_t h;

	name = profile_intern(p, name);
	system_name = profile_intern(p, system_name);
	filename = profile_intern(p, filename);
	h = fn_hash_fields(name, system_name, filename, start_line, symbol_address);
#define FN_EQ(f) ((f)->name == name && (f)->system_name == system_name && \
		  (f)->filename == filename && (f)->start_line == start_line && \
		  (f)->symbol_address == symbol_address)
	TABLE_FIND(t, h, FN_EQ(p->function[idx - 1]), slot);
#undef FN_EQ
	if (slot->idx)
		return p->function[slot->idx - 1];
	f = arena_calloc(&p->arena, 1, sizeof(*f));
	f->name = name;
	f->system_name = system_name;
	f->filename = filename;
	f->start_line = start_line;
	f->symbol_address = symbol_address;
	GROW(p->function, p->cap_function, p->nfunction + 1);
	p->function[p->nfunction++] = f;
	f->id = p->nfunction;
	table_insert(t, slot, h, p->nfunction);
	return f;
}

void profile_set_lines(struct profile *p, struct location *loc, const struct line *line, size_t n)
{
	loc->nline = (uint32_t)n;
	loc->line = n ? arena_memdup(&p->arena, line, n * sizeof(*line)) : NULL;
}

uint64_t profile_stack_hash(struct location *const *loc, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	size_t i;

	/* Location pointers are unique and stable: hash them without loading them. */
	for (i = 0; i < n; i++)
		h = hash_u64(h ^ (uintptr_t)loc[i]);
	return h;
}

static int same_stack(const struct sample *s, struct location *const *loc, size_t n)
{
	return s->nlocation == n && !memcmp(s->location, loc, n * sizeof(*loc));
}

void profile_prefetch_location(const struct profile *p, uint64_t addr)
{
	const struct table *t = &p->index->loc;

	__builtin_prefetch(&t->slot[hash_u64(addr) & t->mask]);
}

void profile_prefetch_sample(const struct profile *p, uint64_t h)
{
	const struct table *t = &p->index->sample;

	__builtin_prefetch(&t->slot[h & t->mask]);
}

struct sample *profile_add_sample(struct profile *p, struct location *const *loc, size_t n,
				  const int64_t *value)
{
	return profile_add_sample_hashed(p, loc, n, value, profile_stack_hash(loc, n));
}

struct sample *profile_add_sample_hashed(struct profile *p, struct location *const *loc, size_t n,
					 const int64_t *value, uint64_t h)
{
	struct table *t = &p->index->sample;
	struct slot *slot;
	struct sample *s;
	size_t i;

	TABLE_FIND(t, h, same_stack(p->sample[idx - 1], loc, n), slot);
	if (slot->idx) {
		s = p->sample[slot->idx - 1];
		for (i = 0; i < p->nsample_type; i++)
			s->value[i] = sat_add(s->value[i], value[i]);
		return s;
	}
	/* One block: the sample, its values, its stack. */
	s = arena_alloc(&p->sample_arena, sizeof(*s) + p->nsample_type * sizeof(*value) +
			n * sizeof(*loc));
	s->nlocation = (uint32_t)n;
	s->value = (int64_t *)(s + 1);
	memcpy(s->value, value, p->nsample_type * sizeof(*value));
	s->location = n ? (struct location **)(s->value + p->nsample_type) : NULL;
	if (n)
		memcpy(s->location, loc, n * sizeof(*loc));
	GROW(p->sample, p->cap_sample, p->nsample + 1);
	p->sample[p->nsample++] = s;
	table_insert(t, slot, h, p->nsample);
	return s;
}

/* Finds dst's sample with the stack of src's sample s, translating locations. */
static struct location **translate(struct profile *dst, const struct sample *s,
				   struct location ***buf, size_t *cap)
{
	uint32_t i;

	GROW(*buf, *cap, s->nlocation + 1);
	for (i = 0; i < s->nlocation; i++)
		(*buf)[i] = profile_location(dst, s->location[i]->address);
	return *buf;
}

/*
 * Adds src's mappings that dst lacks, behind dst's own (which win where
 * both cover an address), and gives unmapped locations their mapping.
 */
static void import_mappings(struct profile *dst, const struct profile *src)
{
	size_t i, j, n = dst->nmapping;

	for (i = 0; i < src->nmapping; i++) {
		const struct mapping *m = src->mapping[i];
		int have = 0;

		for (j = 0; j < n && !have; j++) {
			const struct mapping *d = dst->mapping[j];

			have = d->start == m->start && d->limit == m->limit && d->offset == m->offset &&
			       !strcmp(d->file, m->file);
		}
		if (!have)
			profile_add_mapping(dst, m->start, m->limit, m->offset, m->file, m->build_id);
	}
	if (dst->nmapping == n)
		return;
	for (i = 0; i < dst->nlocation; i++)
		if (!dst->location[i]->mapping)
			dst->location[i]->mapping = profile_find_mapping(dst, dst->location[i]->address);
}

/*
 * Adds src's samples times scale to dst.  With drop_negative, stacks dst
 * lacks are skipped and results below zero become zero.  Every address of
 * src gets a location in dst even so: pprof symbolizes every address it
 * read, and that order shapes some names.
 */
static void combine(struct profile *dst, const struct profile *src, int64_t scale,
		    int drop_negative)
{
	struct location **buf = NULL;
	int64_t *val = xcalloc(dst->nsample_type, sizeof(*val));
	size_t cap = 0, i, j;

	if (src->nsample_type != dst->nsample_type)
		BUG("combining profiles of different sample types");
	for (i = 0; i < src->nsample; i++) {
		const struct sample *s = src->sample[i];
		struct location **loc = translate(dst, s, &buf, &cap);
		uint64_t h = profile_stack_hash(loc, s->nlocation);
		struct sample *d;

		if (drop_negative) {
			struct table *t = &dst->index->sample;
			struct slot *slot;

			TABLE_FIND(t, h, same_stack(dst->sample[idx - 1], loc, s->nlocation), slot);
			if (!slot->idx)
				continue;
		}
		for (j = 0; j < dst->nsample_type; j++)
			/* scale is 1 or -1; -INT64_MIN does not exist. */
			val[j] = scale > 0 ? s->value[j] : s->value[j] == INT64_MIN ? INT64_MAX : -s->value[j];
		d = profile_add_sample_hashed(dst, loc, s->nlocation, val, h);
		if (drop_negative)
			for (j = 0; j < dst->nsample_type; j++)
				if (d->value[j] < 0)
					d->value[j] = 0;
	}
	free(buf);
	free(val);
}

void profile_merge(struct profile *dst, const struct profile *src, int64_t scale)
{
	import_mappings(dst, src);
	combine(dst, src, scale, 0);
}

void profile_subtract(struct profile *p, const struct profile *base, int drop_negative)
{
	combine(p, base, -1, drop_negative);
}
