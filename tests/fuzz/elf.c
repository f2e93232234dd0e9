/* elf.c - fuzzes the symbolizer: fixed profiles named against a fuzzed ELF file, with listings. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

extern const struct reader reader_gperf, reader_gmon;

/*
 * Where the code of the seeds (elf/BUILD) lies: the relocatable object's
 * from 0, the others' near 0x80480c0, 0x2001f4, 0x400110 and 0x400250.
 * The profile has addresses in each place, looked up in the program as
 * they are, and in a mapping of the program, looked up through its load
 * bias.
 */
static const uint64_t bases[] = { 0x0, 0x80480c0, 0x2001f4, 0x400100, 0x400240 };
#define MAPPED 0x7f0000000000ull
#define PER_BASE 8

static struct profile *cpu_profile(const char *path)
{
	static const char *const types[] = { "samples", "count", "cpu", "nanoseconds" };
	struct location *stack[3];
	struct profile *p = profile_new();
	int64_t v[2] = { 1, 10000000 };
	size_t b, k;

	profile_set_sample_types(p, 2, types);
	p->default_sample_type = p->sample_type[0].type;
	profile_add_mapping(p, MAPPED, MAPPED + 0x100000, 0, path, "");
	for (b = 0; b <= sizeof(bases) / sizeof(bases[0]); b++) {
		uint64_t base = b < sizeof(bases) / sizeof(bases[0]) ? bases[b] : MAPPED + 0x1000;

		for (k = 0; k < PER_BASE; k++) {
			stack[0] = profile_location(p, base + k * 29);
			stack[1] = profile_location(p, base + (k * 37 + 5) % 0x100);
			stack[2] = profile_location(p, base + 0x40);
			v[0] = (int64_t)k + 1;
			profile_add_sample(p, stack, 3, v);
		}
	}
	return p;
}

/* A little-endian GNU gmon.out: a histogram over 0x400100-0x400200, and arcs. */
static size_t gmon_bytes(unsigned char *buf)
{
	static const struct { uint64_t from, self; uint32_t count; } arcs[] = {
		{ 0x400110, 0x400140, 3 }, { 0x400144, 0x400180, 7 }, { 0x10, 0x40, 2 },
	};
	unsigned char *o = buf;
	size_t i;

	memcpy(o, "gmon\1\0\0\0", 8);
	memset(o + 8, 0, 12);
	o += 20;
	*o++ = 0;
	for (i = 0; i < 8; i++)
		o[i] = (unsigned char)(0x400100ull >> (8 * i)), o[8 + i] = (unsigned char)(0x400200ull >> (8 * i));
	o += 16;
	memcpy(o, "\x40\0\0\0" "\x64\0\0\0" "seconds\0\0\0\0\0\0\0\0s", 24);
	o += 24;
	for (i = 0; i < 64; i++, o += 2)
		o[0] = (unsigned char)(i * 7 % 5), o[1] = 0;
	for (i = 0; i < sizeof(arcs) / sizeof(arcs[0]); i++) {
		size_t k;

		*o++ = 1;
		for (k = 0; k < 8; k++)
			o[k] = (unsigned char)(arcs[i].from >> (8 * k)), o[8 + k] = (unsigned char)(arcs[i].self >> (8 * k));
		o += 16;
		for (k = 0; k < 4; k++)
			*o++ = (unsigned char)(arcs[i].count >> (8 * k));
	}
	return (size_t)(o - buf);
}

static const char *const lines[] = { "pprof", "--lines", "--text", NULL };
static const char *const list[] = { "pprof", "--list=.", NULL };
static const char *const disasm[] = { "pprof", "--disasm=.", NULL };

/*
 * The ELF file is a memory file, named by its /proc/self/fd path: the
 * symbolizer opens it as it opens any program, and nothing touches the disk.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolize_options so = { 0 };
	unsigned char gmon[512];
	char path[64];
	struct profile *p;
	struct err e = { { 0 } };
	uint64_t offset;
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	so.program = path;
	if (symbolize_check_program(path, &e) < 0)
		goto out;

	/* The listings use the objects symbolization read, as on the command line. */
	p = cpu_profile(path);
	so.cache = symbolize_cache_new();
	symbolize_profile(p, &so, &e);
	fuzz_report(p, &reader_gperf, &so, lines);
	fuzz_report(p, &reader_gperf, &so, list);
	fuzz_report(p, &reader_gperf, &so, disasm);
	symbolize_cache_free(so.cache);
	so.cache = NULL;
	profile_free(p);

	p = profile_new();
	if (reader_gmon.read("gmon", gmon, gmon_bytes(gmon), NULL, p, &e) < 0)
		abort();
	if (reader_gmon.symbolize(p, &so, &e) == 0)
		fuzz_report(p, &reader_gmon, &so, lines);
	profile_free(p);

	/* The DCPI reader's fitting of an image to the program. */
	symbolize_image_range(path, 0x400100, 0x400200, &offset);
out:
	close(fd);
	return 0;
}
