/* SPDX-License-Identifier: ISC */
/*
 * ulfm_revoke: MPIX_Comm_revoke under ftrun --ft ulfm.  Every rank but
 * one blocks in a receive on a duplicate of MPI_COMM_WORLD that nobody
 * will match; the last rank revokes it: every receive completes with
 * MPIX_ERR_REVOKED, later point-to-point, collectives and
 * communicator creation on it fail with MPIX_ERR_REVOKED, it reads as
 * revoked, and agree and shrink still work on it.  Then the initiator
 * of a second revoke dies right after calling it, while the others
 * wait in ANY_SOURCE receives: none hangs (the revoke, or the death,
 * releases them).  Last, a revoke races MPI_Comm_dup: every dup ends,
 * with success or MPIX_ERR_REVOKED.
 */
#define NAME "ulfm_revoke"
#include "ulfm.h"

int
main(int argc, char **argv)
{
	MPI_Comm c, d, s;
	int x = 0, flag, rc, n;

	init(&argc, &argv);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	if (myrank == nprocs - 1) {
		MPI_Barrier(MPI_COMM_WORLD);
		expect(MPIX_Comm_revoke(c), MPI_SUCCESS, "revoke");
	} else {
		MPI_Request rq;

		MPI_Irecv(&x, 1, MPI_INT, nprocs - 1, 9, c, &rq);
		MPI_Barrier(MPI_COMM_WORLD);
		expect(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 8, c,
		    MPI_STATUS_IGNORE), MPIX_ERR_REVOKED,
		    "a receive blocked when the revoke came");
		expect(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPIX_ERR_REVOKED,
		    "a pending receive on the revoked communicator");
	}
	expect(MPIX_Comm_is_revoked(c, &flag), MPI_SUCCESS, "is_revoked");
	if (!flag)
		fail("the communicator does not read as revoked");
	expect(MPI_Send(&x, 1, MPI_INT, 0, 1, c), MPIX_ERR_REVOKED,
	    "a send on the revoked communicator");
	expect(MPI_Barrier(c), MPIX_ERR_REVOKED, "a barrier on it");
	expect(MPI_Comm_dup(c, &d), MPIX_ERR_REVOKED, "MPI_Comm_dup of it");
	flag = 1;
	expect(MPIX_Comm_agree(c, &flag), MPI_SUCCESS, "agree on it");
	expect(MPIX_Comm_shrink(c, &s), MPI_SUCCESS, "shrink of it");
	MPI_Comm_size(s, &n);
	if (n != nprocs)
		fail("shrink of a revoked communicator: %d ranks", n);
	expect(MPI_Barrier(s), MPI_SUCCESS, "barrier on the shrunk one");
	MPI_Comm_free(&s);
	MPI_Comm_free(&c);

	/* The initiator dies right after revoking. */
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == nprocs - 1) {
		MPIX_Comm_revoke(c);
		die();
	}
	rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 8, c, MPI_STATUS_IGNORE);
	MPI_Error_class(rc, &rc);
	if (rc != MPIX_ERR_REVOKED && rc != MPIX_ERR_PROC_FAILED)
		fail("a receive when the revoker died: class %d", rc);
	MPI_Comm_free(&c);

	/* A revoke races a communicator's creation. */
	if (nprocs > 2) {
		/* Among the survivors. */
		expect(MPIX_Comm_shrink(MPI_COMM_WORLD, &s), MPI_SUCCESS,
		    "shrink of the world");
		expect(MPI_Comm_dup(s, &c), MPI_SUCCESS, "dup of the survivors");
		MPI_Comm_free(&s);
		MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
		if (myrank == 1)
			MPIX_Comm_revoke(c);
		rc = MPI_Comm_dup(c, &d);
		if (rc == MPI_SUCCESS)
			MPI_Comm_free(&d);
		else
			expect(rc, MPIX_ERR_REVOKED, "dup racing the revoke");
		MPI_Comm_free(&c);
	}
	return finish();
}
