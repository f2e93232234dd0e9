/* dcpi.c - reader for DCPI profile files (dcpiformat(4)): ASCII header, then version-0 chunks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cursor.h"
#include "reader.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"

/*
 * The header is lines "WORD VALUE"; the words below have a fixed syntax,
 * any other word is an <unknown> line and is kept as it is.  "period" is
 * listed under both <required> and <optional> in dcpiformat(4); every kind
 * that falls under <required> must occur exactly once, so it is required.
 */
enum kind { K_VERSION, K_HEX, K_DEC, K_TIME, K_TEXT };

enum {
	F_VERSION, F_IMAGE, F_EPOCH, F_PLATFORM, F_EVENT, F_PERIOD, F_TSTART, F_TSIZE,
	F_CPUSPEED, F_CPUAMASK, F_CPUIMPLV, F_CPUCOUNT, F_PATH, NFIELD
};

static const struct field {
	const char *word;
	enum kind kind;
	int required;
} fields[NFIELD] = {
	[F_VERSION] = { "version", K_VERSION, 1 },
	[F_IMAGE] = { "image", K_HEX, 1 },
	[F_EPOCH] = { "epoch", K_TIME, 1 },
	[F_PLATFORM] = { "platform", K_TEXT, 1 },
	[F_EVENT] = { "event", K_TEXT, 1 },
	[F_PERIOD] = { "period", K_DEC, 1 },
	[F_TSTART] = { "tstart", K_HEX, 1 },
	[F_TSIZE] = { "tsize", K_DEC, 1 },
	[F_CPUSPEED] = { "cpuspeed", K_DEC, 1 },
	[F_CPUAMASK] = { "cpuamask", K_HEX, 0 },
	[F_CPUIMPLV] = { "cpuimplv", K_DEC, 0 },
	[F_CPUCOUNT] = { "cpucount", K_DEC, 0 },
	[F_PATH] = { "path", K_TEXT, 0 },
};

/* A header line seen: where, and its value (trailing blanks dropped). */
struct hline {
	int seen;
	size_t off;
	const char *val;
	size_t vlen;
};

struct header {
	struct hline f[NFIELD];
	unsigned long major, minor;
	uint64_t tstart, tsize, period;
	size_t end;            /* offset of the binary section */
};


static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Whether s[0..n) is one or more digits of the base (10 or 16). */
static int all_digits(const char *s, size_t n, int base)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (base == 16 ? hex_digit((unsigned char)s[i]) < 0 : !is_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Parses digits known to be valid; returns -1 when the value exceeds max. */
static int parse_num(const char *s, size_t n, int base, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned d = (unsigned)hex_digit((unsigned char)s[i]);

		if (x > (max - d) / (unsigned)base)
			return -1;
		x = x * (unsigned)base + d;
	}
	*v = x;
	return 0;
}

static int dcpi_sniff(const unsigned char *buf, size_t len)
{
	/* The first header line names one of the words of the format. */
	size_t i, n;

	for (i = 0; i < NFIELD; i++) {
		n = strlen(fields[i].word);
		if (len > n && !memcmp(buf, fields[i].word, n) && is_blank(buf[n]))
			return 1;
	}
	return 0;
}

/* "pdb-M.N" or a bare "M.N". */
static int parse_version(const char *s, size_t n, struct header *h)
{
	const char *dot;
	uint64_t v;

	if (n >= 4 && !memcmp(s, "pdb-", 4)) {
		s += 4;
		n -= 4;
	}
	dot = memchr(s, '.', n);
	if (!dot || !all_digits(s, (size_t)(dot - s), 10) ||
	    !all_digits(dot + 1, n - (size_t)(dot - s) - 1, 10))
		return -1;
	if (parse_num(s, (size_t)(dot - s), 10, UINT32_MAX, &v) < 0)
		return -1;
	h->major = (unsigned long)v;
	if (parse_num(dot + 1, n - (size_t)(dot - s) - 1, 10, UINT32_MAX, &v) < 0)
		return -1;
	h->minor = (unsigned long)v;
	return 0;
}

