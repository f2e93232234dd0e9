/* test_decode.c - unit tests for the capstone disassembler (include/decode.h), and a dump tool. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

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
static const uint8_t *find_code(Elf *elf, const char *section, uint64_t start, uint64_t stop)
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
		return (const uint8_t *)data->d_buf + (start - sh.sh_addr);
	}
	return NULL;
}

static int dump_range(struct decoder *d, Elf *elf, struct elfsyms *syms, const char *section,
		      uint64_t start, uint64_t stop)
{
	struct insn *v = NULL;
	size_t nv = 0, cap = 0;
	const uint8_t *code = stop > start ? find_code(elf, section, start, stop) : NULL;

	if (!code) {
		fprintf(stderr, "test_decode: no code section holds 0x%" PRIx64 "-0x%" PRIx64 "\n",
			start, stop);
		return 1;
	}
	decode(d, code, stop - start, start, symtab_lookup, syms, &v, &nv, &cap);
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

/* Bytes from a hex string ("48 89 e5"), in a buffer of exactly their count. */
static uint8_t *unhex(const char *hex, size_t *len)
{
	uint8_t *code = xmalloc(strlen(hex) / 2 + 1);

	*len = 0;
	while (hex[0] && hex[1]) {
		unsigned b;

		if (hex[0] == ' ') {
			hex++;
			continue;
		}
		sscanf(hex, "%2x", &b);
		code[(*len)++] = (uint8_t)b;
		hex += 2;
	}
	return code;
}

/* Decodes the first n bytes (all when 0) of hex at addr; returns the instruction count. */
static size_t run(struct decoder *d, const char *hex, size_t n, uint64_t addr, struct insn **v)
{
	size_t len, nv = 0, cap = 0, got;
	uint8_t *code = unhex(hex, &len);

	*v = NULL;
	got = decode(d, code, n ? n : len, addr, test_lookup, NULL, v, &nv, &cap);
	free(code);
	return got;
}

/*
 * What capstone itself says of the first instruction in hex at addr,
 * "mnemonic op_str", asked directly: the text decode() must give.
 */
static const char *capstone_text(cs_arch arch, cs_mode mode, enum decode_syntax syntax,
				 const char *hex, uint64_t addr)
{
	static char text[256];
	size_t len, count;
	uint8_t *code = unhex(hex, &len);
	cs_insn *in;
	csh cs;

	snprintf(text, sizeof(text), "(capstone failed)");
	if (cs_open(arch, mode, &cs) == CS_ERR_OK) {
		if (syntax == DECODE_ATT && arch == CS_ARCH_X86)
			cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
		count = cs_disasm(cs, code, len, addr, 1, &in);
		if (count) {
			snprintf(text, sizeof(text), "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "",
				 in->op_str);
			cs_free(in, count);
		}
		cs_close(&cs);
	}
	free(code);
	return text;
}

/* "%s <sym>": capstone's text with the symbol decode() adds after a branch target. */
static const char *with_symbol(const char *text, const char *sym)
{
	static char buf[300];

	snprintf(buf, sizeof(buf), "%s <%s>", text, sym);
	return buf;
}

/*
 * x86-64 instructions of compiled code, each alone: one instruction of all
 * the bytes, as objdump delimits it, with capstone's text.
 */
static const char *const x86_64_insns[] = {
	"55", "48 89 e5", "48 83 c4 08", "c3", "c7 45 fc 00 00 00 00", "48 83 00 01",
	"48 63 d0", "48 98", "48 99", "0f b6 c0", "0f be 07", "66 0f 1f 44 00 00",
	"66 2e 0f 1f 84 00 00 00 00 00", "66 66 2e 0f 1f 84 00 00 00 00 00", "0f 1f 40 00",
	"66 90", "f3 0f 1e fa", "48 83 e4 f0", "64 48 8b 04 25 28 00 00 00", "f3 48 ab",
	"f3 a4", "d1 e0", "d3 e0", "dc c1", "8d 74 26 00", "ff e0", "3e ff e0", "f3 c3",
	"6a ff", "66 c7 00 ff ff", "f2 48 0f 2a 00", "66 48 0f 6e c0", "ec", "91",
	"c8 10 00 ff", "d7", "63 c1", "48 50", "2e 74 00", "0f 20 c0", "c5 f9 6f 07",
	"c4 e2 7d 18 c0", "62 f1 7c 48 10 07", "48 8d 3d 89 2e 00 00", "ff 25 02 2e 00 00",
	"f0 48 0f b1 16",
};

