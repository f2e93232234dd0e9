/* gprof.c - naming gmon.out data as gprof does: its symbol table, its load address, its dropped arcs. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "objects.h"
#include "symbolize.h"
#include "util.h"

/*
 * gprof's symbol table (binutils gprof/corefile.c core_sym_class and
 * core_create_function_syms, symtab.c symtab_finalize): the symbols nm
 * classes T and W, and t when the name passes gprof's filter; sorted by
 * address, functions before other symbols and globals before locals
 * among equals, then in symbol-table order; one per address (a global
 * beats a local, then a function a non-function, then a name without a
 * leading underscore one with); each runs to the next, the last to the
 * end of .text.
 */
struct gsym {
	uint64_t addr, end;     /* [addr, end], end inclusive */
	const char *name;       /* demangled, as gprof prints it */
	const char *raw;
	size_t order;           /* position in the symbol table */
	unsigned is_func : 1, is_static : 1, excluded : 1;
};

struct gtab {
	struct gsym *sym;
	size_t n;
};

/* gprof's default exclusions (gprof.c default_excluded_list): no time is credited to them. */
static const char *const excluded[] = {
	"_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal", "__mcleanup",
	"<locore>", "<hicore>",
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * gprof's filter for local text symbols: no '$'; a '.' only before
 * digits (".1", ".clone.3", ".constprop.0", repeated), so "f.part.0",
 * "f.isra.0" and "f.cold" are out.  Having accepted a dotted name, gprof's
 * loop steps over its terminating NUL and goes on through the strings that
 * follow in the string table; that is reproduced, within the table.
 */
static int gprof_local_name_ok(const char *s, const char *end)
{
	const char *name;

	if (s >= end || !*s)
		return 0;
	for (name = s; name < end && *name; ++name) {
		if (*name == '$')
			return 0;
		while (name < end && *name == '.') {
			int digit_seen = 0;
			size_t left = (size_t)(end - name);

			if (strnlen(name, left) > 7 && !strncmp(name, ".clone.", 7))
				name += 6;
			else if (strnlen(name, left) > 11 && !strncmp(name, ".constprop.", 11))
				name += 10;
			for (name++; name < end && *name; name++) {
				if (digit_seen && *name == '.')
					break;
				else if (is_digit(*name))
					digit_seen = 1;
				else
					return 0;
			}
		}
		if (name >= end)
			break;
	}
	/* gnu_compiled markers are no functions. */
	return strncmp(s, "__gnu_compiled", 14) && strncmp(s, "___gnu_compiled", 15);
}

static int cmp_addr(const void *a, const void *b)
{
	const struct gsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->is_func != y->is_func)
		return x->is_func ? -1 : 1;
	if (x->is_static != y->is_static)
		return x->is_static ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* symtab_finalize's choice between two symbols of one address. */
static int better(const struct gsym *src, const struct gsym *dst)
{
	if (!src->is_static && dst->is_static)
		return 1;
	if (src->is_static != dst->is_static)
		return 0;
	if (src->is_func && !dst->is_func)
		return 1;
	if (src->is_func != dst->is_func)
		return 0;
	if (src->raw[0] != '_' && dst->raw[0] == '_')
		return 1;
	return src->raw[0] == '_' && dst->raw[0] == '_' && src->raw[1] != '_' && dst->raw[1] == '_';
}

static void gtab_read(Elf *elf, struct profile *p, struct gtab *t)
{
	GElf_Shdr sh, strsh, tsh;
	Elf_Scn *scn, *tscn;
	Elf_Data *d, *strd;
	size_t i, n, cap = 0, k, out;
	uint64_t text_end = 0;

	memset(t, 0, sizeof(*t));
	scn = elf_section_find(elf, NULL, &(struct section_want){ .type = SHT_SYMTAB }, &sh);
	if (!scn)
		scn = elf_section_find(elf, NULL, &(struct section_want){ .type = SHT_DYNSYM }, &sh);
	if (!scn || sh.sh_entsize == 0 || !(d = elf_getdata(scn, NULL)))
		return;
	tscn = elf_getscn(elf, sh.sh_link);
	if (!tscn || !gelf_getshdr(tscn, &strsh) || !(strd = elf_getdata(tscn, NULL)) ||
	    !strd->d_buf)
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		int type, bind, is_static;
		const char *name, *end = (const char *)strd->d_buf + strd->d_size;
		struct gsym *g;
		char *dm;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type == STT_SECTION || type == STT_FILE || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx == SHN_COMMON || type == STT_GNU_IFUNC || s.st_name >= strd->d_size)
			continue;
		name = (const char *)strd->d_buf + s.st_name;
		if (!memchr(name, 0, (size_t)(end - name)))
			continue;
		/* nm's class (bfd_decode_symclass): W for weak non-objects anywhere. */
		if (bind == STB_WEAK) {
			if (type == STT_OBJECT)
				continue;
			is_static = 0;
		} else if (bind == STB_GLOBAL || bind == STB_LOCAL) {
			Elf_Scn *sec;
			GElf_Shdr ssh;

			if (s.st_shndx == SHN_ABS || s.st_shndx >= SHN_LORESERVE)
				continue;
			if (!(sec = elf_getscn(elf, s.st_shndx)) || !gelf_getshdr(sec, &ssh) ||
			    !(ssh.sh_flags & SHF_EXECINSTR))
				continue;
			is_static = bind == STB_LOCAL;
			if (is_static && !gprof_local_name_ok(name, end))
				continue;
		} else {
			continue;
		}
		GROW(t->sym, cap, t->n + 1);
		g = &t->sym[t->n++];
		memset(g, 0, sizeof(*g));
		g->addr = s.st_value;
		g->raw = profile_intern(p, name);
		dm = demangle(name);
		g->name = dm ? profile_intern(p, dm) : g->raw;
		free(dm);
		g->order = i;
		g->is_func = type == STT_FUNC;
		g->is_static = (unsigned)is_static;
		for (k = 0; k < ARRAY_SIZE(excluded); k++)
			if (!strcmp(name, excluded[k]))
				g->excluded = 1;
	}
	if (!t->n)
		return;
	qsort(t->sym, t->n, sizeof(*t->sym), cmp_addr);
	for (i = 1, out = 1; i < t->n; i++) {
		if (t->sym[i].addr == t->sym[out - 1].addr) {
			if (better(&t->sym[i], &t->sym[out - 1]))
				t->sym[out - 1] = t->sym[i];
			continue;
		}
		t->sym[out++] = t->sym[i];
	}
	t->n = out;
	if (elf_section_find(elf, NULL, &(struct section_want){ .name = ".text" }, &tsh))
		text_end = tsh.sh_addr + tsh.sh_size;
	for (i = 0; i + 1 < t->n; i++)
		t->sym[i].end = t->sym[i + 1].addr - 1;
	t->sym[t->n - 1].end = text_end ? text_end - 1 : UINT64_MAX;
}

