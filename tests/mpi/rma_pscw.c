/* SPDX-License-Identifier: ISC */
/*
 * rma_pscw: general active-target synchronization (MPI-3.1 11.5.2).
 * Each rank exposes its window to its left neighbour and accesses its
 * right one (MPI_Win_post, _start, _complete, _wait), several rounds,
 * each round's values checked after MPI_Win_wait; then rank 0 alone
 * exposes to every other rank, which accumulates into it, and rank 0
 * polls with MPI_Win_test.  Ranks outside a group take no part.
 */
#define NAME	"rma_pscw"
#include "mtest.h"

#define ROUNDS	5

int
main(int argc, char **argv)
{
	MPI_Group world, gl, gr, others, g0;
	MPI_Win win;
	int *mem, r, left, right, v, flag, zero = 0, *ranks, i;

	init(&argc, &argv);
	left = (myrank + nprocs - 1) % nprocs;
	right = (myrank + 1) % nprocs;
	ok(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL,
	    MPI_COMM_WORLD, &mem, &win), "Win_allocate");
	memset(mem, 0, 8 * sizeof(int));
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &left, &gl);
	MPI_Group_incl(world, 1, &right, &gr);
	MPI_Group_incl(world, 1, &zero, &g0);
	ranks = xzalloc(nprocs * sizeof(int));
	for (i = 1; i < nprocs; i++)
		ranks[i - 1] = i;
	MPI_Group_incl(world, nprocs - 1, ranks, &others);
	MPI_Barrier(MPI_COMM_WORLD);
	for (r = 0; r < ROUNDS; r++) {
		ok(MPI_Win_post(gl, 0, win), "Win_post");
		ok(MPI_Win_start(gr, 0, win), "Win_start");
		v = myrank * 10 + r;
		ok(MPI_Put(&v, 1, MPI_INT, right, r % 8, 1, MPI_INT, win),
		    "Put");
		ok(MPI_Win_complete(win), "Win_complete");
		ok(MPI_Win_wait(win), "Win_wait");
		if (mem[r % 8] != left * 10 + r)
			fail("round %d: %d, want %d", r, mem[r % 8],
			    left * 10 + r);
	}
	/* Rank 0 exposes to all others; they add their ranks. */
	mem[7] = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0 && nprocs > 1) {
		ok(MPI_Win_post(others, 0, win), "Win_post");
		flag = 0;
		while (!flag)
			ok(MPI_Win_test(win, &flag), "Win_test");
		if (mem[7] != nprocs * (nprocs - 1) / 2)
			fail("sum of ranks: %d, want %d", mem[7],
			    nprocs * (nprocs - 1) / 2);
	} else if (myrank != 0) {
		ok(MPI_Win_start(g0, 0, win), "Win_start (to 0)");
		ok(MPI_Accumulate(&myrank, 1, MPI_INT, 0, 7, 1, MPI_INT,
		    MPI_SUM, win), "Accumulate");
		ok(MPI_Win_complete(win), "Win_complete (to 0)");
	}
	ok(MPI_Win_free(&win), "Win_free");
	MPI_Group_free(&gl);
	MPI_Group_free(&gr);
	MPI_Group_free(&g0);
	MPI_Group_free(&others);
	MPI_Group_free(&world);
	free(ranks);
	return finish();
}
