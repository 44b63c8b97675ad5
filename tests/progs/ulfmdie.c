/* SPDX-License-Identifier: ISC */
/*
 * ulfmdie MODE RANKS: for tests/1080-ftrun-ulfm.bats.  After a barrier,
 * the ranks listed (comma-separated, or "all") end as MODE says: "kill"
 * (SIGKILL) or "exit" (exit 0 without MPI_Finalize).  The survivors
 * then shrink MPI_COMM_WORLD, print "survivors N" (rank 0 of the
 * shrunk one), and finalize.  MODE "fail" kills no one, and the ranks
 * listed exit 3 after MPI_Finalize.  MODE "say" is "kill" after
 * printing "rank R dies" without flushing it (stdout is line-buffered
 * under --ft ulfm, as Open MPI's ranks have it).
 */
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
listed(const char *list, int rank)
{
	char buf[256], *p, *q;

	if (strcmp(list, "all") == 0)
		return 1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (p = buf; (q = strsep(&p, ",")) != NULL;)
		if (strtol(q, NULL, 10) == rank)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	MPI_Comm s;
	int rank, n, me;

	if (argc != 3)
		return 2;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Barrier(MPI_COMM_WORLD);
	if (listed(argv[2], rank) && strcmp(argv[1], "say") == 0) {
		printf("rank %d dies\n", rank);
		raise(SIGKILL);
	}
	if (listed(argv[2], rank) && strcmp(argv[1], "fail") != 0) {
		fflush(NULL);
		if (strcmp(argv[1], "kill") == 0)
			raise(SIGKILL);
		exit(0);
	}
	if (MPIX_Comm_shrink(MPI_COMM_WORLD, &s) != MPI_SUCCESS)
		return 4;
	MPI_Comm_size(s, &n);
	MPI_Comm_rank(s, &me);
	if (me == 0)
		printf("survivors %d\n", n);
	MPI_Comm_free(&s);
	MPI_Finalize();
	return listed(argv[2], rank) ? 3 : 0;
}
