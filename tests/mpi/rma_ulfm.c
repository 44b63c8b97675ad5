/* SPDX-License-Identifier: ISC */
/*
 * rma_ulfm: one-sided communication with a dead process under ftrun
 * --ft ulfm (ft-mpi(3), One-sided communication).  The last rank takes
 * an exclusive lock on rank 0's window and dies holding it, once every
 * rank has passed a barrier; the survivors wait until they know of the
 * failure.  Then the synchronization calls that need the dead rank fail
 * with MPIX_ERR_PROC_FAILED through the window's handler: a lock of it,
 * MPI_Win_lock_all, an unlock after a put to it, the completion of an
 * access epoch to it (its post never comes).  Rank 0 dropped the dead
 * rank's lock, so the survivors still count with MPI_Fetch_and_op
 * under exclusive locks on rank 0, exactly.  MPI_Win_free frees the
 * window on every survivor.
 */
#define NAME "rma_ulfm"
#include "ulfm.h"

#define ITERS	10

int
main(int argc, char **argv)
{
	MPI_Group world, gv;
	MPI_Win win;
	int *mem, victim, one = 1, old, rc, i, alive, v = 5;

	init(&argc, &argv);
	victim = nprocs - 1;
	alive = nprocs - 1;
	if (MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL,
	    MPI_COMM_WORLD, &mem, &win) != MPI_SUCCESS) {
		fail("MPI_Win_allocate failed");
		return finish();
	}
	memset(mem, 0, 16 * sizeof(int));
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &victim, &gv);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == victim) {
		/* Dies holding rank 0's lock. */
		if (MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) != MPI_SUCCESS)
			fail("the victim's lock failed");
		MPI_Barrier(MPI_COMM_WORLD);
		die();
	}
	MPI_Barrier(MPI_COMM_WORLD);
	await_failures(MPI_COMM_WORLD, 1);

	expect(MPI_Win_lock(MPI_LOCK_SHARED, victim, 0, win),
	    MPIX_ERR_PROC_FAILED, "MPI_Win_lock of the dead rank");
	expect(MPI_Win_lock_all(0, win), MPIX_ERR_PROC_FAILED,
	    "MPI_Win_lock_all with a dead rank");
	expect(MPI_Win_lock(MPI_LOCK_SHARED, victim, MPI_MODE_NOCHECK, win),
	    MPI_SUCCESS, "MPI_Win_lock NOCHECK of the dead rank");
	expect(MPI_Put(&v, 1, MPI_INT, victim, 0, 1, MPI_INT, win),
	    MPI_SUCCESS, "MPI_Put to the dead rank (reported later)");
	expect(MPI_Win_unlock(victim, win), MPIX_ERR_PROC_FAILED,
	    "MPI_Win_unlock after a put to the dead rank");
	expect(MPI_Win_start(gv, 0, win), MPI_SUCCESS, "MPI_Win_start");
	expect(MPI_Win_complete(win), MPIX_ERR_PROC_FAILED,
	    "MPI_Win_complete: the dead rank never posts");

	/* The survivors still count on rank 0, past the dead lock. */
	for (i = 0; i < ITERS; i++) {
		rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		expect(rc, MPI_SUCCESS, "MPI_Win_lock of rank 0");
		expect(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 1, MPI_SUM,
		    win), MPI_SUCCESS, "MPI_Fetch_and_op");
		expect(MPI_Win_unlock(0, win), MPI_SUCCESS,
		    "MPI_Win_unlock of rank 0");
		if (old < 0 || old >= ITERS * alive)
			fail("fetched %d, out of 0..%d", old, ITERS * alive - 1);
	}
	{
		MPI_Comm live;

		MPIX_Comm_shrink(MPI_COMM_WORLD, &live);
		MPI_Barrier(live);
		MPI_Comm_free(&live);
	}
	if (myrank == 0 && mem[1] != ITERS * alive)
		fail("counter %d, want %d", mem[1], ITERS * alive);
	rc = MPI_Win_free(&win);
	if (rc != MPI_SUCCESS)
		expect(rc, MPIX_ERR_PROC_FAILED, "MPI_Win_free");
	if (win != MPI_WIN_NULL)
		fail("MPI_Win_free left the window");
	MPI_Group_free(&gv);
	MPI_Group_free(&world);
	return finish();
}
