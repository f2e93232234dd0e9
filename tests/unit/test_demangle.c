/* test_demangle.c - unit tests for demangling (include/demangle.h), hostile names included. */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "harness.h"

static char *dm;

static const char *demangled(const char *name)
{
	free(dm);
	dm = demangle(name);
	return dm;
}

TEST(names)
{
	CHECK_STR(demangled("_ZN2ns1fEi"), "ns::f(int)");
	CHECK_STR(demangled("_ZN2ns1fEi@@V_1.0"), "ns::f(int)@@V_1.0");
	CHECK_STR(demangled("_ZN2ns3boxIlE5twiceEv@V1"), "ns::box<long>::twice()@V1");
	CHECK(demangled("main") == NULL);
	CHECK(demangled("_Z") == NULL);
	CHECK(demangled("") == NULL);
}

/*
 * Symbol names come from untrusted files: libiberty's recursion limit
 * (DMGL_NO_RECURSE_LIMIT is never passed) makes a name nested deeper than
 * it can handle fail instead of exhausting the stack.
 */
TEST(deep_names_fail)
{
	size_t n = 1000000, i;
	char *s = malloc(4 * n + 16), *p = s;

	p += strlen(strcpy(p, "_Z1f"));
	for (i = 0; i < n; i++)
		*p++ = 'P';
	strcpy(p, "v");
	CHECK(demangled(s) == NULL);
	p = s + strlen(strcpy(s, "_Z1fI"));
	for (i = 0; i < n; i++)
		p += strlen(strcpy(p, "N1aI"));
	*p = 0;
	CHECK(demangled(s) == NULL);
	/* Shallow enough, the same shapes demangle. */
	strcpy(s, "_Z1fPPPPv");
	CHECK_STR(demangled(s), "f(void****)");
	free(s);
}

int main(void)
{
	RUN(names);
	RUN(deep_names_fail);
	free(dm);
	return test_done();
}
