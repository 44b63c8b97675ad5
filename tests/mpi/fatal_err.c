/* SPDX-License-Identifier: ISC */
/*
 * fatal_err: MPI_ERRORS_ARE_FATAL is the default error handler of
 * MPI_COMM_WORLD, and an error under it ends the job.  Rank 0 sends to
 * rank "size", which does not exist, while the other ranks wait for a
 * message from rank 0.  The job must end with a non-zero status.  If
 * the error is not fatal, rank 0 reports it, releases the others and
 * every rank exits 0, so that a harness checking for a non-zero
 * status sees the failure.  Not self-checking: it never prints the
 * words a self-checking test prints on success.
 */

#include <mpi.h>
#include <stdio.h>

#define NAME	"fatal_err"

int
main(int argc, char *argv[])
{
	MPI_Errhandler	eh;
	int		rank, size, i, rc, v = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
	if (eh != MPI_ERRORS_ARE_FATAL)
		fprintf(stderr, "%s: rank %d: default error handler is not"
		    " MPI_ERRORS_ARE_FATAL\n", NAME, rank);

	if (rank == 0) {
		rc = MPI_Send(&v, 1, MPI_INT, size, 1, MPI_COMM_WORLD);
		fprintf(stderr, "%s: rank 0: MPI_Send to invalid rank %d"
		    " returned %d instead of ending the job\n", NAME, size,
		    rc);
		for (i = 1; i < size; i++)
			MPI_Send(&v, 1, MPI_INT, i, 2, MPI_COMM_WORLD);
	} else
		MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
