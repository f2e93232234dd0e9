/* test_linetab.c - our line-table decoder against libdw's, unit by unit, on real objects. */
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "harness.h"
#include "lineahead.h"
#include "linetab.h"

/*
 * Every compilation unit of each object: where linetab_decode reads the
 * table, its rows (address, line, file, discriminator, end) and file names
 * are libdw's, one for one; read for a few addresses only, each of those
 * finds the row it finds in the whole table.  The objects: this test's own program (gcc's
 * DWARF 5), the ELF seeds of the fuzzing harness (DWARF 4, i386, aarch64,
 * big-endian ppc64, relocatable objects, a stripped library), the C
 * library with its separate debug file when installed, and any named on
 * the command line.  Objects missing here are skipped, not failed.
 */

struct tally {
	size_t units, decoded, rows;
};

static int same_table(const struct linetab *a, const struct linetab *b, const char *what)
{
	size_t i;

	if (a->nrow != b->nrow || a->nfile != b->nfile) {
		TEST_NOTE("    %s: %zu rows, %zu files; libdw %zu rows, %zu files", what, a->nrow,
			  a->nfile, b->nrow, b->nfile);
		return 0;
	}
	for (i = 0; i < a->nfile; i++) {
		const char *x = a->file[i], *y = b->file[i];

		if ((x || y) && (!x || !y || strcmp(x, y))) {
			TEST_NOTE("    %s: file %zu is '%s', libdw's '%s'", what, i, x ? x : "(null)",
				  y ? y : "(null)");
			return 0;
		}
	}
	for (i = 0; i < a->nrow; i++) {
		const struct linerow *x = &a->row[i], *y = &b->row[i];

		if (x->addr != y->addr || x->line != y->line || x->file != y->file ||
		    x->discriminator != y->discriminator || x->end != y->end) {
			TEST_NOTE("    %s: row %zu is 0x%llx line %d file %u d %u end %u; libdw's 0x%llx "
				  "line %d file %u d %u end %u", what, i, (unsigned long long)x->addr,
				  x->line, x->file, x->discriminator, x->end,
				  (unsigned long long)y->addr, y->line, y->file, y->discriminator,
				  y->end);
			return 0;
		}
	}
	return 1;
}

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The table read for some addresses only (one row in every, at, just
 * below and just above its address, and 0 and the top): each of them finds
 * the row it finds in the whole table.  Returns 0 when one does not.
 */
static int same_lookups(const struct linetab *all, const struct linesections *s, Dwarf_Die *cu,
			const char *comp_dir, size_t every, const char *what)
{
	uint64_t *w = malloc((3 * all->nrow + 3) * sizeof(*w));
	struct linewant want = { w, 0 };
	struct linetab some;
	size_t i;
	int ok = 1, pass;

	w[want.n++] = 0;
	w[want.n++] = UINT64_MAX;
	for (i = 0; i < all->nrow; i += every) {
		w[want.n++] = all->row[i].addr;
		w[want.n++] = all->row[i].addr - 1;
		w[want.n++] = all->row[i].addr + 1;
	}
	qsort(w, want.n, sizeof(*w), cmp_addr);
	if (linetab_decode(&some, s, cu, comp_dir, &want) != 0) {
		TEST_NOTE("    %s: not decoded for %zu addresses", what, want.n);
		free(w);
		return 0;
	}
	for (i = 0; i < want.n && ok; i++) {
		const struct linerow *x = linetab_find(&some, w[i]), *y = linetab_find(all, w[i]);

		if ((x || y) && (!x || !y || x->addr != y->addr || x->line != y->line ||
				 x->file != y->file || x->discriminator != y->discriminator)) {
			TEST_NOTE("    %s, every %zu: 0x%llx finds line %d at 0x%llx, in the whole table "
				  "line %d at 0x%llx", what, every, (unsigned long long)w[i], x ? x->line : -1,
				  x ? (unsigned long long)x->addr : 0ULL, y ? y->line : -1,
				  y ? (unsigned long long)y->addr : 0ULL);
			ok = 0;
		}
	}
	/* Looked up in ascending order, then descending, from the last row found: the same rows. */
	for (pass = 0; pass < 2 && ok; pass++) {
		size_t hint = 0, k;

		for (k = 0; k < want.n && ok; k++) {
			uint64_t a = w[pass ? want.n - 1 - k : k], next;
			const struct linerow *r = linetab_find_near(&some, a, &hint, &next);

			if (r != linetab_find(&some, a)) {
				TEST_NOTE("    %s, every %zu: 0x%llx found another row from the last (%s)",
					  what, every, (unsigned long long)a, pass ? "descending" : "ascending");
				ok = 0;
			}
			/* Up to the next row the same row; from it another, or none for both. */
			if ((next <= a && a != UINT64_MAX) || linetab_find(&some, next - 1) != r ||
			    (next != UINT64_MAX && r && linetab_find(&some, next) == r)) {
				TEST_NOTE("    %s, every %zu: 0x%llx: next row at 0x%llx is not where its "
					  "row ends", what, every, (unsigned long long)a,
					  (unsigned long long)next);
				ok = 0;
			}
		}
	}
	if (ok && some.nrow > all->nrow) {
		TEST_NOTE("    %s: %zu rows kept of %zu", what, some.nrow, all->nrow);
		ok = 0;
	}
	linetab_free(&some);
	free(w);
	return ok;
}

