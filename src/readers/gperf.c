/* gperf.c - reader for gperftools CPU profiles (binary header, records, trailer, map text). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cursor.h"
#include "maps.h"
#include "reader.h"
#include "util.h"

/*
 * Slot width and byte order come from the header words, as gperftools
 * pprof decides them: 8 zero bytes mean 64-bit slots (the next slot's zero
 * half tells the order); otherwise 32-bit, with the zero half of the second
 * word telling the order.  Returns 0 when the bytes fit neither.
 */
static int detect(const unsigned char *b, size_t len, unsigned *width, int *big)
{
	static const unsigned char zero[8];

	if (len < 8 || memcmp(b, zero, 4))
		return 0;
	if (!memcmp(b, zero, 8)) {
		if (len < 16)
			return 0;
		*width = 8;
		if (!memcmp(b + 12, zero, 4) && memcmp(b + 8, zero, 4))
			*big = 0;
		else if (!memcmp(b + 8, zero, 4) && memcmp(b + 12, zero, 4))
			*big = 1;
		else
			return 0;
		return 1;
	}
	*width = 4;
	if (!b[6] && !b[7])
		*big = 0;
	else if (!b[4] && !b[5])
		*big = 1;
	else
		return 0;
	return 1;
}

static int gperf_sniff(const unsigned char *buf, size_t len)
{
	/* Header slot 0 is always zero; nothing else we read starts so. */
	static const unsigned char zero[4];

	return len >= 4 && !memcmp(buf, zero, 4);
}

/*
 * Only a window of the input stays resident: a file is mapped without
 * being read in (reader.c), so the 2 MB window after the one being read
 * is faulted in at once (faster than page by page), and the pages behind
 * are dropped when they belong to the file's mapping (a buffer of the
 * caller's is left alone).  A kernel without this advice faults pages in
 * as they are read.  The thread that adds the samples does this between
 * batches (window_follow), from how far the reader is.
 */
struct window {
	const unsigned char *buf;
	size_t len, next;     /* the next window to fault in starts at next */
	size_t released;      /* bytes before this are dropped */
	int mapped;
	_Atomic size_t upto;  /* how far the records are read */
};

#define WINDOW (2u << 20)

static void window_advance(struct window *w, size_t upto)
{
	const uintptr_t page = 4096;
	uintptr_t start, end;

	if (upto + WINDOW < w->next || w->next >= w->len)
		return;
	/* Behind the reader: it has faulted that in itself. */
	if (w->next < upto)
		w->next = upto;
	start = ((uintptr_t)w->buf + w->next) & ~(page - 1);
	end = (uintptr_t)w->buf + (w->len - w->next < WINDOW ? w->len : w->next + WINDOW);
#ifdef MADV_POPULATE_READ
	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_READ);
#endif
	w->next = end - (uintptr_t)w->buf;
	/* Keep the window before this one: a record may straddle them. */
	if (!w->mapped || upto < w->released + 2 * WINDOW)
		return;
	start = ((uintptr_t)w->buf + w->released + page - 1) & ~(page - 1);
	end = ((uintptr_t)w->buf + upto - WINDOW) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
	w->released = upto - WINDOW;
}

static void window_follow(void *arg)
{
	struct window *w = arg;

	window_advance(w, atomic_load_explicit(&w->upto, memory_order_relaxed));
}

/*
 * The header: 0, the number of header words after this one (3 or more),
 * version 0, the sampling period in microseconds, then words we skip.
 * Returns the period, or -1.
 */
static int64_t parse_header(struct cursor *c, unsigned width)
{
	uint64_t hdr_words, version, period;

	cursor_word(c, width, "profile header");
	hdr_words = cursor_word(c, width, "profile header");
	if (cursor_failed(c) < 0)
		return -1;
	if (hdr_words < 3)
		return cursor_fail(c, width, "bad header word count %llu (must be 3 or more)",
				   (unsigned long long)hdr_words);
	version = cursor_word(c, width, "profile header");
	period = cursor_word(c, width, "profile header");
	if (cursor_failed(c) < 0)
		return -1;
	if (version != 0)
		return cursor_fail(c, 2 * width, "unsupported CPU profile version %llu",
				   (unsigned long long)version);
	if (period > UINT32_MAX)
		return cursor_fail(c, 3 * width, "absurd sampling period %llu",
				   (unsigned long long)period);
	/* Skip the remaining header words. */
	if (cursor_left(c) / width < hdr_words - 2)
		return cursor_fail(c, width, "header of %llu words runs past end of file",
				   (unsigned long long)hdr_words + 2);
	c->off += (hdr_words - 2) * width;
	return (int64_t)period;
}

/* The header, and p's sample types; returns the period, or -1. */
static int64_t read_header(struct cursor *c, unsigned width, struct profile *p)
{
	static const char *const types[] = { "samples", "count", "cpu", "nanoseconds" };
	int64_t period = parse_header(c, width);

	if (period < 0)
		return -1;
	profile_set_sample_types(p, 2, types);
	/* gperftools pprof reports samples; Go pprof would take the last type. */
	p->default_sample_type = p->sample_type[0].type;
	p->period_type.type = profile_intern(p, "cpu");
	p->period_type.unit = profile_intern(p, "nanoseconds");
	p->period = period * 1000;
	return period;
}

