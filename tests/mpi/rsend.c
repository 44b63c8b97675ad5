/* SPDX-License-Identifier: ISC */
/*
 * rsend: ready mode.  MPI_Rsend is only correct when the matching
 * receive is already posted, so the receiver posts its receives and
 * then sends a ready message; only after that message arrives does the
 * sender use MPI_Rsend.  Small, large, zero-length and many-in-a-row
 * ready sends are checked for content and order, including against a
 * receive with MPI_ANY_SOURCE and MPI_ANY_TAG, and a ready send to self.
 * Ranks pair up as (0,1), (2,3), ...; an odd last rank only does the
 * self part.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"rsend"
#define MINPROCS	2
#define TAG_ERRS	32000
#define TAG_READY	100
#define NMSG		20
#define BIG		(256 * 1024)

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
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* Message i of the run of NMSG has msglen(i) ints; some are large. */
static int
msglen(int i)
{
	if (i % 7 == 3)
		return BIG / 4;
	if (i % 5 == 4)
		return 0;
	return i + 1;
}

static void
fill(int *p, int n, int seed)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = seed * 1000 + i;
}

static void
check(const int *p, const MPI_Status *st, int n, int seed, int src, int tag,
    const char *what)
{
	int	i, count;

	MPI_Get_count(st, MPI_INT, &count);
	if (count != n)
		fail("%s: count %d, expected %d", what, count, n);
	if (st->MPI_SOURCE != src || st->MPI_TAG != tag)
		fail("%s: status source %d tag %d, expected %d and %d", what,
		    st->MPI_SOURCE, st->MPI_TAG, src, tag);
	for (i = 0; i < n && i < count; i++)
		if (p[i] != seed * 1000 + i) {
			fail("%s: int %d is %d, expected %d", what, i, p[i],
			    seed * 1000 + i);
			return;
		}
}

static void
sender(int peer)
{
	int	*buf;
	int	 i, v;

	buf = xmalloc(BIG);

	MPI_Recv(&v, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	fill(buf, 8, 1);
	MPI_Rsend(buf, 8, MPI_INT, peer, 1, MPI_COMM_WORLD);
	fill(buf, BIG / 4, 2);
	MPI_Rsend(buf, BIG / 4, MPI_INT, peer, 2, MPI_COMM_WORLD);
	MPI_Rsend(NULL, 0, MPI_INT, peer, 3, MPI_COMM_WORLD);

	MPI_Recv(&v, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	for (i = 0; i < NMSG; i++) {
		fill(buf, msglen(i), 10 + i);
		MPI_Rsend(buf, msglen(i), MPI_INT, peer, 4, MPI_COMM_WORLD);
	}

	MPI_Recv(&v, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	fill(buf, 3, 5);
	MPI_Rsend(buf, 3, MPI_INT, peer, 5, MPI_COMM_WORLD);

	free(buf);
}

static void
receiver(int peer)
{
	MPI_Request	 reqs[NMSG];
	MPI_Status	 sts[NMSG];
	char		 what[32];
	int		*bufs[NMSG];
	int		 i, v = 1;

	for (i = 0; i < NMSG; i++)
		bufs[i] = xmalloc(BIG);

	MPI_Irecv(bufs[0], 8, MPI_INT, peer, 1, MPI_COMM_WORLD, &reqs[0]);
	MPI_Irecv(bufs[1], BIG / 4, MPI_INT, peer, 2, MPI_COMM_WORLD,
	    &reqs[1]);
	MPI_Irecv(bufs[2], 4, MPI_INT, peer, 3, MPI_COMM_WORLD, &reqs[2]);
	MPI_Send(&v, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD);
	MPI_Waitall(3, reqs, sts);
	check(bufs[0], &sts[0], 8, 1, peer, 1, "small Rsend");
	check(bufs[1], &sts[1], BIG / 4, 2, peer, 2, "large Rsend");
	check(bufs[2], &sts[2], 0, 0, peer, 3, "empty Rsend");

	/* Every receive can hold any message: order alone decides. */
	for (i = 0; i < NMSG; i++)
		MPI_Irecv(bufs[i], BIG / 4, MPI_INT, peer, 4, MPI_COMM_WORLD,
		    &reqs[i]);
	MPI_Send(&v, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD);
	MPI_Waitall(NMSG, reqs, sts);
	for (i = 0; i < NMSG; i++) {
		snprintf(what, sizeof(what), "Rsend %d of %d", i, NMSG);
		check(bufs[i], &sts[i], msglen(i), 10 + i, peer, 4, what);
	}

	MPI_Irecv(bufs[0], 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
	    MPI_COMM_WORLD, &reqs[0]);
	MPI_Send(&v, 1, MPI_INT, peer, TAG_READY, MPI_COMM_WORLD);
	MPI_Wait(&reqs[0], &sts[0]);
	check(bufs[0], &sts[0], 3, 5, peer, 5, "Rsend to a wildcard receive");

	for (i = 0; i < NMSG; i++)
		free(bufs[i]);
}

int
main(int argc, char *argv[])
{
	MPI_Request	req;
	MPI_Status	st;
	int		size, peer, a[4], b[4];

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

	peer = myrank ^ 1;
	if (peer < size) {
		if (myrank % 2 == 0)
			sender(peer);
		else
			receiver(peer);
	}

	fill(a, 4, 7);
	MPI_Irecv(b, 4, MPI_INT, myrank, 6, MPI_COMM_WORLD, &req);
	MPI_Rsend(a, 4, MPI_INT, myrank, 6, MPI_COMM_WORLD);
	MPI_Wait(&req, &st);
	check(b, &st, 4, 7, myrank, 6, "Rsend to self");

	return finish();
}
