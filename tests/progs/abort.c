/* SPDX-License-Identifier: ISC */
/*
 * abort: usage: abort CODE [RANK]
 * Rank RANK (default: the last one) says so and calls
 * MPI_Abort(MPI_COMM_WORLD, CODE); every other rank blocks in a receive
 * that never completes, so only the abort can end the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	int rank, size, who, code, buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2) {
		fprintf(stderr, "usage: abort CODE [RANK]\n");
		MPI_Abort(MPI_COMM_WORLD, 100);
	}
	code = (int)strtol(argv[1], NULL, 10);
	who = argc > 2 ? (int)strtol(argv[2], NULL, 10) : size - 1;
	if (rank == who) {
		printf("rank %d aborting with %d\n", rank, code);
		fflush(stdout);
		MPI_Abort(MPI_COMM_WORLD, code);
	}
	MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
