/* demo.c - a small CPU-bound program for `make demo`: a sort, a hash and some math. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static void sort_numbers(int *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_int);
}

__attribute__((noinline)) static unsigned hash_text(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

__attribute__((noinline)) static double integrate(int steps)
{
	double sum = 0;

	for (int i = 0; i < steps; i++)
		sum += sin(i * 0.001) * cos(i * 0.002);
	return sum;
}

int main(void)
{
	enum { N = 200000 };
	int *v = malloc(N * sizeof(*v));
	char *text = malloc(1 << 20);
	unsigned h = 0;
	double area = 0;

	if (!v || !text)
		return 1;
	memset(text, 'x', 1 << 20);
	for (int round = 0; round < 12; round++) {
		srand(round);
		for (int i = 0; i < N; i++)
			v[i] = rand();
		sort_numbers(v, N);
		for (int k = 0; k < 40; k++)
			h += hash_text(text, 1 << 20);
		area += integrate(400000);
	}
	printf("%d %u %.3f\n", v[N / 2], h, area);
	free(v);
	free(text);
	return 0;
}
