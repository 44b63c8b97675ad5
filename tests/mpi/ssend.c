/* SPDX-License-Identifier: ISC */
/*
 * ssend: synchronous mode.  An MPI_Issend must not complete, however
 * long it is tested, until the receiver has posted a matching receive;
 * in particular a probe of the message is not a receive.  The receiver
 * only posts its receive after a separate go message, so the test is
 * deterministic.  Also checks MPI_Ssend against posted and late
 * receives, small and large, and two ranks that Issend to each other.
 * Ranks pair up as (0,1), (2,3), ...; an odd last rank only reports.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"ssend"
#define MINPROCS	2
#define TAG_ERRS	32000
#define BIG		(1024 * 1024)

static int	errs;	/* failures seen by this rank */
static int	myrank;

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 20)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
finish(void)
{
	int	i, size, e, total = errs;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (myrank == 0) {
		for (i = 1; i < size; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();
	return total != 0;
}

static void
fill(int *p, int n, int seed)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = seed + i;
}

static void
check(const int *p, int n, int seed, const char *what)
{
	int	i;

	for (i = 0; i < n; i++)
		if (p[i] != seed + i) {
			fail("%s: int %d is %d, expected %d", what, i, p[i],
			    seed + i);
			return;
		}
}

/*
 * Test req for a while (at least 100 times and 20 ms, so that a
 * progress engine has every chance to complete it) and fail if it
 * completes.
 */
static void
mustpend(MPI_Request *req, const char *what)
{
	double	t0;
	int	i, flag;

	t0 = MPI_Wtime();
	for (i = 0; i < 100 || MPI_Wtime() - t0 < 0.02; i++) {
		flag = 0;
		MPI_Test(req, &flag, MPI_STATUS_IGNORE);
		if (flag) {
			fail("%s: Issend completed before a receive was"
			    " posted", what);
			return;
		}
	}
}

static void
sender(int peer, int *buf)
{
	MPI_Request	req;
	int		go = 1, v;

	/* 1: small Issend, receive posted only after go. */
	fill(buf, 4, 100);
	MPI_Issend(buf, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &req);
	mustpend(&req, "small");
	MPI_Send(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
	/* A request that did complete is MPI_REQUEST_NULL: Wait is fine. */
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	/* 2: the same with a large message. */
	fill(buf, BIG / 4, 200);
	MPI_Issend(buf, BIG / 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &req);
	mustpend(&req, "large");
	MPI_Send(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	/* 3: the receiver probes the message but does not receive it. */
	fill(buf, 4, 300);
	MPI_Issend(buf, 4, MPI_INT, peer, 7, MPI_COMM_WORLD, &req);
	MPI_Recv(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	mustpend(&req, "probed but not received");
	MPI_Send(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	/* 4: the receive is posted first; then Issend and Ssend finish. */
	MPI_Recv(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	fill(buf, 4, 400);
	MPI_Issend(buf, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	fill(buf, BIG / 4, 500);
	MPI_Ssend(buf, BIG / 4, MPI_INT, peer, 5, MPI_COMM_WORLD);

	/* 5: blocking Ssend to a receiver that is not yet receiving. */
	fill(buf, 4, 600);
	MPI_Ssend(buf, 4, MPI_INT, peer, 10, MPI_COMM_WORLD);
	fill(buf, BIG / 4, 700);
	MPI_Ssend(buf, BIG / 4, MPI_INT, peer, 10, MPI_COMM_WORLD);
}

static void
receiver(int peer, int *buf)
{
	MPI_Request	reqs[2];
	MPI_Status	st;
	int		go, flag, v = 1;

	MPI_Recv(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(buf, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
	check(buf, 4, 100, "small");

	MPI_Recv(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(buf, BIG / 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
	check(buf, BIG / 4, 200, "large");

	MPI_Probe(peer, 7, MPI_COMM_WORLD, &st);
	flag = 0;
	MPI_Iprobe(peer, 7, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		fail("Iprobe after Probe found nothing");
	MPI_Send(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD);
	MPI_Recv(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(buf, 4, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
	check(buf, 4, 300, "probed");

	MPI_Irecv(buf, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, &reqs[0]);
	MPI_Irecv(buf + 4, BIG / 4, MPI_INT, peer, 5, MPI_COMM_WORLD,
	    &reqs[1]);
	MPI_Send(&v, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
	check(buf, 4, 400, "Issend to posted receive");
	check(buf + 4, BIG / 4, 500, "Ssend to posted receive");

	MPI_Recv(buf, 4, MPI_INT, peer, 10, MPI_COMM_WORLD, &st);
	check(buf, 4, 600, "small Ssend");
	MPI_Recv(buf, BIG / 4, MPI_INT, peer, 10, MPI_COMM_WORLD, &st);
	check(buf, BIG / 4, 700, "large Ssend");
}

int
main(int argc, char *argv[])
{
	MPI_Request	 reqs[2];
	int		*buf, *rbuf;
	int		 size, peer;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < MINPROCS) {
		if (myrank == 0)
			fprintf(stderr, "%s: needs at least %d ranks\n",
			    NAME, MINPROCS);
		MPI_Finalize();
		return 1;
	}
	buf = malloc(BIG + 64);
	rbuf = malloc(BIG + 64);
	if (buf == NULL || rbuf == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	peer = myrank ^ 1;
	if (peer < size) {
		if (myrank % 2 == 0)
			sender(peer, buf);
		else
			receiver(peer, buf);

		/* Both sides Issend first, then receive: no deadlock. */
		fill(buf, BIG / 4, 800 + myrank);
		MPI_Issend(buf, BIG / 4, MPI_INT, peer, 11, MPI_COMM_WORLD,
		    &reqs[0]);
		MPI_Irecv(rbuf, BIG / 4, MPI_INT, peer, 11, MPI_COMM_WORLD,
		    &reqs[1]);
		MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
		check(rbuf, BIG / 4, 800 + peer, "head-to-head Issend");
	}

	free(buf);
	free(rbuf);
	return finish();
}
