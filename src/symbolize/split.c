/* split.c - one object's many addresses looked up on two threads (see objects.h). */
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objects.h"
#include "util.h"

/* An array of lines a part made, and the address it was made for (an index of work). */
struct made {
	size_t at;
	struct line *line;
	size_t n;
};

/*
 * The addresses of one side, looked up into a profile of its own (names,
 * functions, lines), through an object of its own or the first thread's.
 */
struct part {
	struct split *sp;
	int side;
	struct symbolizer s;   /* a copy of the first thread's, strings its own */
	struct object *ob;     /* the object looked up in: &own, or the first thread's */
	struct object own;
	uint32_t *idx;         /* its addresses' indexes in work, ascending */
	size_t naddr;
	struct made *made;
	size_t nmade, cap_made;
	int ok;
};

struct split {
	struct symbolizer *s;
	struct object *ob;
	struct work *work;
	const uint64_t *addr;  /* work's addresses */
	size_t n;
	uint8_t *side;         /* each address's: 0 or 1 */
	struct part part[2];
	pthread_t thread;
};

/* A unit's addresses: their number, and the side they go to. */
struct unit_count {
	Dwarf_Off cu;
	size_t n;
	int side;
};

static int cmp_unit(const void *a, const void *b)
{
	const struct unit_count *x = a, *y = b;

	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int cmp_larger(const void *a, const void *b)
{
	const struct unit_count *x = a, *y = b;

	return x->n != y->n ? (x->n > y->n ? -1 : 1) : (x->cu < y->cu ? -1 : x->cu > y->cu);
}

/* The side of unit cu, among the nu of u (by cu). */
static uint8_t side_of(const struct unit_count *u, size_t nu, Dwarf_Off cu)
{
	struct unit_count key = { cu, 0, 0 };
	const struct unit_count *f = bsearch(&key, u, nu, sizeof(*u), cmp_unit);

	return f ? (uint8_t)f->side : 0;
}

#define NO_RANGE UINT32_MAX

/*
 * Each address's side, whole units to a side, about as many addresses on
 * either: 1 when the addresses fall in two units or more.  The units are
 * found as lookups find them: by the ranges of .debug_aranges (which must
 * not overlap), else by their own (ix).  Addresses in no unit stay on
 * side 0.
 */
static int assign_sides(struct dwindex *ix, Dwarf *dw, const uint64_t *addr, size_t n,
			uint8_t *side)
{
	Dwarf_Aranges *ar;
	Dwarf_Addr start = 0, prev_end = 0;
	Dwarf_Word len = 0;
	uint32_t *range = xcalloc(n + 1, sizeof(*range));
	struct unit_count *u = NULL;
	uint8_t *range_side = NULL;
	/* Of the addresses in no range, in order: the unit found another way + 1, or 0. */
	uint64_t *other = NULL;
	size_t nother = 0, cap_other = 0;
	size_t nar, nu = 0, cap = 0, k, i, j, load[2] = { 0, 0 };
	int ok = 0;

	if (dwarf_getaranges(dw, &ar, &nar) != 0 || !nar || nar >= NO_RANGE)
		goto out;
	/* Per range, its unit and how many addresses fall in it. */
	u = xcalloc(nar, sizeof(*u));
	cap = nu = nar;
	for (k = 0; k < nar; k++) {
		if (dwarf_getarangeinfo(dwarf_onearange(ar, k), &start, &len, &u[k].cu) != 0 ||
		    (k && start < prev_end))
			goto out;
		prev_end = start + len;
	}
	/* Each address's range, in one pass: both are in ascending order. */
	for (i = 0, k = 0; i < n; i++) {
		uint64_t cu;

		for (; k < nar; k++) {
			dwarf_getarangeinfo(dwarf_onearange(ar, k), &start, &len, NULL);
			if (addr[i] - start < len || start > addr[i])
				break;
		}
		range[i] = NO_RANGE;
		if (k < nar && addr[i] >= start) {
			range[i] = (uint32_t)k;
			u[k].n++;
		} else {
			GROW(other, cap_other, nother + 1);
			other[nother] = 0;
			if (dwindex_unit_of(ix, addr[i], &cu)) {
				/* In no range, yet in a unit found another way. */
				GROW(u, cap, nu + 1);
				u[nu].cu = cu;
				u[nu++].n = 1;
				other[nother] = cu + 1;
			} else {
				load[0]++;
			}
			nother++;
		}
		/* The next address may be in range k still. */
		if (k == nar)
			k = nar - 1;
	}
	/* The units by size, each given to the side with fewer addresses so far. */
	qsort(u, nu, sizeof(*u), cmp_unit);
	for (i = 0, k = 0; i < nu; i = j) {
		size_t sum = 0;

		for (j = i; j < nu && u[j].cu == u[i].cu; j++)
			sum += u[j].n;
		if (!sum)
			continue;
		u[k].cu = u[i].cu;
		u[k++].n = sum;
	}
	nu = k;
	if (nu < 2)
		goto out;
	qsort(u, nu, sizeof(*u), cmp_larger);
	for (k = 0; k < nu; k++) {
		u[k].side = load[1] < load[0];
		load[u[k].side] += u[k].n;
	}
	/* Neither side may be small: the second thread costs a Dwfl of its own. */
	if (load[1] < n / 4 || load[0] < n / 4)
		goto out;
	qsort(u, nu, sizeof(*u), cmp_unit);
	range_side = xcalloc(nar, sizeof(*range_side));
	for (k = 0; k < nar; k++) {
		Dwarf_Off cu;

		dwarf_getarangeinfo(dwarf_onearange(ar, k), NULL, NULL, &cu);
		range_side[k] = side_of(u, nu, cu);
	}
	for (i = 0, j = 0; i < n; i++) {
		uint64_t found;

		if (range[i] != NO_RANGE) {
			side[i] = range_side[range[i]];
			continue;
		}
		found = other[j++];
		side[i] = found ? side_of(u, nu, found - 1) : 0;
	}
	ok = 1;
out:
	free(range);
	free(range_side);
	free(other);
	free(u);
	return ok;
}

/* Looks up the part's addresses in ascending order, noting each array of lines made. */
static void look_up(struct part *pt)
{
	struct split *sp = pt->sp;
	struct last_lines last = { 0 };
	struct strbuf tmp = STRBUF_INIT;
	size_t k;

	/* All of them, as one thread would: a unit's rows are of its own addresses anyway. */
	dwindex_want(pt->ob->dw, sp->addr, sp->n);
	for (k = 0; k < pt->naddr; k++) {
		const struct work *w = &sp->work[pt->idx[k]];
		struct location *loc = w->loc;

		/* In address order the locations are scattered: hint the ones ahead. */
		if (k + 8 < pt->naddr)
			hint_write(sp->work[pt->idx[k + 8]].loc);
		symbolize_pc(&pt->s, pt->ob, loc, w->addr, &tmp, &last);
		if (loc->nline && (!pt->nmade || loc->line != pt->made[pt->nmade - 1].line)) {
			GROW(pt->made, pt->cap_made, pt->nmade + 1);
			pt->made[pt->nmade].at = pt->idx[k];
			pt->made[pt->nmade].line = loc->line;
			pt->made[pt->nmade++].n = loc->nline;
		}
	}
	sb_release(&tmp);
	pt->ok = 1;
}

/*
 * The second thread: the object's file opened again (the very file the
 * first thread read), its own Dwfl and index, then its part.
 */
static void *run(void *arg)
{
	struct part *pt = arg;
	const struct object *first = pt->sp->ob;
	struct object *ob = &pt->own;
	Dwarf_Addr bias, dbias;
	Dwfl_Module *mod;
	struct stat st;
	Dwarf *dw;
	Elf *elf;
	int fd = open_regular(first->path);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_dev != first->st.st_dev || st.st_ino != first->st.st_ino ||
	    st.st_size != first->st.st_size || st.st_mtim.tv_sec != first->st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != first->st.st_mtim.tv_nsec || !(ob->dwfl = object_dwfl_begin())) {
		close(fd);
		return NULL;
	}
	dwfl_report_begin(ob->dwfl);
	mod = dwfl_report_elf(ob->dwfl, ob->path, ob->path, fd, first->base, true);
	dwfl_report_end(ob->dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		return NULL;
	}
	/* Its DWARF in the file itself, at the first thread's bias. */
	elf = dwfl_module_getelf(mod, &bias);
	dw = dwfl_module_getdwarf(mod, &dbias);
	if (!elf || !dw || dwarf_getelf(dw) != elf || bias != dbias || bias != first->base)
		return NULL;
	ob->mod = mod;
	ob->elf = elf;
	ob->fn_elf = elf;
	ob->dw = dwindex_new(mod, pt->s.strings, object_function_symbol, ob);
	dwindex_alone(ob->dw, 1);
	if (pt->s.o->names_only)
		dwindex_names_only(ob->dw);
	look_up(pt);
	return NULL;
}

