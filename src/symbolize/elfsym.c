/* elfsym.c - reading ELF symbol tables with libelf, nm's order and classes. */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "elfsym.h"
#include "strbuf.h"
#include "util.h"

static int section_overlaps(const GElf_Shdr *sh, uint64_t addr, uint64_t size)
{
	if (!sh->sh_size)
		return 0;
	/* Differences only: hostile headers may put a section's end past 2^64. */
	return addr < sh->sh_addr ? sh->sh_addr - addr < size : addr - sh->sh_addr < sh->sh_size;
}

Elf_Scn *elf_section_find(Elf *elf, Elf_Scn *after, const struct section_want *w,
			  GElf_Shdr *shdr)
{
	Elf_Scn *scn = after;
	size_t shstrndx = 0;

	if (w->name && elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, shdr) || (w->type && shdr->sh_type != w->type) ||
		    (shdr->sh_flags & w->flags) != w->flags)
			continue;
		if (w->size && !section_overlaps(shdr, w->addr, w->size))
			continue;
		if (w->name && (!(name = elf_strptr(elf, shstrndx, shdr->sh_name)) ||
				strcmp(name, w->name)))
			continue;
		return scn;
	}
	return NULL;
}

/*
 * The class letter of a section's symbols before the binding makes it a
 * capital (binutils bfd_decode_symclass), for nm_class.
 */
static char section_class(Elf *elf, size_t shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!(scn = elf_getscn(elf, shndx)) || !gelf_getshdr(scn, &sh))
		return '?';
	if (sh.sh_flags & SHF_EXECINSTR)
		return 't';
	if (sh.sh_type == SHT_NOBITS)
		return 'b';
	if (sh.sh_flags & SHF_WRITE)
		return 'd';
	if (sh.sh_flags & SHF_ALLOC)
		return 'r';
	return 'n';
}

/*
 * nm's one-letter class of a defined symbol (binutils bfd_decode_symclass);
 * classes holds each section's letter once it is known (0 before), for
 * the nsec sections.
 */
static char nm_class(Elf *elf, const GElf_Sym *s, char *classes, size_t nsec)
{
	int bind = GELF_ST_BIND(s->st_info), type = GELF_ST_TYPE(s->st_info);
	char c;

	if (s->st_shndx == SHN_COMMON)
		return 'C';
	if (type == STT_GNU_IFUNC)
		return 'i';
	if (bind == STB_WEAK)
		return type == STT_OBJECT ? 'V' : 'W';
	if (bind == STB_GNU_UNIQUE)
		return 'u';
	if (s->st_shndx == SHN_ABS)
		c = 'a';
	else if (s->st_shndx < nsec)
		c = classes[s->st_shndx] ? classes[s->st_shndx]
					 : (classes[s->st_shndx] = section_class(elf, s->st_shndx));
	else
		c = section_class(elf, s->st_shndx);
	if (bind != STB_LOCAL && c != '?')
		c = (char)(c - 'a' + 'A');
	return c;
}

struct verdefs {
	const char **name;  /* by version index */
	size_t n;
};

static void read_verdefs(Elf *elf, struct verdefs *v)
{
	const struct section_want w = { .type = SHT_GNU_verdef };
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_find(elf, NULL, &w, &sh);
	Elf_Data *d;
	size_t off = 0, i;

	v->name = NULL;
	v->n = 0;
	if (!scn || !(d = elf_getdata(scn, NULL)))
		return;
	for (i = 0; i < sh.sh_info; i++) {
		GElf_Verdef def;
		GElf_Verdaux aux;

		if (!gelf_getverdef(d, (int)off, &def))
			break;
		if (gelf_getverdaux(d, (int)(off + def.vd_aux), &aux)) {
			size_t idx = def.vd_ndx;

			if (idx < 0x8000) {
				if (idx >= v->n) {
					v->name = xrealloc(v->name, (idx + 1) * sizeof(*v->name));
					memset(v->name + v->n, 0, (idx + 1 - v->n) * sizeof(*v->name));
					v->n = idx + 1;
				}
				v->name[idx] = elf_strptr(elf, sh.sh_link, aux.vda_name);
			}
		}
		if (!def.vd_next)
			break;
		off += def.vd_next;
	}
}

static uint64_t sym_value(const void *s)
{
	return ((const struct elfsym *)s)->value;
}

/* For qsort: symbols of one address by name, then by place (the pointers' order is the file's). */
static int cmp_name_place(const void *a, const void *b)
{
	const struct elfsym *x = *(const struct elfsym *const *)a, *y = *(const struct elfsym *const *)b;
	int c = strcmp(x->raw, y->raw);

	return c ? c : (x > y) - (x < y);
}