/* A slot of the record data; the width and order were checked by detect(). */
static inline uint64_t slot(const unsigned char *b, unsigned width, int big)
{
	const int host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	if (width == 8) {
		uint64_t v;

		memcpy(&v, b, 8);
		return big == host_big ? v : __builtin_bswap64(v);
	} else {
		uint32_t v;

		memcpy(&v, b, 4);
		return big == host_big ? v : __builtin_bswap32(v);
	}
}

/* Two slots at a time: a million records have ten million frames. */
typedef uint64_t slot_pair __attribute__((vector_size(16)));

/*
 * A stack of n 64-bit slots in this machine's order at src, into pc: the
 * leaf as it is, the callers' return addresses one byte back, inside the
 * call.
 */
static void return_addresses(uint64_t *pc, const unsigned char *src, uint32_t n)
{
	uint32_t i = 1;

	memcpy(pc, src, 8);
	for (; i + 2 <= n; i += 2) {
		slot_pair v;

		memcpy(&v, src + (size_t)i * 8, sizeof(v));
		v -= 1;
		memcpy(pc + i, &v, sizeof(v));
	}
	if (i < n) {
		memcpy(&pc[i], src + (size_t)i * 8, 8);
		pc[i]--;
	}
}

/*
 * The records (count, depth, PCs) up to the trailer: any record whose first
 * PC is 0 ends the data, as in gperftools pprof.  Callers' PCs are return
 * addresses: they are looked up one byte before, inside the call.
 */
static int read_records(struct cursor *c, unsigned width, int64_t period, int raw, int mapped,
			int adding, struct profile *p)
{
	const int host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	uint64_t mask = width == 8 ? UINT64_MAX : UINT32_MAX;
	struct stack_builder *sb = stack_builder_begin(p);
	struct window win = { c->buf, c->len, c->off, 0, mapped, c->off };
	size_t start = c->off;
	uint64_t records = 0;
	int ret = -1;

	/* The first windows here, the others on the thread that adds the samples. */
	window_advance(&win, c->off);
	window_advance(&win, c->off);
	stack_builder_follow(sb, window_follow, &win);
	for (;;) {
		size_t rec_off = c->off;
		uint64_t count, depth, *pc;
		int64_t val[2];
		uint32_t i;

		if (cursor_left(c) == 0) {
			/* gperftools pprof writes symbolized profiles without one. */
			if (raw)
				ret = 0;
			else
				cursor_fail(c, rec_off, "missing end-of-data trailer (file truncated?)");
			break;
		}
		if (cursor_left(c) >= 2 * width) {
			count = slot(c->buf + c->off, width, c->big_endian);
			depth = slot(c->buf + c->off + width, width, c->big_endian);
			c->off += 2 * width;
		} else {
			/* Cut short: the cursor says where. */
			count = cursor_word(c, width, "record header");
			depth = cursor_word(c, width, "record header");
			if (cursor_failed(c) < 0)
				break;
		}
		if (depth == 0) {
			cursor_fail(c, rec_off, "record with no PCs");
			break;
		}
		if (depth > cursor_left(c) / width || depth > UINT32_MAX) {
			cursor_fail(c, rec_off, "stack of %llu frames runs past end of file",
				    (unsigned long long)depth);
			break;
		}
		if (slot(c->buf + c->off, width, c->big_endian) == 0) {
			/* The trailer (0, 1, 0). */
			c->off += depth * width;
			ret = 0;
			break;
		}
		if (count > INT64_MAX / 1000 / (period ? (uint64_t)period : 1)) {
			cursor_fail(c, rec_off, "absurd sample count %llu", (unsigned long long)count);
			break;
		}
		pc = stack_builder_reserve(sb, depth);
		if (width == 8 && c->big_endian == host_big && !raw) {
			/* The common case, 64-bit slots in this machine's order. */
			return_addresses(pc, c->buf + c->off, depth);
		} else {
			for (i = 0; i < depth; i++)
				pc[i] = slot(c->buf + c->off + (size_t)i * width, width,
					     c->big_endian);
			/* Return addresses, but in symbolized profiles, whose are inside the call already. */
			if (!raw)
				for (i = 1; i < depth; i++)
					pc[i] = (pc[i] - 1) & mask;
		}
		c->off += depth * width;
		val[0] = (int64_t)count;
		val[1] = (int64_t)count * period * 1000;
		stack_builder_commit(sb, depth, val);
		atomic_store_explicit(&win.upto, c->off, memory_order_relaxed);
		/* The records to come, from the bytes read so far: the builder sizes its indexes. */
		if (++records % 16384 == 0)
			stack_builder_expect(sb, (uint64_t)((double)records * (double)(c->len - start) /
							    (double)(c->off - start)));
	}
	if (adding)
		stack_builder_keep_indexes(sb);
	stack_builder_end(sb);
	return ret;
}

