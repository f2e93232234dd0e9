/* symbolized.c - reader for symbolized profiles ("--- symbol" ... "---", then a profile: --raw's output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "reader.h"
#include "strbuf.h"
#include "text.h"
#include "util.h"

/*
 * The format, as gperftools pprof writes and reads it:
 *
 *	--- symbol
 *	binary=PROGRAM
 *	0xADDRESS NAME[--NAME...]     the names of one address, outermost first
 *	---
 *	--- profile                   then a binary CPU profile, or the
 *	                              text of a profile fetched from a server
 *	                              as it came; or, without this line, a
 *	                              heap, growth or contention profile's text
 *
 * Profile addresses are taken as they are (callers' are inside the call
 * already), but for a fetched profile's text; names as given, with
 * file:line "?"; an address without a line is named "0xADDRESS".
 *
 * pprof --raw adds lines starting "#pprof" to the symbol section, which
 * gperftools pprof ignores: they describe the profile exactly (the kind it
 * was read as, sample types and values, mappings, functions with their
 * files and lines, every inline frame), and when they are there the
 * profile is read from them alone; the rest is for gperftools pprof.
 * Their words are separated by one space; numbers are decimal but for
 * addresses (hexadecimal, no "0x"); strings are "=" and the bytes, with
 * '%', blanks, control characters and DEL written %XX:
 *
 *	#pprof 1 =KIND                          first; KIND names a reader
 *	#pprof profile BITS SCALE PERIOD TIME DURATION
 *	#pprof period_type =TYPE =UNIT
 *	#pprof default =TYPE
 *	#pprof frames =DROP =KEEP
 *	#pprof types N =TYPE =UNIT...           before any sample
 *	#pprof comment =TEXT
 *	#pprof mapping START LIMIT OFFSET FLAGS =FILE =BUILD_ID
 *	#pprof function SYMBOL_ADDRESS|- START_LINE =NAME =SYSTEM_NAME =FILE
 *	#pprof location MAPPING ADDRESS FLAGS N [FUNCTION LINE]...
 *	#pprof sample N VALUE... N LOCATION... N [=KEY =STR NUM =UNIT]...
 *
 * Mappings, functions and locations are numbered from 1 in order of
 * appearance (mapping 0: none); mapping FLAGS are has_functions (1),
 * has_filenames (2), has_line_numbers (4), has_inline_frames (8);
 * location FLAGS tried (1) and is_folded (2); a location's lines are
 * innermost first.
 */

static int is_header(const struct text *t, const char *word)
{
	const char *s = t->line + 3, *end = t->line + t->len;

	if (!text_starts(t, "---"))
		return 0;
	while (s < end && *s == ' ')
		s++;
	return (size_t)(end - s) >= strlen(word) && !memcmp(s, word, strlen(word));
}

static int symbolized_sniff(const unsigned char *buf, size_t len)
{
	struct text t;
	struct err e;

	if (!text_header_is(buf, len, "---"))
		return 0;
	text_init(&t, "", buf, len, &e);
	return text_header(&t, 1) && is_header(&t, "symbol");
}

/* --- the symbol section ---------------------------------------------------- */

struct symbol {
	uint64_t addr;
	const char *names;
	size_t len;
};

struct section {
	struct symbol *sym;
	size_t nsym, cap_sym;
	struct htab by_addr;
	size_t first_ext;        /* offset of the first "#pprof" line, when ext */
	int ext;
	const char *binary;      /* binary=, in the buffer */
	size_t binary_len;
	const char *body;        /* after the closing "---" line */
	size_t body_len;
};

