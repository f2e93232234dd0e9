/* dwarf.h - function, file and line of an address from DWARF (symbolizer internal). */
#ifndef PPROF_DWINDEX_H
#define PPROF_DWINDEX_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "profile.h"

/* One frame of an address: innermost (inlined callee) first. */
struct dwframe {
	const char *name;      /* demangled linkage name, else DW_AT_name; NULL if none */
	const char *raw;       /* linkage name as in the file, else name */
	int is_linkage;        /* name is a linkage name, or the language mangles nothing */
	uint64_t low_pc;       /* entry of this function or inlined instance */
	const char *file;      /* NULL when unknown */
	int line;              /* 0 when unknown */
};

struct dwindex;

/* Index over one module's DWARF; built lazily per compilation unit. */
struct dwindex *dwindex_new(Dwfl_Module *mod, struct profile *p);
void dwindex_free(struct dwindex *ix);

/*
 * Fills up to max frames for the module address addr, innermost first, and
 * returns how many there are (which may exceed max).  Returns 0 when no
 * compilation unit covers addr; then file and line may still come from a line
 * table covering addr (assembly sources), else they are NULL/0.
 */
int dwindex_lookup(struct dwindex *ix, uint64_t addr, struct dwframe *f, int max,
		   const char **file, int *line);

#endif
