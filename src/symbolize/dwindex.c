/* dwindex.c - inline chains and line numbers from libdw, indexed per compilation unit. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "dwindex.h"
#include "lineahead.h"
#include "linetab.h"
#include "util.h"

/*
 * dwarf_getscopes walks the whole unit for every query, so each unit that
 * holds a queried address gets a tree of its function scopes once: the
 * subprograms and inlined instances with their address ranges.  A lookup
 * finds the subprogram by binary search and descends through its inlined
 * instances.
 */
struct range {
	uint64_t lo, hi;
	uint32_t node;
};

/*
 * Larger line numbers are taken for unknown (0): libdw hands lines out as
 * int, wrapping those of 2^31 and up, and listings compute with them.
 */
#define MAX_LINE (INT_MAX / 2)

struct node {
	Dwarf_Off off;        /* DIE offset */
	uint32_t first_range, nrange;
	int32_t first_child, next_sibling;
	/* A top-level subprogram's inlined instances are read when an address falls in it: the depth to read them at. */
	int pending;
	/* Resolved lazily. */
	int named;
	const char *name, *raw;
	int is_linkage;
	uint64_t low_pc;
};

struct unit {
	Dwarf_Off off;
	Dwarf_Die cudie;
	int mangles;          /* language with mangled names */
	struct node *node;
	size_t nnode, cap_node;
	struct range *range;  /* all ranges; node ranges are contiguous */
	size_t nrange, cap_range;
	struct range *top;    /* ranges of top-level subprograms, sorted */
	size_t ntop;
	struct linetab lines;
	const char *comp_dir;
	/*
	 * DWARF 5 line tables whose file 0 differs from file 1: address ranges
	 * of rows made before the program set a file.  binutils names those
	 * rows after file 0 (its initial file register), libdw after file 1.
	 */
	struct range *implicit;
	size_t nimplicit;
	/* The last line's file as libdw has it, and as named (neighbours share it). */
	const char *last_src, *last_path;
	size_t line_hint;     /* the last line's row (linetab_find_near) */
	int lines_read;       /* lines holds the table (unit_lines) */
};

/* A unit's address range, for DWARF without .debug_aranges (Go's). */
struct cu_range {
	uint64_t lo, hi;      /* DWARF addresses */
	Dwarf_Off off;        /* the unit's DIE */
};

struct dwindex {
	Dwfl_Module *mod;
	Dwarf_Addr bias;      /* session address = object address + bias */
	/* The units by address when libdw's lookup (aranges) finds none; built once. */
	struct cu_range *cus;
	size_t ncus;
	int cus_built;
	struct profile *p;
	dwindex_symfn sym;
	void *sym_ctx;
	struct unit **unit;
	size_t nunit, cap_unit;
	/* Where the line tables are, for the Dwarf they were found in. */
	Dwarf *sec_dw;
	struct linesections sec;
	/*
	 * dwindex_want's addresses (object addresses, ascending), and the same
	 * as DWARF addresses for want_delta, a delta other than 0 (once made:
	 * want_dw not NULL).
	 */
	const uint64_t *want;
	size_t nwant;
	uint64_t *want_dw;
	uint64_t want_delta;
	/* The wanted units' tables, decoded ahead for this Dwarf and delta (read_ahead). */
	struct lineahead *ahead;
	Dwarf *ahead_dw;
	uint64_t ahead_delta;
	int alone;            /* no thread of its own (dwindex_alone) */
	int names_only;       /* no line tables (dwindex_names_only) */
	/*
	 * The unit of the last lookup, with the bias libdwfl gave, and the
	 * extent of the arange it fell in (module addresses): libdwfl names
	 * that unit for any address in it (unit_at).  near is NULL for none.
	 */
	struct unit *near;
	Dwarf_Addr near_bias;
	uint64_t near_lo, near_hi;
};

struct dwindex *dwindex_new(Dwfl_Module *mod, struct profile *p, dwindex_symfn sym, void *ctx)
{
	struct dwindex *ix = xcalloc(1, sizeof(*ix));

	ix->mod = mod;
	dwfl_module_getelf(mod, &ix->bias);
	ix->p = p;
	ix->sym = sym;
	ix->sym_ctx = ctx;
	return ix;
}