static void add_symbol(struct section *sec, uint64_t a, const char *names, size_t len)
{
	uint64_t h = hash_u64(a);
	size_t i;

	HTAB_FIND(&sec->by_addr, h, i, sec->sym[sec->by_addr.slot[i].idx - 1].addr == a);
	if (sec->by_addr.slot[i].idx) {
		/* A later line for an address replaces the earlier, as in pprof. */
		sec->sym[sec->by_addr.slot[i].idx - 1].names = names;
		sec->sym[sec->by_addr.slot[i].idx - 1].len = len;
		return;
	}
	GROW(sec->sym, sec->cap_sym, sec->nsym + 1);
	sec->sym[sec->nsym++] = (struct symbol){ a, names, len };
	htab_insert(&sec->by_addr, i, h, (uint32_t)sec->nsym);
}

static const struct symbol *find_symbol(const struct section *sec, uint64_t a)
{
	uint64_t h = hash_u64(a);
	size_t i;

	HTAB_FIND(&sec->by_addr, h, i, sec->sym[sec->by_addr.slot[i].idx - 1].addr == a);
	return sec->by_addr.slot[i].idx ? &sec->sym[sec->by_addr.slot[i].idx - 1] : NULL;
}

/* "0xADDRESS NAMES": lowercase hex digits, then blanks, then the names. */
static int symbol_line(const struct text *t, uint64_t *a, const char **names, size_t *len)
{
	const char *s = t->line + 2, *end = t->line + t->len;
	int digits = 0, d;

	if (!text_starts(t, "0x"))
		return 0;
	for (*a = 0; s < end && (d = lower_hex_digit((unsigned char)*s)) >= 0; s++) {
		if ((digits || d) && ++digits > 16)
			return 0;
		*a = *a << 4 | (uint64_t)d;
	}
	if (s == t->line + 2 || s >= end || (*s != ' ' && *s != '\t'))
		return 0;
	*names = text_skip_blanks(s, end);
	*len = (size_t)(end - *names);
	return *len > 0;
}

/* "name=value" variables: binary= names the program, others are reported. */
static void variable(struct section *sec, const struct text *t, int quiet)
{
	const char *eq = memchr(t->line, '=', t->len), *end = t->line + t->len, *v, *ke;

	if (!t->len || t->line[0] < 'a' || t->line[0] > 'z' || !eq)
		return;
	for (ke = eq; ke > t->line && (ke[-1] == ' ' || ke[-1] == '\t'); ke--)
		;
	v = text_skip_blanks(eq + 1, end);
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (ke - t->line == 6 && !memcmp(t->line, "binary", 6)) {
		sec->binary = v;
		sec->binary_len = (size_t)(end - v);
	} else if (!quiet) {
		notef("Ignoring unknown variable in symbols list: '%.*s' = '%.*s'",
		      (int)(ke - t->line), t->line, (int)(end - v), v);
	}
}

/* Reads the header and the symbol section up to its "---" line. */
static int read_section(struct text *t, struct section *sec, int quiet)
{
	memset(sec, 0, sizeof(*sec));
	htab_init(&sec->by_addr, 64);
	if (!text_header(t, quiet) || !is_header(t, "symbol"))
		return err_set(t->e, "%s: no '--- symbol' header", t->name);
	while (text_next(t)) {
		const char *names;
		uint64_t a;
		size_t len;

		if (text_starts(t, "---")) {
			sec->body = t->next;
			sec->body_len = (size_t)(t->end - t->next);
			return 0;
		}
		if (symbol_line(t, &a, &names, &len)) {
			add_symbol(sec, a, names, len);
		} else if (text_starts(t, "#pprof ")) {
			if (!sec->ext)
				sec->first_ext = text_offset(t);
			sec->ext = 1;
		} else {
			variable(sec, t, quiet);
		}
	}
	return err_set(t->e, "%s: the symbol section has no closing '---' line", t->name);
}

static void section_release(struct section *sec)
{
	free(sec->sym);
	htab_release(&sec->by_addr);
}

/* --- a profile after the symbols (gperftools pprof's symbolized profiles) -- */

/*
 * The profile section: after a "--- profile" line, what follows it (binary
 * CPU data, or the text of a profile fetched from a server, copied as it
 * came: *original is set); else the section from its header.
 */