static void part_init(struct split *sp, int side)
{
	struct part *pt = &sp->part[side];
	size_t i;

	pt->sp = sp;
	pt->side = side;
	/* Shared, only read: options, symbols, nm's routines. */
	pt->s = *sp->s;
	pt->s.strings = profile_new();
	/* Addresses no name covers are named after them, in as many digits. */
	pt->s.strings->address_bits = sp->s->strings->address_bits;
	pt->s.prefetch = NULL;
	pt->s.defer_dwarf = 0;
	for (i = 0; i < SHORT_MEMO; i++) {
		sb_init(&pt->s.short_memo[i].shrt);
		pt->s.short_memo[i].full = NULL;
	}
	memset(pt->s.function_memo, 0, sizeof(pt->s.function_memo));
	pt->ob = sp->ob;
	for (i = 0; i < sp->n; i++)
		pt->naddr += sp->side[i] == side;
	pt->idx = xcalloc(pt->naddr + 1, sizeof(*pt->idx));
	for (i = 0, pt->naddr = 0; i < sp->n; i++)
		if (sp->side[i] == side)
			pt->idx[pt->naddr++] = (uint32_t)i;
}

static void part_release(struct part *pt)
{
	size_t i;

	for (i = 0; i < SHORT_MEMO; i++)
		sb_release(&pt->s.short_memo[i].shrt);
	profile_free(pt->s.strings);
	free(pt->idx);
	free(pt->made);
}

