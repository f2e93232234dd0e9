/* test_decode.c - unit tests for the capstone disassembler (include/decode.h), and a dump tool. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "elfsym.h"
#include "harness.h"
#include "util.h"

/*
 * Run without arguments, this is the unit test.  With arguments it prints
 * what decode() makes of part of a binary, one "addr:\ttext" line per
 * instruction as objdump -d --no-show-raw-insn does, for
 * scripts/check-decode to compare:
 *
 *	test_decode ELF START STOP [intel]   one range, addresses in hex
 *	test_decode ELF - [intel]            "START STOP [SECTION]" lines on stdin
 *
 * In the second form each range's lines follow a line "# START STOP".
 * The range is looked for in the code sections, or in the one named (the
 * sections of a relocatable object all start at 0).
 */

/* ---- Symbols for "<name+0x10>", nearest at or below, as objdump picks ---- */

/* Among symbols of one value objdump prefers functions, then global ones. */
static int sym_rank(const struct elfsym *s)
{
	return (s->type == STT_FUNC) * 2 + (s->bind != STB_LOCAL);
}

/* The symbol table elfsym.c reads: .symtab, else .dynsym. */
static void symtab_read(Elf *elf, struct profile *p, struct elfsyms *t)
{
	if (!elfsyms_read(elf, 0, p, t)) {
		elfsyms_release(t);
		elfsyms_read(elf, ELFSYMS_DYNAMIC, p, t);
	}
}

static const char *symtab_lookup(void *ctx, uint64_t addr, uint64_t *start)
{
	const struct elfsyms *t = ctx;
	const struct elfsym *best = NULL;

	/* Mapping symbols ($x, $d) name nothing. */
	for (size_t i = elfsyms_upto(t, addr); i-- > 0;) {
		const struct elfsym *s = &t->sym[i];

		if (best && s->value != best->value)
			break;
		if (s->raw[0] && s->raw[0] != '$' && (!best || sym_rank(s) > sym_rank(best)))
			best = s;
	}
	if (!best)
		return NULL;
	*start = best->value;
	return best->raw;
}

/* ---- The dump tool ---- */

/* The code section holding [start, stop): its bytes from start on. */
static const uint8_t *find_code(Elf *elf, const char *section, uint64_t start, uint64_t stop,
				size_t *avail)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;

	elf_getshdrstrndx(elf, &shstrndx);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || start < sh.sh_addr ||
		    stop > sh.sh_addr + sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (section && (!name || strcmp(name, section)))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || data->d_size != sh.sh_size)
			return NULL;
		*avail = sh.sh_size - (start - sh.sh_addr);
		return (const uint8_t *)data->d_buf + (start - sh.sh_addr);
	}
	return NULL;
}

static int dump_range(struct decoder *d, Elf *elf, struct elfsyms *syms, const char *section,
		      uint64_t start, uint64_t stop)
{
	struct insn *v = NULL;
	size_t nv = 0, cap = 0, avail = 0;
	const uint8_t *code = stop > start ? find_code(elf, section, start, stop, &avail) : NULL;

	if (!code) {
		fprintf(stderr, "test_decode: no code section holds 0x%" PRIx64 "-0x%" PRIx64 "\n",
			start, stop);
		return 1;
	}
	decode(d, code, avail, stop - start, start, symtab_lookup, syms, &v, &nv, &cap);
	for (size_t i = 0; i < nv; i++)
		printf("%" PRIx64 ":\t%s\n", v[i].addr, v[i].text);
	free(v);
	return 0;
}

