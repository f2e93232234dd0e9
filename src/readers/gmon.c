/* gmon.c - reader for gprof's gmon.out: GNU records (histogram, arcs, basic blocks) and BSD files. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "reader.h"
#include "util.h"

/*
 * Layouts (glibc sys/gmon_out.h, binutils gprof/gmon_io.c), W = address
 * width, all fields in the profiled machine's byte order:
 *
 *   GNU:      "gmon", u32 version (1, or 0), 12 spare bytes; then records
 *             to the end, each a tag byte and its body:
 *               0 histogram: W low_pc, W high_pc, u32 bins, u32 rate,
 *                            char dimension[15], char abbreviation, u16 bins[]
 *               1 arc:       W from_pc, W self_pc, u32 count
 *               2 blocks:    u32 n, n x (W address, W count)
 *   4.4BSD:   W low_pc, W high_pc, u32 ncnt, u32 0x00051879, u32 rate,
 *             12 spare bytes (32 bytes in all with W 4, 40 with W 8)
 *   old BSD:  W low_pc, W high_pc, u32 ncnt (12 or 20 bytes); rate 100 Hz
 *   Both BSD: ncnt is the header plus the u16 bins; then arcs to the end,
 *             each W from_pc, W self_pc, W count.
 *
 * gprof takes W and the byte order from the program; the file must tell
 * them here.  Every interpretation (W 8 or 4, little or big endian) is
 * parsed, without building anything, and the one that reads the whole
 * file consistently wins: every record complete, tags known, histogram
 * ranges non-empty with a printable dimension name, the BSD ncnt agreeing
 * with the file length.  When several do, the one whose arc and block
 * addresses fall inside its histogram ranges (or, without a histogram,
 * are non-zero and below 2^48) wins, then the order 64-bit little endian,
 * 32-bit little endian, 64-bit big endian, 32-bit big endian.  When none
 * does, the error is the one of the interpretation that got furthest (a
 * record cut short by the end of the file counts as reaching it).
 *
 * In the model:
 *  - sample types {DIMENSION, "nanoseconds"} (time; "nano" + DIMENSION for
 *    a dimension other than seconds), {"calls", "count"} and
 *    {"executions", "count"}; the period is 1/rate in nanoseconds;
 *  - a histogram's range is a mapping with no file (symbolize_gprof ties
 *    it to the program).  gprof credits a bin to the symbols it overlaps
 *    in proportion to the overlap, counted in 2-byte units: each unit of
 *    bin i gets count/scale ticks.  So each unit u of a non-empty bin
 *    becomes a one-frame sample at address 2u+1 (a byte inside the unit:
 *    looked up as a byte, it lands in the symbol gprof credits the unit
 *    to) carrying that time, and crediting by symbol is left to the
 *    symbolizer.  Bins of more than 64 units (real files have 2) are cut
 *    into 64 pieces instead, exact unless a symbol starts inside a piece;
 *  - an arc is a two-frame sample [self_pc, from_pc] with its count in
 *    "calls".  from_pc is no return address (glibc records the call site
 *    rounded down to its hash granularity) and is used as it is;
 *  - a block count is a one-frame sample at its address in "executions".
 */

#define GMON_HDR_SIZE 20
#define BSD44_VERSION 0x00051879u
#define OLD_BSD_RATE 100
#define MAX_RATE 1000000u
#define MAX_PIECES 64
/*
 * Distinct histogram ranges a file may have (glibc writes one): each
 * histogram record and each arc's address is checked against all of them.
 */
#define MAX_RANGES 64
#define PIECE_BUDGET (1u << 18)
/* Sums of calls or executions above this are taken for garbage. */
#define MAX_COUNT_SUM (UINT64_C(1) << 62)
#define MAX_TIME_NS 4e18

enum layout { GNU, BSD44, OLDBSD };

struct range {
	uint64_t low, high;
	uint32_t nbins;
	uint64_t *count;         /* summed bins (reading pass only) */
};

