/* SPDX-License-Identifier: ISC */
/*
 * Streaming bandwidth between two ranks, with ft_checkpoint() called
 * once an iteration (an iteration: rank 0 sends a window of W messages
 * of SIZE bytes, rank 1 answers one byte).  Under --ft vlog --ckpt-dir
 * with FT_CKPT_EVERY=N, each rank saves every N iterations and the
 * sender's log memory is reused once rank 1's images let rank 0 drop
 * what it sent (bench/vlogimg.sh).  Built with -DNO_FT for another
 * MPI: no checkpoint calls.
 *
 * usage: vlogbw [size [iters [window [fill]]]]  (default 1048576 200 8
 * const); fill "random": payloads of random bytes (incompressible),
 * else one byte repeated (compressed to nearly nothing in an image).
 * Rank 0 prints "bw <size> <MB/s>" (MB = 10^6 bytes) for the iterations
 * after the first tenth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#ifndef NO_FT
#include <ft.h>
#else
#define ft_checkpoint()	0
#endif

#define WMAX	64

int
main(int argc, char *argv[])
{
	MPI_Request rq[WMAX];
	long size = 1 << 20, iters = 200, w = 8, i, k, warm;
	double t0 = 0;
	char *buf, ack = 0;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc > 1)
		size = atol(argv[1]);
	if (argc > 2)
		iters = atol(argv[2]);
	if (argc > 3)
		w = atol(argv[3]);
	if (size < 1 || iters < 10 || w < 1 || w > WMAX)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if ((buf = malloc((size_t)size * (size_t)w)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, rank + 1, (size_t)size * (size_t)w);
	if (argc > 4 && strcmp(argv[4], "random") == 0) {
		unsigned long long x = 88172645463325252ull + (unsigned)rank;

		for (i = 0; i < size * w; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (char)(x >> 24);
		}
	}
	warm = iters / 10;
	for (i = 0; i < iters; i++) {
		if (i == warm)
			t0 = MPI_Wtime();
		for (k = 0; k < w; k++) {
			/* Bytes that change, as data would. */
			buf[k * size] = (char)i;
			if (rank == 0)
				MPI_Isend(buf + k * size, (int)size, MPI_CHAR, 1,
				    1, MPI_COMM_WORLD, &rq[k]);
			else
				MPI_Irecv(buf + k * size, (int)size, MPI_CHAR, 0,
				    1, MPI_COMM_WORLD, &rq[k]);
		}
		MPI_Waitall((int)w, rq, MPI_STATUSES_IGNORE);
		if (rank == 0)
			MPI_Recv(&ack, 1, MPI_CHAR, 1, 2, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
		if (ft_checkpoint() < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == 0)
		printf("bw %ld %.1f\n", size, (double)size * (double)w *
		    (double)(iters - warm) / (MPI_Wtime() - t0) / 1e6);
	free(buf);
	MPI_Finalize();
	return 0;
}