void dwindex_forget(struct dwindex *ix)
{
	size_t i;

	for (i = 0; i < ix->nunit; i++) {
		free(ix->unit[i]->node);
		free(ix->unit[i]->range);
		free(ix->unit[i]->top);
		free(ix->unit[i]->implicit);
		linetab_free(&ix->unit[i]->lines);
		free(ix->unit[i]);
	}
	ix->nunit = 0;
	ix->near = NULL;
}

void dwindex_free(struct dwindex *ix)
{
	if (!ix)
		return;
	lineahead_stop(ix->ahead);
	dwindex_forget(ix);
	free(ix->unit);
	free(ix->cus);
	free(ix->want_dw);
	free(ix);
}

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static uint64_t cu_range_lo(const void *r)
{
	return ((const struct cu_range *)r)->lo;
}

/* Every unit's ranges, from its DIE (DW_AT_ranges or low/high pc), sorted. */
static void build_cu_ranges(struct dwindex *ix, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	ix->cus_built = 1;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				GROW(ix->cus, cap, ix->ncus + 1);
				ix->cus[ix->ncus].lo = lo;
				ix->cus[ix->ncus].hi = hi;
				ix->cus[ix->ncus++].off = off + hsize;
			}
		}
		off = next;
	}
	if (ix->ncus > 1)
		qsort(ix->cus, ix->ncus, sizeof(*ix->cus), cmp_cu_range);
}

/*
 * The unit DIE holding the session address a (bias as dwfl_module_addrdie
 * sets it): libdw's lookup, else a search of the units' own ranges, for
 * DWARF that has no .debug_aranges (Go's compiler writes none).
 */
static Dwarf_Die *unit_die(struct dwindex *ix, uint64_t a, Dwarf_Die *mem, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(ix->mod, a, bias);
	Dwarf *dw;
	size_t k;

	if (cu)
		return cu;
	if (!(dw = dwfl_module_getdwarf(ix->mod, bias)))
		return NULL;
	if (!ix->cus_built)
		build_cu_ranges(ix, dw);
	/* The ranges starting at or below the address, nearest first (they may nest). */
	for (k = search_above(ix->cus, ix->ncus, sizeof(*ix->cus), a - *bias, cu_range_lo); k > 0; k--) {
		const struct cu_range *r = &ix->cus[k - 1];

		if (a - *bias < r->hi)
			return dwarf_offdie(dw, r->off, mem);
	}
	return NULL;
}

int dwindex_unit_of(struct dwindex *ix, uint64_t addr, uint64_t *cu)
{
	Dwarf_Die mem, *die;
	Dwarf_Addr bias = 0;

	if (!(die = unit_die(ix, addr + ix->bias, &mem, &bias)))
		return 0;
	*cu = dwarf_dieoffset(die);
	return 1;
}

static int lang_mangles(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_ObjC_plus_plus:
	case DW_LANG_D:
	case DW_LANG_Rust:
	case DW_LANG_Java:
	case DW_LANG_Ada83:
	case DW_LANG_Ada95:
		return 1;
	default:
		return 0;
	}
}

static int32_t add_node(struct unit *u, Dwarf_Die *die, int32_t parent, int32_t *last_child)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	struct node *n;
	int32_t idx;
	uint32_t first = (uint32_t)u->nrange;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		GROW(u->range, u->cap_range, u->nrange + 1);
		u->range[u->nrange].lo = start;
		u->range[u->nrange].hi = end;
		u->range[u->nrange].node = (uint32_t)u->nnode;
		u->nrange++;
	}
	if (u->nrange == first)
		return -1;
	GROW(u->node, u->cap_node, u->nnode + 1);
	idx = (int32_t)u->nnode++;
	n = &u->node[idx];
	memset(n, 0, sizeof(*n));
	n->off = dwarf_dieoffset(die);
	n->first_range = first;
	n->nrange = (uint32_t)(u->nrange - first);
	n->first_child = n->next_sibling = -1;
	if (parent >= 0) {
		if (*last_child >= 0)
			u->node[*last_child].next_sibling = idx;
		else
			u->node[parent].first_child = idx;
		*last_child = idx;
	}
	return idx;
}

