/* SPDX-License-Identifier: ISC */
/*
 * ulfm_respawn_many: a job that replaces its dead forever
 * (revshrinkkillrecover's loop) goes on past its universe size, which
 * bounds the processes alive at once, not the processes started.  Under
 * ftrun --ft ulfm with a universe of twice the ranks or less: 40
 * rounds, one death each (world rank 1 + r mod (n - 1): original and
 * spawned processes in turn), each followed by a shrink, a spawn of one
 * process by all the survivors, spawned ones too, and a merge, so that
 * the job starts n + 40 processes.  Every round checks the world's size
 * and ranks (an allreduce over an MPI_Comm_idup of it, and one across
 * a shrunk intercommunicator of its halves); the context ids of the
 * shrinks and duplicates come from the processes past the universe,
 * from their own blocks.  A round's victim dies once every
 * other member has told it it is through.  A spawned process counts its
 * errors with the rest.  Each round also duplicates the world: under
 * --ft ftmpi (ftmpi_respawn_many) that is FT-MPI's recovery, whose four
 * context ids come from the newest process's block.
 */
#ifndef NAME
#define NAME "ulfm_respawn_many"
#endif
#include "ulfm.h"
#include "respawn.h"

#ifndef ROUNDS
#define ROUNDS	40
#endif

/*
 * An intercommunicator between the even and the odd ranks of w, shrunk
 * with no failure (the member that draws its two context ids, the one
 * that proposed the largest, is the newest process), has both groups
 * whole: an allreduce across it sums the other group's ranks in w.
 */
static void
inter_check(MPI_Comm w, int n, int r)
{
	MPI_Comm half, ic, s;
	int rank, odd, sum = -1, want = 0, rc, i;

	MPI_Comm_rank(w, &rank);
	odd = rank % 2;
	MPI_Comm_split(w, odd, rank, &half);
	if ((rc = MPI_Intercomm_create(half, 0, w, odd ? 0 : 1, 7, &ic)) !=
	    MPI_SUCCESS || (rc = MPIX_Comm_shrink(ic, &s)) != MPI_SUCCESS) {
		fail("round %d: the intercommunicator's shrink returned %d", r,
		    rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (i = !odd; i < n; i += 2)
		want += i;
	if ((rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, s)) !=
	    MPI_SUCCESS)
		fail("round %d: allreduce across returned %d", r, rc);
	else if (sum != want)
		fail("round %d: the other group's ranks sum to %d, not %d", r,
		    sum, want);
	MPI_Comm_free(&s);
	MPI_Comm_free(&ic);
	MPI_Comm_free(&half);
}

/*
 * The world has n members, and so does a duplicate made by
 * MPI_Comm_idup of it in reverse order (whose rank 0, the newest
 * process, draws the context id).
 */
static void
check(MPI_Comm w, int n, int r)
{
	MPI_Comm rev, d;
	MPI_Request req;
	int size, rank, sum = -1, rc;

	MPI_Comm_size(w, &size);
	MPI_Comm_rank(w, &rank);
	if (size != n)
		fail("round %d: the world has %d members, not %d", r, size, n);
	if ((rc = MPI_Comm_split(w, 0, n - rank, &rev)) != MPI_SUCCESS ||
	    (rc = MPI_Comm_idup(rev, &d, &req)) != MPI_SUCCESS ||
	    (rc = MPI_Wait(&req, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
		fail("round %d: idup returned %d", r, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_rank(d, &rank);
	if ((rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d)) !=
	    MPI_SUCCESS)
		fail("round %d: allreduce returned %d", r, rc);
	else if (sum != n * (n - 1) / 2)
		fail("round %d: the ranks sum to %d, not %d", r, sum,
		    n * (n - 1) / 2);
	MPI_Comm_free(&d);
	MPI_Comm_free(&rev);
	/* Under --ft ftmpi, a recovery with no failure: four ids drawn. */
	if ((rc = MPI_Comm_dup(w, &d)) != MPI_SUCCESS) {
		fail("round %d: MPI_Comm_dup returned %d", r, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_size(d, &size);
	if (size != n)
		fail("round %d: the duplicate has %d members", r, size);
	MPI_Comm_free(&d);
	inter_check(w, n, r);
}

int
main(int argc, char **argv)
{
	MPI_Comm w;
	int r, n, flag, *universe;

	MPI_Init(&argc, &argv);
	r = respawn_join(argc, argv, ROUNDS, &w);
	MPI_Comm_size(w, &n);
	if (n < 2) {
		if (myrank == 0)
			printf("%s needs 2 or more ranks\n", NAME);
		MPI_Finalize();
		return 1;
	}
	/* The test is for a universe that the spawns go past. */
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe,
	    &flag);
	if (!flag || *universe < n || *universe >= n + ROUNDS)
		fail("the universe size is %d, not from %d to %d", flag ?
		    *universe : -1, n, n + ROUNDS - 1);
	for (; r < ROUNDS; r++) {
		check(w, n, r);
		respawn_round(&w, r, n, 1 + r % (n - 1));
	}
	check(w, n, ROUNDS);
	return respawn_finish(w);
}
