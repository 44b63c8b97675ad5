/* SPDX-License-Identifier: ISC */
/*
 * gate: usage: gate FILE [ROUNDS]
 * Every rank prints "rank R pid P" once MPI_Init has returned, so every
 * rank has joined the job and opened its listeners, and no rank has yet
 * connected to another.  Rank 0 then waits, outside MPI, until FILE
 * exists, and the ranks pass a token ROUNDS times (10 by default)
 * around the ring 0 -> 1 -> ... -> 0; rank 0 prints "No Errors" if it
 * came back right every time.  A test can look at the ranks, or flood
 * them with connections, before they talk to each other.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int rank, size, rounds = 10, i, token, errs = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || size < 2) {
		fprintf(stderr, "usage: gate FILE [ROUNDS] (2 ranks)\n");
		MPI_Abort(MPI_COMM_WORLD, 100);
	}
	if (argc > 2)
		rounds = (int)strtol(argv[2], NULL, 10);
	/*
	 * The replicas of a rank print this line with their own pids: of
	 * one width, so that the rank's stream has the same length from
	 * either, and a replica that takes over goes on at the same byte
	 * (ftrun prints each byte of a rank's output once, by offset).
	 */
	printf("rank %d pid %010ld\n", rank, (long)getpid());
	fflush(stdout);
	if (rank == 0)
		while (access(argv[1], F_OK) != 0)
			nanosleep(&ts, NULL);
	for (i = 0; i < rounds; i++) {
		if (rank == 0) {
			token = i * size;
			MPI_Send(&token, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, size - 1, i,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (token != i * size + size - 1) {
				fprintf(stderr, "gate: round %d: token %d\n",
				    i, token);
				errs++;
			}
		} else {
			MPI_Recv(&token, 1, MPI_INT, rank - 1, i,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, i,
			    MPI_COMM_WORLD);
		}
	}
	if (rank == 0 && errs == 0)
		printf("No Errors\n");
	MPI_Finalize();
	return errs != 0;
}
