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

/*
 * Strings stored with their hash given are kept in place (a copy is made
 * of those interned the usual way), and meet the copied ones as equals; a
 * reserved table numbers them as a growing one does.
 */
TEST(stored_and_copied_strings)
{
	struct arena a = { 0 };
	struct strtab *t = strtab_new(&a);
	char name[32], *mine[NSTR];
	uint32_t id;
	int i, wrong_id = 0, wrong_ptr = 0;

	strtab_intern(t, "first", 5);
	strtab_reserve(t, NSTR);
	for (i = 0; i < NSTR; i++) {
		size_t n = (size_t)snprintf(name, sizeof(name), "key %d", i);

		mine[i] = arena_strndup(&a, name, n);
		strtab_prefetch(t, strtab_hash(mine[i], n));
		if (i % 2) {
			if (strtab_intern_stored(t, mine[i], n, strtab_hash(mine[i], n), &id) != mine[i])
				wrong_ptr++;
		} else if (strtab_intern_id(t, name, n, &id) == name) {
			wrong_ptr++;
		}
		if (id != (uint32_t)i + 1)
			wrong_id++;
	}
	for (i = 0; i < NSTR; i++) {
		size_t n = (size_t)snprintf(name, sizeof(name), "key %d", i);
		const char *s = strtab_intern_id(t, name, n, &id);

		if (id != (uint32_t)i + 1 || strcmp(s, name) || (i % 2 && s != mine[i]))
			wrong_id++;
	}
	CHECK_EQ_INT(wrong_id, 0);
	CHECK_EQ_INT(wrong_ptr, 0);
	/* A stored string already there gives the one before. */
	CHECK(strtab_intern_stored(t, "first", 5, strtab_hash("first", 5), &id) != NULL && id == 0);
	strtab_free(t);
	arena_release(&a);
}

int main(void)
{
	RUN(equal_strings_one_pointer);
	RUN(numbers_in_order_of_first_sight);
	RUN(stored_and_copied_strings);
	return test_done();
}