static const unsigned char *body_of(const struct section *sec, size_t *len, int *original)
{
	struct text t;
	struct err e;

	*original = 0;
	text_init(&t, "", sec->body, sec->body_len, &e);
	if (text_header(&t, 1) && is_header(&t, "profile")) {
		*len = (size_t)(t.end - t.next);
		*original = *len && t.next[0] >= 0x20 && t.next[0] <= 0x7e;
		return (const unsigned char *)t.next;
	}
	*len = sec->body_len;
	return (const unsigned char *)sec->body;
}

extern const struct reader reader_symbolized;

static const struct reader *body_reader(const struct section *sec)
{
	size_t len;
	int original;
	const unsigned char *b = body_of(sec, &len, &original);
	const struct reader *r = len ? reader_for(b, len) : NULL;

	return r == &reader_symbolized ? NULL : r;
}

/*
 * One name of a "--"-separated list: a C++ operator-- keeps its dashes
 * ("A::operator--(int)"), as the list separator cannot be told from it
 * otherwise.
 */
static size_t next_name(const char *s, size_t len, size_t *skip)
{
	size_t i = 0;

	for (;;) {
		const char *d = i < len ? memmem(s + i, len - i, "--", 2) : NULL;

		if (!d) {
			*skip = len;
			return len;
		}
		if (d - s >= 8 && !memcmp(d - 8, "operator", 8)) {
			i = (size_t)(d - s) + 2;
			continue;
		}
		*skip = (size_t)(d - s) + 2;
		return (size_t)(d - s);
	}
}

/* A full name: "NAME<HEX>" is NAME with its symbol's address. */
static struct function *name_function(struct profile *p, const char *s, size_t n,
				      struct strbuf *sb)
{
	uint64_t a = NO_SYMBOL_ADDRESS;
	size_t k = n;

	if (n > 2 && s[n - 1] == '>') {
		uint64_t v = 0;
		int digits = 0;

		for (k = n - 1; k > 0 && hex_digit((unsigned char)s[k - 1]) >= 0; k--)
			digits++;
		if (k > 1 && s[k - 1] == '<' && digits > 0 && digits <= 16) {
			size_t j;

			for (j = k; j < n - 1; j++)
				v = v << 4 | (uint64_t)hex_digit((unsigned char)s[j]);
			a = v;
			k--;
		} else {
			k = n;
		}
	}
	sb_reset(sb);
	sb_add(sb, s, k);
	return profile_function(p, sb->buf, "", "?", 0, a);
}

/* Names every location from the symbol lines, innermost frame first. */
static void apply_symbols(struct profile *p, const struct section *sec)
{
	struct strbuf sb = STRBUF_INIT;
	struct line *ln = NULL;
	size_t cap = 0, i;

	for (i = 0; i < p->nlocation; i++) {
		struct location *l = p->location[i];
		const struct symbol *sym = find_symbol(sec, l->address);
		size_t n = 0, j, off = 0, skip;

		if (!sym) {
			/* pprof names an address it has no line for by the address. */
			char a[32];

			snprintf(a, sizeof(a), "0x%0*llx", p->address_bits == 32 ? 8 : 16,
				 (unsigned long long)l->address);
			GROW(ln, cap, 1);
			ln[0].function = profile_function(p, a, "", "?", 0, NO_SYMBOL_ADDRESS);
			ln[0].line = 0;
			profile_set_lines(p, l, ln, 1);
			continue;
		}
		while (off < sym->len) {
			size_t len = next_name(sym->names + off, sym->len - off, &skip);

			GROW(ln, cap, n + 1);
			ln[n].function = name_function(p, sym->names + off, len, &sb);
			ln[n++].line = 0;
			off += skip;
		}
		/* Outermost first in the file, innermost first in the model. */
		for (j = 0; j < n / 2; j++) {
			struct line tmp = ln[j];

			ln[j] = ln[n - 1 - j];
			ln[n - 1 - j] = tmp;
		}
		profile_set_lines(p, l, ln, n);
		l->tried = 1;
	}
	free(ln);
	sb_release(&sb);
}

