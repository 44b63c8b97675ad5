/* SPDX-License-Identifier: ISC */
/*
 * ulfm_ishrink: MPIX_Comm_ishrink racing other communicator creations.
 * The last rank dies; the survivors start an ishrink of MPI_COMM_WORLD,
 * then, while it is pending, the lower half duplicates a communicator
 * of its own, and everyone starts an ishrink of a copy of the world, in
 * an order that differs from rank to rank.  Every call succeeds, and
 * the communicators made are distinct: a message sent on one is not
 * received on another.
 */
#define NAME "ulfm_ishrink"
#include "ulfm.h"

/* A ring exchange on c: the left neighbour's rank comes back. */
static void
ring(MPI_Comm c, int tag, const char *what)
{
	int r, n, x = -1;

	MPI_Comm_rank(c, &r);
	MPI_Comm_size(c, &n);
	expect(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % n, tag, &x, 1, MPI_INT,
	    (r + n - 1) % n, tag, c, MPI_STATUS_IGNORE), MPI_SUCCESS, what);
	if (x != (r + n - 1) % n)
		fail("%s: got %d, not %d", what, x, (r + n - 1) % n);
}

int
main(int argc, char **argv)
{
	MPI_Comm half, copy, d, s1, s2;
	MPI_Request rq[2];
	int low, victim, n, a = -1, b = -1, r;

	init(&argc, &argv);
	victim = nprocs - 1;
	low = myrank < nprocs / 2;
	MPI_Comm_split(MPI_COMM_WORLD, low, myrank, &half);
	MPI_Comm_dup(MPI_COMM_WORLD, &copy);
	MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	await_failures(MPI_COMM_WORLD, 1);
	expect(MPIX_Comm_ishrink(MPI_COMM_WORLD, &s1, &rq[0]), MPI_SUCCESS,
	    "MPIX_Comm_ishrink of the world");
	if (low) {
		expect(MPI_Comm_dup(half, &d), MPI_SUCCESS,
		    "MPI_Comm_dup while an ishrink is pending");
		ring(d, 1, "a ring on the duplicate");
		MPI_Comm_free(&d);
	}
	/* A second ishrink, started while the first may be pending. */
	expect(MPIX_Comm_ishrink(copy, &s2, &rq[1]), MPI_SUCCESS,
	    "MPIX_Comm_ishrink of the copy");
	if (myrank % 2 == 0) {
		expect(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), MPI_SUCCESS,
		    "the ishrink of the copy");
		expect(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), MPI_SUCCESS,
		    "the ishrink of the world");
	} else {
		expect(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), MPI_SUCCESS,
		    "the ishrink of the world");
		expect(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), MPI_SUCCESS,
		    "the ishrink of the copy");
	}
	if (s1 == MPI_COMM_NULL || s2 == MPI_COMM_NULL) {
		fail("an ishrink made no communicator");
		return finish();
	}
	MPI_Comm_size(s1, &n);
	if (n != nprocs - 1)
		fail("the shrunk world has %d processes, not %d", n,
		    nprocs - 1);
	/* Distinct contexts: the message on s2 does not match on s1. */
	MPI_Comm_rank(s1, &r);
	if (n > 1) {
		if (r == 0) {
			MPI_Send(&r, 1, MPI_INT, 1, 5, s2);
			a = 7;
			MPI_Send(&a, 1, MPI_INT, 1, 5, s1);
		} else if (r == 1) {
			MPI_Recv(&a, 1, MPI_INT, 0, 5, s1, MPI_STATUS_IGNORE);
			MPI_Recv(&b, 1, MPI_INT, 0, 5, s2, MPI_STATUS_IGNORE);
			if (a != 7 || b != 0)
				fail("s1 got %d, s2 got %d: their contexts "
				    "mix", a, b);
		}
	}
	ring(s1, 2, "a ring on the shrunk world");
	ring(s2, 3, "a ring on the shrunk copy");
	MPI_Comm_free(&s1);
	MPI_Comm_free(&s2);
	return finish();
}