TEST(x86_64_lengths_and_text)
{
	static const enum decode_syntax syntaxes[] = { DECODE_ATT, DECODE_INTEL };

	for (size_t s = 0; s < ARRAY_SIZE(syntaxes); s++) {
		struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, syntaxes[s]);
		size_t bad_len = 0, bad_text = 0;

		if (!CHECK(d))
			return;
		for (size_t i = 0; i < ARRAY_SIZE(x86_64_insns); i++) {
			const char *hex = x86_64_insns[i];
			size_t len;
			struct insn *v;
			size_t n = run(d, hex, 0, 0x1000, &v);
			const char *want = capstone_text(CS_ARCH_X86, CS_MODE_64, syntaxes[s], hex,
							 0x1000);

			free(unhex(hex, &len));
			if (n != 1 || v[0].size != len || v[0].addr != 0x1000) {
				bad_len++;
				TEST_NOTE("%s: %zu instructions, the first of %u bytes", hex, n,
					  n ? v[0].size : 0);
			} else if (strcmp(v[0].text, want)) {
				bad_text++;
				TEST_NOTE("%s: '%s', capstone says '%s'", hex, v[0].text, want);
			}
			free(v);
		}
		TEST_NOTE("syntax %s", syntaxes[s] == DECODE_ATT ? "AT&T" : "Intel");
		CHECK_EQ_INT(bad_len, 0);
		CHECK_EQ_INT(bad_text, 0);
		decoder_free(d);
	}
}

/* The bytes of mid() in testdata/golden/prog, at 0x401740. */
static const char mid_bytes[] =
	"48 89 fe b8 08 00 00 00 48 b9 15 7c 4a 7f b9 79 37 9e 66 0f 1f 44 00 00"
	"48 89 f2 48 c1 ea 07 48 31 d6 48 0f af f1 83 e8 01 75 ed 48 89 35 5e 5b"
	"0a 00 e8 29 ff ff ff 48 d1 ef 49 89 c0 e8 6e ff ff ff 4c 01 c0 48 01 f0"
	"c3 0f 1f 80 00 00 00 00";

/* Where its instructions start, as objdump and google-pprof (prof.disasm-mid.out) say. */
static const uint64_t mid_starts[] = {
	0x401740, 0x401743, 0x401748, 0x401752, 0x401758, 0x40175b, 0x40175f,
	0x401762, 0x401766, 0x401769, 0x40176b, 0x401772, 0x401777, 0x40177a,
	0x40177d, 0x401782, 0x401785, 0x401788, 0x401789,
};

TEST(boundaries_of_a_routine)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	struct insn *v;
	size_t n;

	if (!CHECK(d))
		return;
	n = run(d, mid_bytes, 0, 0x401740, &v);
	if (CHECK_EQ_INT(n, ARRAY_SIZE(mid_starts))) {
		size_t wrong = 0;

		for (size_t i = 0; i < n; i++)
			wrong += v[i].addr != mid_starts[i] ||
				 v[i].addr + v[i].size != (i + 1 < n ? mid_starts[i + 1] : 0x401790);
		CHECK_EQ_INT(wrong, 0);
	}
	free(v);
	decoder_free(d);
}

