/* SPDX-License-Identifier: ISC */
/*
 * The floor for ft's same-host latency: a bare ping-pong between two
 * processes over a Unix-domain stream socket pair, with blocking read(2)
 * and write(2) and no MPI at all.  It prints the same lines as pingpong:
 *
 *	lat <bytes> <usec>	mean half round trip of one block
 *
 * With -p both ends make their sockets non-blocking and spin on EAGAIN
 * instead of sleeping in read(2).  On a virtual machine the wake-up of a
 * sleeping process on another CPU can cost tens of microseconds, more than
 * the socket itself, and MPI libraries that poll never pay it; -p shows the
 * floor for a polling library.
 *
 * A zero-byte ping-pong cannot exist on a stream socket, as a zero-byte
 * write sends nothing, so the "0" line really moves one byte.  An MPI
 * zero-byte message on a stream still carries its header, so one byte is a
 * fair floor for it.
 */

#define _POSIX_C_SOURCE 200809L

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const size_t	 sizes[] = { 0, 8, 1024 };

static void
usage(void)
{
	fprintf(stderr, "usage: unixpp [-p] [-i iters] [-w warmup]\n");
	exit(100);
}

static long long
number(const char *s, long long min, long long max, const char *what)
{
	long long	 v;
	char		*end;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "unixpp: %s '%s' is invalid\n", what, s);
		exit(100);
	}
	return v;
}

/*
 * Return 0, or -1 on error or end of file.  EAGAIN only happens with -p,
 * where retrying at once is the point.
 */
static int
readfull(int fd, char *p, size_t n)
{
	ssize_t	 r;

	while (n > 0) {
		if ((r = read(fd, p, n)) == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		if (r == 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int
writefull(int fd, const char *p, size_t n)
{
	ssize_t	 r;

	while (n > 0) {
		if ((r = write(fd, p, n)) == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Echo messages of n bytes until the parent closes its end. */
static void
echo(int fd, char *buf, size_t n)
{
	while (readfull(fd, buf, n) == 0)
		if (writefull(fd, buf, n) == -1)
			_exit(111);
	_exit(0);
}

static int
ping(int fd, char *buf, size_t n, long long iters)
{
	long long	 i;

	for (i = 0; i < iters; i++)
		if (writefull(fd, buf, n) == -1 || readfull(fd, buf, n) == -1)
			return -1;
	return 0;
}

/* One child per size, so that both ends always know the message size. */
static int
measure(size_t size, long long iters, long long warmup, int spin)
{
	char	 buf[1024];
	double	 t0, t;
	size_t	 n = size > 0 ? size : 1;
	pid_t	 pid;
	int	 sv[2], status;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1) {
		perror("unixpp: socketpair");
		return -1;
	}
	if (spin && (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(sv[1], F_SETFL, O_NONBLOCK) == -1)) {
		perror("unixpp: fcntl");
		return -1;
	}
	memset(buf, 'x', sizeof(buf));
	switch ((pid = fork())) {
	case -1:
		perror("unixpp: fork");
		return -1;
	case 0:
		close(sv[0]);
		echo(sv[1], buf, n);
		/* NOTREACHED */
	}
	close(sv[1]);
	if (ping(sv[0], buf, n, warmup) == -1)
		goto fail;
	t0 = now();
	if (ping(sv[0], buf, n, iters) == -1)
		goto fail;
	t = now() - t0;
	close(sv[0]);
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "unixpp: echo process failed\n");
		return -1;
	}
	printf("lat %zu %.3f\n", size, t * 1e6 / (2.0 * iters));
	fflush(stdout);
	return 0;
 fail:
	perror("unixpp: ping");
	close(sv[0]);
	waitpid(pid, &status, 0);
	return -1;
}

int
main(int argc, char *argv[])
{
	long long	 iters = 5000, warmup = 500;
	size_t		 i;
	int		 ch, spin = 0;

	while ((ch = getopt(argc, argv, "i:pw:")) != -1) {
		switch (ch) {
		case 'i':
			iters = number(optarg, 1, 100000000, "iters");
			break;
		case 'p':
			spin = 1;
			break;
		case 'w':
			warmup = number(optarg, 0, 100000000, "warmup");
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (measure(sizes[i], iters, warmup, spin) == -1)
			return 111;
	return 0;
}
