/* decode.c - machine code to instruction text as objdump -d prints it, with capstone. */
#include <capstone/capstone.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "util.h"

/*
 * objdump -d prints "\t..." instead of a run of zero bytes at least this
 * long (binutils objdump.c, disassemble_bytes), and drops a shorter run
 * that ends the range being disassembled.
 */
#define SKIP_ZEROES 8
#define SKIP_ZEROES_AT_END 3

struct decoder {
	csh cs;
	cs_insn *insn;
	cs_arch arch;
	bool x86_64;       /* x86 in 64-bit mode */
	bool intel;        /* x86 Intel syntax */
	bool delay_slots;  /* MIPS, SPARC: zeros after a branch are its delay slot */
	unsigned bad_size; /* bytes that one "(bad)" covers: the smallest instruction */
	uint64_t addr_mask; /* branch targets wrap at the address width */
};

/* Text under construction in a fixed buffer; what does not fit is cut off. */
struct out {
	char *buf;
	size_t size, len;
};

static void out_init(struct out *o, char *buf, size_t size)
{
	o->buf = buf;
	o->size = size;
	o->len = 0;
	buf[0] = '\0';
}

static void __attribute__((format(printf, 2, 3))) out_fmt(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + n < o->size ? o->len + n : o->size - 1;
}

static void out_str(struct out *o, const char *s)
{
	out_fmt(o, "%s", s);
}

/* objdump pads the mnemonic (prefixes included) to 6 columns, then a space. */
static void out_mnemonic(struct out *o, const char *m, bool operands)
{
	if (operands)
		out_fmt(o, "%-6s ", m);
	else
		out_str(o, m);
}

/* " <name>", " <name+0x10>" as objdump annotates an address, or nothing. */
static void out_symbol(struct out *o, uint64_t addr, decode_symfn sym, void *ctx)
{
	uint64_t start = 0;
	const char *name = sym ? sym(ctx, addr, &start) : NULL;

	if (!name)
		return;
	if (addr == start)
		out_fmt(o, " <%s>", name);
	else if (addr > start)
		out_fmt(o, " <%s+0x%" PRIx64 ">", name, addr - start);
	else
		out_fmt(o, " <%s-0x%" PRIx64 ">", name, start - addr);
}

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
	d = xcalloc(1, sizeof(*d));
	ce = cs_open(arch, mode, &d->cs);
	if (ce != CS_ERR_OK) {
		err_set(e, "capstone cannot open ELF machine %u (%s): %s", (unsigned)eh.e_machine,
			eh.e_ident[EI_DATA] == ELFDATA2MSB ? "big-endian" : "little-endian",
			cs_strerror(ce));
		free(d);
		return NULL;
	}
	d->arch = arch;
	d->x86_64 = arch == CS_ARCH_X86 && mode == CS_MODE_64;
	d->intel = arch == CS_ARCH_X86 && syntax == DECODE_INTEL;
	d->delay_slots = arch == CS_ARCH_MIPS || arch == CS_ARCH_SPARC;
	d->bad_size = bad;
	d->addr_mask = eh.e_ident[EI_CLASS] == ELFCLASS64 || d->x86_64 ? UINT64_MAX : UINT32_MAX;
	if (arch == CS_ARCH_X86 && !d->intel)
		cs_option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	/* Operands, prefixes and encoding offsets for x86; groups for delay slots. */
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	if (d->insn)
		cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

/* ---- x86: capstone's text reworked into objdump's ---- */

/*
 * One operand as capstone printed it, taken apart.  AT&T and Intel text
 * parse into the same fields; the printers then follow objdump.
 */
enum xop_kind { XOP_REG, XOP_IMM, XOP_MEM };

struct xop {
	enum xop_kind kind;
	bool indirect;          /* AT&T "*" before a call/jmp operand */
	char reg[16];           /* XOP_REG: name without "%" */
	char deco[32];          /* AVX-512 "{%k1}{z}" */
	char size[16];          /* Intel "DWORD PTR" as capstone printed it, upper case */
	char seg[4], base[8], index[8];
	int scale;              /* 0 when there is no index */
	uint64_t val;           /* XOP_IMM value or XOP_MEM displacement */
};

/* What the printers need to know about the instruction beyond its operands. */
struct x86 {
	const struct decoder *d;
	const cs_insn *in;
	const cs_x86 *x;
	const char *name;       /* capstone's name for it, Intel style: "mov" */
	char mnem[32];          /* capstone's mnemonic without prefix words */
	struct xop op[8];
	int nop;
	/* From the raw bytes. */
	int npfx;               /* legacy and REX prefix bytes */
	uint8_t rex;            /* REX right before the opcode, or 0 */
	int opc;                /* first opcode byte of the one-byte map, or -1 */
	bool map0f;             /* legacy 0F, 0F38, 0F3A maps */
	bool vex;               /* VEX, EVEX or XOP encoded */
	unsigned addr_bits;     /* 16, 32 or 64 */
	bool string_op;         /* movs, cmps, stos, lods, scas, ins, outs */
	bool has_mem;           /* an explicit memory operand */
};

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
		return true;
	}
	return false;
}

static bool is_rex(const struct decoder *d, uint8_t b)
{
	return d->x86_64 && (b & 0xf0) == 0x40;
}

/* Parses "-0x10", "8", "0xfffffffffffffff8" as capstone prints numbers. */
static uint64_t parse_num(const char **sp)
{
	const char *s = *sp;
	bool neg = *s == '-';
	char *end;
	uint64_t v;

	if (neg)
		s++;
	v = strtoull(s, &end, 0);
	*sp = end;
	return neg ? -v : v;
}