/* path's DWARF, in a Dwfl of its own (*dwfl, for dwfl_end); NULL when it has none. */
static Dwarf *open_dwarf(const char *path, Dwfl **dwfl)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl_Module *mod;
	Dwarf_Addr bias;

	if (!(*dwfl = dwfl_begin(&cb)))
		return NULL;
	mod = dwfl_report_offline(*dwfl, path, path, -1);
	dwfl_report_end(*dwfl, NULL, NULL);
	return mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
}

/* Compares the tables of every unit of path; returns how many differ. */
static int compare_object(const char *path, struct tally *t)
{
	Dwfl *dwfl;
	Dwarf *dw = open_dwarf(path, &dwfl);
	Dwarf_Off off = 0, next;
	size_t hsize;
	struct linesections s;
	int bad = 0;

	if (!dw) {
		dwfl_end(dwfl);
		return 0;
	}
	linesections_find(dw, &s);
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		struct linetab ours, theirs;
		Dwarf_Attribute a;
		char what[512];

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			t->units++;
			snprintf(what, sizeof(what), "%s, unit at 0x%llx", path, (unsigned long long)off);
			const char *comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));

			if (linetab_decode(&ours, &s, &cu, comp_dir, NULL) == 0) {
				t->decoded++;
				t->rows += ours.nrow;
				linetab_read_libdw(&theirs, &cu);
				if (!same_table(&ours, &theirs, what) ||
				    !same_lookups(&ours, &s, &cu, comp_dir, 1, what) ||
				    !same_lookups(&ours, &s, &cu, comp_dir, 7, what) ||
				    !same_lookups(&ours, &s, &cu, comp_dir, 101, what))
					bad++;
				linetab_free(&theirs);
			}
			linetab_free(&ours);
		}
		off = next;
	}
	dwfl_end(dwfl);
	return bad;
}

TEST(own_program)
{
	struct tally t = { 0 };

	CHECK_EQ_INT(compare_object("/proc/self/exe", &t), 0);
	/* gcc's tables are all ours to read. */
	CHECK(t.units > 0);
	CHECK_EQ_INT(t.decoded, t.units);
	CHECK(t.rows > 100);
}

TEST(fuzzing_seeds)
{
	const char *dir = "tests/fuzz/elf/seeds";
	struct tally t = { 0 };
	struct dirent *d;
	DIR *dp = opendir(dir);
	int bad = 0;

	if (!dp) {
		TEST_NOTE("skipped: no %s here", dir);
		return;
	}
	while ((d = readdir(dp))) {
		char path[1024];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		bad += compare_object(path, &t);
	}
	closedir(dp);
	CHECK_EQ_INT(bad, 0);
	CHECK(t.decoded >= 5);
}

TEST(c_library)
{
	static const char *const libs[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6",
	};
	struct tally t = { 0 };
	size_t i;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		FILE *f = fopen(libs[i], "rb");

		if (!f)
			continue;
		fclose(f);
		CHECK_EQ_INT(compare_object(libs[i], &t), 0);
		TEST_NOTE("%s: %zu units, %zu decoded here, %zu rows", libs[i], t.units, t.decoded,
			  t.rows);
		return;
	}
	TEST_NOTE("skipped: no C library found");
}

/*
 * lineahead: every unit of this program decoded on the second thread, each
 * table the one linetab_decode makes here; taken in address order (the
 * first ones, reached before the thread gets there, left to the caller),
 * a unit asked again or never asked for is the caller's, and tables never
 * taken are freed by lineahead_stop.
 */
