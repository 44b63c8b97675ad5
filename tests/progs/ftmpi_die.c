/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_die: under --ft ftmpi --comm-mode rebuild, rank 1 dies right
 * after MPI_Init in every incarnation, while the others wait in the
 * recovery (MPI_Comm_dup of MPI_COMM_WORLD) for a process that stays:
 * ftrun must give up after its bound of new processes, saying so.
 * With --comm-mode abort, the first death ends the job.
 */
#include <signal.h>
#include <stdio.h>

#include <mpi.h>

int
main(int argc, char **argv)
{
	MPI_Comm c;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		fflush(NULL);
		raise(SIGKILL);
	}
	(void)MPI_Barrier(MPI_COMM_WORLD);
	(void)MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Finalize();
	return 0;
}