static int read_body(const char *name, const struct section *sec, const struct read_options *ro,
		     struct profile *p, struct err *e)
{
	struct read_options raw = { .raw_addresses = 1 };
	const struct reader *r = body_reader(sec);
	const unsigned char *b;
	size_t len;
	int original;

	if (!r)
		return err_set(e, "%s: cannot recognize the profile section after the symbols", name);
	b = body_of(sec, &len, &original);
	if (ro)
		raw.max_input = ro->max_input;
	/* A server's profile as it came: its callers' addresses are return addresses. */
	raw.raw_addresses = !original;
	if (r->read(name, b, len, &raw, p, e) < 0)
		return -1;
	apply_symbols(p, sec);
	return 0;
}

/* --- the #pprof lines ----------------------------------------------------- */

struct ext {
	struct text *t;
	struct profile *p;
	const char *s, *end;     /* the rest of the current line */
	struct strbuf str;
	struct function **fn;
	size_t nfn, cap_fn;
	int have_types;
};

/* The next word of the line, or NULL (with *n = 0) at its end. */
static const char *word(struct ext *x, size_t *n)
{
	const char *w = x->s, *sp;

	if (w >= x->end) {
		*n = 0;
		return NULL;
	}
	sp = memchr(w, ' ', (size_t)(x->end - w));
	*n = (size_t)((sp ? sp : x->end) - w);
	x->s = sp ? sp + 1 : x->end;
	return w;
}

static int bad(struct ext *x, const char *what)
{
	return text_fail(x->t, "bad #pprof line: %s", what);
}

static int num(struct ext *x, int64_t *v)
{
	size_t n;
	const char *w = word(x, &n), *q = w;

	if (!w || text_int(&q, w + n, 1, v) < 0 || q != w + n)
		return bad(x, "a number expected");
	return 0;
}

/* A count of the items that follow, each at least two bytes long. */
static int count(struct ext *x, int64_t *v)
{
	if (num(x, v) < 0)
		return -1;
	if (*v < 0 || *v > (x->end - x->s + 1) / 2)
		return bad(x, "a count larger than the line");
	return 0;
}

static int hex(struct ext *x, uint64_t *v)
{
	size_t n, i;
	const char *w = word(x, &n);

	if (!w || !n || n > 16)
		return bad(x, "a hexadecimal number expected");
	for (*v = 0, i = 0; i < n; i++) {
		int d = lower_hex_digit((unsigned char)w[i]);

		if (d < 0)
			return bad(x, "a hexadecimal number expected");
		*v = *v << 4 | (uint64_t)d;
	}
	return 0;
}

/* The byte that the two hexadecimal digits at s stand for, or -1. */
static int escaped_byte(const char *s)
{
	int hi = hex_digit((unsigned char)s[0]), lo = hi < 0 ? -1 : hex_digit((unsigned char)s[1]);

	return lo < 0 ? -1 : hi << 4 | lo;
}

/* A string word, "=" and its %XX-escaped bytes, interned in the profile. */
static int str(struct ext *x, const char **out)
{
	size_t n, i;
	const char *w = word(x, &n);

	if (!w || !n || w[0] != '=')
		return bad(x, "a string expected");
	sb_reset(&x->str);
	for (i = 1; i < n; i++) {
		int c;

		if (w[i] != '%') {
			sb_addc(&x->str, w[i]);
			continue;
		}
		if (i + 2 >= n || (c = escaped_byte(w + i + 1)) < 0)
			return bad(x, "a bad %XX escape");
		sb_addc(&x->str, (char)c);
		i += 2;
	}
	*out = profile_intern_n(x->p, x->str.buf, x->str.len);
	return 0;
}

