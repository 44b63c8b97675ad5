/* SPDX-License-Identifier: ISC */
/*
 * Shared by the ULFM tests that replace their dead (ulfm_respawn*.c,
 * after ulfm.h): a world w of the original processes and those spawned
 * in the dead's places, merged in after the survivors.  A spawned
 * process is told, as its argument, the round it joins at.
 */
#ifndef FT_TEST_RESPAWN_H
#define FT_TEST_RESPAWN_H

static const char	*respawn_prog;

/*
 * After MPI_Init: the world, and the round this process starts at (0
 * for an original process; rounds, with no argument, for a spawned
 * one).
 */
static int
respawn_join(int argc, char **argv, int rounds, MPI_Comm *w)
{
	MPI_Comm parent;
	int r = 0;

	respawn_prog = argv[0];
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Comm_dup(MPI_COMM_WORLD, w);
	} else {
		myrank = -1;
		r = argc > 1 ? atoi(argv[1]) : rounds;
		MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
		MPI_Intercomm_merge(parent, 1, w);
		MPI_Comm_free(&parent);
	}
	MPI_Comm_set_errhandler(*w, MPI_ERRORS_RETURN);
	return r;
}

/* Shrink w, spawn its dead again (told to join at round r + 1), merge. */
static void
respawn_recover(MPI_Comm *w, int r)
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
	rc = MPI_Comm_spawn(respawn_prog, args, n - ns, MPI_INFO_NULL, 0, s,
	    &inter, MPI_ERRCODES_IGNORE);
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
 * Round r of a world of n: the member ranked victim dies once every
 * other one has told it it is through (so that no collective before is
 * cut short: ULFM lets one fail at some members and not others); the
 * others learn of it, revoke w and recover.
 */
static void
respawn_round(MPI_Comm *w, int r, int n, int victim)
{
	int rank, i;

	MPI_Comm_rank(*w, &rank);
	if (rank == victim) {
		for (i = 0; i < n - 1; i++)
			MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 1, *w,
			    MPI_STATUS_IGNORE);
		die();
	}
	MPI_Send(NULL, 0, MPI_INT, victim, 1, *w);
	await_failures(*w, 1);
	MPIX_Comm_revoke(*w);
	respawn_recover(w, r);
}

/* Sum every member's errors over w; its rank 0 says the verdict. */
static int
respawn_finish(MPI_Comm w)
{
	int total = 0, rank;

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

#endif