static void copy_word(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/*
 * Moves AVX-512 decorations (" {%k1} {z}") from the end of t into o->deco,
 * without the spaces objdump does not print.
 */
static void take_deco(char *t, struct xop *o)
{
	char *p = strstr(t, " {");
	size_t n = 0;

	if (!p)
		return;
	for (char *s = p; *s; s++)
		if (*s != ' ' && n + 1 < sizeof(o->deco))
			o->deco[n++] = *s;
	o->deco[n] = '\0';
	*p = '\0';
}

/* "%fs:-0x10(%rax, %rbx, 8)", "0x10(, %rax, 8)", "0x601040". */
static void att_parse_mem(const char *t, struct xop *o)
{
	const char *colon = strchr(t, ':');

	o->kind = XOP_MEM;
	if (*t == '%' && colon) {
		copy_word(o->seg, sizeof(o->seg), t + 1, colon - t - 1);
		t = colon + 1;
	}
	if (*t != '(' && *t)
		o->val = parse_num(&t);
	if (*t != '(')
		return;
	t++;
	for (int field = 0; *t && *t != ')'; field++) {
		size_t n;

		while (*t == ' ')
			t++;
		n = strcspn(t, ",)");
		while (n && t[n - 1] == ' ')
			n--;
		if (field == 0 && n)
			copy_word(o->base, sizeof(o->base), t + (*t == '%'), n - (*t == '%'));
		else if (field == 1 && n)
			copy_word(o->index, sizeof(o->index), t + (*t == '%'), n - (*t == '%'));
		else if (field == 2)
			o->scale = atoi(t);
		t += strcspn(t, ",)");
		if (*t == ',')
			t++;
	}
	if (o->index[0] && !o->scale)
		o->scale = 1;
}

static void att_parse(char *t, struct xop *o)
{
	if (*t == '*') {
		o->indirect = true;
		t++;
	}
	take_deco(t, o);
	if (*t == '$') {
		const char *s = t + 1;

		o->kind = XOP_IMM;
		o->val = parse_num(&s);
	} else if (*t == '%' && !strchr(t, ':')) {
		o->kind = XOP_REG;
		copy_word(o->reg, sizeof(o->reg), t + 1, strlen(t + 1));
	} else {
		att_parse_mem(t, o);
	}
}

/* "rax + rbx*8 - 0x10" between Intel brackets. */
static void intel_parse_terms(const char *t, struct xop *o)
{
	bool neg = false;

	while (*t && *t != ']') {
		if (*t == ' ' || *t == '+') {
			t++;
			continue;
		}
		if (*t == '-') {
			neg = true;
			t++;
			continue;
		}
		if (isdigit((unsigned char)*t)) {
			uint64_t v = parse_num(&t);

			o->val += neg ? -v : v;
		} else {
			size_t n = strcspn(t, " *+-]");

			if (!n) {
				t++;    /* nothing capstone writes; just go on */
				continue;
			}
			if (t[n] == '*') {
				copy_word(o->index, sizeof(o->index), t, n);
				t += n + 1;
				o->scale = (int)parse_num(&t);
				continue;
			}
			if (!o->base[0])
				copy_word(o->base, sizeof(o->base), t, n);
			else
				copy_word(o->index, sizeof(o->index), t, n);
			t += n;
		}
		neg = false;
	}
	if (o->index[0] && !o->scale)
		o->scale = 1;
}

static void intel_parse(char *t, struct xop *o)
{
	char *ptr = strstr(t, " ptr ");
	char *bracket;

	take_deco(t, o);
	if (ptr) {
		size_t n = 0;

		for (char *s = t; s < ptr + 4 && n + 1 < sizeof(o->size); s++)
			o->size[n++] = (char)toupper((unsigned char)*s);
		o->size[n] = '\0';
		/* Capstone's name for the 80-bit x87 operand. */
		if (!strcmp(o->size, "XWORD PTR"))
			strcpy(o->size, "TBYTE PTR");
		t = ptr + 5;
	}
	bracket = strchr(t, '[');
	if (bracket || ptr) {
		char *colon = strchr(t, ':');

		o->kind = XOP_MEM;
		if (colon && (!bracket || colon < bracket)) {
			copy_word(o->seg, sizeof(o->seg), t, colon - t);
			t = colon + 1;
		}
		if (bracket)
			intel_parse_terms(bracket + 1, o);
		else
			o->val = parse_num((const char **)&t);
		return;
	}
	if (isdigit((unsigned char)*t) || *t == '-') {
		const char *s = t;

		o->kind = XOP_IMM;
		o->val = parse_num(&s);
		return;
	}
	o->kind = XOP_REG;
	copy_word(o->reg, sizeof(o->reg), t, strlen(t));
}

/* Splits capstone's operand text at the commas outside brackets. */
static void x86_parse_operands(struct x86 *f, const char *op_str)
{
	char buf[160];
	char *t = buf;
	int depth = 0;

	copy_word(buf, sizeof(buf), op_str, strlen(op_str));
	f->nop = 0;
	if (!buf[0])
		return;
	for (char *s = buf;; s++) {
		if (*s == '(' || *s == '[')
			depth++;
		else if (*s == ')' || *s == ']')
			depth--;
		else if ((*s == ',' && depth == 0) || !*s) {
			bool end = !*s;

			*s = '\0';
			while (*t == ' ')
				t++;
			if (f->nop < (int)ARRAY_SIZE(f->op)) {
				struct xop *o = &f->op[f->nop++];

				memset(o, 0, sizeof(*o));
				if (f->d->intel)
					intel_parse(t, o);
				else
					att_parse(t, o);
			}
			if (end)
				break;
			t = s + 1;
		}
	}
}

/*
 * Whether p starts a VEX, EVEX or XOP prefix rather than les, lds, bound
 * or pop, which share its first byte outside 64-bit mode.
 */
static bool is_vex(const struct decoder *d, const uint8_t *p, size_t n)
{
	if (n < 2 || (p[0] != 0xc4 && p[0] != 0xc5 && p[0] != 0x62 && p[0] != 0x8f))
		return false;
	if (p[0] == 0x8f)
		return (p[1] & 0x1f) >= 8;
	return d->x86_64 || (p[1] & 0xc0) == 0xc0;
}

/* The prefix bytes, the opcode map and the opcode, from the raw bytes. */
static void x86_scan_bytes(struct x86 *f)
{
	const uint8_t *b = f->in->bytes;
	int n = f->in->size, i = 0;
	bool addr_pfx = false;

	while (i < n && (is_legacy_prefix(b[i]) || is_rex(f->d, b[i]))) {
		addr_pfx |= b[i] == 0x67;
		i++;
	}
	f->npfx = i;
	f->rex = i > 0 && is_rex(f->d, b[i - 1]) ? b[i - 1] : 0;
	f->opc = -1;
	if (i < n) {
		if (b[i] == 0x0f)
			f->map0f = true;
		else if (is_vex(f->d, b + i, n - i))
			f->vex = true;
		else
			f->opc = b[i];
	}
	if (f->d->x86_64)
		f->addr_bits = addr_pfx ? 32 : 64;
	else
		f->addr_bits = addr_pfx ? 16 : 32;
	f->string_op = (f->opc >= 0xa4 && f->opc <= 0xa7) || (f->opc >= 0xaa && f->opc <= 0xaf) ||
		       (f->opc >= 0x6c && f->opc <= 0x6f);
}

static bool reg_is_gpr_or_seg(const char *r)
{
	static const char *const names[] = {
		"al", "cl", "dl", "bl", "ah", "ch", "dh", "bh", "spl", "bpl", "sil", "dil",
		"ax", "cx", "dx", "bx", "sp", "bp", "si", "di",
		"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"cs", "ds", "es", "fs", "gs", "ss",
	};

	if (r[0] == 'r' && isdigit((unsigned char)r[1]))
		return true;    /* r8 ... r15, r8d, r8w, r8b */
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(r, names[i]))
			return true;
	return false;
}

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

static const char *const shifts[] = {
	"shl", "shr", "sal", "sar", "rol", "ror", "rcl", "rcr", NULL
};
static const char *const stack_branch[] = {
	"push", "pop", "call", "jmp", "ret", "lcall", "ljmp", NULL
};

/*
 * Whether objdump keeps the size suffix of an AT&T mnemonic: only when no
 * operand says the size, i.e. there is a memory operand and no general or
 * segment register (a shift count in %cl and the port in %dx say nothing
 * about it).  push, pop, call and jmp default to the stack width and never
 * show one.
 */
static bool att_keeps_suffix(const struct x86 *f)
{
	if (!f->has_mem || name_in(f->name, stack_branch))
		return false;
	for (int i = 0; i < f->nop; i++) {
		const struct xop *o = &f->op[i];

		if (o->kind != XOP_REG || !reg_is_gpr_or_seg(o->reg))
			continue;
		if (!strcmp(o->reg, "cl") && name_in(f->name, shifts))
			continue;
		if (!strcmp(o->reg, "dx") && (f->opc == 0x6c || f->opc == 0x6d ||
					      f->opc == 0x6e || f->opc == 0x6f))
			continue;
		return false;
	}
	return true;
}

