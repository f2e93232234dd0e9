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
 * ("capstone does not support ...") when there is none.
 */
struct decoder *decoder_new(Elf *elf, enum decode_syntax syntax, struct err *e);
void decoder_free(struct decoder *d);

struct insn {
	uint64_t addr;      /* object address */
	uint32_t size;      /* bytes */
	char text[1024];    /* "mnemonic operands", objdump's spacing; "(bad)" */
};

/*
 * Decodes what objdump -d --start-address=addr --stop-address=addr+n
 * shows of a code section: code holds the section's bytes from object
 * address addr on, avail of them (avail >= n).  Instructions start below
 * addr+n; the last one may run past it into the rest of code, as in
 * objdump.  Bytes that do not decode are one-byte "(bad)" instructions, and
 * runs of zero bytes are skipped as objdump skips them (8 or more, in
 * multiples of 4 unless they reach addr+n; fewer than 3 at the very end).
 * Appends to *v (count *nv, capacity *cap, grown with GROW) and returns the
 * number added.  sym may be NULL.
 */
size_t decode(struct decoder *d, const uint8_t *code, size_t avail, size_t n, uint64_t addr,
	      decode_symfn sym, void *ctx, struct insn **v, size_t *nv, size_t *cap);

#endif
