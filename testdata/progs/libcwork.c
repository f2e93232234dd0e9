/* Spends its time in the C library: memset and memcpy over large buffers (its functions in listings). */
#include <stdio.h>
#include <string.h>

static char a[1 << 22], b[1 << 22];

int main(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < 1500; i++) {
		memset(a, i, sizeof a);
		memcpy(b, a, sizeof b);
		sum += (unsigned char)b[i];
	}
	printf("%lu\n", sum);
	return 0;
}