TEST(read_ahead)
{
	Dwfl *dwfl;
	Dwarf *dw = open_dwarf("/proc/self/exe", &dwfl);
	Dwarf_Off off = 0, next;
	size_t hsize, n = 0, i, cap = 64;
	struct lineahead_unit *u;
	struct linesections s;
	struct lineahead *a;
	int same = 1, pass;

	if (!CHECK(dw != NULL)) {
		dwfl_end(dwfl);
		return;
	}
	u = calloc(cap, sizeof(*u));
	linesections_find(dw, &s);
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute at;

		if (n == cap)
			u = realloc(u, (cap *= 2) * sizeof(*u));
		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    linetab_program(&cu, &u[n].off, &u[n].address_size) == 0) {
			u[n].cu = off + hsize;
			u[n].comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
			n++;
		}
		off = next;
	}
	CHECK(n >= 2);
	/*
	 * Taken from the first (the thread's last) as the thread goes, each
	 * decoded by one or the other; then all taken once the thread is done.
	 */
	for (pass = 0; pass < 2; pass++) {
		size_t decoded = 0, left = 0;

		a = lineahead_start(&s, u, n, NULL);
		CHECK(a != NULL);
		if (a && pass)
			lineahead_wait(a);
		for (i = 0; a && i < n; i++) {
			size_t k = i;
			struct linetab ahead, here;
			int got = lineahead_take(a, u[k].cu, &ahead);

			CHECK(got == 1 || got == -1);
			if (got == 1) {
				/* Checks made on the whole: their count stays the same from run to run. */
				decoded++;
				same &= linetab_decode_at(&here, &s, u[k].off, u[k].address_size,
							  u[k].comp_dir, NULL) == 0 &&
					same_table(&ahead, &here, "read ahead");
				linetab_free(&here);
				linetab_free(&ahead);
			} else {
				left++;
			}
			/* Taken once. */
			CHECK_EQ_INT(lineahead_take(a, u[k].cu, &ahead), -1);
		}
		CHECK_EQ_INT(decoded + left, n);
		if (pass)
			CHECK_EQ_INT(decoded, n);
		TEST_NOTE("%zu units, %zu decoded ahead, %zu left to the caller", n, decoded, left);
		if (a)
			CHECK_EQ_INT(lineahead_take(a, UINT64_MAX, &(struct linetab){ 0 }), -1);
		lineahead_stop(a);
	}
	CHECK(same);
	/* Stopped with every table untaken: lineahead_stop frees them (the leak check says). */
	lineahead_stop(lineahead_start(&s, u, n, NULL));
	lineahead_stop(NULL);
	free(u);
	dwfl_end(dwfl);
}

/*
 * bounds_lookup_near, from the routine the last lookup found, finds the
 * routine bounds_lookup finds: addresses ascending (within a routine, to
 * the next, past a few), descending, scattered, below the first start,
 * past the last end, at equal ends.
 */
TEST(bounds_near)
{
	static const struct elfsym sym[6];
	static const uint64_t start[] = { 0x100, 0x140, 0x180, 0x180, 0x300, 0x400 };
	static const uint64_t end[] = { 0x140, 0x170, 0x200, 0x200, 0x380, 0x400 };
	const struct elfsym *ptr[6] = { &sym[0], &sym[1], &sym[2], &sym[3], &sym[4], &sym[5] };
	unsigned char bare[6] = { 0, 1, 0, 1, 0, 0 };
	struct bounds b = { (uint64_t *)start, (uint64_t *)end, ptr, bare, 6 };
	size_t hint = 0, i, bad = 0;
	uint64_t a;

	for (a = 0; a < 0x480; a += 4) {
		const struct elfsym *s;
		uint64_t until;
		int b1, b2;

		s = bounds_lookup_near(&b, a, &b1, &hint, &until);
		bad += s != bounds_lookup(&b, a, &b2) || b1 != b2;
		/* The same routine up to its end, another from there (none past the last). */
		bad += until <= a || bounds_lookup(&b, until - 1, NULL) != s ||
		       (s ? bounds_lookup(&b, until, NULL) == s : until != UINT64_MAX);
	}
	for (a = 0x480; a-- > 0;)
		bad += bounds_lookup_near(&b, a, NULL, &hint, NULL) != bounds_lookup(&b, a, NULL);
	for (i = 0; i < 4096; i++) {
		a = (i * 2654435761u) % 0x500;
		bad += bounds_lookup_near(&b, a, NULL, &hint, NULL) != bounds_lookup(&b, a, NULL);
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(bounds_lookup(&b, 0x150, NULL) == &sym[1]);
	CHECK(bounds_lookup(&b, 0x10, NULL) == &sym[0]);
	CHECK(bounds_lookup(&b, 0x400, NULL) == NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		struct tally t = { 0 };
		int i, bad = 0;

		for (i = 1; i < argc; i++)
			bad += compare_object(argv[i], &t);
		printf("%zu units, %zu decoded, %zu rows, %d differ\n", t.units, t.decoded, t.rows, bad);
		return bad != 0;
	}
	RUN(own_program);
	RUN(fuzzing_seeds);
	RUN(c_library);
	RUN(read_ahead);
	RUN(bounds_near);
	return test_done();
}
