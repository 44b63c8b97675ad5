/* SPDX-License-Identifier: ISC */
/*
 * ulfm_interagree: MPIX_Comm_agree, _iagree and _shrink on an
 * intercommunicator.  The world splits in two halves joined by an
 * intercommunicator.  World rank r contributes a flag with bit r clear
 * (and, to iagree, bit 20 + r clear), so each side can check that it
 * got the AND over the other group's contributions, not its own.  Then
 * the second group's leader (world rank nprocs / 2) dies once every
 * process has passed a barrier: the next agreement on the
 * intercommunicator must raise MPIX_ERR_PROC_FAILED at every survivor
 * of both groups; after MPIX_Comm_failure_ack it succeeds, without the
 * dead one's bit.  The intercommunicator is shrunk: the survivors of
 * both groups, which agree, reduce across it, shrink it again with
 * MPIX_Comm_ishrink, and see it revoked by one of them (and not a
 * communicator with the id two above its own, which a shrunk
 * intercommunicator does not own).  Last, the whole second group dies:
 * a shrink has no intercommunicator to make, and says so at every
 * survivor (MPIX_ERR_PROC_FAILED).
 */
#define NAME "ulfm_interagree"
#include "ulfm.h"

/* The flag of the processes of world ranks lo .. hi - 1, ANDed. */
static int
want(int lo, int hi, int shift, int skip)
{
	unsigned int f = ~0u;
	int r;

	for (r = lo; r < hi; r++)
		if (r != skip)
			f &= ~(1u << (r + shift));
	return (int)f;
}

/* An agreement on comm after the victim's death, acknowledged. */
static void
agree_after(MPI_Comm comm, int low, int h, int victim, const char *what)
{
	int flag = (int)~(1u << myrank), w, rc;

	rc = MPIX_Comm_agree(comm, &flag);
	w = low ? want(h, nprocs, 0, victim) : want(0, h, 0, -1);
	if (rc != MPI_SUCCESS || flag != w)
		fail("MPIX_Comm_agree on %s returned %d and %#x, expected "
		    "0 and %#x", what, rc, (unsigned)flag, (unsigned)w);
}

