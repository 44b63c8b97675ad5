/* SPDX-License-Identifier: ISC */
/*
 * alltoall: all-to-all by hand with many requests outstanding.  Every
 * rank has NMSG nonblocking sends and NMSG receives in flight towards
 * and from every rank, itself included, and completes them with one
 * MPI_Waitall.  A first round names the source and spreads messages
 * over four tags, so the non-overtaking rule decides which receive
 * gets which message; a second round receives everything with
 * MPI_ANY_SOURCE and checks that each source's messages still land in
 * the order the receives were posted.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"alltoall"
#define MINPROCS	1
#define TAG_ERRS	32000
#define NMSG		200
#define SMALL		8
#define LARGE		2048

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

static void *
xcalloc(size_t n, size_t sz)
{
	void	*p;

	if ((p = calloc(n, sz)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* Message k between any two ranks has len(k) ints; one in ten is larger. */
static int
len(int k)
{
	return k % 10 == 9 ? LARGE : SMALL;
}

/* Int j of message k from src to dst. */
static int
value(int src, int dst, int k, int j)
{
	return ((src * 16 + dst) * 256 + k) * LARGE + j;
}

int
main(int argc, char *argv[])
{
	MPI_Request	 *reqs;
	MPI_Status	 *sts;
	int		**sbuf, **rbuf;
	int		 *next;
	int		  size, p, k, j, i, n, count, nreq, s, kk;

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
	if (size > 16) {
		/* Message contents encode the ranks in four bits each. */
		if (myrank == 0)
			fprintf(stderr, "%s: at most 16 ranks\n", NAME);
		MPI_Finalize();
		return 1;
	}

	n = size * NMSG;
	reqs = xcalloc((size_t)n * 2, sizeof(MPI_Request));
	sts = xcalloc((size_t)n, sizeof(MPI_Status));
	sbuf = xcalloc((size_t)n, sizeof(int *));
	rbuf = xcalloc((size_t)n, sizeof(int *));
	next = xcalloc((size_t)size, sizeof(int));
	for (p = 0; p < size; p++)
		for (k = 0; k < NMSG; k++) {
			i = p * NMSG + k;
			sbuf[i] = xcalloc((size_t)len(k), sizeof(int));
			rbuf[i] = xcalloc((size_t)LARGE, sizeof(int));
			for (j = 0; j < len(k); j++)
				sbuf[i][j] = value(myrank, p, k, j);
		}

	/*
	 * Round 1.  Receives from lower ranks are posted before the
	 * sends and those from higher ranks after, so both posted and
	 * unexpected messages occur.
	 */
	nreq = 0;
	for (p = 0; p < myrank; p++)
		for (k = 0; k < NMSG; k++)
			MPI_Irecv(rbuf[p * NMSG + k], LARGE, MPI_INT, p, k % 4,
			    MPI_COMM_WORLD, &reqs[nreq++]);
	for (i = 0; i < size; i++) {
		p = (myrank + i) % size;
		for (k = 0; k < NMSG; k++)
			MPI_Isend(sbuf[p * NMSG + k], len(k), MPI_INT, p,
			    k % 4, MPI_COMM_WORLD, &reqs[n + p * NMSG + k]);
	}
	for (p = myrank; p < size; p++)
		for (k = 0; k < NMSG; k++)
			MPI_Irecv(rbuf[p * NMSG + k], LARGE, MPI_INT, p, k % 4,
			    MPI_COMM_WORLD, &reqs[nreq++]);
	MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
	for (p = 0; p < size; p++)
		for (k = 0; k < NMSG; k++) {
			i = p * NMSG + k;
			for (j = 0; j < len(k); j++)
				if (rbuf[i][j] != value(p, myrank, k, j)) {
					fail("round 1: from %d message %d int"
					    " %d is %d, expected %d", p, k, j,
					    rbuf[i][j], value(p, myrank, k, j));
					break;
				}
		}

	/* Round 2: every receive is MPI_ANY_SOURCE on one tag. */
	for (i = 0; i < n; i++)
		MPI_Irecv(rbuf[i], LARGE, MPI_INT, MPI_ANY_SOURCE, 7,
		    MPI_COMM_WORLD, &reqs[i]);
	for (i = 0; i < size; i++) {
		p = (myrank + size - i) % size;
		for (k = 0; k < NMSG; k++)
			MPI_Isend(sbuf[p * NMSG + k], len(k), MPI_INT, p, 7,
			    MPI_COMM_WORLD, &reqs[n + p * NMSG + k]);
	}
	MPI_Waitall(n, reqs, sts);
	MPI_Waitall(n, reqs + n, MPI_STATUSES_IGNORE);
	for (i = 0; i < n; i++) {
		s = sts[i].MPI_SOURCE;
		if (s < 0 || s >= size || sts[i].MPI_TAG != 7) {
			fail("round 2: receive %d has source %d tag %d", i, s,
			    sts[i].MPI_TAG);
			continue;
		}
		kk = next[s]++;
		if (kk >= NMSG) {
			fail("round 2: more than %d messages from %d", NMSG,
			    s);
			continue;
		}
		MPI_Get_count(&sts[i], MPI_INT, &count);
		if (count != len(kk))
			fail("round 2: message %d from %d has %d ints,"
			    " expected %d (out of order?)", kk, s, count,
			    len(kk));
		for (j = 0; j < len(kk) && j < count; j++)
			if (rbuf[i][j] != value(s, myrank, kk, j)) {
				fail("round 2: receive %d, message %d from %d:"
				    " int %d is %d, expected %d", i, kk, s, j,
				    rbuf[i][j], value(s, myrank, kk, j));
				break;
			}
	}
	for (p = 0; p < size; p++)
		if (next[p] != NMSG)
			fail("round 2: %d messages from %d, expected %d",
			    next[p], p, NMSG);

	for (i = 0; i < n; i++) {
		free(sbuf[i]);
		free(rbuf[i]);
	}
	free(sbuf);
	free(rbuf);
	free(reqs);
	free(sts);
	free(next);
	return finish();
}
