/* dwindex.h - function, file and line of an address from DWARF (symbolizer internal). */
#ifndef PPROF_DWINDEX_H
#define PPROF_DWINDEX_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "profile.h"

/* One frame of an address: innermost (inlined callee) first. */
struct dwframe {
	const char *name;      /* as addr2line names it; NULL if unknown */
	const char *raw;       /* linkage name as in the file, else name */
	const char *file;      /* NULL when unknown */
	int line;              /* 0 when unknown */
};

/*
 * Addresses here are the object file's own, as nm prints them; the index
 * adds the module's bias in its Dwfl.
 *
 * The ELF function symbol addr2line would find for an object address:
 * returns 0 and fills name (demangled), raw and value, or returns -1.
 */
typedef int (*dwindex_symfn)(void *ctx, uint64_t addr, const char **name, const char **raw,
			     uint64_t *value);

struct dwindex;

/*
 * Index over one module's DWARF; built lazily per compilation unit.
 * Names follow binutils, which is stateful: a function whose DWARF name is
 * not a linkage name (C++ main, lambdas) is named after the ELF symbol
 * covering the first address looked up in it, and by its DWARF name at
 * later addresses unless that symbol starts where the function does.  So
 * look addresses up in ascending order, as gperftools pprof does.
 */
struct dwindex *dwindex_new(Dwfl_Module *mod, struct profile *p, dwindex_symfn sym, void *ctx);
void dwindex_free(struct dwindex *ix);

/*
 * The only object addresses (ascending, n of them) to be looked up from
 * now on; addr stays the caller's until the index is freed or told again.
 * Units read after this keep only the line rows these can find.
 */
void dwindex_want(struct dwindex *ix, const uint64_t *addr, size_t n);
/* The unit a lookup of addr reads (its DIE's offset, into *cu); 0 when none. */
int dwindex_unit_of(struct dwindex *ix, uint64_t addr, uint64_t *cu);

/*
 * With alone set, no line tables are decoded ahead on a thread of the
 * index's own (dwindex_want) until it is cleared: the caller keeps both
 * cores busy itself.
 */
void dwindex_alone(struct dwindex *ix, int alone);
/*
 * Names only, for reports that show no file or line: line tables are not
 * read, lookups give no file and no line (not even their frames'), and an
 * address's frames hold as far as its function's code does, not its line's.
 */
void dwindex_names_only(struct dwindex *ix);
/* Frees the units read so far (after dwindex_want(ix, NULL, 0)): later lookups read them whole. */
void dwindex_forget(struct dwindex *ix);

/*
 * Fills up to max frames for the object address addr, innermost first, and
 * returns how many there are (which may exceed max).  Returns 0 when no
 * compilation unit covers addr; then file and line may still come from a line
 * table covering addr (assembly sources), else they are NULL/0.  With same,
 * how many addresses from addr on are sure to get these frames and file
 * and line, lookups of them skipped or not: 1 when only addr is (no unit,
 * no frames), 0 when not even another lookup of addr is (a function named
 * after the symbol at addr, which names it for later lookups).
 */
int dwindex_lookup(struct dwindex *ix, uint64_t addr, struct dwframe *f, int max,
		   const char **file, int *line, uint64_t *same);

/*
 * The discriminator of the line-table row for addr (objdump -l prints
 * "FILE:LINE (discriminator N)" when it is not 0), or 0.
 */
unsigned dwindex_discriminator(struct dwindex *ix, uint64_t addr);

#endif