/* Capstone mnemonics that objdump spells differently in both syntaxes. */
static const char *const renamed[][2] = {
	{ "wait", "fwait" },
	{ "pushfq", "pushf" }, { "popfq", "popf" },
	{ "pushfl", "pushf" }, { "popfl", "popf" },
	{ "pushal", "pusha" }, { "popal", "popa" },
	{ "iretl", "iret" }, { "iretd", "iret" },
	{ "lretl", "lret" },
};

/* The base mnemonic objdump prints, before prefixes and branch hints. */
static void x86_mnemonic(struct x86 *f, char *m, size_t size)
{
	size_t ml = strlen(f->mnem), nl = strlen(f->name);

	copy_word(m, size, f->mnem, ml);
	for (size_t i = 0; i < ARRAY_SIZE(renamed); i++)
		if (!strcmp(m, renamed[i][0]))
			copy_word(m, size, renamed[i][1], strlen(renamed[i][1]));
	/* 66 REX.W 0F 6E/7E: capstone says movd with a 64-bit register. */
	if ((!strcmp(f->name, "movq") || !strcmp(f->name, "vmovq")) &&
	    (!strcmp(m, "movd") || !strcmp(m, "vmovd")))
		copy_word(m, size, f->name, nl);
	if (f->string_op) {
		/* Intel: the operands show the size; AT&T: a register does for stos, lods, scas. */
		bool reg = f->opc >= 0xaa && f->opc != 0xa6 && f->opc != 0xa7;

		if ((f->d->intel || reg) && ml > 1)
			m[ml - 1] = '\0';
		return;
	}
	/* Intel far call and jmp: objdump says call, jmp with an FWORD operand. */
	if (f->d->intel && (!strcmp(m, "lcall") || !strcmp(m, "ljmp")))
		memmove(m, m + 1, strlen(m));
	/* objdump calls the /6 alias of shl (capstone's sal) shl too. */
	if (!strncmp(m, "sal", 3))
		m[1] = 'h';
	if (f->d->intel)
		return;
	if (ml == nl + 1 && !strncmp(f->mnem, f->name, nl) && strchr("bwlq", m[nl]) &&
	    !att_keeps_suffix(f))
		m[nl] = '\0';
}

/* ---- x86 prefixes ---- */

static bool x86_is_jcc(const struct x86 *f)
{
	const uint8_t *b = f->in->bytes + f->npfx;

	return (f->opc >= 0x70 && f->opc <= 0x7f) ||
	       (f->map0f && f->npfx + 1 < f->in->size && b[1] >= 0x80 && b[1] <= 0x8f);
}

static bool x86_is_near_branch(const struct x86 *f)
{
	const uint8_t *b = f->in->bytes + f->npfx;
	int reg = f->npfx + 1 < f->in->size ? (b[1] >> 3) & 7 : 0;

	return x86_is_jcc(f) || f->opc == 0xe8 || f->opc == 0xe9 || f->opc == 0xeb ||
	       f->opc == 0xc2 || f->opc == 0xc3 || (f->opc == 0xff && (reg == 2 || reg == 4));
}

static bool x86_is_indirect_branch(const struct x86 *f)
{
	const uint8_t *b = f->in->bytes + f->npfx;
	int reg = f->npfx + 1 < f->in->size ? (b[1] >> 3) & 7 : 0;

	return f->opc == 0xff && (reg == 2 || reg == 4);
}

/* The name objdump gives a prefix byte it shows apart from the mnemonic. */
static void rex_name(uint8_t rex, char *buf, size_t size)
{
	snprintf(buf, size, "rex%s%s%s%s%s", rex & 0xf ? "." : "", rex & 8 ? "W" : "",
		 rex & 4 ? "R" : "", rex & 2 ? "X" : "", rex & 1 ? "B" : "");
}

static const char *seg_name(uint8_t b)
{
	switch (b) {
	case 0x26: return "es";
	case 0x2e: return "cs";
	case 0x36: return "ss";
	case 0x3e: return "ds";
	case 0x64: return "fs";
	case 0x65: return "gs";
	}
	return NULL;
}

/*
 * The number a register has in an encoding (r9d and xmm9 are 9), or -1
 * for those no REX bit extends.  *bytes is 1 for byte registers, 8 for
 * 64-bit general ones, else 0.
 */
static int reg_number(const char *r, int *bytes)
{
	static const char *const low[] = { "ax", "cx", "dx", "bx", "sp", "bp", "si", "di" };
	size_t len = strlen(r);

	*bytes = 0;
	if (r[0] == 'r' && isdigit((unsigned char)r[1])) {
		char last = r[len - 1];

		*bytes = last == 'b' ? 1 : isdigit((unsigned char)last) ? 8 : 0;
		return atoi(r + 1);
	}
	if (!strncmp(r, "xmm", 3) || !strncmp(r, "ymm", 3) || !strncmp(r, "zmm", 3))
		return atoi(r + 3);
	if ((!strncmp(r, "cr", 2) || !strncmp(r, "dr", 2)) && isdigit((unsigned char)r[2]))
		return atoi(r + 2);
	for (int i = 0; i < 8; i++) {
		const char *n = low[i];

		if (!strcmp(r, n) || (r[0] == 'e' && !strcmp(r + 1, n)))
			return i;
		if (r[0] == 'r' && !strcmp(r + 1, n)) {
			*bytes = 8;
			return i;
		}
		if (len == 3 && r[2] == 'l' && !strncmp(r, n, 2) && i >= 4) {
			*bytes = 1;    /* spl, bpl, sil, dil */
			return i;
		}
	}
	if (len == 2 && r[1] == 'l' && strchr("acdb", r[0]))
		*bytes = 1;
	return -1;
}

/*
 * Whether a register operand has number n (-1: any of r8 and up), and
 * whether there are byte and 64-bit ones.
 */
static bool x86_has_reg(const struct x86 *f, int n, bool *byte, bool *quad)
{
	bool found = false;

	for (int i = 0; i < f->nop; i++) {
		int bytes, k;

		if (f->op[i].kind != XOP_REG)
			continue;
		k = reg_number(f->op[i].reg, &bytes);
		*byte |= bytes == 1;
		*quad |= bytes == 8;
		found |= n < 0 ? k >= 8 : k == n;
	}
	return found;
}

static bool mem_reg_high(const struct x86 *f, bool index)
{
	for (int i = 0; i < f->nop; i++) {
		int bytes;
		const char *r = index ? f->op[i].index : f->op[i].base;

		if (f->op[i].kind == XOP_MEM && r[0] && reg_number(r, &bytes) >= 8)
			return true;
	}
	return false;
}

/*
 * Whether objdump shows the REX prefix as a word of its own: it does when
 * the instruction leaves one of its bits unused (binutils i386-dis.c marks
 * each bit as operands consume it), or a bare 0x40 has no byte register
 * to select.  Approximated from the operands capstone shows.
 */
