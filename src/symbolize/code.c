/* code.c - routines, instructions and their source lines, as gperftools pprof finds them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "names.h"
#include "objects.h"
#include "strbuf.h"
#include "util.h"

/*
 * An object at one load address with samples: what pprof calls a library,
 * and the symbols its routines come from.
 */
struct listed {
	struct object *ob;
	uint64_t adjust;
	size_t rank;               /* mapping order; the program's own addresses last */
	unsigned plan;             /* the plan that met it last, which set its rank */
	const struct elfsyms *syms;
	struct bounds own;         /* their bounds when they are not nm's */
	struct decoder *dec[3];    /* per syntax, and for bounds only; made on first use */
};

struct code {
	struct symbolizer s;
	struct profile *strings;   /* owns every name handed out */
	const struct symbolize_options *o;
	struct listed *obj;        /* in the order they were opened */
	size_t nobj, cap_obj;
	unsigned plans;            /* calls of plan_objects */
	/* code_disassemble's decoded instructions, kept for the next routine */
	struct insn *insn;
	size_t cap_insn;
};

struct code *code_open(const struct profile *p, const struct symbolize_options *o)
{
	struct code *c = xcalloc(1, sizeof(*c));

	c->strings = profile_new();
	c->o = o;
	symbolizer_init(&c->s, p, c->strings, o);
	c->s.quiet = 1;
	return c;
}

void code_close(struct code *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nobj; i++) {
		decoder_free(c->obj[i].dec[0]);
		decoder_free(c->obj[i].dec[1]);
		decoder_free(c->obj[i].dec[2]);
		bounds_release(&c->obj[i].own);
	}
	free(c->obj);
	free(c->insn);
	symbolizer_release(&c->s);
	profile_free(c->strings);
	free(c);
}

/*
 * The symbols routines come from: nm's, as in gperftools pprof, unless nm
 * found only dynamic symbols and the separate debug file has a symbol table
 * (a distribution's libraries): then that one, which names the object's
 * code in text reports too.
 */
static void routine_symbols(struct listed *l)
{
	struct object *ob = l->ob;

	if (ob->nm_syms.dynamic && ob->fn_elf != ob->elf && ob->fn_syms.n) {
		l->syms = &ob->fn_syms;
		bounds_build(&ob->fn_syms, &l->own);
	} else {
		l->syms = &ob->nm_syms;
	}
}

static const struct bounds *routine_bounds(const struct listed *l)
{
	return l->syms == &l->ob->nm_syms ? &l->ob->bounds : &l->own;
}

/* The first meeting of an object in a plan gives it its rank for that plan. */
static void add_listed(struct code *c, struct object *ob, uint64_t adjust, size_t rank)
{
	struct listed *l;
	size_t i;

	if (!ob || !ob->ok)
		return;
	for (i = 0; i < c->nobj; i++) {
		l = &c->obj[i];
		if (l->ob != ob || l->adjust != adjust)
			continue;
		if (l->plan != c->plans) {
			l->plan = c->plans;
			l->rank = rank;
		}
		return;
	}
	GROW(c->obj, c->cap_obj, c->nobj + 1);
	l = &c->obj[c->nobj++];
	memset(l, 0, sizeof(*l));
	l->ob = ob;
	l->adjust = adjust;
	l->rank = rank;
	l->plan = c->plans;
	routine_symbols(l);
}

/* Whether one of the n ascending addresses is in [lo, hi). */
static int holds_any(const uint64_t *addr, size_t n, uint64_t lo, uint64_t hi)
{
	size_t k = u64_search_from(addr, n, lo);

	return k < n && addr[k] < hi;
}

