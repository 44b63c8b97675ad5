/* SPDX-License-Identifier: ISC */
/*
 * mprobe: matched probes.  Rank 0 claims messages with MPI_Mprobe and
 * MPI_Improbe from every other rank (wildcards, sizes from 0 bytes to
 * 1 MiB, which takes a rendezvous) and receives each with MPI_Mrecv or
 * MPI_Imrecv, contiguous or through a strided type; a claimed message
 * is invisible to MPI_Iprobe and to a receive posted afterwards, which
 * takes the next message instead.  A synchronous send claimed by a
 * probe is not complete until the matched receive is posted.  Sends to
 * oneself, MPI_PROC_NULL and MPI_MESSAGE_NO_PROC, a truncated matched
 * receive, and bad arguments (MPI_MESSAGE_NULL, a stale handle, a bad
 * rank or tag) with their error classes.
 */
#define NAME	"mprobe"
#include "mtest.h"

#define NMSG		5
#define TAG_SYNC	40
#define TAG_ACK		41

/* Message k from each sender: len[k] bytes plus 4 per rank mod 4. */
static const int	len[NMSG] = { 12, 0, 1024 * 1024, 4000, 65536 };

static int
msglen(int r, int k)
{
	return len[k] + (k == 1 ? 0 : 4 * (r % 4));
}

/* Byte i of message k from rank r. */
static unsigned char
byte_of(int r, int k, int i)
{
	return (unsigned char)((r + 1) * (k + 3) + i % 251);
}

/*
 * The phases of the test: every rank enters each with a barrier, so
 * rank 0 knows no message of the next phase was sent before.
 */
static void
phase(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
}

