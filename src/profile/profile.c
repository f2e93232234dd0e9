/* profile.c - building the profile model: mappings, locations, functions, samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "internal.h"
#include "ranges.h"
#include "strtab.h"
#include "util.h"

/*
 * Locations live in chunks that double in size (64, 128, ...), so that a
 * location's index gives its address by arithmetic: lookups of big
 * profiles then miss the cache once (the table), not twice (the pointer
 * array).
 */
#define LOC_CHUNK_BITS 6

/*
 * The index by address keeps each address in its slot beside the location's
 * id: a lookup reads the one line of its slot, not the location as well
 * (a million records look up a million leaves, mostly in no cache).
 */
struct addr_slot {
	uint64_t addr;
	uint32_t idx;   /* the location's id; 0 marks an empty slot */
	uint32_t unused;
};

struct addr_table {
	struct addr_slot *slot;
	size_t mask, used;
};

struct profile_index {
	struct addr_table loc;  /* by address */
	struct location *loc_chunk[64 - LOC_CHUNK_BITS];
	struct htab fn;      /* by all fields */
	struct htab sample;  /* by stack */
	/* Which mapping holds an address; rebuilt when mappings were added. */
	struct range_index maps;
	size_t nindexed;
};

static void addr_init(struct addr_table *t, size_t cap)
{
	t->slot = htab_slots(cap, sizeof(*t->slot), &t->mask);
	t->used = 0;
}

static void addr_release(struct addr_table *t)
{
	free(t->slot);
	t->slot = NULL;
	t->mask = t->used = 0;
}

/* The slot of addr, or the empty slot where it would go. */
static inline size_t addr_find(const struct addr_table *t, uint64_t addr)
{
	size_t i = (size_t)hash_u64(addr) & t->mask;

	while (t->slot[i].idx && t->slot[i].addr != addr)
		i = (i + 1) & t->mask;
	return i;
}

/* The table again at cap slots (a power of two, more than used). */
static void addr_rehash(struct addr_table *t, size_t cap)
{
	struct addr_table n;
	size_t k;

	addr_init(&n, cap);
	for (k = 0; k <= t->mask; k++)
		if (t->slot[k].idx)
			n.slot[addr_find(&n, t->slot[k].addr)] = t->slot[k];
	n.used = t->used;
	free(t->slot);
	*t = n;
}

/* Fills the empty slot i; grows the table at three quarters full. */
static void addr_insert(struct addr_table *t, size_t i, uint64_t addr, uint32_t idx)
{
	t->slot[i].addr = addr;
	t->slot[i].idx = idx;
	if (++t->used * 4 > (t->mask + 1) * 3)
		addr_rehash(t, 2 * (t->mask + 1));
}

/*
 * Samples live in blocks that grow as the arena's do (arena_grow), and the
 * index by stack holds a sample's reference there instead of its place in
 * p->sample: its block's number (from 1) and its offset in it in 8-byte
 * words.  A lookup then goes from the table's slot to the sample, with no
 * array of pointers between (a miss less on each of a big read's records).
 * A sample over a quarter of the biggest block has memory of its own, and
 * block number 0 with its place among those (from 1) as offset.
 */
#define REF_OFF_BITS 20
#define REF_OFF_MASK ((1u << REF_OFF_BITS) - 1)
_Static_assert(ARENA_MAX_BLOCK <= (size_t)8 << REF_OFF_BITS && ARENA_MAX_BLOCK % HUGE_PAGE == 0,
	       "a block's offsets are 20 bits of 8-byte words, whole huge pages included");

struct sample_block {
	char *base;
	size_t size;
};

struct sample_blocks {
	/* Cache lines of its own: its neighbours on the heap are the reading thread's. */
	_Alignas(64) struct sample_block *block; /* by number; block[0] unused */
	size_t nblock, cap_block;
	char *next;            /* free space in the last block */
	size_t left;
	struct sample **own;   /* the samples with memory of their own */
	size_t nown, cap_own;
};

static void sample_blocks_free(struct sample_blocks *m)
{
	size_t i;

	for (i = 1; i < m->nblock; i++)
		free(m->block[i].base);
	for (i = 0; i < m->nown; i++)
		free((struct label *)m->own[i] - m->own[i]->nlabel);
	free(m->block);
	free(m->own);
	free(m);
}

/* The reference of s, in block k. */
static uint32_t block_ref(const struct sample_blocks *m, size_t k, const struct sample *s)
{
	return (uint32_t)(k << REF_OFF_BITS | (size_t)((const char *)s - m->block[k].base) / 8);
}

/* Room for a sample of bytes bytes whose header is head bytes in; *ref is its reference. */
static struct sample *sample_alloc(struct profile *p, size_t head, size_t bytes, uint32_t *ref)
{
	struct sample_blocks *m = p->sample_blocks;
	struct sample *s;

