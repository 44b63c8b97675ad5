/* SPDX-License-Identifier: ISC */
/*
 * truncate: a message longer than the receive buffer is an error of
 * class MPI_ERR_TRUNCATE at the receiver.  With MPI_ERRORS_RETURN the
 * error must come back from MPI_Recv, MPI_Wait, MPI_Test and
 * MPI_Sendrecv, and MPI_Waitall must return MPI_ERR_IN_STATUS with the
 * per-request MPI_ERROR fields set.  Memory past the receive buffer
 * must be left alone, the sender must see success, and communication
 * must keep working afterwards.  Ranks 0 and 1 take part; the others
 * only report.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"truncate"
#define MINPROCS	2
#define TAG_ERRS	32000
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
expect_class(int rc, int want, const char *what)
{
	char	str[MPI_MAX_ERROR_STRING];
	int	class = -1, len;

	if (rc == MPI_SUCCESS && want == MPI_SUCCESS)
		return;
	if (rc == MPI_SUCCESS) {
		fail("%s: returned MPI_SUCCESS, expected error class %d",
		    what, want);
		return;
	}
	MPI_Error_class(rc, &class);
	if (class != want) {
		str[0] = '\0';
		MPI_Error_string(rc, str, &len);
		fail("%s: returned error class %d (%s), expected %d", what,
		    class, str, want);
	}
}

/*
 * The standard promises that a short message modifies only its own
 * locations, but says nothing explicit about memory past a buffer that
 * overflowed.  Open MPI 4.1 (ob1) copies a whole truncated rendezvous
 * message past the end of the buffer, so a large overrun is reported
 * as a warning rather than counted; a correct library must not do it,
 * since no caller could size a buffer against it.  The buffer here is
 * big enough that an overrun cannot corrupt the heap.
 */
static void
overrun(const unsigned char *p, int len, const char *what)
{
	int	i;

	for (i = len; i < BIG; i++)
		if (p[i] != 0) {
			fprintf(stderr, "%s: rank %d: warning: %s wrote past"
			    " the receive buffer (byte %d)\n", NAME, myrank,
			    what, i);
			return;
		}
}