static int dump_main(int argc, char **argv)
{
	enum decode_syntax syntax = DECODE_ATT;
	struct profile *names = profile_new();
	struct elfsyms syms;
	struct err e = { { 0 } };
	struct decoder *d;
	Elf *elf;
	int fd, rc = 0, last = argc - 1;

	if (!strcmp(argv[last], "intel")) {
		syntax = DECODE_INTEL;
		last--;
	}
	if (last != 2 && last != 3) {
		fprintf(stderr, "usage: test_decode ELF START STOP [intel] | ELF - [intel]\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		fprintf(stderr, "test_decode: cannot read '%s'\n", argv[1]);
		return 1;
	}
	d = decoder_new(elf, syntax, &e);
	if (!d) {
		fprintf(stderr, "test_decode: %s: %s\n", argv[1], e.msg);
		return 1;
	}
	symtab_read(elf, names, &syms);
	if (last == 3) {
		rc = dump_range(d, elf, &syms, NULL, strtoull(argv[2], NULL, 16),
				strtoull(argv[3], NULL, 16));
	} else {
		char line[256], section[200];
		unsigned long long start, stop;

		while (fgets(line, sizeof(line), stdin)) {
			int n = sscanf(line, "%llx %llx %199s", &start, &stop, section);

			if (n < 2)
				continue;
			printf("# %llx %llx\n", start, stop);
			rc |= dump_range(d, elf, &syms, n == 3 ? section : NULL, start, stop);
		}
	}
	elfsyms_release(&syms);
	profile_free(names);
	decoder_free(d);
	elf_end(elf);
	close(fd);
	return rc;
}

/* ---- Unit tests ---- */

/* A header-only ELF image: all decoder_new looks at. */
struct fake_elf {
	unsigned char image[sizeof(Elf64_Ehdr)];
	Elf *elf;
};

static Elf *fake_elf(struct fake_elf *f, int machine, int class, int data, uint32_t flags)
{
	memset(f->image, 0, sizeof(f->image));
	memcpy(f->image, ELFMAG, SELFMAG);
	f->image[EI_CLASS] = (unsigned char)class;
	f->image[EI_DATA] = (unsigned char)data;
	f->image[EI_VERSION] = EV_CURRENT;
	if (class == ELFCLASS64) {
		Elf64_Ehdr h;

		memcpy(&h, f->image, sizeof(h));
		h.e_type = ET_EXEC, h.e_machine = (Elf64_Half)machine, h.e_version = EV_CURRENT;
		h.e_ehsize = sizeof(h), h.e_flags = flags;
		if (data == ELFDATA2MSB) {
			h.e_type = __builtin_bswap16(h.e_type);
			h.e_machine = __builtin_bswap16(h.e_machine);
			h.e_version = __builtin_bswap32(h.e_version);
			h.e_ehsize = __builtin_bswap16(h.e_ehsize);
			h.e_flags = __builtin_bswap32(h.e_flags);
		}
		memcpy(f->image, &h, sizeof(h));
	} else {
		Elf32_Ehdr h;

		memcpy(&h, f->image, sizeof(h));
		h.e_type = ET_EXEC, h.e_machine = (Elf32_Half)machine, h.e_version = EV_CURRENT;
		h.e_ehsize = sizeof(h), h.e_flags = flags;
		if (data == ELFDATA2MSB) {
			h.e_type = __builtin_bswap16(h.e_type);
			h.e_machine = __builtin_bswap16(h.e_machine);
			h.e_version = __builtin_bswap32(h.e_version);
			h.e_ehsize = __builtin_bswap16(h.e_ehsize);
			h.e_flags = __builtin_bswap32(h.e_flags);
		}
		memcpy(f->image, &h, sizeof(h));
	}
	elf_version(EV_CURRENT);
	f->elf = elf_memory((char *)f->image, sizeof(f->image));
	return f->elf;
}

static struct decoder *new_decoder(int machine, int class, int data, uint32_t flags,
				   enum decode_syntax syntax)
{
	struct fake_elf f;
	struct err e = { { 0 } };
	struct decoder *d = decoder_new(fake_elf(&f, machine, class, data, flags), syntax, &e);

	if (!d)
		TEST_NOTE("decoder_new: %s", e.msg);
	elf_end(f.elf);
	return d;
}

static const char *const test_syms[][2] = {
	{ "11d0", "leaf_a" }, { "1200", "main" }, { "4010", "sink" },
};

static const char *test_lookup(void *ctx, uint64_t addr, uint64_t *start)
{
	const char *best = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(test_syms); i++) {
		uint64_t v = strtoull(test_syms[i][0], NULL, 16);

		if (v <= addr) {
			best = test_syms[i][1];
			*start = v;
		}
	}
	return best;
}