	if (bytes > m->left) {
		size_t size = arena_grow(m->nblock > 1 ? m->block[m->nblock - 1].size : 0);

		/*
		 * Only a sample over a quarter of the biggest block has memory of
		 * its own: own samples are numbered apart, and a profile of deep
		 * stacks must not spend their numbers while its blocks are small.
		 */
		if (bytes > ARENA_MAX_BLOCK / 4) {
			if (m->nown >= REF_OFF_MASK)
				out_of_room("too many samples to index: over 1048575 with memory of their own");
			s = (struct sample *)((char *)xmalloc(bytes) + head);
			GROW(m->own, m->cap_own, m->nown + 1);
			m->own[m->nown++] = s;
			*ref = (uint32_t)m->nown;
			return s;
		}
		if (size < bytes)
			size = bytes;
		/* Number 0 is the own samples'. */
		if (!m->nblock)
			m->nblock = 1;
		if (m->nblock > UINT32_MAX >> REF_OFF_BITS)
			out_of_room("too many samples to index: over 4095 blocks of them (32 GB)");
		GROW(m->block, m->cap_block, m->nblock + 1);
		m->block[m->nblock].base = arena_block_memory(&size);
		m->block[m->nblock].size = size;
		m->next = m->block[m->nblock++].base;
		m->left = size;
	}
	s = (struct sample *)(m->next + head);
	m->next += bytes;
	m->left -= bytes;
	*ref = block_ref(m, m->nblock - 1, s);
	return s;
}

/* The sample of reference ref. */
static inline struct sample *sample_at(const struct profile *p, uint32_t ref)
{
	const struct sample_blocks *m = p->sample_blocks;
	uint32_t k = ref >> REF_OFF_BITS, off = ref & REF_OFF_MASK;

	return k ? (struct sample *)(m->block[k].base + (size_t)off * 8) : m->own[off - 1];
}

struct profile *profile_new(void)
{
	struct profile *p = xcalloc(1, sizeof(*p));

	arena_init(&p->arena);
	p->sample_blocks = xcalloc_lines(1, sizeof(*p->sample_blocks));
	p->strings = strtab_new(&p->arena);
	p->index = xcalloc(1, sizeof(*p->index));
	addr_init(&p->index->loc, 1024);
	htab_init(&p->index->fn, 256);
	htab_init(&p->index->sample, 1024);
	p->period_type.type = p->period_type.unit = profile_intern(p, "");
	p->drop_frames = p->keep_frames = p->default_sample_type = p->period_type.type;
	p->address_bits = 64;
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	addr_release(&p->index->loc);
	htab_release(&p->index->fn);
	htab_release(&p->index->sample);
	range_index_release(&p->index->maps);
	free(p->index);
	free(p->mapping);
	free(p->location);
	free(p->function);
	free(p->sample);
	free(p->comment);
	free(p->sample_type);
	strtab_free(p->strings);
	sample_blocks_free(p->sample_blocks);
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

struct mapping *profile_find_mapping(const struct profile *p, uint64_t addr)
{
	struct profile_index *ix = p->index;
	size_t i;

	/* A reader that learns its mappings last makes its locations before them. */
	if (!p->nmapping)
		return NULL;
	if (ix->nindexed != p->nmapping) {
		uint64_t *lo = xcalloc(p->nmapping + 1, sizeof(*lo));
		uint64_t *last = xcalloc(p->nmapping + 1, sizeof(*last));

		/* Ids are positions: among equal starts, the one added first wins. */
		for (i = 0; i < p->nmapping; i++) {
			lo[i] = p->mapping[i]->start;
			last[i] = p->mapping[i]->limit - 1;
			if (p->mapping[i]->limit <= p->mapping[i]->start)
				lo[i] = 1, last[i] = 0;
		}
		range_index_build(&ix->maps, lo, last, p->nmapping);
		ix->nindexed = p->nmapping;
		free(lo);
		free(last);
	}
	i = range_index_find(&ix->maps, addr);
	return i == RANGE_NONE ? NULL : p->mapping[i];
}

/* The location of 1-based index id. */
static inline struct location *location_at(const struct profile_index *ix, uint64_t id)
{
	uint64_t v = id - 1 + (1u << LOC_CHUNK_BITS);
	unsigned k = 63 - (unsigned)__builtin_clzll(v) - LOC_CHUNK_BITS;

	return &ix->loc_chunk[k][v - ((uint64_t)1 << (k + LOC_CHUNK_BITS))];
}

static struct location *new_location(struct profile *p, struct mapping *m, uint64_t addr)
{
	struct profile_index *ix = p->index;
	uint64_t v = p->nlocation + (1u << LOC_CHUNK_BITS);
	unsigned k = 63 - (unsigned)__builtin_clzll(v) - LOC_CHUNK_BITS;
	struct location *l;

