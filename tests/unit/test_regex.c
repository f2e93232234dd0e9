/* test_regex.c - unit tests for the PCRE2 regexes behind --focus and --ignore (include/regex.h). */
#include <string.h>

#include "regex.h"
#include "harness.h"

TEST(unanchored_and_case_sensitive)
{
	struct err e = { { 0 } };
	struct regex *r = regex_compile("Mutex", "--focus", &e);

	if (!CHECK(r != NULL))
		return;
	CHECK(regex_matchs(r, "Mutex"));
	CHECK(regex_matchs(r, "absl::Mutex::Lock()"));
	CHECK(regex_matchs(r, "SpinMutex"));
	CHECK(!regex_matchs(r, "mutex"));
	CHECK(!regex_matchs(r, "Mute"));
	CHECK(!regex_matchs(r, ""));
	regex_free(r);
}

TEST(anchors_and_perl_syntax)
{
	struct err e = { { 0 } };
	struct regex *r = regex_compile("^main$", "--focus", &e);
	struct regex *d = regex_compile("\\d+\\b", "--ignore", &e);
	struct regex *alt = regex_compile("(?i)std::(map|set)<", "--ignore", &e);

	if (!CHECK(r && d && alt))
		return;
	CHECK(regex_matchs(r, "main"));
	CHECK(!regex_matchs(r, "domain"));
	CHECK(!regex_matchs(r, "main2"));
	CHECK(regex_matchs(d, "frame42"));
	CHECK(!regex_matchs(d, "frame"));
	CHECK(regex_matchs(alt, "STD::Set<int>::insert"));
	CHECK(!regex_matchs(alt, "std::vector<int>"));
	regex_free(r);
	regex_free(d);
	regex_free(alt);
}

TEST(match_length)
{
	struct err e = { { 0 } };
	struct regex *r = regex_compile("bar$", "--focus", &e);
	struct regex *z = regex_compile("a\\x00b", "--focus", &e);
	static const char nul[] = { 'a', 0, 'b' };

	if (!CHECK(r && z))
		return;
	/* Only the first n bytes are the subject. */
	CHECK(regex_match(r, "foobar", 6));
	CHECK(!regex_match(r, "foobar", 5));
	CHECK(regex_match(r, "foobarbaz", 6));
	CHECK(regex_match(z, nul, 3));
	regex_free(r);
	regex_free(z);
}

TEST(invalid)
{
	struct err e = { { 0 } };

	CHECK(regex_compile("foo(", "--focus", &e) == NULL);
	CHECK_CONTAINS(e.msg, "--focus");
	CHECK_CONTAINS(e.msg, "'foo('");
	CHECK_CONTAINS(e.msg, "offset");
	memset(&e, 0, sizeof(e));
	CHECK(regex_compile("[a-", "--ignore", &e) == NULL);
	CHECK_CONTAINS(e.msg, "invalid --ignore regex '[a-'");
	memset(&e, 0, sizeof(e));
	CHECK(regex_compile("*x", "--focus", &e) == NULL);
	CHECK_CONTAINS(e.msg, "invalid --focus regex");
}

TEST(reuse)
{
	struct err e = { { 0 } };
	struct regex *r = regex_compile("a+b", "--focus", &e);
	int i, hits = 0;

	if (!CHECK(r != NULL))
		return;
	for (i = 0; i < 1000; i++)
		hits += regex_matchs(r, (i & 1) ? "xxaab" : "xxba");
	CHECK_EQ_INT(hits, 500);
	regex_free(r);
}

/* Patterns without a special byte are plain strings; any special byte makes a regex. */
TEST(plain_strings)
{
	static const char *const plain[] = { "f_2175", "Mutex", "a b", "c:42", "", "x-y/z" };
	static const char *const special[] = { "f.c", "^main", "a|b", "x?", "a*", "a+", "(a)",
					       "[ab]", "a{2}", "a\\d", "end$", "(?i)m" };
	struct err e = { { 0 } };
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		struct regex *r = regex_compile(plain[i], "--focus", &e);

		CHECK(r && regex_literal(r) && !strcmp(regex_literal(r), plain[i]));
		regex_free(r);
	}
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		struct regex *r = regex_compile(special[i], "--focus", &e);

		CHECK(r && !regex_literal(r));
		regex_free(r);
	}
}

int main(void)
{
	RUN(unanchored_and_case_sensitive);
	RUN(plain_strings);
	RUN(anchors_and_perl_syntax);
	RUN(match_length);
	RUN(invalid);
	RUN(reuse);
	return test_done();
}