/*
 * Walks die's children; parent is the node they belong to (-1 at top).
 * A top-level subprogram's own children wait until an address falls in it
 * (expand): a unit holds hundreds of functions, a profile touches a few.
 */
static void walk(struct unit *u, Dwarf_Die *die, int32_t parent, int32_t *last_child, int depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		int32_t idx, last = -1;

		switch (tag) {
		case DW_TAG_subprogram:
			/* A declaration holds no code (a unit declares every function it calls). */
			if (dwarf_hasattr(&child, DW_AT_declaration))
				break;
			/* fall through */
		case DW_TAG_inlined_subroutine:
			idx = add_node(u, &child, parent, last_child);
			if (idx >= 0 && parent < 0 && tag == DW_TAG_subprogram)
				u->node[idx].pending = depth + 1;
			else if (idx >= 0)
				walk(u, &child, idx, &last, depth + 1);
			else if (tag == DW_TAG_subprogram)
				walk(u, &child, parent, last_child, depth + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			walk(u, &child, parent, last_child, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}


static void add_implicit(struct unit *u, size_t *cap, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	if (u->nimplicit && u->implicit[u->nimplicit - 1].hi == lo) {
		u->implicit[u->nimplicit - 1].hi = hi;
		return;
	}
	GROW(u->implicit, *cap, u->nimplicit + 1);
	u->implicit[u->nimplicit].lo = lo;
	u->implicit[u->nimplicit].hi = hi;
	u->nimplicit++;
}

/*
 * The rows binutils names after file 0: those a sequence makes before it
 * first sets a file.  Compilers and assemblers set the file only when it
 * changes, so those are the rows from a sequence's start up to its first
 * row of another file than 1.
 */
static void find_implicit_rows(struct unit *u)
{
	const struct linetab *t = &u->lines;
	uint64_t row_addr = 0;
	size_t i, cap = 0;
	int implicit = 1, have_row = 0, row_implicit = 0;

	/* The rows ascend by address, a sequence's end before what starts there. */
	for (i = 0; i < t->nrow; i++) {
		const struct linerow *l = &t->row[i];

		/* The previous row covers up to this one; at equal addresses the last wins. */
		if (have_row && l->addr > row_addr && row_implicit)
			add_implicit(u, &cap, row_addr, l->addr);
		if (!l->end && l->file != 1)
			implicit = 0;
		have_row = !l->end;
		row_addr = l->addr;
		row_implicit = implicit;
		if (l->end)
			implicit = 1;
	}
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? 1 : x->hi > y->hi ? -1 : 0;
}

/* Reads the children of the pending node k. */
static void expand(struct unit *u, int32_t k)
{
	Dwarf_Die die;
	int32_t last = -1;
	int depth = u->node[k].pending;

	u->node[k].pending = 0;
	if (dwarf_offdie(dwarf_cu_getdwarf(u->cudie.cu), u->node[k].off, &die))
		walk(u, &die, k, &last, depth);
}

static const struct linewant *want_in_dwarf(struct dwindex *ix, uint64_t delta, struct linewant *w);

/*
 * The units the wanted addresses fall in, by the aranges, in address
 * order, which is the order the lookups meet them: their line tables (a
 * fifth of a big profile's symbolization) are decoded on a second thread
 * while the first indexes their functions and looks the addresses up.
 */
static void read_ahead(struct dwindex *ix)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(ix->mod, &bias);
	Dwarf_Aranges *ar;
	struct lineahead_unit *u = NULL;
	const struct linewant *want;
	struct linewant w;
	size_t nar, k, i = 0, n = 0, cap = 0;
	uint64_t delta = ix->bias - bias;

	if (!dw || dwarf_getaranges(dw, &ar, &nar) != 0 || nar < 2 ||
	    !(want = want_in_dwarf(ix, delta, &w)))
		return;
	for (k = 0; k < nar && i < want->n; k++) {
		Dwarf_Addr start;
		Dwarf_Word len;
		Dwarf_Off cu;
		Dwarf_Die die;
		Dwarf_Attribute a;
		size_t m;

		if (dwarf_getarangeinfo(dwarf_onearange(ar, k), &start, &len, &cu) != 0)
			continue;
		while (i < want->n && want->addr[i] < start)
			i++;
		if (i == want->n || want->addr[i] - start >= len)
			continue;
		for (m = 0; m < n && u[m].cu != cu; m++)
			;
		if (m < n)
			continue;
		GROW(u, cap, n + 1);
		if (!dwarf_offdie(dw, cu, &die) ||
		    linetab_program(&die, &u[n].off, &u[n].address_size) < 0)
			continue;
		u[n].cu = cu;
		u[n].comp_dir = dwarf_formstring(dwarf_attr(&die, DW_AT_comp_dir, &a));
		n++;
	}
	/* One unit is the first thread's to read at once anyway. */
	if (n >= 2) {
		if (dw != ix->sec_dw) {
			ix->sec_dw = dw;
			linesections_find(dw, &ix->sec);
		}
		ix->ahead = lineahead_start(&ix->sec, u, n, want);
		ix->ahead_dw = dw;
		ix->ahead_delta = delta;
	}
	free(u);
}

void dwindex_want(struct dwindex *ix, const uint64_t *addr, size_t n)
{
	lineahead_stop(ix->ahead);
	ix->ahead = NULL;
	ix->want = addr;
	ix->nwant = n;
	free(ix->want_dw);
	ix->want_dw = NULL;
	if (n && !ix->alone && !ix->names_only)
		read_ahead(ix);
}

void dwindex_alone(struct dwindex *ix, int alone)
{
	ix->alone = alone;
}

void dwindex_names_only(struct dwindex *ix)
{
	ix->names_only = 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The wanted addresses as the unit's DWARF has them (delta: DWARF address -
 * object address): the caller's own for 0, the usual delta, else made once
 * per delta (all units of an object share one).
 */
static const struct linewant *want_in_dwarf(struct dwindex *ix, uint64_t delta, struct linewant *w)
{
	size_t i;
	int sorted = 1;

	if (!ix->nwant)
		return NULL;
	w->n = ix->nwant;
	w->addr = ix->want;
	if (!delta)
		return w;
	if (!ix->want_dw || ix->want_delta != delta) {
		if (!ix->want_dw)
			ix->want_dw = xmalloc(ix->nwant * sizeof(*ix->want_dw));
		for (i = 0; i < ix->nwant; i++) {
			ix->want_dw[i] = ix->want[i] + delta;
			if (i && ix->want_dw[i] < ix->want_dw[i - 1])
				sorted = 0;
		}
		/* Addresses that wrapped around. */
		if (!sorted)
			qsort(ix->want_dw, ix->nwant, sizeof(*ix->want_dw), cmp_u64);
		ix->want_delta = delta;
	}
	w->addr = ix->want_dw;
	return w;
}

/*
 * The unit's line table: the rows of the wanted addresses (delta: as
 * unit_for has it), or with all every row; then its implicit rows.
 */
static void unit_lines(struct dwindex *ix, struct unit *u, uint64_t delta, int all)
{
	Dwarf_Die *cudie = &u->cudie;
	Dwarf *dw = dwarf_cu_getdwarf(cudie->cu);
	Dwarf_Half version;
	struct linewant w;
	int got = -1;

	u->lines_read = 1;
	/* The thread reads the wanted addresses as they were for its delta. */
	if (ix->ahead && (dw != ix->ahead_dw || delta != ix->ahead_delta)) {
		lineahead_stop(ix->ahead);
		ix->ahead = NULL;
	}
	if (ix->ahead && !all)
		got = lineahead_take(ix->ahead, u->off, &u->lines);
	if (got == 0) {
		linetab_read_libdw(&u->lines, cudie);
	} else if (got < 0) {
		if (dw != ix->sec_dw) {
			ix->sec_dw = dw;
			linesections_find(dw, &ix->sec);
		}
		linetab_read(&u->lines, &ix->sec, cudie, u->comp_dir,
			     all ? NULL : want_in_dwarf(ix, delta, &w));
	}
	/* Before DWARF 5 there is no file 0: libdw's stands in for none. */
	if (u->lines.nfile > 1 && dwarf_cu_info(cudie->cu, &version, NULL, NULL, NULL, NULL, NULL,
						NULL) == 0 && version >= 5) {
		const char *f0 = linetab_file(&u->lines, 0);
		const char *f1 = linetab_file(&u->lines, 1);

		if (f0 && f1 && strcmp(f0, f1))
			find_implicit_rows(u);
	}
}

static struct unit *unit_for(struct dwindex *ix, Dwarf_Die *cudie, uint64_t delta)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct unit *u;
	size_t i;
	int32_t last = -1;

	for (i = 0; i < ix->nunit; i++)
		if (ix->unit[i]->off == off)
			return ix->unit[i];
	u = xcalloc(1, sizeof(*u));
	u->off = off;
	u->cudie = *cudie;
	u->mangles = lang_mangles(cudie);
	walk(u, cudie, -1, &last, 0);
	/* Top-level nodes are those never made a child; mark children first. */
	{
		char *is_child = xcalloc(u->nnode + 1, 1);

		for (i = 0; i < u->nnode; i++) {
			int32_t c;

			for (c = u->node[i].first_child; c >= 0; c = u->node[c].next_sibling)
				is_child[c] = 1;
		}
		u->top = xcalloc(u->nrange + 1, sizeof(*u->top));
		for (i = 0; i < u->nrange; i++)
			if (!is_child[u->range[i].node])
				u->top[u->ntop++] = u->range[i];
		free(is_child);
	}
	qsort(u->top, u->ntop, sizeof(*u->top), cmp_range);
	{
		Dwarf_Attribute a;

		u->comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	}
	/* By names alone, only a unit that names no function at an address reads its lines. */
	if (!ix->names_only)
		unit_lines(ix, u, delta, 0);
	GROW(ix->unit, ix->cap_unit, ix->nunit + 1);
	ix->unit[ix->nunit++] = u;
	return u;
}

/*
 * The unit of module address a, and the bias of its DWARF; NULL for none.
 * Lookups come in ascending order: while they stay in the arange the last
 * one fell in, they are in its unit, where libdwfl's lookup (by the
 * aranges) would put them, and it is not asked again.
 */
static struct unit *unit_at(struct dwindex *ix, uint64_t a, Dwarf_Addr *bias)
{
	Dwarf_Die mem, *cudie;
	Dwarf_Aranges *ar;
	Dwarf_Arange *one;
	Dwarf_Addr start;
	Dwarf_Word len;
	Dwarf_Off off;
	Dwarf *dw;
	struct unit *u;

	if (ix->near && a >= ix->near_lo && a < ix->near_hi) {
		*bias = ix->near_bias;
		return ix->near;
	}
	ix->near = NULL;
	if (!(cudie = unit_die(ix, a, &mem, bias)))
		return NULL;
	u = unit_for(ix, cudie, ix->bias - *bias);
	/* The arange of a, when it is the unit's (not a unit found another way). */
	dw = dwarf_cu_getdwarf(cudie->cu);
	if (a >= *bias && dw && dwarf_getaranges(dw, &ar, NULL) == 0 &&
	    (one = dwarf_getarange_addr(ar, a - *bias)) &&
	    dwarf_getarangeinfo(one, &start, &len, &off) == 0 && off == u->off &&
	    start <= a - *bias && a - *bias - start < len) {
		ix->near = u;
		ix->near_bias = *bias;
		ix->near_lo = a - (a - *bias - start);
		ix->near_hi = len > UINT64_MAX - ix->near_lo ? UINT64_MAX : ix->near_lo + len;
	}
	return u;
}

static uint64_t range_lo(const void *r)
{
	return ((const struct range *)r)->lo;
}

static int node_contains(const struct unit *u, const struct node *n, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < n->nrange; i++) {
		const struct range *r = &u->range[n->first_range + i];

		if (addr >= r->lo && addr < r->hi)
			return 1;
	}
	return 0;
}

