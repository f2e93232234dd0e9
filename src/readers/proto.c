/* proto.c - reader for profile.proto (gzip or not): samples read by hand, the rest by protobuf-c. */
#include <libdeflate.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "proto.h"
#include "units.h"
#include "util.h"

typedef Perftools__Profiles__Profile PbProfile;

/*
 * The wire format, as far as a reader must know it to claim a file and to
 * say where a broken one breaks: protobuf-c reports no offsets, so this
 * walker runs only to explain its failures and the sample reader's (and on
 * the top level, to sniff and to spot concatenated profiles).
 */
enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

struct msg_spec;

struct field_spec {
	uint32_t number;
	uint8_t wire;      /* WT_VARINT or WT_LEN */
	uint8_t repeated;  /* repeated varints may also come packed (WT_LEN) */
	const char *name;
	const struct msg_spec *sub; /* the message a WT_LEN field holds, or NULL */
};

struct msg_spec {
	const char *name;
	const struct field_spec *field;
	size_t nfield;
};

#define SPEC(name, fields) { name, fields, sizeof(fields) / sizeof(fields[0]) }

static const struct field_spec value_type_fields[] = {
	{ 1, WT_VARINT, 0, "type", NULL },
	{ 2, WT_VARINT, 0, "unit", NULL },
};
static const struct msg_spec value_type_spec = SPEC("ValueType", value_type_fields);

static const struct field_spec label_fields[] = {
	{ 1, WT_VARINT, 0, "key", NULL },
	{ 2, WT_VARINT, 0, "str", NULL },
	{ 3, WT_VARINT, 0, "num", NULL },
	{ 4, WT_VARINT, 0, "num_unit", NULL },
};
static const struct msg_spec label_spec = SPEC("Label", label_fields);

static const struct field_spec sample_fields[] = {
	{ 1, WT_VARINT, 1, "location_id", NULL },
	{ 2, WT_VARINT, 1, "value", NULL },
	{ 3, WT_LEN, 1, "label", &label_spec },
};
static const struct msg_spec sample_spec = SPEC("Sample", sample_fields);

static const struct field_spec mapping_fields[] = {
	{ 1, WT_VARINT, 0, "id", NULL },
	{ 2, WT_VARINT, 0, "memory_start", NULL },
	{ 3, WT_VARINT, 0, "memory_limit", NULL },
	{ 4, WT_VARINT, 0, "file_offset", NULL },
	{ 5, WT_VARINT, 0, "filename", NULL },
	{ 6, WT_VARINT, 0, "build_id", NULL },
	{ 7, WT_VARINT, 0, "has_functions", NULL },
	{ 8, WT_VARINT, 0, "has_filenames", NULL },
	{ 9, WT_VARINT, 0, "has_line_numbers", NULL },
	{ 10, WT_VARINT, 0, "has_inline_frames", NULL },
};
static const struct msg_spec mapping_spec = SPEC("Mapping", mapping_fields);

static const struct field_spec line_fields[] = {
	{ 1, WT_VARINT, 0, "function_id", NULL },
	{ 2, WT_VARINT, 0, "line", NULL },
	{ 3, WT_VARINT, 0, "column", NULL },
};
static const struct msg_spec line_spec = SPEC("Line", line_fields);

static const struct field_spec location_fields[] = {
	{ 1, WT_VARINT, 0, "id", NULL },
	{ 2, WT_VARINT, 0, "mapping_id", NULL },
	{ 3, WT_VARINT, 0, "address", NULL },
	{ 4, WT_LEN, 1, "line", &line_spec },
	{ 5, WT_VARINT, 0, "is_folded", NULL },
};
static const struct msg_spec location_spec = SPEC("Location", location_fields);

static const struct field_spec function_fields[] = {
	{ 1, WT_VARINT, 0, "id", NULL },
	{ 2, WT_VARINT, 0, "name", NULL },
	{ 3, WT_VARINT, 0, "system_name", NULL },
	{ 4, WT_VARINT, 0, "filename", NULL },
	{ 5, WT_VARINT, 0, "start_line", NULL },
};
static const struct msg_spec function_spec = SPEC("Function", function_fields);

/* Sorted by number, which is also the position plus one. */
static const struct field_spec profile_fields[] = {
	{ 1, WT_LEN, 1, "sample_type", &value_type_spec },
	{ 2, WT_LEN, 1, "sample", &sample_spec },
	{ 3, WT_LEN, 1, "mapping", &mapping_spec },
	{ 4, WT_LEN, 1, "location", &location_spec },
	{ 5, WT_LEN, 1, "function", &function_spec },
	{ 6, WT_LEN, 1, "string_table", NULL },
	{ 7, WT_VARINT, 0, "drop_frames", NULL },
	{ 8, WT_VARINT, 0, "keep_frames", NULL },
	{ 9, WT_VARINT, 0, "time_nanos", NULL },
	{ 10, WT_VARINT, 0, "duration_nanos", NULL },
	{ 11, WT_LEN, 0, "period_type", &value_type_spec },
	{ 12, WT_VARINT, 0, "period", NULL },
	{ 13, WT_VARINT, 1, "comment", NULL },
	{ 14, WT_VARINT, 0, "default_sample_type", NULL },
};
static const struct msg_spec profile_spec = SPEC("Profile", profile_fields);

#define NPROFILE_FIELDS (sizeof(profile_fields) / sizeof(profile_fields[0]))