static uint64_t gsym_addr(const void *g)
{
	return ((const struct gsym *)g)->addr;
}

/* gprof's sym_lookup: the symbol whose [addr, end] holds a, or -1. */
static long gtab_lookup(const struct gtab *t, uint64_t a)
{
	size_t lo = search_above(t->sym, t->n, sizeof(*t->sym), a, gsym_addr);

	if (lo == 0 || a > t->sym[lo - 1].end)
		return -1;
	return (long)(lo - 1);
}

/* The program's loadable image, at link-time addresses. */
struct image {
	int dyn;                   /* ET_DYN: may have been loaded anywhere */
	uint64_t lo, hi;           /* all PT_LOADs */
	uint64_t text_end;         /* end of the last executable PT_LOAD */
	uint64_t first_offset;     /* file offset of the lowest PT_LOAD */
	uint64_t xlo[16], xhi[16]; /* executable PT_LOADs */
	size_t nx;
};

static int image_read(Elf *elf, struct image *im)
{
	GElf_Ehdr eh;
	size_t n, i;

	memset(im, 0, sizeof(*im));
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n) < 0)
		return -1;
	im->dyn = eh.e_type == ET_DYN;
	im->lo = UINT64_MAX;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < im->lo) {
			im->lo = ph.p_vaddr;
			im->first_offset = ph.p_offset;
		}
		if (ph.p_vaddr + ph.p_memsz > im->hi)
			im->hi = ph.p_vaddr + ph.p_memsz;
		if ((ph.p_flags & PF_X) && im->nx < ARRAY_SIZE(im->xlo)) {
			im->xlo[im->nx] = ph.p_vaddr;
			im->xhi[im->nx++] = ph.p_vaddr + ph.p_memsz;
			if (ph.p_vaddr + ph.p_memsz > im->text_end)
				im->text_end = ph.p_vaddr + ph.p_memsz;
		}
	}
	return im->lo < im->hi ? 0 : -1;
}

