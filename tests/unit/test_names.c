/* test_names.c - unit tests for gperftools pprof's short function names (include/names.h). */
#include <stdlib.h>

#include "harness.h"
#include "names.h"

/* Returns the short name of full; it lives in sb until the next call. */
static const char *shorten(struct strbuf *sb, const char *full, int keep_templates)
{
	short_function_name(full, keep_templates, sb);
	return sb->buf;
}

TEST(strips_like_gperftools)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(shorten(&sb, "std::map<int,int>::operator[](int const&)", 0),
		  "std::map::operator[]");
	CHECK_STR(shorten(&sb, "void foo<int>(int)", 0), "void foo");
	CHECK_STR(shorten(&sb, "int (anonymous namespace)::bar(char*)", 0), "int ::bar");
	CHECK_STR(shorten(&sb, "unsigned long ns::f()", 0), "ns::f");
	CHECK_STR(shorten(&sb, "mid<00000000000012b0>", 0), "mid");
	CHECK_STR(shorten(&sb, "ns::Box<double>::compute() const", 0), "ns::Box::compute");
	CHECK_STR(shorten(&sb, "__libc_start_main@@GLIBC_2.34<0000000000027280>", 0),
		  "__libc_start_main@@GLIBC_2.34");
	CHECK_STR(shorten(&sb, "f(void (*)(int))", 0), "f");
	sb_release(&sb);
}

TEST(plain_names)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(shorten(&sb, "main", 0), "main");
	CHECK_STR(shorten(&sb, "main", 1), "main");
	CHECK_STR(shorten(&sb, "", 0), "");
	CHECK_STR(shorten(&sb, "ns::f(int) const", 0), "ns::f");
	CHECK_STR(shorten(&sb, "a::b::c(std::vector<int, std::allocator<int> > const&)", 0),
		  "a::b::c");
	sb_release(&sb);
}

/* A group after a '.' is a Go method's receiver, not an argument list. */
TEST(go_receivers_stay)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(shorten(&sb, "fmt.(*pp).fmtInteger", 0), "fmt.(*pp).fmtInteger");
	CHECK_STR(shorten(&sb, "fmt.(*fmt).fmtInteger", 0), "fmt.(*fmt).fmtInteger");
	CHECK_STR(shorten(&sb, "compress/flate.(*compressor).init", 0), "compress/flate.(*compressor).init");
	CHECK_STR(shorten(&sb, "main.(*T).M.func1", 0), "main.(*T).M.func1");
	CHECK_STR(shorten(&sb, "main.(*struct { a int }).M", 0), "main.(*struct { a int }).M");
	CHECK_STR(shorten(&sb, "runtime.(*moduledata).textAddr", 1), "runtime.(*moduledata).textAddr");
	/* A receiver inside an argument list goes with the list. */
	CHECK_STR(shorten(&sb, "f(a.(b))", 0), "f");
	/* An argument list after the receiver still goes. */
	CHECK_STR(shorten(&sb, "pkg.(*T).M(int) const", 0), "pkg.(*T).M");
	CHECK_STR(shorten(&sb, "Foo::operator()(int)", 0), "Foo::operator");
	sb_release(&sb);
}

TEST(keep_templates)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_STR(shorten(&sb, "ns::Box<double>::compute() const", 1), "ns::Box<double>::compute");
	CHECK_STR(shorten(&sb, "std::map<int,int>::operator[](int const&)", 1),
		  "std::map<int,int>::operator[]");
	/* The address tag goes either way: it is not a template argument list. */
	CHECK_STR(shorten(&sb, "mid<00000000000012b0>", 1), "mid");
	CHECK_STR(shorten(&sb, "__libc_start_main@@GLIBC_2.34<0000000000027280>", 1),
		  "__libc_start_main@@GLIBC_2.34");
	sb_release(&sb);
}

TEST(replaces_contents)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "previous contents that are longer");
	short_function_name("ns::g(int)", 0, &sb);
	CHECK_STR(sb.buf, "ns::g");
	CHECK_EQ_INT(sb.len, 5);
	sb_release(&sb);
}

/* "f" and n nested groups of open..close: stripping them is linear, not n passes. */
static char *nested(size_t n, char open, char close)
{
	char *s = malloc(2 * n + 2);
	size_t i;

	s[0] = 'f';
	for (i = 0; i < n; i++) {
		s[1 + i] = open;
		s[1 + n + i] = close;
	}
	s[2 * n + 1] = 0;
	return s;
}

TEST(deep_nesting)
{
	struct strbuf sb = STRBUF_INIT;
	char *parens = nested(200000, '(', ')'), *angles = nested(200000, '<', '>');

	/* A profile may name a function so; this took minutes when each pass stripped one level. */
	CHECK_STR(shorten(&sb, parens, 0), "f");
	CHECK_STR(shorten(&sb, angles, 0), "f");
	CHECK_EQ_INT(strlen(shorten(&sb, angles, 1)), 400001);
	CHECK_STR(shorten(&sb, "f(((a)b) const)c(", 0), "fc(");
	CHECK_STR(shorten(&sb, "a)b(c<<d>", 0), "a)b(c<");
	free(parens);
	free(angles);
	sb_release(&sb);
}

int main(void)
{
	RUN(strips_like_gperftools);
	RUN(plain_names);
	RUN(go_receivers_stay);
	RUN(keep_templates);
	RUN(replaces_contents);
	RUN(deep_nesting);
	return test_done();
}
