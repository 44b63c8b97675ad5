/* SPDX-License-Identifier: ISC */
/*
 * req_status: MPI_Request_get_status and MPI_Ibsend.  get_status
 * reports a receive, a send, a nonblocking collective and an active
 * persistent request as complete in time, with the receive's source,
 * tag and count, and leaves them as they are: the request is still to
 * be waited for, and the wait gives the same status; a null or inactive
 * request is complete at once with an empty status.  MPI_Ibsend copies
 * into the attached buffer and gives a request that completes, to real
 * ranks and to MPI_PROC_NULL, and fails without room.
 */

#define NAME		"req_status"
#include "mtest.h"

/* Ask until complete (the handle is passed by value: it stays). */
static void
poll(MPI_Request req, MPI_Status *st, const char *what)
{
	int	flag = 0;

	while (!flag)
		ok(MPI_Request_get_status(req, &flag, st), what);
}

static void
empty(const MPI_Status *st, const char *what)
{
	int	n = -1;

	MPI_Get_count(st, MPI_INT, &n);
	if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG ||
	    n != 0)
		fail("%s: status %d %d %d is not empty", what, st->MPI_SOURCE,
		    st->MPI_TAG, n);
}

static void
point_to_point(void)
{
	MPI_Request	rreq, sreq;
	MPI_Status	st, st2;
	int		buf[3] = { 1, 2, 3 }, got[4], next, prev, n;

	next = (myrank + 1) % nprocs;
	prev = (myrank - 1 + nprocs) % nprocs;
	memset(got, 0, sizeof(got));
	MPI_Irecv(got, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
	    MPI_COMM_WORLD, &rreq);
	MPI_Isend(buf, 3, MPI_INT, next, 11, MPI_COMM_WORLD, &sreq);
	poll(rreq, &st, "get_status of a receive");
	MPI_Get_count(&st, MPI_INT, &n);
	if (st.MPI_SOURCE != prev || st.MPI_TAG != 11 || n != 3 ||
	    got[2] != 3)
		fail("get_status of a receive: source %d tag %d count %d",
		    st.MPI_SOURCE, st.MPI_TAG, n);
	poll(sreq, MPI_STATUS_IGNORE, "get_status of a send");
	/* Still to be completed, with the same status. */
	ok(MPI_Wait(&rreq, &st2), "Wait after get_status");
	if (st2.MPI_SOURCE != st.MPI_SOURCE || st2.MPI_TAG != st.MPI_TAG)
		fail("Wait gave another status than get_status");
	ok(MPI_Wait(&sreq, MPI_STATUS_IGNORE), "Wait for the send");
}

static void
others(void)
{
	MPI_Request	req;
	MPI_Status	st;
	int		flag, v = myrank, sum = 0, got = -1;

	/* Null and inactive requests: complete, with an empty status. */
	req = MPI_REQUEST_NULL;
	flag = 0;
	ok(MPI_Request_get_status(req, &flag, &st), "get_status of NULL");
	if (!flag)
		fail("get_status of MPI_REQUEST_NULL: not complete");
	empty(&st, "get_status of MPI_REQUEST_NULL");
	MPI_Recv_init(&got, 1, MPI_INT, myrank, 12, MPI_COMM_WORLD, &req);
	flag = 0;
	ok(MPI_Request_get_status(req, &flag, &st), "get_status, inactive");
	if (!flag)
		fail("get_status of an inactive request: not complete");
	empty(&st, "get_status of an inactive request");
	MPI_Start(&req);
	MPI_Send(&v, 1, MPI_INT, myrank, 12, MPI_COMM_WORLD);
	poll(req, &st, "get_status of an active persistent request");
	if (st.MPI_TAG != 12 || got != v)
		fail("persistent receive: tag %d, got %d", st.MPI_TAG, got);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (req == MPI_REQUEST_NULL)
		fail("a persistent request went at its completion");
	MPI_Request_free(&req);

	/* A nonblocking collective. */
	MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	poll(req, MPI_STATUS_IGNORE, "get_status of an Iallreduce");
	if (sum != nprocs * (nprocs - 1) / 2)
		fail("Iallreduce gave %d", sum);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void
ibsend(void)
{
	MPI_Request	reqs[2];
	char		*mem;
	void		*back;
	int		v[2], got[2] = { -1, -1 }, size, next, prev, flag;

	next = (myrank + 1) % nprocs;
	prev = (myrank - 1 + nprocs) % nprocs;
	size = 2 * (2 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
	if ((mem = malloc((size_t)size)) == NULL) {
		fail("out of memory");
		return;
	}
	MPI_Buffer_attach(mem, size);
	v[0] = myrank;
	v[1] = 100 + myrank;
	MPI_Irecv(got, 2, MPI_INT, prev, 13, MPI_COMM_WORLD, &reqs[1]);
	ok(MPI_Ibsend(v, 2, MPI_INT, next, 13, MPI_COMM_WORLD, &reqs[0]),
	    "Ibsend");
	/* The data is in the buffer: ours to change at once. */
	v[0] = v[1] = -5;
	ok(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE), "Waitall");
	if (got[0] != prev || got[1] != 100 + prev)
		fail("Ibsend delivered %d %d", got[0], got[1]);
	ok(MPI_Ibsend(v, 2, MPI_INT, MPI_PROC_NULL, 13, MPI_COMM_WORLD,
	    &reqs[0]), "Ibsend to MPI_PROC_NULL");
	flag = 0;
	MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
	if (!flag)
		fail("Ibsend to MPI_PROC_NULL is not complete");
	MPI_Buffer_detach(&back, &size);
	free(mem);

	/* No buffer attached: no room. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Ibsend(v, 2, MPI_INT, next, 14, MPI_COMM_WORLD, &reqs[0]),
	    MPI_ERR_BUFFER, "Ibsend without a buffer");
	expect(MPI_Ibsend(v, 2, MPI_INT, nprocs, 14, MPI_COMM_WORLD,
	    &reqs[0]), MPI_ERR_RANK, "Ibsend to rank nprocs");
	expect(MPI_Request_get_status(MPI_REQUEST_NULL, NULL, NULL),
	    ANY_ERROR, "get_status with a NULL flag");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	point_to_point();
	others();
	ibsend();
	return finish();
}
