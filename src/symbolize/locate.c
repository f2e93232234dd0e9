/* locate.c - finding a mapping's object file: build ids, PPROF_BINARY_PATH, and libdwfl's build-id lookup (debuginfod). */
#include <elfutils/libdwelf.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "objects.h"
#include "strbuf.h"
#include "util.h"

int elf_build_id_hex(Elf *elf, char *hex, size_t n)
{
	const void *id;
	ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
	ssize_t k;

	hex[0] = '\0';
	if (len <= 0 || (size_t)len * 2 + 1 > n)
		return 0;
	for (k = 0; k < len; k++)
		snprintf(hex + 2 * k, 3, "%02x", ((const unsigned char *)id)[k]);
	return 1;
}

int mapping_has_build_id(const struct mapping *mp)
{
	return mp && mp->build_id && mp->build_id[0];
}

/*
 * Whether the file at path is the object of build id want: 1 when it is
 * (or want is empty and the file is ELF), 0 when it is ELF of another
 * build id (said once, as Go pprof says it), -1 when it cannot be read as ELF.
 */
static int is_object(const char *path, const char *want, int quiet)
{
	char have[2 * 64 + 1];
	int fd = open_regular(path), r = -1;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		r = 1;
		if (want && want[0] && elf_build_id_hex(elf, have, sizeof(have)) &&
		    strcasecmp(have, want)) {
			if (!quiet)
				warnf("ignoring '%s': its build id %s is not the profile's %s", path,
				      have, want);
			r = 0;
		} else if (want && want[0] && !have[0]) {
			if (!quiet)
				warnf("ignoring '%s': it has no build id, the profile's is %s", path, want);
			r = 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Tries DIR/NAME (NAME may be "a/b"); returns it when it is the object. */
static char *try_path(const char *dir, const char *name, const char *want, int quiet)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, dir);
	if (name[0] != '/')
		sb_addc(&sb, '/');
	sb_adds(&sb, name);
	if (is_object(sb.buf, want, quiet) == 1)
		return sb.buf;
	sb_release(&sb);
	return NULL;
}

/* Go pprof's candidates in one directory of PPROF_BINARY_PATH, in its order. */
static char *search_dir(const char *dir, const struct mapping *mp, int quiet)
{
	const char *id = mapping_has_build_id(mp) ? mp->build_id : NULL;
	const char *file = mp->file, *base = base_of(file);
	struct strbuf sb = STRBUF_INIT;
	char *hit = NULL;

	if (id) {
		glob_t g;
		size_t i;

		sb_addf(&sb, "%s/%s", id, base);
		if (base[0] && (hit = try_path(dir, sb.buf, id, quiet)))
			goto done;
		sb_reset(&sb);
		sb_addf(&sb, "%s/%s/*", dir, id);
		if (glob(sb.buf, 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc && !hit; i++)
				if (is_object(g.gl_pathv[i], id, quiet) == 1)
					hit = xstrdup(g.gl_pathv[i]);
			globfree(&g);
			if (hit)
				goto done;
		}
		sb_reset(&sb);
		sb_addf(&sb, "%s/%s", file, id);
		if (file[0] && (hit = try_path(dir, sb.buf, id, quiet)))
			goto done;
	}
	if (file[0] && base[0] && (hit = try_path(dir, base, id, quiet)))
		goto done;
	if (file[0] && strcmp(file, base))
		hit = try_path(dir, file, id, quiet);
done:
	sb_release(&sb);
	return hit;
}

char *locate_object(const struct mapping *mp, int quiet)
{
	const char *env = getenv("PPROF_BINARY_PATH");
	char *dirs, *p, *dir, *hit = NULL;

	if (!env || !*env || !mp)
		return NULL;
	dirs = xstrdup(env);
	for (p = dirs; !hit && (dir = strsep(&p, ":"));)
		if (*dir)
			hit = search_dir(dir, mp, quiet);
	free(dirs);
	return hit;
}

int object_is_mapping(const char *path, const struct mapping *mp, int quiet)
{
	return !mapping_has_build_id(mp) || is_object(path, mp->build_id, quiet) != 0;
}

char *locate_debuginfo_path(void)
{
	const char *env = getenv("PPROF_BINARY_PATH");
	struct strbuf sb = STRBUF_INIT;
	char *dirs, *p, *dir;

	/* libdwfl's default: beside the file, its .debug, /usr/lib/debug. */
	sb_adds(&sb, ":.debug:/usr/lib/debug");
	if (env && *env) {
		dirs = xstrdup(env);
		for (p = dirs; (dir = strsep(&p, ":"));) {
			/* libdwfl looks for .build-id under absolute directories only. */
			char *abs = *dir ? realpath(dir, NULL) : NULL;

			if (abs)
				sb_addf(&sb, ":%s", abs);
			free(abs);
		}
		free(dirs);
	}
	return sb.buf;
}

int object_report_build_id(struct symbolizer *s, struct object *ob, const struct mapping *mp)
{
	unsigned char id[64];
	const char *h = mp->build_id;
	size_t n = strlen(h) / 2, i;
	uint64_t low, high;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Elf *elf;

	if (strlen(h) % 2 || n == 0 || n > sizeof(id))
		return -1;
	for (i = 0; i < n; i++) {
		int hi = hex_digit(h[2 * i]), lo = hex_digit(h[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		id[i] = (unsigned char)(hi << 4 | lo);
	}
	/*
	 * The module is alone in its Dwfl, and lookups go through the bias
	 * libdwfl gives it (dwindex.h): where the file's start would be loaded
	 * is as good a place as any.
	 */
	low = mp->start >= mp->offset ? mp->start - mp->offset : mp->start;
	high = mp->limit > low ? mp->limit : low + 1;
	if (!ob->dwfl && !(ob->dwfl = object_dwfl_begin()))
		return -1;
	dwfl_report_begin(ob->dwfl);
	mod = dwfl_report_module(ob->dwfl, ob->path, low, high);
	if (mod && dwfl_module_report_build_id(mod, id, n, 0) < 0)
		mod = NULL;
	dwfl_report_end(ob->dwfl, NULL, NULL);
	/* libdwfl's find_elf: .build-id directories, then debuginfod. */
	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)))
		return -1;
	ob->mod = mod;
	ob->elf = elf;
	return 0;
}
