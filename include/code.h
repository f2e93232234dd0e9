/* code.h - the machine code behind a profile, for --list and --disasm. */
#ifndef PPROF_CODE_H
#define PPROF_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "err.h"
#include "regex.h"
#include "profile.h"
#include "symbolize.h"

/*
 * The objects of a symbolized profile opened again in a symbolizer session
 * of their own, as the symbolizer found them (program, libraries,
 * --lib_prefix, separate debug files); each is read when first needed.
 * p and o must outlive it.
 */
struct code;
struct code *code_open(const struct profile *p, const struct symbolize_options *o);
void code_close(struct code *c);

/* A routine as gperftools pprof knows it: from one nm symbol to the next. */
struct routine {
	const char *name;      /* nm's name, "mid", or the one text reports give it (code_routines) */
	const char *short_name; /* the name as reports print it: "mid" */
	uint64_t start, end;   /* object addresses, [start, end) */
	uint64_t adjust;       /* profile address = object address + adjust */
	size_t object;         /* which object (internal) */
};

/*
 * The routines --list=RE and --disasm=RE show: those whose name matches re
 * (the name alone, where gperftools pprof appends "<address>") and whose
 * range holds one of the profile addresses addr (ascending, n of them).
 * Routines come from nm's symbols; for an object with dynamic symbols only
 * and a separate debug file, from that file's symbols, named as text
 * reports name their first address (re may match that name or the
 * symbol's).  Objects come in the order of the profile's mappings, then the
 * program at its own addresses (each object and load address once); within
 * one, routines sort by short name, then address.  Returns how many; *out
 * is the caller's to free.
 */
size_t code_routines(struct code *c, const struct regex *re, const uint64_t *addr, size_t n,
		     struct routine **out);

/* One instruction of a routine, with what gperftools pprof knows of it. */
struct code_insn {
	/*
	 * Profile addresses: samples in [addr, end) are its own.  The last
	 * instruction's end is the routine's object address, as in pprof, so
	 * in a relocated object it owns none.
	 */
	uint64_t addr, end;
	uint64_t objaddr;      /* address in its object, as objdump prints it */
	const char *text;
	/*
	 * The location objdump -l printed last when it reached this
	 * instruction, as pprof parses it: locations with a discriminator are
	 * not recognized, so the one before stays.  "" and -1 before any.
	 */
	const char *file;
	int line;
	/* addr2line's outermost frame (the routine's own line): "??" and 0 when unknown. */
	const char *top_file;
	int top_line;
};

/*
 * Disassembles r: its instructions in address order, the last one running
 * to the routine's end (see code_insn.end).  Returns how many (*out is the caller's to free),
 * or -1 with e set when the object cannot be read or decoded.
 */
long code_disassemble(struct code *c, const struct routine *r, enum decode_syntax syntax,
		      struct code_insn **out, struct err *e);
/*
 * code_disassemble for the source lines alone (what --list reads): the
 * same instructions and top_file and top_line, but no text ("") and no
 * objdump location ("" and -1), which are not looked for.
 */
long code_lines(struct code *c, const struct routine *r, struct code_insn **out, struct err *e);

#endif