static int rec_profile(struct ext *x)
{
	int64_t bits, scale, period, time, duration;

	if (num(x, &bits) < 0 || num(x, &scale) < 0 || num(x, &period) < 0 || num(x, &time) < 0 ||
	    num(x, &duration) < 0)
		return -1;
	if ((bits != 32 && bits != 64) || scale < 0 || (scale & (scale - 1)))
		return bad(x, "address bits or value scale out of range");
	x->p->address_bits = (unsigned)bits;
	x->p->value_scale = scale;
	x->p->period = period;
	x->p->time_nanos = time;
	x->p->duration_nanos = duration;
	return 0;
}

static int rec_types(struct ext *x)
{
	const char **tu;
	int64_t n, i;
	int r = 0;

	if (x->have_types)
		return bad(x, "a second types line");
	if (count(x, &n) < 0)
		return -1;
	tu = xcalloc((size_t)n * 2 + 1, sizeof(*tu));
	for (i = 0; i < 2 * n && r == 0; i++)
		r = str(x, &tu[i]);
	if (r == 0)
		profile_set_sample_types(x->p, (size_t)n, tu);
	free(tu);
	x->have_types = 1;
	return r;
}

static int rec_mapping(struct ext *x)
{
	uint64_t start, limit, offset;
	const char *file, *build;
	struct mapping *m;
	int64_t flags;

	if (hex(x, &start) < 0 || hex(x, &limit) < 0 || hex(x, &offset) < 0 || num(x, &flags) < 0 ||
	    str(x, &file) < 0 || str(x, &build) < 0)
		return -1;
	m = profile_add_mapping(x->p, start, limit, offset, file, build);
	m->has_functions = !!(flags & 1);
	m->has_filenames = !!(flags & 2);
	m->has_line_numbers = !!(flags & 4);
	m->has_inline_frames = !!(flags & 8);
	return 0;
}

static int rec_function(struct ext *x)
{
	const char *name, *system, *file;
	uint64_t addr = NO_SYMBOL_ADDRESS;
	int64_t start;
	size_t n;

	if (x->s < x->end && *x->s == '-') {
		word(x, &n);
		if (n != 1)
			return bad(x, "a symbol address or '-' expected");
	} else if (hex(x, &addr) < 0) {
		return -1;
	}
	if (num(x, &start) < 0 || str(x, &name) < 0 || str(x, &system) < 0 || str(x, &file) < 0)
		return -1;
	GROW(x->fn, x->cap_fn, x->nfn + 1);
	x->fn[x->nfn++] = profile_function(x->p, name, system, file, start, addr);
	return 0;
}

static int rec_location(struct ext *x, struct line **ln, size_t *cap)
{
	int64_t m, flags, n, i, f;
	struct location *l;
	uint64_t addr;

	if (num(x, &m) < 0 || hex(x, &addr) < 0 || num(x, &flags) < 0 || count(x, &n) < 0)
		return -1;
	if (m < 0 || (uint64_t)m > x->p->nmapping)
		return bad(x, "no such mapping");
	GROW(*ln, *cap, (size_t)n + 1);
	for (i = 0; i < n; i++) {
		if (num(x, &f) < 0 || num(x, &(*ln)[i].line) < 0)
			return -1;
		if (f < 1 || (uint64_t)f > x->nfn)
			return bad(x, "no such function");
		(*ln)[i].function = x->fn[f - 1];
	}
	l = profile_add_location(x->p, m ? x->p->mapping[m - 1] : NULL, addr);
	profile_set_lines(x->p, l, *ln, (size_t)n);
	l->tried = !!(flags & 1);
	l->is_folded = !!(flags & 2);
	return 0;
}

struct sample_buf {
	int64_t *val;
	struct location **loc;
	struct label *lab;
	size_t cap_val, cap_loc, cap_lab;
};

