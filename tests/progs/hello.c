/* SPDX-License-Identifier: ISC */
/*
 * hello: the smallest MPI program.  Every rank prints its rank and the
 * size of MPI_COMM_WORLD; rank 0 also prints "No Errors".
 */
#include <mpi.h>
#include <stdio.h>

int
main(int argc, char *argv[])
{
	int rank, size;

	if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
		return 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	printf("hello from rank %d of %d\n", rank, size);
	if (rank == 0)
		printf("No Errors\n");
	MPI_Finalize();
	return 0;
}
