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

#include "names.h"
#include "objects.h"
#include "strbuf.h"
#include "symbolize.h"
#include "util.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

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

static int function_symbol(void *ctx, uint64_t addr, const char **name, const char **raw,
			   uint64_t *value)
{
	struct module *m = ctx;
	const struct elfsym *sym = elfsyms_find_function(&m->fn_syms, m->fn_elf, addr);

	if (!sym)
		return -1;
	*name = sym->name;
	*raw = sym->raw;
	*value = sym->value;
	return 0;
}

static void module_load_syms(struct symbolizer *s, struct module *m)
{
	struct strbuf dbg = STRBUF_INIT;
	Dwarf_Addr bias;
	Dwarf *dw;

	/* nm reads /usr/lib/debug/PATH instead of PATH when it exists. */
	if (m->path[0] == '/') {
		sb_addf(&dbg, "/usr/lib/debug%s", m->path);
		if (!is_regular_file(dbg.buf)) {
			sb_adds(&dbg, ".debug");
			if (!is_regular_file(dbg.buf))
				sb_reset(&dbg);
		}
	}
	m->nm_fd = -1;
	if (dbg.len && (m->nm_fd = open_regular(dbg.buf)) >= 0)
		m->nm_elf = elf_begin(m->nm_fd, ELF_C_READ_MMAP, NULL);
	if (!elfsyms_read(m->nm_elf ? m->nm_elf : m->elf, 0, s->strings, &m->nm_syms)) {
		elfsyms_release(&m->nm_syms);
		elfsyms_read(m->nm_elf ? m->nm_elf : m->elf, ELFSYMS_DYNAMIC | ELFSYMS_VERSIONS,
			     s->strings, &m->nm_syms);
	}
	bounds_build(&m->nm_syms, &m->bounds);
	sb_release(&dbg);

	dw = m->mod ? dwfl_module_getdwarf(m->mod, &bias) : NULL;
	if (dw) {
		Elf *de = dwarf_getelf(dw);

		m->dw = dwindex_new(m->mod, s->strings, function_symbol, m);
		if (de && de != m->elf) {
			dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, NULL, &m->debug_file);
			if (elfsyms_read(de, 0, s->strings, &m->fn_syms))
				m->fn_elf = de;
			else
				elfsyms_release(&m->fn_syms);
		}
	}
	if (!m->fn_elf) {
		m->fn_elf = m->elf;
		if (!elfsyms_read(m->elf, 0, s->strings, &m->fn_syms)) {
			elfsyms_release(&m->fn_syms);
			elfsyms_read(m->elf, ELFSYMS_DYNAMIC, s->strings, &m->fn_syms);
		}
	}
}

static struct module *module_get(struct symbolizer *s, const char *path)
{
	struct module *m;
	size_t i;

	for (i = 0; i < s->nmods; i++)
		if (!strcmp(s->mods[i]->path, path))
			return s->mods[i];
	m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(path);
	m->nm_fd = -1;
	m->order = s->nmods;
	GROW(s->mods, s->cap_mods, s->nmods + 1);
	s->mods[s->nmods++] = m;
	m->fd = open_regular(path);
	if (m->fd < 0) {
		if (!s->quiet)
			warnf("cannot open '%s': %s; its addresses stay unsymbolized", path,
			      errno == EINVAL ? "not a regular file" : strerror(errno));
		return m;
	}
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF) {
		if (!s->quiet)
			warnf("'%s' is not an ELF file; its addresses stay unsymbolized", path);
		return m;
	}
	m->dwfl = dwfl_begin(&callbacks);
	if (m->dwfl) {
		dwfl_report_begin(m->dwfl);
		m->mod = dwfl_report_elf(m->dwfl, path, path, -1, 0, true);
		dwfl_report_end(m->dwfl, NULL, NULL);
	}
	module_load_syms(s, m);
	if (!m->nm_syms.n && !m->dw && !s->quiet)
		warnf("'%s' has no symbols and no debug information; its addresses stay unnamed",
		      path);
	m->ok = 1;
	return m;
}