/* Decodes bytes (a hex string) at addr; returns the instruction count. */
static size_t run(struct decoder *d, const char *hex, size_t n, uint64_t addr, struct insn **v)
{
	uint8_t code[64];
	size_t len = 0, nv = 0, cap = 0;

	while (hex[0] && hex[1] && len < sizeof(code)) {
		unsigned b;

		if (hex[0] == ' ') {
			hex++;
			continue;
		}
		sscanf(hex, "%2x", &b);
		code[len++] = (uint8_t)b;
		hex += 2;
	}
	*v = NULL;
	return decode(d, code, len, n ? n : len, addr, test_lookup, NULL, v, &nv, &cap);
}

/* The text of the one instruction in hex, at addr. */
static const char *one(struct decoder *d, const char *hex, uint64_t addr)
{
	static char text[sizeof(((struct insn *)0)->text)];
	struct insn *v;
	size_t n = run(d, hex, 0, addr, &v);

	snprintf(text, sizeof(text), "%s", n ? v[0].text : "(none)");
	if (n != 1)
		snprintf(text, sizeof(text), "%zu instructions", n);
	free(v);
	return text;
}

static const char *const att_cases[][2] = {
	{ "55", "push   %rbp" },
	{ "48 89 e5", "mov    %rsp,%rbp" },
	{ "48 83 c4 08", "add    $0x8,%rsp" },
	{ "c3", "ret" },
	{ "c7 45 fc 00 00 00 00", "movl   $0x0,-0x4(%rbp)" },
	{ "48 83 00 01", "addq   $0x1,(%rax)" },
	{ "89 c3", "mov    %eax,%ebx" },
	{ "48 63 d0", "movslq %eax,%rdx" },
	{ "48 98", "cltq" },
	{ "48 99", "cqto" },
	{ "0f b6 c0", "movzbl %al,%eax" },
	{ "0f be 07", "movsbl (%rdi),%eax" },
	{ "66 0f 1f 44 00 00", "nopw   0x0(%rax,%rax,1)" },
	{ "66 2e 0f 1f 84 00 00 00 00 00", "cs nopw 0x0(%rax,%rax,1)" },
	{ "66 66 2e 0f 1f 84 00 00 00 00 00", "data16 cs nopw 0x0(%rax,%rax,1)" },
	{ "0f 1f 40 00", "nopl   0x0(%rax)" },
	{ "66 90", "xchg   %ax,%ax" },
	{ "f3 0f 1e fa", "endbr64" },
	{ "48 83 e4 f0", "and    $0xfffffffffffffff0,%rsp" },
	{ "64 48 8b 04 25 28 00 00 00", "mov    %fs:0x28,%rax" },
	{ "f3 48 ab", "rep stos %rax,%es:(%rdi)" },
	{ "f3 a4", "rep movsb %ds:(%rsi),%es:(%rdi)" },
	{ "d1 e0", "shl    %eax" },
	{ "d3 e0", "shl    %cl,%eax" },
	{ "dc c1", "fadd   %st,%st(1)" },
	{ "d8 c1", "fadd   %st(1),%st" },
	{ "8d 74 26 00", "lea    0x0(%rsi,%riz,1),%esi" },
	{ "ff e0", "jmp    *%rax" },
	{ "3e ff e0", "notrack jmp *%rax" },
	{ "f3 c3", "repz ret" },
	{ "6a ff", "push   $0xffffffffffffffff" },
	{ "66 c7 00 ff ff", "movw   $0xffff,(%rax)" },
	{ "f2 48 0f 2a 00", "cvtsi2sdq (%rax),%xmm0" },
	{ "f2 48 0f 2a c0", "cvtsi2sd %rax,%xmm0" },
	{ "66 48 0f 6e c0", "movq   %rax,%xmm0" },
	{ "ec", "in     (%dx),%al" },
	{ "91", "xchg   %eax,%ecx" },
	{ "c8 10 00 ff", "enter  $0x10,$0xff" },
	{ "d7", "xlat   %ds:(%rbx)" },
	{ "9b d9 7c 24 02", "fstcw  0x2(%rsp)" },
	{ "9b dd d8", "fstp   %st(0)" },
	{ "f0 ac", "lock lods %ds:(%rsi),%al" },
	{ "63 c1", "movsxd %ecx,%eax" },
	{ "48 50", "rex.W push %rax" },
	{ "66 66 48 e8 00 00 00 00", "data16 data16 rex.W call 1008" },
	{ "2e 74 00", "je,pn  1003" },
	{ "f3 48 0f ae e9", "incsspq %rcx" },
	{ "0f 01 ee", "rdpkru" },
	{ "dd c8", "(bad)" },
	{ "d1 30", "shll   (%rax)" },
	{ "0f 20 c0", "mov    %cr0,%rax" },
};

