/* test_proto.c - unit tests for the profile.proto codec (include/proto.h) and labelled samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "proto.h"

static const char *const two_types[] = { "samples", "count", "cpu", "nanoseconds" };

/*
 * A profile with what the proto carries: a mapping, a symbolized location
 * with an inline chain, an unsymbolized one, labels, comments, drop/keep
 * frames, the default sample type.
 */
static struct profile *sample_profile(void)
{
	struct profile *p = profile_new();
	struct mapping *m;
	struct location *l1, *l2, *stack[2];
	struct line lines[2];
	struct label lab[3];
	int64_t v[2] = { 1, 10 };

	profile_set_sample_types(p, 2, two_types);
	p->period_type.type = profile_intern(p, "cpu");
	p->period_type.unit = profile_intern(p, "nanoseconds");
	p->period = 10;
	p->time_nanos = 123;
	p->duration_nanos = 456;
	p->drop_frames = profile_intern(p, "drop.*");
	p->keep_frames = profile_intern(p, "keep");
	p->default_sample_type = profile_intern(p, "cpu");
	profile_add_comment(p, "a comment");
	m = profile_add_mapping(p, 0x400000, 0x500000, 0, "/bin/prog", "abcd");
	l1 = profile_add_location(p, m, 0x401000);
	lines[0].function = profile_function(p, "inner", "_Z5innerv", "a.c", 3, NO_SYMBOL_ADDRESS);
	lines[0].line = 5;
	lines[1].function = profile_function(p, "outer", "outer", "a.c", 10, NO_SYMBOL_ADDRESS);
	lines[1].line = 12;
	profile_set_lines(p, l1, lines, 2);
	l1->is_folded = 1;
	l2 = profile_add_location(p, m, 0x402000);
	stack[0] = l1;
	stack[1] = l2;
	profile_add_sample(p, stack, 2, v);
	lab[0] = (struct label){ profile_intern(p, "size"), profile_intern(p, ""), 64,
				 profile_intern(p, "bytes") };
	lab[1] = (struct label){ profile_intern(p, "worker"), profile_intern(p, "b"), 0,
				 profile_intern(p, "") };
	lab[2] = (struct label){ profile_intern(p, "phase"), profile_intern(p, "one"), 0,
				 profile_intern(p, "") };
	profile_add_sample_labels(p, stack, 2, v, lab, 3);
	return p;
}

/* Writes p as proto into *buf (caller frees); returns its length. */
static size_t write_proto(const struct profile *p, char **buf)
{
	struct err e = { { 0 } };
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);
	int r = proto_write(f, p, &e);

	fclose(f);
	CHECK_EQ_INT(r, 0);
	return len;
}

/* gz (all its members) inflated by zlib into a new buffer (caller frees); *n its size. */
static unsigned char *gunzip(const char *gz, size_t len, size_t *n)
{
	size_t cap = 4096;
	unsigned char *raw = malloc(cap);
	z_stream z = { 0 };
	int r;

	inflateInit2(&z, 16 + MAX_WBITS);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	while ((r = inflate(&z, Z_NO_FLUSH)) == Z_OK || r == Z_BUF_ERROR ||
	       (r == Z_STREAM_END && z.avail_in)) {
		if (r == Z_STREAM_END) {
			inflateReset(&z);
		} else if (!z.avail_out) {
			raw = realloc(raw, 2 * cap);
			z.next_out = raw + cap;
			z.avail_out = (uInt)cap;
			cap *= 2;
		} else if (r == Z_BUF_ERROR) {
			break;
		}
	}
	CHECK_EQ_INT(r, Z_STREAM_END);
	*n = cap - z.avail_out;
	inflateEnd(&z);
	return raw;
}

/* Whether q, written again, gives the bytes gz holds. */
static int writes_back_same(const struct profile *q, const char *gz, size_t len)
{
	char *again;
	size_t n = write_proto(q, &again);
	int same = n == len && !memcmp(again, gz, n);

	free(again);
	return same;
}

