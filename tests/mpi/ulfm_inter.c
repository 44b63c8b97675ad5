/* SPDX-License-Identifier: ISC */
/*
 * ulfm_inter: an ANY_SOURCE receive on an intercommunicator sees the
 * failures of the remote group.  The world splits in two halves joined
 * by an intercommunicator; the last rank, in the second half, dies
 * once the first half has posted an ANY_SOURCE receive on it.  In the
 * first half that receive returns MPIX_ERR_PROC_FAILED_PENDING and
 * stays pending, a blocking one and a probe fail, and once the failure is
 * acknowledged a message from the remote leader completes it.
 */
#define NAME "ulfm_inter"
#include "ulfm.h"

int
main(int argc, char **argv)
{
	MPI_Comm half, ic;
	MPI_Request rq;
	MPI_Status st;
	int h, low, victim, x = 0, y, i, n, rc;

	init(&argc, &argv);
	h = nprocs / 2;
	low = myrank < h;
	victim = nprocs - 1;
	MPI_Comm_split(MPI_COMM_WORLD, low, myrank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? h : 0, 9, &ic);
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	if (low)
		MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, ic, &rq);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	if (low) {
		rc = MPI_Wait(&rq, &st);
		expect(rc, MPIX_ERR_PROC_FAILED_PENDING, "MPI_Wait on an "
		    "ANY_SOURCE receive on the intercommunicator, a remote "
		    "failure not acknowledged");
		if (rq == MPI_REQUEST_NULL)
			fail("the pending ANY_SOURCE request was freed");
		expect(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 4, ic,
		    MPI_STATUS_IGNORE), MPIX_ERR_PROC_FAILED,
		    "a blocking ANY_SOURCE receive on the intercommunicator");
		expect(MPI_Probe(MPI_ANY_SOURCE, 4, ic, MPI_STATUS_IGNORE),
		    MPIX_ERR_PROC_FAILED,
		    "MPI_Probe of ANY_SOURCE on the intercommunicator");
		if ((n = nfailed(ic)) != 1)
			fail("MPIX_Comm_get_failed of the intercommunicator "
			    "has %d processes, not 1", n);
		expect(MPIX_Comm_failure_ack(ic), MPI_SUCCESS,
		    "MPIX_Comm_failure_ack of the intercommunicator");
	} else
		await_failures(MPI_COMM_WORLD, 1);
	/* The survivors' barrier: no message before every ack. */
	n = 1;
	(void)MPIX_Comm_agree(MPI_COMM_WORLD, &n);
	if (!low && myrank == h && h != victim)
		for (i = 0; i < h; i++) {
			y = 500 + i;
			MPI_Send(&y, 1, MPI_INT, i, 3, ic);
		}
	if (low && h != victim) {
		expect(MPI_Wait(&rq, &st), MPI_SUCCESS,
		    "the ANY_SOURCE receive after the ack");
		if (x != 500 + myrank || st.MPI_SOURCE != 0)
			fail("got %d from remote %d, expected %d from 0", x,
			    st.MPI_SOURCE, 500 + myrank);
	} else if (low) {
		MPI_Cancel(&rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	return finish();
}
