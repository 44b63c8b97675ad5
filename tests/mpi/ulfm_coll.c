/* SPDX-License-Identifier: ISC */
/*
 * ulfm_coll: collectives with a dead member under ftrun --ft ulfm.
 * During: the last rank dies on entering its 4th allreduce; the others
 * must not hang in it, and an agreement on "did mine succeed" says at
 * least one of them saw the error (an allreduce that ends once the
 * death is known may report it too, as ULFM allows).  After (the death known to all):
 * every collective fails with MPIX_ERR_PROC_FAILED at every survivor,
 * and nothing hangs.  Then the survivors shrink and the collectives
 * work again, with the right results.
 */
#define NAME "ulfm_coll"
#include "ulfm.h"

int
main(int argc, char **argv)
{
	MPI_Comm s;
	MPI_Request rq;
	int victim, i, rc, ok, in, out, n, *all, buf[4];

	init(&argc, &argv);
	victim = nprocs - 1;
	/* During. */
	ok = 1;
	for (i = 0; i < 6; i++) {
		if (myrank == victim && i == 3)
			die();
		in = 1;
		rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM,
		    MPI_COMM_WORLD);
		/* Those it completed before dying may still report the
		 * death, if it was known by the time they ended. */
		if (i < 3 && rc == MPI_SUCCESS && out != nprocs)
			fail("allreduce %d before the death gave %d", i, out);
		if (i < 3 && rc != MPI_SUCCESS)
			expect(rc, MPIX_ERR_PROC_FAILED, "allreduce before");
		if (i >= 3 && rc != MPI_SUCCESS) {
			expect(rc, MPIX_ERR_PROC_FAILED, "allreduce after");
			ok = 0;
		}
	}
	await_failures(MPI_COMM_WORLD, 1);
	MPIX_Comm_failure_ack(MPI_COMM_WORLD);
	rc = MPIX_Comm_agree(MPI_COMM_WORLD, &ok);
	expect(rc, MPI_SUCCESS, "agree on the outcome (failure acked)");
	if (ok)
		fail("no survivor saw the death in the allreduces");
	/* After: every collective fails everywhere. */
	all = calloc((size_t)nprocs * 4, sizeof(int));
	buf[0] = myrank;
	expect(MPI_Barrier(MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "barrier");
	expect(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD),
	    MPIX_ERR_PROC_FAILED, "bcast");
	expect(MPI_Reduce(buf, &out, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD),
	    MPIX_ERR_PROC_FAILED, "reduce");
	expect(MPI_Allgather(buf, 1, MPI_INT, all, 1, MPI_INT,
	    MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "allgather");
	expect(MPI_Gather(buf, 1, MPI_INT, all, 1, MPI_INT, 0,
	    MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "gather");
	expect(MPI_Scatter(all, 1, MPI_INT, buf, 1, MPI_INT, 0,
	    MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "scatter");
	expect(MPI_Alltoall(all, 1, MPI_INT, all + nprocs, 1, MPI_INT,
	    MPI_COMM_WORLD), MPIX_ERR_PROC_FAILED, "alltoall");
	expect(MPI_Scan(buf, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
	    MPIX_ERR_PROC_FAILED, "scan");
	MPI_Ibarrier(MPI_COMM_WORLD, &rq);
	expect(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED,
	    "ibarrier");
	/* Shrunk, it works again. */
	if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s)) != MPI_SUCCESS)
		fail("shrink returned %d", rc);
	MPI_Comm_size(s, &n);
	if (n != nprocs - 1)
		fail("the shrunk communicator has %d ranks, not %d", n,
		    nprocs - 1);
	in = myrank;
	rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, s);
	if (rc != MPI_SUCCESS || out != (nprocs - 1) * (nprocs - 2) / 2)
		fail("allreduce on the shrunk communicator: rc %d, %d", rc,
		    out);
	expect(MPI_Barrier(s), MPI_SUCCESS, "barrier on the shrunk one");
	buf[0] = myrank == 0 ? 42 : 0;
	expect(MPI_Bcast(buf, 1, MPI_INT, 0, s), MPI_SUCCESS, "bcast on it");
	if (buf[0] != 42)
		fail("bcast on the shrunk communicator gave %d", buf[0]);
	MPI_Comm_free(&s);
	free(all);
	return finish();
}
