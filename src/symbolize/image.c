/* image.c - where a range of link-time addresses lies in an object file (for DCPI images). */
#include <gelf.h>
#include <unistd.h>

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
