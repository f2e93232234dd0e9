/* test_elfsym.c - unit tests for ELF symbol tables as nm reads them (src/symbolize/elfsym.h). */
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "harness.h"
#include "profile.h"
#include "util.h"

/* One symbol to write: its name, value, section index and st_info. */
struct wsym {
	const char *name;
	uint64_t value;
	uint16_t shndx;
	unsigned char info;
};

enum { SEC_TEXT = 1, SEC_DATA, SEC_BSS, SEC_RODATA, SEC_SYMTAB, SEC_STRTAB, SEC_SHSTRTAB, NSEC };

/* An image in memory: header, .symtab, .strtab, .shstrtab, then the section headers. */
struct image {
	unsigned char *buf;
	size_t len;
	Elf *elf;
};

static size_t put(unsigned char *buf, size_t at, const void *p, size_t n)
{
	memcpy(buf + at, p, n);
	return at + n;
}

/* An x86-64 executable whose .symtab holds syms[0..n) after the null symbol, in that order. */
static Elf *image_new(struct image *im, const struct wsym *syms, size_t n)
{
	static const char shstr[] = "\0.text\0.data\0.bss\0.rodata\0.symtab\0.strtab\0.shstrtab";
	static const unsigned shname[NSEC] = { 0, 1, 7, 13, 18, 26, 34, 42 };
	size_t strsz = 1, i, at, symoff, stroff, shstroff, shoff;
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[NSEC];
	Elf64_Sym s;
	unsigned nlocal = 1;

	for (i = 0; i < n; i++) {
		strsz += strlen(syms[i].name) + 1;
		if (GELF_ST_BIND(syms[i].info) == STB_LOCAL)
			nlocal = (unsigned)i + 2;
	}
	symoff = sizeof(eh);
	stroff = symoff + (n + 1) * sizeof(s);
	shstroff = stroff + strsz;
	shoff = (shstroff + sizeof(shstr) + 7) & ~(size_t)7;
	im->len = shoff + sizeof(sh);
	im->buf = calloc(1, im->len);

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(sh[0]);
	eh.e_shnum = NSEC;
	eh.e_shstrndx = SEC_SHSTRTAB;
	put(im->buf, 0, &eh, sizeof(eh));

	/* The symbols, their names after the first NUL of .strtab. */
	memset(&s, 0, sizeof(s));
	at = put(im->buf, symoff, &s, sizeof(s));
	for (i = 0, strsz = 1; i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.st_name = (Elf64_Word)strsz;
		s.st_value = syms[i].value;
		s.st_shndx = syms[i].shndx;
		s.st_info = syms[i].info;
		s.st_size = 4;
		at = put(im->buf, at, &s, sizeof(s));
		put(im->buf, stroff + strsz, syms[i].name, strlen(syms[i].name) + 1);
		strsz += strlen(syms[i].name) + 1;
	}
	put(im->buf, shstroff, shstr, sizeof(shstr));

	memset(sh, 0, sizeof(sh));
	for (i = 1; i < NSEC; i++)
		sh[i].sh_name = shname[i], sh[i].sh_addralign = 1;
	/* The allocated sections' bytes are never read: the progbits ones hold the header's. */
	sh[SEC_TEXT].sh_type = SHT_PROGBITS, sh[SEC_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[SEC_TEXT].sh_addr = 0x1000;
	sh[SEC_DATA].sh_type = SHT_PROGBITS, sh[SEC_DATA].sh_flags = SHF_ALLOC | SHF_WRITE;
	sh[SEC_DATA].sh_addr = 0x3000;
	sh[SEC_BSS].sh_type = SHT_NOBITS, sh[SEC_BSS].sh_flags = SHF_ALLOC | SHF_WRITE;
	sh[SEC_BSS].sh_addr = 0x4000, sh[SEC_BSS].sh_size = 0x100;
	sh[SEC_RODATA].sh_type = SHT_PROGBITS, sh[SEC_RODATA].sh_flags = SHF_ALLOC;
	sh[SEC_RODATA].sh_addr = 0x5000;
	sh[SEC_TEXT].sh_size = sh[SEC_DATA].sh_size = sh[SEC_RODATA].sh_size = sizeof(eh);
	sh[SEC_SYMTAB].sh_type = SHT_SYMTAB, sh[SEC_SYMTAB].sh_offset = symoff;
	sh[SEC_SYMTAB].sh_size = (n + 1) * sizeof(s), sh[SEC_SYMTAB].sh_entsize = sizeof(s);
	sh[SEC_SYMTAB].sh_link = SEC_STRTAB, sh[SEC_SYMTAB].sh_info = nlocal;
	sh[SEC_SYMTAB].sh_addralign = 8;
	sh[SEC_STRTAB].sh_type = SHT_STRTAB, sh[SEC_STRTAB].sh_offset = stroff;
	sh[SEC_STRTAB].sh_size = strsz;
	sh[SEC_SHSTRTAB].sh_type = SHT_STRTAB, sh[SEC_SHSTRTAB].sh_offset = shstroff;
	sh[SEC_SHSTRTAB].sh_size = sizeof(shstr);
	put(im->buf, shoff, sh, sizeof(sh));

	elf_version(EV_CURRENT);
	im->elf = elf_memory((char *)im->buf, im->len);
	return im->elf;
}

static void image_free(struct image *im)
{
	elf_end(im->elf);
	free(im->buf);
}

#define FUNC(bind) GELF_ST_INFO(bind, STT_FUNC)
#define OBJ(bind) GELF_ST_INFO(bind, STT_OBJECT)

/*
 * nm's order: by address, then by name, then as in the file; nm's class
 * letters by section and binding; names without a mangling or a version
 * are the file's (one interned string), STT_FILE and undefined symbols
 * are no entries.
 */
TEST(order_and_classes)
{
	static const struct wsym syms[] = {
		{ "zeta.c", 0, SHN_ABS, GELF_ST_INFO(STB_LOCAL, STT_FILE) },
		{ "b_alias", 0x1100, SEC_TEXT, FUNC(STB_LOCAL) },
		{ "a_alias", 0x1100, SEC_TEXT, FUNC(STB_LOCAL) },
		{ "counter", 0x4010, SEC_BSS, OBJ(STB_LOCAL) },
		{ "table", 0x5000, SEC_RODATA, OBJ(STB_GLOBAL) },
		{ "main", 0x1000, SEC_TEXT, FUNC(STB_GLOBAL) },
		{ "c_alias", 0x1100, SEC_TEXT, FUNC(STB_GLOBAL) },
		{ "a_alias", 0x1100, SEC_TEXT, FUNC(STB_WEAK) },
		{ "state", 0x3008, SEC_DATA, OBJ(STB_GLOBAL) },
		{ "undefined", 0, SHN_UNDEF, FUNC(STB_GLOBAL) },
		{ "weak_var", 0x3000, SEC_DATA, OBJ(STB_WEAK) },
		{ "version", 0x10, SHN_ABS, OBJ(STB_GLOBAL) },
		{ "_Z3fooi", 0x1200, SEC_TEXT, FUNC(STB_GLOBAL) },
	};
	/* value, raw name, class, bind */
	static const struct {
		uint64_t value;
		const char *raw;
		char class;
		int bind;
	} want[] = {
		{ 0x10, "version", 'A', STB_GLOBAL },
		{ 0x1000, "main", 'T', STB_GLOBAL },
		{ 0x1100, "a_alias", 't', STB_LOCAL },
		{ 0x1100, "a_alias", 'W', STB_WEAK },
		{ 0x1100, "b_alias", 't', STB_LOCAL },
		{ 0x1100, "c_alias", 'T', STB_GLOBAL },
		{ 0x1200, "_Z3fooi", 'T', STB_GLOBAL },
		{ 0x3000, "weak_var", 'V', STB_WEAK },
		{ 0x3008, "state", 'D', STB_GLOBAL },
		{ 0x4010, "counter", 'b', STB_LOCAL },
		{ 0x5000, "table", 'R', STB_GLOBAL },
	};
	struct profile *p = profile_new();
	struct image im;
	struct elfsyms t;
	size_t i;

	if (!CHECK(image_new(&im, syms, ARRAY_SIZE(syms)) != NULL))
		return;
	CHECK_EQ_INT(elfsyms_read(im.elf, 0, p, &t), ARRAY_SIZE(want));
	for (i = 0; i < t.n && i < ARRAY_SIZE(want); i++) {
		CHECK_EQ_U64(t.sym[i].value, want[i].value);
		CHECK_STR(t.sym[i].raw, want[i].raw);
		CHECK_EQ_INT(t.sym[i].nm_class, want[i].class);
		CHECK_EQ_INT(t.sym[i].bind, want[i].bind);
		if (strcmp(want[i].raw, "_Z3fooi"))
			CHECK(t.sym[i].name == t.sym[i].raw);
		else
			CHECK_STR(t.sym[i].name, "foo(int)");
	}
	/* Local symbols after a file symbol are that file's. */
	CHECK(t.n > 2 && t.sym[2].file && !strcmp(t.sym[2].file, "zeta.c"));
	elfsyms_release(&t);
	image_free(&im);
	profile_free(p);
}

/* The reference order of many symbols, worked out apart: a stable sort of their places. */
static const struct wsym *ref_syms;

static int ref_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c;

	if (ref_syms[x].value != ref_syms[y].value)
		return ref_syms[x].value < ref_syms[y].value ? -1 : 1;
	c = strcmp(ref_syms[x].name, ref_syms[y].name);
	return c ? c : (x > y) - (x < y);
}

