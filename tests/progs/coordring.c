/* SPDX-License-Identifier: ISC */
/*
 * A ring whose messages cross every checkpoint (--ft coord): each
 * iteration a rank sends a value made from its state to the next rank,
 * calls ft_checkpoint(), and only then receives what the previous rank
 * sent before its own checkpoint.  So at every cut one message is in
 * flight on every ring channel; a rollback that loses or repeats one
 * changes every sum after it.  A wildcard receive and an allreduce
 * each iteration add collectives and ANY_SOURCE to the mix.
 *
 * Usage: coordring ITERS [GATE].  Rank 0 prints its sum every 50
 * iterations and every rank's at the end.  With GATE, rank 0 waits
 * after its checkpoint of iteration ITERS / 2, outside MPI, until the
 * file GATE exists (a test does something to the job there).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ft.h>
#include <mpi.h>

int
main(int argc, char *argv[])
{
	int rank, size, iters, it = 0, k;
	uint64_t acc, v, in, all[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	iters = argc > 1 ? atoi(argv[1]) : 300;
	if (size > 64 || size < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	acc = 1000003u * (uint64_t)(rank + 1);
	if (ft_protect(0, &it, sizeof(it)) != 0 ||
	    ft_protect(1, &acc, sizeof(acc)) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (ft_restarted() && ft_recover() != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	/* The message of iteration it, sent before the last checkpoint,
	 * is still to be received: a restart finds it in the image. */
	if (it == 0) {
		v = acc * 31 + 1;
		MPI_Send(&v, 1, MPI_UINT64_T, (rank + 1) % size, 7,
		    MPI_COMM_WORLD);
	}
	for (; it < iters; ) {
		MPI_Recv(&in, 1, MPI_UINT64_T, MPI_ANY_SOURCE, 7,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		acc = acc * 6364136223846793005u + in;
		MPI_Allreduce(&acc, &v, 1, MPI_UINT64_T, MPI_BXOR,
		    MPI_COMM_WORLD);
		acc ^= v >> 7;
		it++;
		if (rank == 0 && it % 50 == 0)
			printf("iteration %d sum %016llx\n", it,
			    (unsigned long long)acc);
		if (it < iters) {
			v = acc * 31 + (uint64_t)it;
			MPI_Send(&v, 1, MPI_UINT64_T, (rank + 1) % size, 7,
			    MPI_COMM_WORLD);
		}
		if (ft_checkpoint() < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		while (rank == 0 && argc > 2 && it == iters / 2 &&
		    access(argv[2], F_OK) != 0)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	MPI_Gather(&acc, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0,
	    MPI_COMM_WORLD);
	if (rank == 0)
		for (k = 0; k < size; k++)
			printf("rank %d sum %016llx\n", k,
			    (unsigned long long)all[k]);
	MPI_Finalize();
	return 0;
}