/*
 * The run [0, n) of symbols of one address, in file order, put in name
 * order, equal names keeping it: by insertion when short (aliases), else
 * through pointers sorted by name and place (a hostile file may give all
 * its symbols one address).
 */
static void sort_run(struct elfsym *run, size_t n)
{
	const struct elfsym **by;
	struct elfsym *copy;
	size_t k, m;

	if (n <= 16) {
		for (k = 1; k < n; k++) {
			struct elfsym e = run[k];

			for (m = k; m > 0 && strcmp(run[m - 1].raw, e.raw) > 0; m--)
				run[m] = run[m - 1];
			run[m] = e;
		}
		return;
	}
	by = xcalloc(n, sizeof(*by));
	copy = xcalloc(n, sizeof(*copy));
	for (k = 0; k < n; k++)
		by[k] = &run[k];
	qsort(by, n, sizeof(*by), cmp_name_place);
	for (k = 0; k < n; k++)
		copy[k] = *by[k];
	memcpy(run, copy, n * sizeof(*run));
	free(copy);
	free(by);
}

/*
 * nm's order: by address, then by name (strcmp), then as in the file.
 * The radix sort is stable: each run of one address, in file order, is
 * then put in name order.
 */
static void sort_symbols(struct elfsym *sym, size_t n)
{
	size_t i, j;

	sort_by_key(sym, n, sizeof(*sym), sym_value);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && sym[j].value == sym[i].value; j++)
			;
		if (j - i > 1)
			sort_run(sym + i, j - i);
	}
}

size_t elfsyms_read(Elf *elf, unsigned flags, struct profile *p, struct elfsyms *t)
{
	int dynamic = !!(flags & ELFSYMS_DYNAMIC);
	const struct section_want want_syms = { .type = dynamic ? SHT_DYNSYM : SHT_SYMTAB };
	const struct section_want want_versym = { .type = SHT_GNU_versym };
	GElf_Shdr sh, vsh;
	Elf_Scn *scn;
	Elf_Data *d, *vd = NULL;
	struct verdefs vdefs = { NULL, 0 };
	struct strbuf sb = STRBUF_INIT;
	char *classes = NULL;
	size_t i, n, cap = 0, nsec = 0;
	GElf_Ehdr eh;
	/* binutils' elf_find_function: nothing seen, symbol seen, file after symbol. */
	int state = 0;
	const char *file = NULL;

	memset(t, 0, sizeof(*t));
	t->dynamic = dynamic;
	t->addr_digits = gelf_getclass(elf) == ELFCLASS32 ? 8 : 16;
	if (!gelf_getehdr(elf, &eh))
		return 0;
	scn = elf_section_find(elf, NULL, &want_syms, &sh);
	if (!scn || sh.sh_entsize == 0 || !(d = elf_getdata(scn, NULL)) || d->d_size == 0)
		return 0;
	if (dynamic && (flags & ELFSYMS_VERSIONS)) {
		Elf_Scn *vs = elf_section_find(elf, NULL, &want_versym, &vsh);

		if (vs)
			vd = elf_getdata(vs, NULL);
		read_verdefs(elf, &vdefs);
	}
	n = sh.sh_size / sh.sh_entsize;
	/* Letters are kept for the usual section indexes; a hostile count gets no more room. */
	if (elf_getshdrnum(elf, &nsec) != 0)
		nsec = 0;
	if (nsec > 65536)
		nsec = 65536;
	classes = xcalloc(nsec + 1, 1);
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		struct elfsym *e;
		char *dm;
		int type, renamed;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (type == STT_FILE) {
			file = name ? profile_intern(p, name) : NULL;
			if (state == 1)
				state = 2;
			continue;
		}
		if (state == 0)
			state = 1;
		if (type == STT_SECTION || s.st_shndx == SHN_UNDEF || !name)
			continue;
		GROW(t->sym, cap, t->n + 1);
		e = &t->sym[t->n++];
		e->value = s.st_value;
		e->size = s.st_size;
		e->shndx = s.st_shndx;
		e->type = (uint8_t)type;
		e->bind = (uint8_t)GELF_ST_BIND(s.st_info);
		e->vis = (uint8_t)GELF_ST_VISIBILITY(s.st_other);
		e->nm_class = nm_class(elf, &s, classes, nsec);
		e->file = (e->bind == STB_LOCAL || state != 2) ? file : NULL;
		e->raw = profile_intern(p, name);
		dm = demangle(name);
		sb_reset(&sb);
		sb_adds(&sb, dm ? dm : name);
		renamed = dm != NULL;
		free(dm);
		if (vd && vdefs.n) {
			GElf_Versym ver;

			if (gelf_getversym(vd, (int)i, &ver)) {
				size_t idx = ver & 0x7fff;
				const char *vn = idx < vdefs.n ? vdefs.name[idx] : NULL;

				/* Index 1 is the file's own base version: nm prints none. */
				if (idx > 1 && vn && strcmp(vn, name)) {
					sb_addf(&sb, "%s%s", (ver & 0x8000) ? "@" : "@@", vn);
					renamed = 1;
				}
			}
		}
		/* Most names are as in the file: interned once. */
		e->name = renamed ? profile_intern(p, sb.buf) : e->raw;
	}
	sb_release(&sb);
	free(vdefs.name);
	free(classes);
	if (t->n > 1)
		sort_symbols(t->sym, t->n);
	return t->n;
}

