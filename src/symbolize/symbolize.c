/* symbolize.c - mapping addresses to object files and naming them like gperftools pprof. */
#include <ctype.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugcache.h"
#include "inflate.h"
#include "names.h"
#include "objects.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"

int symbolize_check_program(const char *path, struct err *e)
{
	int fd = open_regular(path);
	unsigned char magic[4];
	ssize_t n;

	if (fd < 0 && errno == EISDIR)
		return err_set(e, "'%s' is a directory, not a program", path);
	if (fd < 0 && errno == EINVAL)
		return err_set(e, "'%s' is not a regular file, not a program", path);
	if (fd < 0)
		return err_set(e, "cannot open '%s': %s", path, strerror(errno));
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n != 4 || memcmp(magic, ELFMAG, SELFMAG))
		return err_set(e, "'%s' is not an ELF file", path);
	return 0;
}

int object_function_symbol(void *ctx, uint64_t addr, const char **name, const char **raw,
			   uint64_t *value)
{
	struct object *ob = ctx;
	const struct elfsym *sym = elfsyms_find_function(&ob->fn_syms, ob->fn_elf, addr);

	if (!sym)
		return -1;
	*name = sym->name;
	*raw = sym->raw;
	*value = sym->value;
	return 0;
}

/* nm's symbols of ob (object_dwarf reads the rest). */
static void object_load_syms(struct symbolizer *s, struct object *ob)
{
	struct strbuf dbg = STRBUF_INIT;

	/* nm reads /usr/lib/debug/PATH instead of PATH when it exists. */
	if (ob->path[0] == '/') {
		sb_addf(&dbg, "/usr/lib/debug%s", ob->path);
		if (!is_regular_file(dbg.buf)) {
			sb_adds(&dbg, ".debug");
			if (!is_regular_file(dbg.buf))
				sb_reset(&dbg);
		}
	}
	if (dbg.len && (ob->nm_fd = open_regular(dbg.buf)) >= 0)
		ob->nm_elf = elf_begin(ob->nm_fd, ELF_C_READ_MMAP, NULL);
	if (elfsyms_read(ob->nm_elf ? ob->nm_elf : ob->elf, 0, s->set->strings, &ob->nm_syms)) {
		ob->nm_plain = !ob->nm_elf;
	} else {
		elfsyms_release(&ob->nm_syms);
		elfsyms_read(ob->nm_elf ? ob->nm_elf : ob->elf, ELFSYMS_DYNAMIC | ELFSYMS_VERSIONS,
			     s->set->strings, &ob->nm_syms);
	}
	bounds_build(&ob->nm_syms, &ob->bounds);
	sb_release(&dbg);
}

void object_dwarf(struct symbolizer *s, struct object *ob)
{
	Dwarf_Addr bias;
	Dwarf *dw;

	if (ob->dwarf_loaded)
		return;
	ob->dwarf_loaded = 1;
	prefetch_wait(s, ob);
	/* libdwfl finds the debug information: in the file, by build id, debuglink, debuginfod. */
	dw = ob->mod ? dwfl_module_getdwarf(ob->mod, &bias) : NULL;
	if (dw) {
		Elf *de = dwarf_getelf(dw);

		ob->dw = dwindex_new(ob->mod, s->set->strings, object_function_symbol, ob);
		if (s->o->names_only)
			dwindex_names_only(ob->dw);
		if (de && de != ob->elf)
			dwfl_module_info(ob->mod, NULL, NULL, NULL, NULL, NULL, NULL, &ob->debug_file);
		/* DWARF in the object itself: de is libdwfl's handle of the same file. */
		if (de && de != ob->elf && de != dwfl_module_getelf(ob->mod, &bias)) {
			if (elfsyms_read(de, 0, s->set->strings, &ob->fn_syms))
				ob->fn_elf = de;
			else
				elfsyms_release(&ob->fn_syms);
		}
	}
	if (!ob->fn_elf) {
		ob->fn_elf = ob->elf;
		/* The same table nm's view read: a copy, not a second read. */
		if (ob->nm_plain) {
			ob->fn_syms = ob->nm_syms;
			ob->fn_syms.sym = xmalloc(ob->nm_syms.n * sizeof(*ob->fn_syms.sym));
			memcpy(ob->fn_syms.sym, ob->nm_syms.sym, ob->nm_syms.n * sizeof(*ob->fn_syms.sym));
		} else if (!elfsyms_read(ob->elf, 0, s->set->strings, &ob->fn_syms)) {
			elfsyms_release(&ob->fn_syms);
			elfsyms_read(ob->elf, ELFSYMS_DYNAMIC, s->set->strings, &ob->fn_syms);
		}
	}
}

/*
 * Object address of a mapping's start, from the PT_LOAD holding its offset:
 * the mapping's load bias (object address = pc - bias).
 */
