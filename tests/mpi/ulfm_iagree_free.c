/* SPDX-License-Identifier: ISC */
/*
 * ulfm_iagree_free: MPI_Request_free of an MPIX_Comm_iagree that has
 * not completed returns at once, and the agreement still goes on for
 * the others.  Rank 0 starts an iagree and frees it before rank 1 can
 * have joined (rank 1 joins only after a message that rank 0 sends
 * after the free), then every rank frees many iagrees, and the
 * agreements after them still give the AND of the flags, with and
 * without a dead process.
 */
#define NAME "ulfm_iagree_free"
#include "ulfm.h"

int
main(int argc, char **argv)
{
	MPI_Request rq;
	int flag, x = 0, i, victim;

	init(&argc, &argv);
	victim = nprocs - 1;
	if (myrank == 0) {
		flag = 1;
		expect(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &rq),
		    MPI_SUCCESS, "MPIX_Comm_iagree");
		expect(MPI_Request_free(&rq), MPI_SUCCESS,
		    "MPI_Request_free of an iagree not complete");
		if (rq != MPI_REQUEST_NULL)
			fail("the freed request is not MPI_REQUEST_NULL");
		MPI_Send(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
	} else {
		if (myrank == 1)
			MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		flag = 1;
		MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &rq);
		MPI_Request_free(&rq);
	}
	for (i = 0; i < 200; i++) {
		flag = 1;
		MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &rq);
		MPI_Request_free(&rq);
	}
	flag = ~(1 << myrank);
	expect(MPIX_Comm_agree(MPI_COMM_WORLD, &flag), MPI_SUCCESS,
	    "MPIX_Comm_agree after the freed ones");
	if (flag != ~((1 << nprocs) - 1))
		fail("agree gave %#x, not %#x", flag, ~((1 << nprocs) - 1));
	/* Again with a process dead. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	flag = 1;
	MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &rq);
	MPI_Request_free(&rq);
	flag = ~(1 << myrank);
	(void)MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
	if ((flag & ((1 << victim) - 1)) != 0)
		fail("agree after a death gave %#x: a survivor's bit is set",
		    flag);
	return finish();
}