struct gmon {
	/* The interpretation tried. */
	enum layout layout;
	unsigned width;
	int big;
	/* What it found. */
	uint32_t version;
	int have_hist;
	uint32_t rate;
	char dimen[16];
	char abbrev;
	double scale;
	struct range *range;
	size_t nrange, cap_range;
	uint64_t calls, executions;
	long score;
	size_t reached;          /* how far a failed parse got */
	/* The reading pass: where samples go (NULL while only checking). */
	struct profile *p;
	int64_t value[3];
};

static int is_print(unsigned char ch)
{
	return ch >= 0x20 && ch < 0x7f;
}

/* Fails at offset at; reached records how far this interpretation got. */
static int fail(struct gmon *g, struct cursor *c, size_t at, size_t reached,
		struct err *e, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int fail(struct gmon *g, struct cursor *c, size_t at, size_t reached,
		struct err *e, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	g->reached = reached;
	return cursor_fail(c, at, "%s", what);
}

/* A record cut short by the end of the file: it reached the end. */
static int truncated(struct gmon *g, struct cursor *c, size_t at, struct err *e,
		     const char *what)
{
	return fail(g, c, at, c->len, e, "%s runs past end of file", what);
}


static int plausible(const struct gmon *g, uint64_t a)
{
	size_t i;

	if (!g->nrange)
		return a != 0 && a < (UINT64_C(1) << 48);
	for (i = 0; i < g->nrange; i++)
		if (a >= g->range[i].low && a < g->range[i].high)
			return 1;
	return 0;
}

/* gprof's scale: 2-byte units per bin (hist.c read_histogram_header). */
static double hist_scale(uint64_t low, uint64_t high, uint32_t nbins)
{
	return (double)((high - low) / 2) / nbins;
}

/*
 * One histogram (a GNU record, or the BSD header): checks it against the
 * first one as gprof does, and adds its bins to its range.
 */
static int add_hist(struct gmon *g, struct cursor *c, size_t rec, uint64_t low,
		    uint64_t high, uint32_t nbins, uint32_t rate, const char *dimen, char abbrev,
		    const unsigned char *bins, struct err *e)
{
	double scale;
	struct range *r = NULL;
	size_t i;

	if (low == high)
		return fail(g, c, rec, rec, e, "histogram with an empty address range (low_pc = high_pc = 0x%llx)",
			    (unsigned long long)low);
	if (low > high)
		return fail(g, c, rec, rec, e, "histogram with low_pc 0x%llx above high_pc 0x%llx",
			    (unsigned long long)low, (unsigned long long)high);
	if (rate == 0 || rate > MAX_RATE)
		return fail(g, c, rec, rec, e, "absurd profiling rate %u Hz", rate);
	scale = hist_scale(low, high, nbins);
	if (!g->have_hist) {
		g->have_hist = 1;
		g->rate = rate;
		memcpy(g->dimen, dimen, 15);
		g->dimen[15] = 0;
		g->abbrev = abbrev;
		g->scale = scale;
	} else {
		if (strncmp(dimen, g->dimen, 15))
			return fail(g, c, rec, rec, e, "histogram dimension '%.15s' differs from the first histogram's '%s'",
				    dimen, g->dimen);
		if (abbrev != g->abbrev)
			return fail(g, c, rec, rec, e, "histogram dimension abbreviation '%c' differs from the first histogram's '%c'",
				    abbrev, g->abbrev);
		if (scale - g->scale > 0.000001 || g->scale - scale > 0.000001)
			return fail(g, c, rec, rec, e, "histogram scale %g bytes per bin differs from the first histogram's %g",
				    2 * scale, 2 * g->scale);
	}
	for (i = 0; i < g->nrange; i++) {
		struct range *o = &g->range[i];

		if (o->low == low && o->high == high) {
			if (o->nbins != nbins)
				return fail(g, c, rec, rec, e, "histogram of %u bins for the range of an earlier one of %u bins",
					    nbins, o->nbins);
			r = o;
			break;
		}
		if (low < o->high && o->low < high)
			return fail(g, c, rec, rec, e, "histogram range 0x%llx-0x%llx overlaps an earlier one",
				    (unsigned long long)low, (unsigned long long)high);
	}
	if (!r) {
		if (g->nrange == MAX_RANGES)
			return fail(g, c, rec, rec, e, "more than %d histogram ranges", MAX_RANGES);
		GROW(g->range, g->cap_range, g->nrange + 1);
		r = &g->range[g->nrange++];
		r->low = low;
		r->high = high;
		r->nbins = nbins;
		r->count = NULL;
		if (g->p) {
			r->count = xcalloc(nbins, sizeof(*r->count));
			profile_add_mapping(g->p, low, high, 0, "", "");
		}
	}
	g->score += 4;
	if (r->count)
		for (i = 0; i < nbins; i++)
			r->count[i] += load_word(bins + 2 * i, 2, g->big);
	return 0;
}

static int add_arc(struct gmon *g, struct cursor *c, size_t rec, uint64_t from,
		   uint64_t self, uint64_t count, struct err *e)
{
	struct location *loc[2];

	if (count > MAX_COUNT_SUM - g->calls)
		return fail(g, c, rec, rec, e, "absurd arc count %llu", (unsigned long long)count);
	g->calls += count;
	g->score += plausible(g, from) + plausible(g, self);
	if (!g->p || !count)
		return 0;
	loc[0] = profile_location(g->p, self);
	loc[1] = profile_location(g->p, from);
	g->value[0] = g->value[2] = 0;
	g->value[1] = (int64_t)count;
	profile_add_sample(g->p, loc, 2, g->value);
	return 0;
}

static int add_block(struct gmon *g, struct cursor *c, size_t at, uint64_t addr,
		     uint64_t count, struct err *e)
{
	struct location *loc;

	if (count > MAX_COUNT_SUM - g->executions)
		return fail(g, c, at, at, e, "absurd basic-block count %llu", (unsigned long long)count);
	g->executions += count;
	g->score += plausible(g, addr);
	if (!g->p || !count)
		return 0;
	loc = profile_location(g->p, addr);
	g->value[0] = g->value[1] = 0;
	g->value[2] = (int64_t)count;
	profile_add_sample(g->p, &loc, 1, g->value);
	return 0;
}

static int read_gnu(struct gmon *g, struct cursor *c, struct err *e)
{
	unsigned w = g->width;
	uint64_t v;

	if (c->len < GMON_HDR_SIZE)
		return truncated(g, c, 0, e, "gmon.out header");
	c->off = 4;
	g->version = cursor_u32(c, "header");
	if (g->version != 1 && g->version != 0)
		return fail(g, c, 4, 4, e, "unsupported gmon.out version %u (gprof reads 0 and 1)",
			    g->version);
	c->off = GMON_HDR_SIZE;
	while (cursor_left(c)) {
		size_t rec = c->off;
		uint8_t tag;

		tag = cursor_u8(c, "tag");
		if (tag == 0) {
			uint64_t low, high;
			uint32_t nbins, rate;
			const unsigned char *dim, *bins;
			size_t i;

			if (cursor_left(c) < 2 * w + 24)
				return truncated(g, c, rec, e, "histogram record");
			low = cursor_word(c, w, "");
			high = cursor_word(c, w, "");
			nbins = cursor_u32(c, "");
			rate = cursor_u32(c, "");
			dim = cursor_bytes(c, 16, "");
			/* A name of printable characters, then NUL padding. */
			for (i = 0; i < 15 && dim[i]; i++)
				if (!is_print(dim[i]))
					break;
			if (i == 0 || (i < 15 && dim[i]) || !is_print(dim[15]))
				return fail(g, c, rec, rec, e, "histogram dimension is not a name");
			for (; i < 15; i++)
				if (dim[i])
					return fail(g, c, rec, rec, e, "histogram dimension is not a name");
			if (nbins == 0)
				return fail(g, c, rec, rec, e, "histogram with no bins");
			if (cursor_left(c) / 2 < nbins)
				return fail(g, c, rec, c->len, e, "histogram of %u bins runs past end of file",
					    nbins);
			bins = cursor_bytes(c, 2 * (size_t)nbins, "");
			if (add_hist(g, c, rec, low, high, nbins, rate, (const char *)dim,
				     (char)dim[15], bins, e) < 0)
				return -1;
		} else if (tag == 1) {
			uint64_t from, self;
			uint32_t count;

			if (cursor_left(c) < 2 * w + 4)
				return truncated(g, c, rec, e, "call-graph arc record");
			from = cursor_word(c, w, "");
			self = cursor_word(c, w, "");
			count = cursor_u32(c, "");
			if (add_arc(g, c, rec, from, self, count, e) < 0)
				return -1;
		} else if (tag == 2) {
			uint32_t n, i;

			if (cursor_left(c) < 4)
				return truncated(g, c, rec, e, "basic-block record");
			n = cursor_u32(c, "");
			if (g->version == 0)
				return fail(g, c, rec, rec, e,
					    "basic-block record in a version 0 file (not supported)");
			if (cursor_left(c) / (2 * w) < n)
				return fail(g, c, rec, c->len, e,
					    "basic-block record of %u counts runs past end of file", n);
			for (i = 0; i < n; i++) {
				uint64_t addr;

				addr = cursor_word(c, w, "");
				v = cursor_word(c, w, "");
				if (add_block(g, c, c->off - 2 * w, addr, v, e) < 0)
					return -1;
			}
		} else {
			return fail(g, c, rec, rec, e, "unknown record tag %u", tag);
		}
	}
	return 0;
}

static size_t bsd_header_size(const struct gmon *g)
{
	if (g->layout == BSD44)
		return g->width == 8 ? 40 : 32;
	return g->width == 8 ? 20 : 12;
}

static int read_bsd(struct gmon *g, struct cursor *c, struct err *e)
{
	static const char seconds[16] = "seconds";
	unsigned w = g->width;
	size_t hdr = bsd_header_size(g), nbins;
	uint64_t low, high;
	uint32_t ncnt, rate = OLD_BSD_RATE;
	const unsigned char *bins;

	if (c->len < hdr)
		return truncated(g, c, 0, e, "BSD gmon.out header");
	low = cursor_word(c, w, "");
	high = cursor_word(c, w, "");
	ncnt = cursor_u32(c, "");
	if (g->layout == BSD44) {
		cursor_u32(c, "version");
		rate = cursor_u32(c, "");
	}
	c->off = hdr;
	if (ncnt < hdr || (ncnt - hdr) % 2)
		return fail(g, c, 2 * w, 0, e, "absurd histogram size %u for a %zu-byte header", ncnt,
			    hdr);
	nbins = (ncnt - hdr) / 2;
	if (nbins > cursor_left(c) / 2)
		return fail(g, c, 0, c->len, e, "histogram of %zu bins runs past end of file", nbins);
	bins = cursor_bytes(c, 2 * nbins, "");
	/* gprof accepts a BSD file without bins; it then has no histogram. */
	if (nbins && add_hist(g, c, 0, low, high, (uint32_t)nbins, rate, seconds, 's', bins, e) < 0)
		return -1;
	if (!nbins && low >= high)
		return fail(g, c, 0, 0, e, "histogram with an empty address range");
	while (cursor_left(c)) {
		size_t rec = c->off;
		uint64_t from, self, count;

		if (cursor_left(c) < 3 * w)
			return truncated(g, c, rec, e, "call-graph arc record");
		from = cursor_word(c, w, "");
		self = cursor_word(c, w, "");
		count = cursor_word(c, w, "");
		if (add_arc(g, c, rec, from, self, count, e) < 0)
			return -1;
	}
	return 0;
}

static void gmon_reset(struct gmon *g, enum layout layout, unsigned width, int big,
		       struct profile *p)
{
	size_t i;

	for (i = 0; i < g->nrange; i++)
		free(g->range[i].count);
	free(g->range);
	memset(g, 0, sizeof(*g));
	g->layout = layout;
	g->width = width;
	g->big = big;
	g->p = p;
}

static int parse(struct gmon *g, const char *name, const unsigned char *buf, size_t len,
		 struct err *e)
{
	struct cursor c;

	cursor_init(&c, name, buf, len, e);
	c.big_endian = g->big;
	return g->layout == GNU ? read_gnu(g, &c, e) : read_bsd(g, &c, e);
}

/* The interpretations, in order of preference. */
static const struct { unsigned width; int big; } orders[] = {
	{ 8, 0 }, { 4, 0 }, { 8, 1 }, { 4, 1 },
};

/* Which BSD layout the header shows for this interpretation. */
static enum layout bsd_layout(const unsigned char *buf, size_t len, unsigned w, int big)
{
	if (len >= 2 * w + 8 && load_word(buf + 2 * w + 4, 4, big) == BSD44_VERSION)
		return BSD44;
	return OLDBSD;
}

/* The GNU magic, or a file cut short inside it (reported as truncated). */
static int is_gnu(const unsigned char *buf, size_t len)
{
	return !memcmp(buf, "gmon", len < 4 ? len : 4);
}

/*
 * Picks the interpretation (see the top of the file).  Returns its index,
 * or -1 with e set from the one that got furthest.
 */
static int choose(const char *name, const unsigned char *buf, size_t len, struct err *e)
{
	struct err best_err = { { 0 } };
	long best_score = -1;
	size_t best_reached = 0;
	int best = -1, best_failed = -1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		struct gmon g = { 0 };
		struct err ce = { { 0 } };
		enum layout layout = is_gnu(buf, len) ? GNU
						      : bsd_layout(buf, len, orders[i].width, orders[i].big);

		gmon_reset(&g, layout, orders[i].width, orders[i].big, NULL);
		if (parse(&g, name, buf, len, &ce) == 0) {
			if (g.score > best_score) {
				best_score = g.score;
				best = (int)i;
			}
		} else if (best_failed < 0 || g.reached > best_reached) {
			best_failed = (int)i;
			best_reached = g.reached;
			best_err = ce;
		}
		gmon_reset(&g, GNU, 0, 0, NULL);
	}
	if (best < 0)
		*e = best_err;
	return best;
}