static uint64_t mapping_adjust(Elf *elf, const struct mapping *mp)
{
	size_t n, i;

	if (elf && elf_getphdrnum(elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (mp->offset >= ph.p_offset && mp->offset < ph.p_offset + ph.p_filesz)
				return mp->start - (mp->offset - ph.p_offset + ph.p_vaddr);
		}
	}
	return mp->start - mp->offset;
}

/*
 * Hands an opened object to a Dwfl of its own at load bias `bias`; from
 * then on libdwfl owns the descriptor and its Elf serves every reader.
 * Without it (no program headers, say) the object keeps our Elf: symbols
 * but no DWARF.
 */
static void object_report(struct object *ob, uint64_t bias)
{
	Dwfl_Module *mod;
	void **userdata;
	Dwarf_Addr b;
	Elf *elf;
	int copy;

	if (!(ob->dwfl = object_dwfl_begin()))
		return;
	/* Its own compressed DWARF, inflated ahead as separate files' is. */
	if ((copy = debug_sections_inflated(ob->fd)) >= 0) {
		close(ob->fd);
		ob->fd = copy;
	} else {
		/* The file itself: split.c may open it again. */
		ob->reopen = fstat(ob->fd, &ob->st) == 0;
	}
	ob->base = bias;
	dwfl_report_begin(ob->dwfl);
	mod = dwfl_report_elf(ob->dwfl, ob->path, ob->path, ob->fd, bias, true);
	dwfl_report_end(ob->dwfl, NULL, NULL);
	if (!mod)
		return;
	/* For find_debuginfo. */
	if (dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		*userdata = ob;
	ob->fd = -1;
	ob->mod = mod;
	elf = dwfl_module_getelf(mod, &b);
	if (elf) {
		elf_end(ob->elf);
		ob->elf = elf;
	}
}

/*
 * The object at path, opened and reported at the load bias of mapping mp
 * (bias 0 without one) when first asked for.
 */
/* Objects that cannot be read are warned about up to this many, then counted. */
#define MAX_UNREADABLE_WARNINGS 20

/* Whether to warn about one more unreadable object. */
static int warn_unreadable(struct symbolizer *s)
{
	return !s->quiet && s->unreadable++ < MAX_UNREADABLE_WARNINGS;
}

static struct object *object_get(struct symbolizer *s, const char *path, const struct mapping *mp)
{
	struct objset *set = s->set;
	struct object *ob;
	uint64_t h = hash_bytes(path, strlen(path));
	size_t i;
	int mismatch = 0;

	HTAB_FIND(&set->by_path, h, i, !strcmp(set->objs[set->by_path.slot[i].idx - 1]->path, path));
	if (set->by_path.slot[i].idx)
		return set->objs[set->by_path.slot[i].idx - 1];
	ob = xcalloc(1, sizeof(*ob));
	ob->path = xstrdup(path);
	ob->nm_fd = -1;
	ob->order = set->nobjs;
	GROW(set->objs, set->cap, set->nobjs + 1);
	set->objs[set->nobjs++] = ob;
	htab_insert(&set->by_path, i, h, (uint32_t)set->nobjs);
	ob->fd = open_regular(path);
	if (ob->fd >= 0 && !object_is_mapping(path, mp, s->quiet)) {
		close(ob->fd);
		ob->fd = -1;
		mismatch = 1;
	}
	if (ob->fd < 0) {
		int err = errno;

		/* Not here (or another build): the build id may still find it. */
		if (mapping_has_build_id(mp) && object_report_build_id(s, ob, mp) == 0)
			goto found;
		if (!warn_unreadable(s))
			return ob;
		if (mismatch)
			warnf("no file of build id %s for '%s'; its addresses stay unsymbolized",
			      mp->build_id, path);
		else
			warnf("cannot open '%s': %s; its addresses stay unsymbolized", path,
			      err == EINVAL ? "not a regular file" : strerror(err));
		return ob;
	}
	ob->elf = elf_begin(ob->fd, ELF_C_READ_MMAP, NULL);
	if (!ob->elf || elf_kind(ob->elf) != ELF_K_ELF) {
		if (warn_unreadable(s))
			warnf("'%s' is not an ELF file; its addresses stay unsymbolized", path);
		return ob;
	}
	object_report(ob, mp ? mapping_adjust(ob->elf, mp) : 0);
found:
	object_load_syms(s, ob);
	/* Without symbols, whether there is DWARF is wanted now. */
	if (ob->mod && s->defer_dwarf && ob->nm_syms.n)
		prefetch_queue(s, ob);
	else
		object_dwarf(s, ob);
	if (!ob->nm_syms.n && !ob->dw && !s->quiet)
		warnf("'%s' has no symbols and no debug information; its addresses stay unnamed",
		      path);
	ob->ok = 1;
	return ob;
}

static void object_free(struct object *ob)
{
	dwindex_free(ob->dw);
	bounds_release(&ob->bounds);
	elfsyms_release(&ob->nm_syms);
	elfsyms_release(&ob->fn_syms);
	if (ob->nm_elf)
		elf_end(ob->nm_elf);
	if (ob->nm_fd >= 0)
		close(ob->nm_fd);
	/* libdwfl's Elf and descriptor go with dwfl_end. */
	if (!ob->mod && ob->elf)
		elf_end(ob->elf);
	if (ob->fd >= 0)
		close(ob->fd);
	if (ob->dwfl)
		dwfl_end(ob->dwfl);
	free(ob->path);
	free(ob);
}

/* gperftools pprof takes a maps line as a library when the path looks like one. */
static int looks_like_library(const char *path)
{
	static const char *const ext[] = { ".so", ".dll", ".dylib", ".bundle", ".node" };
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < ARRAY_SIZE(ext); i++) {
		const char *q = base, *hit;
		size_t n = strlen(ext[i]);

		/* EXT, then optional version parts (".6", ".0.5.5") to the end. */
		while ((hit = strcasestr(q, ext[i]))) {
			const char *r = hit + n;

			while (*r == '.' && isdigit((unsigned char)r[1])) {
				r++;
				while (isdigit((unsigned char)*r))
					r++;
			}
			while (isalnum((unsigned char)*r) || *r == '_')
				r++;
			if (!*r)
				return 1;
			q = hit + 1;
		}
	}
	return 0;
}