TEST(att_text)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);

	if (!CHECK(d))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(att_cases); i++)
		CHECK_STR(one(d, att_cases[i][0], 0x1000), att_cases[i][1]);
	/* Branch targets and RIP-relative operands get objdump's annotations. */
	CHECK_STR(one(d, "e8 cb ff ff ff", 0x1200), "call   11d0 <leaf_a>");
	CHECK_STR(one(d, "eb 32", 0x1200), "jmp    1234 <main+0x34>");
	CHECK_STR(one(d, "48 8d 3d 89 2e 00 00", 0x1180),
		  "lea    0x2e89(%rip),%rdi        # 4010 <sink>");
	CHECK_STR(one(d, "ff 25 02 2e 00 00", 0x1200),
		  "jmp    *0x2e02(%rip)        # 4008 <main+0x2e08>");
	CHECK_STR(one(d, "e8 00 00 00 00", 0x10), "call   15");
	decoder_free(d);
}

static const char *const intel_cases[][2] = {
	{ "48 89 e5", "mov    rbp,rsp" },
	{ "c7 45 fc 00 00 00 00", "mov    DWORD PTR [rbp-0x4],0x0" },
	{ "66 0f 1f 44 00 00", "nop    WORD PTR [rax+rax*1+0x0]" },
	{ "66 2e 0f 1f 84 00 00 00 00 00", "cs nop WORD PTR [rax+rax*1+0x0]" },
	{ "64 48 8b 04 25 28 00 00 00", "mov    rax,QWORD PTR fs:0x28" },
	{ "f3 48 ab", "rep stos QWORD PTR es:[rdi],rax" },
	{ "d1 e0", "shl    eax,1" },
	{ "48 83 e4 f0", "and    rsp,0xfffffffffffffff0" },
	{ "8b 04 c5 10 00 00 00", "mov    eax,DWORD PTR [rax*8+0x10]" },
	{ "8b 04 2d 10 00 00 00", "mov    eax,DWORD PTR [rbp*1+0x10]" },
	{ "0f 2f 44 24 0c", "comiss xmm0,DWORD PTR [rsp+0xc]" },
	{ "db 7c 24 10", "fstp   TBYTE PTR [rsp+0x10]" },
	{ "a1 01 02 03 04 05 06 07 08", "movabs eax,ds:0x807060504030201" },
	{ "91", "xchg   ecx,eax" },
	{ "dc c1", "fadd   st(1),st" },
	{ "48 8d 3d f9 ff ff ff", "lea    rdi,[rip+0xfffffffffffffff9]        # 1000" },
};

TEST(intel_text)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_INTEL);

	if (!CHECK(d))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(intel_cases); i++)
		CHECK_STR(one(d, intel_cases[i][0], 0x1000), intel_cases[i][1]);
	CHECK_STR(one(d, "e8 cb ff ff ff", 0x1200), "call   11d0 <leaf_a>");
	CHECK_STR(one(d, "48 8d 3d 89 2e 00 00", 0x1180),
		  "lea    rdi,[rip+0x2e89]        # 4010 <sink>");
	decoder_free(d);
}

TEST(i386_text)
{
	struct decoder *d = new_decoder(EM_386, ELFCLASS32, ELFDATA2LSB, 0, DECODE_ATT);

	if (!CHECK(d))
		return;
	CHECK_STR(one(d, "55", 0x1000), "push   %ebp");
	CHECK_STR(one(d, "8b 45 08", 0x1000), "mov    0x8(%ebp),%eax");
	CHECK_STR(one(d, "8d b4 26 00 00 00 00", 0x1000), "lea    0x0(%esi,%eiz,1),%esi");
	CHECK_STR(one(d, "65 a1 14 00 00 00", 0x1000), "mov    %gs:0x14,%eax");
	CHECK_STR(one(d, "e8 00 00 00 00", 0xfffffff0), "call   fffffff5 <sink+0xffffbfe5>");
	decoder_free(d);
}

