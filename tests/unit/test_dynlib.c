/* test_dynlib.c - unit tests for libraries opened when first needed (include/dynlib.h). */
#include <math.h>
#include <string.h>

#include "dynlib.h"
#include "harness.h"

static double (*my_cos)(double);
static double (*my_floor)(double);
static void (*no_such)(void);

/* The first soname that loads is used; each symbol fills its pointer. */
TEST(opens_and_resolves)
{
	static const char *const names[] = { "libpprof-no-such-library.so.0", "libm.so.6", NULL };
	static const struct dynsym syms[] = {
		{ "cos", (void **)&my_cos },
		{ "floor", (void **)&my_floor },
		{ NULL, NULL },
	};
	struct dynlib l = { .names = names, .syms = syms };
	struct err e = { { 0 } };

	if (!CHECK_EQ_INT(dynlib_load(&l, &e), 0))
		TEST_NOTE("%s", e.msg);
	if (CHECK(my_cos != NULL && my_floor != NULL)) {
		CHECK(my_cos(0.0) == 1.0);
		CHECK(my_floor(2.5) == 2.0);
	}
	/* Loaded once: a second call answers the same. */
	CHECK_EQ_INT(dynlib_load(&l, &e), 0);
}

/* A library that is not there: the error names the first soname. */
TEST(missing_library)
{
	static const char *const names[] = { "libpprof-no-such-library.so.0", NULL };
	static const struct dynsym syms[] = { { "cos", (void **)&no_such }, { NULL, NULL } };
	struct dynlib l = { .names = names, .syms = syms };
	struct err e = { { 0 } };

	CHECK_EQ_INT(dynlib_load(&l, &e), -1);
	CHECK(strstr(e.msg, "cannot load libpprof-no-such-library.so.0: ") == e.msg);
	/* The loader's reason, without the name again. */
	if (!CHECK(strstr(e.msg, "no-such-library.so.0: libpprof") == NULL))
		TEST_NOTE("%s", e.msg);
	CHECK(strstr(e.msg, "No such file") != NULL);
	CHECK(no_such == NULL);
	memset(&e, 0, sizeof(e));
	CHECK_EQ_INT(dynlib_load(&l, &e), -1);
	CHECK(e.msg[0] != 0);
}

/* A library without one of the functions asked for is not used. */
TEST(missing_symbol)
{
	static const char *const names[] = { "libm.so.6", NULL };
	static const struct dynsym syms[] = {
		{ "cos", (void **)&my_cos },
		{ "pprof_no_such_function", (void **)&no_such },
		{ NULL, NULL },
	};
	struct dynlib l = { .names = names, .syms = syms };
	struct err e = { { 0 } };

	CHECK_EQ_INT(dynlib_load(&l, &e), -1);
	CHECK_STR(e.msg, "libm.so.6 has no pprof_no_such_function");
}

int main(void)
{
	RUN(opens_and_resolves);
	RUN(missing_library);
	RUN(missing_symbol);
	return test_done();
}
