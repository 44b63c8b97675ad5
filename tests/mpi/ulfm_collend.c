/* SPDX-License-Identifier: ISC */
/*
 * ulfm_collend: a collective fails where a death prevents it, and only
 * there (ft-ulfm(3), Collectives), under ftrun --ft ulfm, 3 or more
 * ranks.
 *  1. The last rank, root of a nonblocking broadcast, completes it
 *     and dies once every process has called it (its connections
 *     are set up first, so that its sends complete without the
 *     others' help); the others learn of the
 *     death before they wait for theirs: it completes with success
 *     and the value (the dead one did its part).
 *  2. On the survivors' communicator, the next-to-last rank dies
 *     before a barrier: it fails at every survivor, though a barrier's
 *     messages carry no data (the failure goes down its steps).
 */
#define NAME "ulfm_collend"
#include "ulfm.h"

int
main(int argc, char **argv)
{
	MPI_Comm c, s;
	MPI_Request q;
	int rc, cls, x, *a, *b;

	init(&argc, &argv);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	a = calloc(nprocs, sizeof(*a));
	b = calloc(nprocs, sizeof(*b));
	MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, c);
	x = myrank == nprocs - 1 ? 77 : 0;
	MPI_Ibcast(&x, 1, MPI_INT, nprocs - 1, c, &q);
	/* Every process has called it before the root dies. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == nprocs - 1) {
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		die();
	}
	await_failures(MPI_COMM_WORLD, 1);
	if ((rc = MPI_Wait(&q, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
		MPI_Error_class(rc, &cls);
		fail("a broadcast the dead root completed returned class %d",
		    cls);
	} else if (x != 77)
		fail("a broadcast the dead root completed gave %d", x);
	free(a);
	free(b);
	MPI_Comm_free(&c);
	if (nprocs >= 3) {
		if (MPIX_Comm_shrink(MPI_COMM_WORLD, &s) != MPI_SUCCESS)
			fail("shrink");
		MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
		if (myrank == nprocs - 2)
			die();
		expect(MPI_Barrier(s), MPIX_ERR_PROC_FAILED,
		    "a barrier the dead rank never entered");
		MPI_Comm_free(&s);
	}
	return finish();
}