	/* The first location of a chunk: the chunk, left untouched until used. */
	if (v == (uint64_t)1 << (k + LOC_CHUNK_BITS))
		ix->loc_chunk[k] = arena_alloc(&p->arena, v * sizeof(*l));
	GROW(p->location, p->cap_location, p->nlocation + 1);
	/* Samples hold 32-bit indexes (id - 1). */
	if (p->nlocation >= UINT32_MAX)
		BUG("more than 2^32 - 1 locations");
	l = location_at(ix, p->nlocation + 1);
	memset(l, 0, sizeof(*l));
	l->address = addr;
	l->mapping = m;
	p->location[p->nlocation++] = l;
	l->id = p->nlocation;
	return l;
}

/*
 * The indexes by address and by stack, made again when they were dropped
 * (profile_drop_indexes): at the first addition after a big read.
 */
static __attribute__((noinline)) struct addr_table *loc_index_make(struct profile *p)
{
	struct addr_table *t = &p->index->loc;
	size_t i, k;

	addr_init(t, p->nlocation * 2);
	for (i = 0; i < p->nlocation; i++) {
		/* The first location made at an address is the one found. */
		k = addr_find(t, p->location[i]->address);
		if (!t->slot[k].idx)
			addr_insert(t, k, p->location[i]->address, (uint32_t)(i + 1));
	}
	return t;
}

/* The index by address, made when it was dropped; the test inline, the making not. */
static inline struct addr_table *loc_index(struct profile *p)
{
	return p->index->loc.slot ? &p->index->loc : loc_index_make(p);
}

static uint64_t sample_hash(const struct sample *s);

static __attribute__((noinline)) struct htab *sample_index_make(struct profile *p)
{
	struct htab *t = &p->index->sample;
	const struct sample_blocks *m = p->sample_blocks;
	size_t i, k, block = 1, own = 0;

	htab_init(t, p->nsample * 2);
	/* p->sample is in the order of allocation: the blocks' and the own samples' order. */
	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];
		uint64_t h = sample_hash(s);
		uint32_t ref;

		if (own < m->nown && m->own[own] == s) {
			ref = (uint32_t)++own;
		} else {
			while (block < m->nblock &&
			       ((const char *)s < m->block[block].base ||
				(const char *)s >= m->block[block].base + m->block[block].size))
				block++;
			if (block == m->nblock)
				BUG("a sample outside the profile's blocks");
			ref = block_ref(m, block, s);
		}
		/* Samples are unique: the first empty slot is theirs. */
		HTAB_FIND(t, h, k, 0);
		htab_insert(t, k, h, ref);
	}
	return t;
}

/* The index by stack, made when it was dropped. */
static inline struct htab *sample_index(struct profile *p)
{
	return p->index->sample.slot ? &p->index->sample : sample_index_make(p);
}

void profile_drop_indexes(struct profile *p)
{
	addr_release(&p->index->loc);
	htab_release(&p->index->sample);
}

void profile_index_ensure(struct profile *p)
{
	loc_index(p);
	sample_index(p);
}

uint32_t profile_location_index(struct profile *p, uint64_t addr)
{
	struct addr_table *t = loc_index(p);
	size_t i = addr_find(t, addr);

	if (t->slot[i].idx)
		return t->slot[i].idx - 1;
	new_location(p, profile_find_mapping(p, addr), addr);
	addr_insert(t, i, addr, (uint32_t)p->nlocation);
	return (uint32_t)(p->nlocation - 1);
}

size_t growth_estimate(size_t first, uint64_t at_first, size_t second, uint64_t at_second,
		       uint64_t total)
{
	double power, est;

	if (total <= at_second || !first || second <= first || at_second <= at_first)
		return 0;
	power = log((double)second / (double)first) / log((double)at_second / (double)at_first);
	if (power > 1)
		power = 1;
	est = (double)second * pow((double)total / (double)at_second, power);
	/*
	 * New things may stop coming (a program's start-up is over): the
	 * tables reserved for an estimate past what comes stay that big.
	 */
	if (est > GROWTH_LIMIT * (double)second)
		est = GROWTH_LIMIT * (double)second;
	/* Indexes are 32-bit: no table is sized past them. */
	return est > (double)(UINT32_MAX / 4) ? UINT32_MAX / 4 : (size_t)est;
}

size_t growth_watch(struct growth *g, uint64_t records, size_t count, uint64_t total)
{
	if (!g->first && records >= ESTIMATE_AT) {
		g->first = count;
		g->at_first = records;
	}
	if (!g->first || records < 2 * ESTIMATE_AT)
		return 0;
	g->done = 1;
	return growth_estimate(g->first, g->at_first, count, records, total);
}

void profile_expect_locations(struct profile *p, size_t n)
{
	struct addr_table *t = loc_index(p);

	/* Three quarters full at most, as addr_insert keeps it: htab_slots rounds up. */
	if (n * 4 > (t->mask + 1) * 3)
		addr_rehash(t, (n * 4 + 2) / 3);
}

void profile_expect_samples(struct profile *p, size_t n)
{
	struct htab *t = sample_index(p);

	if (n > t->used)
		htab_reserve(t, n - t->used);
}

struct location *profile_location(struct profile *p, uint64_t addr)
{
	return location_at(p->index, (uint64_t)profile_location_index(p, addr) + 1);
}

