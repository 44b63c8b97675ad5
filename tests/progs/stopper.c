/*
 * A ring of large messages in which one process stops itself with
 * SIGSTOP half way, where the test asks:
 *   stopper WHERE RANK REPLICA ROUNDS
 * WHERE is "compute" (outside MPI), "rendezvous" (after MPI_Isend of a
 * message too large for eager sending, before MPI_Wait: its peer waits
 * for the data), "error" (a fatal MPI error instead of stopping: the
 * job ends with MPI_ERR_COUNT) or "none".  REPLICA picks the replica that stops under
 * ftrun -r; every other process goes on.  Rank 0 prints a checksum that
 * does not depend on which processes died.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN	(256 * 1024)	/* doubles: 2 MiB, sent by rendezvous */

int
main(int argc, char **argv)
{
	static double out[LEN], in[LEN];
	const char *rep_s = getenv("FT_REPLICA");
	int rank, size, i, round, stop_rank, stop_rep, rounds, me;
	double sum = 0;
	MPI_Request rq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 5) {
		fprintf(stderr, "usage: stopper WHERE RANK REPLICA ROUNDS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	stop_rank = atoi(argv[2]);
	stop_rep = atoi(argv[3]);
	rounds = atoi(argv[4]);
	me = rank == stop_rank && (rep_s == NULL ? 0 : atoi(rep_s)) == stop_rep;
	MPI_Barrier(MPI_COMM_WORLD);
	for (round = 0; round < rounds; round++) {
		for (i = 0; i < LEN; i++)
			out[i] = rank + round + i * 1e-6;
		if (me && round == rounds / 2 && strcmp(argv[1], "compute") == 0)
			raise(SIGSTOP);
		if (me && round == rounds / 2 && strcmp(argv[1], "error") == 0)
			MPI_Send(out, -1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
		MPI_Isend(out, LEN, MPI_DOUBLE, (rank + 1) % size, round,
		    MPI_COMM_WORLD, &rq);
		if (me && round == rounds / 2 &&
		    strcmp(argv[1], "rendezvous") == 0)
			raise(SIGSTOP);
		MPI_Recv(in, LEN, MPI_DOUBLE, (rank + size - 1) % size, round,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		for (i = 0; i < LEN; i += 1024)
			sum += in[i];
	}
	MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM,
	    MPI_COMM_WORLD);
	if (rank == 0)
		printf("checksum %.6f\n", sum);
	MPI_Finalize();
	return 0;
}
