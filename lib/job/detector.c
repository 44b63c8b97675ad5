/* SPDX-License-Identifier: ISC */
/*
 * The detector module of a host agent: `ftgossip run` in a child, its
 * events on a pipe, death reports on its input.  A member it declares
 * failed is the loss of that member's host; its exclusion of us is the
 * loss of every other host (we are the ones cut off).
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include <bsd/stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detector.h"
#include "child.h"

/* The wire's numbers of the schedules: enum ft_gossip_proto's. */
static const char *const schedules[] = { "random", "rr", "brr", "dbrr" };

uint32_t
ft__det_proto_code(const char *name)
{
	uint32_t i;

	for (i = 0; i < FT_NELEM(schedules); i++)
		if (strcmp(schedules[i], name) == 0)
			return i;
	return FT_NELEM(schedules) - 1;
}

const char *
ft__det_proto_name(uint32_t code)
{
	return code < FT_NELEM(schedules) ? schedules[code] : "dbrr";
}

int
ft__helper_path(const char *name, char *out, size_t size)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(out, size, "%s/%s", exe, name) <
			    size && access(out, X_OK) == 0)
				return 0;
		}
	}
	return ft_find_program(name, getenv("PATH") != NULL ?
	    getenv("PATH") : "/usr/local/bin:/usr/bin:/bin", out, size);
}

/* The members file: one address a line, in memory. */
static int
members_fd(const struct ft__det_cfg *cf)
{
	FILE *f;
	uint32_t i;
	int fd, dupfd;

	if ((fd = memfd_create("ft-members", MFD_CLOEXEC)) == -1)
		return -1;
	if ((dupfd = dup(fd)) == -1 || (f = fdopen(dupfd, "w")) == NULL) {
		if (dupfd != -1)
			close(dupfd);
		close(fd);
		return -1;
	}
	for (i = 0; i < cf->n; i++)
		fprintf(f, "%u %s\n", i, cf->addrs[i]);
	if (fclose(f) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
ft__det_start(struct ft__det *d, const struct ft__det_cfg *cf)
{
	char prog[PATH_MAX], members[PATH_MAX], self[16], period[32],
	    cleanup[32], ping[32], lfd[16], keyenv[32];
	char *argv[20], *setenv[1];
	struct ft__spawn sp;
	int ev[2] = { -1, -1 }, in[2] = { -1, -1 }, key[2] = { -1, -1 }, e;
	int mfd = -1;
	size_t k = 0;
	pid_t parent = getpid();
	sigset_t none;

	memset(d, 0, sizeof(*d));
	d->pid = -1;
	d->ev_fd = d->in_fd = -1;
	if (ft__helper_path("ftgossip", prog, sizeof(prog)) != 0 ||
	    (mfd = members_fd(cf)) == -1)
		goto fail;
	/* Its own descriptor of the file, at offset 0. */
	snprintf(members, sizeof(members), "/proc/self/fd/%d", mfd);
	sigemptyset(&none);
	if (pipe2(ev, O_CLOEXEC) != 0 || pipe2(in, O_CLOEXEC) != 0 ||
	    pipe2(key, O_CLOEXEC) != 0)
		goto fail;
	if (write(key[1], cf->key, FT_WIRE_KEYLEN) != FT_WIRE_KEYLEN)
		goto fail;
	close(key[1]);
	key[1] = -1;
	snprintf(self, sizeof(self), "%u", cf->self);
	snprintf(lfd, sizeof(lfd), "%d", cf->listen_fd);
	snprintf(keyenv, sizeof(keyenv), "%s=%d", FT_ENV_KEYFD, key[0]);
	argv[k++] = "ftgossip";
	argv[k++] = "run";
	argv[k++] = "--self";
	argv[k++] = self;
	argv[k++] = "--members";
	argv[k++] = members;
	argv[k++] = "--listen-fd";
	argv[k++] = lfd;
	argv[k++] = "--protocol";
	argv[k++] = (char *)(uintptr_t)cf->proto;
	if (cf->period_ns != 0) {
		snprintf(period, sizeof(period), "%lluns",
		    (unsigned long long)cf->period_ns);
		argv[k++] = "--period";
		argv[k++] = period;
	}
	if (cf->cleanup_ns != 0) {
		snprintf(cleanup, sizeof(cleanup), "%lluns",
		    (unsigned long long)cf->cleanup_ns);
		argv[k++] = "--cleanup";
		argv[k++] = cleanup;
	}
	if (cf->ping_ns != 0) {
		snprintf(ping, sizeof(ping), "%lluns",
		    (unsigned long long)cf->ping_ns);
		argv[k++] = "--ping-timeout";
		argv[k++] = ping;
	}
	argv[k] = NULL;
	setenv[0] = keyenv;
	fflush(NULL);
	if ((d->pid = fork()) == -1)
		goto fail;
	if (d->pid == 0) {
		sp = (struct ft__spawn){ .prog = prog, .argv = argv,
		    .setenv = setenv, .nsetenv = 1, .in_fd = in[0],
		    .out_fd = ev[1], .err_fd = STDERR_FILENO,
		    .keep = { key[0], cf->listen_fd, mfd },
		    .mask = cf->mask != NULL ? cf->mask : &none,
		    .parent = parent, .errfd = -1 };
		ft__spawn_exec(&sp);
	}
	close(ev[1]);
	close(in[0]);
	close(key[0]);
	close(mfd);
	d->ev_fd = ev[0];
	d->in_fd = in[1];
	ft__fd_nonblock(d->ev_fd);
	ft__fd_nonblock(d->in_fd);
	return 0;
fail:
	e = errno;
	if (ev[0] != -1) {
		close(ev[0]);
		close(ev[1]);
	}
	if (in[0] != -1) {
		close(in[0]);
		close(in[1]);
	}
	if (key[0] != -1)
		close(key[0]);
	if (key[1] != -1)
		close(key[1]);
	if (mfd != -1)
		close(mfd);
	errno = e;
	return -1;
}

/* The value of key= in an event line, or NULL. */
static const char *
field(const char *line, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key), n;
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=') {
			p += klen + 1;
			n = strcspn(p, " ");
			if (n >= size)
				n = size - 1;
			memcpy(val, p, n);
			val[n] = '\0';
			return val;
		}
		p += klen;
	}
	return NULL;
}

