/* SPDX-License-Identifier: ISC */
/*
 * pi: integrate 4/(1+x^2) over [0,1] with N intervals (default 10^7)
 * split among the ranks; rank 0 adds the parts it receives and prints
 * pi with its error.  Usage: pi [INTERVALS]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	long n = 10000000, i;
	int rank, size, r;
	double h, sum = 0, part, pi;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		n = strtol(argv[1], NULL, 10);
	h = 1.0 / (double)n;
	for (i = rank; i < n; i += size) {
		double x = h * ((double)i + 0.5);

		sum += 4.0 / (1.0 + x * x);
	}
	part = h * sum;
	if (rank != 0) {
		MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
	} else {
		/* Add in rank order so the result does not depend on timing. */
		pi = part;
		for (r = 1; r < size; r++) {
			MPI_Recv(&part, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			pi += part;
		}
		printf("pi is approximately %.16f, error %.2e (%d ranks, "
		    "%ld intervals)\n", pi, fabs(pi - M_PI), size, n);
	}
	MPI_Finalize();
	return 0;
}
