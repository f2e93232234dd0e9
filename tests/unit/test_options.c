/* test_options.c - unit tests for command-line parsing (include/options.h). */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "options.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])))

/* Parses argv; returns options_parse's result.  The caller frees o->args. */
static int parse(struct options *o, int argc, char **argv, struct err *e)
{
	memset(e, 0, sizeof(*e));
	return options_parse(o, argc, argv, e);
}

TEST(defaults)
{
	char *argv[] = { "pprof" };
	struct options o;
	struct err e;

	CHECK_EQ_INT(parse(&o, ARGC(argv), argv, &e), 0);
	CHECK(o.format == NULL);
	CHECK_EQ_INT(o.report.granularity, GRAN_FUNCTIONS);
	CHECK_EQ_INT(o.granularity_set, 0);
	CHECK_EQ_INT(o.report.cum, 0);
	CHECK(o.report.focus == NULL && o.report.ignore == NULL && o.base == NULL && o.output == NULL);
	CHECK_EQ_INT(o.nargs, 0);
	free(o.args);
}

TEST(value_forms)
{
	char *eq[] = { "pprof", "--focus=Mutex", "--nodecount=12", "--nodefraction=0.25" };
	char *sep[] = { "pprof", "--focus", "Mutex", "--nodecount", "12", "--ignore", "a=b" };
	char *single[] = { "pprof", "-focus", "Mutex", "-ignore=str", "-maxdegree=3" };
	struct options o;
	struct err e;

	CHECK_EQ_INT(parse(&o, ARGC(eq), eq, &e), 0);
	CHECK_STR(o.report.focus, "Mutex");
	CHECK_EQ_INT(o.report.nodecount, 12);
	CHECK(o.report.nodefraction == 0.25);
	CHECK_EQ_INT(o.nargs, 0);
	free(o.args);

	CHECK_EQ_INT(parse(&o, ARGC(sep), sep, &e), 0);
	CHECK_STR(o.report.focus, "Mutex");
	CHECK_EQ_INT(o.report.nodecount, 12);
	CHECK_STR(o.report.ignore, "a=b");
	CHECK_EQ_INT(o.nargs, 0);
	free(o.args);

	CHECK_EQ_INT(parse(&o, ARGC(single), single, &e), 0);
	CHECK_STR(o.report.focus, "Mutex");
	CHECK_STR(o.report.ignore, "str");
	CHECK_EQ_INT(o.report.maxdegree, 3);
	free(o.args);
}

TEST(flags_and_prefixes)
{
	char *a[] = { "pprof", "-tex", "--lin", "--cum", "--drop_negative" };
	char *b[] = { "pprof", "--text", "--addresses", "-show_addr", "-o", "out.txt" };
	char *amb[] = { "pprof", "--li" };   /* lines, lib_prefix */
	struct options o;
	struct err e;

	CHECK_EQ_INT(parse(&o, ARGC(a), a, &e), 0);
	CHECK(o.format == &report_text_format);
	CHECK_EQ_INT(o.report.granularity, GRAN_LINES);
	CHECK_EQ_INT(o.granularity_set, 1);
	CHECK_EQ_INT(o.report.cum, 1);
	CHECK_EQ_INT(o.drop_negative, 1);
	free(o.args);

	CHECK_EQ_INT(parse(&o, ARGC(b), b, &e), 0);
	CHECK(o.format == &report_text_format);
	CHECK_EQ_INT(o.report.granularity, GRAN_ADDRESSES);
	CHECK_EQ_INT(o.report.show_addresses, 1);
	CHECK_STR(o.output, "out.txt");
	CHECK_EQ_INT(o.nargs, 0);
	free(o.args);

	CHECK_EQ_INT(parse(&o, ARGC(amb), amb, &e), -1);
	CHECK_CONTAINS(e.msg, "li");
	free(o.args);
}

TEST(negation)
{
	char *a[] = { "pprof", "--cum", "--nocum" };
	char *b[] = { "pprof", "--nocum" };
	char *c[] = { "pprof", "--nocum", "--cum" };
	struct options o;
	struct err e;

	CHECK_EQ_INT(parse(&o, ARGC(a), a, &e), 0);
	CHECK_EQ_INT(o.report.cum, 0);
	free(o.args);
	CHECK_EQ_INT(parse(&o, ARGC(b), b, &e), 0);
	CHECK_EQ_INT(o.report.cum, 0);
	free(o.args);
	CHECK_EQ_INT(parse(&o, ARGC(c), c, &e), 0);
	CHECK_EQ_INT(o.report.cum, 1);
	free(o.args);
}

TEST(usage_errors)
{
	char *gran[] = { "pprof", "--lines", "--addresses", "prog", "cpu.prof" };
	char *gran2[] = { "pprof", "--files", "--functions" };
	char *unknown[] = { "pprof", "--text", "--bogus", "prog" };
	char *missing[] = { "pprof", "--focus" };
	char *notnum[] = { "pprof", "--nodecount=many" };
	struct options o;
	struct err e;

	CHECK_EQ_INT(parse(&o, ARGC(gran), gran, &e), -1);
	CHECK(e.msg[0] != 0);
	free(o.args);
	CHECK_EQ_INT(parse(&o, ARGC(gran2), gran2, &e), -1);
	free(o.args);
	CHECK_EQ_INT(parse(&o, ARGC(unknown), unknown, &e), -1);
	CHECK_CONTAINS(e.msg, "bogus");
	free(o.args);
	CHECK_EQ_INT(parse(&o, ARGC(missing), missing, &e), -1);
	CHECK_CONTAINS(e.msg, "focus");
	free(o.args);
	CHECK_EQ_INT(parse(&o, ARGC(notnum), notnum, &e), -1);
	CHECK_CONTAINS(e.msg, "many");
	free(o.args);
}

TEST(positional)
{
	char *argv[] = { "pprof", "./prog", "--text", "a.prof", "--focus", "b.prof", "c.prof",
			 "--cum", "d.prof" };
	struct options o;
	struct err e;

	CHECK_EQ_INT(parse(&o, ARGC(argv), argv, &e), 0);
	if (CHECK_EQ_INT(o.nargs, 4)) {
		CHECK_STR(o.args[0], "./prog");
		CHECK_STR(o.args[1], "a.prof");
		CHECK_STR(o.args[2], "c.prof");
		CHECK_STR(o.args[3], "d.prof");
	}
	CHECK_STR(o.report.focus, "b.prof");    /* "--focus VALUE" took the next word */
	CHECK(o.format == &report_text_format);
	CHECK_EQ_INT(o.report.cum, 1);
	free(o.args);
}

TEST(usage_lists_options)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!CHECK(f != NULL))
		return;
	options_usage(f);
	fclose(f);
	CHECK_CONTAINS(text, "--text");
	CHECK_CONTAINS(text, "--cum");
	CHECK_CONTAINS(text, "--focus");
	CHECK_CONTAINS(text, "--lines");
	CHECK_CONTAINS(text, "--base");
	free(text);
}

int main(void)
{
	RUN(defaults);
	RUN(value_forms);
	RUN(flags_and_prefixes);
	RUN(negation);
	RUN(usage_errors);
	RUN(positional);
	RUN(usage_lists_options);
	return test_done();
}