static int gmon_sniff(const unsigned char *buf, size_t len)
{
	size_t i;

	if (is_gnu(buf, len))
		return 1;
	if (len >= 4 && !memcmp(buf, "\177ELF", 4))
		return 0;
	/*
	 * BSD files have no magic.  A 4.4BSD header is claimed by its version
	 * word and a non-zero size (a gperftools CPU profile has 0 there), so
	 * that damage to the rest is reported; an old one only when some
	 * interpretation reads the whole file.
	 */
	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		unsigned w = orders[i].width;
		int big = orders[i].big;
		uint64_t low, high;
		uint32_t ncnt;
		struct gmon g = { 0 };
		struct err e;
		int ok;

		if (len < 2 * w + 4)
			continue;
		low = load_word(buf, w, big);
		high = load_word(buf + w, w, big);
		ncnt = (uint32_t)load_word(buf + 2 * w, 4, big);
		if (ncnt && bsd_layout(buf, len, w, big) == BSD44)
			return 1;
		if (low >= high || ncnt < 2 * w + 4)
			continue;
		gmon_reset(&g, OLDBSD, w, big, NULL);
		ok = parse(&g, "", buf, len, &e) == 0;
		gmon_reset(&g, GNU, 0, 0, NULL);
		if (ok)
			return 1;
	}
	return 0;
}

