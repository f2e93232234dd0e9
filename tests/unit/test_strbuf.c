/* test_strbuf.c - unit tests for the growable string buffer (include/strbuf.h). */
#include <stdarg.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "harness.h"
#include "strbuf.h"

static int terminated(const struct strbuf *sb)
{
	return sb->buf && sb->buf[sb->len] == 0;
}

TEST(init_is_empty)
{
	struct strbuf sb = STRBUF_INIT, other;

	/* Never NULL: a buffer that never grew reads as "". */
	CHECK(sb.buf != NULL);
	CHECK_EQ_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
	sb_init(&other);
	CHECK(other.buf == sb.buf);
	sb_reset(&sb);
	CHECK_EQ_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
	sb_release(&sb);
	CHECK_STR(sb.buf, "");
}

TEST(grow_keeps_invariant)
{
	struct strbuf sb = STRBUF_INIT;

	/* "buf[len] == 0 once any operation has run", sb_grow included. */
	sb_grow(&sb, 100);
	CHECK(sb.cap >= 101);
	CHECK_EQ_INT(sb.len, 0);
	if (CHECK(terminated(&sb)))
		CHECK_STR(sb.buf, "");
	sb_adds(&sb, "abc");
	sb_grow(&sb, 5000);
	CHECK(sb.cap >= 5004);
	CHECK_EQ_INT(sb.len, 3);
	CHECK_STR(sb.buf, "abc");
	sb_release(&sb);
}

TEST(adds_and_addc)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	sb_adds(&sb, "hello");
	CHECK_EQ_INT(sb.len, 5);
	CHECK(terminated(&sb));
	sb_addc(&sb, ',');
	sb_addc(&sb, ' ');
	sb_adds(&sb, "world");
	CHECK_STR(sb.buf, "hello, world");
	CHECK_EQ_INT(sb.len, 12);
	sb_adds(&sb, "");
	CHECK_EQ_INT(sb.len, 12);
	CHECK(terminated(&sb));

	sb_reset(&sb);
	for (i = 0; i < 1000; i++)
		sb_addc(&sb, (char)('a' + i % 26));
	CHECK_EQ_INT(sb.len, 1000);
	CHECK(terminated(&sb));
	CHECK_EQ_INT(sb.buf[0], 'a');
	CHECK_EQ_INT(sb.buf[999], 'a' + 999 % 26);
	CHECK(sb.cap > sb.len);
	sb_release(&sb);
	CHECK(sb.buf == strbuf_slopbuf);
	CHECK_STR(sb.buf, "");
	CHECK_EQ_INT(sb.len, 0);
	CHECK_EQ_INT(sb.cap, 0);
}

TEST(add_binary)
{
	struct strbuf sb = STRBUF_INIT;
	static const char bytes[] = { 'a', 0, 'b', 0 };

	sb_add(&sb, bytes, sizeof(bytes));
	CHECK_EQ_INT(sb.len, 4);
	CHECK(!memcmp(sb.buf, bytes, 4));
	CHECK(terminated(&sb));
	sb_add(&sb, "xyz", 2);
	CHECK_EQ_INT(sb.len, 6);
	CHECK(!memcmp(sb.buf + 4, "xy", 2));
	CHECK(terminated(&sb));
	sb_add(&sb, "ignored", 0);
	CHECK_EQ_INT(sb.len, 6);
	CHECK(terminated(&sb));
	sb_release(&sb);
}

TEST(reset_reuses)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "some text that is here");
	sb_reset(&sb);
	CHECK_EQ_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
	sb_adds(&sb, "new");
	CHECK_STR(sb.buf, "new");
	sb_release(&sb);
}

TEST(addf_short_and_long)
{
	struct strbuf sb = STRBUF_INIT;
	char big[3000];
	size_t i;

	sb_addf(&sb, "%d-%s", 42, "x");
	CHECK_STR(sb.buf, "42-x");
	CHECK_EQ_INT(sb.len, 4);
	sb_addf(&sb, "%s", "");
	CHECK_EQ_INT(sb.len, 4);
	sb_addf(&sb, "[%05x]", 0xbeefu);
	CHECK_STR(sb.buf, "42-x[0beef]");

	/* Longer than any first guess: the formatter must retry. */
	for (i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('0' + i % 10);
	big[sizeof(big) - 1] = 0;
	sb_reset(&sb);
	sb_adds(&sb, "<");
	sb_addf(&sb, "%s|%s", big, "end");
	CHECK_EQ_INT(sb.len, 1 + strlen(big) + 4);
	CHECK(terminated(&sb));
	CHECK(!strncmp(sb.buf + 1, big, strlen(big)));
	CHECK_STR(sb.buf + sb.len - 4, "|end");

	/* Exactly filling what is left must still terminate. */
	sb_release(&sb);
	for (i = 60; i < 70; i++) {
		sb_reset(&sb);
		sb_addf(&sb, "%.*s", (int)i, big);
		CHECK(sb.len == i && terminated(&sb) && !strncmp(sb.buf, big, i));
	}
	sb_release(&sb);
}

static void addv(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

TEST(vaddf)
{
	struct strbuf sb = STRBUF_INIT;
	char big[500];

	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	addv(&sb, "%s=%u", "n", 7u);
	CHECK_STR(sb.buf, "n=7");
	addv(&sb, "%s", big);
	CHECK_EQ_INT(sb.len, 3 + strlen(big));
	CHECK(terminated(&sb));
	CHECK_EQ_INT(sb.buf[sb.len - 1], 'q');
	sb_release(&sb);
}

TEST(add_int_as_printf)
{
	static const int64_t v[] = { 0, 7, -7, 10, -10, 1234567890123LL, INT64_MAX, INT64_MIN };
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sb_reset(&sb);
		sb_reset(&want);
		sb_adds(&sb, "x");
		sb_add_int(&sb, v[i]);
		sb_addf(&want, "x%lld", (long long)v[i]);
		CHECK_STR(sb.buf, want.buf);
		CHECK_EQ_INT(sb.len, want.len);
	}
	sb_release(&sb);
	sb_release(&want);
}

int main(void)
{
#ifdef M_PERTURB
	/* Fresh heap memory is not zero: a missing terminator shows every run. */
	mallopt(M_PERTURB, 0x41);
#endif
	RUN(init_is_empty);
	RUN(grow_keeps_invariant);
	RUN(adds_and_addc);
	RUN(add_binary);
	RUN(reset_reuses);
	RUN(addf_short_and_long);
	RUN(vaddf);
	RUN(add_int_as_printf);
	return test_done();
}
