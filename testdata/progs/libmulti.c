/* Tiny shared library (built as libmulti.so) so that a non-libc shared object gets samples. */

static inline unsigned rotl(unsigned x, int r)
{
	return (x << r) | (x >> (32 - r));
}

long lib_checksum(const unsigned char *p, int n)
{
	unsigned h = 2166136261u;
	for (int k = 0; k < 24; k++)
		for (int i = 0; i < n; i++)
			h = rotl(h ^ p[i], 5) * 16777619u;
	return (long)h;
}

double lib_series(int n)
{
	double s = 0;
	for (int i = 1; i <= n; i++)
		s += (i & 1 ? 1.0 : -1.0) / (2.0 * i - 1.0);
	return s;
}
