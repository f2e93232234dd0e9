/* linetab.h - a compilation unit's DWARF line table, as libdw reads it (symbolizer internal). */
#ifndef PPROF_LINETAB_H
#define PPROF_LINETAB_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/* One row of the table. */
struct linerow {
	uint64_t addr;
	int32_t line;
	uint32_t file;         /* index into linetab.file */
	uint32_t discriminator;
	uint32_t end;          /* ends a sequence: no line from here on */
};

/*
 * The rows in libdw's order (by address; at one address a sequence's end
 * first, then the rows in the order the program made them; the last row
 * always an end), and the file names as libdw composes them (a relative
 * name under its directory; for DWARF before 5, index 0 is "???").
 */
struct linetab {
	struct linerow *row;
	size_t nrow;
	const char **file;     /* NULL for a name libdw has none for */
	size_t nfile;
	char *names;           /* storage of the names we composed */
};

/*
 * The sections the line programs of dw use, found once per Dwarf and
 * shared by its units' tables.
 */
struct linesections {
	const unsigned char *line, *str, *line_str;
	size_t nline, nstr, nline_str;
	int big_endian;
};

void linesections_find(Dwarf *dw, struct linesections *s);

/*
 * The addresses a table is read for (the unit's own, ascending): with
 * them, only the rows some lookup of them can find are kept, besides each
 * sequence's end, and a lookup of any other address may go wrong.  A unit
 * holds hundreds of functions; a profile touches a few addresses of each.
 */
struct linewant {
	const uint64_t *addr;
	size_t n;
};

/*
 * Reads the line table of the unit cudie into t (zeroed first).  The
 * common line programs are decoded here, directly from the section: a
 * table libdw keeps as linked rows and sorts whole costs several times
 * more.  A program using what this decoder does not take (DW_LNE_define_file,
 * VLIW op indexes, forms other than strings, offsets and constants in a
 * DWARF 5 file table, values libdw's fields cannot hold, split units) is
 * read by libdw instead, so the rows are libdw's either way.  A table
 * libdw cannot read either leaves t empty.
 */
void linetab_read(struct linetab *t, const struct linesections *s, Dwarf_Die *cudie,
		  const char *comp_dir, const struct linewant *want);

/*
 * The two ways linetab_read takes: decode returns -1 for a unit it leaves
 * to libdw (t empty), which reads every row.  want may be NULL (every row).
 */
int linetab_decode(struct linetab *t, const struct linesections *s, Dwarf_Die *cudie,
		   const char *comp_dir, const struct linewant *want);
void linetab_read_libdw(struct linetab *t, Dwarf_Die *cudie);

/*
 * linetab_decode in two halves: what libdw says of the unit (its program's
 * offset in .debug_line and its address size; -1 for a unit decode does
 * not take), then the decoding, which calls nothing of libdw and may run
 * on any thread.
 */
int linetab_program(Dwarf_Die *cudie, uint64_t *off, unsigned *address_size);
int linetab_decode_at(struct linetab *t, const struct linesections *s, uint64_t off,
		      unsigned address_size, const char *comp_dir, const struct linewant *want);

/* libdw's row for addr (dwarf_getsrc_die's): the last at or below it, NULL past a sequence's end. */
const struct linerow *linetab_find(const struct linetab *t, uint64_t addr);
/*
 * The same, for lookups mostly in ascending order: *hint (0 at first) is
 * the row the last one found, from which the search goes on.  With next,
 * the address of the row after it (UINT64_MAX for none): every address
 * below that finds the same row.
 */
const struct linerow *linetab_find_near(const struct linetab *t, uint64_t addr, size_t *hint,
					uint64_t *next);

/* The name of a row's file, or NULL. */
static inline const char *linetab_file(const struct linetab *t, uint32_t idx)
{
	return idx < t->nfile ? t->file[idx] : NULL;
}

void linetab_free(struct linetab *t);

#endif
