/* proto.c - writing the model as gzip-compressed profile.proto, packed by protobuf-c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "htab.h"
#include "profile.pb-c.h"
#include "proto.h"
#include "report.h"
#include "util.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

/*
 * The string table: model strings are interned, so a pointer finds its
 * index; indexes follow first use, which makes the output depend on the
 * profile alone.
 */
struct writer {
	const struct profile *p;
	struct arena arena;      /* the message tree */
	struct htab index;       /* table indexes (+ 1) by string pointer */
	char **table;
	size_t ntable, cap_table;
};

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
	w->table[w->ntable++] = (char *)s;
	htab_insert(&w->index, j, h, (uint32_t)w->ntable);
	return (int64_t)w->ntable - 1;
}

static void *msg_new(struct writer *w, size_t size, void (*init)(void *))
{
	void *m = arena_alloc(&w->arena, size);

	init(m);
	return m;
}

/* protobuf-c's init functions take typed pointers. */
#define NEW(w, type, fn) ((type *)msg_new((w), sizeof(type), (void (*)(void *))(fn)))

static void **ptr_array(struct writer *w, size_t n)
{
	return n ? arena_calloc(&w->arena, n, sizeof(void *)) : NULL;
}

static PbValueType *value_type(struct writer *w, const struct value_type *vt)
{
	PbValueType *m = NEW(w, PbValueType, perftools__profiles__value_type__init);

	m->type = str_index(w, vt->type);
	m->unit = str_index(w, vt->unit);
	return m;
}

/* Sample types, period, times, comments, drop/keep frames, default type. */
static void build_header(struct writer *w, PbProfile *m)
{
	const struct profile *p = w->p;
	size_t i;

	m->n_sample_type = p->nsample_type;
	m->sample_type = (PbValueType **)ptr_array(w, p->nsample_type);
	for (i = 0; i < p->nsample_type; i++)
		m->sample_type[i] = value_type(w, &p->sample_type[i]);
	if (*p->period_type.type || *p->period_type.unit)
		m->period_type = value_type(w, &p->period_type);
	m->period = p->period;
	m->time_nanos = p->time_nanos;
	m->duration_nanos = p->duration_nanos;
	m->n_comment = p->ncomment;
	m->comment = p->ncomment ? arena_calloc(&w->arena, p->ncomment, sizeof(int64_t)) : NULL;
	for (i = 0; i < p->ncomment; i++)
		m->comment[i] = str_index(w, p->comment[i]);
	m->drop_frames = str_index(w, p->drop_frames);
	m->keep_frames = str_index(w, p->keep_frames);
	m->default_sample_type = str_index(w, p->default_sample_type);
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

static void build_mappings(struct writer *w, PbProfile *m)
{
	const struct profile *p = w->p;
	struct carried *c = scan_locations(p);
	size_t i;

	m->n_mapping = p->nmapping;
	m->mapping = (PbMapping **)ptr_array(w, p->nmapping);
	for (i = 0; i < p->nmapping; i++) {
		const struct mapping *pm = p->mapping[i];
		PbMapping *o = NEW(w, PbMapping, perftools__profiles__mapping__init);
		int fn = c[i].nloc && !c[i].missing_lines;

		if (pm->id != i + 1)
			BUG("mapping id is not its position");
		o->id = i + 1;
		o->memory_start = pm->start;
		o->memory_limit = pm->limit;
		o->file_offset = pm->offset;
		o->filename = str_index(w, pm->file);
		o->build_id = str_index(w, pm->build_id);
		o->has_functions = fn;
		o->has_filenames = fn && !c[i].missing_files;
		o->has_line_numbers = fn && !c[i].missing_numbers;
		o->has_inline_frames = fn && (c[i].inlines || pm->has_inline_frames);
		m->mapping[i] = o;
	}
	free(c);
}

static void build_functions(struct writer *w, PbProfile *m)
{
	const struct profile *p = w->p;
	size_t i;

	m->n_function = p->nfunction;
	m->function = (PbFunction **)ptr_array(w, p->nfunction);
	for (i = 0; i < p->nfunction; i++) {
		const struct function *f = p->function[i];
		PbFunction *o = NEW(w, PbFunction, perftools__profiles__function__init);

		if (f->id != i + 1)
			BUG("function id is not its position");
		o->id = i + 1;
		o->name = str_index(w, f->name);
		o->system_name = str_index(w, f->system_name);
		o->filename = str_index(w, f->filename);
		o->start_line = f->start_line;
		m->function[i] = o;
	}
}

static void build_locations(struct writer *w, PbProfile *m)
{
	const struct profile *p = w->p;
	size_t i;
	uint32_t j;

	m->n_location = p->nlocation;
	m->location = (PbLocation **)ptr_array(w, p->nlocation);
	for (i = 0; i < p->nlocation; i++) {
		const struct location *l = p->location[i];
		PbLocation *o = NEW(w, PbLocation, perftools__profiles__location__init);

		if (l->id != i + 1)
			BUG("location id is not its position");
		o->id = i + 1;
		o->mapping_id = l->mapping ? l->mapping->id : 0;
		o->address = l->address;
		o->is_folded = l->is_folded;
		o->n_line = l->nline;
		o->line = (PbLine **)ptr_array(w, l->nline);
		for (j = 0; j < l->nline; j++) {
			PbLine *ln = NEW(w, PbLine, perftools__profiles__line__init);

			ln->function_id = l->line[j].function->id;
			ln->line = l->line[j].line;
			o->line[j] = ln;
		}
		m->location[i] = o;
	}
}

static PbLabel **labels(struct writer *w, const struct sample *s)
{
	PbLabel **v = (PbLabel **)ptr_array(w, s->nlabel);
	uint32_t i;

	for (i = 0; i < s->nlabel; i++) {
		PbLabel *o = NEW(w, PbLabel, perftools__profiles__label__init);

		o->key = str_index(w, s->label[i].key);
		o->str = str_index(w, s->label[i].str);
		if (!o->str) {
			o->num = s->label[i].num;
			o->num_unit = str_index(w, s->label[i].num_unit);
		}
		v[i] = o;
	}
	return v;
}

static void build_samples(struct writer *w, PbProfile *m)
{
	const struct profile *p = w->p;
	size_t i;
	uint32_t j;

	m->n_sample = p->nsample;
	m->sample = (PbSample **)ptr_array(w, p->nsample);
	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];
		PbSample *o = NEW(w, PbSample, perftools__profiles__sample__init);

		o->n_location_id = s->nlocation;
		o->location_id = s->nlocation ? arena_alloc(&w->arena, s->nlocation * sizeof(uint64_t))
					       : NULL;
		for (j = 0; j < s->nlocation; j++)
			o->location_id[j] = s->location[j]->id;
		/* The model's values are never changed through the message. */
		o->n_value = p->nsample_type;
		o->value = s->value;
		/* Fixed-point values become whole numbers, fractions dropped (Go's int64()). */
		if (p->value_scale > 1) {
			o->value = arena_alloc(&w->arena, (p->nsample_type + 1) * sizeof(int64_t));
			for (j = 0; j < p->nsample_type; j++)
				o->value[j] = s->value[j] / p->value_scale;
		}
		o->n_label = s->nlabel;
		o->label = labels(w, s);
		m->sample[i] = o;
	}
}

