/* gperf.c - reader for gperftools CPU profiles (binary header, records, trailer, map text). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cursor.h"
#include "reader.h"
#include "strbuf.h"
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

static int parse_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int n = 0;

	while (p < end && isxdigit((unsigned char)*p)) {
		if (++n > 16)
			return -1;
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
		p++;
	}
	if (!n)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *skip_field(const char *p, const char *end)
{
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return p;
}

static int is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Copies path into sb with "$build" (followed by a non-word char) replaced. */
static void expand_build(struct strbuf *sb, const char *path, size_t n, const char *build)
{
	size_t i = 0;

	sb_reset(sb);
	while (i < n) {
		if (n - i >= 6 && !memcmp(path + i, "$build", 6) &&
		    (i + 6 == n || !is_word_char(path[i + 6]))) {
			sb_adds(sb, build);
			i += 6;
		} else {
			sb_addc(sb, path[i++]);
		}
	}
}

/*
 * One line of the mapped-object list: "build=PATH", a /proc/maps line, or a
 * cooked "start-end: path" line.  Only executable mappings with a path enter
 * the model; other lines are ignored, as the format asks.
 */
static void parse_map_line(struct profile *p, const char *name, const char *line,
			   const char *end, struct strbuf *build, struct strbuf *path,
			   unsigned lineno)
{
	const char *s = skip_space(line, end), *perm, *f;
	uint64_t start, limit, offset = 0;

	if (end - s >= 6 && !memcmp(s, "build=", 6)) {
		sb_reset(build);
		sb_add(build, s + 6, (size_t)(end - s - 6));
		return;
	}
	if (parse_hex(&s, end, &start) < 0 || s >= end || *s != '-') {
		return;
	}
	s++;
	if (parse_hex(&s, end, &limit) < 0 || s >= end)
		goto bad;
	if (*s == ':') {
		/* Cooked: "start-end: path". */
		f = skip_space(s + 1, end);
	} else {
		s = skip_space(s, end);
		perm = s;
		s = skip_field(s, end);
		if (s - perm != 4)
			goto bad;
		if (perm[2] != 'x')
			return;
		s = skip_space(s, end);
		if (parse_hex(&s, end, &offset) < 0)
			goto bad;
		s = skip_field(skip_space(s, end), end);   /* device */
		s = skip_field(skip_space(s, end), end);   /* inode */
		f = skip_space(s, end);
	}
	while (end > f && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	if (f >= end)
		return;
	if (limit <= start)
		goto bad;
	expand_build(path, f, (size_t)(end - f), sb_str(build));
	profile_add_mapping(p, start, limit, offset, sb_str(path), "");
	return;
bad:
	warnf("%s: ignoring malformed mapping line %u", name, lineno);
}

static void parse_maps(struct profile *p, const char *name, const char *text, size_t len)
{
	struct strbuf build = STRBUF_INIT, path = STRBUF_INIT;
	const char *s = text, *end = text + len;
	unsigned lineno = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		lineno++;
		parse_map_line(p, name, s, le, &build, &path, lineno);
		s = nl ? nl + 1 : end;
	}
	sb_release(&build);
	sb_release(&path);
}

/*
 * Input already parsed need not stay resident: every 16 MB, ask the kernel
 * to page out what lies behind.  This never changes the bytes (the advice
 * is not destructive), so it is safe on any buffer.
 */
static void release_consumed(const unsigned char *buf, size_t upto, size_t *released)
{
	const size_t chunk = 16u << 20, page = 4096;
	uintptr_t start, end;

	if (upto < *released + chunk)
		return;
	start = ((uintptr_t)buf + *released + page - 1) & ~(uintptr_t)(page - 1);
	end = ((uintptr_t)buf + upto) & ~(uintptr_t)(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_PAGEOUT);
	*released = upto;
}

#define PC_CACHE 8192
#define BATCH 16

struct pending {
	const unsigned char *pcs;
	uint64_t count, hash;
	uint32_t depth;
	size_t first;
};

struct pc_cache {
	uint64_t pc;
	struct location *loc;
};

static int gperf_read(const char *name, const unsigned char *buf, size_t len,
		      struct profile *p, struct err *e)
{
	static const char *const types[] = { "samples", "count", "cpu", "nanoseconds" };
	struct cursor c;
	struct location **stack = NULL;
	size_t cap = 0;
	unsigned width;
	int big;
	uint64_t hdr_words, version, period, mask;
	int ret = -1, trailer = 0;
	struct pc_cache *cache = NULL;
	struct pending batch[BATCH];
	struct sample_queue *queue = NULL;
	size_t released = 0;