/*
 * pprof's libraries: every executable mapping it takes for a library or the
 * program, in the order of the profile's maps, then the program once more at
 * its link-time addresses (covering addresses no mapping holds).  A library
 * none of the addresses falls in cannot hold a routine with samples, so it
 * is not opened.  The same object at the same load address is listed once
 * (pprof lists a non-PIE program twice, and so shows its routines twice).
 * Each call adds what its addresses need to what earlier calls opened
 * (a report cache keeps one struct code for every listing of a profile),
 * and lists, at the rank it gives them, only the objects it meets: what a
 * single call with the same addresses lists.  Routines sort by that rank.
 */
static void plan_objects(struct code *c, const uint64_t *addr, size_t n)
{
	struct symbolizer *s = &c->s;
	size_t i;

	c->plans++;
	/* pprof's order, the latest start first, decides which rank a duplicate keeps. */
	for (i = s->nlibs; i-- > 0;) {
		struct lib *l = &s->libs[i];
		struct object *ob;

		if (!holds_any(addr, n, l->start, l->end == UINT64_MAX ? l->end : l->end + 1))
			continue;
		ob = lib_object(s, l);   /* sets l->adjust */
		add_listed(c, ob, l->adjust, l->rank);
	}
	add_listed(c, program_object(s), 0, SIZE_MAX);
}

/*
 * The name routine j of l goes by when re matches it, else NULL.  It is its
 * nm symbol's, as in gperftools pprof; but a routine of a separate debug
 * file's symbols goes by the name text reports give its start, as they name
 * it after DWARF ("msort_with_tmp" for msort_with_tmp.part.0, one name of
 * two aliases), its symbol's name matching too.
 */
static const char *routine_name(struct code *c, const struct listed *l, size_t j,
				const struct regex *re, struct strbuf *tmp)
{
	const struct bounds *b = routine_bounds(l);
	const char *sym = b->sym[j]->name, *text = NULL;

	if (l->syms != &l->ob->nm_syms) {
		struct frame fr[MAX_FRAMES];
		uint64_t pc = b->start[j] + l->adjust;
		int nf = name_frames(&c->s, l->ob, b->start[j], &pc, fr, tmp, NULL);

		/* The outermost frame: the routine itself, not what it inlines. */
		text = fr[nf - 1].name;
		if (text && regex_match(re, text, strlen(text)))
			return text;
	}
	return regex_match(re, sym, strlen(sym)) ? (text ? text : sym) : NULL;
}

struct candidate {
	struct routine r;
	size_t rank;               /* its object's */
	const char *sort_key;
};

static int cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int d;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->r.object != y->r.object)
		return x->r.object < y->r.object ? -1 : 1;
	if ((d = strcmp(x->sort_key, y->sort_key)))
		return d;
	return x->r.start < y->r.start ? -1 : x->r.start > y->r.start;
}

size_t code_routines(struct code *c, const struct regex *re, const uint64_t *addr, size_t n,
		     struct routine **out)
{
	struct candidate *v = NULL;
	struct strbuf tagged = STRBUF_INIT, shrt = STRBUF_INIT;
	size_t nv = 0, cap = 0, i, j;

	plan_objects(c, addr, n);
	for (i = 0; i < c->nobj; i++) {
		const struct listed *l = &c->obj[i];
		const struct bounds *b = routine_bounds(l);

		if (l->plan != c->plans)
			continue;
		for (j = 0; j < b->n; j++) {
			uint64_t lo = b->start[j] + l->adjust, hi = b->end[j] + l->adjust;
			const char *name;
			struct candidate *k;

			/* The last routine has no end (size 0): pprof never shows it. */
			if (b->end[j] <= b->start[j] || hi < lo || !holds_any(addr, n, lo, hi))
				continue;
			if (!(name = routine_name(c, l, j, re, &shrt)))
				continue;
			/* Short names as pprof makes them, from the name with its address tag. */
			sb_reset(&tagged);
			sb_addf(&tagged, "%s<%0*llx>", name, (int)l->syms->addr_digits,
				(unsigned long long)b->start[j]);
			short_function_name(tagged.buf, c->o->keep_templates, &shrt);
			GROW(v, cap, nv + 1);
			k = &v[nv++];
			k->r.name = profile_intern(c->strings, name);
			k->r.short_name = profile_intern(c->strings, shrt.buf);
			k->r.start = b->start[j];
			k->r.end = b->end[j];
			k->r.adjust = l->adjust;
			k->r.object = i;
			k->rank = l->rank;
			/* pprof sorts by the short name without template arguments. */
			short_function_name(tagged.buf, 0, &shrt);
			k->sort_key = profile_intern(c->strings, shrt.buf);
		}
	}
	sb_release(&tagged);
	sb_release(&shrt);
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp_candidate);
	*out = xcalloc(nv + 1, sizeof(**out));
	for (i = 0; i < nv; i++)
		(*out)[i] = v[i].r;
	free(v);
	return nv;
}

