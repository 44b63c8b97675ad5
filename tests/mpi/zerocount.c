/* SPDX-License-Identifier: ISC */
/*
 * zerocount: zero-element messages.  They must match, carry source and
 * tag, report a count of 0 in any datatype, leave the receive buffer
 * untouched, keep their place in the message order, be seen by probes,
 * and work with NULL buffers, synchronous sends and MPI_Sendrecv.
 * Ranks pair up as (0,1), (2,3), ...; an odd last rank pairs with
 * itself, which is also the whole test at one rank.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"zerocount"
#define MINPROCS	1
#define TAG_ERRS	32000

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
checkstatus(const MPI_Status *st, int src, int tag, int count,
    const char *what)
{
	int	n;

	if (st->MPI_SOURCE != src)
		fail("%s: status source %d, expected %d", what,
		    st->MPI_SOURCE, src);
	if (st->MPI_TAG != tag)
		fail("%s: status tag %d, expected %d", what, st->MPI_TAG,
		    tag);
	MPI_Get_count(st, MPI_INT, &n);
	if (n != count)
		fail("%s: MPI_INT count %d, expected %d", what, n, count);
	MPI_Get_count(st, MPI_BYTE, &n);
	if (n != count * (int)sizeof(int))
		fail("%s: MPI_BYTE count %d, expected %d", what, n,
		    count * (int)sizeof(int));
	if (count == 0) {
		MPI_Get_count(st, MPI_DOUBLE, &n);
		if (n != 0)
			fail("%s: MPI_DOUBLE count %d, expected 0", what, n);
	}
}

static void
untouched(const int *buf, int n, const char *what)
{
	int	i;

	for (i = 0; i < n; i++)
		if (buf[i] != -99) {
			fail("%s: receive buffer int %d changed to %d", what,
			    i, buf[i]);
			return;
		}
}

int
main(int argc, char *argv[])
{
	static const int seq[6] = { 0, 1, 0, 2, 0, 0 };
	MPI_Request	 sreq[6], rreq[6];
	MPI_Status	 st, sts[6];
	int		 rbuf[6][4], sbuf[4] = { 1, 2, 3, 4 };
	int		 size, peer, i, j, flag;

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
	peer = (myrank ^ 1) < size ? myrank ^ 1 : myrank;

	/* 1: zero ints into a four-int buffer. */
	for (i = 0; i < 4; i++)
		rbuf[0][i] = -99;
	MPI_Irecv(rbuf[0], 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &rreq[0]);
	MPI_Isend(sbuf, 0, MPI_INT, peer, 1, MPI_COMM_WORLD, &sreq[0]);
	MPI_Wait(&rreq[0], &st);
	MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
	checkstatus(&st, peer, 1, 0, "zero ints");
	untouched(rbuf[0], 4, "zero ints");

	/* 2: NULL buffers are fine when the count is zero. */
	MPI_Irecv(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, &rreq[0]);
	MPI_Isend(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, &sreq[0]);
	MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
	MPI_Wait(&rreq[0], &st);
	checkstatus(&st, peer, 2, 0, "NULL buffers");

	/* 3: a synchronous zero-count send, received with MPI_ANY_TAG. */
	for (i = 0; i < 4; i++)
		rbuf[0][i] = -99;
	MPI_Issend(sbuf, 0, MPI_INT, peer, 3, MPI_COMM_WORLD, &sreq[0]);
	MPI_Recv(rbuf[0], 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
	checkstatus(&st, peer, 3, 0, "Issend of zero ints");
	untouched(rbuf[0], 4, "Issend of zero ints");

	/* 4: empty messages keep their place among non-empty ones. */
	for (i = 0; i < 6; i++) {
		for (j = 0; j < 4; j++)
			rbuf[i][j] = -99;
		MPI_Irecv(rbuf[i], 4, MPI_INT, peer, 4, MPI_COMM_WORLD,
		    &rreq[i]);
	}
	for (i = 0; i < 6; i++)
		MPI_Isend(sbuf, seq[i], MPI_INT, peer, 4, MPI_COMM_WORLD,
		    &sreq[i]);
	MPI_Waitall(6, rreq, sts);
	MPI_Waitall(6, sreq, MPI_STATUSES_IGNORE);
	for (i = 0; i < 6; i++) {
		char	what[32];

		snprintf(what, sizeof(what), "sequence message %d", i);
		checkstatus(&sts[i], peer, 4, seq[i], what);
		for (j = 0; j < seq[i]; j++)
			if (rbuf[i][j] != sbuf[j])
				fail("%s: int %d is %d", what, j, rbuf[i][j]);
		untouched(rbuf[i] + seq[i], 4 - seq[i], what);
	}

	/* 5: probes see empty messages. */
	MPI_Isend(sbuf, 0, MPI_INT, peer, 5, MPI_COMM_WORLD, &sreq[0]);
	MPI_Probe(peer, 5, MPI_COMM_WORLD, &st);
	checkstatus(&st, peer, 5, 0, "Probe of zero ints");
	flag = 0;
	MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		fail("Iprobe after Probe of zero ints: no message");
	else
		checkstatus(&st, peer, 5, 0, "Iprobe of zero ints");
	MPI_Recv(NULL, 0, MPI_INT, peer, 5, MPI_COMM_WORLD, &st);
	checkstatus(&st, peer, 5, 0, "Recv after Probe of zero ints");
	MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);

	/* 6: an empty MPI_Sendrecv. */
	for (i = 0; i < 4; i++)
		rbuf[0][i] = -99;
	MPI_Sendrecv(sbuf, 0, MPI_INT, peer, 6, rbuf[0], 4, MPI_INT, peer, 6,
	    MPI_COMM_WORLD, &st);
	checkstatus(&st, peer, 6, 0, "Sendrecv of zero ints");
	untouched(rbuf[0], 4, "Sendrecv of zero ints");

	/* 7: a zero-count MPI_Ssend / MPI_Recv between distinct ranks. */
	if (peer != myrank) {
		if (myrank < peer) {
			MPI_Ssend(NULL, 0, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
			    &st);
		} else {
			MPI_Recv(NULL, 0, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
			    &st);
			MPI_Ssend(NULL, 0, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
		}
		if (st.MPI_SOURCE != peer || st.MPI_TAG != 7)
			fail("Ssend of zero bytes: source %d tag %d",
			    st.MPI_SOURCE, st.MPI_TAG);
	}

	return finish();
}