static const char *attr_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &a));
}

static void resolve_name(struct dwindex *ix, struct unit *u, struct node *n)
{
	Dwarf_Die die;
	const char *link, *name;
	Dwarf_Addr lo;

	n->named = 1;
	if (!dwarf_offdie(dwfl_module_getdwarf(ix->mod, &(Dwarf_Addr){0}), n->off, &die))
		return;
	link = attr_string(&die, DW_AT_linkage_name);
	if (!link)
		link = attr_string(&die, DW_AT_MIPS_linkage_name);
	if (link) {
		char *dm = demangle(link);

		n->name = profile_intern(ix->p, dm ? dm : link);
		n->raw = profile_intern(ix->p, link);
		n->is_linkage = 1;
		free(dm);
	} else if ((name = attr_string(&die, DW_AT_name))) {
		n->name = n->raw = profile_intern(ix->p, name);
		n->is_linkage = !u->mangles;
	}
	/* binutils' arange.low: DW_AT_low_pc, else the first of DW_AT_ranges. */
	n->low_pc = u->range[n->first_range].lo;
	if (dwarf_lowpc(&die, &lo) == 0)
		n->low_pc = lo;
}

/*
 * File names as binutils composes them: a file whose directory is relative
 * is put under the unit's compilation directory, even when that directory
 * is itself relative ("./stdlib" + "./stdlib/msort.c").
 */
