/* SPDX-License-Identifier: ISC */
/*
 * latefin GOFILE E: ranks below E call MPI_Finalize at once.  The last
 * rank waits until the file GOFILE exists, then sends a message to every
 * rank from E on; each of those waits for it in MPI_Recv, prints "rank R
 * done", and finalizes.  So a test decides when the late ranks finish,
 * and may kill processes of the early ones meanwhile, while those wait
 * inside MPI_Finalize.  The late ranks wait inside MPI, so they keep
 * answering their peers; the early ones never communicate.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	int rank, size, early = 0, r, go = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3 || (early = (int)strtol(argv[2], NULL, 10)) < 0 ||
	    early >= size - 1) {
		fprintf(stderr, "usage: latefin GOFILE E (E < size - 1)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == size - 1) {
		/* The test's signal, read before any MPI call of ours: every
		 * replica of this rank sends the same thing whenever it
		 * sees the file. */
		while (access(argv[1], F_OK) != 0)
			nanosleep(&ms, NULL);
		for (r = early; r < size - 1; r++)
			MPI_Send(&go, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
	} else if (rank >= early) {
		MPI_Recv(&go, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		printf("rank %d done\n", rank);
	}
	MPI_Finalize();
	return 0;
}
