/* SPDX-License-Identifier: ISC */
/*
 * ulfm_respawn: ULFM's replace-and-go-on recovery (the ULFM project's
 * tutorials and revshrinkkillrecover): the survivors shrink, spawn as
 * many new processes as died, and merge them in, so that the world
 * keeps its size.  Under ftrun --ft ulfm, 3 or more ranks, and a
 * universe with room for three new processes.  Three rounds, one
 * death each, tied to the round:
 *  0. the last rank, an original process, dies;
 *  1. rank 1, an original process, dies: the process spawned in round
 *     0 learns of a death in a world it did not start in;
 *  2. the process spawned in round 0 dies: spawned processes recover
 *     beside the others.
 * Each round begins with every member checking the world's size and
 * that the ranks sum as they should (an allreduce); the round's victim
 * dies once every other member has told it it is through (so that no
 * collective is cut short: ULFM lets one fail at some members and not
 * others).  A spawned process counts its errors with the rest.
 */
#define NAME "ulfm_respawn"
#include "ulfm.h"
#include "respawn.h"

#define ROUNDS	3

/* The world rank that dies in round r of a world of n. */
static int
victim(int r, int n)
{
	return r == 0 ? n - 1 : r == 1 ? 1 : n - 2;
}

/* The world has n members, ranked 0..n-1. */
static void
check(MPI_Comm w, int n, int r)
{
	int size, rank, sum = -1, rc;

	MPI_Comm_size(w, &size);
	MPI_Comm_rank(w, &rank);
	if (size != n)
		fail("round %d: the world has %d members, not %d", r, size, n);
	if ((rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, w)) !=
	    MPI_SUCCESS)
		fail("round %d: allreduce returned %d", r, rc);
	else if (sum != n * (n - 1) / 2)
		fail("round %d: the ranks sum to %d, not %d", r, sum,
		    n * (n - 1) / 2);
}

int
main(int argc, char **argv)
{
	MPI_Comm w;
	int r, n;

	MPI_Init(&argc, &argv);
	r = respawn_join(argc, argv, ROUNDS, &w);
	MPI_Comm_size(w, &n);
	if (n < 3) {
		if (myrank == 0)
			printf("ulfm_respawn needs 3 or more ranks\n");
		MPI_Finalize();
		return 1;
	}
	for (; r < ROUNDS; r++) {
		check(w, n, r);
		respawn_round(&w, r, n, victim(r, n));
	}
	check(w, n, ROUNDS);
	return respawn_finish(w);
}