/* Direct calls and jumps: capstone's target, then the symbol at or below it. */
static const struct {
	const char *hex;
	uint64_t at;
	const char *target, *sym;
} x86_branches[] = {
	{ "e8 cb ff ff ff", 0x1200, "0x11d0", "leaf_a" },
	{ "eb 32", 0x1200, "0x1234", "main+0x34" },
	{ "0f 85 2e 00 00 00", 0x1200, "0x1234", "main+0x34" },
	{ "75 ed", 0x11e3, "0x11d2", "leaf_a+0x2" },
	{ "e2 fe", 0x1208, "0x1208", "main+0x8" },
};

/* Calls and jumps without a symbol to name, and other instructions. */
static const struct {
	const char *hex;
	uint64_t at;
} x86_plain[] = {
	{ "e8 00 00 00 00", 0x10 }, { "ff e0", 0x1200 }, { "ff 25 02 2e 00 00", 0x1200 },
	{ "48 8d 3d 89 2e 00 00", 0x1180 }, { "c3", 0x1200 },
};

TEST(x86_targets)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	struct decoder *di = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_INTEL);
	struct decoder *d32 = new_decoder(EM_386, ELFCLASS32, ELFDATA2LSB, 0, DECODE_ATT);
	struct insn *v;

	if (!CHECK(d && di && d32))
		goto out;
	/* call, jmp, jcc, loop: the target and the symbol at or below it. */
	for (size_t i = 0; i < ARRAY_SIZE(x86_branches); i++) {
		const char *hex = x86_branches[i].hex;
		uint64_t at = x86_branches[i].at;
		char want[64];

		if (CHECK_EQ_INT(run(d, hex, 0, at, &v), 1)) {
			snprintf(want, sizeof(want), "%s <%s>", x86_branches[i].target,
				 x86_branches[i].sym);
			CHECK_CONTAINS(v[0].text, want);
			CHECK_STR(v[0].text,
				  with_symbol(capstone_text(CS_ARCH_X86, CS_MODE_64, DECODE_ATT, hex, at),
					      x86_branches[i].sym));
		}
		free(v);
	}
	if (CHECK_EQ_INT(run(di, "e8 cb ff ff ff", 0, 0x1200, &v), 1))
		CHECK_STR(v[0].text, with_symbol(capstone_text(CS_ARCH_X86, CS_MODE_64, DECODE_INTEL,
							       "e8 cb ff ff ff", 0x1200), "leaf_a"));
	free(v);
	/* No symbol below the target, indirect jumps, RIP-relative data: capstone's text alone. */
	for (size_t i = 0; i < ARRAY_SIZE(x86_plain); i++) {
		const char *hex = x86_plain[i].hex;

		if (CHECK_EQ_INT(run(d, hex, 0, x86_plain[i].at, &v), 1))
			CHECK_STR(v[0].text, capstone_text(CS_ARCH_X86, CS_MODE_64, DECODE_ATT, hex,
							   x86_plain[i].at));
		free(v);
	}
	/* 32-bit: the target wraps at 32 bits; a far jump has no target address. */
	if (CHECK_EQ_INT(run(d32, "e8 00 00 00 00", 0, 0xfffffff0, &v), 1))
		CHECK_CONTAINS(v[0].text, "0xfffffff5 <sink+0xffffbfe5>");
	free(v);
	if (CHECK_EQ_INT(run(d32, "ea 00 10 00 00 10 00", 0, 0x1200, &v), 1))
		CHECK_STR(v[0].text, capstone_text(CS_ARCH_X86, CS_MODE_32, DECODE_ATT,
						   "ea 00 10 00 00 10 00", 0x1200));
	free(v);
out:
	decoder_free(d);
	decoder_free(di);
	decoder_free(d32);
}

/*
 * Bytes capstone does not decode: one "(bad)" of the smallest instruction
 * size, then decoding goes on.
 */
