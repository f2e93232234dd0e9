/* inflate.c - compressed DWARF sections inflated by libdeflate ahead of libdw. */
#include <gelf.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inflate.h"
#include "util.h"

/* Inflated bytes a section may claim per compressed byte (deflate's most is about 1032). */
#define MAX_RATIO 200
/* All of one file's sections together. */
#define MAX_INFLATED ((uint64_t)1 << 32)

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_DATA ELFDATA2MSB
#else
#define HOST_DATA ELFDATA2LSB
#endif

/* The fields of a section header used here, of either class. */
struct shdr {
	uint64_t name, type, flags, offset, size, link, addralign;
};

/* A compressed section to replace. */
struct packed {
	size_t index;           /* in the section header table */
	uint64_t from, size;    /* its bytes in the file: compression header, then zlib data */
	uint64_t hdr;           /* the compression header's size */
	uint64_t to, inflated, align;   /* its place and size in the copy, its alignment */
	int drop;               /* location lists: emptied, not inflated */
	int helper;             /* inflated by the second thread */
	int ok;                 /* inflated to its size */
};

struct file {
	const unsigned char *buf;
	uint64_t size, shoff, shnum;
	uint64_t phoff, phsize;   /* the program header table */
	int is64;
};

static void *header_at(const struct file *f, uint64_t i)
{
	size_t size = f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	return (void *)(f->buf + f->shoff + i * size);
}

static void get_shdr(const struct file *f, uint64_t i, struct shdr *s)
{
	if (f->is64) {
		Elf64_Shdr h;

		memcpy(&h, header_at(f, i), sizeof(h));
		*s = (struct shdr){ h.sh_name, h.sh_type, h.sh_flags, h.sh_offset, h.sh_size,
				    h.sh_link, h.sh_addralign };
	} else {
		Elf32_Shdr h;

		memcpy(&h, header_at(f, i), sizeof(h));
		*s = (struct shdr){ h.sh_name, h.sh_type, h.sh_flags, h.sh_offset, h.sh_size,
				    h.sh_link, h.sh_addralign };
	}
}

/* Section i's header in the copy at out, as s says (its type, flags, offset, size, alignment). */
static void put_shdr(const struct file *f, unsigned char *out, uint64_t i, const struct shdr *s)
{
	unsigned char *at = out + ((const unsigned char *)header_at(f, i) - f->buf);

	if (f->is64) {
		Elf64_Shdr h;

		memcpy(&h, at, sizeof(h));
		h.sh_type = (Elf64_Word)s->type;
		h.sh_flags = s->flags;
		h.sh_offset = s->offset;
		h.sh_size = s->size;
		h.sh_addralign = s->addralign;
		memcpy(at, &h, sizeof(h));
	} else {
		Elf32_Shdr h;

		memcpy(&h, at, sizeof(h));
		h.sh_type = (Elf32_Word)s->type;
		h.sh_flags = (Elf32_Word)s->flags;
		h.sh_offset = (Elf32_Off)s->offset;
		h.sh_size = (Elf32_Word)s->size;
		h.sh_addralign = (Elf32_Word)s->addralign;
		memcpy(at, &h, sizeof(h));
	}
}

/* Whether [off, off + len) lies in the file. */
static int inside(const struct file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

/* The header table's place, count and names; 0 when the file is not one we handle. */
static int read_layout(struct file *f, struct shdr *names)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phys, strndx, entsize;

	if (f->size < sizeof(Elf64_Ehdr))
		return 0;
	memcpy(ident, f->buf, sizeof(ident));
	if (memcmp(ident, ELFMAG, SELFMAG) || ident[EI_DATA] != HOST_DATA ||
	    (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64))
		return 0;
	f->is64 = ident[EI_CLASS] == ELFCLASS64;
	if (f->is64) {
		Elf64_Ehdr e;

		memcpy(&e, f->buf, sizeof(e));
		f->shoff = e.e_shoff, f->shnum = e.e_shnum, strndx = e.e_shstrndx;
		entsize = e.e_shentsize;
		f->phoff = e.e_phoff, f->phsize = (uint64_t)e.e_phnum * e.e_phentsize;
	} else {
		Elf32_Ehdr e;

		memcpy(&e, f->buf, sizeof(e));
		f->shoff = e.e_shoff, f->shnum = e.e_shnum, strndx = e.e_shstrndx;
		entsize = e.e_shentsize;
		f->phoff = e.e_phoff, f->phsize = (uint64_t)e.e_phnum * e.e_phentsize;
	}
	phys = f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (!f->shoff || entsize != phys || !inside(f, f->shoff, phys))
		return 0;
	/* Past 0xff00 sections, the first header holds the count and the names' index. */
	if (!f->shnum || strndx == SHN_XINDEX) {
		struct shdr first;

		get_shdr(f, 0, &first);
		if (!f->shnum)
			f->shnum = first.size;
		if (strndx == SHN_XINDEX)
			strndx = first.link;
	}
	if (f->shnum > (f->size - f->shoff) / phys || strndx >= f->shnum)
		return 0;
	get_shdr(f, strndx, names);
	return names->type != SHT_NOBITS && inside(f, names->offset, names->size);
}

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/*
 * Section i, when it is a zlib-compressed .debug_* section: its part in p
 * and 1; 0 when it is none; -1 when its headers are amiss.
 */
