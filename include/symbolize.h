/* symbolize.h - naming every location of a profile from ELF symbols and DWARF. */
#ifndef PPROF_SYMBOLIZE_H
#define PPROF_SYMBOLIZE_H

#include <stddef.h>

#include "err.h"
#include "profile.h"

struct symbolize_options {
	/* The program named on the command line, or NULL. */
	const char *program;
	/* --lib_prefix directories, tried in order for each library path. */
	const char *const *lib_prefix;
	size_t nlib_prefix;
	/* Print a per-object summary on stderr. */
	int verbose;
	/* --no_strip_temp: short names keep template arguments. */
	int keep_templates;
};

/*
 * Fills the lines of every location of p, in process: each address is
 * mapped through the profile's mappings to an object file (the program for
 * the main mapping and for addresses no mapping covers), whose ELF symbols
 * and DWARF name it.  Names follow gperftools pprof (nm boundaries plus
 * addr2line inline chains).  Objects that cannot be read get one warning
 * and their locations stay without lines.  Symbolizes each address once;
 * locations that already have lines are left alone.
 */
int symbolize_profile(struct profile *p, const struct symbolize_options *o, struct err *e);

/*
 * Checks that path is a readable ELF file: returns -1 with "cannot open
 * 'path': ..." or "'path' is not an ELF file" otherwise.
 */
int symbolize_check_program(const char *path, struct err *e);

#endif
