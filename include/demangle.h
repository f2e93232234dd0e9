/* demangle.h - C++ symbol demangling the way binutils nm and addr2line print it. */
#ifndef PPROF_DEMANGLE_H
#define PPROF_DEMANGLE_H

/*
 * Returns a malloc'd demangled name (caller frees), or NULL when name is
 * not a mangled name.  A "@VERSION" or "@@VERSION" suffix is kept as is.
 */
char *demangle(const char *name);

#endif