static int rec_sample(struct ext *x, struct sample_buf *b)
{
	int64_t nv, nl, nlab, i, id;

	if (!x->have_types)
		return bad(x, "a sample before the types");
	if (count(x, &nv) < 0)
		return -1;
	if ((uint64_t)nv != x->p->nsample_type)
		return bad(x, "not one value per sample type");
	GROW(b->val, b->cap_val, (size_t)nv + 1);
	for (i = 0; i < nv; i++)
		if (num(x, &b->val[i]) < 0)
			return -1;
	if (count(x, &nl) < 0)
		return -1;
	GROW(b->loc, b->cap_loc, (size_t)nl + 1);
	for (i = 0; i < nl; i++) {
		if (num(x, &id) < 0)
			return -1;
		if (id < 1 || (uint64_t)id > x->p->nlocation)
			return bad(x, "no such location");
		b->loc[i] = x->p->location[id - 1];
	}
	if (count(x, &nlab) < 0)
		return -1;
	GROW(b->lab, b->cap_lab, (size_t)nlab + 1);
	for (i = 0; i < nlab; i++)
		if (str(x, &b->lab[i].key) < 0 || str(x, &b->lab[i].str) < 0 ||
		    num(x, &b->lab[i].num) < 0 || str(x, &b->lab[i].num_unit) < 0)
			return -1;
	profile_add_sample_labels(x->p, b->loc, (size_t)nl, b->val, b->lab, (size_t)nlab);
	return 0;
}

/* One "#pprof" line after the first. */
static int ext_record(struct ext *x, struct line **ln, size_t *cap, struct sample_buf *sb)
{
	const char *a, *b, *w;
	size_t n;

	w = word(x, &n);
#define IS(s) (n == strlen(s) && !memcmp(w, s, n))
	if (!w)
		return bad(x, "an empty record");
	if (IS("profile"))
		return rec_profile(x);
	if (IS("period_type")) {
		if (str(x, &a) < 0 || str(x, &b) < 0)
			return -1;
		x->p->period_type.type = a;
		x->p->period_type.unit = b;
		return 0;
	}
	if (IS("default"))
		return str(x, &x->p->default_sample_type);
	if (IS("frames"))
		return str(x, &x->p->drop_frames) < 0 ? -1 : str(x, &x->p->keep_frames);
	if (IS("types"))
		return rec_types(x);
	if (IS("comment")) {
		if (str(x, &a) < 0)
			return -1;
		profile_add_comment(x->p, a);
		return 0;
	}
	if (IS("mapping"))
		return rec_mapping(x);
	if (IS("function"))
		return rec_function(x);
	if (IS("location"))
		return rec_location(x, ln, cap);
	if (IS("sample"))
		return rec_sample(x, sb);
#undef IS
	/* Records of a later version are skipped. */
	return 0;
}

/* The "#pprof 1 =KIND" line at off; its reader (NULL when unknown) in *kind. */
static int ext_kind(struct text *t, const char *name, const unsigned char *buf, size_t len,
		    size_t off, const struct reader **kind, struct err *e)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s, *end;
	size_t i;

	text_init(t, name, buf + off, len - off, e);
	if (!text_next(t) || !text_starts(t, "#pprof 1 ="))
		return err_set(e, "%s: the first #pprof line is not '#pprof 1 =KIND'", name);
	s = t->line + 10;
	end = t->line + t->len;
	for (i = 0; s + i < end; i++) {
		int c = s[i] == '%' && s + i + 2 < end ? escaped_byte(s + i + 1) : -1;

		if (c >= 0) {
			sb_addc(&sb, (char)c);
			i += 2;
		} else {
			sb_addc(&sb, s[i]);
		}
	}
	*kind = reader_named(sb.buf);
	if (!*kind || *kind == &reader_symbolized)
		err_set(e, "%s: line %u: unknown profile kind '%s'", name, t->lineno, sb.buf);
	sb_release(&sb);
	return *kind && *kind != &reader_symbolized ? 0 : -1;
}

