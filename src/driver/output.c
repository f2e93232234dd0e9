/* output.c - buffering a report and writing it only once it is complete. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "strbuf.h"
#include "util.h"

/*
 * The report is kept in blocks that fill one after the other: a memory
 * stream would copy the whole text each time it doubled, and hold both
 * copies while it did.
 */
#define CHUNK (256u << 10)

struct output_chunk {
	struct output_chunk *next;
	size_t len;
	char data[CHUNK];
};

/* The outputs open, for output_ready (the web UI's threads write reports too). */
static struct output *open_outputs;
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;

static void forget_open(struct output *o)
{
	struct output **at;

	pthread_mutex_lock(&open_mu);
	for (at = &open_outputs; *at; at = &(*at)->next_open)
		if (*at == o) {
			*at = o->next_open;
			break;
		}
	pthread_mutex_unlock(&open_mu);
}

static ssize_t chunk_write(void *cookie, const char *buf, size_t len)
{
	struct output *o = cookie;
	size_t done = 0;

	/* Ready: straight through. */
	if (o->fd >= 0) {
		if (!o->write_errno && write_all(o->fd, buf, len) < 0)
			o->write_errno = errno ? errno : EIO;
		if (o->write_errno) {
			errno = o->write_errno;
			return -1;
		}
		return (ssize_t)len;
	}

	while (done < len) {
		struct output_chunk *c = o->tail;
		size_t n;

		if (!c || c->len == CHUNK) {
			if (!(c = malloc(sizeof(*c)))) {
				o->failed = 1;
				errno = ENOMEM;
				return done ? (ssize_t)done : -1;
			}
			c->next = NULL;
			c->len = 0;
			if (o->tail)
				o->tail->next = c;
			else
				o->head = c;
			o->tail = c;
		}
		n = CHUNK - c->len < len - done ? CHUNK - c->len : len - done;
		memcpy(c->data + c->len, buf + done, n);
		c->len += n;
		done += n;
	}
	return (ssize_t)len;
}

static void free_chunks(struct output *o)
{
	while (o->head) {
		struct output_chunk *c = o->head;

		o->head = c->next;
		free(c);
	}
	o->tail = NULL;
}

int output_open(struct output *o, const char *path, struct err *e)
{
	cookie_io_functions_t io = { .write = chunk_write };

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path && strcmp(path, "-") ? path : NULL;
	o->fp = fopencookie(o, "w", io);
	if (!o->fp)
		return err_set(e, "cannot buffer output: %s", strerror(errno));
	setvbuf(o->fp, NULL, _IOFBF, 64u << 10);
	pthread_mutex_lock(&open_mu);
	o->next_open = open_outputs;
	open_outputs = o;
	pthread_mutex_unlock(&open_mu);
	return 0;
}

static int write_chunks(int fd, const struct output *o)
{
	const struct output_chunk *c;

	for (c = o->head; c; c = c->next)
		if (write_all(fd, c->data, c->len) < 0)
			return -1;
	return 0;
}

/*
 * Whether path is a device, a pipe or a socket: there is nothing to
 * replace, it is written in place.
 */
static int in_place(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* The report written into such a file, opened as it is. */
static int write_in_place(const char *path, const struct output *o, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return err_set(e, "cannot open '%s': %s", path, strerror(errno));
	if (write_chunks(fd, o) < 0) {
		err_set(e, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * A regular file (or a new one) is written beside its target and renamed
 * over it, keeping an existing file's mode; a symbolic link is followed so
 * that the file it names is replaced, not the link.
 */
static int replace_file(const char *path, const struct output *o, struct err *e)
{
	struct strbuf tmp = STRBUF_INIT;
	char *real = realpath(path, NULL);
	const char *target = real ? real : path;
	struct stat st;
	mode_t mode, mask;
	int fd, ret = -1;

	if (stat(target, &st) == 0) {
		mode = st.st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	sb_addf(&tmp, "%s.XXXXXX", target);
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		err_set(e, "cannot create a file beside '%s': %s", path, strerror(errno));
		goto out;
	}
	if (write_chunks(fd, o) < 0 || fchmod(fd, mode) < 0) {
		err_set(e, "cannot write '%s': %s", tmp.buf, strerror(errno));
		close(fd);
		unlink(tmp.buf);
		goto out;
	}
	close(fd);
	if (rename(tmp.buf, target) < 0) {
		err_set(e, "cannot rename '%s' to '%s': %s", tmp.buf, target, strerror(errno));
		unlink(tmp.buf);
		goto out;
	}
	ret = 0;
out:
	free(real);
	sb_release(&tmp);
	return ret;
}

void output_ready(FILE *fp)
{
	struct output *o;
	int fd = STDOUT_FILENO;

	pthread_mutex_lock(&open_mu);
	for (o = open_outputs; o && o->fp != fp; o = o->next_open)
		;
	pthread_mutex_unlock(&open_mu);
	if (!o || o->fd >= 0 || fflush(fp) != 0 || o->failed)
		return;
	/* A regular file is still replaced whole; one that cannot be opened fails in commit. */
	if (o->path && (!in_place(o->path) || (fd = open(o->path, O_WRONLY | O_CLOEXEC)) < 0))
		return;
	if (write_chunks(fd, o) < 0)
		o->write_errno = errno ? errno : EIO;
	free_chunks(o);
	o->fd = fd;
}

/* After output_ready: the stream's last bytes written, and its device closed. */
static int finish_ready(struct output *o, int closed, struct err *e)
{
	int err = o->write_errno ? o->write_errno : closed ? 0 : errno;

	if (o->path && close(o->fd) < 0 && !err)
		err = errno;
	o->fd = -1;
	if (!err)
		return 0;
	if (o->path)
		return err_set(e, "cannot write '%s': %s", o->path, strerror(err));
	return err_set(e, "cannot write to standard output: %s", strerror(err));
}

int output_commit(struct output *o, struct err *e)
{
	int ret = -1;

	forget_open(o);
	if (o->fd >= 0) {
		int closed = fclose(o->fp) == 0;

		o->fp = NULL;
		return finish_ready(o, closed, e);
	}
	if (fclose(o->fp) != 0 || o->failed) {
		o->fp = NULL;
		err_set(e, "cannot buffer output: %s", strerror(o->failed ? ENOMEM : errno));
		goto out;
	}
	o->fp = NULL;
	if (!o->path) {
		if (write_chunks(STDOUT_FILENO, o) < 0) {
			err_set(e, "cannot write to standard output: %s", strerror(errno));
			goto out;
		}
		ret = 0;
	} else if (in_place(o->path)) {
		ret = write_in_place(o->path, o, e);
	} else {
		ret = replace_file(o->path, o, e);
	}
out:
	free_chunks(o);
	return ret;
}

void output_abort(struct output *o)
{
	forget_open(o);
	if (o->fp)
		fclose(o->fp);
	if (o->fd >= 0 && o->path)
		close(o->fd);
	free_chunks(o);
	memset(o, 0, sizeof(*o));
}