int
main(int argc, char **argv)
{
	MPI_Comm half, ic, nic, nic2, sc;
	MPI_Request rq;
	int h, low, victim, flag, w, rc, n, sum, wsum, r, size, rsize, inter;

	init(&argc, &argv);
	if (nprocs < 3) {
		fail("needs 3 ranks or more");
		return finish();
	}
	h = nprocs / 2;
	low = myrank < h;
	/* The second group's leader (its rank 0): no leader speaks for
	 * a group in the agreement. */
	victim = h;
	MPI_Comm_split(MPI_COMM_WORLD, low, myrank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? h : 0, 9, &ic);
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);

	/* Each side gets the other's AND. */
	flag = (int)~(1u << myrank);
	expect(MPIX_Comm_agree(ic, &flag), MPI_SUCCESS,
	    "MPIX_Comm_agree on the intercommunicator");
	w = low ? want(h, nprocs, 0, -1) : want(0, h, 0, -1);
	if (flag != w)
		fail("agree gave %#x, expected the remote group's %#x",
		    (unsigned)flag, (unsigned)w);
	flag = (int)~(1u << (myrank + 20));
	expect(MPIX_Comm_iagree(ic, &flag, &rq), MPI_SUCCESS,
	    "MPIX_Comm_iagree on the intercommunicator");
	expect(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS,
	    "MPI_Wait of the iagree");
	w = low ? want(h, nprocs, 20, -1) : want(0, h, 20, -1);
	if (flag != w)
		fail("iagree gave %#x, expected the remote group's %#x",
		    (unsigned)flag, (unsigned)w);

	/* A death in the second group: an error at every survivor. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	flag = (int)~(1u << myrank);
	expect(MPIX_Comm_agree(ic, &flag), MPIX_ERR_PROC_FAILED,
	    "MPIX_Comm_agree on the intercommunicator after a death");
	if ((n = nfailed(ic)) != 1)
		fail("after the agreement MPIX_Comm_get_failed of the "
		    "intercommunicator has %d processes, not 1", n);
	expect(MPIX_Comm_failure_ack(ic), MPI_SUCCESS,
	    "MPIX_Comm_failure_ack of the intercommunicator");
	agree_after(ic, low, h, victim, "the intercommunicator after the ack");

	/*
	 * Shrink: the survivors of both groups.  Rank 0 has drawn two own
	 * context indices (idup) before it, so its index (2 U, U the
	 * universe size) wins the shrink's: nic's id is that of index
	 * 2 U, and rank 1's next own index, 2 U + 1, names the id two
	 * above: an MPI_Comm_idup of MPI_COMM_SELF there must not be
	 * revoked with nic (whose hidden ids are elsewhere).
	 */
	if (myrank == 0)
		for (r = 0; r < 2; r++) {
			MPI_Comm_idup(MPI_COMM_SELF, &sc, &rq);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			MPI_Comm_free(&sc);
		}
	rc = MPIX_Comm_shrink(ic, &nic);
	expect(rc, MPI_SUCCESS, "MPIX_Comm_shrink of the intercommunicator");
	if (rc != MPI_SUCCESS)
		return finish();
	MPI_Comm_set_errhandler(nic, MPI_ERRORS_RETURN);
	sc = MPI_COMM_NULL;
	if (myrank == 1) {
		MPI_Comm_idup(MPI_COMM_SELF, &sc, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		MPI_Comm_set_errhandler(sc, MPI_ERRORS_RETURN);
	}
	MPI_Comm_test_inter(nic, &inter);
	MPI_Comm_size(nic, &size);
	MPI_Comm_remote_size(nic, &rsize);
	if (!inter || size != (low ? h : nprocs - h - 1) ||
	    rsize != (low ? nprocs - h - 1 : h))
		fail("the shrunk communicator: inter %d, sizes %d and %d",
		    inter, size, rsize);
	MPI_Comm_rank(nic, &r);
	if (r != (low ? myrank : myrank - h - 1))
		fail("rank %d in the shrunk intercommunicator", r);
	if (nfailed(nic) != 0)
		fail("the shrunk intercommunicator has failed members");
	rc = MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, nic);
	wsum = 0;
	for (r = low ? h + 1 : 0; r < (low ? nprocs : h); r++)
		wsum += r;
	expect(rc, MPI_SUCCESS, "MPI_Allreduce on the shrunk "
	    "intercommunicator");
	if (rc == MPI_SUCCESS && sum != wsum)
		fail("MPI_Allreduce across the shrunk intercommunicator "
		    "gave %d, expected %d", sum, wsum);
	agree_after(nic, low, h, victim, "the shrunk intercommunicator");

	/* MPIX_Comm_ishrink with no new failure: the same two groups. */
	expect(MPIX_Comm_ishrink(nic, &nic2, &rq), MPI_SUCCESS,
	    "MPIX_Comm_ishrink of the shrunk intercommunicator");
	expect(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS,
	    "MPI_Wait of the ishrink");
	MPI_Comm_size(nic2, &r);
	MPI_Comm_remote_size(nic2, &n);
	if (r != size || n != rsize)
		fail("the ishrunk intercommunicator has sizes %d and %d", r, n);
	rc = MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, nic2);
	if (rc != MPI_SUCCESS || sum != wsum)
		fail("MPI_Allreduce across the ishrunk intercommunicator "
		    "returned %d and %d, expected %d", rc, sum, wsum);
	MPI_Comm_free(&nic2);

	/* A revoke reaches both groups: the barrier fails everywhere. */
	if (myrank == 0)
		expect(MPIX_Comm_revoke(nic), MPI_SUCCESS,
		    "MPIX_Comm_revoke of the shrunk intercommunicator");
	expect(MPI_Barrier(nic), MPIX_ERR_REVOKED,
	    "MPI_Barrier on the revoked shrunk intercommunicator");
	if (sc != MPI_COMM_NULL) {
		MPIX_Comm_is_revoked(sc, &flag);
		if (flag)
			fail("revoking the shrunk intercommunicator revoked "
			    "another communicator");
		expect(MPI_Barrier(sc), MPI_SUCCESS, "MPI_Barrier on a "
		    "communicator that has the id after the shrunk one's");
		MPI_Comm_free(&sc);
	}

	/* The whole second group dies: no intercommunicator to shrink to. */
	if (!low)
		die();
	nic2 = MPI_COMM_NULL;
	expect(MPIX_Comm_shrink(nic, &nic2), MPIX_ERR_PROC_FAILED,
	    "MPIX_Comm_shrink of an intercommunicator whose remote group "
	    "is all dead");
	if (nic2 != MPI_COMM_NULL)
		fail("that shrink set newcomm");
	MPI_Comm_free(&nic);
	MPI_Comm_free(&ic);
	MPI_Comm_free(&half);
	return finish();
}
