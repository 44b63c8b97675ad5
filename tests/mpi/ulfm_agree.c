/* SPDX-License-Identifier: ISC */
/*
 * ulfm_agree: agreement and shrink when processes die during them,
 * under ftrun --ft ulfm.  First the coordinator of an agreement (the
 * lowest member of a communicator whose member 0 is the last world
 * rank) joins it with MPIX_Comm_iagree and dies at once; every
 * survivor must decide the same flag and return code, the flag being
 * the AND of at least every survivor's (each clears its own bit).
 * Then two more processes (one with 4 ranks) start MPIX_Comm_ishrink
 * and die: the survivors' shrinks are the same size everywhere, and
 * shrinking again until a collective succeeds ends with exactly the
 * survivors.  An agreement with no failure gives the plain AND.
 */
#define NAME "ulfm_agree"
#include "ulfm.h"

/* Is v the same at every member of comm?  (comm must work.) */
static int
same(MPI_Comm comm, int v)
{
	int mm[2] = { v, -v }, r[2];

	if (MPI_Allreduce(mm, r, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
		return -1;
	return r[0] == -r[1];
}

int
main(int argc, char **argv)
{
	MPI_Comm c, s, t;
	MPI_Request rq;
	int flag, rc, n, alive, i, bit, dead;

	init(&argc, &argv);
	bit = 1 << (myrank % 30);
	/* No failure: the AND of all. */
	flag = ~bit;
	expect(MPIX_Comm_agree(MPI_COMM_WORLD, &flag), MPI_SUCCESS,
	    "agree without failure");
	for (i = 0; i < nprocs; i++)
		if (flag & (1 << (i % 30)))
			fail("agree without failure: bit of rank %d set", i);
	/* The coordinator dies in the agreement. */
	MPI_Comm_split(MPI_COMM_WORLD, 0, nprocs - myrank, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	flag = ~bit;
	if (myrank == nprocs - 1) {
		MPIX_Comm_iagree(c, &flag, &rq);
		die();
	}
	rc = MPIX_Comm_agree(c, &flag);
	if (rc != MPI_SUCCESS)
		expect(rc, MPIX_ERR_PROC_FAILED, "agree, coordinator dead");
	if (flag & bit)
		fail("my flag is not in the agreed AND (%#x)", flag);
	dead = 1;
	/* Several die in the shrink. */
	if (myrank >= nprocs - (nprocs >= 5 ? 3 : 2) && myrank < nprocs - 1) {
		MPIX_Comm_ishrink(c, &s, &rq);
		die();
	}
	dead += nprocs >= 5 ? 2 : 1;
	if ((rc = MPIX_Comm_shrink(c, &s)) != MPI_SUCCESS)
		fail("shrink returned %d", rc);
	MPI_Comm_size(s, &n);
	MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
	/* Until a collective works: then s holds just the survivors. */
	for (i = 0; i < nprocs && MPI_Barrier(s) != MPI_SUCCESS; i++) {
		if (MPIX_Comm_shrink(s, &t) != MPI_SUCCESS)
			fail("a further shrink failed");
		MPI_Comm_free(&s);
		s = t;
		MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
	}
	MPI_Comm_size(s, &alive);
	if (alive != nprocs - dead)
		fail("%d survivors in the end, not %d", alive, nprocs - dead);
	if (same(s, flag) != 1)
		fail("survivors decided different flags");
	if (same(s, rc) != 1)
		fail("survivors' agreements returned different codes");
	if (same(s, n) != 1)
		fail("survivors' first shrinks differ in size");
	MPI_Comm_free(&s);
	MPI_Comm_free(&c);
	return finish();
}