TEST(bad_bytes)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	struct decoder *a64 = new_decoder(EM_AARCH64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	struct insn *v;
	size_t n;

	if (!CHECK(d && a64))
		goto out;
	/* Invalid in 64-bit mode. */
	n = run(d, "d6 c3", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_STR(v[0].text, "(bad)");
		CHECK_EQ_INT(v[0].size, 1);
		CHECK_EQ_U64(v[1].addr, 0x1001);
	}
	free(v);
	/* An instruction cut by the end of the range: a byte at a time. */
	n = run(d, "48 8b 05 bd 6f 00 00", 2, 0x2004, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_STR(v[0].text, "(bad)");
		CHECK_STR(v[1].text, "(bad)");
		CHECK_EQ_U64(v[1].addr, 0x2005);
		CHECK_EQ_INT(v[1].size, 1);
	}
	free(v);
	/* AArch64: four bytes per "(bad)", or what is left. */
	n = run(a64, "ffffffff c0035fd6 ffff", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 3)) {
		CHECK_STR(v[0].text, "(bad)");
		CHECK_EQ_INT(v[0].size, 4);
		CHECK_EQ_U64(v[1].addr, 0x1004);
		CHECK_STR(v[2].text, "(bad)");
		CHECK_EQ_INT(v[2].size, 2);
	}
	free(v);
out:
	decoder_free(d);
	decoder_free(a64);
}

/* Runs of zero bytes are skipped where objdump skips them. */
TEST(zero_runs)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	struct decoder *mips = new_decoder(EM_MIPS, ELFCLASS32, ELFDATA2MSB, 0, DECODE_ATT);
	struct insn *v;
	size_t n;

	if (!CHECK(d && mips))
		goto out;
	/* Eight zeros between two rets are skipped. */
	n = run(d, "c3 0000000000000000 c3", 0, 0x100, &v);
	if (CHECK_EQ_INT(n, 2))
		CHECK_EQ_U64(v[1].addr, 0x109);
	free(v);
	/* Ten: eight go (whole words only), two decode as capstone says. */
	n = run(d, "c3 00000000000000000000 c3", 0, 0x100, &v);
	if (CHECK_EQ_INT(n, 3)) {
		CHECK_EQ_U64(v[1].addr, 0x109);
		CHECK_EQ_INT(v[1].size, 2);
		CHECK_STR(v[1].text, capstone_text(CS_ARCH_X86, CS_MODE_64, DECODE_ATT, "0000", 0));
		CHECK_EQ_U64(v[2].addr, 0x10b);
	}
	free(v);
	/* Seven stay: four instructions, the last of a zero and the ret. */
	n = run(d, "c3 00000000000000 c3", 0, 0x100, &v);
	CHECK_EQ_INT(n, 5);
	free(v);
	/*
	 * Fewer than three at the end go; three stay, but once two of them
	 * are an instruction, the last one goes; eight or more at the end go.
	 */
	n = run(d, "c3 0000", 0, 0x100, &v);
	CHECK_EQ_INT(n, 1);
	free(v);
	n = run(d, "c3 000000", 0, 0x100, &v);
	if (CHECK_EQ_INT(n, 2))
		CHECK_EQ_INT(v[1].size, 2);
	free(v);
	n = run(d, "c3 000000000000000000", 0, 0x100, &v);
	CHECK_EQ_INT(n, 1);
	free(v);
	/* A MIPS delay slot (nop, four zeros) after a branch stays; the padding after it goes. */
	n = run(mips, "03e00008 00000000 00000000 00000000 27bdfff0", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 3)) {
		CHECK_EQ_U64(v[1].addr, 0x1004);
		CHECK_STR(v[1].text, capstone_text(CS_ARCH_MIPS, CS_MODE_MIPS32 | CS_MODE_BIG_ENDIAN,
						   DECODE_ATT, "00000000", 0));
		CHECK_EQ_U64(v[2].addr, 0x1010);
	}
	free(v);
out:
	decoder_free(d);
	decoder_free(mips);
}

