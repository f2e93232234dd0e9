/* clones.c - gmon.out test program: functions GCC clones or splits
 * (.constprop, .isra, .part, .cold), whose pieces gprof credits to other
 * symbols, and inlined helpers.
 * Built by tests/t-gmon.sh: gcc -pg -g -O2 -o clones clones.c */
#include <stdio.h>
#include <stdlib.h>

struct vec {
	double *v;
	int n;
	int pad[8];
};

static volatile double sink;
static double data[4096];

/* Called with a constant factor: GCC makes scale.constprop.0. */
static __attribute__((noinline)) double scale(const double *v, int n, double k)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i] * k;
	return s;
}

/* Only two fields of the struct are used: GCC passes them (.isra). */
static __attribute__((noinline)) double sum(struct vec *x)
{
	double s = 0;

	for (int i = 0; i < x->n; i++)
		s += x->v[i] * x->v[i];
	return s;
}

/* A cheap test before heavy work: partial inlining (.part). */
static double heavy(int x)
{
	double s = 0;

	if (x < 0)
		return 0;
	for (int i = 0; i < 4096; i++)
		s += data[i] * x + data[(i * 7) & 4095];
	return s;
}

static __attribute__((noinline)) double rare(int x)
{
	if (__builtin_expect(x == -12345, 0)) {
		fprintf(stderr, "rare %d\n", x);
		abort();
	}
	double s = 0;

	for (int i = 0; i < 2048; i++)
		s += data[i] / (x + 1);
	return s;
}

static inline double small(double a, int i)
{
	return a * 1.0001 + data[i & 4095];
}

__attribute__((noinline)) double inlines(int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s = small(s, i);
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	struct vec x = { data, 4096, { 0 } };

	for (int i = 0; i < 4096; i++)
		data[i] = i * 0.001;
	for (int r = 0; r < rounds; r++) {
		sink = scale(data, 4096, 3.0);
		sink = scale(data, 2048, 3.0);
		sink = sum(&x);
		sink = heavy(r);
		sink = heavy(r + 1);
		sink = rare(r);
		sink = inlines(4096);
	}
	return 0;
}
