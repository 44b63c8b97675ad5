/* SPDX-License-Identifier: ISC */
/*
 * ulfm_instatus: a call on many requests (Waitall, Testall, Waitsome)
 * in which a send to a dead process fails returns MPI_ERR_IN_STATUS,
 * the failed request's status holds MPIX_ERR_PROC_FAILED, and the
 * communicator's error handler is called with that request's own code
 * (class MPIX_ERR_PROC_FAILED), as Open MPI does: the ULFM project's
 * isend-err handler aborts on any other class, and aborted here when
 * it was handed MPI_ERR_IN_STATUS.
 */
#define NAME "ulfm_instatus"
#include "ulfm.h"

static int handed = -1, calls;

static void
record(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	MPI_Error_class(*code, &handed);
	calls++;
}

/* Check one call's outcome: rc, the statuses, what the handler got. */
static void
check(const char *call, int rc, const MPI_Status *st, int ndone)
{
	int cls, i;

	expect(rc, MPI_ERR_IN_STATUS, call);
	if (calls != 1 || handed != MPIX_ERR_PROC_FAILED)
		fail("%s: the handler ran %d times, last with class %d, "
		    "expected once with %d", call, calls, handed,
		    MPIX_ERR_PROC_FAILED);
	for (i = 0; i < ndone; i++) {
		MPI_Error_class(st[i].MPI_ERROR, &cls);
		if (cls != (i == 0 ? MPIX_ERR_PROC_FAILED : MPI_SUCCESS))
			fail("%s: status %d holds class %d", call, i, cls);
	}
	calls = 0;
	handed = -1;
}

int
main(int argc, char **argv)
{
	MPI_Errhandler eh;
	MPI_Request rq[3];
	MPI_Status st[3];
	MPI_Comm comm;
	int victim, out = 0, in = -1, flag = 0, n, idx[3], rc;

	init(&argc, &argv);
	victim = nprocs - 1;
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Comm_create_errhandler(record, &eh);
	MPI_Comm_set_errhandler(comm, eh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim)
		die();
	await_failures(MPI_COMM_WORLD, 1);
	if (myrank == 0) {
		/* A send to the dead first, then a send and a receive to
		 * and from this process, which succeed. */
		MPI_Isend(&out, 1, MPI_INT, victim, 1, comm, &rq[0]);
		MPI_Irecv(&in, 1, MPI_INT, 0, 2, comm, &rq[1]);
		MPI_Isend(&out, 1, MPI_INT, 0, 2, comm, &rq[2]);
		check("MPI_Waitall", MPI_Waitall(3, rq, st), st, 3);

		MPI_Isend(&out, 1, MPI_INT, victim, 3, comm, &rq[0]);
		MPI_Irecv(&in, 1, MPI_INT, 0, 4, comm, &rq[1]);
		MPI_Isend(&out, 1, MPI_INT, 0, 4, comm, &rq[2]);
		do
			rc = MPI_Testall(3, rq, &flag, st);
		while (rc == MPI_SUCCESS && !flag);
		check("MPI_Testall", rc, st, 3);

		MPI_Isend(&out, 1, MPI_INT, victim, 5, comm, &rq[0]);
		rc = MPI_Waitsome(1, rq, &n, idx, st);
		if (n != 1 || idx[0] != 0)
			fail("MPI_Waitsome: %d done, the first index %d", n,
			    idx[0]);
		check("MPI_Waitsome", rc, st, 1);
	}
	MPI_Comm_free(&comm);
	MPI_Errhandler_free(&eh);
	return finish();
}