static int gperf_read(const char *name, const unsigned char *buf, size_t len,
		     const struct read_options *ro, struct profile *p, struct err *e)
{
	struct cursor c;
	unsigned width;
	int big;
	int64_t period;
	size_t i;

	cursor_init(&c, name, buf, len, e);
	if (!detect(buf, len, &width, &big)) {
		if (len < 16)
			return cursor_fail(&c, 0, "profile header runs past end of file");
		return cursor_fail(&c, 0, "bad header words: neither 32- nor 64-bit slots of a CPU profile");
	}
	c.big_endian = big;
	p->address_bits = width * 8;
	if ((period = read_header(&c, width, p)) < 0 ||
	    read_records(&c, width, period, ro && ro->raw_addresses, ro && ro->mapped, 0, p) < 0)
		return -1;
	maps_parse(p, name, (const char *)c.buf + c.off, cursor_left(&c));
	/* Locations were created before the mappings were known. */
	for (i = 0; i < p->nlocation; i++)
		p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
	return 0;
}

/*
 * Where the map text starts, found by walking the records without reading
 * their stacks; 0 when a record is damaged or the trailer is missing.
 */
static size_t maps_offset(const unsigned char *buf, size_t len, size_t off, unsigned width,
			  int big, int64_t period)
{
	while (len - off >= 2 * width) {
		uint64_t count = slot(buf + off, width, big), depth = slot(buf + off + width, width, big);

		off += 2 * width;
		if (depth == 0 || depth > (len - off) / width || depth > UINT32_MAX)
			return 0;
		if (slot(buf + off, width, big) == 0)
			return off + depth * width;
		if (count > INT64_MAX / 1000 / (period ? (uint64_t)period : 1))
			return 0;
		off += depth * width;
	}
	return 0;
}

/* Whether two lists of mappings are the same objects at the same addresses, none twice. */
static int same_mappings(const struct profile *a, const struct profile *b)
{
	size_t i, j;

	if (a->nmapping != b->nmapping || a->nmapping > 256)
		return 0;
	for (i = 0; i < a->nmapping; i++) {
		const struct mapping *m = a->mapping[i], *n = b->mapping[i];

		if (m->start != n->start || m->limit != n->limit || m->offset != n->offset ||
		    strcmp(m->file, n->file) || strcmp(m->build_id, n->build_id))
			return 0;
		/* Merging would relocate a second mapping of an object to its first. */
		for (j = 0; j < i; j++)
			if (a->mapping[j]->offset == m->offset && !strcmp(a->mapping[j]->file, m->file) &&
			    a->mapping[j]->limit - a->mapping[j]->start == m->limit - m->start)
				return 0;
	}
	return 1;
}

/*
 * Another profile of the program, added straight to p when its mapped
 * objects are p's at the same addresses: its addresses are p's, and its
 * records read into p give the locations and samples (in the same order)
 * that reading it alone and merging it would, without a table of its own
 * stacks.  Anything else, a damaged file included, is left to that.
 */
static int gperf_add(const char *name, const unsigned char *buf, size_t len,
		     const struct read_options *ro, struct profile *p, struct err *e)
{
	struct err scratch = { { 0 } };
	struct profile *maps;
	struct cursor c;
	unsigned width;
	int big, same;
	int64_t period;
	size_t text;

	if ((ro && ro->raw_addresses) || !detect(buf, len, &width, &big) ||
	    p->address_bits != width * 8)
		return 0;
	cursor_init(&c, name, buf, len, &scratch);
	c.big_endian = big;
	if ((period = parse_header(&c, width)) < 0 ||
	    !(text = maps_offset(buf, len, c.off, width, big, period)))
		return 0;
	maps = profile_new();
	same = maps_parse_clean(maps, (const char *)buf + text, len - text) == 0 &&
	       same_mappings(maps, p);
	profile_free(maps);
	if (!same)
		return 0;
	if (read_records(&c, width, period, 0, ro && ro->mapped, 1, p) < 0) {
		*e = scratch;
		return -1;
	}
	return 1;
}

/*
 * The profiler's own signal-handler frames, and gperftools pprof's default
 * regex, the literal NOMATCH: it takes out every function whose name
 * contains "NOMATCH", and we keep that to give its numbers.
 */
static const char *const signal_frames[] = {
	"ProfileData::Add", "ProfileData::prof_handler", "CpuProfiler::prof_handler",
	"__FRAME_END__", "__pthread_sighandler", "__restore", NULL,
};

static const struct frame_rules cpu_frames = {
	.names = signal_frames,
	.regex = "NOMATCH",
	.signal_frames = 1,
};

const struct reader reader_gperf = {
	.name = "gperftools CPU profile",
	.sniff = gperf_sniff,
	.read = gperf_read,
	.add = gperf_add,
	.frames = &cpu_frames,
};