/*
 * The file for a recorded library path, searched under --lib_prefix
 * (/a/b/c.so: P/a/b/c.so for every prefix P, then P/b/c.so, then P/c.so),
 * else the path itself.  A suffix whose ".." components would climb out
 * of a prefix is not searched there.  With verbose, says which paths were
 * tried.
 */
static char *find_library(const struct symbolize_options *o, const char *path)
{
	const char *suffix = path;
	struct strbuf tried = STRBUF_INIT;

	if (o->nlib_prefix) {
		for (;;) {
			size_t i;

			/* /a/../b.so stays in a prefix; its suffix /../b.so does not. */
			for (i = 0; i < o->nlib_prefix && !path_climbs(suffix); i++) {
				struct strbuf sb = STRBUF_INIT;
				struct stat st;
				size_t n = strlen(o->lib_prefix[i]);

				while (n > 0 && o->lib_prefix[i][n - 1] == '/')
					n--;
				sb_add(&sb, o->lib_prefix[i], n);
				sb_adds(&sb, suffix);
				if (stat(sb.buf, &st) == 0) {
					sb_release(&tried);
					return sb.buf;
				}
				sb_addf(&tried, " %s", sb.buf);
				sb_release(&sb);
			}
			/* Drop the leading directory: /a/b/c.so -> /b/c.so. */
			if (suffix[0] != '/')
				break;
			{
				const char *next = strchr(suffix + 1, '/');

				if (!next)
					break;
				suffix = next;
			}
		}
	}
	if (o->verbose && tried.len)
		fprintf(stderr, "pprof: '%s' not found under --lib_prefix (tried:%s)\n", path,
			tried.buf);
	sb_release(&tried);
	return xstrdup(path);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static void add_lib(struct symbolizer *s, const char *path, const struct mapping *mp, size_t rank)
{
	struct lib *l;

	GROW(s->libs, s->cap_libs, s->nlibs + 1);
	l = &s->libs[s->nlibs++];
	l->path = xstrdup(path);
	l->obj = NULL;
	l->mapping = mp;
	l->start = mp->start;
	l->end = mp->limit;
	l->adjust = 0;
	l->rank = rank;
}

/* The object's build id as lowercase hex, "" when it has none. */
static void build_id_hex(Elf *elf, char *buf, size_t n)
{
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &id);
	ssize_t i;

	buf[0] = 0;
	for (i = 0; len > 0 && i < len && (size_t)(2 * i + 2) < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
}

/*
 * Why ob cannot be the file the profile saw at mapping mp, or NULL: another
 * build id; the same path replaced since (same device, other inode); or a
 * loaded segment at the mapping's offset that would map to another size.
 */
static const char *stale_reason(const struct object *ob, const struct mapping *mp, char *buf,
				size_t n)
{
	char id[2 * 64 + 1], *real;
	struct stat st;
	size_t i, nph, page = (size_t)sysconf(_SC_PAGESIZE);
	int same_path;

	build_id_hex(ob->elf, id, sizeof(id));
	if (mp->build_id[0] && id[0] && strcasecmp(mp->build_id, id)) {
		snprintf(buf, n, "its build id is %s, the profile's %s", id, mp->build_id);
		return buf;
	}
	real = mp->inode ? realpath(ob->path, NULL) : NULL;
	same_path = real && !strcmp(real, mp->file);
	free(real);
	/* Some file systems (overlays) show device 00:00 in /proc/self/maps. */
	if (same_path && stat(ob->path, &st) == 0 && (!mp->device || st.st_dev == mp->device) &&
	    st.st_ino != mp->inode) {
		snprintf(buf, n, "it was replaced after the profile was taken (inode %llu, was %llu)",
			 (unsigned long long)st.st_ino, (unsigned long long)mp->inode);
		return buf;
	}
	if (!mp->inode || elf_getphdrnum(ob->elf, &nph) != 0 || !page)
		return NULL;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t lo, hi;

		if (!gelf_getphdr(ob->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || mp->offset != (ph.p_offset & ~(uint64_t)(page - 1)))
			continue;
		lo = ph.p_vaddr & ~(uint64_t)(page - 1);
		hi = (ph.p_vaddr + ph.p_memsz + page - 1) & ~(uint64_t)(page - 1);
		if (hi - lo == mp->limit - mp->start)
			return NULL;
		snprintf(buf, n, "its code would map %llu bytes, the profile's %llu",
			 (unsigned long long)(hi - lo), (unsigned long long)(mp->limit - mp->start));
		return buf;
	}
	snprintf(buf, n, "no code segment of it starts at the profile's offset 0x%llx",
		 (unsigned long long)mp->offset);
	return buf;
}

/* Opens a library's object at its first address, so unused ones cost nothing. */
struct object *lib_object(struct symbolizer *s, struct lib *l)
{
	if (!l->obj) {
		char why[256];
		const char *r;

		l->obj = object_get(s, l->path, l->mapping);
		l->adjust = mapping_adjust(l->obj->elf, l->mapping);
		if (l->obj->ok && !l->obj->stale_warned && !s->quiet &&
		    (r = stale_reason(l->obj, l->mapping, why, sizeof(why)))) {
			warnf("'%s' is not the file the profile was taken with: %s; "
			      "its names may be wrong", l->obj->path, r);
			l->obj->stale_warned = 1;
		}
	}
	return l->obj;
}

struct object *program_object(struct symbolizer *s)
{
	const struct mapping *mp = NULL;
	size_t i;

	if (s->program || !s->o->program)
		return s->program;
	/* Reported where the profile saw it loaded, if it did. */
	for (i = 0; i < s->nlibs && !mp; i++)
		if (!strcmp(s->libs[i].path, s->o->program))
			mp = s->libs[i].mapping;
	s->program = object_get(s, s->o->program, mp);
	return s->program;
}

/*
 * The library serving a: of those whose range (end included, as pprof has
 * it) holds a, the one starting last, and among equal starts the first
 * mapping.
 */
struct lib *find_lib(struct symbolizer *s, uint64_t a)
{
	size_t k = range_index_find(&s->by_addr, a);

	return k == RANGE_NONE ? NULL : &s->libs[s->by_rank[k]];
}

static int cmp_lib(const void *a, const void *b)
{
	const struct lib *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->rank > y->rank ? -1 : x->rank < y->rank;
}

static void libs_release(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nlibs; i++)
		free(s->libs[i].path);
	s->nlibs = 0;
	range_index_release(&s->by_addr);
	free(s->by_rank);
	s->by_rank = NULL;
}