static int64_t round_ns(double x)
{
	return (int64_t)(x + 0.5);
}

/* Each unit of a non-empty bin (or each of 64 pieces of a wide bin) becomes a sample. */
static int emit_hist(struct gmon *g, const char *name, struct err *e)
{
	double ns_per_tick = 1e9 / g->rate, total = 0;
	uint64_t nonzero = 0, budget;
	size_t r;

	/*
	 * Pieces per bin are bounded so that a small file cannot ask for
	 * millions of samples: about PIECE_BUDGET in all, never fewer than two
	 * per bin (real histograms have bins of two units, split exactly).
	 */
	for (r = 0; r < g->nrange; r++)
		for (uint32_t i = 0; i < g->range[r].nbins; i++)
			nonzero += g->range[r].count[i] != 0;
	budget = nonzero ? PIECE_BUDGET / nonzero : MAX_PIECES;
	if (budget < 2)
		budget = 2;
	if (budget > MAX_PIECES)
		budget = MAX_PIECES;
	for (r = 0; r < g->nrange; r++) {
		const struct range *rg = &g->range[r];
		uint64_t lowu = rg->low / 2;
		uint32_t i;

		for (i = 0; i < rg->nbins; i++) {
			uint64_t b0, b1, width, q, rem, k, np, u;
			double per_unit;

			if (!rg->count[i])
				continue;
			/* gprof's bin edges: lowpc/2 + (bfd_vma)(hist_scale * i). */
			b0 = lowu + (uint64_t)(g->scale * i);
			b1 = lowu + (uint64_t)(g->scale * ((double)i + 1));
			if (b1 <= b0)
				continue;        /* more bins than units: an empty bin */
			width = b1 - b0;
			per_unit = (double)rg->count[i] * ns_per_tick / g->scale;
			total += per_unit * (double)width;
			if (total > MAX_TIME_NS)
				return err_set(e, "%s: histogram counts too large (absurd total time)", name);
			np = width < budget ? width : budget;
			q = width / np;
			rem = width % np;
			for (k = 0, u = b0; k < np; k++) {
				uint64_t units = q + (k < rem);
				struct location *loc = profile_location(g->p, 2 * u + 1);

				g->value[0] = round_ns(per_unit * (double)units);
				g->value[1] = g->value[2] = 0;
				if (g->value[0])
					profile_add_sample(g->p, &loc, 1, g->value);
				u += units;
			}
		}
	}
	return 0;
}