static int in_text(const struct image *im, uint64_t a)
{
	size_t i;

	for (i = 0; i < im->nx; i++)
		if (a >= im->xlo[i] && a < im->xhi[i])
			return 1;
	return 0;
}

/* What the profile recorded: histogram ranges, and arcs (at most 256 of them). */
struct recorded {
	uint64_t lo, hi;           /* over everything */
	uint64_t hist_hi;          /* highest histogram end, 0 without one */
	uint64_t from[256], self[256];
	size_t narc;
	size_t nrange;
};

static void recorded_scan(const struct profile *p, struct recorded *rc)
{
	size_t i;

	memset(rc, 0, sizeof(*rc));
	rc->lo = UINT64_MAX;
	for (i = 0; i < p->nmapping; i++) {
		const struct mapping *m = p->mapping[i];

		if (m->file[0])
			continue;
		rc->nrange++;
		if (m->start < rc->lo)
			rc->lo = m->start;
		if (m->limit > rc->hi)
			rc->hi = m->limit;
		if (m->limit > rc->hist_hi)
			rc->hist_hi = m->limit;
	}
	for (i = 0; i < p->nsample && rc->narc < ARRAY_SIZE(rc->from); i++) {
		const struct sample *s = p->sample[i];
		uint64_t f, t;

		if (s->nlocation != 2 || !sample_value(s)[1])
			continue;
		t = sample_location(p, s, 0)->address;
		f = sample_location(p, s, 1)->address;
		rc->self[rc->narc] = t;
		rc->from[rc->narc++] = f;
		if (f < rc->lo)
			rc->lo = f;
		if (t < rc->lo)
			rc->lo = t;
		if (f + 1 > rc->hi)
			rc->hi = f + 1;
		if (t + 1 > rc->hi)
			rc->hi = t + 1;
	}
}

/*
 * How well load bias b explains what was recorded: -1 when some
 * histogram range or arc lands outside the image, else the number of arcs
 * whose callee lands within 64 bytes of a function's start (glibc records
 * the return address of the mcount call at the top of the callee) plus
 * those whose caller lands in executable code.
 */
static long fit(const struct image *im, const struct gtab *t, const struct recorded *rc,
		uint64_t b)
{
	long score = 0;
	size_t i;

	if (rc->lo < b || rc->lo - b < im->lo || rc->hi - b > im->hi)
		return -1;
	for (i = 0; i < rc->narc; i++) {
		uint64_t self = rc->self[i] - b;
		long j = gtab_lookup(t, self);

		while (j >= 0 && !t->sym[j].is_func)
			j--;
		if (j >= 0 && self - t->sym[j].addr < 64)
			score++;
		score += in_text(im, rc->from[i] - b);
	}
	return score;
}

/*
 * The load bias of the recorded addresses (see symbolize.h): 0 when they
 * are link-time addresses, as glibc now writes them even for PIE, or
 * when the program cannot move; else the page-aligned bias that best
 * explains the histogram ranges and arcs, ties going to the one that puts
 * the histogram's end nearest the end of the executable code (glibc's
 * high_pc is etext).  Warns when nothing fits.
 */
static uint64_t find_bias(const char *program, const struct image *im, const struct gtab *t,
			  const struct recorded *rc)
{
	const uint64_t page = 4096;
	long s0, best_score = -1;
	uint64_t b, first, last, best = 0, best_gap = UINT64_MAX;
	size_t tried = 0;

	if (rc->lo > rc->hi || (!rc->nrange && !rc->narc))
		return 0;
	s0 = fit(im, t, rc, 0);
	if (s0 >= 0 && (long)rc->narc <= 2 * s0)
		return 0;
	if (!im->dyn) {
		warnf("the addresses in the profile do not fit '%s'; is it the profiled program?",
		      program);
		return 0;
	}
	/* lo - b within the image, b a multiple of the page size. */
	if (rc->lo < im->lo)
		goto none;
	first = (rc->lo - im->lo) & ~(page - 1);
	last = rc->lo > im->hi ? rc->lo - im->hi : 0;
	for (b = first; b >= last && tried < 65536; b -= page, tried++) {
		long s = fit(im, t, rc, b);
		uint64_t end, gap;

		if (s >= 0) {
			end = rc->hist_hi ? rc->hist_hi - b : rc->hi - b;
			gap = end > im->text_end ? end - im->text_end : im->text_end - end;
			if (s > best_score || (s == best_score && gap < best_gap)) {
				best_score = s;
				best = b;
				best_gap = gap;
			}
		}
		if (b < page)
			break;
	}
	if (best_score >= 0 && (s0 < 0 || best_score > s0))
		return best;
none:
	if (s0 < 0)
		warnf("the addresses in the profile fit no load address of '%s'; is it the profiled program?",
		      program);
	return 0;
}