struct location *profile_add_location(struct profile *p, struct mapping *m, uint64_t addr)
{
	struct addr_table *t = loc_index(p);
	size_t i = addr_find(t, addr);
	struct location *l = new_location(p, m, addr);

	if (!t->slot[i].idx)
		addr_insert(t, i, addr, (uint32_t)p->nlocation);
	else
		p->shared_addresses = 1;
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
	struct htab *t = &p->index->fn;
	struct function *f;
	uint64_t h;
	size_t i;

	name = profile_intern(p, name);
	system_name = profile_intern(p, system_name);
	filename = profile_intern(p, filename);
	h = fn_hash_fields(name, system_name, filename, start_line, symbol_address);
#define FN_EQ(f) ((f)->name == name && (f)->system_name == system_name && \
		  (f)->filename == filename && (f)->start_line == start_line && \
		  (f)->symbol_address == symbol_address)
	HTAB_FIND(t, h, i, FN_EQ(p->function[t->slot[i].idx - 1]));
#undef FN_EQ
	if (t->slot[i].idx)
		return p->function[t->slot[i].idx - 1];
	f = arena_calloc(&p->arena, 1, sizeof(*f));
	f->name = name;
	f->system_name = system_name;
	f->filename = filename;
	f->start_line = start_line;
	f->symbol_address = symbol_address;
	GROW(p->function, p->cap_function, p->nfunction + 1);
	p->function[p->nfunction++] = f;
	f->id = p->nfunction;
	htab_insert(t, i, h, (uint32_t)p->nfunction);
	return f;
}

void profile_set_lines(struct profile *p, struct location *loc, const struct line *line, size_t n)
{
	loc->nline = (uint32_t)n;
	loc->line = n ? arena_memdup(&p->arena, line, n * sizeof(*line)) : NULL;
}

void profile_share_lines(struct location *loc, const struct location *from)
{
	loc->nline = from->nline;
	loc->line = from->line;
}

/*
 * Stacks are added, hashed and compared as samples hold them: location
 * indexes (id - 1).  The queue's thread works on indexes alone, never on
 * p->location, which the reader may be growing.
 */
uint64_t profile_stack_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
	size_t i;

	/*
	 * Two indexes a step, a multiply and a rotation each (the halves take
	 * turns being the low one), then one full mix: a million stacks of ten
	 * frames are hashed on a chain of dependent steps.
	 */
	for (i = 0; i + 2 <= n; i += 2) {
		memcpy(&w, ids + i, sizeof(w));
		h = (h ^ w) * 0xc2b2ae3d27d4eb4fULL;
		h = h << 32 | h >> 32;
	}
	if (i < n)
		h = (h ^ ids[i]) * 0xc2b2ae3d27d4eb4fULL;
	return hash_u64(h);
}

static uint64_t stack_hash_of(const struct sample *s)
{
	return profile_stack_hash(sample_stack(s), s->nlocation);
}

/* A sample's key is its stack and its labels (in canonical order). */
static int same_sample(const struct sample *s, const uint32_t *ids, size_t n,
		       const struct label *label, size_t nlabel)
{
	return s->nlocation == n && !memcmp(sample_stack(s), ids, n * sizeof(*ids)) &&
	       s->nlabel == nlabel &&
	       (!nlabel || !memcmp(sample_labels(s), label, nlabel * sizeof(*label)));
}

#define FEW_IDS 64      /* stacks up to this deep are converted on the stack */

/* The indexes of the locations of a stack given as pointers, into ids. */
static uint32_t *stack_ids(struct location *const *loc, size_t n, uint32_t *ids)
{
	size_t i;

	ids[0] = 0;  /* an empty stack's array is read for nothing; the compiler cannot tell */
	for (i = 0; i < n; i++)
		ids[i] = (uint32_t)(loc[i]->id - 1);
	return ids;
}

/* Interned strings: equal labels are equal bytes. */
static uint64_t labels_hash(uint64_t h, const struct label *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h = hash_u64(h ^ (uintptr_t)l[i].key);
		h = hash_u64(h ^ (uintptr_t)l[i].str);
		h = hash_u64(h ^ (uint64_t)l[i].num);
		h = hash_u64(h ^ (uintptr_t)l[i].num_unit);
	}
	return h;
}

/* The hash a sample was added with. */
static uint64_t sample_hash(const struct sample *s)
{
	uint64_t h = stack_hash_of(s);

	return s->nlabel ? labels_hash(h, sample_labels(s), s->nlabel) : h;
}

/* Go's order: string labels before numeric ones, each by key. */
static int label_before(const struct label *a, const struct label *b)
{
	int an = !*a->str, bn = !*b->str;

	return an != bn ? an < bn : strcmp(a->key, b->key) < 0;
}

void profile_prefetch_location(const struct profile *p, uint64_t addr)
{
	const struct addr_table *t = &p->index->loc;

	hint_read(&t->slot[hash_u64(addr) & t->mask]);
}