struct walk {
	const unsigned char *buf;
	int strict;       /* unknown fields fail (sniffing) */
	int deep;         /* walk into nested messages */
	/* Where the first singular top-level field came twice, else 0. */
	size_t repeat_off;
	const char *repeat_name;
	unsigned seen[NPROFILE_FIELDS + 1];
	/* The failure: its offset and what it was. */
	size_t fail_off;
	char what[200];
};

static int walk_fail(struct walk *w, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int walk_fail(struct walk *w, size_t off, const char *fmt, ...)
{
	va_list ap;

	w->fail_off = off;
	va_start(ap, fmt);
	vsnprintf(w->what, sizeof(w->what), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Where the walk is, named only when it fails (a big profile has millions
 * of fields): a message's field key, or its field f, or an unknown field.
 */
struct where {
	const struct msg_spec *m;   /* NULL: nowhere to name */
	const struct field_spec *f;
	uint64_t number;
	int key;
};

/* Fails with "WHERE: " and the message. */
static int walk_fail_at(struct walk *w, size_t off, const struct where *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int walk_fail_at(struct walk *w, size_t off, const struct where *at, const char *fmt, ...)
{
	va_list ap;
	int k = 0;

	if (!at->m)
		k = snprintf(w->what, sizeof(w->what), ": ");
	else if (at->key)
		k = snprintf(w->what, sizeof(w->what), "%s field key: ", at->m->name);
	else if (at->f)
		k = snprintf(w->what, sizeof(w->what), "%s.%s: ", at->m->name, at->f->name);
	else
		k = snprintf(w->what, sizeof(w->what), "%s field %llu: ", at->m->name,
			     (unsigned long long)at->number);
	if (k < 0 || (size_t)k >= sizeof(w->what))
		k = (int)sizeof(w->what) - 1;
	w->fail_off = off;
	va_start(ap, fmt);
	vsnprintf(w->what + k, sizeof(w->what) - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

/* Decodes a varint at *off (before end); fails naming where it was. */
static int walk_varint(struct walk *w, size_t *off, size_t end, uint64_t *v,
		       const struct where *at)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < 10; i++) {
		unsigned char b;

		if (*off + i >= end)
			return walk_fail_at(w, *off, at, "varint runs past end of data");
		b = w->buf[*off + i];
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i == 9 && b > 1)
				return walk_fail_at(w, *off, at, "varint overflows 64 bits");
			*off += i + 1;
			*v = x;
			return 0;
		}
	}
	return walk_fail_at(w, *off, at, "varint longer than 10 bytes");
}

static const struct field_spec *find_field(const struct msg_spec *m, uint64_t number)
{
	size_t i;

	for (i = 0; i < m->nfield; i++)
		if (m->field[i].number == number)
			return &m->field[i];
	return NULL;
}

static int walk_msg(struct walk *w, size_t off, size_t end, const struct msg_spec *m);

/* The payload of known field f from off to end; its key is at start. */
static int walk_payload(struct walk *w, const struct field_spec *f, unsigned wire, size_t start,
			size_t off, size_t end, const struct where *at)
{
	uint64_t v;

	if (wire != f->wire && !(f->repeated && f->wire == WT_VARINT && wire == WT_LEN))
		return walk_fail_at(w, start, at, "wire type %u, expected %u", wire, f->wire);
	if (!w->deep || wire != WT_LEN)
		return 0;
	if (f->sub)
		return walk_msg(w, off, end, f->sub);
	if (f->wire == WT_VARINT) {
		/* Packed varints fill the payload exactly. */
		while (off < end)
			if (walk_varint(w, &off, end, &v, at) < 0)
				return -1;
	}
	return 0;
}

/* Notes top-level fields; a singular one that comes again means concatenated profiles. */
static void walk_count(struct walk *w, const struct field_spec *f, size_t start)
{
	if (f->number > NPROFILE_FIELDS)
		return;
	if (w->seen[f->number]++ && !f->repeated && !w->repeat_name) {
		w->repeat_off = start;
		w->repeat_name = f->name;
	}
}

static int walk_msg(struct walk *w, size_t off, size_t end, const struct msg_spec *m)
{
	while (off < end) {
		size_t start = off, fend;
		struct where at = { m, NULL, 0, 1 };
		const struct field_spec *f;
		uint64_t key, len, v;
		unsigned wire;

		if (walk_varint(w, &off, end, &key, &at) < 0)
			return -1;
		wire = key & 7;
		if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
			return walk_fail(w, start, "%s: field number %llu is invalid", m->name,
					 (unsigned long long)(key >> 3));
		f = find_field(m, key >> 3);
		if (!f && w->strict)
			return walk_fail(w, start, "%s: unknown field %llu", m->name,
					 (unsigned long long)(key >> 3));
		at.key = 0;
		at.f = f;
		at.number = key >> 3;
		fend = off;
		switch (wire) {
		case WT_VARINT:
			if (walk_varint(w, &fend, end, &v, &at) < 0)
				return -1;
			break;
		case WT_I64:
		case WT_I32:
			if (end - off < (wire == WT_I64 ? 8u : 4u))
				return walk_fail_at(w, off, &at, "value runs past end of data");
			fend = off + (wire == WT_I64 ? 8 : 4);
			break;
		case WT_LEN:
			if (walk_varint(w, &off, end, &len, &at) < 0)
				return -1;
			if (len >> 63)
				return walk_fail_at(w, start, &at, "negative length %lld",
						    (long long)len);
			if (len > end - off)
				return walk_fail_at(w, start, &at, "length %llu runs past end of data",
						    (unsigned long long)len);
			fend = off + len;
			break;
		default:
			return walk_fail_at(w, start, &at, "invalid wire type %u", wire);
		}
		if (f && walk_payload(w, f, wire, start, off, fend, &at) < 0)
			return -1;
		if (f && m == &profile_spec)
			walk_count(w, f, start);
		off = fend;
	}
	return 0;
}

static void walk_init(struct walk *w, const unsigned char *buf, int strict, int deep)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->strict = strict;
	w->deep = deep;
}

/*
 * Claims gzip data, as Go does, and buffers whose top-level fields are all
 * known Profile fields of the right wire type, to the end, with a string
 * table.  gperftools and BSD gmon profiles start with a zero byte, which
 * is no field key; gmon.out and DCPI text fail the walk within bytes.
 * Also claims a buffer that starts with a whole sample_type field (Go and
 * protobuf-c write it first, no other format starts with its 0x0a), so
 * that a damaged profile gets the reader's error rather than "unknown
 * format".
 */
static int proto_sniff(const unsigned char *buf, size_t len)
{
	static const struct where nowhere = { NULL, NULL, 0, 0 };
	struct walk w;
	size_t off = 1;
	uint64_t n;

	if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b)
		return 1;
	walk_init(&w, buf, 1, 1);
	if (len > 2 && buf[0] == 0x0a && walk_varint(&w, &off, len, &n, &nowhere) == 0 &&
	    n <= len - off && walk_msg(&w, off, off + n, &value_type_spec) == 0)
		return 1;
	walk_init(&w, buf, 1, 0);
	return walk_msg(&w, 0, len, &profile_spec) == 0 && w.seen[6];
}

