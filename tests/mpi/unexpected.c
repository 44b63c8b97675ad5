/* SPDX-License-Identifier: ISC */
/*
 * unexpected: messages that arrive before any receive is posted.  Every
 * rank but 0 starts 100 small sends (tags 0..99), 3 large ones (1 MiB,
 * tags 100..102) and 5 more on one tag to rank 0, then sends a ready
 * message.  Rank 0 posts nothing until it has every ready message, and
 * then receives in reverse tag order, large ones by source, small ones
 * with MPI_ANY_SOURCE, so that matching must search the unexpected
 * messages rather than take the oldest.  The five same-tag messages
 * must still come out in order.  Sends are nonblocking: a blocking
 * send could legitimately wait for the receive.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"unexpected"
#define MINPROCS	2
#define TAG_ERRS	32000
#define TAG_READY	1000
#define NSMALL		100
#define NLARGE		3
#define NSAME		5
#define TAG_SAME	200
#define LARGE		(1024 * 1024 / (int)sizeof(int))
#define NREQ		(NSMALL + NLARGE + NSAME)

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

static int
value(int src, int tag, int j)
{
	return src * 10000000 + tag * 10000 + j % 10000;
}

static void
sender(void)
{
	MPI_Request	 reqs[NREQ];
	int		 small[NSMALL][2], same[NSAME];
	int		*large[NLARGE];
	int		 t, j, v = 1;

	for (t = 0; t < NSMALL; t++) {
		small[t][0] = value(myrank, t, 0);
		small[t][1] = value(myrank, t, 1);
		/* Every third message is empty, the rest two ints. */
		MPI_Isend(small[t], t % 3 == 0 ? 0 : 2, MPI_INT, 0, t,
		    MPI_COMM_WORLD, &reqs[t]);
	}
	for (t = 0; t < NLARGE; t++) {
		large[t] = xmalloc(LARGE * sizeof(int));
		for (j = 0; j < LARGE; j++)
			large[t][j] = value(myrank, NSMALL + t, j);
		MPI_Isend(large[t], LARGE, MPI_INT, 0, NSMALL + t,
		    MPI_COMM_WORLD, &reqs[NSMALL + t]);
	}
	for (t = 0; t < NSAME; t++) {
		same[t] = value(myrank, TAG_SAME, t);
		MPI_Isend(&same[t], 1, MPI_INT, 0, TAG_SAME, MPI_COMM_WORLD,
		    &reqs[NSMALL + NLARGE + t]);
	}
	MPI_Send(&v, 1, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
	MPI_Waitall(NREQ, reqs, MPI_STATUSES_IGNORE);
	for (t = 0; t < NLARGE; t++)
		free(large[t]);
}

static void
root(int size)
{
	MPI_Status	 st;
	int		*buf, *seen;
	int		 r, t, i, j, v, count, want;

	buf = xmalloc(LARGE * sizeof(int));
	seen = xmalloc((size_t)size * sizeof(int));

	for (r = 1; r < size; r++)
		MPI_Recv(&v, 1, MPI_INT, r, TAG_READY, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);

	for (t = NSMALL + NLARGE - 1; t >= NSMALL; t--)
		for (r = size - 1; r >= 1; r--) {
			memset(buf, 0, LARGE * sizeof(int));
			MPI_Recv(buf, LARGE, MPI_INT, r, t, MPI_COMM_WORLD,
			    &st);
			MPI_Get_count(&st, MPI_INT, &count);
			if (count != LARGE || st.MPI_SOURCE != r ||
			    st.MPI_TAG != t)
				fail("large tag %d from %d: count %d source %d"
				    " tag %d", t, r, count, st.MPI_SOURCE,
				    st.MPI_TAG);
			for (j = 0; j < LARGE; j++)
				if (buf[j] != value(r, t, j)) {
					fail("large tag %d from %d: int %d is"
					    " %d", t, r, j, buf[j]);
					break;
				}
		}

	for (t = NSMALL - 1; t >= 0; t--) {
		memset(seen, 0, (size_t)size * sizeof(int));
		for (i = 1; i < size; i++) {
			buf[0] = buf[1] = -1;
			MPI_Recv(buf, 2, MPI_INT, MPI_ANY_SOURCE, t,
			    MPI_COMM_WORLD, &st);
			r = st.MPI_SOURCE;
			if (r < 1 || r >= size || st.MPI_TAG != t) {
				fail("small tag %d: source %d tag %d", t, r,
				    st.MPI_TAG);
				continue;
			}
			if (seen[r]++)
				fail("small tag %d: two messages from %d", t,
				    r);
			want = t % 3 == 0 ? 0 : 2;
			MPI_Get_count(&st, MPI_INT, &count);
			if (count != want)
				fail("small tag %d from %d: count %d, expected"
				    " %d", t, r, count, want);
			if (want == 0 && buf[0] != -1)
				fail("small tag %d from %d: empty message"
				    " changed the buffer", t, r);
			if (want == 2 && (buf[0] != value(r, t, 0) ||
			    buf[1] != value(r, t, 1)))
				fail("small tag %d from %d: got %d %d", t, r,
				    buf[0], buf[1]);
		}
	}

	for (r = 1; r < size; r++)
		for (i = 0; i < NSAME; i++) {
			v = -1;
			MPI_Recv(&v, 1, MPI_INT, r, TAG_SAME, MPI_COMM_WORLD,
			    &st);
			if (v != value(r, TAG_SAME, i))
				fail("same-tag message %d from %d carries %d,"
				    " expected %d", i, r, v,
				    value(r, TAG_SAME, i));
		}

	free(buf);
	free(seen);
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
	if (myrank == 0)
		root(size);
	else
		sender();
	return finish();
}