/* The location at addr, if one of the first slots of its probe has it, into the cache. */
void profile_prefetch_location_body(const struct profile *p, uint64_t addr)
{
	const struct addr_table *t = &p->index->loc;
	size_t i = (size_t)hash_u64(addr) & t->mask;
	int k;

	for (k = 0; k < 4 && t->slot[i].idx; k++, i = (i + 1) & t->mask)
		if (t->slot[i].addr == addr) {
			hint_read(location_at(p->index, t->slot[i].idx));
			return;
		}
}

void profile_prefetch_sample(const struct profile *p, uint64_t h)
{
	htab_prefetch(&p->index->sample, h);
}

void profile_prefetch_sample_body(const struct profile *p, uint64_t h)
{
	uint32_t ref = htab_guess(&p->index->sample, h);

	if (ref) {
		const struct sample *s = sample_at(p, ref);

		/* The sample, its values and the start of its stack. */
		hint_read(s);
		hint_read((const char *)s + 64);
	}
}

static struct sample *add_sample(struct profile *p, const uint32_t *ids, size_t n,
				 const int64_t *value, uint64_t h, const struct label *label,
				 size_t nlabel)
{
	struct htab *t = sample_index(p);
	struct sample *s;
	size_t i, k, stack;
	uint32_t ref;

	HTAB_FIND(t, h, k, same_sample(sample_at(p, t->slot[k].idx), ids, n, label, nlabel));
	if (t->slot[k].idx) {
		int64_t *v;

		s = sample_at(p, t->slot[k].idx);
		v = sample_value(s);
		for (i = 0; i < p->nsample_type; i++)
			v[i] = sat_add(v[i], value[i]);
		return s;
	}
	/* One block: its labels, the sample, its stack, its values (8-byte aligned). */
	stack = (sizeof(*s) + n * sizeof(uint32_t) + 7) & ~(size_t)7;
	s = sample_alloc(p, nlabel * sizeof(*label),
			 nlabel * sizeof(*label) + stack + p->nsample_type * sizeof(*value), &ref);
	if (nlabel)
		memcpy((struct label *)s - nlabel, label, nlabel * sizeof(*label));
	s->nlocation = (uint32_t)n;
	s->nlabel = (uint32_t)nlabel;
	if (n)
		memcpy(s + 1, ids, n * sizeof(*ids));
	memcpy((char *)s + stack, value, p->nsample_type * sizeof(*value));
	GROW(p->sample, p->cap_sample, p->nsample + 1);
	p->sample[p->nsample++] = s;
	htab_insert(t, k, h, ref);
	return s;
}

struct sample *profile_add_sample_hashed(struct profile *p, const uint32_t *ids, size_t n,
					 const int64_t *value, uint64_t h)
{
	return add_sample(p, ids, n, value, h, NULL, 0);
}

struct sample *profile_add_sample(struct profile *p, struct location *const *loc, size_t n,
				  const int64_t *value)
{
	uint32_t few[FEW_IDS];
	uint32_t *ids = stack_ids(loc, n, n <= FEW_IDS ? few : xcalloc(n, sizeof(*ids)));
	struct sample *s = add_sample(p, ids, n, value, profile_stack_hash(ids, n), NULL, 0);

	if (ids != few)
		free(ids);
	return s;
}

struct sample *profile_add_sample_labels(struct profile *p, struct location *const *loc, size_t n,
					 const int64_t *value, const struct label *label,
					 size_t nlabel)
{
	struct label few[8], *l;
	uint32_t few_ids[FEW_IDS], *ids;
	struct sample *s;
	size_t i, j;

	if (!nlabel)
		return profile_add_sample(p, loc, n, value);
	l = nlabel <= 8 ? few : xcalloc(nlabel, sizeof(*l));
	/* Insertion sort: stable, and label sets are small. */
	for (i = 0; i < nlabel; i++) {
		for (j = i; j > 0 && label_before(&label[i], &l[j - 1]); j--)
			l[j] = l[j - 1];
		l[j] = label[i];
	}
	ids = stack_ids(loc, n, n <= FEW_IDS ? few_ids : xcalloc(n, sizeof(*ids)));
	s = add_sample(p, ids, n, value, labels_hash(profile_stack_hash(ids, n), l, nlabel), l,
		       nlabel);
	if (ids != few_ids)
		free(ids);
	if (l != few)
		free(l);
	return s;
}

void profile_copy_lines(struct profile *dst, struct location *d, const struct location *l)
{
	struct line few[16], *ln = l->nline <= 16 ? few : xcalloc(l->nline, sizeof(*ln));
	uint32_t i;

	for (i = 0; i < l->nline; i++) {
		const struct function *f = l->line[i].function;

		ln[i].function = profile_function(dst, f->name, f->system_name, f->filename,
						  f->start_line, f->symbol_address);
		ln[i].line = l->line[i].line;
	}
	profile_set_lines(dst, d, ln, l->nline);
	d->is_folded = l->is_folded;
	if (ln != few)
		free(ln);
}

