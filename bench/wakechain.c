/* SPDX-License-Identifier: ISC */
/*
 * The floor under a view's stabilization on this machine: n processes
 * in a chain, each waiting in epoll_wait on a Unix socket and passing a
 * 540-byte frame (a view of 64 members) to the next, with no ft code.
 * A view must wake every member once on the way down, so n wake-ups of
 * this kind bound what ftgossip can do when all members share the host.
 *
 * usage: wakechain N [ROUNDS]	prints one line: n, best and median us
 */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FRAME	540
#define NMAX	512

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int
main(int argc, char *argv[])
{
	static int sv[NMAX][2];
	static double us[1000];
	struct epoll_event ev;
	char buf[FRAME];
	int n, rounds, i, r, ep;
	double t0;

	n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 64;
	rounds = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 30;
	if (n < 2 || n > NMAX || rounds < 1 || rounds > 1000) {
		fprintf(stderr, "usage: wakechain N(2..%d) [ROUNDS(1..1000)]\n",
		    NMAX);
		return 100;
	}
	for (i = 0; i < n; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]) != 0) {
			perror("socketpair");
			return 111;
		}
	for (i = 1; i < n; i++) {
		if (fork() != 0)
			continue;
		ep = epoll_create1(0);
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		epoll_ctl(ep, EPOLL_CTL_ADD, sv[i - 1][1], &ev);
		for (r = 0; r < rounds; r++) {
			epoll_wait(ep, &ev, 1, -1);
			if (read(sv[i - 1][1], buf, FRAME) != FRAME ||
			    write(sv[i][0], buf, FRAME) != FRAME)
				_exit(1);
		}
		_exit(0);
	}
	memset(buf, 0, sizeof(buf));
	for (r = 0; r < rounds; r++) {
		usleep(20000);	/* let every process go idle, as members are */
		t0 = now_us();
		if (write(sv[0][0], buf, FRAME) != FRAME ||
		    read(sv[n - 1][1], buf, FRAME) != FRAME)
			return 111;
		us[r] = now_us() - t0;
	}
	while (wait(NULL) > 0)
		continue;
	qsort(us, rounds, sizeof(*us), cmp);
	printf("chain n=%d hops: best %.0f us, median %.0f us, %.1f us a "
	    "hop (best)\n", n, us[0], us[rounds / 2], us[0] / n);
	return 0;
}