/* Checks a known line's value; fills the numbers the reader uses. */
static int check_value(struct cursor *c, int f, struct hline *l, struct header *h, struct err *e)
{
	const char *w = fields[f].word;
	uint64_t v = 0;

	switch (fields[f].kind) {
	case K_VERSION:
		if (parse_version(l->val, l->vlen, h) < 0)
			return cursor_fail(c, l->off, "bad 'version' line: '%.*s' is not pdb-MAJOR.MINOR",
					   (int)(l->vlen > 40 ? 40 : l->vlen), l->val);
		if (h->major != 0)
			return cursor_fail(c, l->off,
					   "unsupported DCPI version %.*s (major version %lu; only 0 is read)",
					   (int)(l->vlen > 40 ? 40 : l->vlen), l->val, h->major);
		return 0;
	case K_HEX:
		if (!all_digits(l->val, l->vlen, 16))
			return cursor_fail(c, l->off, "bad '%s' line: '%.*s' is not a hex number (no 0x)",
					   w, (int)(l->vlen > 40 ? 40 : l->vlen), l->val);
		if (f == F_TSTART && parse_num(l->val, l->vlen, 16, UINT64_MAX, &h->tstart) < 0)
			return cursor_fail(c, l->off, "bad 'tstart' line: address does not fit in 64 bits");
		return 0;
	case K_DEC:
		if (!all_digits(l->val, l->vlen, 10))
			return cursor_fail(c, l->off, "bad '%s' line: '%.*s' is not a decimal number",
					   w, (int)(l->vlen > 40 ? 40 : l->vlen), l->val);
		if (parse_num(l->val, l->vlen, 10, f == F_PERIOD ? INT64_MAX : UINT64_MAX, &v) < 0)
			return cursor_fail(c, l->off, "bad '%s' line: %.*s is too large", w,
					   (int)(l->vlen > 40 ? 40 : l->vlen), l->val);
		if (f == F_TSIZE)
			h->tsize = v;
		else if (f == F_PERIOD)
			h->period = v;
		return 0;
	case K_TIME:
		if (!all_digits(l->val, l->vlen, 10) || (l->vlen != 10 && l->vlen != 14))
			return cursor_fail(c, l->off,
					   "bad 'epoch' line: '%.*s' is not YYMMDDHHMM or YYYYMMDDHHMMSS",
					   (int)(l->vlen > 40 ? 40 : l->vlen), l->val);
		return 0;
	case K_TEXT:
		return 0;
	}
	return 0;
}

/*
 * Reads the header up to its "samples" line, adding every line to p's
 * comments in file order: "dcpi WORD VALUE" for the known words and
 * "dcpi unknown: LINE" (the line verbatim) for the others.
 */
