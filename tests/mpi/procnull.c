/* SPDX-License-Identifier: ISC */
/*
 * procnull: MPI_PROC_NULL as source or destination.  Sends to it
 * succeed at once in every mode; a receive or probe from it succeeds
 * at once without touching the buffer, with status source
 * MPI_PROC_NULL, tag MPI_ANY_TAG and count 0.  Ends with the classic
 * non-periodic shift, where the first and last ranks use MPI_PROC_NULL
 * in MPI_Sendrecv and MPI_Sendrecv_replace.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"procnull"
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

/* Fill a status with garbage so that unset fields are noticed. */
static void
dirty(MPI_Status *st)
{
	memset(st, 0x5a, sizeof(*st));
}

static void
isnull(const MPI_Status *st, const char *what)
{
	int	count;

	if (st->MPI_SOURCE != MPI_PROC_NULL)
		fail("%s: status source %d, expected MPI_PROC_NULL (%d)",
		    what, st->MPI_SOURCE, MPI_PROC_NULL);
	if (st->MPI_TAG != MPI_ANY_TAG)
		fail("%s: status tag %d, expected MPI_ANY_TAG (%d)", what,
		    st->MPI_TAG, MPI_ANY_TAG);
	MPI_Get_count(st, MPI_INT, &count);
	if (count != 0)
		fail("%s: MPI_INT count %d, expected 0", what, count);
	MPI_Get_count(st, MPI_BYTE, &count);
	if (count != 0)
		fail("%s: MPI_BYTE count %d, expected 0", what, count);
}

static void
untouched(const int *buf, const char *what)
{
	int	i;

	for (i = 0; i < 4; i++)
		if (buf[i] != -7) {
			fail("%s: receive buffer changed (int %d is %d)",
			    what, i, buf[i]);
			return;
		}
}

static void
reset(int *buf)
{
	int	i;

	for (i = 0; i < 4; i++)
		buf[i] = -7;
}