void elfsyms_release(struct elfsyms *t)
{
	free(t->sym);
	memset(t, 0, sizeof(*t));
}

void bounds_build(const struct elfsyms *t, struct bounds *b)
{
	size_t i, n = 0;

	b->has_fini = 0;
	b->start = xcalloc(t->n + 1, sizeof(*b->start));
	b->end = xcalloc(t->n + 1, sizeof(*b->end));
	b->sym = xcalloc(t->n + 1, sizeof(*b->sym));
	b->bare = xcalloc(t->n + 1, sizeof(*b->bare));
	for (i = 0; i < t->n; i++) {
		const struct elfsym *s = &t->sym[i];

		if (n && b->start[n - 1] == s->value) {
			/* Same address: a later text symbol replaces the earlier one, untagged. */
			if (s->nm_class == 't' || s->nm_class == 'T') {
				b->sym[n - 1] = s;
				b->bare[n - 1] = 1;
			}
			continue;
		}
		if (n)
			b->end[n - 1] = s->value;
		if (!strcmp(s->name, "_fini"))
			b->has_fini = 1;
		b->start[n] = b->end[n] = s->value;
		b->sym[n] = s;
		n++;
	}
	b->n = n;
}

void bounds_release(struct bounds *b)
{
	free(b->start);
	free(b->end);
	free(b->sym);
	free(b->bare);
	memset(b, 0, sizeof(*b));
}

const struct elfsym *bounds_lookup(const struct bounds *b, uint64_t addr, int *bare)
{
	/* Ends ascend (the last routine ends where it starts): the first above addr. */
	size_t i = u64_search_above(b->end, b->n, addr);

	if (bare)
		*bare = i < b->n && b->bare[i];
	return i < b->n ? b->sym[i] : NULL;
}

const struct elfsym *bounds_lookup_near(const struct bounds *b, uint64_t addr, int *bare,
				       size_t *hint, uint64_t *end)
{
	size_t i = *hint;

	/* The routine of the last lookup, or the one after it: neighbours share them. */
	if (!(i < b->n && b->end[i] > addr && (i == 0 || b->end[i - 1] <= addr)) &&
	    !(++i < b->n && b->end[i] > addr && b->end[i - 1] <= addr))
		i = u64_search_above(b->end, b->n, addr);
	*hint = i;
	if (bare)
		*bare = i < b->n && b->bare[i];
	if (end)
		*end = i < b->n ? b->end[i] : UINT64_MAX;
	return i < b->n ? b->sym[i] : NULL;
}

static int function_like(const struct elfsym *s)
{
	if (s->type == STT_OBJECT || s->type == STT_TLS || s->type == STT_SECTION ||
	    s->type == STT_FILE)
		return 0;
	/* Zero-size hidden local untyped markers (annobin) are not functions. */
	if (s->size == 0 && s->bind == STB_LOCAL && s->type == STT_NOTYPE && s->vis == STV_HIDDEN)
		return 0;
	return 1;
}

size_t elfsyms_upto(const struct elfsyms *t, uint64_t addr)
{
	return search_above(t->sym, t->n, sizeof(*t->sym), addr, sym_value);
}

const struct elfsym *elfsyms_find_function(const struct elfsyms *t, Elf *elf, uint64_t addr)
{
	const struct elfsym *best = NULL;
	const struct section_want w = { .flags = SHF_ALLOC, .addr = addr, .size = 1 };
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_find(elf, NULL, &w, &sh);
	size_t sec, i;

	if (!scn)
		return NULL;
	sec = elf_ndxscn(scn);
	/* Walk down from the last symbol at or below addr. */
	for (i = elfsyms_upto(t, addr); i-- > 0;) {
		const struct elfsym *s = &t->sym[i];

		if (best && s->value != best->value)
			break;
		if (s->shndx != sec || !function_like(s))
			continue;
		if (!best || (best->type != STT_FUNC && s->type == STT_FUNC) ||
		    (best->bind == STB_LOCAL && s->bind != STB_LOCAL && s->type == best->type))
			best = s;
	}
	return best;
}