static int cmp_rank(const void *a, const void *b, void *libs)
{
	const struct lib *l = libs;
	size_t x = l[*(const size_t *)a].rank, y = l[*(const size_t *)b].rank;

	return x < y ? -1 : x > y;
}

/* find_lib's index: the libraries in mapping order, so that the first wins a tie. */
static void index_libs(struct symbolizer *s)
{
	uint64_t *lo = xcalloc(s->nlibs + 1, sizeof(*lo));
	uint64_t *last = xcalloc(s->nlibs + 1, sizeof(*last));
	size_t i;

	s->by_rank = xcalloc(s->nlibs + 1, sizeof(*s->by_rank));
	for (i = 0; i < s->nlibs; i++)
		s->by_rank[i] = i;
	qsort_r(s->by_rank, s->nlibs, sizeof(*s->by_rank), cmp_rank, s->libs);
	for (i = 0; i < s->nlibs; i++) {
		lo[i] = s->libs[s->by_rank[i]].start;
		last[i] = s->libs[s->by_rank[i]].end;
	}
	range_index_build(&s->by_addr, lo, last, s->nlibs);
	free(lo);
	free(last);
}

void symbolizer_plan(struct symbolizer *s)
{
	const struct symbolize_options *o = s->o;
	char *prog_real = NULL;
	size_t i;
	int main_found = 0;

	libs_release(s);
	if (o->program)
		prog_real = realpath(o->program, NULL);
	/* Which mapping is the program: its exact path, else its base name. */
	for (i = 0; i < s->prof->nmapping && o->program; i++) {
		const char *f = s->prof->mapping[i]->file;

		if ((prog_real && !strcmp(f, prog_real)) || !strcmp(base_name(f), base_name(o->program)))
			main_found = 1;
	}
	for (i = 0; i < s->prof->nmapping; i++) {
		const struct mapping *mp = s->prof->mapping[i];
		const char *f = mp->file;
		char *found;

		/* The server names what no object of a known build id does. */
		if (o->server && !o->program && !mapping_has_build_id(mp))
			continue;
		if (o->add_lib && !strcmp(f, o->add_lib)) {
			add_lib(s, f, mp, i);
		} else if (o->program && ((prog_real && !strcmp(f, prog_real)) ||
				   !strcmp(base_name(f), base_name(o->program)))) {
			add_lib(s, o->program, mp, i);
		} else if ((found = locate_object(mp, s->quiet))) {
			add_lib(s, found, mp, i);
			free(found);
		} else if (looks_like_library(f)) {
			char *path = find_library(o, f);

			add_lib(s, path, mp, i);
			free(path);
		} else if (o->program && !main_found && f[0] == '/') {
			/*
			 * The program at another path than the profile recorded:
			 * the first executable mapping that is no library is it.
			 */
			add_lib(s, o->program, mp, i);
			main_found = 1;
		} else if (!o->program && f[0] == '/') {
			add_lib(s, f, mp, i);
		}
	}
	if (s->nlibs > 1)
		qsort(s->libs, s->nlibs, sizeof(*s->libs), cmp_lib);
	index_libs(s);
	free(prog_real);
}

