/* decode.h - machine code to instruction text, in process, with capstone. */
#ifndef PPROF_DECODE_H
#define PPROF_DECODE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum decode_syntax {
	DECODE_ATT,    /* x86: AT&T, as objdump prints by default */
	DECODE_INTEL,  /* x86: Intel; other architectures have one syntax */
};

/*
 * The symbol objdump would print for a code address, "<name>" or
 * "<name+0x10>": returns the symbol's name and sets *start to its address,
 * or returns NULL.
 */
typedef const char *(*decode_symfn)(void *ctx, uint64_t addr, uint64_t *start);

struct decoder;

/*
 * A decoder for the object described by elf: architecture and mode from
 * its header (e_machine, class, byte order, flags).  NULL with e set
 * ("capstone does not support ELF machine 243") when there is none.  ARM
 * objects decode as ARM, never Thumb: that is chosen per function.  The
 * decoder owns a capstone handle; free it with decoder_free.
 */
struct decoder *decoder_new(Elf *elf, enum decode_syntax syntax, struct err *e);
void decoder_free(struct decoder *d);

struct insn {
	uint64_t addr;      /* object address */
	uint32_t size;      /* bytes */
	/*
	 * What objdump prints after "addr:\t": "mov    %rsp,%rbp",
	 * "call   11d0 <leaf_a>"; "(bad)" for what does not decode.  Room
	 * for long C++ symbol names; longer text is cut.
	 */
	char text[1024];
};

/*
 * Decodes what objdump -d --start-address=addr --stop-address=addr+n
 * shows of a code section: code holds the section's bytes from object
 * address addr on, avail of them (avail >= n; no byte past avail is read,
 * and any bytes are safe).  As in objdump, instructions end by addr+n:
 * one cut by it comes out a byte at a time (x86: "rex.W", ".byte 0x8b");
 * the bytes after addr+n only tell such a cut from bad bytes.
 * Bytes that do not decode are "(bad)" instructions of the smallest
 * instruction size (one byte on x86, with any prefixes before them); an x86
 * instruction capstone 4 does not know (some AVX-512, CET) is measured and
 * shown as "(bad)" too, unless it is one of a few named ones.  Runs of
 * zero bytes are skipped as objdump skips them (8 or more, in multiples of
 * 4 unless they reach addr+n; fewer than 3 at the very end; not after a
 * MIPS or SPARC branch, whose delay slot they are).  objdump cuts its
 * ranges at every symbol, so a caller matching it calls decode once per
 * symbol.  Appends to *v (count *nv, capacity *cap, grown with GROW) and
 * returns the number added.  sym may be NULL; names it returns are copied.
 */
size_t decode(struct decoder *d, const uint8_t *code, size_t avail, size_t n, uint64_t addr,
	      decode_symfn sym, void *ctx, struct insn **v, size_t *nv, size_t *cap);

#endif