static const char *path_name(struct dwindex *ix, const struct unit *u, const char *f)
{
	char *s;
	const char *r;

	if (!f)
		return NULL;
	if (f[0] == '/' || !u->comp_dir)
		return profile_intern(ix->p, f);
	if (asprintf(&s, "%s/%s", u->comp_dir, f) < 0)
		return profile_intern(ix->p, f);
	r = profile_intern(ix->p, s);
	free(s);
	return r;
}

static const char *file_name(struct dwindex *ix, struct unit *u, Dwarf_Word idx)
{
	if (idx >= u->lines.nfile)
		return NULL;
	return path_name(ix, u, linetab_file(&u->lines, (uint32_t)idx));
}

/* Rows of one line looked at ahead, for where the line ends. */
#define SAME_LINE_ROWS 32

/*
 * The file and line of addr, and where the next row of another file or
 * line (or a sequence's end) starts: below it, addresses get the same.
 */
static void line_at(struct dwindex *ix, struct unit *u, uint64_t addr, const char **file, int *line,
		    uint64_t *next)
{
	const struct linerow *l = linetab_find_near(&u->lines, addr, &u->line_hint, next);
	const char *src;
	size_t k, stop;
	int ln;

	*file = NULL;
	*line = 0;
	if (!l)
		return;
	k = (size_t)(l - u->lines.row) + 1;
	for (stop = k + SAME_LINE_ROWS; k < u->lines.nrow && k < stop; k++) {
		const struct linerow *r = &u->lines.row[k];

		if (r->end || r->file != l->file || r->line != l->line)
			break;
	}
	*next = k < u->lines.nrow ? u->lines.row[k].addr : UINT64_MAX;
	src = linetab_file(&u->lines, l->file);
	if (!src || src != u->last_src) {
		u->last_src = src;
		u->last_path = path_name(ix, u, src);
	}
	*file = u->last_path;
	for (size_t i = 0; i < u->nimplicit; i++)
		if (addr >= u->implicit[i].lo && addr < u->implicit[i].hi) {
			*file = file_name(ix, u, 0);
			break;
		}
	ln = l->line;
	if (ln > 0 && ln <= MAX_LINE)
		*line = ln;
}