static char *debuginfo_path;

/* Whether the ELF file open on fd has the build id hex (as elf_build_id_hex writes it). */
static int has_build_id(int fd, const char *hex)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	char have[2 * 64 + 1];
	int same = elf_build_id_hex(elf, have, sizeof(have)) && !strcmp(have, hex);

	if (elf)
		elf_end(elf);
	return same;
}

/*
 * The inflated copy of the debug file open on fd, of build id hex: the
 * cache's (debugcache.h), else made here and kept there (*how says which,
 * DEBUG_COPY_*).  -1 when the file has nothing to inflate, or (*wrong
 * set) another build id.
 */
static int inflated_copy(int fd, const char *hex, int *wrong, int *how)
{
	struct inflate_plan *pl = inflate_plan(fd);
	uint64_t size;
	int copy;

	*wrong = 0;
	if (!pl)
		return -1;
	size = inflate_plan_size(pl);
	if ((copy = debug_cache_open(hex, size)) >= 0) {
		if (has_build_id(copy, hex)) {
			*how = DEBUG_COPY_CACHED;
			goto out;
		}
		close(copy);
	}
	if ((copy = inflate_plan_copy(pl)) >= 0) {
		if (has_build_id(copy, hex)) {
			*how = debug_cache_add(hex, copy, size) ? DEBUG_COPY_KEPT : DEBUG_COPY_MADE;
		} else {
			close(copy);
			copy = -1;
			*wrong = 1;
		}
	}
out:
	inflate_plan_free(pl);
	return copy;
}

/*
 * The module's debug file in a .build-id directory of debuginfo_path, as
 * libdwfl finds it, with its compressed sections inflated (inflate.h); -1
 * when there is none or it has nothing to inflate.  libdwfl's own search
 * cannot be followed by the copy: it keeps the Elf it opened to check the
 * build id.
 */
static int inflated_by_build_id(Dwfl_Module *mod, char **debuginfo_file_name, int *how)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &id, &vaddr), i, fd, copy = -1, wrong;
	char hex[2 * 64 + 1];
	struct strbuf path = STRBUF_INIT;
	char *dirs, *p, *dir;

	if (len < 2 || len > 64 || !debuginfo_path)
		return -1;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	dirs = xstrdup(debuginfo_path);
	for (p = dirs; (dir = strsep(&p, ":"));) {
		/* Absolute directories only, as libdwfl has it. */
		if (*dir != '/')
			continue;
		sb_reset(&path);
		sb_addf(&path, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if ((fd = open_regular(path.buf)) < 0)
			continue;
		copy = inflated_copy(fd, hex, &wrong, how);
		close(fd);
		if (wrong)
			continue;
		/* The first file libdwfl would take, inflated or left to it. */
		break;
	}
	if (copy >= 0)
		*debuginfo_file_name = xstrdup(path.buf);
	free(dirs);
	sb_release(&path);
	return copy;
}

/*
 * Whether libdwfl asks for the module's own debug file: it passes the
 * object's debug link (NULL without one), and asks for a dwz file, named
 * by the debug file's .gnu_debugaltlink and of another build id, with it.
 */
static int own_debug_file(Dwfl_Module *mod, const char *debuglink_file)
{
	Dwarf_Addr bias;
	GElf_Word crc;
	Elf *elf;

	if (!debuglink_file)
		return 1;
	elf = dwfl_module_getelf(mod, &bias);
	return elf && dwelf_elf_gnu_debuglink(elf, &crc) == debuglink_file;
}

