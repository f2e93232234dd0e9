/* symbolize.h - naming every location of a profile from ELF symbols and DWARF. */
#ifndef PPROF_SYMBOLIZE_H
#define PPROF_SYMBOLIZE_H

#include <stddef.h>

#include "arena.h"
#include "err.h"
#include "profile.h"
#include "strbuf.h"

/*
 * A symbol server: gperftools' /pprof/symbol protocol, which Go's
 * net/http/pprof serves too.  The symbolizer writes the request body
 * ("0xADDR+0xADDR...") and reads the reply; post carries it there and back
 * (the driver's HTTP client), filling reply, or returns -1 with e naming
 * the URL.
 */
struct symbol_server {
	int (*post)(void *ctx, const char *body, size_t len, struct strbuf *reply, struct err *e);
	void *ctx;
};

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
	/*
	 * A remote profile without PROGRAM: the server names the addresses
	 * that no local object of a matching build id does.  NULL otherwise.
	 */
	const struct symbol_server *server;
	/* --add_lib: an object whose mapping (symbolize_add_library) serves its addresses. */
	const char *add_lib;
	/*
	 * Where symbolize_profile leaves the object files it read, for the
	 * listings of the same profile (--list, --disasm, the prompt's and the
	 * web UI's) to use instead of reading them again; NULL: it closes them.
	 */
	struct symbolize_cache *cache;
	/*
	 * The report shows functions alone, no file or line: the DWARF names
	 * the functions and their inline chains, its line tables are not read,
	 * and the locations get neither files nor lines.
	 */
	int names_only;
};

/*
 * An empty cache of object files.  Free it before the profile it was
 * used for: the names read from the objects are interned there.
 */
struct symbolize_cache *symbolize_cache_new(void);
void symbolize_cache_free(struct symbolize_cache *c);

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
 * A reply of a symbol server, parsed: lines "0xADDR NAME", where NAME may
 * be an inline chain "OUTER--INNER" (gperftools pprof's convention), and
 * "binary=PATH".  Other lines are ignored, as gperftools pprof ignores
 * them; a line "---" ends the reply.  Entries ascend by address, one per
 * address (the last line for it wins).  Names are as the server sent them
 * (not demangled).  Everything lives in the reply's arena.
 */
struct symbolz_entry {
	uint64_t address;
	const char *name;     /* "outer--inner" */
};

struct symbolz_reply {
	struct symbolz_entry *entry;
	size_t n;
	const char *binary;   /* binary=..., or NULL */
	struct arena arena;
};

/*
 * Parses len bytes at buf (not NUL-terminated) into r (zero it first).  A
 * reply with a NUL byte is refused (-1, e says why); anything else parses.
 * symbolz_release frees r, whatever the result.
 */
int symbolz_parse(const char *buf, size_t len, struct symbolz_reply *r, struct err *e);
void symbolz_release(struct symbolz_reply *r);
/* The entry for address, or NULL. */
const struct symbolz_entry *symbolz_find(const struct symbolz_reply *r, uint64_t address);

/*
 * Names the locations of p that have no lines and were not tried by a
 * local object, through o->server, as gperftools pprof does with
 * /pprof/symbol: one request with every such address, names demangled, an
 * inline chain split at "--", no file or line; an address the server does
 * not know is named after itself ("0x" and 16 hex digits, 8 for 32-bit
 * profiles).  -1 with e set when the server cannot be asked.
 */
int symbolize_remote(struct profile *p, const struct symbolize_options *o, struct err *e);

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
