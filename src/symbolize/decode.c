/* decode.c - machine code to capstone's instruction text, with branch targets named. */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "dynlib.h"
#include "util.h"

/*
 * capstone, opened when the first listing decodes (dynlib.h): linked, its
 * relocations and tables took about 3 ms of every start.  Only the major
 * version these headers describe: capstone's structures change between
 * majors.
 */
static struct {
	__typeof__(cs_open) *open;
	__typeof__(cs_close) *close;
	__typeof__(cs_option) *option;
	__typeof__(cs_strerror) *strerror;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_free) *free;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_insn_group) *insn_group;
} capstone;

static const struct dynsym cs_syms[] = {
	{ "cs_open", (void **)&capstone.open },
	{ "cs_close", (void **)&capstone.close },
	{ "cs_option", (void **)&capstone.option },
	{ "cs_strerror", (void **)&capstone.strerror },
	{ "cs_malloc", (void **)&capstone.malloc },
	{ "cs_free", (void **)&capstone.free },
	{ "cs_disasm_iter", (void **)&capstone.disasm_iter },
	{ "cs_insn_group", (void **)&capstone.insn_group },
	{ NULL, NULL },
};

#define SONAME_OF(major) "libcapstone.so." #major
#define SONAME(major) SONAME_OF(major)
static const char *const cs_names[] = { SONAME(CS_API_MAJOR), NULL };
static struct dynlib libcs = { .names = cs_names, .syms = cs_syms };

struct decoder {
	csh cs;
	cs_insn *insn;
	cs_arch arch;
	unsigned bad_size;  /* bytes that one "(bad)" covers: the smallest instruction */
	bool delay_slots;   /* MIPS, SPARC: the instruction after a branch is its delay slot */
	uint64_t addr_mask; /* branch targets wrap at the address width */
	bool no_text;       /* decoder_bounds_only */
};

/* ---- Architecture from the ELF header ---- */

static void pick_mips(const GElf_Ehdr *eh, cs_mode *mode)
{
	uint32_t arch = eh->e_flags & EF_MIPS_ARCH;
	bool isa64 = eh->e_ident[EI_CLASS] == ELFCLASS64 || (eh->e_flags & EF_MIPS_ABI2) ||
		     arch == EF_MIPS_ARCH_3 || arch == EF_MIPS_ARCH_4 || arch == EF_MIPS_ARCH_5 ||
		     arch == EF_MIPS_ARCH_64 || arch == EF_MIPS_ARCH_64R2 || arch == 0xa0000000;

	*mode = isa64 ? CS_MODE_MIPS64 : CS_MODE_MIPS32;
	/* EF_MIPS_ARCH_32R6 and _64R6, which older elf.h files lack. */
	if (arch == 0x90000000 || arch == 0xa0000000)
		*mode |= CS_MODE_MIPS32R6;
	/* EF_MIPS_ARCH_ASE_MICROMIPS: the whole object is microMIPS. */
	if (eh->e_flags & 0x02000000)
		*mode |= CS_MODE_MICRO;
}

/*
 * Capstone's architecture and mode for the machine in eh; false when
 * capstone 4 has none.  *bad is the smallest instruction size, the step
 * taken over bytes that do not decode.
 */
