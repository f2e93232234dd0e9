/* objects.h - the object files behind a profile's addresses (symbolizer internal). */
#ifndef PPROF_OBJECTS_H
#define PPROF_OBJECTS_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>

#include "dwindex.h"
#include "elfsym.h"
#include "profile.h"
#include "symbolize.h"

/* One object file, opened once however many mappings use it. */
struct module {
	char *path;            /* the file read */
	int fd;
	Elf *elf;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct dwindex *dw;
	const char *debug_file; /* separate debug info, if found */
	/* nm's view, from /usr/lib/debug/PATH when that exists. */
	int nm_fd;
	Elf *nm_elf;
	struct elfsyms nm_syms;
	struct bounds bounds;
	/* addr2line's symbols for naming code that DWARF does not describe. */
	struct elfsyms fn_syms;
	Elf *fn_elf;
	int ok;
	size_t order;          /* creation order, to sort lookups by object */
};

/* A range of addresses served by a module (gperftools pprof's "library"). */
struct lib {
	char *path;            /* file to read, opened at the first address */
	struct module *m;
	uint64_t start, end;   /* inclusive, as pprof treats them */
	uint64_t adjust;       /* module address = pc - adjust */
	struct mapping *mapping;
	size_t rank;           /* position of its mapping in the profile */
};

struct symbolizer {
	const struct profile *prof; /* whose mappings name the objects */
	struct profile *strings;    /* where names are interned */
	const struct symbolize_options *o;
	struct module **mods;
	size_t nmods, cap_mods;
	struct lib *libs;
	size_t nlibs, cap_libs;
	uint64_t *max_end;     /* see find_lib */
	struct module *program;
	int quiet;             /* no warnings: symbolization gave them already */
};

/*
 * Plans the libraries of prof's mappings as gperftools pprof does (the
 * program, objects that look like shared libraries, found under
 * --lib_prefix); objects are opened on first use.  Names read from them are
 * interned in strings.
 */
void symbolizer_init(struct symbolizer *s, const struct profile *prof, struct profile *strings,
		     const struct symbolize_options *o);
void symbolizer_release(struct symbolizer *s);

/* The library whose range holds a, or NULL. */
struct lib *find_lib(struct symbolizer *s, uint64_t a);
/* A library's object (opened now if needed); check ->ok before use. */
struct module *lib_module(struct symbolizer *s, struct lib *l);
/* The program named on the command line, or NULL. */
struct module *program_module(struct symbolizer *s);

#define MAX_FRAMES 64

struct frame {
	const char *name;      /* full name, without the <addr> tag */
	const char *raw;
	uint64_t symaddr;      /* NO_SYMBOL_ADDRESS unless taken from nm */
	const char *file;
	int line;
};

/*
 * addr2line -f -i -C for one module address: fills fr (MAX_FRAMES) innermost
 * first and returns how many frames there are (at least 1; a lone frame may
 * have neither name nor file).
 */
int addr2line(struct module *m, uint64_t addr, struct frame *fr);

#endif
