/* SPDX-License-Identifier: ISC */
/*
 * bsend: buffered mode with MPI_Buffer_attach and MPI_Buffer_detach.
 * The attached buffer is sized exactly as the standard allows, the sum
 * of count * sizeof(type) + MPI_BSEND_OVERHEAD over the messages that
 * may be pending at once.  MPI_Bsend must complete locally, before the
 * receiver posts anything, and must have copied the data; detach must
 * return the attached buffer and size and wait until the messages are
 * delivered; a detached buffer can be attached again, and space is
 * reused once messages are delivered.  Ranks pair up as (0,1), (2,3),
 * ...; an odd last rank only reports.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"bsend"
#define MINPROCS	2
#define TAG_ERRS	32000
#define TAG_GO		100
#define NMSG		10
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

/* Message i of a round has msglen(i) doubles; 0 and 1 MiB included. */
static int
msglen(int i)
{
	static const int len[NMSG] = {
		1, 0, 100, BIG / 8, 3, 8192, 0, 16384, 1, 2
	};

	return len[i];
}

static void
fill(double *p, int n, int seed)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = seed * 100000.0 + i + 0.5;
}

static void
check(const double *p, const MPI_Status *st, int n, int seed,
    const char *what)
{
	int	i, count;

	MPI_Get_count(st, MPI_DOUBLE, &count);
	if (count != n)
		fail("%s: count %d, expected %d", what, count, n);
	for (i = 0; i < n && i < count; i++)
		if (p[i] != seed * 100000.0 + i + 0.5) {
			fail("%s: double %d is %g, expected %g", what, i,
			    p[i], seed * 100000.0 + i + 0.5);
			return;
		}
}

static void
sender(int peer)
{
	double	*msg;
	char	*bbuf;
	void	*det;
	int	 bsize, dsize, round, i, v;

	msg = xmalloc(BIG);
	bsize = 0;
	for (i = 0; i < NMSG; i++)
		bsize += msglen(i) * (int)sizeof(double) + MPI_BSEND_OVERHEAD;
	bbuf = xmalloc((size_t)bsize);

	/* Detaching a buffer with nothing in it returns at once. */
	MPI_Buffer_attach(bbuf, bsize);
	MPI_Buffer_detach(&det, &dsize);
	if (det != bbuf || dsize != bsize)
		fail("empty detach returned %p/%d, attached %p/%d", det,
		    dsize, (void *)bbuf, bsize);

	/*
	 * Two rounds through the same buffer.  Every Bsend completes
	 * before the receiver posts a receive, and the user buffer is
	 * clobbered right after each call.
	 */
	for (round = 0; round < 2; round++) {
		MPI_Buffer_attach(bbuf, bsize);
		for (i = 0; i < NMSG; i++) {
			fill(msg, msglen(i), round * 100 + i);
			MPI_Bsend(msg, msglen(i), MPI_DOUBLE, peer, 1,
			    MPI_COMM_WORLD);
			memset(msg, 0xee, (size_t)msglen(i) * sizeof(double));
		}
		v = round;
		MPI_Send(&v, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD);
		MPI_Buffer_detach(&det, &dsize);
		if (det != bbuf || dsize != bsize)
			fail("round %d: detach returned %p/%d, attached"
			    " %p/%d", round, det, dsize, (void *)bbuf, bsize);
	}

	/*
	 * A buffer with room for one large message only: each Bsend
	 * waits for the receiver's acknowledgement of the previous one,
	 * after which its space must be free again.
	 */
	bsize = (BIG / 8) * (int)sizeof(double) + MPI_BSEND_OVERHEAD;
	MPI_Buffer_attach(bbuf, bsize);
	for (i = 0; i < 4; i++) {
		fill(msg, BIG / 8, 500 + i);
		MPI_Bsend(msg, BIG / 8, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	}
	MPI_Buffer_detach(&det, &dsize);
	if (det != bbuf || dsize != bsize)
		fail("reuse: detach returned %p/%d, attached %p/%d", det,
		    dsize, (void *)bbuf, bsize);

	free(bbuf);
	free(msg);
}

static void
receiver(int peer)
{
	MPI_Status	 st;
	double		*msg;
	char		 what[48];
	int		 round, i, v;

	msg = xmalloc(BIG);
	for (round = 0; round < 2; round++) {
		MPI_Recv(&v, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (v != round)
			fail("round %d: go message carries %d", round, v);
		for (i = 0; i < NMSG; i++) {
			snprintf(what, sizeof(what), "round %d message %d",
			    round, i);
			MPI_Recv(msg, BIG / 8, MPI_DOUBLE, peer, 1,
			    MPI_COMM_WORLD, &st);
			check(msg, &st, msglen(i), round * 100 + i, what);
		}
	}
	for (i = 0; i < 4; i++) {
		snprintf(what, sizeof(what), "reuse message %d", i);
		MPI_Recv(msg, BIG / 8, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD,
		    &st);
		check(msg, &st, BIG / 8, 500 + i, what);
		v = i;
		MPI_Send(&v, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD);
	}
	free(msg);
}

int
main(int argc, char *argv[])
{
	int	size, peer;

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
	return finish();
}
