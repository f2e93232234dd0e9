/* objects.h - the object files behind a profile's addresses, each in a Dwfl of its own (symbolizer internal). */
#ifndef PPROF_OBJECTS_H
#define PPROF_OBJECTS_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>
#include <sys/stat.h>

#include "dwindex.h"
#include "elfsym.h"
#include "htab.h"
#include "profile.h"
#include "ranges.h"
#include "strbuf.h"
#include "symbolize.h"

/*
 * One object file, opened once however many mappings use it, and reported
 * once to its own Dwfl: at the load bias of the mapping that first
 * needed it.  Addresses here are the object's own (as nm and objdump print
 * them); other mappings of the file (pprof looks the program up at raw
 * addresses too) reach it through their own adjustment.
 */
struct object {
	char *path;            /* the file read */
	Elf *elf;              /* libdwfl's when it took the file (mod set), else ours */
	int fd;                /* ours while elf is ours, else -1 */
	Dwfl *dwfl;            /* the object's own Dwfl: objects load apart, on two threads */
	Dwfl_Module *mod;      /* NULL when libdwfl could not take the file */
	struct dwindex *dw;    /* NULL without DWARF */
	int dwarf_loaded;      /* dw and fn_syms are read (object_dwarf) */
	int queued;            /* given to the prefetch thread (set before it starts) */
	int prefetch;          /* PREFETCH_*, under the prefetch lock once queued (prefetch.c) */
	const char *debug_file; /* separate debug info, if found */
	int debug_copy;         /* DEBUG_COPY_*: its debug file inflated, and how (--verbose) */
	/* nm's view, from /usr/lib/debug/PATH when that exists. */
	int nm_fd;
	Elf *nm_elf;
	struct elfsyms nm_syms;
	int nm_plain;          /* nm_syms is the .symtab of elf, as fn_syms would read it */
	struct bounds bounds;
	size_t bounds_hint;    /* the routine of the last lookup (bounds_lookup_near) */
	/* addr2line's symbols: the separate debug file's when it has them. */
	struct elfsyms fn_syms;
	Elf *fn_elf;
	int ok;
	int stale_warned;      /* said once that it is not the profile's file */
	size_t order;          /* creation order, to sort lookups by object */
	/*
	 * The file as opened, so that a second thread may open it again
	 * (split.c): reopen is set when the file itself went to libdwfl, at
	 * load bias base, and st is what fstat said of it then.
	 */
	int reopen;
	struct stat st;
	Dwarf_Addr base;
};

/* A range of addresses served by an object (gperftools pprof's "library"). */
struct lib {
	char *path;            /* file to read, opened at the first address */
	struct object *obj;
	uint64_t start, end;   /* inclusive, as pprof treats them */
	uint64_t adjust;       /* object address = pc - adjust */
	const struct mapping *mapping;
	size_t rank;           /* position of its mapping in the profile */
};

/*
 * A symbolization session: a Dwfl per object of a profile (libdwfl's
 * standard callbacks find separate debug files by build id, .gnu_debuglink
 * and, with DEBUGINFOD_URLS set, debuginfod), and gperftools pprof's
 * libraries over them.  pprof's rules (executable mappings only, ends
 * included, the latest start first, the program at raw addresses for the
 * rest) are not the Dwfl's module ranges that dwfl_addrmodule searches, so
 * find_lib keeps an index of its own over the session's objects.
 */
/* The last results per inline level, for neighbouring addresses (symbolize.c). */
#define SHORT_MEMO 4
#define FUNCTION_MEMO 4

struct short_memo {
	const char *full;      /* an interned name */
	struct strbuf shrt;    /* its short_function_name */
};

struct function_memo {
	const char *name, *raw, *file;
	uint64_t symaddr;
	struct function *f;
};

/*
 * The objects sessions have opened, by path, and where the names read
 * from them are interned (which outlives them).  A session has its own,
 * or uses symbolize_options' cache: the objects symbolize_profile read,
 * lent to the listings of the same profile, which need them again.
 */
struct objset {
	struct object **objs;
	size_t nobjs, cap;
	struct htab by_path;        /* objs by path: a profile may name many */
	struct profile *strings;
};

