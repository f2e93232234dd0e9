/* test_symbolz.c - unit tests for symbol server replies and remote names (symbolz.c). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "symbolize.h"

static int parse(const char *text, struct symbolz_reply *r)
{
	struct err e;

	memset(r, 0, sizeof(*r));
	return symbolz_parse(text, strlen(text), r, &e);
}

static const char *name_at(const struct symbolz_reply *r, uint64_t a)
{
	const struct symbolz_entry *en = symbolz_find(r, a);

	return en ? en->name : "(none)";
}

TEST(lines_as_gperftools_reads_them)
{
	struct symbolz_reply r;

	CHECK_EQ_INT(parse("0x401000 main\n"
			   "0x0000000000401234\tns::f(int)\r\n"
			   "0x4012AB upper_case_digits_are_no_address\n"
			   "0x401300 outer--inner\n"
			   "0x401000 main_again\n"
			   "garbage line\n"
			   "binary = /usr/bin/server \n"
			   "0x401400 \n"
			   "0x401500\n"
			   "0x11112222333344445 too_wide\n"
			   "---\n"
			   "0x401600 after_the_end\n", &r), 0);
	CHECK_EQ_INT(r.n, 3);
	CHECK_STR(name_at(&r, 0x401000), "main_again");
	CHECK_STR(name_at(&r, 0x401234), "ns::f(int)");
	CHECK_STR(name_at(&r, 0x4012ab), "(none)");
	CHECK_STR(name_at(&r, 0x401300), "outer--inner");
	/* "\s+(.+)": with nothing after the blanks, the last blank is the name... */
	CHECK_STR(name_at(&r, 0x401400), "(none)");
	CHECK_STR(name_at(&r, 0x401500), "(none)");
	CHECK_STR(name_at(&r, 0x401600), "(none)");
	CHECK(r.binary && !strcmp(r.binary, "/usr/bin/server"));
	symbolz_release(&r);
	/* ...when there are two of them. */
	CHECK_EQ_INT(parse("0x10  \n0x0 zero", &r), 0);
	CHECK_STR(name_at(&r, 0x10), " ");
	CHECK_STR(name_at(&r, 0), "zero");
	symbolz_release(&r);
}

TEST(refuses_binary_replies)
{
	struct symbolz_reply r = { 0 };
	struct err e;

	CHECK_EQ_INT(symbolz_parse("0x1 a\0b\n", 8, &r, &e), -1);
	CHECK_CONTAINS(e.msg, "not text");
	symbolz_release(&r);
	CHECK_EQ_INT(parse("", &r), 0);
	CHECK_EQ_INT(r.n, 0);
	symbolz_release(&r);
}

struct fake_server {
	const char *reply;
	struct strbuf request;
	int calls;
};

static int fake_post(void *ctx, const char *body, size_t len, struct strbuf *reply, struct err *e)
{
	struct fake_server *s = ctx;

	s->calls++;
	sb_add(&s->request, body, len);
	sb_adds(reply, s->reply);
	return 0;
}

/* The name of loc's line i (innermost first), or "(none)". */
static const char *line_name(const struct location *loc, uint32_t i)
{
	return i < loc->nline ? loc->line[i].function->name : "(none)";
}

TEST(names_the_locations_nothing_local_named)
{
	struct profile *p = profile_new();
	struct fake_server fs = { "0x401000 _ZN2ns4overEd\n0x401100 outer--inner\n", STRBUF_INIT };
	struct symbol_server server = { fake_post, &fs };
	struct symbolize_options o = { .server = &server };
	struct location *a, *b, *c, *d;
	struct err e;

	p->address_bits = 64;
	c = profile_location(p, 0x401200);
	a = profile_location(p, 0x401000);
	b = profile_location(p, 0x401100);
	d = profile_location(p, 0x7f0000001000);
	d->tried = 1;
	CHECK_EQ_INT(symbolize_remote(p, &o, &e), 0);
	CHECK_EQ_INT(fs.calls, 1);
	CHECK_STR(fs.request.buf, "0x0000000000401000+0x0000000000401100+0x0000000000401200");
	CHECK_EQ_INT(a->nline, 1);
	CHECK_STR(line_name(a, 0), "ns::over(double)");
	CHECK_STR(a->line[0].function->system_name, "_ZN2ns4overEd");
	CHECK_STR(a->line[0].function->filename, "");
	CHECK_EQ_INT(b->nline, 2);
	CHECK_STR(line_name(b, 0), "inner");
	CHECK_STR(line_name(b, 1), "outer");
	CHECK_STR(line_name(c, 0), "0x0000000000401200");
	CHECK_EQ_INT(d->nline, 0);
	/* Nothing left to ask: no second request. */
	CHECK_EQ_INT(symbolize_remote(p, &o, &e), 0);
	CHECK_EQ_INT(fs.calls, 1);
	sb_release(&fs.request);
	profile_free(p);
}

int main(void)
{
	RUN(lines_as_gperftools_reads_them);
	RUN(refuses_binary_replies);
	RUN(names_the_locations_nothing_local_named);
	return test_done();
}