static void
sender(int peer)
{
	unsigned char	*big;
	int		 v[16], i, rc;

	big = malloc(BIG);
	if (big == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = 0; i < 16; i++)
		v[i] = i;
	memset(big, 0x3c, BIG);

	/* 1: ten ints into a five-int Recv. */
	rc = MPI_Send(v, 10, MPI_INT, peer, 1, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "small send to short Recv");
	/* 2: a rendezvous-sized message into 1 KiB. */
	rc = MPI_Send(big, BIG, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "large send to short Recv");
	/* 3: Irecv and Wait, small and large. */
	rc = MPI_Send(big, 100, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "send to short Irecv");
	rc = MPI_Send(big, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "large send to short Irecv");
	/* 4: Waitall, where the second of three is too long. */
	rc = MPI_Send(v, 4, MPI_INT, peer, 4, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "Waitall send 0");
	rc = MPI_Send(v, 3, MPI_INT, peer, 4, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "Waitall send 1");
	rc = MPI_Send(v, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "Waitall send 2");
	/* 5: Test. */
	rc = MPI_Send(v, 2, MPI_INT, peer, 5, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "send to tested Irecv");
	/* 6: one byte to a zero-count receive. */
	rc = MPI_Send(v, 1, MPI_BYTE, peer, 6, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "send to zero-count Recv");
	/* 7: Sendrecv, where only the peer's receive is short. */
	v[0] = -7;
	rc = MPI_Sendrecv(v, 4, MPI_INT, peer, 7, &v[8], 1, MPI_INT, peer,
	    7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect_class(rc, MPI_SUCCESS, "Sendrecv to a short peer");
	if (v[8] != 77)
		fail("Sendrecv: received %d, expected 77", v[8]);
	/* 8: afterwards, an ordinary exchange. */
	for (i = 0; i < 16; i++)
		v[i] = 1000 + i;
	rc = MPI_Send(v, 16, MPI_INT, peer, 8, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "send after truncations");
	rc = MPI_Send(big, BIG, MPI_BYTE, peer, 8, MPI_COMM_WORLD);
	expect_class(rc, MPI_SUCCESS, "large send after truncations");
	free(big);
}

static void
receiver(int peer)
{
	MPI_Request	 req, reqs[3];
	MPI_Status	 st, sts[3];
	unsigned char	*big;
	int		 v[16], w[3][4], i, rc, flag, count;

	big = malloc(BIG + 1);
	if (big == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	/*
	 * The contents of a truncated receive buffer are not defined,
	 * so only memory past its end is checked.
	 */
	for (i = 0; i < 16; i++)
		v[i] = -1;
	rc = MPI_Recv(v, 5, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
	expect_class(rc, MPI_ERR_TRUNCATE, "Recv of 10 ints into 5");
	for (i = 5; i < 16; i++)
		if (v[i] != -1) {
			fail("Recv of 10 ints into 5 wrote int %d", i);
			break;
		}

	memset(big, 0, BIG + 1);
	rc = MPI_Recv(big, 1024, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st);
	expect_class(rc, MPI_ERR_TRUNCATE, "Recv of 256 KiB into 1 KiB");
	overrun(big, 1024, "Recv of 256 KiB into 1 KiB");

	memset(big, 0, BIG + 1);
	MPI_Irecv(big, 10, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req);
	rc = MPI_Wait(&req, &st);
	expect_class(rc, MPI_ERR_TRUNCATE, "Wait for 100 bytes into 10");
	MPI_Irecv(big, 10, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &req);
	rc = MPI_Wait(&req, &st);
	expect_class(rc, MPI_ERR_TRUNCATE, "Wait for 256 KiB into 10");
	overrun(big, 10, "Irecv of 256 KiB into 10 bytes");

	memset(w, 0, sizeof(w));
	MPI_Irecv(w[0], 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &reqs[0]);
	MPI_Irecv(w[1], 2, MPI_INT, peer, 4, MPI_COMM_WORLD, &reqs[1]);
	MPI_Irecv(w[2], 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &reqs[2]);
	for (i = 0; i < 3; i++)
		sts[i].MPI_ERROR = -12345;
	rc = MPI_Waitall(3, reqs, sts);
	expect_class(rc, MPI_ERR_IN_STATUS, "Waitall with one truncation");
	if (rc != MPI_SUCCESS) {
		expect_class(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE,
		    "Waitall status 1 MPI_ERROR");
		/*
		 * Once one request fails, Waitall may return before the
		 * others complete, marking them MPI_ERR_PENDING; they are
		 * then still active and are waited for here.
		 */
		for (i = 0; i < 3; i += 2) {
			if (sts[i].MPI_ERROR == MPI_ERR_PENDING) {
				rc = MPI_Wait(&reqs[i], &sts[i]);
				expect_class(rc, MPI_SUCCESS,
				    "Wait for a pending Waitall request");
			} else
				expect_class(sts[i].MPI_ERROR, MPI_SUCCESS,
				    i == 0 ? "Waitall status 0 MPI_ERROR" :
				    "Waitall status 2 MPI_ERROR");
		}
	}
	if (w[0][0] != 0 || w[0][3] != 3)
		fail("Waitall: request 0 received %d..%d, expected 0..3",
		    w[0][0], w[0][3]);
	if (w[1][2] != 0 || w[1][3] != 0)
		fail("Waitall: request 1 wrote past its two ints");
	if (w[2][0] != 0 || w[2][1] != 0)
		fail("Waitall: request 2 received %d, expected 0", w[2][0]);
	MPI_Get_count(&sts[0], MPI_INT, &count);
	if (count != 4)
		fail("Waitall: request 0 count %d, expected 4", count);
	MPI_Get_count(&sts[2], MPI_INT, &count);
	if (count != 1)
		fail("Waitall: request 2 count %d, expected 1", count);

	MPI_Irecv(v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &req);
	do
		rc = MPI_Test(&req, &flag, &st);
	while (rc == MPI_SUCCESS && !flag);
	expect_class(rc, MPI_ERR_TRUNCATE, "Test for 2 ints into 1");

	rc = MPI_Recv(NULL, 0, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &st);
	expect_class(rc, MPI_ERR_TRUNCATE, "Recv of 1 byte into 0");

	v[0] = 77;
	v[8] = 0;
	v[9] = -1;
	rc = MPI_Sendrecv(v, 1, MPI_INT, peer, 7, &v[8], 1, MPI_INT, peer,
	    7, MPI_COMM_WORLD, &st);
	expect_class(rc, MPI_ERR_TRUNCATE, "Sendrecv of 4 ints into 1");
	if (v[9] != -1)
		fail("Sendrecv of 4 ints into 1 wrote past the buffer");

	memset(v, 0, sizeof(v));
	rc = MPI_Recv(v, 16, MPI_INT, peer, 8, MPI_COMM_WORLD, &st);
	expect_class(rc, MPI_SUCCESS, "Recv after truncations");
	for (i = 0; i < 16; i++)
		if (v[i] != 1000 + i) {
			fail("Recv after truncations: int %d is %d", i, v[i]);
			break;
		}
	memset(big, 0, BIG + 1);
	rc = MPI_Recv(big, BIG + 1, MPI_BYTE, peer, 8, MPI_COMM_WORLD, &st);
	expect_class(rc, MPI_SUCCESS, "large Recv after truncations");
	MPI_Get_count(&st, MPI_BYTE, &count);
	if (count != BIG)
		fail("large Recv after truncations: count %d", count);
	for (i = 0; i < BIG; i++)
		if (big[i] != 0x3c) {
			fail("large Recv after truncations: byte %d is %d",
			    i, big[i]);
			break;
		}
	free(big);
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
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	if (myrank == 0)
		sender(1);
	else if (myrank == 1)
		receiver(0);
	return finish();
}
