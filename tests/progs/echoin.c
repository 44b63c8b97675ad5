/* SPDX-License-Identifier: ISC */
/* Rank 0 reads numbers from stdin, one a line, and prints how many and
 * their sum; every 1000 lines the ranks meet, so the job keeps talking
 * while rank 0 reads (and a fault can land meanwhile). */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int
main(int argc, char *argv[])
{
	long long sum = 0, lines = 0, l;
	char buf[64];
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		while (fgets(buf, sizeof(buf), stdin) != NULL) {
			sum += strtoll(buf, NULL, 10);
			if (++lines % 1000 == 0) {
				MPI_Bcast(&lines, 1, MPI_LONG_LONG, 0,
				    MPI_COMM_WORLD);
				MPI_Barrier(MPI_COMM_WORLD);
			}
		}
		l = -1;
		MPI_Bcast(&l, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
		printf("lines %lld sum %lld\n", lines, sum);
	} else
		for (;;) {
			MPI_Bcast(&l, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
			if (l < 0)
				break;
			MPI_Barrier(MPI_COMM_WORLD);
		}
	MPI_Finalize();
	return 0;
}
