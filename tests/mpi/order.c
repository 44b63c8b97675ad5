/* SPDX-License-Identifier: ISC */
/*
 * order: the non-overtaking rule.  Messages from one sender that match
 * the same receive must be received in the order they were sent, with
 * a fixed tag, with MPI_ANY_TAG, with MPI_ANY_SOURCE, and when small
 * (eager) and large (rendezvous) messages and synchronous sends are
 * interleaved, both against posted receives and as unexpected messages.
 * Ranks work in pairs (0,1), (2,3), ...; an odd last rank only reports.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"order"
#define MINPROCS	2
#define TAG_ERRS	32000
#define TAG_GO		999
#define NSMALL		100
#define NMIXED		9
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

/*
 * The mixed sequence: message i has mixlen[i] ints, holds i in its
 * first int and i * 1000 + j in int j.  Odd-numbered entries are large.
 */
static const int mixlen[NMIXED] = {
	1, BIG / 4, 2, 3, BIG / 16, 0, BIG / 4, 1, 5
};

static void
mixfill(int *p, int i)
{
	int	j;

	for (j = 0; j < mixlen[i]; j++)
		p[j] = i * 1000 + j;
}

static void
mixcheck(const int *p, const MPI_Status *st, int i, const char *what)
{
	int	j, count;

	MPI_Get_count(st, MPI_INT, &count);
	if (count != mixlen[i]) {
		fail("%s: message %d has %d ints, expected %d (overtaken?)",
		    what, i, count, mixlen[i]);
		return;
	}
	for (j = 0; j < count; j++) {
		if (p[j] != i * 1000 + j) {
			fail("%s: message %d int %d is %d, expected %d",
			    what, i, j, p[j], i * 1000 + j);
			return;
		}
	}
}

/*
 * Send the mixed sequence on one tag; entries 3 and 6 are synchronous.
 * With tagstep set, message i goes on tag + i instead.
 */
static void
mixsend(int **bufs, int peer, int tag, int tagstep)
{
	MPI_Request	reqs[NMIXED];
	int		i;

	for (i = 0; i < NMIXED; i++) {
		mixfill(bufs[i], i);
		if (i == 3 || i == 6)
			MPI_Issend(bufs[i], mixlen[i], MPI_INT, peer,
			    tag + i * tagstep, MPI_COMM_WORLD, &reqs[i]);
		else
			MPI_Isend(bufs[i], mixlen[i], MPI_INT, peer,
			    tag + i * tagstep, MPI_COMM_WORLD, &reqs[i]);
	}
	MPI_Waitall(NMIXED, reqs, MPI_STATUSES_IGNORE);
}

