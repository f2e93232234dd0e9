/* test_inflate.c - compressed DWARF sections inflated ahead of libdw (src/symbolize/inflate.h). */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "inflate.h"

/*
 * Seeds of the ELF fuzzing harness: each -zdebug one is its plain one
 * after objcopy --compress-debug-sections=zlib.
 */
#define SEEDS "tests/fuzz/elf/seeds/"

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	*n = fread(buf, 1, (size_t)len, f);
	fclose(f);
	return buf;
}

/* A memory file holding n bytes at buf. */
static int memory_file(const unsigned char *buf, size_t n)
{
	int fd = memfd_create("test-inflate", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, buf, n) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The named section of elf, its header in *sh; NULL when there is none. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *s;

		if (gelf_getshdr(scn, sh) && (s = elf_strptr(elf, strndx, sh->sh_name)) &&
		    !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/*
 * The copy of the compressed seed: every section of the plain seed with
 * the same bytes, uncompressed, but location lists, which are empty; the
 * code and symbols where they were.
 */
static void same_as_plain(const char *plain_path, const char *packed_path)
{
	int pfd = open(plain_path, O_RDONLY | O_CLOEXEC);
	int zfd = open(packed_path, O_RDONLY | O_CLOEXEC);
	int copy = zfd >= 0 ? debug_sections_inflated(zfd) : -1;
	Elf *plain = NULL, *packed = NULL, *out = NULL;
	Elf_Scn *scn = NULL;
	size_t strndx, compared = 0, emptied = 0;

	if (!CHECK(pfd >= 0 && zfd >= 0) || !CHECK(copy >= 0))
		goto done;
	plain = elf_begin(pfd, ELF_C_READ, NULL);
	packed = elf_begin(zfd, ELF_C_READ, NULL);
	out = elf_begin(copy, ELF_C_READ, NULL);
	if (!CHECK(plain && packed && out) || elf_getshdrstrndx(plain, &strndx))
		goto done;
	while ((scn = elf_nextscn(plain, scn))) {
		GElf_Shdr a, b, c;
		const char *name = elf_strptr(plain, strndx, gelf_getshdr(scn, &a)->sh_name);
		Elf_Scn *ps = section(packed, name, &b), *os = section(out, name, &c);
		Elf_Data *x, *y;

		if (!CHECK(ps && os)) {
			TEST_NOTE("    %s: no section %s", packed_path, name);
			continue;
		}
		CHECK(!(c.sh_flags & SHF_COMPRESSED));
		if (b.sh_flags & SHF_COMPRESSED && (!strcmp(name, ".debug_loc") ||
						    !strcmp(name, ".debug_loclists"))) {
			emptied += CHECK(c.sh_type == SHT_NOBITS && c.sh_size == 0);
			continue;
		}
		/* What was not compressed is where it was. */
		if (!(b.sh_flags & SHF_COMPRESSED))
			CHECK(c.sh_offset == b.sh_offset && c.sh_size == b.sh_size);
		if (a.sh_type == SHT_NOBITS)
			continue;
		x = elf_rawdata(scn, NULL);
		y = elf_rawdata(os, NULL);
		if (CHECK(x && y && x->d_size == y->d_size) &&
		    !CHECK(!memcmp(x->d_buf, y->d_buf, x->d_size)))
			TEST_NOTE("    %s: %s differs", packed_path, name);
		compared++;
	}
	CHECK(compared > 5);
	TEST_NOTE("    %s: %zu sections compared, %zu emptied", packed_path, compared, emptied);
done:
	if (plain)
		elf_end(plain);
	if (packed)
		elf_end(packed);
	if (out)
		elf_end(out);
	if (copy >= 0)
		close(copy);
	if (pfd >= 0)
		close(pfd);
	if (zfd >= 0)
		close(zfd);
}

TEST(copies_inflate)
{
	same_as_plain(SEEDS "x86_64-static", SEEDS "x86_64-static-zdebug");
	same_as_plain(SEEDS "i386-static-dwarf4", SEEDS "i386-static-zdebug");
}

/* Nothing to inflate, or not a file: -1, and the caller reads what it has. */
TEST(nothing_to_do)
{
	size_t n;
	unsigned char *plain = slurp(SEEDS "x86_64-static", &n);
	int fd, p[2];

	if (!CHECK(plain))
		return;
	fd = memory_file(plain, n);
	CHECK_EQ_INT(debug_sections_inflated(fd), -1);
	close(fd);
	fd = memory_file((const unsigned char *)"not an ELF file at all, just words", 34);
	CHECK_EQ_INT(debug_sections_inflated(fd), -1);
	close(fd);
	if (CHECK(pipe(p) == 0)) {
		CHECK_EQ_INT(debug_sections_inflated(p[0]), -1);
		close(p[0]);
		close(p[1]);
	}
	free(plain);
}

/* The offset of .debug_info's header in the 64-bit compressed seed at buf. */
static size_t info_header(const unsigned char *buf, size_t n)
{
	Elf64_Ehdr e;
	size_t i;

	memcpy(&e, buf, sizeof(e));
	for (i = 1; i < e.e_shnum; i++) {
		Elf64_Shdr s, names;

		memcpy(&s, buf + e.e_shoff + i * sizeof(s), sizeof(s));
		memcpy(&names, buf + e.e_shoff + e.e_shstrndx * sizeof(s), sizeof(s));
		if (e.e_shoff + (i + 1) * sizeof(s) <= n && (s.sh_flags & SHF_COMPRESSED) &&
		    !strcmp((const char *)buf + names.sh_offset + s.sh_name, ".debug_info"))
			return e.e_shoff + i * sizeof(s);
	}
	return 0;
}

/*
 * Hostile or damaged files are left to libdw: a compressed section cut
 * short, claiming a byte more than it inflates to, claiming far more than
 * deflate can give, compressed by zstd, lying over the section headers;
 * the file cut anywhere.
 */
TEST(damaged_left_alone)
{
	size_t n, at, cut;
	unsigned char *orig = slurp(SEEDS "x86_64-static-zdebug", &n), *buf;
	Elf64_Shdr s;
	Elf64_Chdr c;
	int fd, bad = 0;

	if (!CHECK(orig) || !CHECK((at = info_header(orig, n)) != 0))
		return;
	buf = malloc(n);
	memcpy(&s, orig + at, sizeof(s));
	memcpy(&c, orig + s.sh_offset, sizeof(c));
	for (int kind = 0; kind < 5; kind++) {
		Elf64_Shdr s2 = s;
		Elf64_Chdr c2 = c;

		memcpy(buf, orig, n);
		if (kind == 0)
			s2.sh_size -= 3;
		else if (kind == 1)
			c2.ch_size++;
		else if (kind == 2)
			c2.ch_size = s.sh_size * 1000;
		else if (kind == 3)
			c2.ch_type = 2;   /* ELFCOMPRESS_ZSTD */
		else
			s2.sh_offset = at - 8;
		memcpy(buf + at, &s2, sizeof(s2));
		memcpy(buf + s.sh_offset, &c2, sizeof(c2));
		fd = memory_file(buf, n);
		if (!CHECK_EQ_INT(debug_sections_inflated(fd), -1))
			TEST_NOTE("    damage %d", kind);
		close(fd);
	}
	/* Cut anywhere: a copy, when there is one, is of what remains. */
	for (cut = 0; cut < n; cut += 7) {
		int copy;

		fd = memory_file(orig, cut);
		copy = debug_sections_inflated(fd);
		if (copy >= 0) {
			Elf *elf = elf_begin(copy, ELF_C_READ, NULL);

			bad += !elf;
			if (elf)
				elf_end(elf);
			close(copy);
		}
		close(fd);
	}
	CHECK_EQ_INT(bad, 0);
	free(buf);
	free(orig);
}

int main(void)
{
	elf_version(EV_CURRENT);
	RUN(copies_inflate);
	RUN(nothing_to_do);
	RUN(damaged_left_alone);
	return test_done();
}
