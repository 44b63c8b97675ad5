/* SPDX-License-Identifier: ISC */
/*
 * wildcard: receives with MPI_ANY_SOURCE and MPI_ANY_TAG.  Every rank
 * but 0 sends to rank 0, which checks that the status names the real
 * source and tag, that MPI_Get_count matches the message, and that each
 * source's messages still arrive in order.  Phases are separated by go
 * messages from rank 0 so that a wildcard receive of one phase cannot
 * legitimately match a message of the next.  Also sends on tag
 * MPI_TAG_UB, the largest valid tag.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"wildcard"
#define MINPROCS	2
#define TAG_ERRS	32000
#define TAG_GO		31000
#define K		10

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

/* Message k of phase A from rank r has tag A_TAG(r, k) and k + 2 ints. */
#define A_TAG(r, k)	(((r) % 1000) * 16 + (k))

static void
go(int size)
{
	int	i, one = 1;

	for (i = 1; i < size; i++)
		MPI_Send(&one, 1, MPI_INT, i, TAG_GO, MPI_COMM_WORLD);
}

static void
waitgo(void)
{
	int	v;

	MPI_Recv(&v, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
}

static void
sender(int tagub)
{
	int	msg[K + 3];
	int	k, j;

	/* A: K messages of growing length on distinct tags. */
	for (k = 0; k < K; k++) {
		msg[0] = myrank;
		msg[1] = k;
		for (j = 2; j < k + 2; j++)
			msg[j] = myrank * 100 + j;
		MPI_Send(msg, k + 2, MPI_INT, 0, A_TAG(myrank, k),
		    MPI_COMM_WORLD);
	}
	/* B: one message each on tag 5, then one on tag MPI_TAG_UB. */
	waitgo();
	msg[0] = myrank;
	MPI_Send(msg, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
	msg[0] = -myrank;
	MPI_Send(msg, 1, MPI_INT, 0, tagub, MPI_COMM_WORLD);
	/* C: three messages on tags 3, 1, 2 for a specific-source receive. */
	waitgo();
	msg[0] = 3;
	MPI_Send(msg, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	msg[0] = 1;
	MPI_Send(msg, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	msg[0] = 2;
	MPI_Send(msg, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	/* D: one message on tag 7 to wildcard receives already posted. */
	waitgo();
	msg[0] = myrank;
	MPI_Send(msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	/*
	 * Our error count must not reach a wildcard receive of phase D
	 * that is meant for a slower sender.
	 */
	waitgo();
}

static void
root(int size, int tagub)
{
	MPI_Request	*reqs;
	MPI_Status	 st, *sts;
	int		*next, *seen, *vals;
	int		 msg[K + 3];
	int		 i, j, k, r, count;

	next = xcalloc((size_t)size, sizeof(int));
	seen = xcalloc((size_t)size, sizeof(int));
	reqs = xcalloc((size_t)size, sizeof(MPI_Request));
	sts = xcalloc((size_t)size, sizeof(MPI_Status));
	vals = xcalloc((size_t)size, sizeof(int));

	/* A: everything with MPI_ANY_SOURCE and MPI_ANY_TAG. */
	for (i = 0; i < (size - 1) * K; i++) {
		memset(msg, 0xff, sizeof(msg));
		MPI_Recv(msg, K + 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &st);
		r = st.MPI_SOURCE;
		if (r < 1 || r >= size) {
			fail("A: status source %d out of range", r);
			continue;
		}
		if (msg[0] != r) {
			fail("A: status source %d but message from %d",
			    r, msg[0]);
			continue;
		}
		k = msg[1];
		if (k != next[r])
			fail("A: from %d got message %d, expected %d"
			    " (non-overtaking)", r, k, next[r]);
		next[r] = k + 1;
		if (k < 0 || k >= K)
			continue;
		if (st.MPI_TAG != A_TAG(r, k))
			fail("A: from %d message %d has tag %d, expected %d",
			    r, k, st.MPI_TAG, A_TAG(r, k));
		MPI_Get_count(&st, MPI_INT, &count);
		if (count != k + 2)
			fail("A: from %d message %d count %d, expected %d",
			    r, k, count, k + 2);
		for (j = 2; j < k + 2; j++)
			if (msg[j] != r * 100 + j) {
				fail("A: from %d message %d int %d is %d", r,
				    k, j, msg[j]);
				break;
			}
	}
	for (r = 1; r < size; r++)
		if (next[r] != K)
			fail("A: got %d messages from %d, expected %d",
			    next[r], r, K);

	/* B: MPI_ANY_SOURCE with a fixed tag, then MPI_TAG_UB. */
	go(size);
	for (i = 1; i < size; i++) {
		msg[0] = -1;
		MPI_Recv(msg, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
		    &st);
		if (st.MPI_TAG != 5)
			fail("B: status tag %d, expected 5", st.MPI_TAG);
		if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= size ||
		    msg[0] != st.MPI_SOURCE) {
			fail("B: status source %d, message from %d",
			    st.MPI_SOURCE, msg[0]);
			continue;
		}
		if (seen[st.MPI_SOURCE]++)
			fail("B: two messages from %d", st.MPI_SOURCE);
	}
	for (i = 1; i < size; i++) {
		msg[0] = 1;
		MPI_Recv(msg, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &st);
		if (st.MPI_TAG != tagub)
			fail("B: status tag %d, expected MPI_TAG_UB %d",
			    st.MPI_TAG, tagub);
		if (msg[0] != -st.MPI_SOURCE)
			fail("B: tag-ub message from %d carries %d",
			    st.MPI_SOURCE, msg[0]);
	}

	/* C: a specific source with MPI_ANY_TAG, highest rank first. */
	go(size);
	for (r = size - 1; r >= 1; r--) {
		for (k = 0; k < 3; k++) {
			static const int want[3] = { 3, 1, 2 };

			msg[0] = -1;
			MPI_Recv(msg, 1, MPI_INT, r, MPI_ANY_TAG,
			    MPI_COMM_WORLD, &st);
			if (st.MPI_SOURCE != r || st.MPI_TAG != want[k] ||
			    msg[0] != want[k])
				fail("C: from %d message %d: source %d tag %d"
				    " value %d, expected tag and value %d",
				    r, k, st.MPI_SOURCE, st.MPI_TAG, msg[0],
				    want[k]);
		}
	}

	/* D: wildcard receives posted before any message is sent. */
	for (i = 1; i < size; i++) {
		vals[i] = -1;
		MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &reqs[i]);
	}
	memset(seen, 0, (size_t)size * sizeof(int));
	go(size);
	MPI_Waitall(size - 1, reqs + 1, sts + 1);
	for (i = 1; i < size; i++) {
		r = sts[i].MPI_SOURCE;
		if (sts[i].MPI_TAG != 7)
			fail("D: status tag %d, expected 7", sts[i].MPI_TAG);
		if (r < 1 || r >= size || vals[i] != r) {
			fail("D: status source %d, message from %d", r,
			    vals[i]);
			continue;
		}
		MPI_Get_count(&sts[i], MPI_INT, &count);
		if (count != 1)
			fail("D: count %d, expected 1", count);
		if (seen[r]++)
			fail("D: two messages from %d", r);
	}
	go(size);

	free(next);
	free(seen);
	free(reqs);
	free(sts);
	free(vals);
}

int
main(int argc, char *argv[])
{
	int	 size, flag, tagub;
	int	*attr;

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
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
	if (!flag) {
		fail("MPI_TAG_UB attribute not set");
		tagub = 32767;
	} else
		tagub = *attr;
	if (tagub < 32767) {
		fail("MPI_TAG_UB is %d, the standard requires >= 32767",
		    tagub);
		tagub = 32767;
	}

	if (myrank == 0)
		root(size, tagub);
	else
		sender(tagub);
	return finish();
}