static bool x86_rex_unused(const struct x86 *f)
{
	uint8_t rex = f->rex, used = 0, modrm = f->x->modrm;
	bool has_modrm = f->x->encoding.modrm_offset != 0, byte = false, quad = false;

	if (!rex)
		return false;
	x86_has_reg(f, -1, &byte, &quad);
	if (rex & 8 && !name_in(f->name, stack_branch) && !x86_is_jcc(f)) {
		bool wide = f->nop == 0 || quad || !strcmp(f->name, "cmpxchg16b") ||
			    (strlen(f->name) > 2 && !strcmp(f->name + strlen(f->name) - 2, "64"));

		for (int i = 0; i < f->x->op_count && !wide; i++)
			wide = f->x->operands[i].size == 8 && f->x->operands[i].type != X86_OP_REG;
		used |= wide ? 8 : 0;
	}
	if (rex & 4 && has_modrm && x86_has_reg(f, 8 + ((modrm >> 3) & 7), &byte, &quad))
		used |= 4;
	if (rex & 2 && mem_reg_high(f, true))
		used |= 2;
	if (rex & 1) {
		if (has_modrm && modrm >> 6 == 3)
			used |= x86_has_reg(f, 8 + (modrm & 7), &byte, &quad) ? 1 : 0;
		else if (has_modrm)
			used |= mem_reg_high(f, false) ? 1 : 0;
		else
			used |= x86_has_reg(f, -1, &byte, &quad) ? 1 : 0;
	}
	if ((rex & 0xf) & ~used)
		return true;
	return !used && !byte;
}

/* Whether every operand is a byte: an operand-size prefix changes nothing. */
static bool x86_bytes_only(const struct x86 *f)
{
	for (int i = 0; i < f->x->op_count; i++)
		if (f->x->operands[i].size != 1)
			return false;
	return f->x->op_count > 0;
}

/* f3/f2 when the instruction takes it as rep or a branch hint, else NULL. */
static const char *rep_word(const struct x86 *f, uint8_t b)
{
	bool f3 = b == 0xf3;

	if (f->string_op) {
		bool compares = f->opc == 0xa6 || f->opc == 0xa7 || f->opc == 0xae || f->opc == 0xaf;

		return f3 ? (compares ? "repz" : "rep") : "repnz";
	}
	if (x86_is_near_branch(f))
		return f3 ? "repz" : "bnd";
	/* Mandatory prefix of an SSE-style instruction, or pause (f3 90). */
	if (f->map0f || f->vex || !strcmp(f->name, "pause"))
		return NULL;
	return f3 ? "repz" : "repnz";
}

/*
 * The words objdump prints before the mnemonic for prefix bytes the
 * instruction does not consume: "lock", "rep", "data16", "cs", "rex.W",
 * ... in the order of the bytes.  AT&T shows cs/ds on a conditional jump
 * as a hint after the mnemonic instead (*hint).
 */
static void x86_prefix_words(const struct x86 *f, struct out *o, const char **hint)
{
	const uint8_t *b = f->in->bytes;
	int last66 = -1, lastrep = -1, lastseg = -1;
	char rex[16];

	*hint = NULL;
	for (int i = 0; i < f->npfx; i++) {
		if (b[i] == 0x66)
			last66 = i;
		else if (b[i] == 0xf2 || b[i] == 0xf3)
			lastrep = i;
		else if (seg_name(b[i]))
			lastseg = i;
	}
	for (int i = 0; i < f->npfx; i++) {
		const char *w = NULL;

		if (b[i] == 0xf0) {
			w = "lock";
		} else if (b[i] == 0xf2 || b[i] == 0xf3) {
			w = i == lastrep ? rep_word(f, b[i]) : b[i] == 0xf3 ? "repz" : "repnz";
		} else if (b[i] == 0x66) {
			/*
			 * Extra copies do nothing; nor does the last one when
			 * REX.W sets the size of a one-byte opcode or the
			 * operands are bytes.
			 */
			if (i != last66 || (f->opc >= 0 && (f->rex & 8 || x86_bytes_only(f))))
				w = "data16";
		} else if (b[i] == 0x67) {
			if (!f->has_mem && !f->string_op && f->opc != 0xe3 &&
			    !(f->opc >= 0xe0 && f->opc <= 0xe2))
				w = f->d->x86_64 ? "addr32" : "addr16";
		} else if (seg_name(b[i])) {
			bool used = f->has_mem && (b[i] == 0x64 || b[i] == 0x65 || !f->d->x86_64);

			if (i != lastseg || !used) {
				w = seg_name(b[i]);
				if (i == lastseg && b[i] == 0x3e && x86_is_indirect_branch(f))
					w = "notrack";
				else if (i == lastseg && x86_is_jcc(f) && !f->d->intel &&
					 (b[i] == 0x2e || b[i] == 0x3e)) {
					*hint = b[i] == 0x2e ? ",pn" : ",pt";
					w = NULL;
				}
			}
		} else if (is_rex(f->d, b[i])) {
			if (i != f->npfx - 1 || x86_rex_unused(f)) {
				rex_name(b[i], rex, sizeof(rex));
				w = rex;
			}
		}
		if (w)
			out_fmt(o, "%s ", w);
	}
}

/* ---- x86 operands ---- */

/* jmp, call, jcc, loop to an address in the instruction: one operand. */
static bool x86_direct_branch(const struct x86 *f)
{
	return f->nop == 1 && (cs_insn_group(f->d->cs, f->in, X86_GRP_JUMP) ||
			       cs_insn_group(f->d->cs, f->in, X86_GRP_CALL) ||
			       cs_insn_group(f->d->cs, f->in, X86_GRP_BRANCH_RELATIVE));
}

/*
 * A number that capstone's AT&T text gives as a branch target, which
 * parses like an absolute memory operand.
 */
static bool is_bare_number(const struct xop *op)
{
	return op->kind == XOP_MEM && !op->base[0] && !op->index[0] && !op->seg[0] &&
	       !op->size[0] && !op->indirect;
}

static uint64_t mask_bytes(uint64_t v, unsigned bytes)
{
	return bytes && bytes < 8 ? v & ((1ULL << (8 * bytes)) - 1) : v;
}

/* The n-th operand of the given type in capstone's detail, or NULL. */
static const cs_x86_op *detail_op(const struct x86 *f, x86_op_type type, int n)
{
	for (int i = 0; i < f->x->op_count; i++)
		if (f->x->operands[i].type == type && n-- == 0)
			return &f->x->operands[i];
	return NULL;
}

/*
 * An immediate as objdump shows it: hex, truncated to the operand size, so
 * that a sign-extended -1 reads 0xffffffff for a 32-bit operation.
 */
static void put_imm(const struct x86 *f, struct out *o, const struct xop *op, int nth)
{
	const cs_x86_op *dop = detail_op(f, X86_OP_IMM, nth);
	uint64_t v = dop ? (uint64_t)dop->imm : op->val;
	unsigned size = dop ? dop->size : 0;

	/* enter's frame size and nesting level are unsigned, 16 and 8 bits. */
	if (f->opc == 0xc8)
		size = nth ? 1 : 2;

	out_fmt(o, "%s0x%" PRIx64, f->d->intel ? "" : "$", mask_bytes(v, size));
}

static void put_target(const struct x86 *f, struct out *o, uint64_t target, decode_symfn sym,
		       void *ctx)
{
	target &= f->d->addr_mask;
	out_fmt(o, "%" PRIx64, target);
	out_symbol(o, target, sym, ctx);
}

/* Facts about the encoded memory operand that capstone's text leaves out. */
struct memform {
	bool disp;        /* a displacement is encoded: objdump prints 0x0 too */
	bool riz;         /* SIB without index that objdump shows as %riz/%eiz */
	int riz_scale;
};

static struct memform x86_memform(const struct x86 *f, const struct xop *op)
{
	struct memform m = { 0 };
	uint8_t modrm = f->x->modrm, sib = f->x->sib;
	int mod = modrm >> 6;

