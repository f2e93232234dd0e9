/* elfsym.h - ELF symbol tables as nm and addr2line see them (symbolizer internal). */
#ifndef PPROF_ELFSYM_H
#define PPROF_ELFSYM_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct elfsym {
	uint64_t value, size;
	const char *name;   /* as nm --demangle prints it, version suffix included */
	const char *raw;    /* as in the file */
	/*
	 * The source file binutils names for code without line information:
	 * the last STT_FILE symbol before this one, for local symbols, and for
	 * global ones only while no file symbol has followed other symbols.
	 */
	const char *file;
	uint32_t shndx;
	uint8_t type, bind, vis;
	char nm_class;      /* nm's type letter: 'T', 't', 'W', 'D', ... */
};

/*
 * A symbol table sorted like `nm -n`: by value, ties by raw name, then in
 * file order.  Names are interned in the profile given at load time.
 */
struct elfsyms {
	struct elfsym *sym;
	size_t n;
	int dynamic;         /* read from .dynsym */
	unsigned addr_digits; /* 16 for ELFCLASS64, 8 for ELFCLASS32 */
};

/*
 * What a section lookup asks for; a zero field asks nothing: the type
 * (SHT_NULL: any), the name, flags that must all be set, and addresses
 * [addr, addr + size) the section must overlap (size 0: any).
 */
struct section_want {
	GElf_Word type;
	const char *name;
	GElf_Xword flags;
	uint64_t addr, size;
};

/*
 * The one ELF section lookup: the first section after `after` (NULL: from
 * the start) that has what w asks for, its header in *shdr, or NULL.
 */
Elf_Scn *elf_section_find(Elf *elf, Elf_Scn *after, const struct section_want *w,
			  GElf_Shdr *shdr);

enum elfsyms_flags {
	ELFSYMS_DYNAMIC = 1 << 0,   /* read .dynsym instead of .symtab */
	ELFSYMS_VERSIONS = 1 << 1,  /* append "@VER"/"@@VER" as nm -D prints */
};

/*
 * Reads .symtab (or .dynsym) of elf into t, leaving out what nm leaves out:
 * the null, section and file symbols and undefined ones.  Returns the
 * number of symbols.
 */
size_t elfsyms_read(Elf *elf, unsigned flags, struct profile *p, struct elfsyms *t);
void elfsyms_release(struct elfsyms *t);
/* How many symbols of t (sorted by value) are at or below addr. */
size_t elfsyms_upto(const struct elfsyms *t, uint64_t addr);

/*
 * Procedure boundaries as gperftools pprof derives them from `nm -n`:
 * one entry per distinct address, a text symbol preferred among equals,
 * each running to the next address, the last of size 0.
 */
struct bounds {
	uint64_t *start, *end;
	const struct elfsym **sym;
	/*
	 * pprof's name of the routine has no "<ADDRESS>": a later text symbol
	 * at its address replaced the first one, and pprof takes its name bare.
	 */
	unsigned char *bare;
	size_t n;
	/*
	 * A "_fini" symbol starts an address: pprof then asks addr2line for
	 * inline chains (it separates answers with _fini's address); without
	 * it, each address gets its innermost frame only.
	 */
	int has_fini;
};

void bounds_build(const struct elfsyms *t, struct bounds *b);
void bounds_release(struct bounds *b);
/*
 * The routine covering addr, with no lower bound: an address below the first
 * start belongs to the first routine.  NULL when addr is past the last end.
 * *bare (when not NULL) says whether pprof names it without "<ADDRESS>".
 */
const struct elfsym *bounds_lookup(const struct bounds *b, uint64_t addr, int *bare);
/*
 * The same, for lookups mostly in ascending order: *hint (0 at first) is
 * the last one's place.  With end, where the routine found ends (below it
 * every address finds it), UINT64_MAX past the last.
 */
const struct elfsym *bounds_lookup_near(const struct bounds *b, uint64_t addr, int *bare,
				       size_t *hint, uint64_t *end);

/*
 * addr2line's fallback when debug information names no function: the
 * nearest function-like symbol at or below addr in the same section, no
 * matter its size.  NULL when there is none.
 */
const struct elfsym *elfsyms_find_function(const struct elfsyms *t, Elf *elf, uint64_t addr);

#endif