static int read_ext(const char *name, const unsigned char *buf, size_t len,
		    const struct section *sec, struct profile *p, struct err *e)
{
	struct ext x = { .p = p, .str = STRBUF_INIT };
	struct sample_buf sb = { 0 };
	const struct reader *kind;
	struct line *ln = NULL;
	size_t cap = 0;
	struct text t;
	unsigned base;
	int ret = -1;

	/* Line numbers in messages count from the start of the file. */
	text_init(&t, name, buf, sec->first_ext, e);
	while (text_next(&t))
		;
	base = t.lineno;
	if (ext_kind(&t, name, buf, len, sec->first_ext, &kind, e) < 0)
		return -1;
	t.lineno += base;
	x.t = &t;
	while (text_next(&t) && !text_starts(&t, "---")) {
		if (!text_starts(&t, "#pprof "))
			continue;
		x.s = t.line + 7;
		x.end = t.line + t.len;
		if (ext_record(&x, &ln, &cap, &sb) < 0)
			goto out;
	}
	if (!x.have_types) {
		text_fail(&t, "bad #pprof lines: no sample types");
		goto out;
	}
	ret = 0;
out:
	free(ln);
	free(x.fn);
	free(sb.val);
	free(sb.loc);
	free(sb.lab);
	sb_release(&x.str);
	return ret;
}

/* --- the row ------------------------------------------------------------------ */

static int symbolized_read(const char *name, const unsigned char *buf, size_t len,
			   const struct read_options *ro, struct profile *p, struct err *e)
{
	struct section sec;
	struct text t;
	int r;

	text_init(&t, name, buf, len, e);
	if (read_section(&t, &sec, 0) < 0)
		r = -1;
	else if (sec.ext)
		r = read_ext(name, buf, len, &sec, p, e);
	else
		r = read_body(name, &sec, ro, p, e);
	section_release(&sec);
	return r;
}

/* The program that binary= names, for the profile read last (pprof's $prog). */
static char binary[4096];

static const char *keep_binary(struct profile *p, const char *program)
{
	return program ? program : binary[0] ? binary : NULL;
}

/* Its names came with it. */
static int keep_names(struct profile *p, const struct symbolize_options *o, struct err *e)
{
	return 0;
}

/*
 * The hooks of the kind of profile inside, but for fitting and naming,
 * which the symbols did: one row per kind, made when first needed.
 */
static const struct reader *as_symbolized(const struct reader *inner)
{
	static struct reader rows[16];
	static size_t nrows;
	size_t i;

	for (i = 0; i < nrows; i++)
		if (!strcmp(rows[i].name, inner->name))
			return &rows[i];
	if (nrows == ARRAY_SIZE(rows))
		BUG("more kinds of profiles than symbolized rows");
	rows[nrows] = *inner;
	rows[nrows].fit = keep_binary;
	rows[nrows].symbolize = keep_names;
	rows[nrows].wraps = NULL;
	return &rows[nrows++];
}

static const struct reader *symbolized_wraps(const unsigned char *buf, size_t len)
{
	const struct reader *kind = NULL;
	struct section sec;
	struct text t;
	struct err e;

	binary[0] = 0;
	text_init(&t, "", buf, len, &e);
	if (read_section(&t, &sec, 1) == 0) {
		if (sec.ext && ext_kind(&t, "", buf, len, sec.first_ext, &kind, &e) < 0)
			kind = NULL;
		else if (!sec.ext)
			kind = body_reader(&sec);
		if (sec.binary && sec.binary_len < sizeof(binary))
			snprintf(binary, sizeof(binary), "%.*s", (int)sec.binary_len, sec.binary);
	}
	section_release(&sec);
	return kind ? as_symbolized(kind) : &reader_symbolized;
}

const struct reader reader_symbolized = {
	.name = "symbolized profile",
	.sniff = symbolized_sniff,
	.read = symbolized_read,
	.symbolize = keep_names,
	.wraps = symbolized_wraps,
};