static bool pick_arch(const GElf_Ehdr *eh, cs_arch *arch, cs_mode *mode, unsigned *bad)
{
	bool big = eh->e_ident[EI_DATA] == ELFDATA2MSB;
	cs_mode endian = big ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;

	*bad = 4;
	switch (eh->e_machine) {
	case EM_X86_64:       /* x32 objects too: 64-bit code, 32-bit pointers */
		*arch = CS_ARCH_X86, *mode = CS_MODE_64, *bad = 1;
		return true;
	case EM_386:
	case EM_IAMCU:
		*arch = CS_ARCH_X86, *mode = CS_MODE_32, *bad = 1;
		return true;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64, *mode = CS_MODE_ARM | endian;
		return true;
	case EM_ARM:
		/*
		 * ARM state only.  Thumb is chosen per function (bit 0 of a
		 * symbol's value, $t mapping symbols), which a decoder for the
		 * whole object cannot see; Thumb code comes out as ARM garbage.
		 */
		*arch = CS_ARCH_ARM, *mode = CS_MODE_ARM | endian;
		return true;
	case EM_MIPS:
	case EM_MIPS_RS3_LE:
		*arch = CS_ARCH_MIPS;
		pick_mips(eh, mode);
		if (*mode & CS_MODE_MICRO)
			*bad = 2;
		*mode |= endian;
		return true;
	case EM_PPC:
		*arch = CS_ARCH_PPC, *mode = CS_MODE_32 | endian;
		return true;
	case EM_PPC64:
		*arch = CS_ARCH_PPC, *mode = CS_MODE_64 | endian;
		return true;
	case EM_SPARC:
		*arch = CS_ARCH_SPARC, *mode = endian;
		return true;
	case EM_SPARC32PLUS:  /* V8+: V9 instructions, 32-bit ABI */
	case EM_SPARCV9:
		*arch = CS_ARCH_SPARC, *mode = CS_MODE_V9 | endian;
		return true;
	case EM_S390:
		*arch = CS_ARCH_SYSZ, *mode = endian, *bad = 2;
		return true;
	case EM_68K:
		*arch = CS_ARCH_M68K, *mode = CS_MODE_M68K_040 | endian, *bad = 2;
		return true;
	case EM_XCORE:
		*arch = CS_ARCH_XCORE, *mode = endian, *bad = 2;
		return true;
	case EM_TI_C6000:
		*arch = CS_ARCH_TMS320C64X, *mode = endian;
		return true;
	/* The 680X family has one byte order and no endianness bit. */
	case EM_68HC05:
		*arch = CS_ARCH_M680X, *mode = CS_MODE_M680X_6805, *bad = 1;
		return true;
	case EM_68HC08:
		*arch = CS_ARCH_M680X, *mode = CS_MODE_M680X_6808, *bad = 1;
		return true;
	case EM_68HC11:
		*arch = CS_ARCH_M680X, *mode = CS_MODE_M680X_6811, *bad = 1;
		return true;
	case EM_68HC12:
		*arch = CS_ARCH_M680X, *mode = CS_MODE_M680X_CPU12, *bad = 1;
		return true;
	}
	return false;
}

struct decoder *decoder_new(Elf *elf, enum decode_syntax syntax, struct err *e)
{
	GElf_Ehdr eh;
	cs_arch arch;
	cs_mode mode;
	unsigned bad;
	cs_err ce;
	struct decoder *d;

	if (!elf || !gelf_getehdr(elf, &eh)) {
		err_set(e, "cannot read the ELF header: %s", elf_errmsg(-1));
		return NULL;
	}
	if (!pick_arch(&eh, &arch, &mode, &bad)) {
		err_set(e, "capstone does not support ELF machine %u", (unsigned)eh.e_machine);
		return NULL;
	}
	if (dynlib_load(&libcs, e) < 0)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	ce = capstone.open(arch, mode, &d->cs);
	if (ce != CS_ERR_OK) {
		err_set(e, "capstone cannot open ELF machine %u (%s): %s", (unsigned)eh.e_machine,
			eh.e_ident[EI_DATA] == ELFDATA2MSB ? "big-endian" : "little-endian",
			capstone.strerror(ce));
		free(d);
		return NULL;
	}
	d->arch = arch;
	d->bad_size = bad;
	d->delay_slots = arch == CS_ARCH_MIPS || arch == CS_ARCH_SPARC;
	/* x32 objects are 32-bit ELF files of 64-bit code. */
	d->addr_mask = UINT32_MAX;
	if (eh.e_ident[EI_CLASS] == ELFCLASS64 || (arch == CS_ARCH_X86 && mode == CS_MODE_64))
		d->addr_mask = UINT64_MAX;
	if (arch == CS_ARCH_X86 && syntax == DECODE_ATT)
		capstone.option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	/* Groups and operands: what tells a direct branch and its target. */
	capstone.option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = capstone.malloc(d->cs);
	return d;
}