/*
 * The parts' arrays of lines, in the order one thread would have made
 * them, name the first thread's functions (made in that order too)
 * instead of their own, and live as long as its profile.
 */
static void take_lines(struct split *sp)
{
	struct profile *p = sp->s->strings;
	struct function **fn[2];
	size_t at[2] = { 0, 0 }, j;
	int k;

	for (k = 0; k < 2; k++)
		fn[k] = xcalloc(sp->part[k].s.strings->nfunction + 1, sizeof(*fn[k]));
	for (;;) {
		const struct part *a = &sp->part[0], *b = &sp->part[1];
		const struct made *m;

		if (at[0] < a->nmade && (at[1] == b->nmade || a->made[at[0]].at < b->made[at[1]].at))
			k = 0;
		else if (at[1] < b->nmade)
			k = 1;
		else
			break;
		m = &sp->part[k].made[at[k]++];
		for (j = 0; j < m->n; j++) {
			struct line *l = &m->line[j];
			struct function **f = &fn[k][l->function->id - 1];

			if (!*f)
				*f = profile_function(p, l->function->name, l->function->system_name,
						      l->function->filename, l->function->start_line,
						      l->function->symbol_address);
			l->function = *f;
		}
	}
	for (k = 0; k < 2; k++) {
		arena_adopt(&p->arena, &sp->part[k].s.strings->arena);
		free(fn[k]);
	}
}

int split_lookups(struct symbolizer *s, struct object *ob, struct work *work,
		  const uint64_t *addr, size_t n)
{
	Dwarf_Addr bias, dbias;
	struct split sp;
	const char *alt;
	const void *id;
	Dwarf *dw;
	int k, threaded;

	/*
	 * DWARF in the object's own file (no debug file, no dwz file to find),
	 * which the second thread can open again as it is.
	 */
	if (!s->split_min || n < s->split_min || n > UINT32_MAX || !ob->dw || !ob->reopen ||
	    ob->debug_file || ob->fn_elf != ob->elf || !(dw = dwfl_module_getdwarf(ob->mod, &dbias)) ||
	    dwarf_getelf(dw) != dwfl_module_getelf(ob->mod, &bias) || bias != dbias ||
	    bias != ob->base || dwelf_dwarf_gnu_debugaltlink(dw, &alt, &id) != 0)
		return 0;
	memset(&sp, 0, sizeof(sp));
	sp.s = s;
	sp.ob = ob;
	sp.work = work;
	sp.addr = addr;
	sp.n = n;
	sp.side = xcalloc(n + 1, sizeof(*sp.side));
	if (!assign_sides(ob->dw, dw, addr, n, sp.side)) {
		free(sp.side);
		return 0;
	}
	part_init(&sp, 1);
	sp.part[1].own = *ob;
	sp.part[1].own.dwfl = NULL;
	sp.part[1].own.mod = NULL;
	sp.part[1].own.dw = NULL;
	sp.part[1].own.bounds_hint = 0;
	sp.part[1].ob = &sp.part[1].own;
	dwindex_alone(ob->dw, 1);
	threaded = pthread_create(&sp.thread, NULL, run, &sp.part[1]) == 0;
	part_init(&sp, 0);
	look_up(&sp.part[0]);
	if (threaded)
		pthread_join(sp.thread, NULL);
	/* Without the second thread, its part is this one's. */
	if (!sp.part[1].ok) {
		sp.part[1].ob = ob;
		sp.part[1].nmade = 0;
		look_up(&sp.part[1]);
	}
	dwindex_alone(ob->dw, 0);
	take_lines(&sp);
	dwindex_free(sp.part[1].own.dw);
	if (sp.part[1].own.dwfl)
		dwfl_end(sp.part[1].own.dwfl);
	for (k = 0; k < 2; k++)
		part_release(&sp.part[k]);
	free(sp.side);
	s->splits++;
	return 1;
}