	/* An absolute address is all displacement. */
	m.disp = (!op->base[0] && !op->index[0]) || f->x->encoding.disp_offset != 0;
	if (f->string_op || !f->x->encoding.modrm_offset || f->addr_bits == 16 ||
	    mod == 3 || (modrm & 7) != 4 || op->index[0])
		return m;
	/* A SIB byte without index register (index field 100). */
	if (((sib >> 3) & 7) == 4) {
		bool base = !(mod == 0 && (sib & 7) == 5);
		int scale = sib >> 6;

		if (scale || (base && (sib & 7) != 4) || (!base && f->addr_bits == 32 &&
							   !f->d->x86_64)) {
			m.riz = true;
			m.riz_scale = 1 << scale;
		}
	}
	return m;
}

static bool is_ip(const char *r)
{
	return !strcmp(r, "rip") || !strcmp(r, "eip");
}

/* The segment objdump shows inside a memory operand, or NULL. */
static const char *mem_segment(const struct x86 *f, const struct xop *op)
{
	if (f->string_op) {
		if (!strcmp(op->base + (op->base[0] == 'r' || op->base[0] == 'e'), "di"))
			return "es";
		return op->seg[0] ? op->seg : "ds";
	}
	if (!op->seg[0])
		return NULL;
	/* In 64-bit mode cs, ds, es and ss are shown as prefix words. */
	if (f->d->x86_64 && strcmp(op->seg, "fs") && strcmp(op->seg, "gs"))
		return NULL;
	return op->seg;
}

static void put_disp(struct out *o, uint64_t disp, bool intel_term)
{
	if ((int64_t)disp < 0)
		out_fmt(o, "-0x%" PRIx64, -disp);
	else
		out_fmt(o, "%s0x%" PRIx64, intel_term ? "+" : "", disp);
}

static void att_put_mem(const struct x86 *f, struct out *o, const struct xop *op)
{
	struct memform m = x86_memform(f, op);
	const char *seg = mem_segment(f, op);
	bool regs = op->base[0] || op->index[0] || m.riz;

	if (op->indirect)
		out_str(o, "*");
	if (seg)
		out_fmt(o, "%%%s:", seg);
	if (m.disp && regs)
		put_disp(o, op->val, false);
	else if (m.disp)
		out_fmt(o, "0x%" PRIx64, f->addr_bits == 64 ? op->val : op->val & 0xffffffff);
	if (regs) {
		out_str(o, "(");
		if (op->base[0])
			out_fmt(o, "%%%s", op->base);
		if (op->index[0])
			out_fmt(o, ",%%%s,%d", op->index, op->scale);
		else if (m.riz)
			out_fmt(o, ",%%%s,%d", f->addr_bits == 64 ? "riz" : "eiz", m.riz_scale);
		out_str(o, ")");
	}
	out_str(o, op->deco);
}

/* The size keyword objdump shows where capstone's differs ("" for none). */
static const char *intel_size(const struct x86 *f, const struct xop *op)
{
	static const char *const dword[] = { "comiss", "ucomiss", "vcomiss", "vucomiss", NULL };
	static const char *const qword[] = { "comisd", "ucomisd", "vcomisd", "vucomisd", NULL };
	static const char *const none[] = {
		"fnsave", "fsave", "frstor", "fnstenv", "fstenv", "fldenv", NULL
	};

	if (f->opc >= 0xa0 && f->opc <= 0xa3)
		return "";      /* moffs: an address, no size */
	if (name_in(f->name, dword))
		return "DWORD PTR";
	if (name_in(f->name, qword))
		return "QWORD PTR";
	if (name_in(f->name, none))
		return "";
	if (!strcmp(f->name, "fnstsw") || !strcmp(f->name, "fstsw"))
		return "WORD PTR";
	if ((!strcmp(f->name, "lcall") || !strcmp(f->name, "ljmp")) && !op->size[0])
		return "FWORD PTR";
	return op->size;
}

static void intel_put_mem(const struct x86 *f, struct out *o, const struct xop *in)
{
	struct xop sib_fixed = *in;
	const struct xop *op = &sib_fixed;
	const char *seg = mem_segment(f, op), *size = intel_size(f, op);
	uint8_t modrm = f->x->modrm, sib = f->x->sib;
	struct memform m;
	bool regs;

	/*
	 * A SIB byte with an index but no base: capstone's Intel text shows
	 * the index as a base, objdump as "index*scale".
	 */
	if (f->x->encoding.modrm_offset && f->addr_bits != 16 && modrm >> 6 == 0 &&
	    (modrm & 7) == 4 && (sib & 7) == 5 && in->base[0] && !in->index[0] && !f->string_op) {
		memcpy(sib_fixed.index, in->base, sizeof(sib_fixed.index));
		sib_fixed.base[0] = '\0';
		sib_fixed.scale = 1 << (sib >> 6);
	}
	m = x86_memform(f, op);
	regs = op->base[0] || op->index[0] || m.riz;
	if (size[0])
		out_fmt(o, "%s ", size);
	if (!regs) {
		/* An absolute address; objdump names the default segment. */
		out_fmt(o, "%s:0x%" PRIx64, seg ? seg : "ds",
			f->addr_bits == 64 ? op->val : op->val & 0xffffffff);
		out_str(o, op->deco);
		return;
	}
	if (seg)
		out_fmt(o, "%s:", seg);
	out_str(o, "[");
	if (op->base[0])
		out_str(o, op->base);
	if (op->index[0])
		out_fmt(o, "%s%s*%d", op->base[0] ? "+" : "", op->index, op->scale);
	else if (m.riz)
		out_fmt(o, "%s%s*%d", op->base[0] ? "+" : "", f->addr_bits == 64 ? "riz" : "eiz",
			m.riz_scale);
	/* objdump shows a RIP-relative displacement unsigned in Intel syntax. */
	if (m.disp && is_ip(op->base))
		out_fmt(o, "+0x%" PRIx64, op->val & f->d->addr_mask);
	else if (m.disp)
		put_disp(o, op->val, true);
	out_str(o, "]");
	out_str(o, op->deco);
}

static void put_reg(const struct x86 *f, struct out *o, const struct xop *op)
{
	bool intel = f->d->intel;

	/* The port of in, out, ins and outs is memory-like to objdump's AT&T. */
	if (!intel && !strcmp(op->reg, "dx") && (f->opc == 0xec || f->opc == 0xed ||
						  f->opc == 0xee || f->opc == 0xef ||
						  (f->opc >= 0x6c && f->opc <= 0x6f))) {
		out_str(o, "(%dx)");
		return;
	}
	out_fmt(o, "%s%s", op->indirect ? "*" : "", intel ? "" : "%");
	/* Debug registers are db0-db7 to objdump's AT&T. */
	if (!intel && !strncmp(op->reg, "dr", 2) && isdigit((unsigned char)op->reg[2]))
		out_fmt(o, "db%s%s", op->reg + 2, op->deco);
	else
		out_fmt(o, "%s%s", op->reg, op->deco);
}

/*
 * x87 arithmetic between %st and %st(i): capstone shows one register,
 * objdump both, in an order set by the opcode.  Returns false for the
 * other instructions.
 */
