/* test_strtab.c - unit tests for string interning (include/strtab.h). */
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "harness.h"
#include "strtab.h"

#define NSTR 5000

/* Equal bytes give one pointer, whatever the source buffer; lengths count, NULs too. */
TEST(equal_strings_one_pointer)
{
	struct arena a = { 0 };
	struct strtab *t = strtab_new(&a);
	char buf[8] = "abcdef";
	const char *x = strtab_intern(t, "abc", 3);

	CHECK(strtab_intern(t, buf, 3) == x);
	CHECK_STR(x, "abc");
	CHECK(strtab_intern(t, buf, 4) != x);
	CHECK(strtab_intern(t, "ab\0c", 4) != strtab_intern(t, "ab", 2));
	CHECK(strtab_intern(t, "", 0) == strtab_intern(t, buf + 6, 0));
	strtab_free(t);
	arena_release(&a);
}

/*
 * Numbers count the distinct strings from 0 in the order they came, and
 * stay each string's through the table's growth.
 */
TEST(numbers_in_order_of_first_sight)
{
	struct arena a = { 0 };
	struct strtab *t = strtab_new(&a);
	const char *s[NSTR];
	char name[32];
	uint32_t id;
	int i, wrong_new = 0, wrong_again = 0, wrong_ptr = 0;

	for (i = 0; i < NSTR; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		s[i] = strtab_intern_id(t, name, strlen(name), &id);
		if (id != (uint32_t)i)
			wrong_new++;
	}
	for (i = NSTR; i-- > 0;) {
		snprintf(name, sizeof(name), "fn_%d", i);
		if (strtab_intern_id(t, name, strlen(name), &id) != s[i])
			wrong_ptr++;
		if (id != (uint32_t)i)
			wrong_again++;
		if (strtab_string(t, (uint32_t)i) != s[i])
			wrong_ptr++;
	}
	CHECK_EQ_INT(wrong_new, 0);
	CHECK_EQ_INT(wrong_again, 0);
	CHECK_EQ_INT(wrong_ptr, 0);
	/* strtab_intern numbers the strings it adds too. */
	strtab_intern(t, "another", 7);
	strtab_intern_id(t, "last", 4, &id);
	CHECK_EQ_INT(id, NSTR + 1);
	CHECK_STR(strtab_string(t, NSTR), "another");
	strtab_free(t);
	arena_release(&a);
}

int main(void)
{
	RUN(equal_strings_one_pointer);
	RUN(numbers_in_order_of_first_sight);
	return test_done();
}
