/* proto.c - writing the model as gzip-compressed profile.proto (the --proto format). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include "htab.h"
#include "proto.h"
#include "report.h"
#include "util.h"

/*
 * The wire format, written directly: varints, keys (field << 3 | wire
 * type) and length-delimited fields.  A nested message is encoded into a
 * scratch buffer first, then copied after its length.  Zero scalars are
 * left out, as proto3 writers do.
 */
struct pbuf {
	uint8_t *b;
	size_t n, cap;
};

enum { VARINT = 0, BYTES = 2 };

static inline void put_varint(struct pbuf *o, uint64_t v)
{
	if (o->cap - o->n < 10)
		GROW(o->b, o->cap, o->n + 10);
	while (v >= 0x80) {
		o->b[o->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	o->b[o->n++] = (uint8_t)v;
}

static inline void put_key(struct pbuf *o, unsigned field, unsigned type)
{
	put_varint(o, (uint64_t)field << 3 | type);
}

/* A varint field; zero is left out. */
static inline void put_uint(struct pbuf *o, unsigned field, uint64_t v)
{
	if (v) {
		put_key(o, field, VARINT);
		put_varint(o, v);
	}
}

static void put_bytes(struct pbuf *o, unsigned field, const void *p, size_t n)
{
	put_key(o, field, BYTES);
	put_varint(o, n);
	GROW(o->b, o->cap, o->n + n);
	if (n)  /* an empty message has no buffer yet */
		memcpy(o->b + o->n, p, n);
	o->n += n;
}

/* The message in scratch as field of o; scratch is emptied. */
static void put_message(struct pbuf *o, unsigned field, struct pbuf *scratch)
{
	put_bytes(o, field, scratch->b, scratch->n);
	scratch->n = 0;
}

struct keyed;

/*
 * The string table: model strings are interned, so a pointer finds its
 * index; indexes follow first use, which makes the output depend on the
 * profile alone.
 */
struct writer {
	const struct profile *p;
	struct htab index;       /* table indexes (+ 1) by string pointer */
	const char **table;
	size_t ntable, cap_table;
	/*
	 * The canonical order: mappings, functions, locations and samples
	 * sorted by content, so equal profiles give equal bytes however they
	 * were built (merged in any grouping, read in any order).  *_of maps
	 * an element's model id - 1 to its position (its id - 1 in the file).
	 */
	const struct mapping **map;
	const struct function **fn;
	const struct location **loc;
	struct keyed *smp;
	uint32_t *map_of, *fn_of, *loc_of;
	/*
	 * Each sample's locations and values, encoded (fields 1 and 2) in one
	 * pass over the samples in memory order, so that writing them in the
	 * canonical order copies bytes instead of chasing pointers again.
	 */
	struct pbuf *pre;
	size_t *pre_off;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_mapping(const void *x, const void *y, void *ctx)
{
	const struct mapping *a = *(const struct mapping *const *)x;
	const struct mapping *b = *(const struct mapping *const *)y;
	int c;

	(void)ctx;
	if ((c = cmp_u64(a->start, b->start)) || (c = cmp_u64(a->limit, b->limit)) ||
	    (c = cmp_u64(a->offset, b->offset)) || (c = strcmp(a->file, b->file)))
		return c;
	return strcmp(a->build_id, b->build_id);
}

static int cmp_function(const void *x, const void *y, void *ctx)
{
	const struct function *a = *(const struct function *const *)x;
	const struct function *b = *(const struct function *const *)y;
	int c;

	(void)ctx;
	if ((c = strcmp(a->name, b->name)) || (c = strcmp(a->system_name, b->system_name)) ||
	    (c = strcmp(a->filename, b->filename)))
		return c;
	if ((c = a->start_line < b->start_line ? -1 : a->start_line > b->start_line))
		return c;
	return cmp_u64(a->symbol_address, b->symbol_address);
}

static int cmp_location(const void *x, const void *y, void *ctx)
{
	const struct location *a = *(const struct location *const *)x;
	const struct location *b = *(const struct location *const *)y;
	const struct writer *w = ctx;
	uint64_t ma = a->mapping ? w->map_of[a->mapping->id - 1] + 1 : 0;
	uint64_t mb = b->mapping ? w->map_of[b->mapping->id - 1] + 1 : 0;
	uint32_t i;
	int c;

	if ((c = cmp_u64(ma, mb)) || (c = cmp_u64(a->address, b->address)) ||
	    (c = cmp_u64(a->nline, b->nline)))
		return c;
	for (i = 0; i < a->nline; i++)
		if ((c = cmp_u64(w->fn_of[a->line[i].function->id - 1],
				 w->fn_of[b->line[i].function->id - 1])) ||
		    (c = cmp_u64((uint64_t)a->line[i].line, (uint64_t)b->line[i].line)))
			return c;
	return cmp_u64(a->is_folded, b->is_folded);
}

static int cmp_label(const struct label *a, const struct label *b)
{
	int c;

	if ((c = strcmp(a->key, b->key)) || (c = strcmp(a->str, b->str)) ||
	    (c = strcmp(a->num_unit, b->num_unit)))
		return c;
	return a->num < b->num ? -1 : a->num > b->num;
}

static int cmp_sample(const void *x, const void *y, void *ctx)
{
	const struct sample *a = *(const struct sample *const *)x;
	const struct sample *b = *(const struct sample *const *)y;
	const struct writer *w = ctx;
	uint32_t i;
	int c;

	for (i = 0; i < a->nlocation && i < b->nlocation; i++)
		if ((c = cmp_u64(w->loc_of[sample_stack(a)[i]], w->loc_of[sample_stack(b)[i]])))
			return c;
	if ((c = cmp_u64(a->nlocation, b->nlocation)))
		return c;
	for (i = 0; i < a->nlabel && i < b->nlabel; i++)
		if ((c = cmp_label(&sample_labels(a)[i], &sample_labels(b)[i])))
			return c;
	return cmp_u64(a->nlabel, b->nlabel);
}

/*
 * Samples by a hash of their content (locations in canonical order, then
 * labels), ties by the content itself: a canonical order that costs one
 * pass over the stacks and a sort of integers.
 */
struct keyed {
	uint64_t hash;
	uint32_t idx;           /* in p->sample */
	uint32_t nlabel;        /* the sample's, so that writing need not look */
};

static int cmp_keyed(const void *x, const void *y, void *ctx)
{
	const struct keyed *a = x, *b = y;
	const struct writer *w = ctx;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return cmp_sample(&w->p->sample[a->idx], &w->p->sample[b->idx], ctx);
}

/*
 * The hash's high half: sorted by it (four passes of the radix sort, not
 * eight), then each run of equal halves by cmp_keyed, the order is the full
 * hash's all the same.
 */
static uint64_t keyed_top(const void *k)
{
	return ((const struct keyed *)k)->hash >> 32;
}

/* Orders each run of elements that sort_by_key left equal by cmp. */
static void sort_ties(void *base, size_t n, size_t sz, uint64_t (*key)(const void *),
		      int (*cmp)(const void *, const void *, void *), void *ctx)
{
	char *b = base;
	size_t i = 0, j;

	while (i < n) {
		for (j = i + 1; j < n && key(b + j * sz) == key(b + i * sz); j++)
			;
		if (j - i > 1)
			qsort_r(b + i * sz, j - i, sz, cmp, ctx);
		i = j;
	}
}

#define AHEAD 4  /* samples between the hints for their locations and for loc_of */

/*
 * The stacks miss the cache at every frame (the location, then its
 * position): both are hinted for the samples ahead, in two stages.
 */
static void hint(const struct writer *w, size_t i)
{
	const struct profile *p = w->p;
	const struct sample *s;
	uint32_t j;

	if (i + 2 * AHEAD < p->nsample) {
		/* The sample and its stack's indexes. */
		hint_read(p->sample[i + 2 * AHEAD]);
		hint_read((const char *)p->sample[i + 2 * AHEAD] + 64);
	}
	if (i + AHEAD < p->nsample) {
		s = p->sample[i + AHEAD];
		for (j = 0; j < s->nlocation; j++)
			hint_read(&w->loc_of[sample_stack(s)[j]]);
	}
}

/* A sample's fields 1 (packed location ids) and 2 (packed values) into o. */
static void pre_encode(const struct writer *w, const struct sample *s, struct pbuf *o,
		       struct pbuf *u)
{
	int64_t scale = profile_value_scale(w->p);
	size_t k;
	uint32_t j;

	for (j = 0; j < s->nlocation; j++)
		put_varint(u, w->loc_of[sample_stack(s)[j]] + 1);
	if (u->n)
		put_message(o, 1, u);
	/* Fixed-point values become whole numbers, fractions dropped (Go's int64()). */
	for (k = 0; k < w->p->nsample_type; k++)
		put_varint(u, (uint64_t)(sample_value(s)[k] / (scale > 1 ? scale : 1)));
	if (u->n)
		put_message(o, 2, u);
}

/* Samples [from, to): their keys, and their encodings in pre (offsets from its start). */
struct pre_part {
	struct writer *w;
	size_t from, to;
	struct pbuf pre;
};

static void *pre_part_run(void *arg)
{
	struct pre_part *part = arg;
	struct writer *w = part->w;
	const struct profile *p = w->p;
	struct pbuf u = { 0 };
	size_t i;
	uint32_t j;

	for (i = part->from; i < part->to; i++) {
		const struct sample *s = p->sample[i];
		uint64_t h = hash_u64(s->nlocation);

		hint(w, i);
		for (j = 0; j < s->nlocation; j++)
			h = hash_u64(h ^ w->loc_of[sample_stack(s)[j]]);
		for (j = 0; j < s->nlabel; j++) {
			h = hash_u64(h ^ hash_bytes(sample_labels(s)[j].key, strlen(sample_labels(s)[j].key)));
			h = hash_u64(h ^ hash_bytes(sample_labels(s)[j].str, strlen(sample_labels(s)[j].str)));
			h = hash_u64(h ^ (uint64_t)sample_labels(s)[j].num);
		}
		w->smp[i].hash = h;
		w->smp[i].idx = (uint32_t)i;
		w->smp[i].nlabel = s->nlabel;
		w->pre_off[i] = part->pre.n;
		pre_encode(w, s, &part->pre, &u);
	}
	free(u.b);
	return NULL;
}

/* Big profiles take both halves of the samples at once. */
#define PARALLEL_SAMPLES 65536

static void order_samples(struct writer *w)
{
	const struct profile *p = w->p;
	struct pre_part a = { w, 0, p->nsample, { 0 } }, b = { w, p->nsample, p->nsample, { 0 } };
	pthread_t t;
	int two = 0;
	size_t i;

	w->smp = xcalloc(p->nsample + 1, sizeof(*w->smp));
	w->pre_off = xcalloc(p->nsample + 1, sizeof(*w->pre_off));
	if (p->nsample >= PARALLEL_SAMPLES) {
		a.to = b.from = p->nsample / 2;
		two = pthread_create(&t, NULL, pre_part_run, &b) == 0;
		if (!two)
			a.to = p->nsample;
	}
	pre_part_run(&a);
	if (two) {
		pthread_join(t, NULL);
		/* One buffer, the second half's offsets after the first's bytes. */
		for (i = b.from; i < b.to; i++)
			w->pre_off[i] += a.pre.n;
		GROW(a.pre.b, a.pre.cap, a.pre.n + b.pre.n);
		if (b.pre.n)
			memcpy(a.pre.b + a.pre.n, b.pre.b, b.pre.n);
		a.pre.n += b.pre.n;
		free(b.pre.b);
	}
	w->pre = xcalloc(1, sizeof(*w->pre));
	*w->pre = a.pre;
	w->pre_off[p->nsample] = w->pre->n;
	sort_by_key(w->smp, p->nsample, sizeof(*w->smp), keyed_top);
	sort_ties(w->smp, p->nsample, sizeof(*w->smp), keyed_top, cmp_keyed, w);
}

/* Sorts n pointers of v by cmp, and records each one's position by its id. */
#define ORDER(w, v, src, n, cmp, of)                                                    \
	do {                                                                           \
		size_t i_;                                                             \
		(v) = xcalloc((n) + 1, sizeof(*(v)));                                  \
		if (n)                                                                 \
			memcpy((void *)(v), (src), (n) * sizeof(*(v)));                \
		if ((n) > 1)                                                           \
			qsort_r((void *)(v), (n), sizeof(*(v)), (cmp), (w));           \
		for (i_ = 0; i_ < (n); i_++)                                           \
			(of)[(v)[i_]->id - 1] = (uint32_t)i_;                          \
	} while (0)

/* Locations by mapping and address (integers, sorted in linear time), then by cmp_location. */
struct loc_key {
	uint64_t addr;
	uint64_t map;           /* the mapping's position + 1, 0 for none */
	const struct location *l;
};

static uint64_t loc_key_addr(const void *k)
{
	return ((const struct loc_key *)k)->addr;
}

static uint64_t loc_key_map(const void *k)
{
	return ((const struct loc_key *)k)->map;
}

static uint64_t (*const by_map_then_addr[])(const void *) = { loc_key_map, loc_key_addr };

/* The key of both sorts, for the ties left: equal mappings and addresses. */
static uint64_t loc_key_both(const void *k)
{
	const struct loc_key *x = k;

	return hash_u64(x->map) ^ x->addr;
}

static int cmp_loc_key(const void *x, const void *y, void *ctx)
{
	return cmp_location(&((const struct loc_key *)x)->l, &((const struct loc_key *)y)->l, ctx);
}

static void order_locations(struct writer *w)
{
	const struct profile *p = w->p;
	struct loc_key *k = xcalloc(p->nlocation + 1, sizeof(*k));
	size_t i;

	for (i = 0; i < p->nlocation; i++) {
		const struct location *l = p->location[i];

		k[i].addr = l->address;
		k[i].map = l->mapping ? w->map_of[l->mapping->id - 1] + 1 : 0;
		k[i].l = l;
	}
	sort_by_keys(k, p->nlocation, sizeof(*k), by_map_then_addr, 2);
	sort_ties(k, p->nlocation, sizeof(*k), loc_key_both, cmp_loc_key, w);
	w->loc = xcalloc(p->nlocation + 1, sizeof(*w->loc));
	for (i = 0; i < p->nlocation; i++) {
		w->loc[i] = k[i].l;
		w->loc_of[k[i].l->id - 1] = (uint32_t)i;
	}
	free(k);
}

static void canonical_order(struct writer *w)
{
	const struct profile *p = w->p;

	w->map_of = xcalloc(p->nmapping + 1, sizeof(*w->map_of));
	w->fn_of = xcalloc(p->nfunction + 1, sizeof(*w->fn_of));
	w->loc_of = xcalloc(p->nlocation + 1, sizeof(*w->loc_of));
	ORDER(w, w->map, p->mapping, p->nmapping, cmp_mapping, w->map_of);
	ORDER(w, w->fn, p->function, p->nfunction, cmp_function, w->fn_of);
	order_locations(w);
	order_samples(w);
}

static void canonical_release(struct writer *w)
{
	free(w->map);
	free(w->fn);
	free(w->loc);
	free(w->smp);
	if (w->pre)
		free(w->pre->b);
	free(w->pre);
	free(w->pre_off);
	free(w->map_of);
	free(w->fn_of);
	free(w->loc_of);
}

static int64_t str_index(struct writer *w, const char *s)
{
	uint64_t h;
	size_t j;

	if (!s || !*s)
		return 0;
	h = hash_u64((uintptr_t)s);
	HTAB_FIND(&w->index, h, j, w->table[w->index.slot[j].idx - 1] == s);
	if (w->index.slot[j].idx)
		return w->index.slot[j].idx - 1;
	GROW(w->table, w->cap_table, w->ntable + 1);
	w->table[w->ntable++] = s;
	htab_insert(&w->index, j, h, (uint32_t)w->ntable);
	return (int64_t)w->ntable - 1;
}

static void put_value_type(struct writer *w, struct pbuf *o, unsigned field,
			   const struct value_type *vt, struct pbuf *t)
{
	put_uint(t, 1, (uint64_t)str_index(w, vt->type));
	put_uint(t, 2, (uint64_t)str_index(w, vt->unit));
	put_message(o, field, t);
}

/* What the locations of one mapping carry, for its has_* flags. */
struct carried {
	size_t nloc;
	unsigned missing_lines : 1, missing_files : 1, missing_numbers : 1, inlines : 1;
};

static struct carried *scan_locations(const struct profile *p)
{
	struct carried *c = xcalloc(p->nmapping + 1, sizeof(*c));
	size_t i;
	uint32_t j;

	for (i = 0; i < p->nlocation; i++) {
		const struct location *l = p->location[i];
		struct carried *k;

		if (!l->mapping)
			continue;
		k = &c[l->mapping->id - 1];
		k->nloc++;
		k->missing_lines |= !l->nline;
		k->inlines |= l->nline > 1;
		for (j = 0; j < l->nline; j++) {
			k->missing_files |= !*l->line[j].function->filename;
			k->missing_numbers |= l->line[j].line <= 0;
		}
	}
	return c;
}

static void put_mappings(struct writer *w, struct pbuf *o, struct pbuf *t)
{
	const struct profile *p = w->p;
	struct carried *c = scan_locations(p);
	size_t i;

	for (i = 0; i < p->nmapping; i++) {
		const struct mapping *m = w->map[i];
		const struct carried *k = &c[m->id - 1];
		int fn = k->nloc && !k->missing_lines;

		put_uint(t, 1, i + 1);
		put_uint(t, 2, m->start);
		put_uint(t, 3, m->limit);
		put_uint(t, 4, m->offset);
		put_uint(t, 5, (uint64_t)str_index(w, m->file));
		put_uint(t, 6, (uint64_t)str_index(w, m->build_id));
		put_uint(t, 7, fn);
		put_uint(t, 8, fn && !k->missing_files);
		put_uint(t, 9, fn && !k->missing_numbers);
		put_uint(t, 10, fn && (k->inlines || m->has_inline_frames));
		put_message(o, 3, t);
	}
	free(c);
}

static void put_functions(struct writer *w, struct pbuf *o, struct pbuf *t)
{
	size_t i;

	for (i = 0; i < w->p->nfunction; i++) {
		const struct function *f = w->fn[i];

		put_uint(t, 1, i + 1);
		put_uint(t, 2, (uint64_t)str_index(w, f->name));
		put_uint(t, 3, (uint64_t)str_index(w, f->system_name));
		put_uint(t, 4, (uint64_t)str_index(w, f->filename));
		put_uint(t, 5, (uint64_t)f->start_line);
		put_message(o, 5, t);
	}
}

static void put_locations(struct writer *w, struct pbuf *o, struct pbuf *t, struct pbuf *u)
{
	size_t i;
	uint32_t j;

	for (i = 0; i < w->p->nlocation; i++) {
		const struct location *l = w->loc[i];

		if (i + 8 < w->p->nlocation)
			hint_read(w->loc[i + 8]);
		put_uint(t, 1, i + 1);
		put_uint(t, 2, l->mapping ? w->map_of[l->mapping->id - 1] + 1 : 0);
		put_uint(t, 3, l->address);
		for (j = 0; j < l->nline; j++) {
			put_uint(u, 1, w->fn_of[l->line[j].function->id - 1] + 1);
			put_uint(u, 2, (uint64_t)l->line[j].line);
			put_message(t, 4, u);
		}
		put_uint(t, 5, l->is_folded);
		put_message(o, 4, t);
	}
}

/* Samples: packed location ids and values (encoded already), labels. */
static void put_samples(struct writer *w, struct pbuf *o, struct pbuf *u)
{
	const struct profile *p = w->p;
	size_t i;
	uint32_t j;

	for (i = 0; i < p->nsample; i++) {
		uint32_t idx = w->smp[i].idx;
		size_t off = w->pre_off[idx], n = w->pre_off[idx + 1] - off;

		/* In this order the encodings are scattered: hint the ones ahead. */
		if (i + 16 < p->nsample)
			hint_read(&w->pre_off[w->smp[i + 16].idx]);
		if (i + 8 < p->nsample)
			hint_read(w->pre->b + w->pre_off[w->smp[i + 8].idx]);
		/* Labels take their strings' indexes now, in the canonical order. */
		for (j = 0; j < w->smp[i].nlabel; j++) {
			const struct label *l = &sample_labels(p->sample[idx])[j];
			struct pbuf v = { 0 };

			put_uint(&v, 1, (uint64_t)str_index(w, l->key));
			put_uint(&v, 2, (uint64_t)str_index(w, l->str));
			if (!*l->str) {
				put_uint(&v, 3, (uint64_t)l->num);
				put_uint(&v, 4, (uint64_t)str_index(w, l->num_unit));
			}
			put_message(u, 3, &v);
			free(v.b);
		}
		put_key(o, 2, BYTES);
		put_varint(o, n + u->n);
		GROW(o->b, o->cap, o->n + n + u->n);
		/* A sample with no stack, values or labels encodes to nothing (and no buffer). */
		if (n)
			memcpy(o->b + o->n, w->pre->b + off, n);
		if (u->n)
			memcpy(o->b + o->n + n, u->b, u->n);
		o->n += n + u->n;
		u->n = 0;
	}
}

/*
 * The Profile message in field order.  Strings get their indexes in the
 * order of first use; those of fields after the string table (6) are
 * taken first, so that the table is complete when it is written.
 */
static void encode(struct writer *w, struct pbuf *o)
{
	const struct profile *p = w->p;
	struct pbuf t = { 0 }, u = { 0 };
	int64_t *comment = xcalloc(p->ncomment + 1, sizeof(*comment));
	int64_t drop, keep, dflt, pt_type, pt_unit;
	size_t i;

	for (i = 0; i < p->nsample_type; i++)
		put_value_type(w, o, 1, &p->sample_type[i], &t);
	for (i = 0; i < p->ncomment; i++)
		comment[i] = str_index(w, p->comment[i]);
	drop = str_index(w, p->drop_frames);
	keep = str_index(w, p->keep_frames);
	dflt = str_index(w, p->default_sample_type);
	pt_type = str_index(w, p->period_type.type);
	pt_unit = str_index(w, p->period_type.unit);
	put_samples(w, o, &u);
	/* Copied into o: the rest of the encoding can have the memory. */
	free(w->pre->b);
	w->pre->b = NULL;
	put_mappings(w, o, &t);
	put_locations(w, o, &t, &u);
	put_functions(w, o, &t);
	for (i = 0; i < w->ntable; i++)
		put_bytes(o, 6, w->table[i], strlen(w->table[i]));
	put_uint(o, 7, (uint64_t)drop);
	put_uint(o, 8, (uint64_t)keep);
	put_uint(o, 9, (uint64_t)p->time_nanos);
	put_uint(o, 10, (uint64_t)p->duration_nanos);
	if (pt_type || pt_unit) {
		put_uint(&u, 1, (uint64_t)pt_type);
		put_uint(&u, 2, (uint64_t)pt_unit);
		put_message(o, 11, &u);
	}
	put_uint(o, 12, (uint64_t)p->period);
	for (i = 0; i < p->ncomment; i++)
		put_uint(o, 13, (uint64_t)comment[i]);
	put_uint(o, 14, (uint64_t)dflt);
	free(comment);
	free(t.b);
	free(u.b);
}

/* One gzip member (no name, no time) of len bytes at buf; z is NULL when that failed. */
struct member {
	const unsigned char *buf;
	size_t len;
	unsigned char *z;
	size_t n;
};

static void *compress_member(void *arg)
{
	struct member *m = arg;
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t bound;

	m->z = NULL;
	if (!c)
		return NULL;
	bound = libdeflate_gzip_compress_bound(c, m->len);
	m->z = xmalloc(bound);
	m->n = libdeflate_gzip_compress(c, m->buf, m->len, m->z, bound);
	libdeflate_free_compressor(c);
	if (!m->n) {
		free(m->z);
		m->z = NULL;
	}
	return NULL;
}

/* Profiles this big are compressed as two members at once (gzip readers, Go's and ours, read on). */
#define TWO_MEMBERS (4u << 20)

/*
 * gzip-compresses len bytes at buf to out.  libdeflate at its fastest
 * level: twice zlib's speed on profiles, which compress as well.
 */
static int gzip_write(FILE *out, const unsigned char *buf, size_t len, struct err *e)
{
	struct member m[2] = { { buf, len, NULL, 0 }, { buf + len, 0, NULL, 0 } };
	pthread_t t;
	int two = 0, r = 0, k;

	if (len >= TWO_MEMBERS) {
		m[0].len = len / 2;
		m[1].buf = buf + len / 2;
		m[1].len = len - len / 2;
		two = pthread_create(&t, NULL, compress_member, &m[1]) == 0;
		if (!two)
			m[0].len = len;
	}
	compress_member(&m[0]);
	if (two)
		pthread_join(t, NULL);
	for (k = 0; k < 1 + two && r == 0; k++) {
		if (!m[k].z)
			r = err_set(e, "cannot compress the profile");
		else if (fwrite(m[k].z, 1, m[k].n, out) != m[k].n)
			r = err_set(e, "cannot write the profile");
	}
	free(m[0].z);
	free(m[1].z);
	return r;
}

int proto_write(FILE *out, const struct profile *p, struct err *e)
{
	struct writer w = { .p = p };
	struct pbuf o = { 0 };
	int r;

	htab_init(&w.index, 64);
	GROW(w.table, w.cap_table, 1);
	w.table[w.ntable++] = "";
	canonical_order(&w);
	encode(&w, &o);
	r = gzip_write(out, o.b, o.n, e);
	free(o.b);
	free(w.table);
	htab_release(&w.index);
	canonical_release(&w);
	return r;
}

/* The profile as reports see it: after frame removal, --focus and --ignore. */
static int write_proto(FILE *out, const struct profile *p, const struct report_options *o,
		       struct err *e)
{
	const struct profile *q = report_profile(p, o, e);
	int r;

	if (!q)
		return -1;
	r = proto_write(out, q, e);
	report_profile_release(p, q);
	return r;
}

const struct report_format report_proto_format = {
	.name = "proto",
	.help = "Write the profile as gzip-compressed profile.proto",
	.write = write_proto,
};