/*
 * Lowers *keep to the distance from addr to the nearest edge of node n's
 * ranges above it: where one that holds addr ends, where another starts.
 */
static void keep_edges(const struct unit *u, const struct node *n, uint64_t addr, uint64_t *keep)
{
	uint32_t i;

	for (i = 0; i < n->nrange; i++) {
		const struct range *r = &u->range[n->first_range + i];
		uint64_t edge = r->lo > addr ? r->lo : r->hi > addr ? r->hi : 0;

		if (edge && edge - addr < *keep)
			*keep = edge - addr;
	}
}

int dwindex_lookup(struct dwindex *ix, uint64_t addr, struct dwframe *f, int max,
		   const char **file, int *line, uint64_t *same)
{
	Dwarf_Addr bias = 0;
	struct unit *u = unit_at(ix, addr + ix->bias, &bias);
	int32_t chain[256];
	int depth = 0, i;
	size_t lo, above;
	int32_t cur = -1;
	uint64_t keep = 1, next;

	*file = NULL;
	*line = 0;
	if (same)
		*same = 1;
	if (!u)
		return 0;
	/* Within the arange that found the unit, the unit is the same. */
	if (ix->near == u)
		keep = ix->near_hi - (addr + ix->bias);
	/* The DWARF's own address (a separate debug file may be laid out apart). */
	addr = addr + ix->bias - bias;
	next = UINT64_MAX;
	if (!ix->names_only)
		line_at(ix, u, addr, file, line, &next);
	if (next > addr && next - addr < keep)
		keep = next - addr;
	if (u->nimplicit)
		keep = 1;
	/* The last top-level range starting at or below addr that holds it. */
	lo = above = search_above(u->top, u->ntop, sizeof(*u->top), addr, range_lo);
	while (lo-- > 0) {
		if (addr < u->top[lo].hi) {
			cur = (int32_t)u->top[lo].node;
			break;
		}
		if (u->top[lo].lo + (1ULL << 24) < addr)
			break;
	}
	if (cur < 0) {
		/* An address no function holds (assembly sources): its file and line all the same. */
		if (ix->names_only) {
			if (!u->lines_read)
				unit_lines(ix, u, 0, 1);
			line_at(ix, u, addr, file, line, &next);
		}
		return 0;
	}
	/*
	 * Up to the next top-level range and the end of this one; one that
	 * starts lower and does not hold addr may still end the search later.
	 */
	if (lo + 1 != above)
		keep = 1;
	if (u->top[lo].hi - addr < keep)
		keep = u->top[lo].hi - addr;
	if (above < u->ntop && u->top[above].lo - addr < keep)
		keep = u->top[above].lo - addr;
	/* Descend into the inlined instances that hold addr. */
	while (cur >= 0 && depth < (int)ARRAY_SIZE(chain)) {
		int32_t c;

		if (u->node[cur].pending)
			expand(u, cur);
		chain[depth++] = cur;
		/*
		 * The one taken must hold on; those before it (all of them at
		 * the last level) must not start.
		 */
		for (c = u->node[cur].first_child; c >= 0; c = u->node[c].next_sibling) {
			if (node_contains(u, &u->node[c], addr))
				break;
			keep_edges(u, &u->node[c], addr, &keep);
		}
		if (c >= 0)
			keep_edges(u, &u->node[c], addr, &keep);
		cur = c;
	}
	/* chain[0] is the subprogram; report innermost first. */
	for (i = 0; i < depth && i < max; i++) {
		struct node *n = &u->node[chain[depth - 1 - i]];

		if (!n->named)
			resolve_name(ix, u, n);
		f[i].name = n->name;
		f[i].raw = n->raw;
		if (i == 0 && !n->is_linkage) {
			const char *sname, *sraw;
			uint64_t value;

			/* This name is the symbol's at addr: the next lookup's, even here, may not be. */
			keep = 0;
			if (ix->sym && ix->sym(ix->sym_ctx, addr, &sname, &sraw, &value) == 0) {
				f[i].name = sname;
				f[i].raw = sraw;
				if (value == n->low_pc) {
					n->name = sname;
					n->raw = sraw;
				}
			}
			/* Later lookups in this function keep its name as it is now. */
			n->is_linkage = 1;
		}
		if (i == 0) {
			f[i].file = *file;
			f[i].line = *line;
		} else {
			/* A caller's position is where it called the inner instance. */
			struct node *inner = &u->node[chain[depth - i]];
			Dwarf_Die die;
			Dwarf_Attribute a;
			Dwarf_Word w;

			f[i].file = NULL;
			f[i].line = 0;
			if (!ix->names_only &&
			    dwarf_offdie(dwfl_module_getdwarf(ix->mod, &(Dwarf_Addr){0}), inner->off, &die)) {
				if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &a), &w) == 0)
					f[i].file = file_name(ix, u, w);
				if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &a), &w) == 0 &&
				    w <= MAX_LINE)
					f[i].line = (int)w;
			}
		}
	}
	if (same)
		*same = keep;
	return depth;
}

unsigned dwindex_discriminator(struct dwindex *ix, uint64_t addr)
{
	Dwarf_Addr bias = 0;
	struct unit *u = unit_at(ix, addr + ix->bias, &bias);
	const struct linerow *l;

	if (!u || !(l = linetab_find(&u->lines, addr + ix->bias - bias)))
		return 0;
	return l->discriminator;
}
