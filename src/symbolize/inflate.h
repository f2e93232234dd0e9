/* inflate.h - compressed DWARF sections inflated ahead of libdw (symbolizer internal). */
#ifndef PPROF_INFLATE_H
#define PPROF_INFLATE_H

#include <stdint.h>

/*
 * libdw inflates every SHF_COMPRESSED debug section of a file by zlib
 * when it opens the file's DWARF, location lists included, which we never
 * read.  Debian's detached debug files (libc6-dbg, the -dbgsym packages)
 * are all compressed: for a small profile, libc's took two thirds of the
 * run.
 *
 * debug_sections_inflated(fd) copies the ELF file open on fd into an
 * anonymous memory file whose zlib-compressed .debug_* sections are
 * inflated by libdeflate (about twice zlib's speed), except location
 * lists, which become empty.  Every other byte stays at its offset; only
 * those sections' headers change.  Returns the new descriptor (close-on-
 * exec), or -1 when the file has no such section or anything about them
 * is amiss: libdw then reads fd as it would have.
 */
int debug_sections_inflated(int fd);

/*
 * The same in two steps, for a caller that may have the copy already
 * (debugcache.h): inflate_plan reads the headers of the file open on fd
 * (NULL when debug_sections_inflated would return -1 for them, though the
 * sections may still fail to inflate), inflate_plan_size is the copy's
 * size, inflate_plan_copy makes it as debug_sections_inflated does.
 */
struct inflate_plan;
struct inflate_plan *inflate_plan(int fd);
uint64_t inflate_plan_size(const struct inflate_plan *pl);
int inflate_plan_copy(struct inflate_plan *pl);
void inflate_plan_free(struct inflate_plan *pl);

#endif