/*
 * objdump makes an fwait before an x87 instruction part of it (fwait
 * fnstcw is its fstcw): one instruction of both, with capstone's text of
 * each.  An fwait before anything else stands alone.
 */
TEST(fwait)
{
	struct decoder *d = new_decoder(EM_X86_64, ELFCLASS64, ELFDATA2LSB, 0, DECODE_ATT);
	char want[300];
	struct insn *v;
	size_t n;

	if (!CHECK(d))
		return;
	n = run(d, "9b d9 7c 24 02 c3", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 2)) {
		CHECK_EQ_INT(v[0].size, 5);
		snprintf(want, sizeof(want), "%s; ",
			 capstone_text(CS_ARCH_X86, CS_MODE_64, DECODE_ATT, "9b", 0x1000));
		strncat(want, capstone_text(CS_ARCH_X86, CS_MODE_64, DECODE_ATT, "d9 7c 24 02", 0x1001),
			sizeof(want) - strlen(want) - 1);
		CHECK_STR(v[0].text, want);
		CHECK_EQ_U64(v[1].addr, 0x1005);
	}
	free(v);
	n = run(d, "9b c3", 0, 0x1000, &v);
	if (CHECK_EQ_INT(n, 2))
		CHECK_EQ_INT(v[0].size, 1);
	free(v);
	/* Cut by the end of the range: the fwait alone. */
	n = run(d, "9b d9 7c 24 02", 3, 0x1000, &v);
	if (CHECK_EQ_INT(n, 3))
		CHECK_EQ_INT(v[0].size, 1);
	free(v);
	decoder_free(d);
}