static int read_header(struct cursor *c, struct profile *p, struct header *h, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	const char *buf = (const char *)c->buf;
	size_t off = 0, i;
	int ret = -1;

	for (;;) {
		const char *ls = buf + off, *nl, *le, *w, *we, *v;
		int f;

		if (off >= c->len) {
			cursor_fail(c, off, "header ends without its 'samples' line (file truncated?)");
			goto out;
		}
		nl = memchr(ls, '\n', c->len - off);
		le = nl ? nl : buf + c->len;
		/* The header is ASCII text: binary bytes mean the terminator is missing. */
		for (v = ls; v < le; v++) {
			unsigned char ch = (unsigned char)*v;

			if ((ch < 0x20 && ch != '\t') || ch >= 0x7f) {
				cursor_fail(c, (size_t)(v - buf),
					    "byte 0x%02x in the header: not ASCII text (missing 'samples' line?)",
					    ch);
				goto out;
			}
		}
		if (!nl) {
			cursor_fail(c, off, "header ends without its 'samples' line (file truncated?)");
			goto out;
		}
		w = ls;
		for (we = w; we < le && !is_blank((unsigned char)*we); we++)
			;
		for (v = we; v < le && is_blank((unsigned char)*v); v++)
			;
		if (we - w == 7 && !memcmp(w, "samples", 7) && v == le) {
			h->end = (size_t)(le - buf) + 1;
			break;
		}
		if (we == w) {
			cursor_fail(c, off, "bad header line: %s", le == ls ? "empty line" :
				    "it starts with a blank");
			goto out;
		}
		if (v == le) {
			cursor_fail(c, off, "bad header line: '%.*s' has no value",
				    (int)(we - w > 40 ? 40 : we - w), w);
			goto out;
		}
		for (f = 0; f < NFIELD; f++)
			if ((size_t)(we - w) == strlen(fields[f].word) &&
			    !memcmp(w, fields[f].word, (size_t)(we - w)))
				break;
		sb_reset(&sb);
		if (f == NFIELD) {
			sb_adds(&sb, "dcpi unknown: ");
			sb_add(&sb, ls, (size_t)(le - ls));
		} else {
			struct hline *l = &h->f[f];

			if (l->seen) {
				cursor_fail(c, off, "duplicate '%s' line (the first is at offset 0x%zx)",
					    fields[f].word, l->off);
				goto out;
			}
			l->seen = 1;
			l->off = off;
			l->val = v;
			for (l->vlen = (size_t)(le - v); is_blank((unsigned char)v[l->vlen - 1]);)
				l->vlen--;
			if (check_value(c, f, l, h, e) < 0)
				goto out;
			sb_addf(&sb, "dcpi %s %.*s", fields[f].word, (int)l->vlen, l->val);
		}
		profile_add_comment(p, sb.buf);
		off = (size_t)(le - buf) + 1;
	}
	for (i = 0; i < NFIELD; i++)
		if (fields[i].required && !h->f[i].seen) {
			cursor_fail(c, off, "missing '%s' line in the header", fields[i].word);
			goto out;
		}
	if (h->tsize > UINT64_MAX - h->tstart) {
		cursor_fail(c, h->f[F_TSIZE].off, "bad 'tsize' line: the text runs past the end of the address space");
		goto out;
	}
	ret = 0;
out:
	sb_release(&sb);
	return ret;
}

/*
 * Major version 0: chunks (offset, number, number counts) in increasing
 * offset order without overlap, then the footer (addresses with samples,
 * total samples); all little-endian uint32.  The footer is the last 8
 * bytes, so chunks are read while more than 8 bytes are left.
 */
static int read_chunks(struct cursor *c, struct profile *p, const struct header *h,
		       struct err *e)
{
	uint64_t prev_off = 0, prev_end = 0, naddr = 0, total = 0;
	uint32_t foot_addrs, foot_total;
	int have_prev = 0;
	size_t foot_off;

	while (cursor_left(c) > 8) {
		size_t coff = c->off;
		uint32_t offset, number, i;

		offset = cursor_u32(c, "chunk offset");
		number = cursor_u32(c, "chunk address count");
		if (cursor_failed(c) < 0)
			return -1;
		if (number == 0)
			return cursor_fail(c, coff, "chunk at text offset 0x%x has no addresses", offset);
		if (have_prev && offset <= prev_off)
			return cursor_fail(c, coff,
					   "chunk at text offset 0x%x is out of order (the previous one is at 0x%llx)",
					   offset, (unsigned long long)prev_off);
		if (have_prev && offset < prev_end)
			return cursor_fail(c, coff,
					   "chunk at text offset 0x%x overlaps the previous one (0x%llx-0x%llx)",
					   offset, (unsigned long long)prev_off, (unsigned long long)prev_end);
		if ((uint64_t)offset + number > h->tsize)
			return cursor_fail(c, coff,
					   "chunk at text offset 0x%x of %u addresses runs past the text (tsize %llu)",
					   offset, number, (unsigned long long)h->tsize);
		if (cursor_left(c) / 4 < number)
			return cursor_fail(c, coff, "chunk of %u counts runs past end of file", number);
		if (cursor_left(c) - (size_t)number * 4 < 8)
			return cursor_fail(c, coff,
					   "chunk of %u counts leaves no room for the 8-byte footer (file truncated?)",
					   number);
		for (i = 0; i < number; i++) {
			uint32_t n = (uint32_t)load_word(c->buf + c->off + (size_t)i * 4, 4, 0);
			struct location *loc;
			int64_t val = n;

			if (!n)
				continue;
			naddr++;
			total += n;
			loc = profile_location(p, h->tstart + offset + i);
			profile_add_sample(p, &loc, 1, &val);
		}
		c->off += (size_t)number * 4;
		prev_off = offset;
		prev_end = (uint64_t)offset + number;
		have_prev = 1;
	}
	foot_off = c->off;
	foot_addrs = cursor_u32(c, "footer");
	foot_total = cursor_u32(c, "footer");
	if (cursor_failed(c) < 0)
		return -1;
	if (foot_addrs != naddr)
		return cursor_fail(c, foot_off,
				   "footer counts %u addresses with samples, the chunks have %llu",
				   foot_addrs, (unsigned long long)naddr);
	/* The footer's total is a uint32: compare modulo 2^32. */
	if (foot_total != (uint32_t)total)
		return cursor_fail(c, foot_off + 4,
				   "footer counts %u samples, the chunks have %llu", foot_total,
				   (unsigned long long)total);
	return 0;
}

