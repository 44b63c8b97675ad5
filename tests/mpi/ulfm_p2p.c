/* SPDX-License-Identifier: ISC */
/*
 * ulfm_p2p: point-to-point with a dead process under ftrun --ft ulfm.
 * The last rank dies once every other rank has posted a receive from
 * it, a synchronous send to it and an ANY_SOURCE receive: each
 * completes with MPIX_ERR_PROC_FAILED, or for ANY_SOURCE with
 * MPIX_ERR_PROC_FAILED_PENDING, the request still pending, until the
 * failure is acknowledged; then a survivor's message completes it.
 * After the death, sends and receives naming it fail at once, a
 * blocking ANY_SOURCE receive fails, and the survivors still talk.
 */
#define NAME "ulfm_p2p"
#include "ulfm.h"

int
main(int argc, char **argv)
{
	MPI_Request rq[3];
	MPI_Status st;
	MPI_Group g, wg;
	int victim, x = 0, y = 7, big[20000], rc, n, i, r;

	init(&argc, &argv);
	victim = nprocs - 1;
	memset(big, 0, sizeof(big));
	if (myrank != victim) {
		MPI_Irecv(&x, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &rq[0]);
		MPI_Issend(&y, 1, MPI_INT, victim, 2, MPI_COMM_WORLD, &rq[1]);
		MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD,
		    &rq[2]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	/* During: requests pending when it died. */
	expect(MPI_Wait(&rq[0], &st), MPIX_ERR_PROC_FAILED,
	    "MPI_Wait on a receive from the dead rank");
	expect(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED,
	    "MPI_Wait on a synchronous send to the dead rank");
	rc = MPI_Wait(&rq[2], &st);
	expect(rc, MPIX_ERR_PROC_FAILED_PENDING,
	    "MPI_Wait on an ANY_SOURCE receive, failure not acknowledged");
	if (rq[2] == MPI_REQUEST_NULL)
		fail("the pending ANY_SOURCE request was freed");
	expect(st.MPI_ERROR, MPIX_ERR_PROC_FAILED_PENDING,
	    "the status of the pending receive");
	/* After: naming the dead rank fails at once. */
	expect(MPI_Send(&y, 1, MPI_INT, victim, 4, MPI_COMM_WORLD),
	    MPIX_ERR_PROC_FAILED, "MPI_Send to the dead rank");
	expect(MPI_Send(big, 20000, MPI_INT, victim, 4, MPI_COMM_WORLD),
	    MPIX_ERR_PROC_FAILED, "a rendezvous MPI_Send to the dead rank");
	expect(MPI_Recv(&x, 1, MPI_INT, victim, 4, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED,
	    "MPI_Recv from the dead rank");
	expect(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED,
	    "a blocking ANY_SOURCE receive, failure not acknowledged");
	expect(MPI_Probe(victim, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
	    MPIX_ERR_PROC_FAILED, "MPI_Probe of the dead rank");
	/* The failure as the queries see it. */
	if ((n = nfailed(MPI_COMM_WORLD)) != 1)
		fail("MPIX_Comm_get_failed has %d processes, not 1", n);
	MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	i = 0;
	MPI_Group_translate_ranks(g, 1, &i, wg, &r);
	if (r != victim)
		fail("the failed process is rank %d, not %d", r, victim);
	MPI_Group_free(&g);
	MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &g);
	MPI_Group_size(g, &n);
	if (n != 0)
		fail("%d failures acknowledged before any ack", n);
	MPI_Group_free(&g);
	expect(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 5, &n), MPI_SUCCESS,
	    "MPIX_Comm_ack_failed");
	if (n != 1)
		fail("MPIX_Comm_ack_failed acknowledged %d, not 1", n);
	MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &g);
	MPI_Group_size(g, &n);
	if (n != 1)
		fail("%d failures acknowledged, not 1", n);
	MPI_Group_free(&g);
	/* Acknowledged: the pending ANY_SOURCE receive completes.  No
	 * message for it leaves before every survivor saw it pending:
	 * the agreement is the survivors' barrier. */
	n = 1;
	expect(MPIX_Comm_agree(MPI_COMM_WORLD, &n), MPI_SUCCESS,
	    "agree among the survivors, the failure acknowledged");
	if (nprocs > 2) {
		y = 100 + myrank;
		r = (myrank + 1) % (nprocs - 1);
		MPI_Send(&y, 1, MPI_INT, r, 3, MPI_COMM_WORLD);
		expect(MPI_Wait(&rq[2], &st), MPI_SUCCESS,
		    "the ANY_SOURCE receive after the ack");
		r = (myrank + nprocs - 2) % (nprocs - 1);
		if (x != 100 + r || st.MPI_SOURCE != r)
			fail("got %d from %d, expected %d from %d", x,
			    st.MPI_SOURCE, 100 + r, r);
		/* A ring of the survivors still works. */
		for (i = 0; i < 10; i++) {
			y = i * 1000 + myrank;
			MPI_Sendrecv(&y, 1, MPI_INT, (myrank + 1) % (nprocs - 1),
			    6, &x, 1, MPI_INT, r, 6, MPI_COMM_WORLD, &st);
			if (x != i * 1000 + r)
				fail("ring step %d: got %d", i, x);
		}
	} else {
		MPI_Cancel(&rq[2]);
		MPI_Wait(&rq[2], MPI_STATUS_IGNORE);
	}
	return finish();
}