static bool x87_pair(const struct x86 *f, struct out *o)
{
	int reg = (f->x->modrm >> 3) & 7, i = f->x->modrm & 7;
	bool sti_first;        /* AT&T "%st(i),%st" */

	if (f->opc < 0xd8 || f->opc > 0xdf || f->x->modrm >> 6 != 3 ||
	    !f->x->encoding.modrm_offset)
		return false;
	switch (f->opc) {
	case 0xd8:
		if (reg == 2 || reg == 3)
			return false;      /* fcom, fcomp */
		sti_first = true;
		break;
	case 0xdc:
	case 0xde:
		if (reg == 2 || reg == 3)
			return false;      /* fcom, fcomp, fcompp */
		sti_first = false;
		break;
	case 0xda:
		if (reg >= 4)
			return false;      /* fucompp */
		sti_first = true;          /* fcmov */
		break;
	case 0xdb:
		if (reg == 4 || reg == 7)
			return false;
		sti_first = true;          /* fcmovn, fucomi, fcomi */
		break;
	case 0xdf:
		if (reg != 5 && reg != 6)
			return false;
		sti_first = true;          /* fucomip, fcomip */
		break;
	default:
		return false;
	}
	if (f->d->intel)
		out_fmt(o, sti_first ? "st,st(%d)" : "st(%d),st", i);
	else
		out_fmt(o, sti_first ? "%%st(%d),%%st" : "%%st,%%st(%d)", i);
	return true;
}

/*
 * Writes the operands.  Returns whether one is RIP-relative, with the
 * address it refers to in *rip.
 */
static bool x86_put_operands(struct x86 *f, struct out *o, decode_symfn sym, void *ctx,
			     uint64_t *rip)
{
	const cs_x86_op *dop;
	bool branch = x86_direct_branch(f), found = false;
	int nimm = 0, shown = 0;

	if (x87_pair(f, o))
		return false;
	for (int i = 0; i < f->nop; i++) {
		struct xop *op = &f->op[i];

		/* Shifts by one (d0, d1): AT&T shows no count, Intel a plain "1". */
		if (op->kind == XOP_IMM && (f->opc == 0xd0 || f->opc == 0xd1)) {
			if (f->d->intel)
				out_str(o, ",1");
			nimm++;
			continue;
		}
		if (shown++)
			out_str(o, ",");
		switch (op->kind) {
		case XOP_REG:
			put_reg(f, o, op);
			break;
		case XOP_IMM:
			dop = detail_op(f, X86_OP_IMM, nimm);
			if (branch && dop)
				put_target(f, o, (uint64_t)dop->imm, sym, ctx);
			else
				put_imm(f, o, op, nimm);
			nimm++;
			break;
		case XOP_MEM:
			if (branch && is_bare_number(op)) {
				put_target(f, o, op->val, sym, ctx);
				break;
			}
			if (is_ip(op->base)) {
				*rip = f->in->address + f->in->size + op->val;
				found = true;
			}
			if (f->d->intel)
				intel_put_mem(f, o, op);
			else
				att_put_mem(f, o, op);
			break;
		}
	}
	return found;
}

/* Whether some operand is in memory (a direct branch target is not). */
static bool x86_mem_operand(const struct x86 *f)
{
	bool branch = x86_direct_branch(f);

	for (int i = 0; i < f->nop; i++)
		if (f->op[i].kind == XOP_MEM && !(branch && is_bare_number(&f->op[i])))
			return true;
	return false;
}

/*
 * 63 without REX.W: objdump shows movsxd into a 32-bit register; capstone
 * says movslq into the 64-bit one.
 */
static void x86_movsxd32(struct x86 *f, char *m, size_t size)
{
	struct xop *dst;
	char *r;

	copy_word(m, size, "movsxd", 6);
	if (!f->nop)
		return;
	dst = &f->op[f->d->intel ? 0 : f->nop - 1];
	r = dst->reg;
	if (dst->kind != XOP_REG || r[0] != 'r')
		return;
	if (isdigit((unsigned char)r[1]))
		strcat(r, "d");         /* r10 -> r10d */
	else
		r[0] = 'e';             /* rbp -> ebp */
}

/* How x86_format shows what came before capstone's instruction. */
enum x86_flags {
	X86_LOCKED = 1 << 0,    /* after a lock prefix capstone refused */
	X86_FWAIT = 1 << 1,     /* after fwait: fnstcw becomes fstcw */
};

/* The no-wait x87 forms objdump names without the n after an fwait (fstcw). */
static const char *const fn_waiting[] = {
	"fnstcw", "fnstsw", "fnstenv", "fnsave", "fnclex", "fninit", NULL
};

/* xlat: capstone shows no operand, objdump the table in memory. */
static void x86_xlat(const struct x86 *f, struct out *o)
{
	const char *seg = "ds", *reg = f->addr_bits == 64 ? "rbx" : f->addr_bits == 32 ? "ebx" : "bx";

	for (int i = 0; i < f->npfx; i++)
		if (f->in->bytes[i] == 0x64 || f->in->bytes[i] == 0x65 ||
		    (!f->d->x86_64 && seg_name(f->in->bytes[i])))
			seg = seg_name(f->in->bytes[i]);
	if (f->d->intel)
		out_fmt(o, "BYTE PTR %s:[%s]", seg, reg);
	else
		out_fmt(o, "%%%s:(%%%s)", seg, reg);
}

static void x86_format(const struct decoder *d, const cs_insn *in, decode_symfn sym, void *ctx,
		       unsigned flags, struct out *o)
{
	struct x86 f = { .d = d, .in = in, .x = &in->detail->x86 };
	const char *words = strrchr(in->mnemonic, ' '), *hint;
	char m[48], ops[sizeof(((struct insn *)0)->text)], pfx[192];
	struct out ob, pb;
	uint64_t rip = 0;
	bool has_rip;

	f.name = cs_insn_name(d->cs, in->id);
	if (!f.name)
		f.name = "";
	copy_word(f.mnem, sizeof(f.mnem), words ? words + 1 : in->mnemonic,
		  strlen(words ? words + 1 : in->mnemonic));
	x86_scan_bytes(&f);
	x86_parse_operands(&f, in->op_str);
	f.has_mem = x86_mem_operand(&f);
	/* xchg with the accumulator (90+r): objdump names the accumulator the other way round. */
	if (f.opc >= 0x90 && f.opc <= 0x97 && f.nop == 2) {
		struct xop t = f.op[0];

		f.op[0] = f.op[1];
		f.op[1] = t;
	}

	/* 66 90: capstone says nop, objdump the instruction it encodes. */
	if (f.opc == 0x90 && !(f.rex & 1) && memchr(in->bytes, 0x66, f.npfx) &&
	    !memchr(in->bytes, 0xf3, f.npfx)) {
		out_init(&pb, pfx, sizeof(pfx));
		x86_prefix_words(&f, &pb, &hint);
		out_str(o, pfx);
		out_str(o, d->intel ? "xchg   ax,ax" : "xchg   %ax,%ax");
		return;
	}
	x86_mnemonic(&f, m, sizeof(m));
	if (d->x86_64 && f.opc == 0x63 && !(f.rex & 8))
		x86_movsxd32(&f, m, sizeof(m));
	if (flags & X86_FWAIT && name_in(m, fn_waiting))
		memmove(m + 1, m + 2, strlen(m + 1));
	out_init(&pb, pfx, sizeof(pfx));
	if (flags & X86_LOCKED)
		out_str(&pb, "lock ");
	x86_prefix_words(&f, &pb, &hint);
	if (hint)
		strncat(m, hint, sizeof(m) - strlen(m) - 1);
	out_init(&ob, ops, sizeof(ops));
	if (f.opc == 0xd7) {
		x86_xlat(&f, &ob);
		if (!strcmp(m, "xlatb"))
			m[4] = '\0';
		has_rip = false;
	} else {
		has_rip = x86_put_operands(&f, &ob, sym, ctx, &rip);
	}
	out_str(&pb, m);
	out_mnemonic(o, pfx, ob.len > 0);
	out_str(o, ops);
	if (has_rip) {
		/* objdump computes the target in 64 bits even for %eip. */
		rip &= d->addr_mask;
		out_fmt(o, "        # %" PRIx64, rip);
		out_symbol(o, rip, sym, ctx);
	}
}