/*
 * objdump's preference among symbols at one address (its compare_symbols):
 * not a file name, a function, an object, not local, global (over weak),
 * larger, not starting with '.', then the smaller name.  Negative when a
 * is preferred.
 */
static int prefer(const struct elfsym *a, const struct elfsym *b)
{
	size_t an = strlen(a->raw), bn = strlen(b->raw);
	int af = an > 2 && a->raw[an - 2] == '.' && (a->raw[an - 1] == 'o' || a->raw[an - 1] == 'a');
	int bf = bn > 2 && b->raw[bn - 2] == '.' && (b->raw[bn - 1] == 'o' || b->raw[bn - 1] == 'a');

	if (af != bf)
		return af - bf;
	if ((a->type == STT_FUNC) != (b->type == STT_FUNC))
		return a->type == STT_FUNC ? -1 : 1;
	if ((a->type == STT_OBJECT) != (b->type == STT_OBJECT))
		return a->type == STT_OBJECT ? -1 : 1;
	if ((a->bind == STB_LOCAL) != (b->bind == STB_LOCAL))
		return a->bind == STB_LOCAL ? 1 : -1;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if ((a->raw[0] == '.') != (b->raw[0] == '.'))
		return a->raw[0] == '.' ? 1 : -1;
	return strcmp(a->raw, b->raw);
}

/* The symbol objdump names an address after: the last address at or below it. */
static const char *symbol_for(void *ctx, uint64_t addr, uint64_t *start)
{
	const struct elfsyms *t = ((const struct listed *)ctx)->syms;
	size_t lo = elfsyms_upto(t, addr), k, i;

	if (lo == 0)
		return NULL;
	k = lo - 1;
	for (i = k; i > 0 && t->sym[i - 1].value == t->sym[k].value; i--)
		if (prefer(&t->sym[i - 1], &t->sym[k]) < 0)
			k = i - 1;
	*start = t->sym[k].value;
	return t->sym[k].name;
}

/* Decodes the executable sections' bytes in [start, end), as objdump does. */
static int decode_range(struct listed *l, struct decoder *dec, uint64_t start, uint64_t end,
			struct insn **v, size_t *nv, size_t *cap, struct err *e)
{
	const struct section_want w = { .flags = SHF_EXECINSTR, .addr = start, .size = end - start };
	Elf *elf = l->ob->elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_section_find(elf, scn, &w, &sh))) {
		Elf_Data *d;
		uint64_t lo, hi, send;

		if (sh.sh_type == SHT_NOBITS)
			continue;
		send = sh.sh_addr + sh.sh_size;
		if (send < sh.sh_addr)
			send = UINT64_MAX;
		lo = start > sh.sh_addr ? start : sh.sh_addr;
		hi = end < send ? end : send;
		if (lo >= hi)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return err_set(e, "'%s': cannot read section at 0x%llx: %s", l->ob->path,
				       (unsigned long long)sh.sh_addr, elf_errmsg(-1));
		decode(dec, (const uint8_t *)d->d_buf + (lo - sh.sh_addr), hi - lo, lo, symbol_for, l,
		       v, nv, cap);
	}
	return 0;
}