/*
 * libdwfl's search for separate debug information, compressed sections
 * inflated ahead.  The module's user data is its object (object_report),
 * told how its debug file was inflated.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int how = DEBUG_COPY_NONE;
	int fd = own_debug_file(mod, debuglink_file) ?
		 inflated_by_build_id(mod, debuginfo_file_name, &how) : -1;

	if (fd >= 0) {
		if (userdata && *userdata)
			((struct object *)*userdata)->debug_copy = how;
		return fd;
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

/*
 * libdwfl calls section_address to place the sections of a relocatable
 * object (a .o given as the program) that it has not placed itself.
 */
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Without a Dwfl (out of memory), an object is read for its symbols only. */
Dwfl *object_dwfl_begin(void)
{
	return dwfl_begin(&callbacks);
}

void symbolizer_init(struct symbolizer *s, const struct profile *prof, struct profile *strings,
		     const struct symbolize_options *o)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < SHORT_MEMO; i++)
		sb_init(&s->short_memo[i].shrt);
	if (!debuginfo_path)
		debuginfo_path = locate_debuginfo_path();
	s->prof = prof;
	s->strings = strings;
	s->o = o;
	s->split_min = SPLIT_MIN;
	s->set = &s->own;
	s->own.strings = strings;
	htab_init(&s->own.by_path, 64);
	if (o->cache && !o->cache->prof && strings == prof) {
		o->cache->prof = prof;
		o->cache->set.strings = strings;
	}
	if (o->cache && o->cache->prof == prof)
		s->set = &o->cache->set;
	symbolizer_plan(s);
}

struct symbolize_cache *symbolize_cache_new(void)
{
	struct symbolize_cache *c = xcalloc(1, sizeof(*c));

	htab_init(&c->set.by_path, 64);
	return c;
}

static void objset_release(struct objset *set)
{
	size_t i;

	for (i = 0; i < set->nobjs; i++)
		object_free(set->objs[i]);
	free(set->objs);
	htab_release(&set->by_path);
	memset(set, 0, sizeof(*set));
}

void symbolize_cache_free(struct symbolize_cache *c)
{
	if (!c)
		return;
	objset_release(&c->set);
	free(c);
}

/* addr2line -f -i -C for one object address: frames innermost first. */
int addr2line(struct object *ob, uint64_t addr, struct frame *fr, uint64_t *same)
{
	struct dwframe df[MAX_FRAMES];
	const char *file = NULL;
	int line = 0, n = 0, i;

	if (same)
		*same = 1;
	if (ob->dw)
		n = dwindex_lookup(ob->dw, addr, df, MAX_FRAMES, &file, &line, same);
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	/* pprof only asks for inline chains when it found _fini (see bounds). */
	if (n > 1 && !ob->bounds.has_fini)
		n = 1;
	if (n == 0) {
		const struct elfsym *sym = elfsyms_find_function(&ob->fn_syms, ob->fn_elf, addr);

		fr[0].name = sym ? sym->name : NULL;
		fr[0].raw = sym ? sym->raw : NULL;
		fr[0].file = file ? file : sym ? sym->file : NULL;
		fr[0].line = line;
		fr[0].symaddr = NO_SYMBOL_ADDRESS;
		return 1;
	}
	for (i = 0; i < n; i++) {
		fr[i].name = df[i].name;
		fr[i].raw = df[i].raw;
		fr[i].file = df[i].file;
		fr[i].line = df[i].line;
		fr[i].symaddr = NO_SYMBOL_ADDRESS;
	}
	return n;
}

/*
 * short_function_name of a frame's name (interned, so known by its
 * pointer): neighbouring addresses are in the same functions, so the last
 * result per inline level is kept.
 */
static const struct strbuf *short_name(struct symbolizer *s, int level, const char *name,
				       struct strbuf *tmp)
{
	struct short_memo *m = level < SHORT_MEMO ? &s->short_memo[level] : NULL;

	if (m && m->full == name)
		return &m->shrt;
	if (!m) {
		short_function_name(name, s->o->keep_templates, tmp);
		return tmp;
	}
	short_function_name(name, s->o->keep_templates, &m->shrt);
	m->full = name;
	return &m->shrt;
}

static const char *pc_name(struct profile *p, uint64_t pc)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%0*llx", p->address_bits == 32 ? 8 : 16,
		 (unsigned long long)pc);
	return profile_intern(p, buf);
}

int name_frames(struct symbolizer *s, struct object *ob, uint64_t addr, const uint64_t *pc,
		struct frame *fr, struct strbuf *tmp, uint64_t *same)
{
	struct profile *p = s->strings;
	const struct elfsym *nm = NULL;
	int n, i, have_nm = ob->bounds.n > 0, bare = 0;

