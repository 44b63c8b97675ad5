/* SPDX-License-Identifier: ISC */
/* Replicas that do not compute alike: rank 0 sends its process id, which
 * differs between its replicas (what --check-divergence must catch). */
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>

int
main(int argc, char *argv[])
{
	int rank, v, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 0; i < 100; i++) {
		if (rank == 0) {
			v = (int)getpid();
			MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		} else if (rank == 1)
			MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