	cursor_init(&c, name, buf, len);
	if (!detect(buf, len, &width, &big)) {
		if (len < 16)
			return cursor_fail(&c, 0, e, "profile header runs past end of file");
		return cursor_fail(&c, 0, e, "bad header words: neither 32- nor 64-bit slots of a CPU profile");
	}
	c.big_endian = big;
	mask = width == 8 ? UINT64_MAX : UINT32_MAX;
	p->address_bits = width * 8;
	{
		uint64_t h0;

		if (cursor_word(&c, width, &h0, "profile header", e) < 0 ||
		    cursor_word(&c, width, &hdr_words, "profile header", e) < 0)
			return -1;
	}
	if (hdr_words < 3)
		return cursor_fail(&c, width, e, "bad header word count %llu (must be 3 or more)",
				   (unsigned long long)hdr_words);
	if (cursor_word(&c, width, &version, "profile header", e) < 0 ||
	    cursor_word(&c, width, &period, "profile header", e) < 0)
		return -1;
	if (version != 0)
		return cursor_fail(&c, 2 * width, e, "unsupported CPU profile version %llu",
				   (unsigned long long)version);
	if (period > UINT32_MAX)
		return cursor_fail(&c, 3 * width, e, "absurd sampling period %llu",
				   (unsigned long long)period);
	/* Skip the remaining header words. */
	if (cursor_left(&c) / width < hdr_words - 2)
		return cursor_fail(&c, width, e, "header of %llu words runs past end of file",
				   (unsigned long long)hdr_words + 2);
	c.off += (hdr_words - 2) * width;

	profile_set_sample_types(p, 2, types);
	p->period_type.type = profile_intern(p, "cpu");
	p->period_type.unit = profile_intern(p, "nanoseconds");
	p->period = (int64_t)period * 1000;

	cache = xcalloc(PC_CACHE, sizeof(*cache));
	/*
	 * Records go in batches: parse and validate them (hinting the leaf's
	 * location slot), then resolve their locations and hash their stacks,
	 * so the table misses of a batch overlap; a second thread adds the
	 * samples meanwhile.
	 */
	queue = sample_queue_start(p);
	while (!trailer) {
		size_t nb = 0, nframes = 0, b;

		while (nb < BATCH) {
			size_t rec_off = c.off;
			uint64_t count, depth;

			if (cursor_left(&c) == 0) {
				cursor_fail(&c, rec_off, e, "missing end-of-data trailer (file truncated?)");
				goto out;
			}
			if (cursor_word(&c, width, &count, "record header", e) < 0 ||
			    cursor_word(&c, width, &depth, "record header", e) < 0)
				goto out;
			if (depth == 0) {
				cursor_fail(&c, rec_off, e, "record with no PCs");
				goto out;
			}
			if (depth > cursor_left(&c) / width || depth > UINT32_MAX) {
				cursor_fail(&c, rec_off, e, "stack of %llu frames runs past end of file",
					    (unsigned long long)depth);
				goto out;
			}
			if (load_word(c.buf + c.off, width, big) == 0) {
				/* The trailer (0, 1, 0); any record led by PC 0 ends the data. */
				c.off += depth * width;
				trailer = 1;
				break;
			}
			if (count > INT64_MAX / 1000 / (period ? period : 1)) {
				cursor_fail(&c, rec_off, e, "absurd sample count %llu",
					    (unsigned long long)count);
				goto out;
			}
			profile_prefetch_location(p, load_word(c.buf + c.off, width, big));
			batch[nb].pcs = c.buf + c.off;
			batch[nb].count = count;
			batch[nb].depth = (uint32_t)depth;
			batch[nb].first = nframes;
			nframes += depth;
			c.off += depth * width;
			nb++;
		}
		release_consumed(c.buf, nb ? (size_t)(batch[0].pcs - c.buf) : c.off, &released);
		GROW(stack, cap, nframes + 1);
		for (b = 0; b < nb; b++) {
			struct location **st = stack + batch[b].first;
			uint32_t i;

			for (i = 0; i < batch[b].depth; i++) {
				uint64_t pc = load_word(batch[b].pcs + (size_t)i * width, width, big);
				struct pc_cache *pcc;

				/* Callers are return addresses: look them up inside the call. */
				if (i > 0)
					pc = (pc - 1) & mask;
				/* Hot frames repeat in every record: a small cache before the table. */
				pcc = &cache[(pc ^ pc >> 13) & (PC_CACHE - 1)];
				if (pcc->loc && pcc->pc == pc) {
					st[i] = pcc->loc;
				} else {
					st[i] = pcc->loc = profile_location(p, pc);
					pcc->pc = pc;
				}
			}
			batch[b].hash = profile_stack_hash(st, batch[b].depth);
		}
		for (b = 0; b < nb; b++) {
			int64_t val[2];

			val[0] = (int64_t)batch[b].count;
			val[1] = (int64_t)batch[b].count * (int64_t)period * 1000;
			sample_queue_push(queue, stack + batch[b].first, batch[b].depth, val,
					  batch[b].hash);
		}
	}
	sample_queue_finish(queue);
	queue = NULL;
	parse_maps(p, name, (const char *)c.buf + c.off, cursor_left(&c));
	/* Locations were created before the mappings were known. */
	for (size_t i = 0; i < p->nlocation; i++)
		p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
	ret = 0;
out:
	if (queue)
		sample_queue_finish(queue);
	free(cache);
	free(stack);
	return ret;
}

const struct reader reader_gperf = {
	.name = "gperftools CPU profile",
	.sniff = gperf_sniff,
	.read = gperf_read,
};