static void
sender(int peer)
{
	MPI_Request	 reqs[NMIXED];
	int		*bufs[NMIXED];
	int		 i, v, go;

	/* 1: a fixed tag, blocking sends. */
	for (i = 0; i < NSMALL; i++) {
		v = i;
		MPI_Send(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
	}
	/* 2: tags vary, the receiver uses MPI_ANY_TAG. */
	for (i = 0; i < NSMALL; i++) {
		v = i;
		MPI_Send(&v, 1, MPI_INT, peer, 10 + i % 7, MPI_COMM_WORLD);
	}
	/* 3: as 2, received with MPI_ANY_SOURCE and MPI_ANY_TAG. */
	for (i = 0; i < NSMALL; i++) {
		v = i;
		MPI_Send(&v, 1, MPI_INT, peer, 20 + i % 3, MPI_COMM_WORLD);
	}

	for (i = 0; i < NMIXED; i++)
		bufs[i] = xmalloc((size_t)mixlen[i] * sizeof(int) + 1);

	/* 4: mixed sizes against receives that are all posted. */
	MPI_Recv(&go, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	mixsend(bufs, peer, 30, 0);

	/*
	 * 5: mixed sizes as unexpected messages.  Everything is started
	 * before the receiver posts anything; the go message tells it to
	 * start receiving.  The sends cannot complete before that, so
	 * they are nonblocking.
	 */
	for (i = 0; i < NMIXED; i++) {
		mixfill(bufs[i], i);
		MPI_Isend(bufs[i], mixlen[i], MPI_INT, peer, 40,
		    MPI_COMM_WORLD, &reqs[i]);
	}
	go = 1;
	MPI_Send(&go, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD);
	MPI_Waitall(NMIXED, reqs, MPI_STATUSES_IGNORE);

	/* 6: mixed sizes, distinct tags, receiver uses MPI_ANY_TAG. */
	mixsend(bufs, peer, 50, 1);

	for (i = 0; i < NMIXED; i++)
		free(bufs[i]);
}

static void
receiver(int peer)
{
	MPI_Request	 reqs[NMIXED];
	MPI_Status	 st, sts[NMIXED];
	int		*bufs[NMIXED];
	int		*big;
	int		 i, v, go;

	for (i = 0; i < NSMALL; i++) {
		v = -1;
		MPI_Recv(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
		if (v != i)
			fail("fixed tag: message %d carries %d", i, v);
	}
	for (i = 0; i < NSMALL; i++) {
		v = -1;
		MPI_Recv(&v, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD,
		    &st);
		if (v != i)
			fail("MPI_ANY_TAG: message %d carries %d", i, v);
		if (st.MPI_TAG != 10 + i % 7)
			fail("MPI_ANY_TAG: message %d has tag %d, expected %d",
			    i, st.MPI_TAG, 10 + i % 7);
	}
	for (i = 0; i < NSMALL; i++) {
		v = -1;
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &st);
		if (v != i)
			fail("MPI_ANY_SOURCE: message %d carries %d", i, v);
		if (st.MPI_TAG != 20 + i % 3 || st.MPI_SOURCE != peer)
			fail("MPI_ANY_SOURCE: message %d has source %d tag %d,"
			    " expected %d and %d", i, st.MPI_SOURCE,
			    st.MPI_TAG, peer, 20 + i % 3);
	}

	/*
	 * Every receive is big enough for the largest message, so only
	 * the order decides which message lands where.
	 */
	for (i = 0; i < NMIXED; i++)
		bufs[i] = xmalloc(BIG + 64);
	for (i = 0; i < NMIXED; i++)
		MPI_Irecv(bufs[i], BIG / 4 + 16, MPI_INT, peer, 30,
		    MPI_COMM_WORLD, &reqs[i]);
	go = 1;
	MPI_Send(&go, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD);
	MPI_Waitall(NMIXED, reqs, sts);
	for (i = 0; i < NMIXED; i++)
		mixcheck(bufs[i], &sts[i], i, "posted mixed");

	MPI_Recv(&go, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	big = bufs[0];
	for (i = 0; i < NMIXED; i++) {
		MPI_Recv(big, BIG / 4 + 16, MPI_INT, peer, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &st);
		if (st.MPI_TAG != 40)
			fail("unexpected mixed: message %d has tag %d", i,
			    st.MPI_TAG);
		mixcheck(big, &st, i, "unexpected mixed");
	}

	for (i = 0; i < NMIXED; i++) {
		MPI_Recv(big, BIG / 4 + 16, MPI_INT, peer, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &st);
		if (st.MPI_TAG != 50 + i)
			fail("MPI_ANY_TAG mixed: message %d has tag %d,"
			    " expected %d", i, st.MPI_TAG, 50 + i);
		mixcheck(big, &st, i, "MPI_ANY_TAG mixed");
	}

	for (i = 0; i < NMIXED; i++)
		free(bufs[i]);
}

int
main(int argc, char *argv[])
{
	int	size;

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

	if ((myrank ^ 1) < size) {
		if (myrank % 2 == 0)
			sender(myrank + 1);
		else
			receiver(myrank - 1);
	}
	return finish();
}