static void module_free(struct module *m)
{
	dwindex_free(m->dw);
	bounds_release(&m->bounds);
	elfsyms_release(&m->nm_syms);
	elfsyms_release(&m->fn_syms);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	if (m->nm_elf)
		elf_end(m->nm_elf);
	if (m->nm_fd >= 0)
		close(m->nm_fd);
	if (m->elf)
		elf_end(m->elf);
	if (m->fd >= 0)
		close(m->fd);
	free(m->path);
	free(m);
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
 * else the path itself.  With verbose, says which paths were tried.
 */
static char *find_library(const struct symbolize_options *o, const char *path)
{
	const char *suffix = path;
	struct strbuf tried = STRBUF_INIT;

	if (o->nlib_prefix) {
		for (;;) {
			size_t i;

			for (i = 0; i < o->nlib_prefix; i++) {
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

/* Module address of a mapping's start, from the PT_LOAD holding its offset. */
static uint64_t mapping_adjust(const struct module *m, const struct mapping *mp)
{
	size_t n, i;

	if (m->elf && elf_getphdrnum(m->elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(m->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (mp->offset >= ph.p_offset && mp->offset < ph.p_offset + ph.p_filesz)
				return mp->start - (mp->offset - ph.p_offset + ph.p_vaddr);
		}
	}
	return mp->start - mp->offset;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static void add_lib(struct symbolizer *s, const char *path, struct mapping *mp, size_t rank)
{
	struct lib *l;

	GROW(s->libs, s->cap_libs, s->nlibs + 1);
	l = &s->libs[s->nlibs++];
	l->path = xstrdup(path);
	l->m = NULL;
	l->mapping = mp;
	l->start = mp->start;
	l->end = mp->limit;
	l->adjust = 0;
	l->rank = rank;
}

/* Opens a library's object at its first address, so unused ones cost nothing. */
struct module *lib_module(struct symbolizer *s, struct lib *l)
{
	if (!l->m) {
		l->m = module_get(s, l->path);
		l->adjust = mapping_adjust(l->m, l->mapping);
	}
	return l->m;
}

struct module *program_module(struct symbolizer *s)
{
	if (!s->program && s->o->program)
		s->program = module_get(s, s->o->program);
	return s->program;
}

/*
 * The library serving a: the one starting last at or below a whose range
 * (end included, as pprof has it) holds a.  libs are by decreasing start;
 * max_end[j] is the largest end among libs[j..], to stop the scan early.
 */
struct lib *find_lib(struct symbolizer *s, uint64_t a)
{
	size_t lo = 0, hi = s->nlibs, j;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->libs[mid].start > a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (j = lo; j < s->nlibs && a <= s->max_end[j]; j++)
		if (a <= s->libs[j].end)
			return &s->libs[j];
	return NULL;
}

static int cmp_lib_desc(const void *a, const void *b)
{
	const struct lib *x = a, *y = b;

	return x->start > y->start ? -1 : x->start < y->start;
}

void symbolizer_init(struct symbolizer *s, const struct profile *prof, struct profile *strings,
		     const struct symbolize_options *o)
{
	char *prog_real = NULL;
	size_t i;
	int main_found = 0;

	memset(s, 0, sizeof(*s));
	s->prof = prof;
	s->strings = strings;
	s->o = o;
	if (o->program)
		prog_real = realpath(o->program, NULL);
	/* Which mapping is the program: its exact path, else its base name. */
	for (i = 0; i < s->prof->nmapping && o->program; i++) {
		const char *f = s->prof->mapping[i]->file;

		if ((prog_real && !strcmp(f, prog_real)) || !strcmp(base_name(f), base_name(o->program)))
			main_found = 1;
	}
	for (i = 0; i < s->prof->nmapping; i++) {
		struct mapping *mp = s->prof->mapping[i];
		const char *f = mp->file;

		if (o->program && ((prog_real && !strcmp(f, prog_real)) ||
				   !strcmp(base_name(f), base_name(o->program)))) {
			add_lib(s, o->program, mp, i);
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
		qsort(s->libs, s->nlibs, sizeof(*s->libs), cmp_lib_desc);
	s->max_end = xcalloc(s->nlibs + 1, sizeof(*s->max_end));
	for (i = s->nlibs; i-- > 0;)
		s->max_end[i] = i + 1 < s->nlibs && s->max_end[i + 1] > s->libs[i].end
					? s->max_end[i + 1] : s->libs[i].end;
	free(prog_real);
}

/* addr2line -f -i -C for one module address: frames innermost first. */
int addr2line(struct module *m, uint64_t addr, struct frame *fr)
{
	struct dwframe df[MAX_FRAMES];
	const char *file = NULL;
	int line = 0, n = 0, i;

	if (m->dw)
		n = dwindex_lookup(m->dw, addr, df, MAX_FRAMES, &file, &line);
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	/* pprof only asks for inline chains when it found _fini (see bounds). */
	if (n > 1 && !m->bounds.has_fini)
		n = 1;
	if (n == 0) {
		const struct elfsym *sym = elfsyms_find_function(&m->fn_syms, m->fn_elf, addr);

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

static void symbolize_pc(struct symbolizer *s, struct module *m, struct location *loc,
			 uint64_t addr, struct strbuf *tmp)
{
	struct frame fr[MAX_FRAMES];
	struct line lines[MAX_FRAMES];
	struct profile *p = s->strings;
	const struct elfsym *nm = NULL;
	char pcname[32];
	int n, i, have_nm = m->bounds.n > 0;

	loc->tried = 1;
	n = addr2line(m, addr, fr);
	if (have_nm)
		nm = bounds_lookup(&m->bounds, addr);
	snprintf(pcname, sizeof(pcname), "0x%0*llx", p->address_bits == 32 ? 8 : 16,
		 (unsigned long long)loc->address);
	for (i = 0; have_nm && i < n; i++) {
		if (!fr[i].name) {
			/* addr2line knows nothing: nm's routine, or the bare address. */
			fr[i].name = nm ? nm->name : profile_intern(p, pcname);
			fr[i].raw = nm ? nm->raw : fr[i].name;
			fr[i].symaddr = nm ? nm->value : NO_SYMBOL_ADDRESS;
			continue;
		}
		/* nm's name, tagged with its address, wins when it starts alike. */
		short_function_name(fr[i].name, s->o->keep_templates, tmp);
		if (nm) {
			if (!strncmp(nm->name, tmp->buf, tmp->len)) {
				fr[i].name = nm->name;
				fr[i].raw = nm->raw;
				fr[i].symaddr = nm->value;
			}
		} else if (!strncmp(pcname, tmp->buf, tmp->len)) {
			fr[i].name = fr[i].raw = profile_intern(p, pcname);
		}
	}
	if (n == 1 && !fr[0].name && !fr[0].file) {
		/* Nothing known: no lines. */
		profile_set_lines(p, loc, NULL, 0);
		return;
	}
	for (i = 0; i < n; i++) {
		lines[i].function = profile_function(p, fr[i].name ? fr[i].name : "??",
						     fr[i].raw ? fr[i].raw : "",
						     fr[i].file ? fr[i].file : "", 0, fr[i].symaddr);
		lines[i].line = fr[i].line;
	}
	profile_set_lines(p, loc, lines, (size_t)n);
}

static void verbose_summary(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nmods; i++) {
		struct module *m = s->mods[i];

		fprintf(stderr, "pprof: object '%s': %s", m->path, m->ok ? "read" : "unreadable");
		if (m->ok) {
			const void *id;
			ssize_t n = dwelf_elf_gnu_build_id(m->elf, &id);

			if (n > 0) {
				fputs(", build-id ", stderr);
				for (ssize_t k = 0; k < n; k++)
					fprintf(stderr, "%02x", ((const unsigned char *)id)[k]);
			}
			fprintf(stderr, ", %zu %s symbols", m->nm_syms.n,
				m->nm_syms.dynamic ? "dynamic" : "static");
			if (m->dw)
				fprintf(stderr, ", DWARF%s%s", m->debug_file ? " from " : "",
					m->debug_file ? m->debug_file : "");
			else
				fprintf(stderr, ", no DWARF");
		}
		fputc('\n', stderr);
	}
	for (i = 0; i < s->nlibs; i++)
		fprintf(stderr, "pprof: mapping %llx-%llx offset %llx '%s' -> '%s'%s\n",
			(unsigned long long)s->libs[i].start, (unsigned long long)s->libs[i].end,
			(unsigned long long)s->libs[i].mapping->offset, s->libs[i].mapping->file,
			s->libs[i].path, s->libs[i].m ? "" : " (no samples, not read)");
}

struct work {
	struct location *loc;
	struct module *m;
	uint64_t addr;
};

static int cmp_work(const void *a, const void *b)
{
	const struct work *x = a, *y = b;

	if (x->m != y->m)
		return x->m->order < y->m->order ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int symbolize_profile(struct profile *p, const struct symbolize_options *o, struct err *e)
{
	struct symbolizer s;
	struct strbuf tmp = STRBUF_INIT;
	struct work *work;
	size_t i, nwork = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return err_set(e, "libelf cannot read this ELF version: %s", elf_errmsg(-1));
	symbolizer_init(&s, p, p, o);
	/*
	 * Assign every address its object, then look them up per object in
	 * ascending order: binutils' naming depends on lookup order (dwindex.h).
	 */
	work = xcalloc(p->nlocation + 1, sizeof(*work));
	for (i = 0; i < p->nlocation; i++) {
		struct location *loc = p->location[i];
		uint64_t a = loc->address;
		struct module *m = NULL;
		uint64_t addr = a;

		if (loc->nline)
			continue;
		/* Libraries by decreasing start; ends are inclusive. */
		struct lib *l = find_lib(&s, a);

		if (l) {
			m = lib_module(&s, l);
			addr = a - l->adjust;
		} else {
			/* Everything else is looked up in the program at its own address. */
			m = program_module(&s);
		}
		if (!m || !m->ok)
			continue;
		work[nwork].loc = loc;
		work[nwork].m = m;
		work[nwork].addr = addr;
		nwork++;
	}
	qsort(work, nwork, sizeof(*work), cmp_work);
	for (i = 0; i < nwork; i++)
		symbolize_pc(&s, work[i].m, work[i].loc, work[i].addr, &tmp);
	free(work);
	if (o->verbose)
		verbose_summary(&s);
	symbolizer_release(&s);
	sb_release(&tmp);
	return 0;
}

void symbolizer_release(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nmods; i++)
		module_free(s->mods[i]);
	free(s->mods);
	for (i = 0; i < s->nlibs; i++)
		free(s->libs[i].path);
	free(s->libs);
	free(s->max_end);
	memset(s, 0, sizeof(*s));
}
