/* inflate.h - compressed DWARF sections inflated ahead of libdw (symbolizer internal). */
#ifndef PPROF_INFLATE_H
#define PPROF_INFLATE_H

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

#endif
