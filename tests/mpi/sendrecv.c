/* SPDX-License-Identifier: ISC */
/*
 * sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace with neighbours on a
 * periodic ring, in both directions, from 1 int to 1 MiB, with send
 * and receive sizes that differ per rank, with wildcards on the
 * receive side, and between pairs.  At one rank every neighbour is the
 * rank itself.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"sendrecv"
#define MINPROCS	1
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

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
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
fill(int *p, int n, int src, int step)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = src * 100000 + step * 1000 + i;
}

static void
check(const int *p, const MPI_Status *st, int n, int src, int tag,
    int step, const char *what)
{
	int	i, count;

	MPI_Get_count(st, MPI_INT, &count);
	if (count != n)
		fail("%s: count %d, expected %d", what, count, n);
	if (st->MPI_SOURCE != src || st->MPI_TAG != tag)
		fail("%s: status source %d tag %d, expected %d and %d", what,
		    st->MPI_SOURCE, st->MPI_TAG, src, tag);
	for (i = 0; i < n && i < count; i++)
		if (p[i] != src * 100000 + step * 1000 + i) {
			fail("%s: int %d is %d, expected %d", what, i, p[i],
			    src * 100000 + step * 1000 + i);
			return;
		}
}

int
main(int argc, char *argv[])
{
	static const int lens[4] = { 1, 1000, BIG / 4, 0 };
	MPI_Request	 req;
	MPI_Status	 st;
	char		 what[64];
	int		*sbuf, *rbuf;
	int		 size, left, right, peer, k, n, nl;

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
	sbuf = malloc(BIG + 64);
	rbuf = malloc(BIG + 64);
	if (sbuf == NULL || rbuf == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	right = (myrank + 1) % size;
	left = (myrank + size - 1) % size;

	/*
	 * Wildcard receive first: a rank can only get ahead of us by one
	 * step, so no rank's final error report can reach rank 0 while
	 * this MPI_ANY_SOURCE receive is pending.
	 */
	fill(sbuf, 3, myrank, 0);
	MPI_Sendrecv(sbuf, 3, MPI_INT, right, 5, rbuf, 8, MPI_INT,
	    MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	check(rbuf, &st, 3, left, 5, 0, "wildcard Sendrecv");

	/* Shift right with Sendrecv. */
	for (k = 0; k < 4; k++) {
		n = lens[k];
		snprintf(what, sizeof(what), "Sendrecv right, %d ints", n);
		fill(sbuf, n, myrank, k + 1);
		memset(rbuf, 0, (size_t)n * sizeof(int));
		MPI_Sendrecv(sbuf, n, MPI_INT, right, 10 + k, rbuf,
		    BIG / 4 + 16, MPI_INT, left, 10 + k, MPI_COMM_WORLD, &st);
		check(rbuf, &st, n, left, 10 + k, k + 1, what);
	}

	/* Shift left with Sendrecv_replace. */
	for (k = 0; k < 4; k++) {
		n = lens[k];
		snprintf(what, sizeof(what), "Sendrecv_replace left, %d ints",
		    n);
		fill(sbuf, n, myrank, k + 10);
		MPI_Sendrecv_replace(sbuf, n, MPI_INT, left, 20 + k, right,
		    20 + k, MPI_COMM_WORLD, &st);
		check(sbuf, &st, n, right, 20 + k, k + 10, what);
	}

	/* Sizes differ per rank, so each side sends and gets other sizes. */
	n = 1 + (myrank % 8) * 30000;
	nl = 1 + (left % 8) * 30000;
	fill(sbuf, n, myrank, 30);
	MPI_Sendrecv(sbuf, n, MPI_INT, right, 30, rbuf, BIG / 4, MPI_INT,
	    left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	check(rbuf, &st, nl, left, 30, 30, "Sendrecv of unequal sizes");

	/* Distinct send and receive tags. */
	fill(sbuf, 5, myrank, 31);
	MPI_Sendrecv(sbuf, 5, MPI_INT, left, 31, rbuf, 5, MPI_INT, right, 31,
	    MPI_COMM_WORLD, &st);
	check(rbuf, &st, 5, right, 31, 31, "Sendrecv left");
	/*
	 * The Sendrecv must pass over an earlier message with another
	 * tag, which is then still there for a plain receive.
	 */
	fill(sbuf + 16, 5, myrank, 32);
	MPI_Isend(sbuf + 16, 5, MPI_INT, right, 32, MPI_COMM_WORLD, &req);
	fill(sbuf, 5, myrank, 33);
	MPI_Sendrecv(sbuf, 5, MPI_INT, right, 33, rbuf, 5, MPI_INT, left, 33,
	    MPI_COMM_WORLD, &st);
	check(rbuf, &st, 5, left, 33, 33, "Sendrecv past another tag");
	MPI_Recv(rbuf + 8, 5, MPI_INT, left, 32, MPI_COMM_WORLD, &st);
	check(rbuf + 8, &st, 5, left, 32, 32, "message passed over");
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	/* Pairs exchange 1 MiB head to head (a lone rank with itself). */
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;
	fill(sbuf, BIG / 4, myrank, 40);
	MPI_Sendrecv_replace(sbuf, BIG / 4, MPI_INT, peer, 40, peer, 40,
	    MPI_COMM_WORLD, &st);
	check(sbuf, &st, BIG / 4, peer, 40, 40, "pair Sendrecv_replace");

	free(sbuf);
	free(rbuf);
	return finish();
}