	n = addr2line(ob, addr, fr, same);
	if (have_nm) {
		uint64_t end;

		nm = bounds_lookup_near(&ob->bounds, addr, &bare, &ob->bounds_hint, &end);
		/* Up to the routine's end; without one, frames may be named after pc. */
		if (same) {
			uint64_t upto = nm ? end - addr : 1;

			if (upto < *same)
				*same = upto;
		}
	}
	for (i = 0; have_nm && i < n; i++) {
		const struct strbuf *shrt;

		if (!fr[i].name) {
			/* addr2line knows nothing: nm's routine, or the bare address. */
			fr[i].name = nm ? nm->name : pc_name(p, *pc);
			fr[i].raw = nm ? nm->raw : fr[i].name;
			fr[i].symaddr = nm && !bare ? nm->value : NO_SYMBOL_ADDRESS;
			continue;
		}
		/* nm's name, tagged with its address, wins when it starts alike. */
		shrt = short_name(s, i, fr[i].name, tmp);
		if (nm) {
			if (!strncmp(nm->name, shrt->buf, shrt->len)) {
				fr[i].name = nm->name;
				fr[i].raw = nm->raw;
				fr[i].symaddr = bare ? NO_SYMBOL_ADDRESS : nm->value;
			}
		} else {
			const char *pcname = pc_name(p, *pc);

			if (!strncmp(pcname, shrt->buf, shrt->len))
				fr[i].name = fr[i].raw = pcname;
		}
	}
	return n;
}

void symbolize_pc(struct symbolizer *s, struct object *ob, struct location *loc, uint64_t addr,
		  struct strbuf *tmp, struct last_lines *last)
{
	struct frame fr[MAX_FRAMES];
	struct line lines[MAX_FRAMES];
	struct profile *p = s->strings;
	int n, i;

	loc->tried = 1;
	if (last->ob == ob && addr >= last->addr && addr - last->addr < last->same) {
		/* One array for them all: fewer bytes for every pass over the lines after. */
		profile_share_lines(loc, last->loc);
		return;
	}
	/* The location is written next, not read: its address only if nothing names it. */
	n = name_frames(s, ob, addr, &loc->address, fr, tmp, &last->same);
	last->ob = ob;
	last->addr = addr;
	last->loc = loc;
	if (n == 1 && !fr[0].name && !fr[0].file) {
		/* Nothing known: no lines. */
		profile_set_lines(p, loc, NULL, 0);
		return;
	}
	for (i = 0; i < n; i++) {
		struct function_memo *m = i < FUNCTION_MEMO ? &s->function_memo[i] : NULL;

		/* Neighbouring addresses name the same functions: keep the last per level. */
		if (m && m->f && m->name == fr[i].name && m->raw == fr[i].raw &&
		    m->file == fr[i].file && m->symaddr == fr[i].symaddr) {
			lines[i].function = m->f;
		} else {
			lines[i].function = profile_function(p, fr[i].name ? fr[i].name : "??",
							     fr[i].raw ? fr[i].raw : "",
							     fr[i].file ? fr[i].file : "", 0,
							     fr[i].symaddr);
			if (m) {
				m->name = fr[i].name;
				m->raw = fr[i].raw;
				m->file = fr[i].file;
				m->symaddr = fr[i].symaddr;
				m->f = lines[i].function;
			}
		}
		lines[i].line = fr[i].line;
	}
	profile_set_lines(p, loc, lines, (size_t)n);
}

/* --verbose's words for DEBUG_COPY_*. */
static const char *const copy_notes[] = {
	"", " (inflated)", " (inflated, kept in the cache)", " (inflated, from the cache)"
};

static void verbose_summary(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->set->nobjs; i++) {
		struct object *ob = s->set->objs[i];

		fprintf(stderr, "pprof: object '%s': %s", ob->path, ob->ok ? "read" : "unreadable");
		if (ob->ok) {
			const void *id;
			ssize_t n = dwelf_elf_gnu_build_id(ob->elf, &id);

			if (n > 0) {
				fputs(", build-id ", stderr);
				for (ssize_t k = 0; k < n; k++)
					fprintf(stderr, "%02x", ((const unsigned char *)id)[k]);
			}
			fprintf(stderr, ", %zu %s symbols", ob->nm_syms.n,
				ob->nm_syms.dynamic ? "dynamic" : "static");
			if (ob->dw)
				fprintf(stderr, ", DWARF%s%s%s", ob->debug_file ? " from " : "",
					ob->debug_file ? ob->debug_file : "", copy_notes[ob->debug_copy]);
			else
				fprintf(stderr, ", no DWARF");
		}
		fputc('\n', stderr);
	}
	/* pprof's order: the latest start first. */
	for (i = s->nlibs; i-- > 0;) {
		const struct lib *l = &s->libs[i];

		fprintf(stderr, "pprof: mapping %llx-%llx offset %llx '%s' -> '%s'%s\n",
			(unsigned long long)l->start, (unsigned long long)l->end,
			(unsigned long long)l->mapping->offset, l->mapping->file, l->path,
			l->obj ? "" : " (no samples, not read)");
	}
}

