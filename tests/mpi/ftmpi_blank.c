/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_blank: MPI_COMM_WORLD in FT-MPI's mode BLANK, message mode CONT
 * (ftrun --ft ftmpi --comm-mode blank).  The last rank dies before any
 * communication; after it:
 *  - CONT: sends to live ranks work, naming the dead one fails, a
 *    collective fails (revoked, if another member began the recovery,
 *    which revokes the communicator in error);
 *  - MPI_Comm_dup of MPI_COMM_WORLD recovers MPI_COMM_WORLD in place,
 *    same size and ranks, the dead rank a hole (MPI_ERR_RANK), and the
 *    duplicate alike; collectives skip the hole, and those that lay out
 *    a block per rank leave its block alone;
 * then rank 1 dies during a loop of allreduces on the recovered world
 * (at its third): the survivors recover again, with two holes.
 */
#define NAME "ftmpi_blank"
#include "ulfm.h"

/*
 * A failure: MPIX_ERR_PROC_FAILED, or MPIX_ERR_REVOKED once another
 * member began the recovery (which revokes the communicator in error).
 */
static void
expect_failed(int rc, const char *what)
{
	int cls = rc;

	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &cls);
	if (cls != MPIX_ERR_PROC_FAILED && cls != MPIX_ERR_REVOKED)
		fail("%s returned class %d, expected a failure", what, cls);
}

/*
 * Rank 2's word, sent and received, succeeds, or is MPIX_ERR_REVOKED: a
 * rank that had its word began the recovery (which revokes the world),
 * so rank 2 had rank 0's message.  Whether it came (1) or not (0).
 */
static int
word(int rc, const char *what)
{
	int cls = rc;

	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &cls);
	if (cls != MPI_SUCCESS && cls != MPIX_ERR_REVOKED)
		fail("%s returned class %d", what, cls);
	return cls == MPI_SUCCESS;
}

/* The sum of the ranks alive, with 'dead' dead ranks among the top. */
static int
live_sum(const int *dead, int ndead)
{
	int i, k, s = 0, hole;

	for (i = 0; i < nprocs; i++) {
		for (k = 0, hole = 0; k < ndead; k++)
			hole |= dead[k] == i;
		if (!hole)
			s += i;
	}
	return s;
}

int
main(int argc, char **argv)
{
	MPI_Comm dup;
	int dead[2], v = 0, sum, i, rc, size, rank, all[64], live;

	init(&argc, &argv);
	if (nprocs < 4 || nprocs > 64) {
		fail("run at 4 to 64 ranks");
		return finish();
	}
	dead[0] = nprocs - 1;
	dead[1] = 1;
	/* Before any communication. */
	if (myrank == dead[0])
		die();
	await_failures(MPI_COMM_WORLD, 1);
	if (myrank == 0) {
		v = 3;
		if (MPI_Send(&v, 1, MPI_INT, 2, 1, MPI_COMM_WORLD) !=
		    MPI_SUCCESS)
			fail("CONT: a send to a live rank failed");
	} else if (myrank == 2 && (MPI_Recv(&v, 1, MPI_INT, 0, 1,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS || v != 3))
		fail("CONT: a receive from a live rank");
	/* A recovery revokes MPI_COMM_WORLD, and a revoke may overtake
	 * rank 0's message: none starts before rank 2 has it, so every
	 * other live rank waits for rank 2's word. */
	if (myrank == 2) {
		for (i = 0; i < nprocs; i++)
			if (i != 2 && i != dead[0])
				word(MPI_Send(&i, 1, MPI_INT, i, 4,
				    MPI_COMM_WORLD), "CONT: a send of rank 2's "
				    "word");
	} else if (word(MPI_Recv(&sum, 1, MPI_INT, 2, 4, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE), "CONT: rank 2's word") && sum != myrank)
		fail("CONT: rank 2's word is %d", sum);
	expect_failed(MPI_Send(&v, 1, MPI_INT, dead[0], 1, MPI_COMM_WORLD),
	    "CONT: a send to the dead rank");
	expect_failed(MPI_Barrier(MPI_COMM_WORLD),
	    "CONT: a barrier with a dead member");

	if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS)
		fail("the recovery");
	MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (size != nprocs || rank != myrank)
		fail("BLANK world: size %d rank %d", size, rank);
	MPI_Comm_size(dup, &size);
	if (size != nprocs)
		fail("BLANK duplicate: size %d", size);
	expect(MPI_Send(&v, 1, MPI_INT, dead[0], 2, MPI_COMM_WORLD),
	    MPI_ERR_RANK, "BLANK world: a send to the hole");
	expect(MPI_Irecv(&v, 1, MPI_INT, dead[0], 2, dup, &(MPI_Request){0}),
	    MPI_ERR_RANK, "BLANK duplicate: a receive from the hole");
	if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
		fail("BLANK world: a barrier");
	if (MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, dup) !=
	    MPI_SUCCESS || sum != live_sum(dead, 1))
		fail("BLANK duplicate: allreduce");
	/* A gather leaves the hole's block as it was (the other block
	 * collectives: ftmpi_blank_coll.c). */
	for (i = 0; i < nprocs; i++)
		all[i] = -1;
	if (MPI_Gather(&myrank, 1, MPI_INT, all, 1, MPI_INT, 0,
	    MPI_COMM_WORLD) != MPI_SUCCESS)
		fail("BLANK world: a gather");
	for (i = 0; myrank == 0 && i < nprocs; i++)
		if (all[i] != (i == dead[0] ? -1 : i))
			fail("BLANK world: gather block %d is %d", i, all[i]);
	/* An ANY_SOURCE receive is satisfied by the living. */
	if (myrank == 2) {
		v = 9;
		MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
	} else if (myrank == 0 && (MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3,
	    MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS || v != 9))
		fail("BLANK world: an ANY_SOURCE receive");

	/* During collectives: rank 1 dies at the third. */
	live = nprocs - 1;
	for (i = 0; i < 6; i++) {
		if (myrank == dead[1] && i == 2)
			die();
		rc = MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM,
		    MPI_COMM_WORLD);
		if (rc == MPI_SUCCESS) {
			if (sum != i * live)
				fail("allreduce %d gave %d", i, sum);
			continue;
		}
		if (i < 1)
			fail("allreduce %d failed before the death", i);
		MPI_Comm_free(&dup);
		if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS)
			break;
		live = nprocs - 2;
		/* Go on together from the earliest that failed. */
		if (MPI_Allreduce(&i, &v, 1, MPI_INT, MPI_MIN,
		    MPI_COMM_WORLD) != MPI_SUCCESS)
			fail("the allreduce after the second recovery");
		i = v - 1;
	}
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != nprocs)
		fail("BLANK world after two failures: size %d", size);
	if (MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM,
	    MPI_COMM_WORLD) != MPI_SUCCESS || sum != live_sum(dead, 2))
		fail("BLANK world, two holes: allreduce gave %d", sum);
	expect(MPI_Send(&v, 1, MPI_INT, dead[1], 4, MPI_COMM_WORLD),
	    MPI_ERR_RANK, "BLANK world: a send to the second hole");
	MPI_Comm_free(&dup);
	return finish();
}
