/* SPDX-License-Identifier: ISC */
/*
 * comm_free_pending: MPI_Comm_free while operations on the communicator
 * are pending only marks it for deallocation (MPI-3.1 section 6.4.3).
 * A nonblocking allreduce, a nonblocking send and receive, and persistent
 * requests made on a duplicate must all complete, and the persistent ones
 * start again, after the duplicate is freed.  Between the free and the
 * completion the test allocates and scribbles over memory, so that a
 * library that freed the communicator early reads garbage.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"comm_free_pending"
#define TAG_ERRS	32000
#define NSCRIBBLE	256

static int	errs;
static int	myrank, nprocs;

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 40)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Reuse what the allocator just got back, and fill it with junk. */
static void
scribble(void)
{
	void	*p[NSCRIBBLE];
	int	 i;

	for (i = 0; i < NSCRIBBLE; i++)
		if ((p[i] = malloc((size_t)(16 + 16 * (i % 64)))) != NULL)
			memset(p[i], 0xa5, (size_t)(16 + 16 * (i % 64)));
	for (i = 0; i < NSCRIBBLE; i++)
		free(p[i]);
}

static void
check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		fail("%s returned %d", what, rc);
}

static void
test_iallreduce(void)
{
	MPI_Comm	 dup;
	MPI_Request	 req;
	int		 in, out = -1, want = nprocs * (nprocs - 1) / 2;

	check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
	in = myrank;
	check(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, dup, &req),
	    "MPI_Iallreduce");
	check(MPI_Comm_free(&dup), "MPI_Comm_free");
	if (dup != MPI_COMM_NULL)
		fail("MPI_Comm_free left the handle set");
	scribble();
	check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait (Iallreduce)");
	if (out != want)
		fail("Iallreduce on a freed communicator gave %d, expected %d",
		    out, want);
}

static void
test_p2p(void)
{
	MPI_Comm	 dup;
	MPI_Request	 req[2];
	int		 to = (myrank + 1) % nprocs;
	int		 from = (myrank + nprocs - 1) % nprocs;
	int		 in = -1, out = 1000 + myrank;

	check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
	check(MPI_Irecv(&in, 1, MPI_INT, from, 5, dup, &req[0]), "MPI_Irecv");
	check(MPI_Isend(&out, 1, MPI_INT, to, 5, dup, &req[1]), "MPI_Isend");
	check(MPI_Comm_free(&dup), "MPI_Comm_free");
	scribble();
	check(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "MPI_Waitall (p2p)");
	if (in != 1000 + from)
		fail("Irecv on a freed communicator gave %d, expected %d", in,
		    1000 + from);
}

static void
test_persistent(void)
{
	MPI_Comm	 dup;
	MPI_Request	 req[2];
	int		 to = (myrank + 1) % nprocs;
	int		 from = (myrank + nprocs - 1) % nprocs;
	int		 in, out, round;

	check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
	check(MPI_Recv_init(&in, 1, MPI_INT, from, 6, dup, &req[0]),
	    "MPI_Recv_init");
	check(MPI_Send_init(&out, 1, MPI_INT, to, 6, dup, &req[1]),
	    "MPI_Send_init");
	check(MPI_Comm_free(&dup), "MPI_Comm_free");
	for (round = 0; round < 3; round++) {
		scribble();
		in = -1;
		out = 100 * round + myrank;
		check(MPI_Startall(2, req), "MPI_Startall");
		check(MPI_Waitall(2, req, MPI_STATUSES_IGNORE),
		    "MPI_Waitall (persistent)");
		if (in != 100 * round + from)
			fail("persistent round %d gave %d, expected %d", round,
			    in, 100 * round + from);
	}
	check(MPI_Request_free(&req[0]), "MPI_Request_free");
	check(MPI_Request_free(&req[1]), "MPI_Request_free");
}

int
main(int argc, char **argv)
{
	int	 i, e, total;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	test_iallreduce();
	test_p2p();
	test_persistent();
	total = errs;
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
