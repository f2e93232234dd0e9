/* Second translation unit of the golden test program (see prog.c). */
#include "prog.h"

__attribute__((noinline, noclone)) unsigned long other(unsigned long n)
{
	return leaf_a(n / 3) + 7;
}