void symbolize_locations(struct symbolizer *s, struct profile *p)
{
	struct strbuf tmp = STRBUF_INIT;
	struct last_lines last = { 0 };
	struct work *work, *by_object;
	uint64_t *addrs;
	uint32_t *order;
	size_t *start, i, o, nobjs, nwork = 0;

	/*
	 * Assign every address its object, then look them up per object in
	 * ascending order: binutils' naming depends on lookup order (dwindex.h).
	 */
	work = xcalloc_lines(p->nlocation + 1, sizeof(*work));
	order = xcalloc_lines(p->nlocation + 1, sizeof(*order));
	s->defer_dwarf = 1;
	for (i = 0; i < p->nlocation; i++) {
		struct location *loc = p->location[i];
		struct object *ob;
		struct lib *l;
		uint64_t addr = loc->address;

		if (loc->nline)
			continue;
		/* Libraries by decreasing start; ends are inclusive. */
		if ((l = find_lib(s, addr))) {
			ob = lib_object(s, l);
			addr -= l->adjust;
		} else {
			/* Everything else is looked up in the program at its own address. */
			ob = program_object(s);
		}
		if (!ob || !ob->ok)
			continue;
		work[nwork].loc = loc;
		work[nwork].addr = addr;
		order[nwork] = (uint32_t)ob->order;
		nwork++;
	}
	s->defer_dwarf = 0;
	prefetch_start(s);
	/* Grouped by object (one stable pass), then each group sorted by address. */
	nobjs = s->set->nobjs;
	start = xcalloc(nobjs + 1, sizeof(*start));
	for (i = 0; i < nwork; i++)
		start[order[i] + 1]++;
	for (o = 0; o < nobjs; o++)
		start[o + 1] += start[o];
	if (nwork && start[order[0] + 1] - start[order[0]] < nwork) {
		by_object = xcalloc_lines(nwork + 1, sizeof(*by_object));
		for (i = 0; i < nwork; i++)
			by_object[start[order[i]]++] = work[i];
		/* Each start is now its group's end, the next one's start. */
		memmove(start + 1, start, nobjs * sizeof(*start));
		start[0] = 0;
		free(work);
		work = by_object;
	}
	free(order);
	memset(s->function_memo, 0, sizeof(s->function_memo));
	addrs = xcalloc_lines(nwork + 1, sizeof(*addrs));
	for (o = 0; o < nobjs; o++) {
		struct object *ob = s->set->objs[o];
		size_t from = start[o], to = start[o + 1];

		if (from == to)
			continue;
		sort_by_key(work + from, to - from, sizeof(*work), NULL);
		for (i = from; i < to; i++)
			addrs[i] = work[i].addr;
		object_dwarf(s, ob);
		/* Many addresses: half the units may go to a second thread. */
		if (split_lookups(s, ob, work + from, addrs + from, to - from))
			continue;
		/* Line tables keep only the rows of these addresses. */
		if (ob->dw)
			dwindex_want(ob->dw, addrs + from, to - from);
		for (i = from; i < to; i++) {
			/* In address order the locations are scattered: hint the ones ahead. */
			if (i + 8 < to)
				hint_write(work[i + 8].loc);
			symbolize_pc(s, ob, work[i].loc, work[i].addr, &tmp, &last);
		}
	}
	free(start);
	prefetch_finish(s);
	/*
	 * The objects outlive addrs: units read after this keep every row.
	 * Kept for listings, they forget the units read so far, which have
	 * only the rows of these addresses.
	 */
	for (i = 0; i < s->set->nobjs; i++) {
		struct dwindex *dw = s->set->objs[i]->dw;

		if (dw)
			dwindex_want(dw, NULL, 0);
		if (dw && s->set != &s->own)
			dwindex_forget(dw);
	}
	free(addrs);
	free(work);
	sb_release(&tmp);
	if (s->o->verbose && !s->quiet)
		verbose_summary(s);
}

int symbolize_profile(struct profile *p, const struct symbolize_options *o, struct err *e)
{
	struct symbolizer s;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "libelf cannot read this ELF version: %s", elf_errmsg(-1));
	symbolizer_init(&s, p, p, o);
	symbolize_locations(&s, p);
	symbolizer_release(&s);
	return o->server ? symbolize_remote(p, o, e) : 0;
}

void symbolizer_release(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < SHORT_MEMO; i++)
		sb_release(&s->short_memo[i].shrt);

	if (!s->quiet && s->unreadable > MAX_UNREADABLE_WARNINGS)
		warnf("%zu more objects could not be read; their addresses stay unsymbolized",
		      s->unreadable - MAX_UNREADABLE_WARNINGS);

	objset_release(&s->own);
	libs_release(s);
	free(s->libs);
	memset(s, 0, sizeof(*s));
}