/* Ties the profile's addresses to the program loaded at bias b. */
static void map_program(struct profile *p, const char *program, const struct image *im,
			uint64_t b)
{
	size_t i;

	profile_add_mapping(p, im->lo + b, im->hi + b, im->first_offset, profile_intern(p, program),
			    "");
	for (i = 0; i < p->nlocation; i++)
		p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
}

/*
 * Renames every location of the program after its gprof symbol (one
 * frame, with the innermost file:line the symbolizer found), drops arcs
 * gprof drops, the calls of self-recursive arcs (gprof's calls column
 * leaves them out; its call graph shows them as "+N") and the time of the
 * symbols it excludes.
 */
static void attribute(struct profile *p, const struct gtab *t, const struct image *im,
		      uint64_t b)
{
	long *sym = xcalloc(p->nlocation + 1, sizeof(*sym));
	uint8_t *callee = xcalloc(p->nlocation + 1, 1);
	size_t i;

	for (i = 0; i < p->nsample; i++) {
		const struct sample *s = p->sample[i];

		if (s->nlocation == 2 && sample_value(s)[1])
			callee[sample_stack(s)[0]] = 1;
	}
	for (i = 0; i < p->nlocation; i++) {
		struct location *loc = p->location[i];
		uint64_t a = loc->address;
		long j = -1;

		if (a >= b && (b == 0 || a - b < im->hi))
			j = gtab_lookup(t, a - b);
		/* gprof backs a callee up to the function it is in. */
		if (callee[i])
			while (j >= 0 && !t->sym[j].is_func)
				j--;
		sym[i] = j;
		if (j >= 0) {
			const struct gsym *g = &t->sym[j];
			struct line ln;

			ln.function = profile_function(p, g->name, g->raw,
						       loc->nline ? loc->line[0].function->filename : "",
						       0, g->addr);
			ln.line = loc->nline ? loc->line[0].line : 0;
			profile_set_lines(p, loc, &ln, 1);
			loc->tried = 1;
		} else {
			/* Time gprof credits to no function: shown by address. */
			profile_set_lines(p, loc, NULL, 0);
			loc->tried = 0;
		}
	}
	for (i = 0; i < p->nsample; i++) {
		struct sample *s = p->sample[i];
		int64_t *v = sample_value(s);

		if (s->nlocation == 2 && v[1]) {
			long callee_sym = sym[sample_stack(s)[0]];
			long caller_sym = sym[sample_stack(s)[1]];

			/* Unknown ends, and self-recursion (not in gprof's calls column). */
			if (callee_sym < 0 || caller_sym < 0 || callee_sym == caller_sym)
				v[1] = 0;
		}
		if (s->nlocation == 1 && sym[sample_stack(s)[0]] >= 0 &&
		    t->sym[sym[sample_stack(s)[0]]].excluded)
			v[0] = 0;
	}
	free(sym);
	free(callee);
}

int symbolize_gprof(struct profile *p, const struct symbolize_options *o, struct err *e)
{
	struct symbolizer s;
	struct object *prog;
	struct gtab t = { 0 };
	struct image im;
	struct recorded *rc;
	uint64_t b;

	if (!o->program)
		return symbolize_profile(p, o, e);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "libelf cannot read this ELF version: %s", elf_errmsg(-1));
	symbolizer_init(&s, p, p, o);
	/* Opening it says what is wrong with the program, if anything is. */
	prog = program_object(&s);
	if (prog->ok && image_read(prog->elf, &im) == 0)
		gtab_read(prog->elf, p, &t);
	if (!t.n) {
		symbolize_locations(&s, p);
		symbolizer_release(&s);
		return 0;
	}
	rc = xmalloc(sizeof(*rc));
	recorded_scan(p, rc);
	b = find_bias(o->program, &im, &t, rc);
	if (b) {
		map_program(p, o->program, &im, b);
		symbolizer_plan(&s);
	}
	symbolize_locations(&s, p);
	attribute(p, &t, &im, b);
	symbolizer_release(&s);
	free(rc);
	free(t.sym);
	return 0;
}
