/* basic.c - gmon.out test program: leaves of different weights, a static
 * helper, recursion and a libc call in a hot loop (time in the PLT).
 * Built by tests/t-gmon.sh: gcc -pg -g -O2 -o basic basic.c */
#include <stdlib.h>
#include <string.h>

static volatile double sink;
static volatile unsigned usink;
static char text[64] = "a string of some length for strlen";

__attribute__((noinline)) void leaf_a(int n)
{
	double s = 0;

	for (int i = 0; i < n * 100000; i++)
		s += i * 0.5;
	sink = s;
}

__attribute__((noinline)) void leaf_b(int n)
{
	double s = 0;

	for (int i = 0; i < n * 30000; i++)
		s += i * 0.25;
	sink = s;
}

static __attribute__((noinline)) unsigned fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) void with_libc(int n)
{
	size_t t = 0;

	for (int i = 0; i < n * 20000; i++) {
		text[i & 31] = (char)('a' + (i & 15));
		t += strlen(text);
	}
	usink = (unsigned)t;
}

__attribute__((noinline)) void mid(int n)
{
	leaf_a(n);
	leaf_b(n);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;

	for (int i = 0; i < rounds; i++) {
		mid(10);
		leaf_b(10);
		with_libc(5);
		usink = fib(18);
	}
	return 0;
}
