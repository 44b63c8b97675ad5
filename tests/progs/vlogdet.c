/* SPDX-License-Identifier: ISC */
/*
 * vlogdet: a run with nothing nondeterministic in it but what its
 * determinants say the same way every time: a token passed ROUNDS times
 * (5 by default) around the ring, rank 0 taking it back with
 * MPI_ANY_SOURCE (only one rank can send it) and with MPI_Iprobe first
 * (which finds it, since it waits in MPI_Probe before).  Its event log
 * is the same in every run: the golden test of ftlog dump.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	int rank, size, rounds = 5, r, flag;
	long token = 0;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		rounds = (int)strtol(argv[1], NULL, 10);
	for (r = 0; r < rounds; r++) {
		if (rank == 0) {
			MPI_Send(&token, 1, MPI_LONG, 1 % size, 0,
			    MPI_COMM_WORLD);
			MPI_Probe(size - 1, 0, MPI_COMM_WORLD, &st);
			MPI_Iprobe(size - 1, 0, MPI_COMM_WORLD, &flag, &st);
			MPI_Recv(&token, 1, MPI_LONG, MPI_ANY_SOURCE, 0,
			    MPI_COMM_WORLD, &st);
		} else {
			MPI_Recv(&token, 1, MPI_LONG, rank - 1, 0,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0,
			    MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("vlogdet: token %ld\n", token);
	MPI_Finalize();
	return 0;
}
