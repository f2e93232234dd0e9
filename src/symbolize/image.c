/* image.c - where link-time addresses lie in an object file (DCPI images, --add_lib). */
#include <errno.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "symbolize.h"
#include "util.h"

int symbolize_image_range(const char *path, uint64_t start, uint64_t limit, uint64_t *offset)
{
	int fd = open_regular(path), ret = -1;
	Elf *elf = NULL;
	size_t n, i;

	if (fd < 0)
		return -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0)
		goto out;
	ret = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!(ret & IMAGE_PLACED) && start >= ph.p_vaddr && start - ph.p_vaddr < ph.p_filesz) {
			*offset = start - ph.p_vaddr + ph.p_offset;
			ret |= IMAGE_PLACED;
		}
		if ((ph.p_flags & PF_X) && start >= ph.p_vaddr && limit - ph.p_vaddr <= ph.p_memsz &&
		    start - ph.p_vaddr < ph.p_memsz)
			ret |= IMAGE_EXECUTABLE;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int symbolize_add_library(struct profile *p, const char *path, struct err *e)
{
	static const struct section_want text = { .name = ".text" };
	int fd = open_regular(path), ret = -1;
	Elf *elf = NULL;
	GElf_Shdr sh;
	size_t i;

	if (fd < 0)
		return err_set(e, "--add_lib: cannot open '%s': %s", path, strerror(errno));
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_kind(elf) != ELF_K_ELF) {
		err_set(e, "--add_lib: '%s' is not an ELF file", path);
	} else if (!elf_section_find(elf, NULL, &text, &sh) || !sh.sh_size) {
		err_set(e, "--add_lib: '%s' has no .text section", path);
	} else {
		profile_add_mapping(p, sh.sh_addr, sh.sh_addr + sh.sh_size, sh.sh_offset, path, "");
		/* Its range takes its addresses, as it would had the profile listed it. */
		for (i = 0; i < p->nlocation; i++)
			p->location[i]->mapping = profile_find_mapping(p, p->location[i]->address);
		ret = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