static void
sender(void)
{
	unsigned char	*buf;
	MPI_Request	 req;
	int		 k, i, n, v, flag;

	phase();
	for (k = 0; k < NMSG; k++) {
		n = msglen(myrank, k);
		buf = xzalloc((size_t)n);
		for (i = 0; i < n; i++)
			buf[i] = byte_of(myrank, k, i);
		MPI_Send(buf, n, MPI_BYTE, 0, 10 + k, MPI_COMM_WORLD);
		free(buf);
	}
	/* Two messages in order; rank 0 claims the first one. */
	phase();
	v = 100 + myrank;
	MPI_Send(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
	v = 200 + myrank;
	MPI_Send(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
	/* A synchronous send, claimed and held: not complete meanwhile. */
	phase();
	v = 300 + myrank;
	MPI_Issend(&v, 1, MPI_INT, 0, TAG_SYNC, MPI_COMM_WORLD, &req);
	MPI_Recv(&k, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	if (flag)
		fail("a synchronous send claimed by MPI_Mprobe completed "
		    "before its MPI_Mrecv was posted");
	MPI_Send(&flag, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	/* A polled message. */
	phase();
	v = 400 + myrank;
	MPI_Send(&v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
}

/* Every sender's NMSG messages, claimed by wildcard, in any order. */
static void
root_claims(void)
{
	MPI_Message	 msg;
	MPI_Request	 req;
	MPI_Status	 st, st2;
	unsigned char	*buf;
	int		*next, i, k, n, r, tag, flag;

	next = xzalloc((size_t)nprocs * sizeof(int));
	phase();
	for (i = 0; i < (nprocs - 1) * NMSG; i++) {
		if (i % 2 == 0)
			MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG,
			    MPI_COMM_WORLD, &msg, &st);
		else
			do
				MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG,
				    MPI_COMM_WORLD, &flag, &msg, &st);
			while (!flag);
		r = st.MPI_SOURCE;
		tag = st.MPI_TAG;
		if (r < 1 || r >= nprocs || tag < 10 || tag >= 10 + NMSG) {
			fail("matched probe: source %d tag %d out of range", r,
			    tag);
			break;
		}
		k = tag - 10;
		if (k != next[r])
			fail("from %d claimed message %d, expected %d", r, k,
			    next[r]);
		next[r] = k + 1;
		MPI_Get_count(&st, MPI_BYTE, &n);
		if (n != msglen(r, k))
			fail("from %d message %d: count %d, expected %d", r,
			    k, n, msglen(r, k));
		/* Claimed: no probe sees it any more. */
		flag = 1;
		MPI_Iprobe(r, tag, MPI_COMM_WORLD, &flag, &st2);
		if (flag)
			fail("MPI_Iprobe sees the message claimed from %d tag "
			    "%d", r, tag);
		buf = xzalloc((size_t)n);
		if (i % 3 == 0) {
			MPI_Imrecv(buf, n, MPI_BYTE, &msg, &req);
			if (msg != MPI_MESSAGE_NULL)
				fail("MPI_Imrecv left the message handle set");
			MPI_Wait(&req, &st2);
		} else {
			MPI_Mrecv(buf, n, MPI_BYTE, &msg, &st2);
			if (msg != MPI_MESSAGE_NULL)
				fail("MPI_Mrecv left the message handle set");
		}
		MPI_Get_count(&st2, MPI_BYTE, &k);
		if (st2.MPI_SOURCE != r || st2.MPI_TAG != tag || k != n)
			fail("matched receive: source %d tag %d count %d, "
			    "expected %d %d %d", st2.MPI_SOURCE, st2.MPI_TAG,
			    k, r, tag, n);
		for (k = 0; k < n && buf[k] == byte_of(r, tag - 10, k); k++)
			continue;
		if (k != n)
			fail("from %d message %d: wrong byte %d", r, tag - 10,
			    k);
		free(buf);
	}
	for (r = 1; r < nprocs; r++)
		if (next[r] != NMSG)
			fail("claimed %d messages from %d, expected %d",
			    next[r], r, NMSG);
	free(next);
}

/* A receive posted after a claim takes the next message, not it. */
static void
root_order(void)
{
	MPI_Message	msg;
	MPI_Request	req;
	MPI_Status	st;
	int		r, v, w, n;

	phase();
	for (r = 1; r < nprocs; r++) {
		MPI_Mprobe(r, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
		if (st.MPI_TAG != 20)
			fail("MPI_Mprobe from %d: tag %d, expected the first "
			    "message's 20", r, st.MPI_TAG);
		w = -1;
		MPI_Irecv(&w, 1, MPI_INT, r, MPI_ANY_TAG, MPI_COMM_WORLD,
		    &req);
		MPI_Wait(&req, &st);
		if (st.MPI_TAG != 21 || w != 200 + r)
			fail("a receive after the claim got tag %d value %d, "
			    "expected 21 %d", st.MPI_TAG, w, 200 + r);
		/* A strided type: the matched receive unpacks. */
		{
			MPI_Datatype	t;
			int		pair[2] = { -1, -1 };

			MPI_Type_vector(1, 1, 2, MPI_INT, &t);
			MPI_Type_commit(&t);
			MPI_Mrecv(pair, 1, t, &msg, &st);
			MPI_Get_count(&st, MPI_INT, &n);
			v = pair[0];
			if (v != 100 + r || pair[1] != -1 || n != 1)
				fail("MPI_Mrecv of the claimed message from "
				    "%d: %d %d count %d, expected %d -1 1", r,
				    pair[0], pair[1], n, 100 + r);
			MPI_Type_free(&t);
		}
	}
}

/* Claim each sender's synchronous send; it waits for the receive. */
static void
root_sync(void)
{
	MPI_Message	msg;
	MPI_Status	st;
	int		r, v, ack = 0;

	phase();
	for (r = 1; r < nprocs; r++) {
		MPI_Mprobe(r, TAG_SYNC, MPI_COMM_WORLD, &msg, &st);
		MPI_Send(&ack, 1, MPI_INT, r, TAG_ACK, MPI_COMM_WORLD);
		MPI_Recv(&ack, 1, MPI_INT, r, TAG_ACK, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
		if (v != 300 + r)
			fail("synchronous message from %d: %d, expected %d",
			    r, v, 300 + r);
	}
}

/* MPI_Improbe polls until each sender's message shows up. */
static void
root_poll(void)
{
	MPI_Message	msg;
	MPI_Status	st;
	int		i, flag, v;

	/* Nothing is left over, and nothing comes before the go. */
	MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg,
	    &st);
	if (flag)
		fail("MPI_Improbe found a stray message from %d tag %d",
		    st.MPI_SOURCE, st.MPI_TAG);
	phase();
	for (i = 1; i < nprocs; i++) {
		flag = 0;
		while (!flag)
			MPI_Improbe(MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &flag,
			    &msg, &st);
		v = -1;
		MPI_Mrecv(&v, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
		if (v != 400 + st.MPI_SOURCE)
			fail("polled message from %d carries %d",
			    st.MPI_SOURCE, v);
	}
}

/* Messages to oneself, eager and synchronous, claimed and received. */
static void
self(void)
{
	MPI_Message	msg;
	MPI_Request	req[2];
	MPI_Status	st;
	int		a = 11 + myrank, b = 22 + myrank, x = 0, y = 0, flag;

	MPI_Isend(&a, 1, MPI_INT, myrank, 60, MPI_COMM_WORLD, &req[0]);
	MPI_Issend(&b, 1, MPI_INT, myrank, 61, MPI_COMM_WORLD, &req[1]);
	MPI_Mprobe(myrank, 61, MPI_COMM_WORLD, &msg, &st);
	MPI_Test(&req[1], &flag, MPI_STATUS_IGNORE);
	if (flag)
		fail("self: a synchronous send completed when only claimed");
	MPI_Recv(&x, 1, MPI_INT, myrank, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	if (x != a || st.MPI_TAG != 60)
		fail("self: a receive got %d tag %d, expected %d 60", x,
		    st.MPI_TAG, a);
	MPI_Mrecv(&y, 1, MPI_INT, &msg, &st);
	if (y != b || st.MPI_TAG != 61 || st.MPI_SOURCE != myrank)
		fail("self: MPI_Mrecv got %d from %d tag %d", y,
		    st.MPI_SOURCE, st.MPI_TAG);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
}

/* MPI_PROC_NULL and MPI_MESSAGE_NO_PROC. */
static void
procnull(void)
{
	MPI_Message	msg = MPI_MESSAGE_NULL;
	MPI_Request	req;
	MPI_Status	st;
	int		n = -1, flag = 0, v = 5;

	MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	if (msg != MPI_MESSAGE_NO_PROC || st.MPI_SOURCE != MPI_PROC_NULL ||
	    st.MPI_TAG != MPI_ANY_TAG || n != 0)
		fail("MPI_Mprobe(MPI_PROC_NULL): source %d tag %d count %d",
		    st.MPI_SOURCE, st.MPI_TAG, n);
	st.MPI_SOURCE = 0;
	MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	if (msg != MPI_MESSAGE_NULL || st.MPI_SOURCE != MPI_PROC_NULL ||
	    st.MPI_TAG != MPI_ANY_TAG || n != 0 || v != 5)
		fail("MPI_Mrecv(MPI_MESSAGE_NO_PROC): source %d tag %d count "
		    "%d", st.MPI_SOURCE, st.MPI_TAG, n);
	msg = MPI_MESSAGE_NULL;
	MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg,
	    &st);
	if (!flag || msg != MPI_MESSAGE_NO_PROC)
		fail("MPI_Improbe(MPI_PROC_NULL): flag %d", flag);
	MPI_Imrecv(&v, 1, MPI_INT, &msg, &req);
	st.MPI_SOURCE = 0;
	MPI_Wait(&req, &st);
	if (msg != MPI_MESSAGE_NULL || st.MPI_SOURCE != MPI_PROC_NULL)
		fail("MPI_Imrecv(MPI_MESSAGE_NO_PROC): source %d",
		    st.MPI_SOURCE);
}

/* Bad arguments give their error class; truncation is reported. */
static void
errors(void)
{
	MPI_Message	msg, stale;
	MPI_Request	req;
	MPI_Status	st;
	char		big[16] = "fifteen bytes!!", small[4];
	int		rc, flag;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	msg = MPI_MESSAGE_NULL;
	expect_rc(MPI_Mrecv(small, 4, MPI_CHAR, &msg, &st), MPI_ERR_REQUEST,
	    "MPI_Mrecv(MPI_MESSAGE_NULL)");
	expect_rc(MPI_Imrecv(small, 4, MPI_CHAR, &msg, &req),
	    MPI_ERR_REQUEST, "MPI_Imrecv(MPI_MESSAGE_NULL)");
	expect_rc(MPI_Mprobe(myrank, 0, MPI_COMM_WORLD, NULL, &st),
	    MPI_ERR_ARG, "MPI_Mprobe with a NULL message");
	expect_rc(MPI_Improbe(nprocs, 0, MPI_COMM_WORLD, &flag, &msg, &st),
	    MPI_ERR_RANK, "MPI_Improbe from a rank past the last");
	expect_rc(MPI_Improbe(0, -5, MPI_COMM_WORLD, &flag, &msg, &st),
	    MPI_ERR_TAG, "MPI_Improbe with tag -5");
	expect_rc(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &msg, &st),
	    MPI_ERR_COMM, "MPI_Improbe on MPI_COMM_NULL");

	/* Truncated; then the handle is spent. */
	MPI_Send(big, 15, MPI_CHAR, myrank, 70, MPI_COMM_WORLD);
	MPI_Mprobe(myrank, 70, MPI_COMM_WORLD, &msg, &st);
	stale = msg;
	expect_rc(MPI_Mrecv(small, 4, MPI_CHAR, &msg, &st), MPI_ERR_TRUNCATE,
	    "MPI_Mrecv of 15 bytes into 4");
	if (memcmp(small, big, 4) != 0)
		fail("MPI_Mrecv truncated: not the first 4 bytes");
	expect_rc(MPI_Mrecv(small, 4, MPI_CHAR, &stale, &st),
	    MPI_ERR_REQUEST, "MPI_Mrecv with a spent message");
	/* A bad count keeps the message: it can still be received. */
	MPI_Send(big, 15, MPI_CHAR, myrank, 71, MPI_COMM_WORLD);
	MPI_Mprobe(myrank, 71, MPI_COMM_WORLD, &msg, &st);
	rc = MPI_Mrecv(small, -1, MPI_CHAR, &msg, &st);
	if (rc != MPI_ERR_COUNT || msg == MPI_MESSAGE_NULL)
		fail("MPI_Mrecv with count -1: %d, expected MPI_ERR_COUNT "
		    "and the message kept", rc);
	memset(small, 0, sizeof(small));
	rc = MPI_Mrecv(big, 16, MPI_CHAR, &msg, &st);
	if (rc != MPI_SUCCESS || strcmp(big, "fifteen bytes!!") != 0)
		fail("MPI_Mrecv after a bad count: %d", rc);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	self();
	procnull();
	errors();
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0) {
		root_claims();
		root_order();
		root_sync();
		root_poll();
	} else
		sender();
	return finish();
}