void decoder_bounds_only(struct decoder *d)
{
	d->no_text = true;
	if (!d->delay_slots)
		capstone.option(d->cs, CS_OPT_DETAIL, CS_OPT_OFF);
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	if (d->insn)
		capstone.free(d->insn, 1);
	capstone.close(&d->cs);
	free(d);
}

/* ---- Branch targets ---- */

/*
 * Direct calls and branches that capstone 4 puts in no jump, call or
 * relative-branch group.
 */
static const struct {
	cs_arch arch;
	unsigned id;
} ungrouped_branches[] = {
	{ CS_ARCH_MIPS, MIPS_INS_JAL },
	{ CS_ARCH_PPC, PPC_INS_BL },
	{ CS_ARCH_PPC, PPC_INS_BC },
	{ CS_ARCH_PPC, PPC_INS_BCL },
	{ CS_ARCH_SPARC, SPARC_INS_CALL },
	{ CS_ARCH_SYSZ, SYSZ_INS_BRAS },
	{ CS_ARCH_SYSZ, SYSZ_INS_BRASL },
};

static bool is_branch(const struct decoder *d, const cs_insn *in)
{
	if (capstone.insn_group(d->cs, in, CS_GRP_JUMP) ||
	    capstone.insn_group(d->cs, in, CS_GRP_CALL) ||
	    capstone.insn_group(d->cs, in, CS_GRP_BRANCH_RELATIVE))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(ungrouped_branches); i++)
		if (ungrouped_branches[i].arch == d->arch && ungrouped_branches[i].id == in->id)
			return true;
	return false;
}

/*
 * The address a direct branch or call goes to: its last operand, an
 * immediate that capstone has already made absolute.  False for other
 * instructions, indirect branches, x86 far jumps (segment and offset) and
 * architectures whose operands are not looked at.
 */
static bool branch_target(const struct decoder *d, const cs_insn *in, uint64_t *target)
{
	const cs_detail *x = in->detail;
	int64_t imm;

	if (!x || !is_branch(d, in))
		return false;
#define LAST_IMM(ops, n, IMM)                                               \
	do {                                                                \
		if (!(n) || (ops)[(n) - 1].type != (IMM))                   \
			return false;                                       \
		imm = (ops)[(n) - 1].imm;                                   \
	} while (0)
	switch (d->arch) {
	case CS_ARCH_X86:
		if (x->x86.op_count != 1)
			return false;
		LAST_IMM(x->x86.operands, x->x86.op_count, X86_OP_IMM);
		break;
	case CS_ARCH_ARM:
		LAST_IMM(x->arm.operands, x->arm.op_count, ARM_OP_IMM);
		break;
	case CS_ARCH_ARM64:
		LAST_IMM(x->arm64.operands, x->arm64.op_count, ARM64_OP_IMM);
		break;
	case CS_ARCH_MIPS:
		LAST_IMM(x->mips.operands, x->mips.op_count, MIPS_OP_IMM);
		break;
	case CS_ARCH_PPC:
		LAST_IMM(x->ppc.operands, x->ppc.op_count, PPC_OP_IMM);
		break;
	case CS_ARCH_SPARC:
		LAST_IMM(x->sparc.operands, x->sparc.op_count, SPARC_OP_IMM);
		break;
	case CS_ARCH_SYSZ:
		LAST_IMM(x->sysz.operands, x->sysz.op_count, SYSZ_OP_IMM);
		break;
	default:
		return false;
	}
#undef LAST_IMM
	*target = (uint64_t)imm & d->addr_mask;
	return true;
}

/* ---- Decoding ---- */

