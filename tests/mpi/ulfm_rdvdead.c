/* SPDX-License-Identifier: ISC */
/*
 * ulfm_rdvdead: a large (rendezvous) send to a process that is gone
 * but not yet known dead fails as a process failure.  The last rank
 * dies after a barrier; rank 0, making no MPI progress meanwhile (so
 * no view has told it), waits until the process no longer exists
 * (kill(pid, 0) fails with ESRCH: its socket is closed), then starts
 * two sends larger than the eager limit to it: the request-to-send of
 * the second meets a connection the peer reset.  Both must end in
 * MPIX_ERR_PROC_FAILED, at the start or on completion, never in
 * another class (the ULFM project's buddycr saw MPI_ERR_OTHER from
 * MPI_Bcast here, 7 runs in 40 at 3 ranks, and its error handler
 * aborted).
 */
#define NAME "ulfm_rdvdead"
#include <errno.h>
#include <unistd.h>

#include "ulfm.h"

#define BIG	(1 << 20)

/* The class of a send started with rc, once complete. */
static int
outcome(int rc, MPI_Request *rq)
{
	int cls;

	if (rc == MPI_SUCCESS)
		rc = MPI_Wait(rq, MPI_STATUS_IGNORE);
	if (rc == MPI_SUCCESS)
		return MPI_SUCCESS;
	MPI_Error_class(rc, &cls);
	return cls;
}

int
main(int argc, char **argv)
{
	static char buf[BIG], rbuf[BIG];
	MPI_Request rq[2];
	int victim, pid = 0, rc[2], i;

	init(&argc, &argv);
	victim = nprocs - 1;
	if (myrank == victim) {
		pid = (int)getpid();
		MPI_Send(&pid, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		MPI_Recv(rbuf, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	} else if (myrank == 0) {
		MPI_Recv(&pid, 1, MPI_INT, victim, 1, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		/* The connection is up, both ways. */
		MPI_Send(buf, BIG, MPI_BYTE, victim, 2, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	if (myrank == 0) {
		while (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			;
		for (i = 0; i < 2; i++)
			rc[i] = MPI_Isend(buf, BIG, MPI_BYTE, victim, 3 + i,
			    MPI_COMM_WORLD, &rq[i]);
		for (i = 0; i < 2; i++)
			expect(outcome(rc[i], &rq[i]), MPIX_ERR_PROC_FAILED,
			    i == 0 ? "the first large send to the dead" :
			    "the second large send to the dead");
	}
	await_failures(MPI_COMM_WORLD, 1);
	return finish();
}
