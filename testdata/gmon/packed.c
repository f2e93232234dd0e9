/* packed.c - gmon.out test program: small functions packed without
 * alignment, so that histogram bins straddle function boundaries and gprof
 * splits them by overlap.
 * Built by tests/t-gmon.sh:
 *   gcc -pg -g -O2 -falign-functions=1 -falign-loops=1 -falign-jumps=1 -o packed packed.c */
#include <stdlib.h>

static volatile unsigned sink;

#define F(name, k)                                          \
	__attribute__((noinline)) void name(unsigned n)     \
	{                                                   \
		unsigned s = 0;                             \
		for (unsigned i = 0; i < n * (k); i++)      \
			s = s * 31 + i;                     \
		sink = s;                                   \
	}

F(f01, 1) F(f02, 2) F(f03, 3) F(f04, 1) F(f05, 5) F(f06, 2)
F(f07, 7) F(f08, 1) F(f09, 4) F(f10, 3) F(f11, 6) F(f12, 2)

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 400;

	for (unsigned r = 0; r < rounds; r++) {
		f01(10000); f02(10000); f03(10000); f04(10000);
		f05(10000); f06(10000); f07(10000); f08(10000);
		f09(10000); f10(10000); f11(10000); f12(10000);
	}
	return 0;
}