/* Zero runs as objdump skips them, and what does not decode. */
TEST(zeros_and_bad_bytes)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	struct insn *v;
	size_t n;

	if (!CHECK(d))
		return;
	/* Eight zeros between two rets are skipped. */
	n = run(d, "c3 0000000000000000 c3", 0, 0x100, &v);
	if (CHECK_EQ_INT(n, 2))
		CHECK_EQ_U64(v[1].addr, 0x109);
	free(v);
	/* Ten: eight go (whole words only), two decode as an add. */
	n = run(d, "c3 00000000000000000000 c3", 0, 0x100, &v);
	if (CHECK_EQ_INT(n, 3)) {
		CHECK_EQ_U64(v[1].addr, 0x109);
		CHECK_STR(v[1].text, "add    %al,(%rax)");
		CHECK_EQ_U64(v[2].addr, 0x10b);
	}
	free(v);
	/* Fewer than three at the end go; three stay. */
	n = run(d, "c3 0000", 0, 0x100, &v);
	CHECK_EQ_INT(n, 1);
	free(v);
	n = run(d, "c3 000000", 0, 0x100, &v);
	CHECK_EQ_INT(n, 2);
	free(v);
	/* Nine or more at the end all go. */
	n = run(d, "c3 000000000000000000", 0, 0x100, &v);
	CHECK_EQ_INT(n, 1);
	free(v);
	/* An instruction cut by the end of the range: a byte at a time. */
	n = run(d, "48 8b 05 bd 6f 00 00", 2, 0x2004, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_STR(v[0].text, "rex.W");
		CHECK_STR(v[1].text, ".byte 0x8b");
		CHECK_EQ_INT(v[1].size, 1);
	}
	free(v);
	/* Invalid in 64-bit mode. */
	CHECK_STR(one(d, "d6", 0x1000), "(bad)");
	/* A REX before another prefix is an instruction of its own. */
	n = run(d, "48 66 90", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_STR(v[0].text, "rex.W");
		CHECK_STR(v[1].text, "xchg   %ax,%ax");
	}
	free(v);
	/* Prefixes before an opcode that does not decode go with it. */
	n = run(d, "4d d6 c3", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_STR(v[0].text, "rex.WRB (bad)");
		CHECK_EQ_INT(v[0].size, 2);
	}
	free(v);
	/* Valid, but newer than capstone 4: measured, so that decoding goes on. */
	n = run(d, "62 f3 7d 20 3f 07 00 c3", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_EQ_INT(v[0].size, 7);
		CHECK_STR(v[1].text, "ret");
	}
	free(v);
	decoder_free(d);
}