/*
 * The length of an x86 instruction capstone 4 does not know (AVX-512
 * forms and others added after it), so that decoding goes on where
 * objdump goes on; 0 when the bytes do not look like one.  Only the
 * escape-coded maps need this: capstone knows every one-byte opcode.
 */
static size_t x86_length(const uint8_t *p, size_t n, bool mode64)
{
	size_t i = 0, imm = 0;
	bool addr16 = false, modrm = true;
	uint8_t op;

	for (; i < n && i < 14 && is_legacy_prefix(p[i]); i++)
		addr16 |= !mode64 && p[i] == 0x67;
	if (mode64 && i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i + 2 >= n)
		return 0;
	if (p[i] == 0xc4 || p[i] == 0xc5 || p[i] == 0x62 || (p[i] == 0x8f && (p[i + 1] & 0x1f) >= 8)) {
		uint8_t esc = p[i];
		unsigned map;

		/* Outside 64-bit mode these bytes are also les, lds, bound. */
		if (!mode64 && (p[i + 1] & 0xc0) != 0xc0)
			return 0;
		map = esc == 0xc5 ? 1 : esc == 0x62 ? p[i + 1] & 7 : p[i + 1] & 0x1f;
		i += esc == 0xc5 ? 2 : esc == 0x62 ? 4 : 3;
		if (i >= n)
			return 0;
		op = p[i++];
		if (esc == 0x8f)
			imm = map == 8 ? 1 : map == 10 ? 4 : 0;
		else if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
						   (op >= 0xc4 && op <= 0xc6))))
			imm = 1;
		modrm = !(map == 1 && op == 0x77);   /* vzeroupper, vzeroall */
	} else if (p[i] == 0x0f) {
		op = p[i + 1];
		i += 2;
		if (op == 0x38 || op == 0x3a) {
			imm = op == 0x3a;
			i++;
		} else if (op == 0x0f) {
			imm = 1;                     /* 3DNow! suffix byte */
		} else if ((op >= 0x80 && op <= 0x8f)) {
			return i + 4 <= n ? i + 4 : 0;
		} else {
			imm = (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac ||
			      op == 0xba || op == 0xc2 || (op >= 0xc4 && op <= 0xc6);
			modrm = !(op == 0x05 || op == 0x06 || op == 0x07 || op == 0x08 ||
				  op == 0x09 || op == 0x0b || op == 0x0e || op == 0x77 ||
				  (op >= 0x30 && op <= 0x37) || op == 0xa0 || op == 0xa1 ||
				  op == 0xa2 || op == 0xa8 || op == 0xa9 || op == 0xaa ||
				  (op >= 0xc8 && op <= 0xcf));
		}
	} else {
		return 0;
	}
	if (modrm) {
		uint8_t m;
		int mod, rm;

		if (i >= n)
			return 0;
		m = p[i++];
		mod = m >> 6, rm = m & 7;
		if (addr16) {
			i += mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 6) ? 2 : 0;
		} else if (mod != 3) {
			if (rm == 4) {
				if (i >= n)
					return 0;
				if (mod == 0 && (p[i] & 7) == 5)
					i += 4;
				i++;
			}
			i += mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0;
		}
	}
	i += imm;
	return i <= n && i <= 15 ? i : 0;
}

/* The name objdump gives a prefix byte standing alone, or NULL. */
static const char *x86_prefix_name(const struct decoder *d, uint8_t b, char *buf, size_t size)
{
	if (is_rex(d, b)) {
		rex_name(b, buf, size);
		return buf;
	}
	switch (b) {
	case 0xf3: return "repz";
	case 0xf2: return "repnz";
	case 0xf0: return "lock";
	case 0x66: return "data16";
	case 0x67: return d->x86_64 ? "addr32" : "addr16";
	case 0x9b: return "fwait";
	}
	return seg_name(b);
}

/* ---- Decoding loop ---- */

static size_t zero_run(const uint8_t *p, size_t n)
{
	size_t z = 0;

	while (z < n && !p[z])
		z++;
	return z;
}

static bool cs_decode(const struct decoder *d, const uint8_t *code, size_t n, uint64_t addr)
{
	const uint8_t *p = code;
	size_t left = n;
	uint64_t a = addr;

	return n && cs_disasm_iter(d->cs, &p, &left, &a, d->insn);
}

static void format_insn(const struct decoder *d, decode_symfn sym, void *ctx, unsigned flags,
			struct insn *out)
{
	const cs_insn *in = d->insn;
	struct out o;

	out_init(&o, out->text, sizeof(out->text));
	out->size = in->size;
	if (d->arch == CS_ARCH_X86) {
		x86_format(d, in, sym, ctx, flags, &o);
		return;
	}
	out_str(&o, in->mnemonic);
	if (in->op_str[0])
		out_fmt(&o, " %s", in->op_str);
}

/* The prefix bytes at the start of p, at most 14 and fewer than n. */
static size_t x86_prefixes(const struct decoder *d, const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i + 1 < n && i < 14 && (is_legacy_prefix(p[i]) || is_rex(d, p[i])))
		i++;
	return i;
}

/*
 * An opcode that does not decode after npfx prefixes: objdump names them
 * before "(bad)".  len bytes in all.
 */
static void x86_bad(const struct decoder *d, const uint8_t *code, size_t npfx, size_t len,
		    struct insn *out)
{
	struct out o;
	char buf[16];

	out_init(&o, out->text, sizeof(out->text));
	for (size_t k = 0; k < npfx; k++)
		out_fmt(&o, "%s ", x86_prefix_name(d, code[k], buf, sizeof(buf)));
	out_str(&o, "(bad)");
	out->size = (uint32_t)len;
}

/*
 * A few instructions newer than capstone 4 that compiled code holds:
 * protection keys (glibc) and the shadow-stack pointer (the unwinder).
 * Capstone fails on them, or takes incssp for lfence.
 */
static bool x86_newer(const struct decoder *d, const uint8_t *p, size_t n, struct insn *out)
{
	static const char *const gpr[16] = {
		"ax", "cx", "dx", "bx", "sp", "bp", "si", "di",
		"8", "9", "10", "11", "12", "13", "14", "15",
	};
	const uint8_t *op;
	uint8_t rex = 0;
	bool f3 = false;
	size_t i = x86_prefixes(d, p, n);
	struct out o;

	for (size_t k = 0; k < i; k++) {
		f3 |= p[k] == 0xf3;
		rex = is_rex(d, p[k]) ? p[k] : 0;
	}
	if (i + 3 > n || p[i] != 0x0f)
		return false;
	op = p + i;
	if (op[1] == 0x01 && (op[2] == 0xee || op[2] == 0xef)) {
		out_init(&o, out->text, sizeof(out->text));
		out_str(&o, op[2] == 0xee ? "rdpkru" : "wrpkru");
		out->size = (uint32_t)i + 3;
		return true;
	}
	/* rdssp: f3 0f 1e /1, incssp: f3 0f ae /5, register forms. */
	if (f3 && op[2] >> 6 == 3 && ((op[1] == 0x1e && ((op[2] >> 3) & 7) == 1) ||
				      (op[1] == 0xae && ((op[2] >> 3) & 7) == 5))) {
		int r = (op[2] & 7) | (rex & 1) << 3;
		bool q = rex & 8;
		char m[8];

		snprintf(m, sizeof(m), "%s%c", op[1] == 0x1e ? "rdssp" : "incssp", q ? 'q' : 'd');
		out_init(&o, out->text, sizeof(out->text));
		out_mnemonic(&o, m, true);
		out_fmt(&o, "%s%s%s%s", d->intel ? "" : "%", r < 8 ? (q ? "r" : "e") : "r", gpr[r],
			r >= 8 && !q ? "d" : "");
		out->size = (uint32_t)i + 3;
		return true;
	}
	return false;
}