struct symbolize_cache {
	const struct profile *prof; /* the profile whose names the objects' are in */
	struct objset set;
};

struct symbolizer {
	const struct profile *prof; /* whose mappings name the objects */
	struct profile *strings;    /* where names are interned */
	const struct symbolize_options *o;
	struct objset own, *set;    /* set: own, or the cache's */
	size_t unreadable;     /* objects that could not be read (warned about) */
	struct lib *libs;      /* by ascending start; equal starts, the later mapping first */
	size_t nlibs, cap_libs;
	struct range_index by_addr; /* over by_rank's libs: positions there */
	size_t *by_rank;       /* libs indexes in mapping order */
	struct object *program;
	int quiet;             /* no warnings: symbolization gave them already */
	struct short_memo short_memo[SHORT_MEMO];
	struct function_memo function_memo[FUNCTION_MEMO];
	int defer_dwarf;            /* objects opened now queue their DWARF (prefetch.c) */
	struct prefetch *prefetch;
	size_t split_min;           /* an object's addresses for two threads (split.c); 0: never */
	size_t splits;              /* objects split so */
};

/* An address to look up: the object's own, and the location it names. */
struct work {
	uint64_t addr;         /* first: sort_by_key's key without a function */
	struct location *loc;  /* kept here: in address order p->location[] is read at random */
};

/*
 * The last address looked up, the location given its lines, and how many
 * addresses from it on get the same (name_frames): in address order,
 * neighbours mostly do.
 */
struct last_lines {
	const struct object *ob;
	uint64_t addr, same;
	const struct location *loc;
};

/*
 * Gives loc (at object address addr) its lines, interned in s->strings,
 * and marks it tried.  Addresses of an object go in ascending order.
 */
void symbolize_pc(struct symbolizer *s, struct object *ob, struct location *loc, uint64_t addr,
		  struct strbuf *tmp, struct last_lines *last);
/* dwindex's symbol callback, ctx an object: addr2line's function symbol at addr. */
int object_function_symbol(void *ctx, uint64_t addr, const char **name, const char **raw,
			   uint64_t *value);

/*
 * An object's many addresses (n, ascending in work, addr the same) looked
 * up on two threads (split.c), its units shared out between them: the
 * second reads the object again, for a Dwfl and an index of its own (libdw
 * is not safe across threads).  Each thread makes its lines in a profile
 * of its own; they are then taken over in address order, so that names
 * and functions (made in the same order) come out as one thread would give
 * them: a function's state (dwindex.h) is in its unit.  Returns 1 when the
 * addresses were looked up so, 0 when they are the caller's to look up.
 */
#define SPLIT_MIN 16384    /* addresses of an object before split_lookups shares them out */
int split_lookups(struct symbolizer *s, struct object *ob, struct work *work,
		  const uint64_t *addr, size_t n);

/* How a debug file found by build id was inflated (debugcache.h). */
enum { DEBUG_COPY_NONE, DEBUG_COPY_MADE, DEBUG_COPY_KEPT, DEBUG_COPY_CACHED };

/* A Dwfl with the session's callbacks, for one object; NULL when out of memory. */
Dwfl *object_dwfl_begin(void);
/* Reads ob's DWARF index and addr2line's symbols, once (waiting for the prefetch thread). */
void object_dwarf(struct symbolizer *s, struct object *ob);

/*
 * Reading an object's DWARF (dwfl_module_getdwarf: a separate debug file
 * found, compressed sections inflated: the C library's take 50 ms) on a
 * second thread while the first looks up the addresses of the objects
 * before it (prefetch.c).  While s->defer_dwarf is set, opened objects
 * are queued; prefetch_start starts the thread on them; object_dwarf
 * waits for an object the thread has, and takes back one it has not
 * reached; prefetch_finish joins it.  The thread touches nothing but the
 * queued objects' own Dwfls, which the first thread leaves alone until
 * they are done.
 */
enum { PREFETCH_NONE, PREFETCH_QUEUED, PREFETCH_BUSY, PREFETCH_DONE };
void prefetch_queue(struct symbolizer *s, struct object *ob);
void prefetch_start(struct symbolizer *s);
void prefetch_wait(struct symbolizer *s, struct object *ob);
void prefetch_finish(struct symbolizer *s);

