/* linetab.c - a compilation unit's DWARF line table, decoded as libdw decodes it (see linetab.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "linetab.h"
#include "util.h"

void linesections_find(Dwarf *dw, struct linesections *s)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *ident;

	memset(s, 0, sizeof(*s));
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	ident = elf_getident(elf, NULL);
	s->big_endian = ident && ident[EI_DATA] == ELFDATA2MSB;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		const unsigned char **where;
		size_t *size;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_line"))
			where = &s->line, size = &s->nline;
		else if (!strcmp(name, ".debug_str"))
			where = &s->str, size = &s->nstr;
		else if (!strcmp(name, ".debug_line_str"))
			where = &s->line_str, size = &s->nline_str;
		else
			continue;
		/* Sections libdw left compressed are not ours to change: libdw reads those units. */
		if (sh.sh_flags & SHF_COMPRESSED)
			continue;
		if ((d = elf_getdata(scn, NULL)) && d->d_buf && !*where) {
			*where = d->d_buf;
			*size = d->d_size;
		}
	}
}

/* The line program being decoded; any reason to leave it to libdw sets bad. */
struct lp {
	const unsigned char *p, *end;
	int big_endian, bad;
};

/* An unsigned or (sign) signed LEB128 number; more than 64 bits make the program libdw's. */
static uint64_t lp_leb(struct lp *r, int sign)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		unsigned char b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			r->bad = 1;
		shift += 7;
		if (!(b & 0x80)) {
			if (sign && shift > 64)
				r->bad = 1;
			else if (sign && shift < 64 && (b & 0x40))
				v |= ~0ULL << shift;
			return v;
		}
	}
	r->bad = 1;
	return 0;
}

/* Most operands are one byte: those without a call. */
static inline uint64_t lp_uleb(struct lp *r)
{
	if (__builtin_expect(r->p < r->end && !(*r->p & 0x80), 1))
		return *r->p++;
	return lp_leb(r, 0);
}

static inline int64_t lp_sleb(struct lp *r)
{
	if (__builtin_expect(r->p < r->end && !(*r->p & 0x80), 1)) {
		unsigned char b = *r->p++;

		return b & 0x40 ? (int64_t)b - 0x80 : (int64_t)b;
	}
	return (int64_t)lp_leb(r, 1);
}

static uint64_t lp_word(struct lp *r, unsigned n)
{
	uint64_t v;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	v = load_word(r->p, n, r->big_endian);
	r->p += n;
	return v;
}