static int gmon_read(const char *name, const unsigned char *buf, size_t len,
		     const struct read_options *ro, struct profile *p,
		     struct err *e)
{
	struct gmon g = { 0 };
	const char *types[6];
	char unit[32];
	int k, ret = -1;
	size_t i;

	k = choose(name, buf, len, e);
	if (k < 0)
		return -1;
	/* Check once more, keeping what the file says, then read for real. */
	gmon_reset(&g, is_gnu(buf, len) ? GNU : bsd_layout(buf, len, orders[k].width, orders[k].big),
		   orders[k].width, orders[k].big, NULL);
	if (parse(&g, name, buf, len, e) < 0)
		BUG("gmon interpretation failed on second reading");
	if (!g.have_hist) {
		strcpy(g.dimen, "seconds");
		g.abbrev = 's';
	}
	snprintf(unit, sizeof(unit), "nano%s", g.abbrev == 's' ? "seconds" : g.dimen);
	types[0] = g.dimen;
	types[1] = unit;
	types[2] = "calls";
	types[3] = "count";
	types[4] = "executions";
	types[5] = "count";
	profile_set_sample_types(p, 3, types);
	/* gprof's flat profile is about time; calls and executions are asked for. */
	p->default_sample_type = p->sample_type[0].type;
	p->period_type = p->sample_type[0];
	p->period = g.have_hist ? round_ns(1e9 / g.rate) : 0;
	p->address_bits = orders[k].width * 8;

	gmon_reset(&g, g.layout, orders[k].width, orders[k].big, p);
	if (parse(&g, name, buf, len, e) < 0)
		goto out;
	if (g.have_hist && emit_hist(&g, name, e) < 0)
		goto out;
	/* Arcs may come before the histogram that maps their addresses. */
	for (i = 0; i < p->nlocation; i++)
		p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
	ret = 0;
out:
	gmon_reset(&g, GNU, 0, 0, NULL);
	return ret;
}

/*
 * Histogram time prints as gprof's seconds; a histogram of another
 * dimension (its unit "nanoX") in X; calls and executions as counts.
 */
static void gmon_style(const struct profile *p, int si, const struct report_options *o,
		       struct value_style *vs)
{
	const char *unit = p->sample_type[si].unit;

	report_default_style(p, si, o, vs);
	if (si == 0 && strcmp(unit, "nanoseconds") && !strncmp(unit, "nano", 4) && unit[4]) {
		vs->unit = unit + 4;
		vs->divisor = 1e9;
		vs->decimals = 2;
	}
}

const struct reader reader_gmon = {
	.name = "gprof gmon.out",
	.sniff = gmon_sniff,
	.read = gmon_read,
	.symbolize = symbolize_gprof,
	.style = gmon_style,
};