/* gzip-compresses len bytes at buf to out; the header has no name and no time. */
static int gzip_write(FILE *out, const unsigned char *buf, size_t len, struct err *e)
{
	unsigned char chunk[1 << 16];
	z_stream z;
	int r;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return err_set(e, "cannot start gzip compression");
	z.next_in = (unsigned char *)buf;
	do {
		size_t chunk_in = len - (size_t)(z.next_in - buf);

		z.avail_in = (uInt)(chunk_in < (1u << 30) ? chunk_in : (1u << 30));
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			r = deflate(&z, z.avail_in == chunk_in ? Z_FINISH : Z_NO_FLUSH);
			if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) !=
			    sizeof(chunk) - z.avail_out) {
				deflateEnd(&z);
				return err_set(e, "cannot write the profile");
			}
		} while (z.avail_out == 0);
	} while (r != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

int proto_write(FILE *out, const struct profile *p, struct err *e)
{
	PbProfile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct writer w = { .p = p };
	unsigned char *buf;
	size_t len;
	int r;

	arena_init(&w.arena);
	htab_init(&w.index, 64);
	GROW(w.table, w.cap_table, 1);
	w.table[w.ntable++] = (char *)"";
	build_header(&w, &m);
	build_mappings(&w, &m);
	build_functions(&w, &m);
	build_locations(&w, &m);
	build_samples(&w, &m);
	m.n_string_table = w.ntable;
	m.string_table = w.table;
	len = perftools__profiles__profile__get_packed_size(&m);
	buf = xmalloc(len + 1);
	perftools__profiles__profile__pack(&m, buf);
	r = gzip_write(out, buf, len, e);
	free(buf);
	free(w.table);
	htab_release(&w.index);
	arena_release(&w.arena);
	return r;
}

/* The profile as reports see it: after frame removal, --focus and --ignore. */
static int write_proto(FILE *out, const struct profile *p, const struct report_options *o,
		       struct err *e)
{
	struct profile *q = report_profile(p, o, e);
	int r;

	if (!q)
		return -1;
	r = proto_write(out, q, e);
	profile_free(q);
	return r;
}

const struct report_format report_proto_format = {
	.name = "proto",
	.help = "Write the profile as gzip-compressed profile.proto",
	.write = write_proto,
};
