/* SPDX-License-Identifier: ISC */
/*
 * cancel: MPI_Cancel of receives, MPI_Test_cancelled, and
 * MPI_Request_free of send requests.  A receive for which no message is
 * ever sent must cancel successfully (MPI_Wait on it has to return
 * without help from any other process), and a cancelled receive must
 * neither alter its buffer nor consume a message sent later.  When a
 * cancel races a matching send, either outcome is allowed but it must
 * be consistent: cancelled and the message still receivable, or
 * completed with the right data.  A freed send request must still
 * deliver its message.  Ranks pair up as (0,1), (2,3), ...; an odd last
 * rank, or a lone rank, is its own partner.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"cancel"
#define MINPROCS	1
#define TAG_ERRS	32000
#define TAG_GO		99
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

/* Exchange a go message with the partner (safe with ourselves too). */
static void
handshake(int peer)
{
	MPI_Request	req;
	int		out = 1, in;

	MPI_Isend(&out, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD, &req);
	MPI_Recv(&in, 1, MPI_INT, peer, TAG_GO, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* Cancel receives for which no message has been sent. */
static void
unmatched(int peer, int *big)
{
	MPI_Request	req, sreq;
	MPI_Status	st;
	int		buf[4], v, flag, i;

	for (i = 0; i < 4; i++)
		buf[i] = -5;
	MPI_Irecv(buf, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &req);
	MPI_Cancel(&req);
	MPI_Wait(&req, &st);
	flag = 0;
	MPI_Test_cancelled(&st, &flag);
	if (!flag)
		fail("Irecv+Cancel+Wait of an unsent message: not cancelled");
	if (req != MPI_REQUEST_NULL)
		fail("Wait on a cancelled request did not free it");

	/*
	 * Fully wildcarded, completed by Test.  This uses MPI_COMM_SELF,
	 * where nothing else is sent: in MPI_COMM_WORLD the partner's go
	 * message could legitimately match it.
	 */
	MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF,
	    &req);
	MPI_Cancel(&req);
	flag = 0;
	for (i = 0; i < 10000000 && !flag; i++)
		MPI_Test(&req, &flag, &st);
	if (!flag)
		fail("Test never completed a cancelled receive");
	else {
		flag = 0;
		MPI_Test_cancelled(&st, &flag);
		if (!flag)
			fail("wildcard Irecv+Cancel+Test: not cancelled");
	}
	for (i = 0; i < 4; i++)
		if (buf[i] != -5)
			fail("cancelled receive changed its buffer");

	/* A large receive, then the messages sent after the cancels. */
	MPI_Irecv(big, BIG / 4, MPI_INT, peer, 3, MPI_COMM_WORLD, &req);
	MPI_Cancel(&req);
	MPI_Wait(&req, &st);
	flag = 0;
	MPI_Test_cancelled(&st, &flag);
	if (!flag)
		fail("large Irecv+Cancel+Wait: not cancelled");

	handshake(peer);
	v = 11;
	MPI_Isend(&v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &sreq);
	buf[0] = -1;
	MPI_Recv(buf, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	if (buf[0] != 11)
		fail("message sent after a cancel: got %d, expected 11",
		    buf[0]);
	flag = 1;
	MPI_Test_cancelled(&st, &flag);
	if (flag)
		fail("Test_cancelled true for a received message");
}

/*
 * Cancel a receive while the partner's matching message may be on its
 * way.  Whatever the outcome, the message must arrive exactly once.
 */
static void
racing(int peer, int *in, int *out)
{
	static const int lens[4] = { 1, 100, BIG / 4, 7 };
	MPI_Request	req, sreq;
	MPI_Status	st;
	int		k, i, flag, count;

	for (k = 0; k < 4; k++) {
		for (i = 0; i < lens[k]; i++)
			out[i] = k * 1000 + i;
		memset(in, 0xff, (size_t)lens[k] * sizeof(int));
		MPI_Irecv(in, lens[k], MPI_INT, peer, 20 + k, MPI_COMM_WORLD,
		    &req);
		MPI_Isend(out, lens[k], MPI_INT, peer, 20 + k,
		    MPI_COMM_WORLD, &sreq);
		MPI_Cancel(&req);
		MPI_Wait(&req, &st);
		flag = 0;
		MPI_Test_cancelled(&st, &flag);
		if (flag) {
			for (i = 0; i < lens[k]; i++)
				if (in[i] != -1) {
					fail("race %d: cancelled receive"
					    " changed its buffer", k);
					break;
				}
			MPI_Recv(in, lens[k], MPI_INT, peer, 20 + k,
			    MPI_COMM_WORLD, &st);
		}
		MPI_Wait(&sreq, MPI_STATUS_IGNORE);
		MPI_Get_count(&st, MPI_INT, &count);
		if (count != lens[k] || st.MPI_SOURCE != peer ||
		    st.MPI_TAG != 20 + k)
			fail("race %d: count %d source %d tag %d", k, count,
			    st.MPI_SOURCE, st.MPI_TAG);
		for (i = 0; i < lens[k]; i++)
			if (in[i] != k * 1000 + i) {
				fail("race %d (%s): int %d is %d", k,
				    flag ? "cancelled" : "completed", i,
				    in[i]);
				break;
			}
	}
}

/* Free send requests; the partner acknowledges what it received. */
static void
freed(int peer, int *in, int *out)
{
	MPI_Request	req, rreq;
	MPI_Status	st;
	int		i, ack, v = 0;

	for (i = 0; i < BIG / 4; i++)
		out[i] = 7 * i + 3;
	MPI_Isend(out, BIG / 4, MPI_INT, peer, 30, MPI_COMM_WORLD, &req);
	MPI_Request_free(&req);
	if (req != MPI_REQUEST_NULL)
		fail("Request_free did not set the request to"
		    " MPI_REQUEST_NULL");
	v = 42;
	MPI_Isend(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &req);
	MPI_Request_free(&req);

	/* Receive only now, so the large send was freed while pending. */
	handshake(peer);
	MPI_Irecv(&ack, 1, MPI_INT, peer, 32, MPI_COMM_WORLD, &rreq);
	memset(in, 0, BIG);
	MPI_Recv(in, BIG / 4, MPI_INT, peer, 30, MPI_COMM_WORLD, &st);
	for (i = 0; i < BIG / 4; i++)
		if (in[i] != 7 * i + 3) {
			fail("freed large send: int %d is %d", i, in[i]);
			break;
		}
	in[0] = 0;
	MPI_Recv(in, 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &st);
	if (in[0] != 42)
		fail("freed small send: got %d, expected 42", in[0]);

	/*
	 * The only way to know a freed send's buffer is reusable is a
	 * reply from the receiver.
	 */
	i = 1;
	MPI_Send(&i, 1, MPI_INT, peer, 32, MPI_COMM_WORLD);
	MPI_Wait(&rreq, MPI_STATUS_IGNORE);
}

int
main(int argc, char *argv[])
{
	int	size, peer;
	int	*in, *out;

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
	in = xmalloc(BIG);
	out = xmalloc(BIG);

	unmatched(peer, in);
	racing(peer, in, out);
	freed(peer, in, out);

	free(in);
	free(out);
	return finish();
}