static int compressed_section(const struct file *f, const struct shdr *names, uint64_t i,
			      struct packed *p)
{
	struct shdr s;
	const char *name;
	uint64_t type;

	get_shdr(f, i, &s);
	if (!(s.flags & SHF_COMPRESSED) || s.type == SHT_NOBITS || s.name >= names->size)
		return 0;
	name = (const char *)f->buf + names->offset + s.name;
	if (!memchr(name, 0, names->size - s.name) || strncmp(name, ".debug_", 7))
		return 0;
	memset(p, 0, sizeof(*p));
	p->index = i;
	p->from = s.offset;
	p->size = s.size;
	p->hdr = f->is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
	if (!inside(f, s.offset, s.size) || s.size < p->hdr)
		return -1;
	if (f->is64) {
		Elf64_Chdr c;

		memcpy(&c, f->buf + s.offset, sizeof(c));
		type = c.ch_type, p->inflated = c.ch_size, p->align = c.ch_addralign;
	} else {
		Elf32_Chdr c;

		memcpy(&c, f->buf + s.offset, sizeof(c));
		type = c.ch_type, p->inflated = c.ch_size, p->align = c.ch_addralign;
	}
	if (type != ELFCOMPRESS_ZLIB || p->inflated / MAX_RATIO > s.size)
		return -1;
	if (!is_pow2(p->align) || p->align > 4096)
		p->align = 1;
	p->drop = !strcmp(name, ".debug_loclists") || !strcmp(name, ".debug_loc");
	return 1;
}