/* Capstone's text, and " <name>" or " <name+0x10>" after a direct branch. */
static void format_insn(const struct decoder *d, const cs_insn *in, decode_symfn sym, void *ctx,
			char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
	uint64_t target, start = 0;
	const char *name;

	if (n < 0 || (size_t)n >= size || !sym || !branch_target(d, in, &target))
		return;
	name = sym(ctx, target, &start);
	if (!name)
		return;
	if (target == start)
		snprintf(buf + n, size - n, " <%s>", name);
	else if (target > start)
		snprintf(buf + n, size - n, " <%s+0x%" PRIx64 ">", name, target - start);
}

/*
 * objdump takes an x86 fwait right before an x87 instruction for a prefix
 * of it (fwait fnstcw is its fstcw), so its listing, and gperftools
 * pprof's, has one instruction where capstone has two.  Compiled code has
 * them (libm), so they are made one here, "wait; fnstcw 2(%rsp)", for the
 * addresses to be objdump's.  in is the wait at code, n bytes left.
 */
static void join_fwait(struct decoder *d, const uint8_t *code, size_t n, uint64_t addr,
		       decode_symfn sym, void *ctx, struct insn *in)
{
	const uint8_t *p = code + 1;
	size_t left = n - 1, len = strlen(in->text);
	uint64_t a = addr + 1;

	if (d->arch != CS_ARCH_X86 || code[0] != 0x9b || in->size != 1 || n < 2 ||
	    code[1] < 0xd8 || code[1] > 0xdf || len + 2 >= sizeof(in->text) ||
	    !capstone.disasm_iter(d->cs, &p, &left, &a, d->insn))
		return;
	if (!d->no_text) {
		memcpy(in->text + len, "; ", 3);
		format_insn(d, d->insn, sym, ctx, in->text + len + 2, sizeof(in->text) - len - 2);
	}
	in->size += d->insn->size;
}

/*
 * How many zero bytes to skip at code (n bytes left).  objdump -d shows
 * "..." for a run of at least 8 and drops fewer than 3 that end the range
 * (binutils objdump.c, disassemble_bytes).  Compiled code is padded with
 * zeros (libLLVM), and objdump's listing, so gperftools pprof's, has no
 * instructions there: neither has ours.  A MIPS or SPARC branch's delay
 * slot is an instruction even when it is zeros.
 */
static size_t zeros_skipped(const uint8_t *code, size_t n, bool delay_slot)
{
	size_t z = 0;

	while (z < n && !code[z])
		z++;
	if (delay_slot || (z < 8 && !(z == n && z < 3)))
		return 0;
	/* Whole words only, unless the run ends the range. */
	return z == n ? z : z & ~(size_t)3;
}

size_t decode(struct decoder *d, const uint8_t *code, size_t n, uint64_t addr, decode_symfn sym,
	      void *ctx, struct insn **v, size_t *nv, size_t *cap)
{
	size_t added = 0, z;
	bool delay_slot = false;

	while (n) {
		const uint8_t *p = code;
		size_t left = n;
		uint64_t a = addr;
		struct insn *in;

		if ((z = zeros_skipped(code, n, delay_slot))) {
			code += z, addr += z, n -= z;
			continue;
		}
		GROW(*v, *cap, *nv + 1);
		in = &(*v)[(*nv)++];
		in->addr = addr;
		if (capstone.disasm_iter(d->cs, &p, &left, &a, d->insn)) {
			in->size = d->insn->size;
			in->text[0] = 0;
			if (!d->no_text)
				format_insn(d, d->insn, sym, ctx, in->text, sizeof(in->text));
			join_fwait(d, code, n, addr, sym, ctx, in);
			delay_slot = d->delay_slots && is_branch(d, d->insn);
		} else {
			in->size = d->bad_size < n ? d->bad_size : (uint32_t)n;
			snprintf(in->text, sizeof(in->text), "(bad)");
			delay_slot = false;
		}
		code += in->size;
		addr += in->size;
		n -= in->size;
		added++;
	}
	return added;
}
