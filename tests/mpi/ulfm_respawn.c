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

#define ROUNDS	3

static const char	*prog;

/* The world rank that dies in round r of a world of n. */
static int
victim(int r, int n)
{
	return r == 0 ? n - 1 : r == 1 ? 1 : n - 2;
}

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
	MPI_Comm w, parent;
	int r = 0, n, total = 0, rank, i;

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
	if (n < 3) {
		if (myrank == 0)
			printf("ulfm_respawn needs 3 or more ranks\n");
		MPI_Finalize();
		return 1;
	}
	for (; r < ROUNDS; r++) {
		check(w, n, r);
		MPI_Comm_rank(w, &rank);
		/* It dies once every other member has left the check. */
		if (rank == victim(r, n)) {
			for (i = 0; i < n - 1; i++)
				MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 1, w,
				    MPI_STATUS_IGNORE);
			die();
		}
		MPI_Send(NULL, 0, MPI_INT, victim(r, n), 1, w);
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
