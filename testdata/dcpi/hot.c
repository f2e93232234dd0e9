/*
 * Test program for the DCPI reader (tests/t-dcpi.sh).  It is never run: the
 * test builds it, reads instruction addresses of these functions with
 * objdump, and writes DCPI profiles with known counts at those addresses
 * (scripts/gen-dcpi).  Built with -O0 so that nothing is inlined and every
 * address belongs to exactly one function and one source line.
 */
#include <stdio.h>

volatile unsigned long sink;

unsigned long hot_loop(unsigned long n)
{
	unsigned long s = 1;

	for (unsigned long i = 0; i < n; i++)
		s = s * 31 + i;
	sink = s;
	return s;
}

unsigned long warm(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s ^= s << 3 | i;
	sink = s;
	return s;
}

static unsigned long cold(unsigned long n)
{
	return n * 2 + 1;
}

int main(int argc, char **argv)
{
	unsigned long n = (unsigned long)argc * 1000000;

	printf("%lu\n", hot_loop(n) + warm(n / 2) + cold(n));
	return argv[0] == NULL;
}
