/* SPDX-License-Identifier: ISC */
/*
 * ulfmgate FILE: for the ULFM tests across hosts.  Every rank prints
 * "rank R ready"; rank 0 then waits for FILE, so that a test can strike
 * (kill a host) while the job is up and before anyone has sent.  Then
 * all enter a barrier, which the dead cannot complete: the survivors
 * get an error, shrink MPI_COMM_WORLD, and rank 0 of the survivors
 * prints the barrier's error class and how many survived.
 */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec ts = { 0, 10000000 };
	MPI_Comm s;
	int rank, rc, ec = MPI_SUCCESS, n, me;

	MPI_Init(&argc, &argv);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d ready\n", rank);
	fflush(stdout);
	if (rank == 0)
		while (access(argv[1], F_OK) != 0)
			nanosleep(&ts, NULL);
	rc = MPI_Barrier(MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &ec);
	if (MPIX_Comm_shrink(MPI_COMM_WORLD, &s) != MPI_SUCCESS)
		return 1;
	MPI_Comm_size(s, &n);
	MPI_Comm_rank(s, &me);
	if (me == 0)
		printf("barrier %s, survivors %d\n", ec == MPIX_ERR_PROC_FAILED ?
		    "PROC_FAILED" : ec == MPI_SUCCESS ? "ok" : "other error", n);
	MPI_Comm_free(&s);
	MPI_Finalize();
	return 0;
}
