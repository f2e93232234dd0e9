/* Second translation unit: its own static step() with the same name as the one in multi_main.c. */

__attribute__((noinline)) static long step(int n)
{
	unsigned long h = (unsigned long)n;
	for (int i = 0; i < 3000; i++)
		h ^= (h << 7) + (h >> 3) + (unsigned long)i;
	return (long)(h & 0xffff);
}

long other_entry(int n)
{
	long s = 0;
	for (int i = 0; i < 50; i++)
		s += step(n + i);
	return s;
}