/*
 * Bytes at addr that capstone does not decode within the range (left
 * bytes) nor with the rest of the section (more bytes).  An instruction
 * cut short by the end of the range comes out as objdump shows it, one
 * byte at a time (binutils i386-dis.c, fetch_error).
 */
static void undecodable(const struct decoder *d, const uint8_t *code, size_t left, size_t more,
			uint64_t addr, struct insn *out)
{
	size_t len;
	char buf[16];
	const char *name;

	out->size = d->bad_size <= left ? d->bad_size : 1;
	snprintf(out->text, sizeof(out->text), "(bad)");
	if (d->arch != CS_ARCH_X86)
		return;
	if (more > left && (cs_decode(d, code, more, addr) ||
			    x86_length(code, more, d->x86_64) > left)) {
		out->size = 1;
		name = x86_prefix_name(d, code[0], buf, sizeof(buf));
		if (name)
			snprintf(out->text, sizeof(out->text), "%s", name);
		else
			snprintf(out->text, sizeof(out->text), ".byte 0x%x", code[0]);
		return;
	}
	len = x86_length(code, left, d->x86_64);
	if (len) {
		out->size = (uint32_t)len;
		return;
	}
	/* objdump goes on after the opcode byte. */
	len = x86_prefixes(d, code, left);
	x86_bad(d, code, len, len + 1, out);
}

/*
 * objdump takes a REX prefix followed by another prefix for an instruction
 * of its own, made of the prefixes up to it (binutils i386-dis.c: a REX
 * that is not last ends the prefix scan).
 */
static bool x86_stray_rex(const struct decoder *d, const uint8_t *p, size_t n, struct insn *out)
{
	struct out o;
	char buf[16];
	size_t i;

	for (i = 0; i + 1 < n && i < 14; i++) {
		if (is_rex(d, p[i]))
			break;
		if (!is_legacy_prefix(p[i]))
			return false;
	}
	if (i + 1 >= n || i >= 14 || !is_rex(d, p[i]) ||
	    !(is_legacy_prefix(p[i + 1]) || is_rex(d, p[i + 1])))
		return false;
	out_init(&o, out->text, sizeof(out->text));
	for (size_t k = 0; k <= i; k++)
		out_fmt(&o, "%s%s", k ? " " : "", x86_prefix_name(d, p[k], buf, sizeof(buf)));
	out->size = (uint32_t)i + 1;
	return true;
}

/*
 * Register forms of x87 opcodes that are undocumented aliases (fxch4,
 * fcom2, fstp1, ...): capstone decodes them, objdump shows "(bad)" for the
 * opcode and ModRM bytes.
 */
static bool x87_alias(const struct decoder *d, const uint8_t *p, size_t n, struct insn *out)
{
	/* Per opcode d8-df, the ModRM reg fields (bit r) that are bad with mod 3. */
	static const uint8_t bad_regs[8] = {
		0, 1 << 3, 1 << 4 | 1 << 6 | 1 << 7, 1 << 7, 1 << 2 | 1 << 3,
		1 << 1 | 1 << 6 | 1 << 7, 1 << 2, 1 << 1 | 1 << 2 | 1 << 3 | 1 << 7,
	};
	size_t i = x86_prefixes(d, p, n);

	if (i + 1 >= n || p[i] < 0xd8 || p[i] > 0xdf || p[i + 1] >> 6 != 3 ||
	    !(bad_regs[p[i] - 0xd8] & 1 << ((p[i + 1] >> 3) & 7)))
		return false;
	x86_bad(d, p, i, i + 2, out);
	return true;
}

/*
 * One x86 instruction as objdump delimits it, which is not always where
 * capstone does: a REX before another prefix stands alone, x87 aliases are
 * bad, objdump takes fwait before an x87 instruction as its prefix (fwait
 * fnstcw is fstcw) and shows a lock prefix on an instruction that cannot
 * take it, and it knows a few instructions capstone 4 does not.
 */
static void x86_decode_one(struct decoder *d, const uint8_t *code, size_t left, size_t more,
			   uint64_t addr, decode_symfn sym, void *ctx, struct insn *out)
{
	if (x86_stray_rex(d, code, left, out) || x87_alias(d, code, left, out) ||
	    x86_newer(d, code, left, out))
		return;
	if (code[0] == 0x9b && left > 1 && code[1] >= 0xd8 && code[1] <= 0xdf &&
	    cs_decode(d, code + 1, left - 1, addr + 1)) {
		format_insn(d, sym, ctx, X86_FWAIT, out);
		out->size++;
		return;
	}
	if (cs_decode(d, code, left, addr)) {
		format_insn(d, sym, ctx, 0, out);
		return;
	}
	if (code[0] == 0xf0 && left > 1 && cs_decode(d, code + 1, left - 1, addr + 1)) {
		format_insn(d, sym, ctx, X86_LOCKED, out);
		out->size++;
		return;
	}
	undecodable(d, code, left, more, addr, out);
}

/* Whether zeros right after this instruction are its delay slot. */
static bool has_delay_slot(const struct decoder *d)
{
	return d->delay_slots && (cs_insn_group(d->cs, d->insn, CS_GRP_JUMP) ||
				  cs_insn_group(d->cs, d->insn, CS_GRP_CALL) ||
				  cs_insn_group(d->cs, d->insn, CS_GRP_RET));
}

size_t decode(struct decoder *d, const uint8_t *code, size_t avail, size_t n, uint64_t addr,
	      decode_symfn sym, void *ctx, struct insn **v, size_t *nv, size_t *cap)
{
	size_t off = 0, added = 0;
	bool delay = false;

	if (n > avail)
		n = avail;
	while (off < n) {
		size_t z = zero_run(code + off, n - off);
		struct insn *in;

		if (!delay && (z >= SKIP_ZEROES || (off + z == n && z < SKIP_ZEROES_AT_END))) {
			/* Whole words only, unless the run ends the range. */
			off += off + z == n ? z : z & ~(size_t)3;
			continue;
		}
		GROW(*v, *cap, *nv + 1);
		in = &(*v)[(*nv)++];
		in->addr = addr + off;
		if (d->arch == CS_ARCH_X86) {
			x86_decode_one(d, code + off, n - off, avail - off, addr + off, sym, ctx, in);
		} else if (cs_decode(d, code + off, n - off, addr + off)) {
			format_insn(d, sym, ctx, 0, in);
			delay = has_delay_slot(d);
		} else {
			undecodable(d, code + off, n - off, avail - off, addr + off, in);
			delay = false;
		}
		off += in->size;
		added++;
	}
	return added;
}