/*
 * Appends s's labels with dst's strings to (*buf)[*n...], then extra (in
 * dst's strings) when given; returns how many.  The order stays canonical.
 */
static uint32_t translate_labels(struct profile *dst, const struct sample *s,
				 const struct label *extra, struct label **buf, size_t *cap,
				 size_t *n)
{
	const struct label *in = sample_labels(s);
	struct label *out;
	uint32_t i;

	GROW(*buf, *cap, *n + s->nlabel + 2);
	out = *buf + *n;
	for (i = 0; i < s->nlabel; i++) {
		out[i].key = profile_intern(dst, in[i].key);
		out[i].str = profile_intern(dst, in[i].str);
		out[i].num = in[i].num;
		out[i].num_unit = profile_intern(dst, in[i].num_unit);
	}
	if (extra)
		out[i++] = *extra;
	*n += i;
	return i;
}

/*
 * Where src's addresses lie in dst: per src mapping (by id), the distance
 * to the dst mapping of the same file and offset.  Two runs of a program
 * load it (and its libraries) at other addresses when the address space is
 * randomized; through its mappings an address of one run finds the same
 * instruction in the other.  Mappings dst lacks are added, behind dst's own
 * (which win where both cover an address).
 */
struct relocation {
	const struct profile *src;
	int64_t *delta;        /* dst address - src address, by src mapping id - 1 */
	struct location **loc; /* dst's location of each src location, by id - 1 */
};

/* One object file at one offset and size: mappings of it in two runs match. */
static uint64_t object_hash(const struct mapping *m)
{
	return hash_u64(hash_bytes(m->file, strlen(m->file)) ^ hash_u64(m->offset) ^
			(m->limit - m->start));
}

static int same_object(const struct mapping *d, const struct mapping *m)
{
	return d->offset == m->offset && d->limit - d->start == m->limit - m->start &&
	       !strcmp(d->file, m->file);
}

/*
 * dst's named mapping i in the table of objects, unless an earlier one of
 * the same object is there (the first wins).  A table, not a scan of dst:
 * merging two profiles of n mappings would cost n * n comparisons.
 */
static void index_object(struct htab *t, const struct profile *dst, size_t i)
{
	const struct mapping *m = dst->mapping[i];
	uint64_t h = object_hash(m);
	size_t k;

	if (!m->file[0])
		return;
	HTAB_FIND(t, h, k, same_object(dst->mapping[t->slot[k].idx - 1], m));
	if (!t->slot[k].idx)
		htab_insert(t, k, h, (uint32_t)i + 1);
}

static void relocation_init(struct relocation *r, struct profile *dst, const struct profile *src)
{
	size_t i, k, n = dst->nmapping;
	struct htab objects;

	r->src = src;
	r->delta = xcalloc(src->nmapping + 1, sizeof(*r->delta));
	r->loc = xcalloc(src->nlocation + 1, sizeof(*r->loc));
	htab_init(&objects, 2 * (n + src->nmapping));
	for (i = 0; i < n; i++)
		index_object(&objects, dst, i);
	for (i = 0; i < src->nmapping; i++) {
		const struct mapping *m = src->mapping[i];
		uint64_t h = object_hash(m);

		HTAB_FIND(&objects, h, k, same_object(dst->mapping[objects.slot[k].idx - 1], m));
		if (m->file[0] && objects.slot[k].idx) {
			r->delta[i] = (int64_t)(dst->mapping[objects.slot[k].idx - 1]->start - m->start);
		} else {
			struct mapping *added = profile_add_mapping(dst, m->start, m->limit,
								    m->offset, m->file, m->build_id);

			added->device = m->device;
			added->inode = m->inode;
			index_object(&objects, dst, dst->nmapping - 1);
		}
	}
	htab_release(&objects);
	if (dst->nmapping == n)
		return;
	for (i = 0; i < dst->nlocation; i++)
		if (!dst->location[i]->mapping)
			dst->location[i]->mapping = profile_find_mapping(dst, dst->location[i]->address);
}

/* Whether two locations (of two profiles) name the same frames. */
static int same_lines(const struct location *a, const struct location *b)
{
	uint32_t i;

	if (a->nline != b->nline)
		return 0;
	for (i = 0; i < a->nline; i++) {
		const struct function *f = a->line[i].function, *g = b->line[i].function;

		if (a->line[i].line != b->line[i].line || strcmp(f->name, g->name) ||
		    strcmp(f->system_name, g->system_name) || strcmp(f->filename, g->filename))
			return 0;
	}
	return 1;
}