/*
 * Starts a session for prof's mappings and plans their libraries as
 * gperftools pprof does (the program, objects that look like shared
 * libraries, found under --lib_prefix); objects are opened on first use.
 * Names are interned in strings, those read from objects in the set's.
 * With o->cache, a session of prof's own names (strings is prof) takes
 * the cache for its objects, if no other profile has, and later sessions
 * for prof use them.
 */
void symbolizer_init(struct symbolizer *s, const struct profile *prof, struct profile *strings,
		     const struct symbolize_options *o);
/* Plans the libraries again, after mappings were added to the profile. */
void symbolizer_plan(struct symbolizer *s);
void symbolizer_release(struct symbolizer *s);

/* The library whose range holds a, or NULL. */
struct lib *find_lib(struct symbolizer *s, uint64_t a);
/* A library's object (opened now if needed); check ->ok before use. */
struct object *lib_object(struct symbolizer *s, struct lib *l);
/* The program named on the command line, at its own addresses, or NULL. */
struct object *program_object(struct symbolizer *s);
/*
 * Fills in the lines of p's locations that have none, then with --verbose
 * describes the objects and libraries on stderr.
 */
void symbolize_locations(struct symbolizer *s, struct profile *p);

/*
 * Build ids and where objects are found (locate.c).  A mapping with a
 * build id is served only by a file of that build id: the recorded path
 * when it matches, else one found by it.
 */
/* The GNU build id note of elf as lowercase hex in hex (n bytes); 0 when none. */
int elf_build_id_hex(Elf *elf, char *hex, size_t n);
int mapping_has_build_id(const struct mapping *mp);
/*
 * Go pprof's PPROF_BINARY_PATH: in each of its directories DIR, for build
 * id ID and file FILE: DIR/ID/basename, DIR/ID/ *, DIR/FILE/ID,
 * DIR/basename, DIR/FILE; the first that is the mapping's object (build
 * id checked when the mapping has one).  Caller frees; NULL when unset or
 * none is.
 */
char *locate_object(const struct mapping *mp, int quiet);
/* Whether the file at path may serve mp: 0 only when its build id differs (warned unless quiet). */
int object_is_mapping(const char *path, const struct mapping *mp, int quiet);
/*
 * libdwfl's debuginfo_path: its default plus the PPROF_BINARY_PATH
 * directories, whose .build-id trees then serve files and debug files by
 * build id.  Caller frees.
 */
char *locate_debuginfo_path(void);
/*
 * Reports ob (whose file is missing) to the session by mp's build id
 * alone: libdwfl's find_elf looks in the .build-id directories and, with
 * DEBUGINFOD_URLS set, asks debuginfod.  0 with ob->mod and ob->elf set
 * (libdwfl's), -1 when no file was found.
 */
int object_report_build_id(struct symbolizer *s, struct object *ob, const struct mapping *mp);

#define MAX_FRAMES 64

struct frame {
	const char *name;      /* full name, without the <addr> tag */
	const char *raw;
	uint64_t symaddr;      /* NO_SYMBOL_ADDRESS unless taken from nm */
	const char *file;
	int line;
};

/*
 * addr2line -f -i -C for one object address: fills fr (MAX_FRAMES) innermost
 * first and returns how many frames there are (at least 1; a lone frame may
 * have neither name nor file).  With same, how many addresses from addr on
 * get the same frames (dwindex_lookup).
 */
int addr2line(struct object *ob, uint64_t addr, struct frame *fr, uint64_t *same);

/*
 * The frames text reports give object address addr of profile address *pc
 * (symbolize_profile): addr2line's, renamed after nm's routine where its
 * name starts alike (gperftools pprof's rule), or after the address where
 * nothing names them (*pc is read only then).  Returns how many, as addr2line; tmp is scratch.
 * With same, how many addresses from addr on get the same frames, as
 * addr2line says, within nm's routine.
 */
int name_frames(struct symbolizer *s, struct object *ob, uint64_t addr, const uint64_t *pc,
		struct frame *fr, struct strbuf *tmp, uint64_t *same);

#endif