int
main(int argc, char *argv[])
{
	MPI_Request	 reqs[4];
	MPI_Status	 st, sts[4];
	int		 sbuf[4] = { 1, 2, 3, 4 }, rbuf[4], r2[4];
	int		*bsbuf, *det;
	int		 size, left, right, flag, rc, i, dsize, v;

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

	/* Sends in every mode return at once. */
	rc = MPI_Send(sbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		fail("Send to MPI_PROC_NULL returned %d", rc);
	MPI_Ssend(sbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	MPI_Rsend(sbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	bsbuf = malloc(64 + MPI_BSEND_OVERHEAD);
	if (bsbuf == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Buffer_attach(bsbuf, 64 + MPI_BSEND_OVERHEAD);
	MPI_Bsend(sbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	MPI_Buffer_detach(&det, &dsize);
	free(bsbuf);
	MPI_Isend(sbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
	    &reqs[0]);
	MPI_Issend(sbuf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD,
	    &reqs[1]);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
	if (reqs[0] != MPI_REQUEST_NULL || reqs[1] != MPI_REQUEST_NULL)
		fail("Waitall did not set the requests to MPI_REQUEST_NULL");

	/* Receives. */
	reset(rbuf);
	dirty(&st);
	MPI_Recv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &st);
	isnull(&st, "Recv");
	untouched(rbuf, "Recv");

	reset(rbuf);
	dirty(&st);
	MPI_Recv(rbuf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG,
	    MPI_COMM_WORLD, &st);
	isnull(&st, "Recv with MPI_ANY_TAG");
	untouched(rbuf, "Recv with MPI_ANY_TAG");

	reset(rbuf);
	dirty(&st);
	MPI_Irecv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD,
	    &reqs[0]);
	MPI_Wait(&reqs[0], &st);
	isnull(&st, "Irecv+Wait");
	untouched(rbuf, "Irecv+Wait");

	reset(rbuf);
	dirty(&st);
	MPI_Irecv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD,
	    &reqs[0]);
	flag = 0;
	for (i = 0; i < 1000000 && !flag; i++)
		MPI_Test(&reqs[0], &flag, &st);
	if (!flag)
		fail("Irecv+Test: not complete after %d tests", i);
	else {
		isnull(&st, "Irecv+Test");
		untouched(rbuf, "Irecv+Test");
	}

	/* Mixed in a Waitall with a real self message. */
	reset(rbuf);
	reset(r2);
	for (i = 0; i < 4; i++)
		dirty(&sts[i]);
	MPI_Irecv(rbuf, 4, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD,
	    &reqs[0]);
	MPI_Irecv(r2, 4, MPI_INT, myrank, 4, MPI_COMM_WORLD, &reqs[1]);
	MPI_Isend(sbuf, 4, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD,
	    &reqs[2]);
	MPI_Isend(sbuf, 2, MPI_INT, myrank, 4, MPI_COMM_WORLD, &reqs[3]);
	MPI_Waitall(4, reqs, sts);
	isnull(&sts[0], "Waitall entry 0");
	untouched(rbuf, "Waitall entry 0");
	if (sts[1].MPI_SOURCE != myrank || sts[1].MPI_TAG != 4 ||
	    r2[0] != 1 || r2[1] != 2 || r2[2] != -7)
		fail("Waitall entry 1: source %d tag %d data %d %d %d",
		    sts[1].MPI_SOURCE, sts[1].MPI_TAG, r2[0], r2[1], r2[2]);

	/* Probes. */
	dirty(&st);
	MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
	isnull(&st, "Probe");
	dirty(&st);
	flag = 0;
	MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		fail("Iprobe of MPI_PROC_NULL: flag false, expected true");
	else
		isnull(&st, "Iprobe");

	/* Sendrecv and Sendrecv_replace with nobody on either side. */
	reset(rbuf);
	dirty(&st);
	MPI_Sendrecv(sbuf, 4, MPI_INT, MPI_PROC_NULL, 6, rbuf, 4, MPI_INT,
	    MPI_PROC_NULL, 6, MPI_COMM_WORLD, &st);
	isnull(&st, "Sendrecv");
	untouched(rbuf, "Sendrecv");
	reset(rbuf);
	dirty(&st);
	MPI_Sendrecv_replace(rbuf, 4, MPI_INT, MPI_PROC_NULL, 6,
	    MPI_PROC_NULL, 6, MPI_COMM_WORLD, &st);
	isnull(&st, "Sendrecv_replace");
	untouched(rbuf, "Sendrecv_replace");

	/*
	 * Non-periodic shift to the right: rank 0 receives from
	 * MPI_PROC_NULL and the last rank sends to it.
	 */
	left = myrank > 0 ? myrank - 1 : MPI_PROC_NULL;
	right = myrank < size - 1 ? myrank + 1 : MPI_PROC_NULL;
	v = 1000 + myrank;
	reset(rbuf);
	dirty(&st);
	MPI_Sendrecv(&v, 1, MPI_INT, right, 7, rbuf, 4, MPI_INT, left, 7,
	    MPI_COMM_WORLD, &st);
	if (left == MPI_PROC_NULL) {
		isnull(&st, "shift Sendrecv");
		untouched(rbuf, "shift Sendrecv");
	} else if (st.MPI_SOURCE != left || st.MPI_TAG != 7 ||
	    rbuf[0] != 1000 + left)
		fail("shift Sendrecv: source %d tag %d value %d, expected"
		    " %d, 7, %d", st.MPI_SOURCE, st.MPI_TAG, rbuf[0], left,
		    1000 + left);
	v = 2000 + myrank;
	dirty(&st);
	MPI_Sendrecv_replace(&v, 1, MPI_INT, left, 8, right, 8,
	    MPI_COMM_WORLD, &st);
	if (right == MPI_PROC_NULL) {
		isnull(&st, "shift Sendrecv_replace");
		if (v != 2000 + myrank)
			fail("shift Sendrecv_replace: buffer changed to %d",
			    v);
	} else if (st.MPI_SOURCE != right || st.MPI_TAG != 8 ||
	    v != 2000 + right)
		fail("shift Sendrecv_replace: source %d tag %d value %d,"
		    " expected %d, 8, %d", st.MPI_SOURCE, st.MPI_TAG, v,
		    right, 2000 + right);

	return finish();
}