TEST(labels_make_samples)
{
	struct profile *p = sample_profile();
	struct location *stack[2] = { p->location[0], p->location[1] };
	struct label lab[3];
	int64_t v[2] = { 2, 20 };

	CHECK_EQ_INT(p->nsample, 2);
	/* The same labels in another order: the same sample. */
	lab[0] = sample_labels(p->sample[1])[2];
	lab[1] = sample_labels(p->sample[1])[0];
	lab[2] = sample_labels(p->sample[1])[1];
	profile_add_sample_labels(p, stack, 2, v, lab, 3);
	CHECK_EQ_INT(p->nsample, 2);
	CHECK_EQ_INT(sample_value(p->sample[1])[0], 3);
	/* Go's order: string labels by key, then numeric ones. */
	CHECK_STR(sample_labels(p->sample[1])[0].key, "phase");
	CHECK_STR(sample_labels(p->sample[1])[1].key, "worker");
	CHECK_STR(sample_labels(p->sample[1])[2].key, "size");
	/* No labels: the label-less sample. */
	profile_add_sample_labels(p, stack, 2, v, lab, 0);
	CHECK_EQ_INT(p->nsample, 2);
	CHECK_EQ_INT(sample_value(p->sample[0])[0], 3);
	profile_free(p);
}

TEST(round_trip)
{
	struct profile *p = sample_profile(), *q = profile_new();
	struct err e = { { 0 } };
	char *buf;
	size_t len = write_proto(p, &buf);
	const struct location *l;

	if (!CHECK_EQ_INT(proto_read_buffer("t.pb.gz", (unsigned char *)buf, len,
					    PROTO_MAX_INFLATED, q, &e), 0)) {
		TEST_NOTE("%s", e.msg);
		return;
	}
	CHECK_EQ_INT(q->nsample_type, 2);
	CHECK_STR(q->sample_type[1].unit, "nanoseconds");
	CHECK_STR(q->period_type.type, "cpu");
	CHECK_EQ_INT(q->period, 10);
	CHECK_EQ_INT(q->time_nanos, 123);
	CHECK_EQ_INT(q->duration_nanos, 456);
	CHECK_STR(q->drop_frames, "drop.*");
	CHECK_STR(q->keep_frames, "keep");
	CHECK_STR(q->default_sample_type, "cpu");
	if (CHECK_EQ_INT(q->ncomment, 1))
		CHECK_STR(q->comment[0], "a comment");
	if (!CHECK_EQ_INT(q->nmapping, 1) || !CHECK_EQ_INT(q->nlocation, 2) ||
	    !CHECK_EQ_INT(q->nsample, 2))
		return;
	CHECK_STR(q->mapping[0]->build_id, "abcd");
	/* One location without lines: the mapping does not claim functions. */
	CHECK(!q->mapping[0]->has_functions);
	l = q->location[0];
	CHECK(l->is_folded && l->mapping == q->mapping[0] && l->address == 0x401000);
	if (CHECK_EQ_INT(l->nline, 2)) {
		CHECK_STR(l->line[0].function->name, "inner");
		CHECK_STR(l->line[0].function->system_name, "_Z5innerv");
		CHECK_EQ_INT(l->line[0].line, 5);
		CHECK_STR(l->line[1].function->name, "outer");
		CHECK_EQ_INT(l->line[1].function->start_line, 10);
	}
	CHECK_EQ_INT(q->location[1]->nline, 0);
	if (CHECK_EQ_INT(q->sample[1]->nlabel, 3)) {
		CHECK_STR(sample_labels(q->sample[1])[0].str, "one");
		CHECK_EQ_INT(sample_labels(q->sample[1])[2].num, 64);
		CHECK_STR(sample_labels(q->sample[1])[2].num_unit, "bytes");
	}
	/* What was read writes the same bytes. */
	CHECK(writes_back_same(q, buf, len));
	free(buf);
	profile_free(p);
	profile_free(q);
}

