/* seed.c - a tiny freestanding program: the ELF fuzzing harness's seeds are built from it (BUILD). */
static int table[16];

static int __attribute__((noinline)) leaf(int x)
{
	return table[x & 15] * 3 + x;
}

static inline int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

int __attribute__((noinline)) work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += mid(i);
	return s;
}

void _start(void)
{
	table[1] = work(5);
	for (;;)
		;
}
