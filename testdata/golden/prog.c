/*
 * Golden test program for pprof.  Built statically and non-PIE (see BUILD)
 * so every address is fixed; the committed binary "prog" is what the golden
 * profiles in this directory refer to.  Do not rebuild it without
 * regenerating stacks.txt, the *.prof files and the expected outputs
 * (scripts/update-golden.sh).
 *
 * Shape: main -> mid -> {mix (inlined), leaf_a, leaf_b}
 *        main -> walk (recursive) -> leaf_b
 *        main -> other (other.c) -> leaf_a
 */
#include <stdio.h>
#include <stdlib.h>
#include "prog.h"

volatile unsigned long sink;

__attribute__((noinline, noclone)) unsigned long leaf_a(unsigned long n)
{
	unsigned long s = 1;
	for (unsigned long i = 0; i < n; i++)
		s = s * 31 + i;
	sink = s;
	return s;
}

__attribute__((noinline, noclone)) unsigned long leaf_b(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s ^= s << 3 | i;
	sink = s;
	return s;
}

/* Always inlined into mid(): samples here show up as "mix (inline)". */
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	for (int i = 0; i < 8; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15UL;
	return x;
}

__attribute__((noinline, noclone)) unsigned long mid(unsigned long n)
{
	unsigned long m = mix(n);
	sink = m;
	return leaf_a(n) + leaf_b(n / 2) + m;
}

/* Genuinely recursive: both calls stay calls. */
__attribute__((noinline, noclone)) unsigned long walk(int depth, unsigned long n)
{
	if (depth <= 0)
		return leaf_b(n);
	unsigned long r = walk(depth - 1, n + 1);
	sink = r;
	return r + walk(depth - 2, n) * 3;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	unsigned long t = 0;
	for (int i = 0; i < 100; i++) {
		t += mid(n);
		t += walk(4, n);
		t += other(n);
	}
	printf("%lu\n", t);
	return 0;
}