static void
on_line(struct ft__det *d, const char *line,
    void (*failed)(void *, uint32_t, const char *), void *arg)
{
	const char *errstr;
	char ev[32], id[16], by[16];
	long long v;

	if (field(line, "event", ev, sizeof(ev)) == NULL)
		return;
	if (strcmp(ev, "excluded") == 0) {
		d->ended = d->excluded = 1;
		return;
	}
	if (strcmp(ev, "failed") != 0 || field(line, "id", id,
	    sizeof(id)) == NULL)
		return;
	v = strtonum(id, 0, UINT32_MAX, &errstr);
	if (errstr == NULL)
		failed(arg, (uint32_t)v, field(line, "by", by, sizeof(by)) !=
		    NULL ? by : "?");
}

int
ft__det_events(struct ft__det *d, void (*failed)(void *, uint32_t,
    const char *), void *arg)
{
	char *nl, *line;
	ssize_t got;

	while (d->ev_fd != -1) {
		got = read(d->ev_fd, d->buf + d->len, sizeof(d->buf) - 1 -
		    d->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0 || errno != EAGAIN) {
				close(d->ev_fd);
				d->ev_fd = -1;
				d->ended = 1;
			}
			break;
		}
		d->len += (size_t)got;
		d->buf[d->len] = '\0';
		line = d->buf;
		while ((nl = strchr(line, '\n')) != NULL) {
			*nl = '\0';
			on_line(d, line, failed, arg);
			line = nl + 1;
		}
		d->len -= (size_t)(line - d->buf);
		memmove(d->buf, line, d->len);
		/* A line longer than the buffer is no event of ours. */
		if (d->len == sizeof(d->buf) - 1)
			d->len = 0;
	}
	return d->ended;
}

void
ft__det_dead(struct ft__det *d, uint32_t id)
{
	char line[24];
	int n;

	if (d->in_fd == -1)
		return;
	n = snprintf(line, sizeof(line), "dead %u\n", id);
	/* A full pipe drops it: the detector finds the death itself. */
	(void)!write(d->in_fd, line, (size_t)n);
}

void
ft__det_stop(struct ft__det *d)
{
	/* The agent's reaper may have taken it already: once its
	 * output ended, its pid is not ours to signal. */
	if (d->pid > 0 && !d->ended) {
		(void)kill(d->pid, SIGTERM);
		while (waitpid(d->pid, NULL, 0) == -1 && errno == EINTR)
			continue;
	} else if (d->pid > 0)
		(void)waitpid(d->pid, NULL, WNOHANG);
	d->pid = -1;
	if (d->ev_fd != -1)
		close(d->ev_fd);
	if (d->in_fd != -1)
		close(d->in_fd);
	d->ev_fd = d->in_fd = -1;
}