/* Other architectures: capstone's one syntax, and direct calls and branches named. */
TEST(other_machines)
{
	static const struct {
		int machine, class, data;
		cs_arch arch;
		cs_mode mode;
		const char *hex;
		uint64_t at;
		const char *sym;        /* NULL: no target */
	} m[] = {
		{ EM_AARCH64, ELFCLASS64, ELFDATA2LSB, CS_ARCH_ARM64, CS_MODE_ARM, "04000094", 0x11c0, "leaf_a" },
		{ EM_AARCH64, ELFCLASS64, ELFDATA2LSB, CS_ARCH_ARM64, CS_MODE_ARM, "40001836", 0x11c8, "leaf_a" },
		{ EM_AARCH64, ELFCLASS64, ELFDATA2LSB, CS_ARCH_ARM64, CS_MODE_ARM, "c0035fd6", 0x11c0, NULL },
		{ EM_ARM, ELFCLASS32, ELFDATA2LSB, CS_ARCH_ARM, CS_MODE_ARM, "020000eb", 0x11c0, "leaf_a" },
		{ EM_ARM, ELFCLASS32, ELFDATA2LSB, CS_ARCH_ARM, CS_MODE_ARM, "1eff2fe1", 0x11c0, NULL },
		{ EM_MIPS, ELFCLASS32, ELFDATA2MSB, CS_ARCH_MIPS, CS_MODE_MIPS32 | CS_MODE_BIG_ENDIAN,
		  "0c000474", 0x1000, "leaf_a" },
		{ EM_MIPS, ELFCLASS32, ELFDATA2MSB, CS_ARCH_MIPS, CS_MODE_MIPS32 | CS_MODE_BIG_ENDIAN,
		  "10800002", 0x11c4, "leaf_a" },
		{ EM_MIPS, ELFCLASS32, ELFDATA2MSB, CS_ARCH_MIPS, CS_MODE_MIPS32 | CS_MODE_BIG_ENDIAN,
		  "03e00008", 0x11c0, NULL },
		{ EM_PPC64, ELFCLASS64, ELFDATA2LSB, CS_ARCH_PPC, CS_MODE_64 | CS_MODE_LITTLE_ENDIAN,
		  "11000048", 0x11c0, "leaf_a" },
		{ EM_PPC64, ELFCLASS64, ELFDATA2LSB, CS_ARCH_PPC, CS_MODE_64 | CS_MODE_LITTLE_ENDIAN,
		  "08008241", 0x11c8, "leaf_a" },
		{ EM_PPC64, ELFCLASS64, ELFDATA2LSB, CS_ARCH_PPC, CS_MODE_64 | CS_MODE_LITTLE_ENDIAN,
		  "2000804e", 0x11c0, NULL },
		{ EM_SPARCV9, ELFCLASS64, ELFDATA2MSB, CS_ARCH_SPARC, CS_MODE_V9 | CS_MODE_BIG_ENDIAN,
		  "40000004", 0x11c0, "leaf_a" },
		{ EM_S390, ELFCLASS64, ELFDATA2MSB, CS_ARCH_SYSZ, CS_MODE_BIG_ENDIAN,
		  "c0e500000008", 0x11c0, "leaf_a" },
		{ EM_S390, ELFCLASS64, ELFDATA2MSB, CS_ARCH_SYSZ, CS_MODE_BIG_ENDIAN, "07fe", 0x11c0, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		struct decoder *d = new_decoder(m[i].machine, m[i].class, m[i].data, 0, DECODE_ATT);
		const char *want;
		struct insn *v;
		size_t len;

		TEST_NOTE("machine %d: %s at 0x%" PRIx64, m[i].machine, m[i].hex, m[i].at);
		if (!CHECK(d))
			continue;
		free(unhex(m[i].hex, &len));
		want = capstone_text(m[i].arch, m[i].mode, DECODE_ATT, m[i].hex, m[i].at);
		if (CHECK_EQ_INT(run(d, m[i].hex, 0, m[i].at, &v), 1)) {
			CHECK_EQ_INT(v[0].size, len);
			CHECK_STR(v[0].text, m[i].sym ? with_symbol(want, m[i].sym) : want);
		}
		free(v);
		decoder_free(d);
	}
}

TEST(machines)
{
	static const struct { int machine, class, data; } ok[] = {
		{ EM_X86_64, ELFCLASS64, ELFDATA2LSB }, { EM_386, ELFCLASS32, ELFDATA2LSB },
		{ EM_AARCH64, ELFCLASS64, ELFDATA2LSB }, { EM_ARM, ELFCLASS32, ELFDATA2LSB },
		{ EM_MIPS, ELFCLASS32, ELFDATA2MSB }, { EM_PPC64, ELFCLASS64, ELFDATA2LSB },
		{ EM_PPC, ELFCLASS32, ELFDATA2MSB }, { EM_SPARCV9, ELFCLASS64, ELFDATA2MSB },
		{ EM_S390, ELFCLASS64, ELFDATA2MSB }, { EM_68K, ELFCLASS32, ELFDATA2MSB },
	};
	struct fake_elf f;
	struct err e = { { 0 } };
	struct decoder *d;

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		d = new_decoder(ok[i].machine, ok[i].class, ok[i].data, 0, DECODE_ATT);
		TEST_NOTE("machine %d", ok[i].machine);
		CHECK(d);
		decoder_free(d);
	}
	d = decoder_new(fake_elf(&f, EM_RISCV, ELFCLASS64, ELFDATA2LSB, 0), DECODE_ATT, &e);
	CHECK(!d);
	CHECK_CONTAINS(e.msg, "243");
	CHECK_CONTAINS(e.msg, "capstone");
	elf_end(f.elf);
	decoder_free(NULL);
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
 * exactly n bytes so that the sanitizers catch a read past them: the
 * instructions must come in order inside the range without overlapping,
 * each of at least one byte, with text.
 */
static void fuzz(struct decoder *d, int rounds)
{
	static const uint8_t hot[] = { 0x00, 0x0f, 0x66, 0x67, 0xf2, 0xf3, 0x48, 0x41, 0x62,
				       0xc4, 0xc5, 0x8f, 0x2e, 0x3e, 0x64, 0xf0, 0xd8, 0xdc };
	int bad = 0;

	for (int r = 0; r < rounds; r++) {
		size_t n = 1 + rng() % 64, nv = 0, cap = 0, end = 0;
		uint8_t *code = xmalloc(n);
		struct insn *v = NULL;
		uint64_t addr = (uint64_t)rng() << 12;

		for (size_t i = 0; i < n; i++)
			code[i] = rng() % 3 ? (uint8_t)rng() : hot[rng() % ARRAY_SIZE(hot)];
		decode(d, code, n, addr, r & 1 ? test_lookup : NULL, NULL, &v, &nv, &cap);
		for (size_t i = 0; i < nv; i++) {
			if (v[i].size == 0 || v[i].addr < addr + end ||
			    v[i].addr + v[i].size > addr + n ||
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

/*
 * A decoder for bounds only (--list's) ends instructions where a whole
 * one does, fwaits joined, MIPS and SPARC delay slots kept, and makes no
 * text.
 */
TEST(bounds_only)
{
	static const struct { int machine, class, data; } m[] = {
		{ EM_X86_64, ELFCLASS64, ELFDATA2LSB }, { EM_386, ELFCLASS32, ELFDATA2LSB },
		{ EM_AARCH64, ELFCLASS64, ELFDATA2LSB }, { EM_MIPS, ELFCLASS32, ELFDATA2MSB },
		{ EM_SPARCV9, ELFCLASS64, ELFDATA2MSB }, { EM_S390, ELFCLASS64, ELFDATA2MSB },
	};
	static const char *const fixed[] = {
		"9b d9 7c 24 02 c3",            /* x86: fwait fnstcw, ret */
		"10800002 00000000 00000000 00000000 03e00008", /* MIPS: a branch, zeros in its slot */
	};

	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		struct decoder *d = new_decoder(m[i].machine, m[i].class, m[i].data, 0, DECODE_ATT);
		struct decoder *b = new_decoder(m[i].machine, m[i].class, m[i].data, 0, DECODE_ATT);
		int differ = 0, texts = 0;

		TEST_NOTE("machine %d", m[i].machine);
		if (!CHECK(d && b)) {
			decoder_free(d);
			decoder_free(b);
			continue;
		}
		decoder_bounds_only(b);
		for (int r = 0; r < 2000 + (int)ARRAY_SIZE(fixed); r++) {
			size_t n, nv = 0, cap = 0, nb = 0, capb = 0;
			struct insn *v = NULL, *w = NULL;
			uint8_t *code;

			if (r < (int)ARRAY_SIZE(fixed)) {
				code = unhex(fixed[r], &n);
			} else {
				n = 1 + rng() % 48;
				code = xmalloc(n);
				for (size_t k = 0; k < n; k++)
					code[k] = rng() % 3 ? (uint8_t)rng() : 0;
			}
			decode(d, code, n, 0x1000, test_lookup, NULL, &v, &nv, &cap);
			decode(b, code, n, 0x1000, test_lookup, NULL, &w, &nb, &capb);
			differ += nv != nb;
			for (size_t k = 0; k < nv && k < nb; k++) {
				differ += v[k].addr != w[k].addr || v[k].size != w[k].size;
				texts += w[k].text[0] && strcmp(w[k].text, "(bad)");
			}
			free(v);
			free(w);
			free(code);
		}
		CHECK_EQ_INT(differ, 0);
		CHECK_EQ_INT(texts, 0);
		decoder_free(d);
		decoder_free(b);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return dump_main(argc, argv);
	RUN(x86_64_lengths_and_text);
	RUN(boundaries_of_a_routine);
	RUN(x86_targets);
	RUN(bad_bytes);
	RUN(zero_runs);
	RUN(fwait);
	RUN(other_machines);
	RUN(machines);
	RUN(random_bytes);
	RUN(bounds_only);
	return test_done();
}
