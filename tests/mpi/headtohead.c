/* SPDX-License-Identifier: ISC */
/*
 * headtohead: two ranks exchange 4 MiB in both directions at the same
 * time.  Two blocking standard-mode sends facing each other may
 * deadlock, so that is not tested; nonblocking sends and receives
 * (posted in either order), MPI_Sendrecv, and an MPI_Isend followed
 * by a blocking MPI_Recv must all complete.  Then every rank sends
 * 4 MiB around the ring at once.  Ranks pair up as (0,1), (2,3), ...;
 * an odd last rank, or a lone rank, is its own partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"headtohead"
#define MINPROCS	1
#define TAG_ERRS	32000
#define BIG		(4 * 1024 * 1024)
#define NINT		(BIG / (int)sizeof(int))

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
fill(int *p, int n, int src, int round)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = (src * 16 + round) ^ (i * 2654435761u);
}

static void
check(const int *p, const MPI_Status *st, int n, int src, int round,
    const char *what)
{
	int	i, count;

	if (st != NULL) {
		MPI_Get_count(st, MPI_INT, &count);
		if (count != n)
			fail("%s: count %d, expected %d", what, count, n);
		if (st->MPI_SOURCE != src)
			fail("%s: status source %d, expected %d", what,
			    st->MPI_SOURCE, src);
	}
	for (i = 0; i < n; i++)
		if (p[i] != (int)((src * 16 + round) ^ (i * 2654435761u))) {
			fail("%s: int %d of %d is wrong", what, i, n);
			return;
		}
}

int
main(int argc, char *argv[])
{
	MPI_Request	 reqs[8];
	MPI_Status	 sts[8];
	int		*sbuf, *rbuf;
	int		 size, peer, left, right, i;

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
	sbuf = malloc(BIG);
	rbuf = malloc(BIG);
	if (sbuf == NULL || rbuf == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;
	right = (myrank + 1) % size;
	left = (myrank + size - 1) % size;

	/* 1: Irecv, then Isend, then Waitall. */
	fill(sbuf, NINT, myrank, 1);
	memset(rbuf, 0, BIG);
	MPI_Irecv(rbuf, NINT, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend(sbuf, NINT, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	check(rbuf, &sts[0], NINT, peer, 1, "Irecv first");

	/* 2: Isend, then Irecv, then Waitall. */
	fill(sbuf, NINT, myrank, 2);
	memset(rbuf, 0, BIG);
	MPI_Isend(sbuf, NINT, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[0]);
	MPI_Irecv(rbuf, NINT, MPI_INT, peer, 2, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	check(rbuf, &sts[1], NINT, peer, 2, "Isend first");

	/* 3: MPI_Sendrecv. */
	fill(sbuf, NINT, myrank, 3);
	memset(rbuf, 0, BIG);
	MPI_Sendrecv(sbuf, NINT, MPI_INT, peer, 3, rbuf, NINT, MPI_INT, peer,
	    3, MPI_COMM_WORLD, &sts[0]);
	check(rbuf, &sts[0], NINT, peer, 3, "Sendrecv");

	/* 4: Isend, then a blocking Recv, then Wait. */
	fill(sbuf, NINT, myrank, 4);
	memset(rbuf, 0, BIG);
	MPI_Isend(sbuf, NINT, MPI_INT, peer, 4, MPI_COMM_WORLD, &reqs[0]);
	MPI_Recv(rbuf, NINT, MPI_INT, peer, 4, MPI_COMM_WORLD, &sts[0]);
	MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
	check(rbuf, &sts[0], NINT, peer, 4, "Isend then Recv");

	/* 5: four 1 MiB pieces each way, all in flight together. */
	fill(sbuf, NINT, myrank, 5);
	memset(rbuf, 0, BIG);
	for (i = 0; i < 4; i++) {
		MPI_Irecv(rbuf + i * (NINT / 4), NINT / 4, MPI_INT, peer, 5,
		    MPI_COMM_WORLD, &reqs[i]);
		MPI_Isend(sbuf + i * (NINT / 4), NINT / 4, MPI_INT, peer, 5,
		    MPI_COMM_WORLD, &reqs[4 + i]);
	}
	MPI_Waitall(8, reqs, sts);
	check(rbuf, NULL, NINT, peer, 5, "four pieces");

	/* 6: everyone sends 4 MiB to the right at once. */
	fill(sbuf, NINT, myrank, 6);
	memset(rbuf, 0, BIG);
	MPI_Isend(sbuf, NINT, MPI_INT, right, 6, MPI_COMM_WORLD, &reqs[0]);
	MPI_Irecv(rbuf, NINT, MPI_INT, left, 6, MPI_COMM_WORLD, &reqs[1]);
	MPI_Waitall(2, reqs, sts);
	check(rbuf, &sts[1], NINT, left, 6, "ring");

	free(sbuf);
	free(rbuf);
	return finish();
}
