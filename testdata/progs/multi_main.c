/* Exercises a static function named like one in multi_other.c, and calls into our own shared library libmulti.so. */
#include <stdio.h>
#include <stdlib.h>

long other_entry(int n);	/* multi_other.c */
long lib_checksum(const unsigned char *p, int n);	/* libmulti.c */
double lib_series(int n);	/* libmulti.c */

__attribute__((noinline)) static long step(int n)
{
	long x = n;
	for (int i = 0; i < 800; i++)
		x = (x * 31 + i) % 1000003;
	return x;
}

/* An optional argument repeats the lib_series() phase, so two runs can differ (for --base). */
int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	static unsigned char buf[4096];
	long sum = 0;
	double d = 0;

	for (int round = 0; round < 1200; round++) {
		for (int i = 0; i < 50; i++)
			sum += step(round + i);
		sum += other_entry(round);
		for (int i = 0; i < (int)sizeof buf; i++)
			buf[i] = (unsigned char)(i * 7 + round);
		sum += lib_checksum(buf, sizeof buf);
		for (int r = 0; r < reps; r++)
			d += lib_series(100000);
	}
	printf("%ld %g\n", sum, d);
	return 0;
}