/* The size a gzip trailer gives (mod 2^32), 0 when there is none. */
static size_t gzip_isize(const unsigned char *buf, size_t len)
{
	return len >= 18 ? (size_t)buf[len - 4] | (size_t)buf[len - 3] << 8 |
				   (size_t)buf[len - 2] << 16 | (size_t)buf[len - 1] << 24 : 0;
}

/* A buffer's next size: double (from at least 4 kB), but never past cap. */
static size_t next_size(size_t size, size_t cap)
{
	if (size < 4096)
		return cap < 4096 ? cap : 4096;
	return size <= cap / 2 ? 2 * size : cap;
}

int proto_inflate_members(const unsigned char *buf, size_t len, size_t cap,
			  unsigned char **out, size_t *outlen)
{
	size_t isize = gzip_isize(buf, len), size, have = 0, off = 0;
	struct libdeflate_decompressor *d;
	unsigned char *o;

	if (len < 18 || !(d = libdeflate_alloc_decompressor()))
		return 0;
	/* Pages of the guess that are never written cost nothing. */
	size = isize < cap / 2 ? 2 * isize : cap;
	if (size < 65536)
		size = cap < 65536 ? cap : 65536;
	o = xmalloc(size + 1);
	while (off < len) {
		size_t used = 0, got = 0;
		enum libdeflate_result r;

		r = libdeflate_gzip_decompress_ex(d, buf + off, len - off, o + have, size - have,
						  &used, &got);
		if (r == LIBDEFLATE_INSUFFICIENT_SPACE && size < cap) {
			size = next_size(size, cap);
			o = xrealloc(o, size + 1);
			continue;
		}
		if (r != LIBDEFLATE_SUCCESS || (off + used < len && (len - off - used < 2 ||
		    buf[off + used] != 0x1f || buf[off + used + 1] != 0x8b)))
			break;
		have += got;
		off += used;
	}
	libdeflate_free_decompressor(d);
	if (off < len) {
		free(o);
		return 0;
	}
	*out = xrealloc(o, have + 1);
	*outlen = have;
	return 1;
}

/*
 * Inflates gzip data (members one after another, as Go reads them) into
 * *out (caller frees), refusing more than cap bytes; with bomb_check, also
 * more than PROTO_MAX_RATIO times len past PROTO_RATIO_FLOOR bytes.
 */