static int by_offset(const void *a, const void *b)
{
	const struct packed *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* Whether section p's bytes overlap [from, from + size). */
static int overlaps(const struct packed *p, uint64_t from, uint64_t size)
{
	if (!size || !p->size)
		return 0;
	return from >= p->from ? from - p->from < p->size : p->from - from < size;
}

/*
 * Where each inflated section goes (after the file, aligned); the copy's
 * size, or 0 when the sections overlap the ELF, program or section
 * headers, or claim too much.
 */
static uint64_t place(const struct file *f, struct packed *p, size_t n)
{
	uint64_t end = (f->size + 4095) & ~(uint64_t)4095, total = 0;
	uint64_t table = f->shnum * (f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
	size_t i;

	for (i = 0; i < n; i++) {
		if (overlaps(&p[i], 0, sizeof(Elf64_Ehdr)) || overlaps(&p[i], f->shoff, table) ||
		    (f->phsize && overlaps(&p[i], f->phoff, f->phsize)))
			return 0;
		if (p[i].drop)
			continue;
		total += p[i].inflated;
		if (total > MAX_INFLATED)
			return 0;
		p[i].to = (end + p[i].align - 1) & ~(p[i].align - 1);
		end = p[i].to + p[i].inflated;
	}
	return !f->is64 && end > UINT32_MAX ? 0 : end;
}

/* The sections for one thread to inflate from f into out: those of p[0..n) of its helper. */
struct share {
	const struct file *f;
	struct packed *p;
	size_t n;
	unsigned char *out;
	int helper;
};

static void *inflate_share(void *arg)
{
	const struct share *sh = arg;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t i;

	for (i = 0; i < sh->n; i++) {
		struct packed *p = &sh->p[i];
		size_t got = 0;

		if (p->drop || p->helper != sh->helper || !d)
			continue;
		p->ok = libdeflate_zlib_decompress(d, sh->f->buf + p->from + p->hdr,
						   p->size - p->hdr, sh->out + p->to, p->inflated,
						   &got) == LIBDEFLATE_SUCCESS && got == p->inflated;
	}
	if (d)
		libdeflate_free_decompressor(d);
	return NULL;
}

/* Sections past which a second thread inflates the biggest one: it pays for itself. */
#define HELPER_MIN (1 << 20)

/*
 * The copy at out: every byte of the file but the replaced sections', the
 * sections inflated after it (the biggest by a second thread, when that
 * pays), their headers changed.  0, or -1 when one does not inflate to
 * the size its header gives.
 */
static int write_copy(const struct file *f, struct packed *p, size_t n, unsigned char *out)
{
	struct share mine = { f, p, n, out, 0 }, theirs = { f, p, n, out, 1 };
	uint64_t pos = 0, all = 0, most = 0;
	size_t i, big = 0;
	pthread_t th;
	int helped = 0, ret = 0;

	for (i = 0; i < n; i++) {
		if (p[i].from > pos)
			memcpy(out + pos, f->buf + pos, p[i].from - pos);
		if (p[i].from + p[i].size > pos)
			pos = p[i].from + p[i].size;
		if (p[i].drop)
			continue;
		all += p[i].inflated;
		if (p[i].inflated > most)
			most = p[i].inflated, big = i;
	}
	memcpy(out + pos, f->buf + pos, f->size - pos);
	if (most >= HELPER_MIN && all - most >= HELPER_MIN / 4) {
		p[big].helper = 1;
		helped = pthread_create(&th, NULL, inflate_share, &theirs) == 0;
		if (!helped)
			p[big].helper = 0;
	}
	inflate_share(&mine);
	if (helped)
		pthread_join(th, NULL);
	for (i = 0; i < n; i++) {
		struct shdr s;

		get_shdr(f, p[i].index, &s);
		s.flags &= ~(uint64_t)SHF_COMPRESSED;
		if (p[i].drop) {
			s.type = SHT_NOBITS;
			s.size = 0;
		} else if (!p[i].ok) {
			ret = -1;
		} else {
			s.offset = p[i].to;
			s.size = p[i].inflated;
			s.addralign = p[i].align;
		}
		put_shdr(f, out, p[i].index, &s);
	}
	return ret;
}

struct inflate_plan {
	struct file f;
	void *map;
	struct packed *p;
	size_t n;
	uint64_t total;
};

void inflate_plan_free(struct inflate_plan *pl)
{
	if (!pl)
		return;
	if (pl->map != MAP_FAILED)
		munmap(pl->map, pl->f.size);
	free(pl->p);
	free(pl);
}

struct inflate_plan *inflate_plan(int fd)
{
	struct inflate_plan *pl = xcalloc(1, sizeof(*pl));
	struct shdr names;
	size_t cap = 0;
	uint64_t i, total;
	struct stat st;

	pl->map = MAP_FAILED;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		goto fail;
	pl->f.size = (uint64_t)st.st_size;
	pl->map = mmap(NULL, pl->f.size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (pl->map == MAP_FAILED)
		goto fail;
	pl->f.buf = pl->map;
	if (!read_layout(&pl->f, &names))
		goto fail;
	for (i = 1; i < pl->f.shnum; i++) {
		int r;

		GROW(pl->p, cap, pl->n + 1);
		if ((r = compressed_section(&pl->f, &names, i, &pl->p[pl->n])) < 0)
			goto fail;
		pl->n += (size_t)r;
	}
	if (!pl->n)
		goto fail;
	qsort(pl->p, pl->n, sizeof(*pl->p), by_offset);
	if (!(total = place(&pl->f, pl->p, pl->n)) || total > SIZE_MAX)
		goto fail;
	pl->total = total;
	return pl;
fail:
	inflate_plan_free(pl);
	return NULL;
}

uint64_t inflate_plan_size(const struct inflate_plan *pl)
{
	return pl->total;
}

int inflate_plan_copy(struct inflate_plan *pl)
{
	void *out = MAP_FAILED;
	int mfd = memfd_create("pprof-dwarf", MFD_CLOEXEC), ok = 0;

	if (mfd < 0 || ftruncate(mfd, (off_t)pl->total) < 0)
		goto out;
	out = mmap(NULL, pl->total, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (out == MAP_FAILED)
		goto out;
	ok = write_copy(&pl->f, pl->p, pl->n, out) == 0;
	munmap(out, pl->total);
out:
	if (!ok && mfd >= 0) {
		close(mfd);
		mfd = -1;
	}
	return mfd;
}

int debug_sections_inflated(int fd)
{
	struct inflate_plan *pl = inflate_plan(fd);
	int copy = pl ? inflate_plan_copy(pl) : -1;

	inflate_plan_free(pl);
	return copy;
}
