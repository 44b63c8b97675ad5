/* SPDX-License-Identifier: ISC */
/*
 * ulfm_respawn_many: a job that replaces its dead forever
 * (revshrinkkillrecover's loop) goes on past its universe size, which
 * bounds the processes alive at once, not the processes started.  Under
 * ftrun --ft ulfm with a universe of twice the ranks or less: 40
 * rounds, one death each (world rank 1 + r mod (n - 1): original and
 * spawned processes in turn, spawned ones by spawned ones), each
 * followed by a shrink, a spawn of one process and a merge, so that the
 * job starts n + 40 processes.  Every round checks the world's size and
 * ranks (an allreduce over an MPI_Comm_idup of it), and the context
 * ids of the shrinks and duplicates come from the processes past the
 * universe, from their own blocks.  A
 * round's victim dies once every other member has told it it is
 * through.  A spawned process counts its errors with the rest.
 */
#define NAME "ulfm_respawn_many"
#include "ulfm.h"

#define ROUNDS	40

static const char	*prog;

/* Shrink w, spawn its dead again (told to join at round r + 1), merge. */
static void
recover(MPI_Comm *w, int r)
{
	MPI_Comm s, inter, merged;
	char round[16], *args[] = { round, NULL };
	int n, ns, rc;

	if ((rc = MPIX_Comm_shrink(*w, &s)) != MPI_SUCCESS) {
		fail("round %d: shrink returned %d", r, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_size(*w, &n);
	MPI_Comm_size(s, &ns);
	if (n - ns != 1)
		fail("round %d: the shrunk world has %d of %d", r, ns, n);
	snprintf(round, sizeof(round), "%d", r + 1);
	rc = MPI_Comm_spawn(prog, args, n - ns, MPI_INFO_NULL, 0, s, &inter,
	    MPI_ERRCODES_IGNORE);
	if (rc != MPI_SUCCESS) {
		fail("round %d: spawn returned %d", r, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Intercomm_merge(inter, 0, &merged);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&s);
	MPI_Comm_free(w);
	*w = merged;
	MPI_Comm_set_errhandler(*w, MPI_ERRORS_RETURN);
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
}

int
main(int argc, char **argv)
{
	MPI_Comm w, parent;
	int r = 0, n, total = 0, rank, i, flag, *universe;

	MPI_Init(&argc, &argv);
	prog = argv[0];
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Comm_dup(MPI_COMM_WORLD, &w);
	} else {
		myrank = -1;
		r = argc > 1 ? atoi(argv[1]) : ROUNDS;
		MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
		MPI_Intercomm_merge(parent, 1, &w);
		MPI_Comm_free(&parent);
	}
	MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
	MPI_Comm_size(w, &n);
	if (n < 2) {
		if (myrank == 0)
			printf("ulfm_respawn_many needs 2 or more ranks\n");
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
		MPI_Comm_rank(w, &rank);
		/* It dies once every other member has left the check. */
		if (rank == 1 + r % (n - 1)) {
			for (i = 0; i < n - 1; i++)
				MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 1, w,
				    MPI_STATUS_IGNORE);
			die();
		}
		MPI_Send(NULL, 0, MPI_INT, 1 + r % (n - 1), 1, w);
		await_failures(w, 1);
		MPIX_Comm_revoke(w);
		recover(&w, r);
	}
	check(w, n, ROUNDS);
	MPI_Comm_rank(w, &rank);
	if (MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, w) !=
	    MPI_SUCCESS)
		total = errs + 1;
	if (rank == 0) {
		if (total == 0)
			printf(" No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	}
	MPI_Comm_free(&w);
	MPI_Finalize();
	return 0;
}