/* Writing profile.proto by hand, for what proto_write never writes. */
struct pbw {
	unsigned char b[1 << 17];
	size_t n;
};

static void w_varint(struct pbw *w, uint64_t v)
{
	do {
		w->b[w->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void w_bytes(struct pbw *w, const void *b, size_t n)
{
	memcpy(w->b + w->n, b, n);
	w->n += n;
}

/* Field number with a varint. */
static void w_num(struct pbw *w, unsigned field, uint64_t v)
{
	w_varint(w, field << 3);
	w_varint(w, v);
}

/* Field number with the bytes of another writer. */
static void w_sub(struct pbw *w, unsigned field, const struct pbw *sub)
{
	w_varint(w, field << 3 | 2);
	w_varint(w, sub->n);
	w_bytes(w, sub->b, sub->n);
}

/*
 * Strings "", samples, count, k, v; one sample type; locations 1 to nloc
 * (id i at 0x10 * i), written last first when reversed; then the sample
 * fields given.  Read into a new profile, returned (NULL on error, the
 * message in e).
 */
static struct profile *read_hand(size_t nloc, int reversed, const struct pbw *samples,
				 struct err *e)
{
	static const char *const str[] = { "", "samples", "count", "k", "v" };
	struct pbw *w = calloc(1, sizeof(*w)), sub;
	struct profile *q = profile_new();
	size_t i;

	sub.n = 0;
	w_num(&sub, 1, 1);
	w_num(&sub, 2, 2);
	w_sub(w, 1, &sub);
	for (i = 1; i <= nloc; i++) {
		size_t id = reversed ? nloc + 1 - i : i;

		sub.n = 0;
		w_num(&sub, 1, id);
		w_num(&sub, 3, 0x10 * id);
		w_sub(w, 4, &sub);
	}
	w_bytes(w, samples->b, samples->n);
	for (i = 0; i < 5; i++) {
		w_varint(w, 6 << 3 | 2);
		w_varint(w, strlen(str[i]));
		w_bytes(w, str[i], strlen(str[i]));
	}
	if (proto_read_buffer("h.pb", w->b, w->n, PROTO_MAX_INFLATED, q, e) < 0) {
		profile_free(q);
		q = NULL;
	}
	free(w);
	return q;
}

/* A sample's stack as addresses, leaf first, into a string like "10 20". */
static const char *stack_of(const struct profile *q, size_t i)
{
	static char s[256];
	size_t k = 0, j;

	s[0] = 0;
	for (j = 0; j < q->sample[i]->nlocation; j++)
		k += (size_t)snprintf(s + k, sizeof(s) - k, "%s%llx", j ? " " : "",
				      (unsigned long long)q->location[sample_stack(q->sample[i])[j]]
					      ->address);
	return s;
}

/* Into smp (emptied): a sample of packed location ids 1 2 and one value. */
static void w_sample12(struct pbw *smp, uint64_t value)
{
	struct pbw ids = { .n = 0 };

	smp->n = 0;
	w_varint(&ids, 1);
	w_varint(&ids, 2);
	w_sub(smp, 1, &ids);
	w_num(smp, 2, value);
}

/*
 * Samples are read from the data by hand, as protobuf-c reads them:
 * location ids packed or one by one (or both, in turns), unknown fields
 * skipped, labels' last fields counting.
 */
TEST(samples_read_by_hand)
{
	struct pbw w = { .n = 0 }, smp, sub, lab;
	struct err e = { { 0 } };
	struct profile *q;

	/* Packed ids 1 2, value 3. */
	w_sample12(&smp, 3);
	w_sub(&w, 2, &smp);
	/* Ids one by one (2, then packed 1), unknown fields of every wire type, value 4. */
	smp.n = sub.n = 0;
	w_varint(&sub, 1);
	w_varint(&sub, 2);
	w_num(&smp, 1, 2);
	w_num(&smp, 9, 77);
	w_varint(&smp, 10 << 3 | 1);
	w_bytes(&smp, "12345678", 8);
	w_varint(&smp, 11 << 3 | 5);
	w_bytes(&smp, "1234", 4);
	w_sub(&smp, 12, &sub);
	sub.n = 0;
	w_varint(&sub, 1);
	w_sub(&smp, 1, &sub);
	w_num(&smp, 2, 4);
	w_sub(&w, 2, &smp);
	/* The first sample again (values add up), then with a label k=v (str 4, after str 3). */
	w_sample12(&smp, 5);
	w_sub(&w, 2, &smp);
	lab.n = 0;
	w_num(&lab, 1, 3);
	w_num(&lab, 2, 3);
	w_num(&lab, 7, 1);
	w_num(&lab, 2, 4);
	w_sub(&smp, 3, &lab);
	w_sub(&w, 2, &smp);
	q = read_hand(2, 0, &w, &e);
	if (!CHECK(q)) {
		TEST_NOTE("%s", e.msg);
		return;
	}
	if (CHECK_EQ_INT(q->nsample, 3)) {
		CHECK_STR(stack_of(q, 0), "10 20");
		CHECK_EQ_INT(sample_value(q->sample[0])[0], 8);
		CHECK_STR(stack_of(q, 1), "20 10");
		CHECK_EQ_INT(sample_value(q->sample[1])[0], 4);
		CHECK_STR(stack_of(q, 2), "10 20");
		CHECK_EQ_INT(sample_value(q->sample[2])[0], 5);
		if (CHECK_EQ_INT(q->sample[2]->nlabel, 1)) {
			CHECK_STR(sample_labels(q->sample[2])[0].key, "k");
			CHECK_STR(sample_labels(q->sample[2])[0].str, "v");
		}
	}
	profile_free(q);
}

/* What protobuf-c refuses in a sample fails, at the offset the walk finds. */
TEST(samples_refused)
{
	static const struct {
		const char *bytes;
		size_t n;
		const char *msg;
	} bad[] = {
		/* A varint of 11 bytes as a location id. */
		{ "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "longer than 10 bytes" },
		/* Packed ids whose last one is cut. */
		{ "\x0a\x02\x01\x81", 4, "varint runs past end" },
		/* A group. */
		{ "\x0b", 1, "invalid wire type 3" },
		/* Field number 0. */
		{ "\x00\x01", 2, "field number 0" },
		/* A value of wire type 1. */
		{ "\x11\x01\x02\x03\x04\x05\x06\x07\x08", 9, "wire type 1, expected 0" },
		/* A label's key as bytes. */
		{ "\x1a\x03\x0a\x01\x00", 5, "wire type 2, expected 0" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pbw w = { .n = 0 }, smp = { .n = 0 };
		struct err e = { { 0 } };
		struct profile *q;

		w_bytes(&smp, bad[i].bytes, bad[i].n);
		w_sub(&w, 2, &smp);
		q = read_hand(2, 0, &w, &e);
		if (!CHECK(!q)) {
			profile_free(q);
			continue;
		}
		CHECK_CONTAINS(e.msg, "h.pb: offset 0x");
		CHECK_CONTAINS(e.msg, bad[i].msg);
	}
}

/*
 * A damaged sample is reported before what is wrong elsewhere, as when
 * protobuf-c unpacked everything first: here a sample that refers to a
 * missing location comes before it.
 */
TEST(damage_before_meaning)
{
	struct pbw w = { .n = 0 }, smp = { .n = 0 };
	struct err e = { { 0 } };
	struct profile *q;

	w_num(&smp, 1, 9);
	w_num(&smp, 2, 1);
	w_sub(&w, 2, &smp);
	q = read_hand(2, 0, &w, &e);
	CHECK(!q);
	CHECK_CONTAINS(e.msg, "refers to location 9");
	smp.n = 0;
	w_bytes(&smp, "\x0b", 1);
	w_sub(&w, 2, &smp);
	q = read_hand(2, 0, &w, &e);
	CHECK(!q);
	CHECK_CONTAINS(e.msg, "invalid wire type 3");
}

/*
 * Thousands of samples, unlabelled then labelled then unlabelled again,
 * stacks repeating: the first go through the second thread, the rest are
 * added in turn.  The samples come out as adding each in its turn makes them.
 */
TEST(many_samples_in_order)
{
	struct pbw *w = calloc(1, sizeof(*w)), smp, ids;
	struct profile *p = profile_new(), *q;
	struct location *loc[40], *stack[4];
	struct err e = { { 0 } };
	struct label lab;
	size_t i, k;

	profile_set_sample_types(p, 1, two_types);
	for (i = 0; i < 40; i++)
		loc[i] = profile_add_location(p, NULL, 0x10 * (i + 1));
	lab = (struct label){ profile_intern(p, "k"), profile_intern(p, "v"), 0,
			      profile_intern(p, "") };
	for (i = 0; i < 6000; i++) {
		int64_t v = (int64_t)i + 1;
		size_t n = 1 + i % 4;

		smp.n = ids.n = 0;
		for (k = 0; k < n; k++) {
			stack[k] = loc[(i * (k + 3) + k * k) % 40];
			w_varint(&ids, stack[k]->address / 0x10);
		}
		w_sub(&smp, 1, &ids);
		w_num(&smp, 2, (uint64_t)v);
		if (i >= 2000 && i < 2100 && i % 3) {
			struct pbw l = { .n = 0 };

			w_num(&l, 1, 3);
			w_num(&l, 2, 4);
			w_sub(&smp, 3, &l);
			profile_add_sample_labels(p, stack, n, &v, &lab, 1);
		} else {
			profile_add_sample(p, stack, n, &v);
		}
		w_sub(w, 2, &smp);
	}
	/* Locations written in id order, and not (ids are then looked up). */
	for (k = 0; k < 2; k++) {
		size_t j, wrong = 0;

		q = read_hand(40, (int)k, w, &e);
		if (!CHECK(q)) {
			TEST_NOTE("%s", e.msg);
			continue;
		}
		if (CHECK_EQ_INT(q->nsample, p->nsample))
			for (i = 0; i < p->nsample; i++) {
				const struct sample *a = p->sample[i], *b = q->sample[i];

				wrong += a->nlocation != b->nlocation || a->nlabel != b->nlabel ||
					 sample_value(a)[0] != sample_value(b)[0];
				for (j = 0; j < a->nlocation && j < b->nlocation; j++)
					wrong += sample_location(p, a, j)->address !=
						 sample_location(q, b, j)->address;
			}
		CHECK_EQ_INT(wrong, 0);
		profile_free(q);
	}
	free(w);
	profile_free(p);
}

TEST(inflate_cap)
{
	struct profile *p = sample_profile(), *q = profile_new();
	struct err e = { { 0 } };
	char *buf;
	size_t len = write_proto(p, &buf);

	CHECK_EQ_INT(proto_read_buffer("t.pb.gz", (unsigned char *)buf, len, 64, q, &e), -1);
	CHECK_STR(e.msg, "t.pb.gz: decompresses to more than 64 bytes");
	free(buf);
	profile_free(p);
	profile_free(q);
}

/* gzip data of n zero bytes, at the best ratio deflate has (about 1000). */
static unsigned char *zeros_gz(size_t n, size_t *len)
{
	z_stream z = { 0 };
	unsigned char *in = calloc(1, n), *out;
	size_t cap;

	deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
	cap = deflateBound(&z, n);
	out = malloc(cap);
	z.next_in = in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	*len = cap - z.avail_out;
	deflateEnd(&z);
	free(in);
	return out;
}

TEST(inflate_ratio)
{
	struct profile *q = profile_new();
	struct err e = { { 0 } };
	size_t len;
	unsigned char *gz = zeros_gz((size_t)80 << 20, &len);

	/* 80 MiB from some 80 kB: past the floor, and far past the ratio. */
	CHECK(len < (size_t)100 << 10);
	CHECK_EQ_INT(proto_read_buffer("z.pb.gz", gz, len, 0, q, &e), -1);
	CHECK_CONTAINS(e.msg, "z.pb.gz: decompresses to more than 67108864 bytes, 200 times its size");
	/* An explicit cap is the user's word: the whole is inflated (and is no profile). */
	CHECK_EQ_INT(proto_read_buffer("z.pb.gz", gz, len, PROTO_MAX_INFLATED, q, &e), -1);
	CHECK_CONTAINS(e.msg, "gzip data that is not a profile.proto");
	free(gz);
	profile_free(q);
}

/* n bytes at in as one gzip member, appended to out at *len (out has room). */
static void gz_member(const unsigned char *in, size_t n, unsigned char *out, size_t *len)
{
	z_stream z = { 0 };

	deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out + *len;
	z.avail_out = (uInt)deflateBound(&z, n);
	deflate(&z, Z_FINISH);
	*len = (size_t)(z.next_out - out);
	deflateEnd(&z);
}

/*
 * gzip members one after another read as their bytes together, whichever
 * member is the bigger (the buffer is sized by the last trailer); a
 * trailer whose size is wrong is refused with zlib's word for it.
 */
TEST(inflate_members)
{
	struct profile *p = sample_profile();
	char *gz;
	size_t gzlen = write_proto(p, &gz), raw_len, cuts[] = { 1, 0, 0 }, i;
	unsigned char *raw = gunzip(gz, gzlen, &raw_len), two[8192];

	cuts[1] = raw_len / 2;
	cuts[2] = raw_len - 1;
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct profile *q = profile_new();
		struct err e = { { 0 } };
		unsigned char *out = NULL;
		size_t len = 0, outlen = 0;

		gz_member(raw, cuts[i], two, &len);
		gz_member(raw + cuts[i], raw_len - cuts[i], two, &len);
		/* libdeflate's path takes it, not zlib's behind it. */
		if (CHECK(proto_inflate_members(two, len, PROTO_MAX_INFLATED, &out, &outlen)))
			CHECK(outlen == raw_len && !memcmp(out, raw, raw_len));
		free(out);
		if (CHECK_EQ_INT(proto_read_buffer("two.pb.gz", two, len, PROTO_MAX_INFLATED, q,
						   &e), 0))
			CHECK(writes_back_same(q, gz, gzlen));
		else
			TEST_NOTE("    cut at %zu: %s", cuts[i], e.msg);
		profile_free(q);
		if (i == 1) {
			/* The last trailer's size, one more than it is. */
			q = profile_new();
			two[len - 4]++;
			CHECK(!proto_inflate_members(two, len, PROTO_MAX_INFLATED, &out, &outlen));
			CHECK_EQ_INT(proto_read_buffer("bad.pb.gz", two, len, PROTO_MAX_INFLATED, q,
						       &e), -1);
			CHECK_CONTAINS(e.msg, "bad.pb.gz: offset 0x");
			CHECK_CONTAINS(e.msg, "corrupt gzip data: incorrect length check");
			profile_free(q);
		}
	}
	free(raw);
	free(gz);
	profile_free(p);
}

/*
 * The same with a first member bigger than the first guess (64 kB from a
 * small last trailer): libdeflate's buffer grows, to the cap and no further.
 */
TEST(inflate_members_grow)
{
	struct profile *p = profile_new(), *q = profile_new();
	struct err e = { { 0 } };
	struct mapping *m = profile_add_mapping(p, 0x400000, 0x900000, 0, "/bin/prog", "");
	unsigned char *raw, *two, *out = NULL;
	size_t gzlen, raw_len, len = 0, outlen = 0, i;
	int64_t v[2] = { 1, 10 };
	char *gz;

	profile_set_sample_types(p, 2, two_types);
	for (i = 0; i < 20000; i++) {
		struct location *stack[2] = { profile_add_location(p, m, 0x400000 + 16 * i),
					      profile_add_location(p, m, 0x800000 + 16 * (i % 7)) };

		profile_add_sample(p, stack, 2, v);
	}
	gzlen = write_proto(p, &gz);
	raw = gunzip(gz, gzlen, &raw_len);
	CHECK(raw_len > 4 * 65536);
	two = malloc(2 * raw_len);
	gz_member(raw, raw_len - 10, two, &len);
	gz_member(raw + raw_len - 10, 10, two, &len);
	if (CHECK(proto_inflate_members(two, len, PROTO_MAX_INFLATED, &out, &outlen)))
		CHECK(outlen == raw_len && !memcmp(out, raw, raw_len));
	free(out);
	CHECK(proto_inflate_members(two, len, raw_len, &out, &outlen));
	free(out);
	CHECK(!proto_inflate_members(two, len, raw_len - 1, &out, &outlen));
	if (CHECK_EQ_INT(proto_read_buffer("grow.pb.gz", two, len, PROTO_MAX_INFLATED, q, &e), 0))
		CHECK(writes_back_same(q, gz, gzlen));
	else
		TEST_NOTE("    %s", e.msg);
	free(raw);
	free(two);
	free(gz);
	profile_free(p);
	profile_free(q);
}

TEST(sniff)
{
	static const unsigned char gperf[] = { 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27, 0, 0 };
	static const char dcpi[] = "name hello\nimage 0x1 /bin/prog\n";
	static const char gmon[] = "gmon\0\0\0\1";
	static const unsigned char gz[] = { 0x1f, 0x8b, 8, 0 };
	/* string_table "" only; then sample_type {1:1} first. */
	static const unsigned char tiny[] = { 0x32, 0x00 };
	static const unsigned char st[] = { 0x0a, 0x02, 0x08, 0x01, 0xff };

	CHECK(!reader_proto.sniff(gperf, sizeof(gperf)));
	CHECK(!reader_proto.sniff((const unsigned char *)dcpi, sizeof(dcpi) - 1));
	CHECK(!reader_proto.sniff((const unsigned char *)gmon, 8));
	CHECK(reader_proto.sniff(gz, sizeof(gz)));
	CHECK(reader_proto.sniff(tiny, sizeof(tiny)));
	CHECK(reader_proto.sniff(st, sizeof(st)));
	CHECK(!reader_proto.sniff(st + 2, 3));
}

TEST(merge_keeps_labels_and_lines)
{
	struct profile *src = sample_profile(), *dst = profile_new();

	profile_set_sample_types(dst, 2, two_types);
	profile_merge(dst, src, 1);
	profile_merge(dst, src, 1);
	if (CHECK_EQ_INT(dst->nsample, 2)) {
		CHECK_EQ_INT(dst->sample[1]->nlabel, 3);
		CHECK_EQ_INT(sample_value(dst->sample[1])[1], 20);
		CHECK(sample_labels(dst->sample[1])[0].key == profile_intern(dst, "phase"));
	}
	if (CHECK_EQ_INT(dst->nlocation, 2) && CHECK_EQ_INT(dst->location[0]->nline, 2))
		CHECK_STR(dst->location[0]->line[1].function->name, "outer");
	profile_free(src);
	profile_free(dst);
}

int main(void)
{
	RUN(labels_make_samples);
	RUN(round_trip);
	RUN(samples_read_by_hand);
	RUN(samples_refused);
	RUN(damage_before_meaning);
	RUN(many_samples_in_order);
	RUN(inflate_cap);
	RUN(inflate_ratio);
	RUN(inflate_members);
	RUN(inflate_members_grow);
	RUN(sniff);
	RUN(merge_keeps_labels_and_lines);
	return test_done();
}