/* dst's location for src's location l, made (with l's lines) when missing. */
static struct location *relocate(struct profile *dst, const struct relocation *r,
				 const struct location *l)
{
	uint64_t a = l->address;
	struct location *d;

	if (r->loc[l->id - 1])
		return r->loc[l->id - 1];
	if (l->mapping)
		a += (uint64_t)r->delta[l->mapping->id - 1];
	d = profile_location(dst, a);
	/* Names src already has (a symbolized format) come along. */
	if (l->nline && !d->nline) {
		profile_copy_lines(dst, d, l);
	} else if (l->nline && !same_lines(d, l)) {
		/* Another place at the same address (symbolized formats may say 0). */
		d = profile_add_location(dst, d->mapping, a);
		profile_copy_lines(dst, d, l);
	}
	return r->loc[l->id - 1] = d;
}

/* Hints dst's location table for the frames of s not relocated yet: stage 0 the slot, 1 the location. */
static void relocate_hint(const struct profile *dst, const struct relocation *r,
			  const struct sample *s, int stage)
{
	uint32_t i;

	for (i = 0; i < s->nlocation; i++) {
		const struct location *l = sample_location(r->src, s, i);
		uint64_t a = l->address;

		if (r->loc[l->id - 1])
			continue;
		if (l->mapping)
			a += (uint64_t)r->delta[l->mapping->id - 1];
		if (stage)
			profile_prefetch_location_body(dst, a);
		else
			profile_prefetch_location(dst, a);
	}
}

/* Appends the indexes of dst's locations for the stack of src's sample s to (*buf)[*n...]. */
static uint32_t *translate(struct profile *dst, const struct relocation *r,
			   const struct sample *s, uint32_t **buf, size_t *cap, size_t *n)
{
	uint32_t *out, i;

	GROW(*buf, *cap, *n + s->nlocation + 1);
	out = *buf + *n;
	for (i = 0; i < s->nlocation; i++)
		out[i] = (uint32_t)(relocate(dst, r, sample_location(r->src, s, i))->id - 1);
	*n += s->nlocation;
	return out;
}

/* What src's values are multiplied by to be in dst's fixed-point unit (scales are powers of two). */
static int64_t src_factor(const struct profile *dst, const struct profile *src)
{
	return profile_value_scale(dst) > profile_value_scale(src) ? profile_value_scale(dst) / profile_value_scale(src) : 1;
}

/* Moves p's values to the finer fixed-point unit of value_scale. */
static void rescale(struct profile *p, int64_t value_scale)
{
	int64_t f = value_scale / profile_value_scale(p);
	size_t i, j;

	for (i = 0; i < p->nsample; i++) {
		int64_t *v = sample_value(p->sample[i]);

		for (j = 0; j < p->nsample_type; j++)
			v[j] = sat_mul(v[j], f);
	}
	p->value_scale = value_scale;
}

/* s's values times scale (1 or -1) in dst's fixed-point unit. */
static void scaled_values(const struct profile *dst, const struct profile *src,
			  const struct sample *s, int64_t scale, int64_t *val)
{
	const int64_t *v = sample_value(s);
	size_t j;

	for (j = 0; j < dst->nsample_type; j++)
		/* -INT64_MIN does not exist. */
		val[j] = sat_mul(scale > 0 ? v[j] : v[j] == INT64_MIN ? INT64_MAX : -v[j],
				 src_factor(dst, src));
}

#define MERGE_BATCH 1024 /* samples translated before they are added */
#define MERGE_DISTANCE 16 /* samples between a lookup's two hints */

/*
 * Whether src's samples can be added on the queue's thread while their
 * stacks are translated: the queue carries no labels, and the translation
 * must add no functions (src's locations have no lines to copy).
 */
static int plain_source(const struct profile *src)
{
	size_t i;

	for (i = 0; i < src->nlocation; i++)
		if (src->location[i]->nline)
			return 0;
	for (i = 0; i < src->nsample; i++)
		if (src->sample[i]->nlabel)
			return 0;
	return 1;
}

/*
 * Adds src's samples times scale to dst.  With drop_negative, stacks dst
 * lacks are skipped and results below zero become zero.  Every address of
 * src gets a location in dst even so: pprof symbolizes every address it
 * read, and that order shapes some names.
 */
