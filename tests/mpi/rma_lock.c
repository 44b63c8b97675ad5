/* SPDX-License-Identifier: ISC */
/*
 * rma_lock: passive-target one-sided communication (MPI-3.1 11.5.3,
 * 11.5.4).  Every rank adds to a counter on rank 0 with
 * MPI_Fetch_and_op under an exclusive lock, ITERS times, and each value
 * it fetched must be distinct: the final count is exact.  A mutex made
 * of MPI_Compare_and_swap guards a read-modify-write of a plain word
 * done with MPI_Get and MPI_Put under shared locks.  MPI_Win_lock_all
 * with MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate and
 * the flushes; MPI_MODE_NOCHECK.  Rank 0 spins in MPI_Win_lock too, so
 * a target inside MPI serves the others while it waits.
 */
#define NAME	"rma_lock"
#include "mtest.h"

#define ITERS	25

int
main(int argc, char **argv)
{
	MPI_Win win;
	int *mem, i, k, one = 1, old, *seen, zero = 0, me1, got;
	MPI_Request rq[4];
	int vals[4], res[4];

	init(&argc, &argv);
	ok(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL,
	    MPI_COMM_WORLD, &mem, &win), "Win_allocate");
	memset(mem, 0, 64 * sizeof(int));
	MPI_Barrier(MPI_COMM_WORLD);

	/* Exclusive counters: every fetched value distinct. */
	seen = xzalloc(ITERS * nprocs * sizeof(int));
	for (i = 0; i < ITERS; i++) {
		ok(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win), "Win_lock");
		ok(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win),
		    "Fetch_and_op");
		ok(MPI_Win_unlock(0, win), "Win_unlock");
		if (old < 0 || old >= ITERS * nprocs)
			fail("fetched %d, out of 0..%d", old,
			    ITERS * nprocs - 1);
		else
			seen[old] = 1;
	}
	MPI_Allreduce(MPI_IN_PLACE, seen, ITERS * nprocs, MPI_INT, MPI_SUM,
	    MPI_COMM_WORLD);
	for (i = 0; i < ITERS * nprocs; i++)
		if (seen[i] != 1)
			fail("value %d was fetched %d times", i, seen[i]);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0 && mem[0] != ITERS * nprocs)
		fail("counter: %d, want %d", mem[0], ITERS * nprocs);

	/* A CAS mutex at mem[1] (0: free) guarding mem[2]. */
	me1 = myrank + 1;
	for (i = 0; i < ITERS; i++) {
		do {
			ok(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win),
			    "Win_lock shared");
			ok(MPI_Compare_and_swap(&me1, &zero, &old, MPI_INT, 0,
			    1, win), "Compare_and_swap");
			ok(MPI_Win_unlock(0, win), "Win_unlock shared");
		} while (old != 0);
		ok(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), "Win_lock (rmw)");
		ok(MPI_Get(&got, 1, MPI_INT, 0, 2, 1, MPI_INT, win), "Get");
		ok(MPI_Win_flush(0, win), "Win_flush");
		got++;
		ok(MPI_Put(&got, 1, MPI_INT, 0, 2, 1, MPI_INT, win), "Put");
		ok(MPI_Win_flush(0, win), "Win_flush (put)");
		/* Release: swap our id back to 0. */
		ok(MPI_Compare_and_swap(&zero, &me1, &old, MPI_INT, 0, 1,
		    win), "Compare_and_swap (release)");
		ok(MPI_Win_unlock(0, win), "Win_unlock (rmw)");
		if (old != me1)
			fail("the mutex held %d, not us (%d)", old, me1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0 && mem[2] != ITERS * nprocs)
		fail("guarded word: %d, want %d", mem[2], ITERS * nprocs);

	/* lock_all and the request-based calls, to every rank. */
	ok(MPI_Win_lock_all(0, win), "Win_lock_all");
	for (k = 0; k < nprocs; k++) {
		vals[0] = myrank * 100 + k;
		ok(MPI_Rput(&vals[0], 1, MPI_INT, k, 10 + myrank, 1, MPI_INT,
		    win, &rq[0]), "Rput");
		ok(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), "Wait Rput");
		vals[1] = 1;
		ok(MPI_Raccumulate(&vals[1], 1, MPI_INT, k, 9, 1, MPI_INT,
		    MPI_SUM, win, &rq[1]), "Raccumulate");
		ok(MPI_Wait(&rq[1], MPI_STATUS_IGNORE), "Wait Raccumulate");
		ok(MPI_Win_flush(k, win), "Win_flush");
		res[0] = -1;
		ok(MPI_Rget(&res[0], 1, MPI_INT, k, 10 + myrank, 1, MPI_INT,
		    win, &rq[2]), "Rget");
		ok(MPI_Wait(&rq[2], MPI_STATUS_IGNORE), "Wait Rget");
		if (res[0] != myrank * 100 + k)
			fail("Rget from %d: %d, want %d", k, res[0],
			    myrank * 100 + k);
		vals[2] = 7;
		res[1] = -1;
		ok(MPI_Rget_accumulate(&vals[2], 1, MPI_INT, &res[1], 1,
		    MPI_INT, k, 40 + myrank, 1, MPI_INT, MPI_REPLACE, win,
		    &rq[3]), "Rget_accumulate");
		ok(MPI_Wait(&rq[3], MPI_STATUS_IGNORE), "Wait Rget_accumulate");
		if (res[1] != 0)
			fail("Rget_accumulate from %d: %d, want 0", k, res[1]);
	}
	ok(MPI_Win_flush_all(win), "Win_flush_all");
	ok(MPI_Win_flush_local_all(win), "Win_flush_local_all");
	ok(MPI_Win_unlock_all(win), "Win_unlock_all");
	MPI_Barrier(MPI_COMM_WORLD);
	for (k = 0; k < nprocs; k++) {
		if (mem[10 + k] != k * 100 + myrank)
			fail("mem[%d] = %d, want %d", 10 + k, mem[10 + k],
			    k * 100 + myrank);
		if (mem[40 + k] != 7)
			fail("mem[%d] = %d, want 7", 40 + k, mem[40 + k]);
	}
	if (mem[9] != nprocs)
		fail("Raccumulate count %d, want %d", mem[9], nprocs);

	/* NOCHECK: the application knows nobody else is there. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 1) {
		vals[3] = 4242;
		ok(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, MPI_MODE_NOCHECK, win),
		    "Win_lock NOCHECK");
		ok(MPI_Put(&vals[3], 1, MPI_INT, 0, 60, 1, MPI_INT, win),
		    "Put NOCHECK");
		ok(MPI_Win_unlock(0, win), "Win_unlock NOCHECK");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0 && nprocs > 1 && mem[60] != 4242)
		fail("NOCHECK put: %d, want 4242", mem[60]);
	ok(MPI_Win_free(&win), "Win_free");
	free(seen);
	return finish();
}
