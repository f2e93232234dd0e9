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
	/* --add_lib: an object whose mapping (symbolize_add_library) serves its addresses. */
	const char *add_lib;
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
 * symbolize_profile for gprof data (the gmon.out reader's symbolizer; gmon
 * data without a program goes to symbolize_profile as it is), in
 * src/symbolize/gprof.c.  First the load address: glibc records link-time
 * addresses (even for PIE), older ones runtime addresses; when the
 * histogram ranges and arcs do not fit the program's image as they are
 * and the program is position-independent, the page-aligned bias that
 * puts them inside it with the most arc callees just past a function
 * entry (tie: the histogram ending nearest the end of the code) is taken,
 * and a mapping of the program at that bias is added.  Then, after
 * symbolize_profile, every address in the program is renamed after the
 * symbol gprof credits it to (its T, W and filtered t symbols, each
 * running to the next: see gprof.c), one frame with the innermost
 * file:line found, and addresses it credits to none lose their names (they
 * show as addresses); arcs gprof drops (an end outside its symbols) and
 * self-recursive ones (not in gprof's calls column) lose their calls, and
 * symbols gprof excludes (mcount and the like) their time.
 */
int symbolize_gprof(struct profile *p, const struct symbolize_options *o, struct err *e);

/*
 * Where the link-time address range [start, limit) of the object file at
 * path lies: sets *offset to the file offset of start and returns
 * IMAGE_PLACED when a loaded segment holds start, plus IMAGE_EXECUTABLE
 * when an executable segment covers the whole range; -1 when the file
 * cannot be read as ELF.
 */
enum { IMAGE_PLACED = 1 << 0, IMAGE_EXECUTABLE = 1 << 1 };
int symbolize_image_range(const char *path, uint64_t start, uint64_t limit, uint64_t *offset);

/*
 * --add_lib: maps the object file at path at its link-time addresses, its
 * .text section's range, as gperftools pprof does; symbolize_profile then
 * names the addresses in that range from it (with o->add_lib set).
 * Returns -1 with e set when path has no .text section to read.
 */
int symbolize_add_library(struct profile *p, const char *path, struct err *e);

/*
 * Checks that path is a readable ELF file: returns -1 with "cannot open
 * 'path': ..." or "'path' is not an ELF file" otherwise.
 */
int symbolize_check_program(const char *path, struct err *e);

#endif