static int inflate_all(const char *path, const unsigned char *buf, size_t len, size_t cap,
		       int bomb_check, unsigned char **out, size_t *outlen, struct err *e)
{
	z_stream z;
	unsigned char *o;
	size_t have = 0, size, isize;
	int r = Z_OK;

	if (bomb_check) {
		size_t most = len > SIZE_MAX / PROTO_MAX_RATIO ? SIZE_MAX : len * PROTO_MAX_RATIO;

		if (most < PROTO_RATIO_FLOOR)
			most = PROTO_RATIO_FLOOR;
		if (most < cap)
			cap = most;
		else
			bomb_check = 0;
	}
	if (proto_inflate_members(buf, len, cap, out, outlen))
		return 0;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return err_set(e, "%s: cannot start gzip decompression", path);
	/*
	 * The trailer's size (mod 2^32) as a first guess; deflate expands at
	 * most ~1032 times.  One byte past size tells more than cap.
	 */
	isize = gzip_isize(buf, len);
	size = isize < 1032 * len ? isize : 1032 * len;
	size = size < cap ? size : cap;
	o = xmalloc(size + 1);
	z.next_in = (unsigned char *)buf;
	for (;;) {
		if (have == size + 1) {
			if (size == cap)
				break;
			size = next_size(size, cap);
			o = xrealloc(o, size + 1);
		}
		if (!z.avail_in)
			z.avail_in = (uInt)(len - (size_t)(z.next_in - buf) < UINT_MAX
						    ? len - (size_t)(z.next_in - buf) : UINT_MAX);
		z.next_out = o + have;
		z.avail_out = (uInt)(size + 1 - have < UINT_MAX ? size + 1 - have : UINT_MAX);
		r = inflate(&z, Z_NO_FLUSH);
		have = (size_t)(z.next_out - o);
		if (r == Z_STREAM_END) {
			size_t used = (size_t)(z.next_in - buf);

			if (used == len)
				break;
			if (len - used < 2 || buf[used] != 0x1f || buf[used + 1] != 0x8b) {
				r = Z_DATA_ERROR;
				z.msg = (char *)"trailing data after the gzip stream";
				break;
			}
			inflateReset(&z);
			continue;
		}
		if (r == Z_BUF_ERROR && z.next_in == buf + len)
			break;
		if (r != Z_OK && r != Z_BUF_ERROR)
			break;
	}
	inflateEnd(&z);
	if (have > cap) {
		free(o);
		if (bomb_check)
			return err_set(e, "%s: decompresses to more than %zu bytes, %d times its size: "
				       "refused as a decompression bomb (--max_input=BYTES reads it)",
				       path, cap, PROTO_MAX_RATIO);
		return err_set(e, "%s: decompresses to more than %zu bytes", path, cap);
	}
	if (r != Z_STREAM_END) {
		size_t off = (size_t)(z.next_in - buf);

		free(o);
		if (r == Z_BUF_ERROR)
			return err_set(e, "%s: offset 0x%zx: gzip data ends early", path, off);
		return err_set(e, "%s: offset 0x%zx: corrupt gzip data: %s", path, off,
			       z.msg ? z.msg : "unknown error");
	}
	*out = o;
	*outlen = have;
	return 0;
}

/*
 * Ids to objects: ids 1..n (the usual case) in a table, others in a
 * sorted array.
 */
struct id_pair {
	uint64_t id;
	void *obj;
};

struct id_map {
	void **dense;
	size_t ndense;
	struct id_pair *sparse;
	size_t nsparse, cap;
};

static void id_map_init(struct id_map *m, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->dense = xcalloc(n + 1, sizeof(*m->dense));
	m->ndense = n;
}

static void id_map_release(struct id_map *m)
{
	free(m->dense);
	free(m->sparse);
}

/* Returns -1 when id is taken (sparse ids are checked in id_map_seal). */
static int id_map_add(struct id_map *m, uint64_t id, void *obj)
{
	if (id - 1 < m->ndense) {
		if (m->dense[id - 1])
			return -1;
		m->dense[id - 1] = obj;
		return 0;
	}
	GROW(m->sparse, m->cap, m->nsparse + 1);
	m->sparse[m->nsparse].id = id;
	m->sparse[m->nsparse++].obj = obj;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = ((const struct id_pair *)a)->id, y = ((const struct id_pair *)b)->id;

	return x < y ? -1 : x > y;
}

/* Sorts the sparse ids; returns a duplicate id, or 0. */
static uint64_t id_map_seal(struct id_map *m)
{
	size_t i;

	if (m->nsparse > 1)
		qsort(m->sparse, m->nsparse, sizeof(*m->sparse), cmp_pair);
	for (i = 1; i < m->nsparse; i++)
		if (m->sparse[i].id == m->sparse[i - 1].id)
			return m->sparse[i].id;
	return 0;
}

