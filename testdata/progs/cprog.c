/* Exercises noinline and inlined C functions, recursion, and libc calls (qsort, memcpy, memset, strlen, snprintf). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static unsigned long seed = 12345;

static inline unsigned long next_rand(void)
{
	seed = seed * 6364136223846793005UL + 1442695040888963407UL;
	return seed >> 33;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_numbers(int *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = (int)next_rand();
	qsort(v, n, sizeof v[0], cmp_int);
}

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static size_t copy_buffers(char *dst, char *src, size_t len)
{
	size_t total = 0;
	for (int i = 0; i < 64; i++) {
		memset(src, 'a' + i % 26, len - 1);
		src[len - 1] = '\0';
		memcpy(dst, src, len);
		total += strlen(dst);
	}
	return total;
}

__attribute__((noinline)) static size_t format_lines(char *buf, size_t size)
{
	size_t total = 0;
	for (int i = 0; i < 400; i++)
		total += snprintf(buf, size, "line %d: %08lx %.3f %s", i,
				  next_rand(), i / 7.0, "some text");
	return total;
}

/* An optional argument repeats the fib() phase, so two runs can differ (for --base). */
int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	static int v[N];
	static char a[1 << 16], b[1 << 16];
	long sum = 0;

	for (int round = 0; round < 900; round++) {
		sort_numbers(v, N);
		sum += v[N / 2];
		for (int r = 0; r < reps; r++)
			sum += fib(24);
		sum += copy_buffers(a, b, sizeof a);
		sum += format_lines(a, sizeof a);
	}
	printf("%ld\n", sum);
	return 0;
}