static const char *lp_cstr(struct lp *r)
{
	const unsigned char *z = r->p < r->end ? memchr(r->p, 0, (size_t)(r->end - r->p)) : NULL;
	const char *s = (const char *)r->p;

	if (!z) {
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	r->p = z + 1;
	return s;
}

/* A string of a string section at offset off, or NULL. */
static const char *sec_str(const unsigned char *sec, size_t n, uint64_t off)
{
	if (!sec || off >= n || !memchr(sec + off, 0, n - off))
		return NULL;
	return (const char *)sec + off;
}

/*
 * One DWARF 5 directory or file entry field of form f: its string (path)
 * or number (directory index).  Forms beyond these mark the program bad.
 */
static void lp_field(struct lp *r, const struct linesections *s, unsigned f, unsigned offset_size,
		     const char **str, uint64_t *num)
{
	switch (f) {
	case DW_FORM_string: *str = lp_cstr(r); break;
	case DW_FORM_line_strp: *str = sec_str(s->line_str, s->nline_str, lp_word(r, offset_size)); break;
	case DW_FORM_strp: *str = sec_str(s->str, s->nstr, lp_word(r, offset_size)); break;
	case DW_FORM_udata: *num = lp_uleb(r); break;
	case DW_FORM_data1: *num = lp_word(r, 1); break;
	case DW_FORM_data2: *num = lp_word(r, 2); break;
	case DW_FORM_data4: *num = lp_word(r, 4); break;
	case DW_FORM_data8: *num = lp_word(r, 8); break;
	case DW_FORM_data16: lp_word(r, 8), lp_word(r, 8); break;
	case DW_FORM_block: {
		uint64_t n = lp_uleb(r);

		if (n > (uint64_t)(r->end - r->p))
			r->bad = 1;
		else
			r->p += n;
		break;
	}
	default: r->bad = 1; break;
	}
}

/* Names kept while the tables are read: pointers into sections, or offsets into buf. */
struct names {
	const char **dir;
	size_t ndir, cap_dir;
	struct { const char *name; size_t buf_off; int composed; } *file;
	size_t nfile, cap_file;
	char *buf;
	size_t nbuf, cap_buf;
};

/* libdw's name of a file: dir/fname unless fname is absolute or dir unknown. */
static void add_file(struct names *n, const char *fname, const char *dir)
{
	GROW(n->file, n->cap_file, n->nfile + 1);
	if (fname[0] == '/' || !dir) {
		n->file[n->nfile].name = fname;
		n->file[n->nfile].composed = 0;
	} else {
		size_t ld = strlen(dir), lf = strlen(fname);

		GROW(n->buf, n->cap_buf, n->nbuf + ld + lf + 2);
		memcpy(n->buf + n->nbuf, dir, ld);
		n->buf[n->nbuf + ld] = '/';
		memcpy(n->buf + n->nbuf + ld + 1, fname, lf + 1);
		n->file[n->nfile].buf_off = n->nbuf;
		n->file[n->nfile].composed = 1;
		n->nbuf += ld + lf + 2;
	}
	n->nfile++;
}

/* File i's name as the table will have it. */
static const char *names_file(const struct names *n, size_t i)
{
	return n->file[i].composed ? n->buf + n->file[i].buf_off : n->file[i].name;
}

static void add_dir(struct names *n, const char *dir)
{
	GROW(n->dir, n->cap_dir, n->ndir + 1);
	n->dir[n->ndir++] = dir;
}

/* The directory and file tables of a DWARF 5 header. */
static void v5_entries(struct lp *r, const struct linesections *s, struct names *n,
		       unsigned offset_size, int files)
{
	unsigned form[32], nform, path = UINT_MAX, idx = UINT_MAX, i;
	uint64_t count, k;

	nform = (unsigned)lp_word(r, 1);
	if (nform > 32) {
		r->bad = 1;
		return;
	}
	for (i = 0; i < nform; i++) {
		uint64_t desc = lp_uleb(r);

		form[i] = (unsigned)lp_uleb(r);
		if (desc == DW_LNCT_path)
			path = i;
		else if (desc == DW_LNCT_directory_index && files)
			idx = i;
	}
	count = lp_uleb(r);
	if (r->bad || (nform && (path == UINT_MAX || (files && idx == UINT_MAX))) ||
	    (!nform && count) || (nform && count > (uint64_t)(r->end - r->p) / nform)) {
		r->bad = 1;
		return;
	}
	for (k = 0; k < count && !r->bad; k++) {
		const char *name = NULL;
		uint64_t dir = UINT64_MAX;

		for (i = 0; i < nform; i++) {
			const char *str = NULL;
			uint64_t num = UINT64_MAX;

			lp_field(r, s, form[i], offset_size, &str, &num);
			if (i == path)
				name = str;
			else if (i == idx)
				dir = num;
		}
		if (!name || (files && dir >= n->ndir)) {
			r->bad = 1;
			return;
		}
		if (files)
			add_file(n, name, n->dir[dir]);
		else
			add_dir(n, name);
	}
}

/* The directory and file tables before DWARF 5. */
static void v4_entries(struct lp *r, struct names *n, const char *comp_dir)
{
	add_dir(n, comp_dir);
	while (r->p < r->end && *r->p)
		add_dir(n, lp_cstr(r));
	lp_word(r, 1);
	add_file(n, "???", NULL);
	while (!r->bad && r->p < r->end && *r->p) {
		const char *fname = lp_cstr(r);
		uint64_t dir = lp_uleb(r);

		lp_uleb(r);
		lp_uleb(r);
		if (r->bad || dir >= n->ndir) {
			r->bad = 1;
			return;
		}
		add_file(n, fname, n->dir[dir]);
	}
	lp_word(r, 1);
}

struct lstate {
	uint64_t addr;
	int64_t line;
	uint64_t file, column, discriminator, isa;
};

/*
 * Where rows go.  Without want every row is kept.  With it, a sequence's
 * rows are taken an address at a time: of the rows at one address only the
 * one a lookup there finds is a candidate (the last that ends no sequence,
 * as libdw sorts them), and it is kept when a wanted address lies between
 * it and the sequence's next address.  A lookup of a wanted address then
 * finds the row it finds in the whole table: that is the last row at or
 * below it of some sequence, and every sequence's is kept.  Ends of
 * sequences are always kept.
 */
struct sink {
	const struct linewant *want;
	struct linerow held;   /* the candidate at the current address of the sequence */
	int holding;
	size_t wi;             /* the first wanted address at or above held.addr */
	int unordered;         /* an address went down within a sequence: keep everything */
};

static void store(struct linetab *t, size_t *cap, const struct linerow *row)
{
	if (__builtin_expect(t->nrow == *cap, 0))
		GROW(t->row, *cap, t->nrow + 1);
	t->row[t->nrow++] = *row;
}

/* The first wanted address at or above a, searching from k. */
static size_t want_from(const struct linewant *w, size_t k, uint64_t a)
{
	size_t hi = w->n;

	if (k < hi && w->addr[k] >= a)
		return k;
	while (k < hi) {
		size_t mid = k + (hi - k) / 2;

		if (w->addr[mid] < a)
			k = mid + 1;
		else
			hi = mid;
	}
	return k;
}

/*
 * Keeps the held candidate when a wanted address lies before hi, where its
 * address group ends (UINT64_MAX: no row follows); returns whether it did.
 */
static inline int keep_held(struct linetab *t, size_t *cap, struct sink *k, uint64_t hi)
{
	if (k->wi < k->want->n && (hi == UINT64_MAX || k->want->addr[k->wi] < hi)) {
		store(t, cap, &k->held);
		return 1;
	}
	return 0;
}

/* Ends the held candidate's address group at hi, as keep_held. */
static void release(struct linetab *t, size_t *cap, struct sink *k, uint64_t hi)
{
	if (k->holding)
		keep_held(t, cap, k, hi);
	k->holding = 0;
}

static inline __attribute__((always_inline)) void filter_row(struct linetab *t, size_t *cap,
							     struct sink *k, const struct linerow *row)
{
	/* Within a sequence the wanted addresses are passed in order. */
	size_t from = k->holding ? k->wi : 0;

	/* Most rows: the next address of a sequence, usually with nothing wanted before it. */
	if (__builtin_expect(k->holding && !row->end && row->addr > k->held.addr, 1)) {
		if (keep_held(t, cap, k, row->addr))
			k->wi = want_from(k->want, k->wi, row->addr);
		k->held = *row;
		return;
	}
	if (k->holding && row->addr < k->held.addr) {
		k->unordered = 1;
		return;
	}
	if (k->holding && row->addr == k->held.addr) {
		if (!row->end) {
			k->held = *row;
			return;
		}
	} else if (k->holding) {
		release(t, cap, k, row->addr);
	}
	if (row->end) {
		/* An end sorts before rows at its address: the held one may be found past it. */
		store(t, cap, row);
		release(t, cap, k, UINT64_MAX);
		return;
	}
	k->wi = want_from(k->want, from, row->addr);
	k->held = *row;
	k->holding = 1;
}

static inline void add_row(struct linetab *t, size_t *cap, struct sink *k, const struct lstate *st,
			   int end, struct lp *r)
{
	struct linerow w;

	/* What libdw's row fields cannot hold makes libdw fail the table: libdw decides. */
	if (__builtin_expect(st->line < INT_MIN || st->line > INT_MAX || st->column > 0xffff ||
			     st->discriminator >= 1u << 24 || st->isa > 0xff || st->file > UINT_MAX, 0)) {
		r->bad = 1;
		return;
	}
	w.addr = st->addr;
	w.line = (int32_t)st->line;
	w.file = (uint32_t)st->file;
	w.discriminator = (uint32_t)st->discriminator;
	w.end = (uint32_t)end;
	if (!k->want)
		store(t, cap, &w);
	else
		filter_row(t, cap, k, &w);
}

/* An extended opcode (after its 0): its length, its sub-opcode, its operands. */
static void extended_op(struct linetab *t, size_t *cap, struct sink *k, struct lp *r,
			struct lstate *st, unsigned address_size)
{
	unsigned len, sub;
	const unsigned char *next;

	if (r->end - r->p < 2 || (*r->p & 0x80)) {
		r->bad = 1;
		return;
	}
	len = *r->p++;
	if ((size_t)(r->end - r->p) < len || !len) {
		r->bad = 1;
		return;
	}
	next = r->p + len;
	sub = *r->p++;
	switch (sub) {
	case DW_LNE_end_sequence:
		add_row(t, cap, k, st, 1, r);
		*st = (struct lstate){ 0, 1, 1, 0, 0, 0 };
		break;
	case DW_LNE_set_address:
		st->addr = lp_word(r, address_size);
		break;
	case DW_LNE_set_discriminator:
		st->discriminator = lp_uleb(r);
		break;
	case DW_LNE_define_file:
		r->bad = 1;
		break;
	default:
		r->p = next;
		break;
	}
	/* libdw reads operands by their kind, not by len: where they differ, it decides. */
	if (r->p != next)
		r->bad = 1;
}

/* The standard opcodes libdw knows, with the operand counts it insists on. */
static const unsigned char std_args[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };

/* Runs the line program [r->p, r->end) with the header's parameters. */
static void run_program(struct linetab *t, struct lp *r, struct sink *k, unsigned address_size,
			unsigned min_len, int line_base, unsigned line_range,
			unsigned opcode_base, const unsigned char *lengths)
{
	struct lstate st = { 0, 1, 1, 0, 0, 0 };
	/* Rows take four bytes of program or more (gcc's about five): room for them at once. */
	size_t cap = k->want ? 64 : (size_t)(r->end - r->p) / 4 + 16;
	unsigned op;
	/* What each special opcode adds to the line and the address, without a division per row. */
	int line_step[256];
	uint64_t addr_step[256];

	t->row = xmalloc(cap * sizeof(*t->row));
	for (op = opcode_base; line_range && op < 256; op++) {
		line_step[op] = line_base + (int)((op - opcode_base) % line_range);
		addr_step[op] = (uint64_t)min_len * ((op - opcode_base) / line_range);
	}

	for (op = 1; op < opcode_base && op < sizeof(std_args); op++)
		if (lengths[op - 1] != std_args[op])
			r->bad = 1;
	while (r->p < r->end && !r->bad && !k->unordered) {
		op = *r->p++;
		if (op >= opcode_base) {
			if (!line_range) {
				r->bad = 1;
				break;
			}
			st.line += line_step[op];
			st.addr += addr_step[op];
			add_row(t, &cap, k, &st, 0, r);
			st.discriminator = 0;
		} else if (op == 0) {
			extended_op(t, &cap, k, r, &st, address_size);
		} else {
			uint64_t u;
			int64_t sl;

			switch (op) {
			case DW_LNS_copy:
				add_row(t, &cap, k, &st, 0, r);
				st.discriminator = 0;
				break;
			case DW_LNS_advance_pc:
				u = lp_uleb(r);
				/* libdw multiplies in 32 bits. */
				if (u > UINT_MAX / (min_len ? min_len : 1))
					r->bad = 1;
				st.addr += (uint64_t)min_len * u;
				break;
			case DW_LNS_advance_line:
				sl = lp_sleb(r);
				if (sl < INT_MIN || sl > INT_MAX)
					r->bad = 1;
				st.line += sl;
				break;
			case DW_LNS_set_file:
				u = lp_uleb(r);
				if (u > UINT_MAX)
					r->bad = 1;
				st.file = u;
				break;
			case DW_LNS_set_column:
				u = lp_uleb(r);
				if (u > UINT_MAX)
					r->bad = 1;
				st.column = u;
				break;
			case DW_LNS_negate_stmt:
			case DW_LNS_set_basic_block:
			case DW_LNS_set_prologue_end:
			case DW_LNS_set_epilogue_begin:
				break;
			case DW_LNS_const_add_pc:
				if (!line_range) {
					r->bad = 1;
					break;
				}
				st.addr += (uint64_t)min_len * ((255 - opcode_base) / line_range);
				break;
			case DW_LNS_fixed_advance_pc:
				st.addr += lp_word(r, 2);
				break;
			case DW_LNS_set_isa:
				st.isa = lp_uleb(r);
				break;
			default: {
				unsigned n = lengths[op - 1];

				while (n-- > 0)
					lp_uleb(r);
				break;
			}
			}
		}
	}
	/* A sequence the program never ended: its last row may become the table's end. */
	if (k->holding)
		store(t, &cap, &k->held);
}

static int row_before(const struct linerow *a, const struct linerow *b)
{
	/* a's key is at most b's: address, then a sequence's end before rows. */
	return a->addr < b->addr || (a->addr == b->addr && (a->end || !b->end));
}

/*
 * libdw's order: a stable sort by (address, end first).  Programs are runs
 * of ascending rows (a sequence, or several in address order), so the
 * runs are merged, pairwise, until one is left.
 */
static void sort_rows(struct linetab *t)
{
	size_t n = t->nrow, *run = NULL, nrun = 0, cap = 0, i;
	struct linerow *tmp;

	for (i = 0; i < n; i++)
		if (i == 0 || !row_before(&t->row[i - 1], &t->row[i])) {
			GROW(run, cap, nrun + 2);
			run[nrun++] = i;
		}
	if (nrun <= 1) {
		free(run);
		return;
	}
	run[nrun] = n;
	tmp = xmalloc(n * sizeof(*tmp));
	while (nrun > 1) {
		size_t k, m = 0;

		for (k = 0; k < nrun; k += 2) {
			size_t lo = run[k], mid = run[k + 1], hi = k + 2 <= nrun ? run[k + 2] : n;
			size_t a = lo, b = mid, o = lo;

			if (k + 1 >= nrun) {
				memcpy(tmp + lo, t->row + lo, (n - lo) * sizeof(*tmp));
				run[m++] = lo;
				break;
			}
			while (a < mid && b < hi)
				tmp[o++] = row_before(&t->row[a], &t->row[b]) ? t->row[a++] : t->row[b++];
			memcpy(tmp + o, t->row + a, (mid - a) * sizeof(*tmp));
			o += mid - a;
			memcpy(tmp + o, t->row + b, (hi - b) * sizeof(*tmp));
			run[m++] = lo;
		}
		run[m] = n;
		nrun = m;
		{
			struct linerow *x = t->row;

			t->row = tmp;
			tmp = x;
		}
	}
	free(tmp);
	free(run);
}

/* Decodes the table at offset off of .debug_line; -1 leaves the unit to libdw. */
static int decode(struct linetab *t, const struct linesections *s, uint64_t off,
		  unsigned address_size, const char *comp_dir, const struct linewant *want)
{
	struct lp r = { 0 };
	struct names n = { 0 };
	uint64_t unit_length, header_length;
	unsigned offset_size = 4, version, min_len, max_ops = 1, line_range, opcode_base;
	int line_base;
	const unsigned char *header_start, *lengths;
	size_t i;

	if (!s->line || off >= s->nline)
		return -1;
	r.p = s->line + off;
	r.end = s->line + s->nline;
	r.big_endian = s->big_endian;
	unit_length = lp_word(&r, 4);
	if (unit_length == 0xffffffffu) {
		unit_length = lp_word(&r, 8);
		offset_size = 8;
	}
	if (r.bad || unit_length > (uint64_t)(r.end - r.p))
		return -1;
	r.end = r.p + unit_length;
	version = (unsigned)lp_word(&r, 2);
	if (version < 2 || version > 5)
		return -1;
	if (version >= 5 && (lp_word(&r, 1) != address_size || lp_word(&r, 1) != 0))
		return -1;
	header_length = lp_word(&r, offset_size);
	header_start = r.p;
	min_len = (unsigned)lp_word(&r, 1);
	if (version >= 4)
		max_ops = (unsigned)lp_word(&r, 1);
	lp_word(&r, 1);  /* default_is_stmt: rows keep no is_stmt */
	line_base = (int8_t)lp_word(&r, 1);
	line_range = (unsigned)lp_word(&r, 1);
	opcode_base = (unsigned)lp_word(&r, 1);
	/* VLIW op indexes, and headers without the standard opcodes, are libdw's to read. */
	if (r.bad || max_ops != 1 || opcode_base < 10 || (size_t)(r.end - r.p) < opcode_base - 1)
		return -1;
	lengths = r.p;
	r.p += opcode_base - 1;
	if (version >= 5) {
		v5_entries(&r, s, &n, offset_size, 0);
		if (!r.bad)
			v5_entries(&r, s, &n, offset_size, 1);
		/* libdw's file 0 is the table's first, and "???" when there is none. */
		if (!r.bad && n.nfile == 0)
			add_file(&n, "???", NULL);
	} else {
		v4_entries(&r, &n, comp_dir);
	}
	if (r.bad || header_length > (uint64_t)(r.end - header_start) ||
	    r.p != header_start + header_length)
		goto fail;
	/* Where file 0 is not file 1, dwindex reads the rows before a file is set: keep them all. */
	if (want && version >= 5 && n.nfile > 1 && strcmp(names_file(&n, 0), names_file(&n, 1)))
		want = NULL;
	{
		const unsigned char *program = r.p;
		struct sink k = { .want = want };

		run_program(t, &r, &k, address_size, min_len, line_base, line_range,
			    opcode_base, lengths);
		if (k.unordered && !r.bad) {
			/* Rows out of order within a sequence: every row, as libdw sorts them. */
			free(t->row);
			t->row = NULL;
			t->nrow = 0;
			r.p = program;
			k = (struct sink){ 0 };
			run_program(t, &r, &k, address_size, min_len, line_base, line_range,
				    opcode_base, lengths);
		}
	}
	if (r.bad)
		goto fail;
	t->names = n.buf;
	t->nfile = n.nfile;
	t->file = xmalloc((n.nfile + 1) * sizeof(*t->file));
	for (i = 0; i < n.nfile; i++)
		t->file[i] = names_file(&n, i);
	free(n.dir);
	free(n.file);
	sort_rows(t);
	if (t->nrow)
		t->row[t->nrow - 1].end = 1;
	return 0;
fail:
	free(n.dir);
	free(n.file);
	free(n.buf);
	free(t->row);
	t->row = NULL;
	t->nrow = 0;
	return -1;
}

void linetab_read_libdw(struct linetab *t, Dwarf_Die *cudie)
{
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t n, nfiles, i, last = 0;

	memset(t, 0, sizeof(*t));
	if (dwarf_getsrclines(cudie, &lines, &n) != 0 || dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		return;
	t->file = xmalloc((nfiles + 1) * sizeof(*t->file));
	for (i = 0; i < nfiles; i++)
		t->file[i] = dwarf_filesrc(files, i, NULL, NULL);
	t->nfile = nfiles;
	t->row = xmalloc((n + 1) * sizeof(*t->row));
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct linerow *w = &t->row[t->nrow];
		const char *src;
		Dwarf_Addr addr;
		bool end = false;
		int line = 0;
		unsigned d = 0;

		if (!l || dwarf_lineaddr(l, &addr) != 0)
			continue;
		dwarf_lineendsequence(l, &end);
		dwarf_lineno(l, &line);
		dwarf_linediscriminator(l, &d);
		src = dwarf_linesrc(l, NULL, NULL);
		/* Each index has its own name; the row's is found by pointer, neighbours first. */
		if (!(last < nfiles && t->file[last] == src))
			for (last = 0; last < nfiles && t->file[last] != src; last++)
				;
		w->addr = addr;
		w->line = line;
		w->file = last < nfiles ? (uint32_t)last : UINT32_MAX;
		w->discriminator = d;
		w->end = end;
		t->nrow++;
	}
}

int linetab_program(Dwarf_Die *cudie, uint64_t *off, unsigned *address_size)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Half version;
	uint8_t unit_type = 0, size = 0;

	if (dwarf_cu_info(cudie->cu, &version, &unit_type, NULL, NULL, NULL, &size, NULL) != 0 ||
	    (unit_type != DW_UT_compile && unit_type != DW_UT_partial) ||
	    (size != 4 && size != 8) ||
	    dwarf_formudata(dwarf_attr(cudie, DW_AT_stmt_list, &a), &w) != 0)
		return -1;
	*off = w;
	*address_size = size;
	return 0;
}

