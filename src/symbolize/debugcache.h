/* debugcache.h - inflated debug files kept on disk by build id (symbolizer internal). */
#ifndef PPROF_DEBUGCACHE_H
#define PPROF_DEBUGCACHE_H

#include <stdint.h>

/*
 * Inflating a debug file's compressed sections (inflate.h) costs every run
 * that symbolizes its object: for libc's, about a tenth of the CPU of the
 * text report of a large profile, half of it on the critical path.  The
 * copy is kept in a directory under its build id, and later runs open it.
 *
 * The directory is $PPROF_CACHE_DIR, else $XDG_CACHE_HOME/pprof, else
 * $HOME/.cache/pprof; there is none when PPROF_CACHE_DIR is set empty.
 *
 * debug_cache_open returns a descriptor of the copy for build_id (in hex)
 * when there is one of the given size (the debug file's headers give it),
 * and renews its time; else -1.  The caller checks its build id.
 *
 * debug_cache_add keeps size bytes of the file open on copy for build_id:
 * written to a temporary file, flushed to disk, then renamed into place,
 * so that no run finds half a copy.  It also removes the copies not used
 * for DEBUG_CACHE_DAYS days, and temporary files a day old.  Failures
 * (no directory, no room) only mean that nothing is kept.
 */
#define DEBUG_CACHE_DAYS 30

int debug_cache_open(const char *build_id, uint64_t size);
/* Returns whether the copy was kept. */
int debug_cache_add(const char *build_id, int copy, uint64_t size);

#endif