/*
 * Thousands of symbols on few addresses and few names, many equal in
 * both, then all on one address: read in the order of address, name and
 * place in the file (told apart by their class letters: the bindings vary
 * from one to the next).
 */
TEST(many_ties)
{
	enum { N = 3000 };
	static const unsigned spread[] = { 64, 1 };
	struct wsym *syms = calloc(N, sizeof(*syms));
	char (*names)[16] = calloc(N, sizeof(*names));
	size_t *order = calloc(N, sizeof(*order));
	unsigned seed = 12345;
	size_t i, pass;

	for (pass = 0; pass < ARRAY_SIZE(spread); pass++) {
		struct profile *p = profile_new();
		struct image im;
		struct elfsyms t;
		size_t wrong = 0;

		for (i = 0; i < N; i++) {
			seed = seed * 1103515245 + 12345;
			snprintf(names[i], sizeof(names[i]), "s%u", (seed >> 16) % 40);
			syms[i].name = names[i];
			seed = seed * 1103515245 + 12345;
			syms[i].value = 0x1000 + ((seed >> 16) % spread[pass]) * 4;
			syms[i].shndx = SEC_TEXT;
			syms[i].info = FUNC(i % 3 == 0 ? STB_LOCAL : i % 3 == 1 ? STB_GLOBAL : STB_WEAK);
			order[i] = i;
		}
		ref_syms = syms;
		qsort(order, N, sizeof(*order), ref_cmp);
		if (CHECK(image_new(&im, syms, N) != NULL)) {
			CHECK_EQ_INT(elfsyms_read(im.elf, 0, p, &t), N);
			for (i = 0; i < t.n && i < N; i++) {
				const struct wsym *w = &syms[order[i]];
				char class = GELF_ST_BIND(w->info) == STB_LOCAL ? 't' :
					     GELF_ST_BIND(w->info) == STB_GLOBAL ? 'T' : 'W';

				if (t.sym[i].value != w->value || strcmp(t.sym[i].raw, w->name) ||
				    t.sym[i].nm_class != class)
					wrong++;
			}
			CHECK_EQ_INT(wrong, 0);
			elfsyms_release(&t);
			image_free(&im);
		}
		profile_free(p);
	}
	free(order);
	free(names);
	free(syms);
}

int main(void)
{
	RUN(order_and_classes);
	RUN(many_ties);
	return test_done();
}