int linetab_decode_at(struct linetab *t, const struct linesections *s, uint64_t off,
		      unsigned address_size, const char *comp_dir, const struct linewant *want)
{
	memset(t, 0, sizeof(*t));
	return decode(t, s, off, address_size, comp_dir, want);
}

int linetab_decode(struct linetab *t, const struct linesections *s, Dwarf_Die *cudie,
		   const char *comp_dir, const struct linewant *want)
{
	uint64_t off;
	unsigned address_size;

	memset(t, 0, sizeof(*t));
	if (linetab_program(cudie, &off, &address_size) < 0)
		return -1;
	return decode(t, s, off, address_size, comp_dir, want);
}

void linetab_read(struct linetab *t, const struct linesections *s, Dwarf_Die *cudie,
		  const char *comp_dir, const struct linewant *want)
{
	if (linetab_decode(t, s, cudie, comp_dir, want) < 0)
		linetab_read_libdw(t, cudie);
}

/* The first row of [lo, hi) above addr, or hi: the one before it is the last at or below. */
static size_t first_above(const struct linetab *t, size_t lo, size_t hi, uint64_t addr)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->row[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The row before the first above addr (at), unless there is none or it ends a sequence. */
static const struct linerow *found_row(const struct linetab *t, size_t at)
{
	return at == 0 || t->row[at - 1].end ? NULL : &t->row[at - 1];
}

const struct linerow *linetab_find(const struct linetab *t, uint64_t addr)
{
	return found_row(t, first_above(t, 0, t->nrow, addr));
}

const struct linerow *linetab_find_near(const struct linetab *t, uint64_t addr, size_t *hint,
					uint64_t *next)
{
	size_t lo = *hint, hi, step = 1;

	if (lo >= t->nrow || t->row[lo].addr > addr) {
		lo = first_above(t, 0, t->nrow, addr);
	} else {
		/* row[lo] is at or below addr: steps doubling to a row above it, or the end. */
		hi = lo + 1;
		while (hi < t->nrow && t->row[hi].addr <= addr) {
			lo = hi;
			step *= 2;
			hi = step > t->nrow - lo ? t->nrow : lo + step;
		}
		lo = first_above(t, lo + 1, hi, addr);
	}
	*hint = lo ? lo - 1 : 0;
	if (next)
		*next = lo < t->nrow ? t->row[lo].addr : UINT64_MAX;
	return found_row(t, lo);
}

void linetab_free(struct linetab *t)
{
	free(t->row);
	free(t->file);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
