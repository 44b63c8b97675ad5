/* SPDX-License-Identifier: ISC */
/*
 * nofinalize: usage: nofinalize [RANK]
 * Rank RANK (default: the last one) returns 0 from main without calling
 * MPI_Finalize; every other rank blocks in a receive that never
 * completes, so only the launcher can end the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	int rank, size, who, buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	who = argc > 1 ? (int)strtol(argv[1], NULL, 10) : size - 1;
	if (rank == who) {
		printf("rank %d leaving without MPI_Finalize\n", rank);
		return 0;
	}
	MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
