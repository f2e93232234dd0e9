/* decode.h - machine code to capstone's instruction text, in process. */
#ifndef PPROF_DECODE_H
#define PPROF_DECODE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum decode_syntax {
	DECODE_ATT,    /* x86: AT&T */
	DECODE_INTEL,  /* x86: Intel; other architectures have one syntax */
};

/*
 * The symbol that names a code address: returns its name and sets *start
 * to its value (at or below addr), or returns NULL.
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

/*
 * Makes d find where instructions start and end, and no more: their text
 * stays empty ("(bad)" excepted), and capstone makes no details of them
 * where no delay slot needs them.
 */
void decoder_bounds_only(struct decoder *d);

struct insn {
	uint64_t addr;      /* object address */
	uint32_t size;      /* bytes, at least 1 */
	/*
	 * Capstone's mnemonic and operands, "movq %rsp, %rbp"; a direct call
	 * or branch (x86, ARM, AArch64, MIPS, PowerPC, SPARC, SystemZ) adds
	 * its target's symbol, "callq 0x11d0 <leaf_a>", "jne 0x1234
	 * <main+0x34>".  "(bad)" for bytes capstone does not decode.  The
	 * spelling is capstone's, not objdump's.  Longer text is cut.
	 */
	char text[1024];
};

/*
 * Decodes the n bytes at code, the first at object address addr, into
 * instructions that start and end where objdump -d's do; no byte past n is
 * read.  Instructions are capstone's, but for what objdump does not show
 * as one: runs of zero bytes are skipped as objdump skips them (8 or more,
 * in whole words unless they end the range; fewer than 3 at the very end;
 * not in a MIPS or SPARC delay slot), and an x86 fwait before an x87
 * instruction is one instruction with it ("wait; fnstcw ...").  Where
 * capstone decodes nothing, one "(bad)" instruction of the architecture's
 * smallest instruction size (one byte on x86; what is left if less) is
 * taken and decoding goes on after it: there objdump, which knows
 * instructions capstone 4 does not (some AVX-512), can differ.
 * Appends to *v (count *nv, capacity *cap, grown with GROW) and returns
 * the number added.  sym may be NULL; the names it returns are copied.
 */
size_t decode(struct decoder *d, const uint8_t *code, size_t n, uint64_t addr, decode_symfn sym,
	      void *ctx, struct insn **v, size_t *nv, size_t *cap);

#endif