/*
 * objdump -l prints a location line before an instruction when the line
 * number (or discriminator) differs from the last one printed, or the
 * function changed; pprof takes a printed "FILE:LINE" as the location of
 * what follows, but not "FILE:LINE (discriminator N)".
 */
struct objdump_lines {
	const char *func;
	unsigned prev_line, prev_disc;
	const char *file;
	int line;
};

static void objdump_line(struct objdump_lines *st, struct object *ob, const struct frame *inner,
			 uint64_t objaddr)
{
	const char *func = inner->raw && inner->raw[0] ? inner->raw : inner->name;
	unsigned line = inner->line > 0 ? (unsigned)inner->line : 0;
	unsigned disc = line && ob->dw ? dwindex_discriminator(ob->dw, objaddr) : 0;

	/* A new function makes objdump print the next line number again. */
	if (func && func[0] && (!st->func || strcmp(func, st->func) != 0))
		st->prev_line = (unsigned)-1;
	if (line && (line != st->prev_line || disc != st->prev_disc) && !disc) {
		st->file = inner->file ? inner->file : "???";
		st->line = (int)line;
	}
	if (func && func[0])
		st->func = func;
	if (line && line != st->prev_line)
		st->prev_line = line;
	st->prev_disc = disc;
}

/* code_disassemble, or code_lines when lines_only. */
static long disassemble(struct code *c, const struct routine *r, enum decode_syntax syntax,
			int lines_only, struct code_insn **out, struct err *e)
{
	struct listed *l = &c->obj[r->object];
	struct objdump_lines st = { NULL, 0, 0, "", -1 };
	struct insn *v;
	size_t nv = 0, i;
	struct code_insn *ci;
	int k = lines_only ? 2 : syntax == DECODE_INTEL;

	*out = NULL;
	if (!l->dec[k]) {
		if (!(l->dec[k] = decoder_new(l->ob->elf, syntax, e)))
			return err_prefix(e, "'%s'", l->ob->path);
		if (lines_only)
			decoder_bounds_only(l->dec[k]);
	}
	if (decode_range(l, l->dec[k], r->start, r->end, &c->insn, &nv, &c->cap_insn, e) < 0)
		return -1;
	v = c->insn;
	ci = xcalloc(nv + 1, sizeof(*ci));
	for (i = 0; i < nv; i++) {
		struct frame fr[MAX_FRAMES];
		int nf = addr2line(l->ob, v[i].addr, fr, NULL);

		ci[i].objaddr = v[i].addr;
		ci[i].addr = v[i].addr + r->adjust;
		/*
		 * pprof ends the last instruction at the routine's end as the
		 * object has it, not moved to where the object was loaded:
		 * in a relocated object (a PIE program, a shared library) the
		 * last instruction owns no samples.  Kept, for equal numbers.
		 */
		ci[i].end = i + 1 < nv ? v[i + 1].addr + r->adjust : r->end;
		if (lines_only) {
			ci[i].text = "";
			ci[i].file = "";
			ci[i].line = -1;
		} else {
			ci[i].text = profile_intern(c->strings, v[i].text);
			objdump_line(&st, l->ob, &fr[0], v[i].addr);
			ci[i].file = st.file;
			ci[i].line = st.line;
		}
		if (nf > MAX_FRAMES)
			nf = MAX_FRAMES;
		ci[i].top_file = fr[nf - 1].file ? fr[nf - 1].file : "??";
		ci[i].top_line = fr[nf - 1].line;
	}
	*out = ci;
	return (long)nv;
}

long code_disassemble(struct code *c, const struct routine *r, enum decode_syntax syntax,
		      struct code_insn **out, struct err *e)
{
	return disassemble(c, r, syntax, 0, out, e);
}

long code_lines(struct code *c, const struct routine *r, struct code_insn **out, struct err *e)
{
	return disassemble(c, r, DECODE_ATT, 1, out, e);
}