static int dcpi_read(const char *name, const unsigned char *buf, size_t len,
		     const struct read_options *ro, struct profile *p,
		     struct err *e)
{
	struct header h;
	struct cursor c;
	const char *event, *path;
	const char *types[2];

	memset(&h, 0, sizeof(h));
	cursor_init(&c, name, buf, len, e);
	if (read_header(&c, p, &h, e) < 0)
		return -1;
	event = profile_intern_n(p, h.f[F_EVENT].val, h.f[F_EVENT].vlen);
	path = h.f[F_PATH].seen ? profile_intern_n(p, h.f[F_PATH].val, h.f[F_PATH].vlen) : "";
	types[0] = event;
	types[1] = "count";
	profile_set_sample_types(p, 1, types);
	/* Not "cpu": the CPU profiler's frame-removal rules do not apply. */
	p->period_type.type = event;
	p->period_type.unit = profile_intern(p, "count");
	p->period = (int64_t)h.period;
	p->address_bits = 64;
	/* Locations take the mapping when they are made: add it first. */
	profile_add_mapping(p, h.tstart, h.tstart + h.tsize, 0, path, "");
	c.off = h.end;
	return read_chunks(&c, p, &h, e);
}


/*
 * Sets mp's file offset to where the image's tstart lies in the object,
 * so that the symbolizer looks addresses up as they are (DCPI addresses
 * are the image's own), and warns when no executable segment covers the
 * text.  Unreadable objects are left to the symbolizer's warning.
 */
static void fit_object(struct mapping *mp, const char *path, int warn)
{
	int fit = symbolize_image_range(path, mp->start, mp->limit, &mp->offset);

	if (fit >= 0 && !(fit & IMAGE_EXECUTABLE) && warn)
		warnf("'%s' has no executable code at the DCPI image's text %llx-%llx (tstart, tsize): "
		      "wrong program?", path, (unsigned long long)mp->start,
		      (unsigned long long)mp->limit);
}

/*
 * The object that holds the image: program when given, else the header's
 * path when that file exists.  Its mapping's file offset is fitted to it.
 */
static const char *dcpi_fit(struct profile *p, const char *program)
{
	const char *obj = NULL;
	int absolute = 0;
	size_t i, j;

	/* Merged profiles may hold several images, or one image under several paths. */
	for (i = 0; i < p->nmapping; i++) {
		struct mapping *mp = p->mapping[i];
		const char *o = program;

		absolute |= mp->file[0] == '/';
		if (!o && mp->file[0] && is_regular_file(mp->file))
			o = mp->file;
		if (!o)
			continue;
		if (!obj)
			obj = o;
		for (j = 0; j < i; j++)
			if (p->mapping[j]->start == mp->start && p->mapping[j]->limit == mp->limit)
				break;
		fit_object(mp, o, j == i);
	}
	/* A missing absolute path gets the symbolizer's warning. */
	if (!obj && !absolute)
		warnf("no program given, and no DCPI header's path names an existing file: "
		      "addresses stay unsymbolized");
	return obj ? obj : program;
}

const struct reader reader_dcpi = {
	.name = "DCPI profile",
	.sniff = dcpi_sniff,
	.read = dcpi_read,
	.fit = dcpi_fit,
};
