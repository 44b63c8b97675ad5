/* SPDX-License-Identifier: ISC */
/*
 * persist_basic: persistent requests.  MPI_Send_init and MPI_Recv_init
 * around the ring, started ten times with new data each time (a start
 * reads the buffer anew), short and long (rendezvous) and in a strided
 * type; MPI_Startall and MPI_Waitall; MPI_Ssend_init does not complete
 * before the receive is posted; MPI_Rsend_init and MPI_Bsend_init;
 * MPI_PROC_NULL and MPI_ANY_SOURCE / MPI_ANY_TAG; an inactive request
 * tests complete with an empty status and survives MPI_Wait; and the
 * error classes: starting an active request or one that is not
 * persistent, a bad rank, a negative count.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"persist_basic"
#define TAG_ERRS	32000

static int	errs;
static int	myrank, nprocs;

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
	int	i, e, total = errs;

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0) {
		for (i = 1; i < nprocs; i++) {
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

static void *xmalloc(size_t) __attribute__((unused));

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = calloc(1, n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static void
ring(int count, MPI_Datatype type, int stride)
{
	MPI_Request	 req[2];
	MPI_Status	 st[2];
	int		*sb, *rb, it, i, n = count * stride;
	int		 right = (myrank + 1) % nprocs;
	int		 left = (myrank + nprocs - 1) % nprocs;

	sb = xmalloc((size_t)n * sizeof(int));
	rb = xmalloc((size_t)n * sizeof(int));
	MPI_Recv_init(rb, type == MPI_INT ? count : 1, type, left, 5,
	    MPI_COMM_WORLD, &req[0]);
	MPI_Send_init(sb, type == MPI_INT ? count : 1, type, right, 5,
	    MPI_COMM_WORLD, &req[1]);
	for (it = 0; it < 10; it++) {
		for (i = 0; i < n; i++) {
			sb[i] = myrank * 1000 + it * 7 + i;
			rb[i] = -1;
		}
		if (it % 2)
			MPI_Startall(2, req);
		else {
			MPI_Start(&req[0]);
			MPI_Start(&req[1]);
		}
		MPI_Waitall(2, req, st);
		if (req[0] == MPI_REQUEST_NULL || req[1] == MPI_REQUEST_NULL)
			fail("a persistent request was freed by MPI_Waitall");
		if (st[0].MPI_SOURCE != left || st[0].MPI_TAG != 5)
			fail("status source %d tag %d", st[0].MPI_SOURCE,
			    st[0].MPI_TAG);
		for (i = 0; i < n; i++) {
			int want = i % stride == 0 ?
			    left * 1000 + it * 7 + i : -1;

			if (rb[i] != want) {
				fail("ring count %d stride %d iteration %d: "
				    "int %d is %d, expected %d", count, stride,
				    it, i, rb[i], want);
				break;
			}
		}
	}
	MPI_Request_free(&req[0]);
	MPI_Request_free(&req[1]);
	if (req[0] != MPI_REQUEST_NULL)
		fail("MPI_Request_free left the handle");
	free(sb);
	free(rb);
}

static void
ssend_case(void)
{
	MPI_Request req;
	int x = 42, y = 0, go = 1, flag, i;

	if (nprocs < 2)
		return;
	if (myrank == 0) {
		MPI_Ssend_init(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &req);
		MPI_Start(&req);
		for (i = 0; i < 100; i++) {
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
			if (flag) {
				fail("MPI_Ssend_init completed before the "
				    "receive was posted");
				break;
			}
		}
		MPI_Send(&go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
		if (!flag)
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Request_free(&req);
	} else if (myrank == 1) {
		MPI_Recv(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		MPI_Recv(&y, 1, MPI_INT, 0, 7, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (y != 42)
			fail("ssend_init delivered %d", y);
	}
}

static void
modes_case(void)
{
	MPI_Request	 req, rreq;
	MPI_Status	 st;
	char		*bbuf;
	int		 x, y, bsize, it, right, left, flag;

	right = (myrank + 1) % nprocs;
	left = (myrank + nprocs - 1) % nprocs;

	/* Ready mode: the receive is posted before the barrier. */
	MPI_Rsend_init(&x, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &req);
	for (it = 0; it < 3; it++) {
		y = -1;
		x = myrank + it;
		MPI_Irecv(&y, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &rreq);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Wait(&rreq, MPI_STATUS_IGNORE);
		if (y != left + it)
			fail("rsend_init iteration %d gave %d", it, y);
	}
	MPI_Request_free(&req);

	/* Buffered mode. */
	bsize = 4 * (MPI_BSEND_OVERHEAD + (int)sizeof(int));
	bbuf = xmalloc((size_t)bsize);
	MPI_Buffer_attach(bbuf, bsize);
	MPI_Bsend_init(&x, 1, MPI_INT, right, 12, MPI_COMM_WORLD, &req);
	for (it = 0; it < 3; it++) {
		x = 100 * myrank + it;
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		x = -5;		/* the buffer is free again */
		MPI_Recv(&y, 1, MPI_INT, left, 12, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (y != 100 * left + it)
			fail("bsend_init iteration %d gave %d", it, y);
	}
	MPI_Request_free(&req);
	MPI_Buffer_detach(&bbuf, &bsize);
	free(bbuf);

	/* MPI_PROC_NULL. */
	MPI_Recv_init(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
	for (it = 0; it < 2; it++) {
		MPI_Start(&req);
		MPI_Wait(&req, &st);
		if (st.MPI_SOURCE != MPI_PROC_NULL)
			fail("proc_null recv_init: source %d", st.MPI_SOURCE);
	}
	MPI_Request_free(&req);
	MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
	MPI_Start(&req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Request_free(&req);

	/* Wildcards: every rank sends one to rank 0. */
	x = myrank;
	MPI_Send_init(&x, 1, MPI_INT, 0, 20 + myrank, MPI_COMM_WORLD, &req);
	MPI_Start(&req);
	if (myrank == 0) {
		int seen = 0;

		MPI_Recv_init(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
		    MPI_COMM_WORLD, &rreq);
		for (it = 0; it < nprocs; it++) {
			MPI_Start(&rreq);
			MPI_Wait(&rreq, &st);
			if (st.MPI_SOURCE != y || st.MPI_TAG != 20 + y)
				fail("wildcard recv_init: source %d tag %d "
				    "data %d", st.MPI_SOURCE, st.MPI_TAG, y);
			seen |= 1 << y;
		}
		if (seen != (1 << nprocs) - 1)
			fail("wildcard recv_init saw %x", seen);
		MPI_Request_free(&rreq);
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	/* Nothing else may reach rank 0 while it takes any tag. */
	MPI_Barrier(MPI_COMM_WORLD);

	/* An inactive request. */
	MPI_Test(&req, &flag, &st);
	if (!flag || st.MPI_SOURCE != MPI_ANY_SOURCE ||
	    st.MPI_TAG != MPI_ANY_TAG)
		fail("test on an inactive request: flag %d source %d tag %d",
		    flag, st.MPI_SOURCE, st.MPI_TAG);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (req == MPI_REQUEST_NULL)
		fail("MPI_Wait freed an inactive persistent request");
	MPI_Request_free(&req);
}

static void
errors_case(void)
{
	MPI_Request	req, plain;
	int		x = 0, rc, cls;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Send_init(&x, 1, MPI_INT, nprocs, 0, MPI_COMM_WORLD, &req);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_RANK)
		fail("send_init to rank %d: class %d", nprocs, cls);
	rc = MPI_Recv_init(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_COUNT)
		fail("recv_init with count -1: class %d", cls);
	rc = MPI_Send_init(&x, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, &req);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_TAG)
		fail("send_init with tag -3: class %d", cls);
	rc = MPI_Send_init(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD,
	    &req);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_TYPE)
		fail("send_init with MPI_DATATYPE_NULL: class %d", cls);

	/* Starting an active request (Open MPI does not notice). */
	MPI_Recv_init(&x, 1, MPI_INT, myrank, 99, MPI_COMM_WORLD, &req);
	MPI_Start(&req);
#ifdef FT_MPI_API
	rc = MPI_Start(&req);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_REQUEST)
		fail("starting an active request: class %d", cls);
#endif
	MPI_Send(&x, 1, MPI_INT, myrank, 99, MPI_COMM_WORLD);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Request_free(&req);

	/* Starting a request that is not persistent. */
	MPI_Irecv(&x, 1, MPI_INT, myrank, 98, MPI_COMM_WORLD, &plain);
	rc = MPI_Start(&plain);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_REQUEST)
		fail("starting a nonpersistent request: class %d", cls);
	MPI_Send(&x, 1, MPI_INT, myrank, 98, MPI_COMM_WORLD);
	MPI_Wait(&plain, MPI_STATUS_IGNORE);
	req = MPI_REQUEST_NULL;
	rc = MPI_Start(&req);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_REQUEST)
		fail("starting MPI_REQUEST_NULL: class %d", cls);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	MPI_Datatype vec;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	ring(1, MPI_INT, 1);
	ring(1000, MPI_INT, 1);
	ring(100000, MPI_INT, 1);	/* rendezvous */
	MPI_Type_vector(500, 1, 3, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	ring(500, vec, 3);
	MPI_Type_free(&vec);
	ssend_case();
	modes_case();
	errors_case();
	return finish();
}