static void combine(struct profile *dst, const struct profile *src, int64_t scale,
		    int drop_negative, const struct label *extra)
{
	struct relocation rel;
	struct sample_queue *queue;
	uint32_t *buf = NULL;
	struct label *lbuf = NULL;
	int64_t *val = xcalloc(dst->nsample_type, sizeof(*val));
	size_t cap = 0, lcap = 0, i, j, k, nb;
	uint64_t hash[MERGE_BATCH];
	size_t loc_off[MERGE_BATCH], label_off[MERGE_BATCH];
	uint32_t nlabel[MERGE_BATCH];

	if (src->nsample_type != dst->nsample_type)
		BUG("combining profiles of different sample types");
	if (profile_value_scale(src) > profile_value_scale(dst))
		rescale(dst, src->value_scale);
	relocation_init(&rel, dst, src);
	/* The hints below read both tables: a read that ended dropped them. */
	profile_index_ensure(dst);
	queue = !drop_negative && !extra && plain_source(src) ? sample_queue_start(dst) : NULL;
	for (i = 0; i < src->nsample; i += nb) {
		size_t nloc = 0, nlab = 0;

		/* A batch's stacks in dst's terms and their hashes, then the additions, hinted ahead. */
		nb = src->nsample - i < MERGE_BATCH ? src->nsample - i : MERGE_BATCH;
		for (k = 0; k < nb; k++) {
			const struct sample *s = src->sample[i + k];
			uint32_t *ids;

			if (i + k + 2 * MERGE_DISTANCE < src->nsample)
				relocate_hint(dst, &rel, src->sample[i + k + 2 * MERGE_DISTANCE], 0);
			if (i + k + MERGE_DISTANCE < src->nsample)
				relocate_hint(dst, &rel, src->sample[i + k + MERGE_DISTANCE], 1);
			loc_off[k] = nloc;
			label_off[k] = nlab;
			ids = translate(dst, &rel, s, &buf, &cap, &nloc);
			nlabel[k] = translate_labels(dst, s, extra, &lbuf, &lcap, &nlab);
			/* The queue hashes on its own thread. */
			if (!queue)
				hash[k] = labels_hash(profile_stack_hash(ids, s->nlocation),
						      lbuf + label_off[k], nlabel[k]);
		}
		for (k = 0; k < nb; k++) {
			const struct sample *s = src->sample[i + k];
			const uint32_t *ids = buf + loc_off[k];
			struct label *lab = lbuf + label_off[k];
			struct sample *d;

			if (queue) {
				scaled_values(dst, src, s, scale, val);
				sample_queue_push(queue, ids, s->nlocation, val);
				continue;
			}
			if (k + 2 * MERGE_DISTANCE < nb)
				profile_prefetch_sample(dst, hash[k + 2 * MERGE_DISTANCE]);
			if (k + MERGE_DISTANCE < nb)
				profile_prefetch_sample_body(dst, hash[k + MERGE_DISTANCE]);
			if (drop_negative) {
				struct htab *t = sample_index(dst);
				size_t x;

				HTAB_FIND(t, hash[k], x,
					  same_sample(sample_at(dst, t->slot[x].idx), ids,
						      s->nlocation, lab, nlabel[k]));
				if (!t->slot[x].idx)
					continue;
			}
			scaled_values(dst, src, s, scale, val);
			d = add_sample(dst, ids, s->nlocation, val, hash[k], lab, nlabel[k]);
			if (drop_negative) {
				int64_t *v = sample_value(d);

				for (j = 0; j < dst->nsample_type; j++)
					if (v[j] < 0)
						v[j] = 0;
			}
		}
	}
	if (queue)
		sample_queue_finish(queue);
	free(buf);
	free(lbuf);
	free(val);
	free(rel.delta);
	free(rel.loc);
}

void profile_merge(struct profile *dst, const struct profile *src, int64_t scale)
{
	combine(dst, src, scale, 0, NULL);
}

void profile_merge_labeled(struct profile *dst, const struct profile *src, int64_t scale,
			   const char *key, const char *str)
{
	struct label extra;

	extra.key = profile_intern(dst, key);
	extra.str = profile_intern(dst, str);
	extra.num = 0;
	extra.num_unit = profile_intern(dst, "");
	combine(dst, src, scale, 0, &extra);
}

void profile_subtract(struct profile *p, const struct profile *base, int drop_negative)
{
	combine(p, base, -1, drop_negative, NULL);
}

struct profile *profile_new_like(const struct profile *p)
{
	struct profile *q = profile_new();
	size_t i;

	free(q->sample_type);
	q->sample_type = xcalloc(p->nsample_type + 1, sizeof(*q->sample_type));
	q->nsample_type = p->nsample_type;
	for (i = 0; i < p->nsample_type; i++) {
		q->sample_type[i].type = profile_intern(q, p->sample_type[i].type);
		q->sample_type[i].unit = profile_intern(q, p->sample_type[i].unit);
	}
	q->period_type.type = profile_intern(q, p->period_type.type);
	q->period_type.unit = profile_intern(q, p->period_type.unit);
	q->period = p->period;
	q->time_nanos = p->time_nanos;
	q->duration_nanos = p->duration_nanos;
	for (i = 0; i < p->ncomment; i++)
		profile_add_comment(q, p->comment[i]);
	q->address_bits = p->address_bits;
	q->value_scale = p->value_scale;
	q->drop_frames = profile_intern(q, p->drop_frames);
	q->keep_frames = profile_intern(q, p->keep_frames);
	q->default_sample_type = profile_intern(q, p->default_sample_type);
	for (i = 0; i < p->nmapping; i++) {
		const struct mapping *m = p->mapping[i];
		struct mapping *n = profile_add_mapping(q, m->start, m->limit, m->offset, m->file,
							m->build_id);

		n->device = m->device;
		n->inode = m->inode;
		n->has_functions = m->has_functions;
		n->has_filenames = m->has_filenames;
		n->has_line_numbers = m->has_line_numbers;
		n->has_inline_frames = m->has_inline_frames;
	}
	return q;
}
