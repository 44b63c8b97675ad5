/* SPDX-License-Identifier: ISC */
/*
 * ring: pass a token around all ranks N times (default 1000), each rank
 * adding one; rank 0 checks the total.  Usage: ring [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	int rank, size, rounds = 1000, r;
	long token = 0;
	double t0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		rounds = (int)strtol(argv[1], NULL, 10);
	t0 = MPI_Wtime();
	for (r = 0; r < rounds; r++) {
		if (rank == 0) {
			MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0,
			    MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_LONG, size - 1, 0,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_LONG, rank - 1, 0,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0,
			    MPI_COMM_WORLD);
		}
	}
	if (rank == 0) {
		printf("ring: %d ranks, %d rounds, token %ld (expected %ld), "
		    "%.2f us per hop\n", size, rounds, token,
		    (long)rounds * (size - 1),
		    (MPI_Wtime() - t0) * 1e6 / ((double)rounds * size));
		if (token != (long)rounds * (size - 1)) {
			MPI_Finalize();
			return 1;
		}
	}
	MPI_Finalize();
	return 0;
}