TEST(machines)
{
	struct fake_elf f;
	struct err e = { { 0 } };
	struct decoder *d;

	d = new_decoder(EM_AARCH64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	if (CHECK(d))
		CHECK_STR(one(d, "c0 03 5f d6", 0x1000), "ret");
	decoder_free(d);
	d = new_decoder(EM_ARM, ELFCLASS32, ELFDATA2LSB, 0, DECODE_ATT);
	if (CHECK(d))
		CHECK_STR(one(d, "1e ff 2f e1", 0x1000), "bx lr");
	decoder_free(d);
	d = new_decoder(EM_MIPS, ELFCLASS32, ELFDATA2MSB, 0, DECODE_ATT);
	if (CHECK(d))
		CHECK_STR(one(d, "03 e0 00 08", 0x1000), "jr $ra");
	decoder_free(d);
	d = new_decoder(EM_PPC64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	if (CHECK(d))
		CHECK_STR(one(d, "20 00 80 4e", 0x1000), "blr");
	decoder_free(d);
	d = new_decoder(EM_S390, ELFCLASS64, ELFDATA2MSB, 0, DECODE_ATT);
	if (CHECK(d))
		CHECK_STR(one(d, "07 fe", 0x1000), "br %r14");
	decoder_free(d);
	d = new_decoder(EM_SPARCV9, ELFCLASS64, ELFDATA2MSB, 0, DECODE_ATT);
	CHECK(d);
	decoder_free(d);
	d = new_decoder(EM_386, ELFCLASS32, ELFDATA2LSB, 0, DECODE_ATT);
	CHECK(d);
	decoder_free(d);

	d = decoder_new(fake_elf(&f, EM_RISCV, ELFCLASS64, ELFDATA2LSB, 0), DECODE_ATT, &e);
	CHECK(!d);
	CHECK_CONTAINS(e.msg, "243");
	CHECK_CONTAINS(e.msg, "capstone");
	elf_end(f.elf);
	decoder_free(NULL);
}

/* A MIPS delay slot (nop = four zeros) after a branch is not skipped. */
TEST(delay_slot)
{
	struct decoder *d = new_decoder(EM_MIPS, ELFCLASS32, ELFDATA2MSB, 0, DECODE_ATT);
	struct insn *v;
	size_t n;

	if (!CHECK(d))
		return;
	n = run(d, "03e00008 00000000 00000000 00000000 27bdfff0", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 3)) {
		CHECK_STR(v[1].text, "nop");
		CHECK_EQ_U64(v[2].addr, 0x1010);
	}
	free(v);
	decoder_free(d);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

/*
 * Random bytes, biased towards prefixes, escapes and zeros, in buffers of
 * exactly avail bytes so that the sanitizers catch a read past them.
 */
static void fuzz(struct decoder *d, int rounds)
{
	static const uint8_t hot[] = { 0x00, 0x0f, 0x66, 0x67, 0xf2, 0xf3, 0x48, 0x41, 0x62,
				       0xc4, 0xc5, 0x8f, 0x2e, 0x3e, 0x64, 0xf0, 0xd8, 0xdc };
	int bad = 0;

	for (int r = 0; r < rounds; r++) {
		size_t avail = 1 + rng() % 64, n = 1 + rng() % avail, nv = 0, cap = 0, end = 0;
		uint8_t *code = xmalloc(avail);
		struct insn *v = NULL;
		uint64_t addr = (uint64_t)rng() << 12;

		for (size_t i = 0; i < avail; i++)
			code[i] = rng() % 3 ? (uint8_t)rng() : hot[rng() % ARRAY_SIZE(hot)];
		decode(d, code, avail, n, addr, r & 1 ? test_lookup : NULL, NULL, &v, &nv, &cap);
		for (size_t i = 0; i < nv; i++) {
			if (v[i].size == 0 || v[i].addr < addr + end || v[i].addr >= addr + n ||
			    !memchr(v[i].text, '\0', sizeof(v[i].text)) || !v[i].text[0])
				bad++;
			end = v[i].addr - addr + v[i].size;
		}
		free(v);
		free(code);
	}
	CHECK_EQ_INT(bad, 0);
}

TEST(random_bytes)
{
	static const struct { int machine, class, data; enum decode_syntax syntax; } m[] = {
		{ EM_X86_64, ELFCLASS64, ELFDATA2LSB, DECODE_ATT },
		{ EM_X86_64, ELFCLASS64, ELFDATA2LSB, DECODE_INTEL },
		{ EM_386, ELFCLASS32, ELFDATA2LSB, DECODE_ATT },
		{ EM_386, ELFCLASS32, ELFDATA2LSB, DECODE_INTEL },
		{ EM_AARCH64, ELFCLASS64, ELFDATA2LSB, DECODE_ATT },
		{ EM_ARM, ELFCLASS32, ELFDATA2LSB, DECODE_ATT },
		{ EM_MIPS, ELFCLASS32, ELFDATA2MSB, DECODE_ATT },
		{ EM_PPC64, ELFCLASS64, ELFDATA2LSB, DECODE_ATT },
		{ EM_SPARCV9, ELFCLASS64, ELFDATA2MSB, DECODE_ATT },
		{ EM_S390, ELFCLASS64, ELFDATA2MSB, DECODE_ATT },
		{ EM_68K, ELFCLASS32, ELFDATA2MSB, DECODE_ATT },
	};

	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		struct decoder *d = new_decoder(m[i].machine, m[i].class, m[i].data, 0,
						m[i].syntax);

		TEST_NOTE("machine %d", m[i].machine);
		if (CHECK(d))
			fuzz(d, m[i].machine == EM_X86_64 ? 20000 : 3000);
		decoder_free(d);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return dump_main(argc, argv);
	RUN(att_text);
	RUN(intel_text);
	RUN(i386_text);
	RUN(zeros_and_bad_bytes);
	RUN(machines);
	RUN(delay_slot);
	RUN(random_bytes);
	return test_done();
}