static void *id_map_get(const struct id_map *m, uint64_t id)
{
	size_t lo = 0, hi = m->nsparse;

	if (id - 1 < m->ndense)
		return m->dense[id - 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sparse[mid].id == id)
			return m->sparse[mid].obj;
		if (m->sparse[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Reading the unpacked message into the model. */
struct ctx {
	const char *path;
	struct profile *p;
	const PbProfile *m;
	const char **str;     /* the string table, interned in p */
	size_t nstr;
	struct id_map mappings, functions, locations;
	struct err *e;
};

static int bad(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct ctx *c, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(c->e, "%s: malformed profile: %s", c->path, what);
}

/* *out = string idx of the table; what names the referring field. */
static int string_at(struct ctx *c, int64_t idx, const char *what, const char **out)
{
	*out = "";
	if (idx < 0 || (uint64_t)idx >= c->nstr)
		return bad(c, "%s: string index %lld out of range (%zu strings)", what,
			   (long long)idx, c->nstr);
	*out = c->str[idx];
	return 0;
}

static int read_strings(struct ctx *c)
{
	size_t i;

	if (!c->m->n_string_table || c->m->string_table[0][0])
		return bad(c, "string_table[0] must be \"\"");
	c->nstr = c->m->n_string_table;
	c->str = xcalloc(c->nstr, sizeof(*c->str));
	for (i = 0; i < c->nstr; i++)
		c->str[i] = profile_intern(c->p, c->m->string_table[i]);
	return 0;
}

static int read_value_type(struct ctx *c, const Perftools__Profiles__ValueType *vt,
			   const char *what, struct value_type *out)
{
	if (!vt) {
		out->type = out->unit = c->str[0];
		return 0;
	}
	if (string_at(c, vt->type, what, &out->type) < 0 ||
	    string_at(c, vt->unit, what, &out->unit) < 0)
		return -1;
	return 0;
}

/* Sample types, period, times, comments, drop/keep frames, default type. */
static int read_header(struct ctx *c)
{
	const PbProfile *m = c->m;
	struct profile *p = c->p;
	const char **tu = xcalloc(2 * m->n_sample_type + 1, sizeof(*tu));
	size_t i;

	for (i = 0; i < m->n_sample_type; i++) {
		struct value_type vt;

		if (read_value_type(c, m->sample_type[i], "sample_type", &vt) < 0) {
			free(tu);
			return -1;
		}
		tu[2 * i] = vt.type;
		tu[2 * i + 1] = vt.unit;
	}
	profile_set_sample_types(p, m->n_sample_type, tu);
	free(tu);
	if (read_value_type(c, m->period_type, "period_type", &p->period_type) < 0)
		return -1;
	p->period = m->period;
	p->time_nanos = m->time_nanos;
	p->duration_nanos = m->duration_nanos;
	for (i = 0; i < m->n_comment; i++) {
		const char *s;

		if (string_at(c, m->comment[i], "comment", &s) < 0)
			return -1;
		profile_add_comment(p, s);
	}
	if (string_at(c, m->drop_frames, "drop_frames", &p->drop_frames) < 0 ||
	    string_at(c, m->keep_frames, "keep_frames", &p->keep_frames) < 0 ||
	    string_at(c, m->default_sample_type, "default_sample_type",
		      &p->default_sample_type) < 0)
		return -1;
	return 0;
}

static int read_mappings(struct ctx *c)
{
	size_t i;
	uint64_t dup;

	id_map_init(&c->mappings, c->m->n_mapping);
	for (i = 0; i < c->m->n_mapping; i++) {
		const Perftools__Profiles__Mapping *pm = c->m->mapping[i];
		const char *file, *build_id;
		struct mapping *m;

		if (!pm->id)
			return bad(c, "mapping %zu has id 0", i + 1);
		if (string_at(c, pm->filename, "mapping filename", &file) < 0 ||
		    string_at(c, pm->build_id, "mapping build_id", &build_id) < 0)
			return -1;
		m = profile_add_mapping(c->p, pm->memory_start, pm->memory_limit, pm->file_offset,
					file, build_id);
		m->has_functions = !!pm->has_functions;
		m->has_filenames = !!pm->has_filenames;
		m->has_line_numbers = !!pm->has_line_numbers;
		m->has_inline_frames = !!pm->has_inline_frames;
		if (id_map_add(&c->mappings, pm->id, m) < 0)
			return bad(c, "two mappings have id %llu", (unsigned long long)pm->id);
	}
	if ((dup = id_map_seal(&c->mappings)))
		return bad(c, "two mappings have id %llu", (unsigned long long)dup);
	return 0;
}

static int read_functions(struct ctx *c)
{
	size_t i;
	uint64_t dup;

	id_map_init(&c->functions, c->m->n_function);
	for (i = 0; i < c->m->n_function; i++) {
		const Perftools__Profiles__Function *pf = c->m->function[i];
		const char *name, *system_name, *filename;
		struct function *f;

		if (!pf->id)
			return bad(c, "function %zu has id 0", i + 1);
		if (string_at(c, pf->name, "function name", &name) < 0 ||
		    string_at(c, pf->system_name, "function system_name", &system_name) < 0 ||
		    string_at(c, pf->filename, "function filename", &filename) < 0)
			return -1;
		/* Equal functions under two ids become one. */
		f = profile_function(c->p, name, system_name, filename, pf->start_line,
				     NO_SYMBOL_ADDRESS);
		if (id_map_add(&c->functions, pf->id, f) < 0)
			return bad(c, "two functions have id %llu", (unsigned long long)pf->id);
	}
	if ((dup = id_map_seal(&c->functions)))
		return bad(c, "two functions have id %llu", (unsigned long long)dup);
	return 0;
}

static int read_lines(struct ctx *c, const Perftools__Profiles__Location *pl,
		      struct location *l, struct line **buf, size_t *cap)
{
	size_t i;

	GROW(*buf, *cap, pl->n_line + 1);
	for (i = 0; i < pl->n_line; i++) {
		const Perftools__Profiles__Line *pn = pl->line[i];
		struct function *f = pn->function_id ? id_map_get(&c->functions, pn->function_id)
						     : NULL;

		if (!f)
			return bad(c, "location %llu: line %zu refers to function %llu, which does "
				   "not exist", (unsigned long long)pl->id, i + 1,
				   (unsigned long long)pn->function_id);
		(*buf)[i].function = f;
		(*buf)[i].line = pn->line;
	}
	profile_set_lines(c->p, l, *buf, pl->n_line);
	return 0;
}

static int read_locations(struct ctx *c)
{
	struct line *lines = NULL;
	size_t i, cap = 0;
	uint64_t dup;
	int r = 0;

	id_map_init(&c->locations, c->m->n_location);
	for (i = 0; i < c->m->n_location && !r; i++) {
		const Perftools__Profiles__Location *pl = c->m->location[i];
		struct mapping *m = NULL;
		struct location *l;

		if (!pl->id) {
			r = bad(c, "location %zu has id 0", i + 1);
			break;
		}
		if (pl->mapping_id && !(m = id_map_get(&c->mappings, pl->mapping_id))) {
			r = bad(c, "location %llu refers to mapping %llu, which does not exist",
				(unsigned long long)pl->id, (unsigned long long)pl->mapping_id);
			break;
		}
		/* No lines: left for the symbolizer, through m's file. */
		l = profile_add_location(c->p, m, pl->address);
		l->is_folded = !!pl->is_folded;
		if (pl->n_line)
			r = read_lines(c, pl, l, &lines, &cap);
		if (!r && id_map_add(&c->locations, pl->id, l) < 0)
			r = bad(c, "two locations have id %llu", (unsigned long long)pl->id);
	}
	free(lines);
	if (!r && (dup = id_map_seal(&c->locations)))
		r = bad(c, "two locations have id %llu", (unsigned long long)dup);
	return r;
}

/*
 * The samples, read straight from the data: protobuf-c would unpack each
 * into blocks of its own, most of a big profile's memory and a tenth of
 * its reading time.  They are read as protobuf-c reads them: field keys
 * and length prefixes of at most 5 bytes (lengths up to INT_MAX), varints
 * of at most 10 (bits past 64 dropped), repeated numbers packed or not,
 * unknown fields skipped.  Returns -1 where protobuf-c would fail.
 */
struct pb {
	const unsigned char *b;
	size_t off, end;
};

static inline int pb_varint(struct pb *r, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < 10 && r->off + i < r->end; i++) {
		unsigned char c = r->b[r->off + i];

		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			r->off += i + 1;
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* A field key: its number (not 0) and wire type. */
static inline int pb_key(struct pb *r, uint64_t *number, unsigned *wire)
{
	size_t start = r->off;
	uint64_t k;

	if (pb_varint(r, &k) < 0 || r->off - start > 5 || !(k >> 3))
		return -1;
	*number = k >> 3;
	*wire = k & 7;
	return 0;
}

/* A length prefix and the payload it covers, as *sub. */
static int pb_sub(struct pb *r, struct pb *sub)
{
	size_t start = r->off;
	uint64_t len;

	if (pb_varint(r, &len) < 0 || r->off - start > 5 || len > INT_MAX ||
	    len > r->end - r->off)
		return -1;
	sub->b = r->b;
	sub->off = r->off;
	sub->end = r->off + len;
	r->off = sub->end;
	return 0;
}

/* Past the payload of a field of wire type wire. */
static int pb_skip(struct pb *r, unsigned wire)
{
	struct pb sub;
	uint64_t v;

	switch (wire) {
	case WT_VARINT:
		return pb_varint(r, &v);
	case WT_I64:
	case WT_I32:
		if (r->end - r->off < (wire == WT_I64 ? 8u : 4u))
			return -1;
		r->off += wire == WT_I64 ? 8 : 4;
		return 0;
	case WT_LEN:
		return pb_sub(r, &sub);
	default:
		return -1;
	}
}

/* A repeated number field's values (one, or packed) appended to *out. */
static int pb_numbers(struct pb *r, unsigned wire, uint64_t **out, size_t *n, size_t *cap)
{
	struct pb sub;
	uint64_t v;

	if (wire == WT_VARINT) {
		if (pb_varint(r, &v) < 0)
			return -1;
		GROW(*out, *cap, *n + 1);
		(*out)[(*n)++] = v;
		return 0;
	}
	if (wire != WT_LEN || pb_sub(r, &sub) < 0)
		return -1;
	/* Grown as values come: a hostile length is not an allocation. */
	while (sub.off < sub.end) {
		GROW(*out, *cap, *n + 1);
		if (pb_varint(&sub, &(*out)[*n]) < 0)
			return -1;
		(*n)++;
	}
	return 0;
}

/* One Label: key, str, num, num_unit (the last of each counts). */
static int pb_label(struct pb *r, int64_t f[4])
{
	memset(f, 0, 4 * sizeof(*f));
	while (r->off < r->end) {
		uint64_t number, v;
		unsigned wire;

		if (pb_key(r, &number, &wire) < 0)
			return -1;
		if (number < 1 || number > 4) {
			if (pb_skip(r, wire) < 0)
				return -1;
			continue;
		}
		if (wire != WT_VARINT || pb_varint(r, &v) < 0)
			return -1;
		f[number - 1] = (int64_t)v;
	}
	return 0;
}

/* One sample's fields, in buffers kept from sample to sample. */
struct pb_sample {
	uint64_t *loc, *value;
	size_t nloc, nvalue, cap_loc, cap_value;
	int64_t (*label)[4];
	size_t nlabel, cap_label;
};

static int pb_sample(struct pb *r, struct pb_sample *s)
{
	s->nloc = s->nvalue = s->nlabel = 0;
	while (r->off < r->end) {
		struct pb sub;
		uint64_t number;
		unsigned wire;

		if (pb_key(r, &number, &wire) < 0)
			return -1;
		if (number == 1) {
			if (pb_numbers(r, wire, &s->loc, &s->nloc, &s->cap_loc) < 0)
				return -1;
		} else if (number == 2) {
			if (pb_numbers(r, wire, &s->value, &s->nvalue, &s->cap_value) < 0)
				return -1;
		} else if (number == 3) {
			if (wire != WT_LEN || pb_sub(r, &sub) < 0)
				return -1;
			GROW(s->label, s->cap_label, s->nlabel + 1);
			if (pb_label(&sub, s->label[s->nlabel++]) < 0)
				return -1;
		} else if (pb_skip(r, wire) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The next top-level Profile field numbered 2 (a sample) at or after *off, as *sub. */
static int next_sample(const unsigned char *data, size_t *off, size_t n, struct pb *sub)
{
	struct pb r = { data, *off, n };

	while (r.off < r.end) {
		uint64_t number;
		unsigned wire;

		if (pb_key(&r, &number, &wire) < 0)
			return -1;
		if (number == 2 && wire == WT_LEN) {
			if (pb_sub(&r, sub) < 0)
				return -1;
			*off = r.off;
			return 1;
		}
		if (pb_skip(&r, wire) < 0)
			return -1;
	}
	*off = r.off;
	return 0;
}

/* Whether every sample is as protobuf-c would take it. */
static int samples_readable(const unsigned char *data, size_t n)
{
	struct pb_sample ps = { 0 };
	size_t off = 0;
	struct pb sub;
	int more, ok = 1;

	while (ok && (more = next_sample(data, &off, n, &sub)) != 0)
		ok = more > 0 && pb_sample(&sub, &ps) == 0;
	free(ps.loc);
	free(ps.value);
	free(ps.label);
	return ok;
}

/*
 * A sample's labels as Go reads them: a nonzero str makes a string label,
 * else a nonzero num or num_unit a numeric one; others are dropped.
 */
static int read_labels(struct ctx *c, const struct pb_sample *ps, struct label **buf,
		       size_t *cap, size_t *n)
{
	size_t i;

	GROW(*buf, *cap, ps->nlabel + 1);
	*n = 0;
	for (i = 0; i < ps->nlabel; i++) {
		const int64_t *pl = ps->label[i];   /* key, str, num, num_unit */
		struct label *l = &(*buf)[*n];

		if (!pl[1] && !pl[2] && !pl[3])
			continue;
		if (string_at(c, pl[0], "label key", &l->key) < 0 ||
		    string_at(c, pl[1], "label str", &l->str) < 0 ||
		    string_at(c, pl[3], "label num_unit", &l->num_unit) < 0)
			return -1;
		l->num = pl[1] ? 0 : pl[2];
		if (pl[1])
			l->num_unit = c->str[0];
		(*n)++;
	}
	return 0;
}

/*
 * Location ids to the indexes samples hold (id - 1), 0 for none; NULL when
 * ids 1 to n name the locations made first to last (Go and pprof write
 * them so), when an id is its index plus one.
 */
static uint32_t *location_indexes(const struct id_map *m)
{
	uint32_t *ix = xcalloc(m->ndense + 1, sizeof(*ix));
	size_t i, same = 0;

	for (i = 0; i < m->ndense; i++)
		if (m->dense[i]) {
			ix[i] = (uint32_t)((const struct location *)m->dense[i])->id;
			same += ix[i] == i + 1;
		}
	if (same == m->ndense && !m->nsparse) {
		free(ix);
		return NULL;
	}
	return ix;
}

/*
 * The samples, in their order in data: those without labels go through a
 * stack builder (hashed and added on a second thread), until the first
 * with labels, after which each is added here.  Returns -1 with the error
 * set, -2 where protobuf-c would have refused the data.
 */
static int read_samples(struct ctx *c, const unsigned char *data, size_t n)
{
	struct stack_builder *sb = NULL;
	uint32_t *ix = location_indexes(&c->locations), *ids = NULL;
	struct location **loc = NULL;
	struct label *lab = NULL;
	struct pb_sample ps = { 0 };
	int64_t *val = NULL;
	size_t i = 0, j, off = 0, cap = 0, icap = 0, vcap = 0, lcap = 0, nlab;
	struct pb sub;
	int r = 0, more, direct = 0;

	while (!r && (more = next_sample(data, &off, n, &sub)) != 0) {
		if (more < 0 || pb_sample(&sub, &ps) < 0) {
			r = -2;
			break;
		}
		i++;
		if (!c->m->n_sample_type) {
			r = bad(c, "samples without sample types");
			break;
		}
		if (ps.nvalue != c->m->n_sample_type) {
			r = bad(c, "sample %zu has %zu values for %zu sample types", i, ps.nvalue,
				c->m->n_sample_type);
			break;
		}
		GROW(ids, icap, ps.nloc + 1);
		for (j = 0; j < ps.nloc; j++) {
			uint64_t id = ps.loc[j];
			const struct location *l;

			if (id - 1 < c->locations.ndense)
				ids[j] = ix ? ix[id - 1] : (uint32_t)id;
			else
				ids[j] = id && (l = id_map_get(&c->locations, id)) ? (uint32_t)l->id : 0;
			if (!ids[j]) {
				r = bad(c, "sample %zu refers to location %llu, which does not "
					"exist", i, (unsigned long long)id);
				break;
			}
			ids[j]--;
		}
		if (r || (r = read_labels(c, &ps, &lab, &lcap, &nlab)) < 0)
			break;
		GROW(val, vcap, ps.nvalue + 1);
		for (j = 0; j < ps.nvalue; j++)
			val[j] = (int64_t)ps.value[j];
		if (!nlab && !direct) {
			if (!sb)
				sb = stack_builder_begin(c->p);
			stack_builder_add_indexes(sb, ids, ps.nloc, val);
			continue;
		}
		/* From the first sample with labels on, each is added here. */
		direct = 1;
		if (sb) {
			stack_builder_keep_indexes(sb);
			stack_builder_end(sb);
			sb = NULL;
		}
		GROW(loc, cap, ps.nloc + 1);
		for (j = 0; j < ps.nloc; j++)
			loc[j] = c->p->location[ids[j]];
		profile_add_sample_labels(c->p, loc, ps.nloc, val, lab, nlab);
	}
	stack_builder_end(sb);
	free(ix);
	free(ids);
	free(loc);
	free(lab);
	free(val);
	free(ps.loc);
	free(ps.value);
	free(ps.label);
	return r;
}

/*
 * The data without its samples, for protobuf-c: the top-level walk has
 * checked every field's key and length.
 */
static unsigned char *without_samples(const unsigned char *data, size_t n, size_t *len)
{
	unsigned char *out = xmalloc(n + 1);
	struct pb r = { data, 0, n };

	*len = 0;
	while (r.off < r.end) {
		size_t start = r.off;
		uint64_t number;
		unsigned wire;

		if (pb_key(&r, &number, &wire) < 0 || pb_skip(&r, wire) < 0) {
			/* protobuf-c will refuse the rest. */
			memcpy(out + *len, data + start, n - start);
			*len += n - start;
			break;
		}
		if (number == 2 && wire == WT_LEN)
			continue;
		memcpy(out + *len, data + start, r.off - start);
		*len += r.off - start;
	}
	return out;
}

/*
 * protobuf-c allocates each message on its own: from an arena, the
 * unpacked tree (millions of blocks for a big profile) goes at once.
 */
static void *arena_pb_alloc(void *data, size_t size)
{
	return arena_alloc(data, size ? size : 1);
}

static void arena_pb_free(void *data, void *ptr)
{
}

/* Explains why protobuf-c refused data (with the offset), else says so plainly. */
static int explain(const char *name, const unsigned char *data, size_t len, struct err *e)
{
	struct walk w;

	walk_init(&w, data, 0, 1);
	if (walk_msg(&w, 0, len, &profile_spec) < 0)
		return err_set(e, "%s: offset 0x%zx: %s", name, w.fail_off, w.what);
	return err_set(e, "%s: cannot decode the profile.proto message", name);
}

/*
 * The model from m (the data without its samples, unpacked) and the
 * samples in data; -2 where protobuf-c would have refused the samples.
 */
static int fill(const char *path, const PbProfile *m, const unsigned char *data, size_t n,
		struct profile *p, struct err *e)
{
	struct ctx c = { .path = path, .p = p, .m = m, .e = e };
	int r;

	r = read_strings(&c) < 0 || read_header(&c) < 0 || read_mappings(&c) < 0 ||
	    read_functions(&c) < 0 || read_locations(&c) < 0 ? -1 : read_samples(&c, data, n);
	/* protobuf-c, unpacking everything first, refused damaged data before any such error. */
	if (r == -1 && !samples_readable(data, n))
		r = -2;
	free(c.str);
	if (c.mappings.dense)
		id_map_release(&c.mappings);
	if (c.functions.dense)
		id_map_release(&c.functions);
	if (c.locations.dense)
		id_map_release(&c.locations);
	return r;
}

int proto_read_buffer(const char *path, const unsigned char *buf, size_t len,
		      size_t max_inflated, struct profile *p, struct err *e)
{
	unsigned char *inflated = NULL;
	const unsigned char *data = buf;
	char name[512];
	size_t n = len;
	struct walk w;
	struct arena arena;
	ProtobufCAllocator alloc = { arena_pb_alloc, arena_pb_free, &arena };
	PbProfile *m;
	int r;

	snprintf(name, sizeof(name), "%s", path);
	if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		if (inflate_all(path, buf, len, max_inflated ? max_inflated : PROTO_MAX_INFLATED,
				!max_inflated, &inflated, &n, e) < 0)
			return -1;
		data = inflated;
		snprintf(name, sizeof(name), "%s (decompressed)", path);
	}
	/* A top-level pass: not a Profile at all, or profiles one after another. */
	walk_init(&w, data, 0, 0);
	if (walk_msg(&w, 0, n, &profile_spec) < 0)
		r = inflated && !w.fail_off && !find_field(&profile_spec, data[0] >> 3)
			    ? err_set(e, "%s: gzip data that is not a profile.proto", path)
			    : err_set(e, "%s: offset 0x%zx: %s", name, w.fail_off, w.what);
	else if (w.repeat_name)
		r = err_set(e, "%s: offset 0x%zx: a second Profile.%s: concatenated profiles are "
			    "not supported", name, w.repeat_off, w.repeat_name);
	else if (!n)
		r = err_set(e, "%s: empty profile", path);
	else {
		size_t rest_len;
		unsigned char *rest = without_samples(data, n, &rest_len);

		arena_init(&arena);
		m = perftools__profiles__profile__unpack(&alloc, rest_len, rest);
		free(rest);
		if (!m || (r = fill(path, m, data, n, p, e)) == -2)
			r = explain(name, data, n, e);
		arena_release(&arena);
	}
	free(inflated);
	return r;
}

static int proto_read(const char *path, const unsigned char *buf, size_t len,
		     const struct read_options *ro, struct profile *p,
		      struct err *e)
{
	return proto_read_buffer(path, buf, len, ro ? ro->max_input : 0, p, e);
}

/* The value reported and how long the profile ran, as Go pprof's header names them. */
static void proto_header(FILE *out, const struct profile *p, const struct report_options *o)
{
	int si = o->sample_index;

	if (si >= 0 && (size_t)si < p->nsample_type)
		fprintf(out, "Type: %s\n", p->sample_type[si].type);
	if (p->duration_nanos > 0) {
		char d[48];

		units_label(p->duration_nanos, "nanoseconds", "minimum", d, sizeof(d));
		fprintf(out, "Duration: %s\n", d);
	}
}

const struct reader reader_proto = {
	.name = "profile.proto",
	.sniff = proto_sniff,
	.read = proto_read,
	.style = report_measured_style,
	.header = proto_header,
};
