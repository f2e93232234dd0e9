/* output.c - buffering a report and writing it only once it is complete. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "strbuf.h"

int output_open(struct output *o, const char *path, struct err *e)
{
	memset(o, 0, sizeof(*o));
	o->path = path && strcmp(path, "-") ? path : NULL;
	o->fp = open_memstream(&o->buf, &o->len);
	if (!o->fp)
		return err_set(e, "cannot buffer output: %s", strerror(errno));
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int output_commit(struct output *o, struct err *e)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret = -1;

	if (fclose(o->fp) != 0) {
		o->fp = NULL;
		err_set(e, "cannot buffer output: %s", strerror(errno));
		goto out;
	}
	o->fp = NULL;
	if (!o->path) {
		if (write_all(STDOUT_FILENO, o->buf, o->len) < 0) {
			err_set(e, "cannot write to standard output: %s", strerror(errno));
			goto out;
		}
		ret = 0;
		goto out;
	}
	sb_addf(&tmp, "%s.XXXXXX", o->path);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		err_set(e, "cannot create a file beside '%s': %s", o->path, strerror(errno));
		goto out;
	}
	if (write_all(fd, o->buf, o->len) < 0 || fsync(fd) < 0) {
		err_set(e, "cannot write '%s': %s", tmp.buf, strerror(errno));
		close(fd);
		unlink(tmp.buf);
		goto out;
	}
	fchmod(fd, 0644 & ~(mode_t)0);
	close(fd);
	if (rename(tmp.buf, o->path) < 0) {
		err_set(e, "cannot rename '%s' to '%s': %s", tmp.buf, o->path, strerror(errno));
		unlink(tmp.buf);
		goto out;
	}
	ret = 0;
out:
	sb_release(&tmp);
	free(o->buf);
	o->buf = NULL;
	return ret;
}

void output_abort(struct output *o)
{
	if (o->fp)
		fclose(o->fp);
	free(o->buf);
	memset(o, 0, sizeof(*o));
}
