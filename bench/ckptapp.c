/* SPDX-License-Identifier: ISC */
/*
 * bench/ckpt.sh's application: every rank protects MB megabytes of a
 * Jacobi-like grid and saves N checkpoints (run it with
 * --ckpt-interval 0); after each, it waits until the server holds it,
 * to measure the time to durability (a real application goes on).
 * Rank 0 prints, per checkpoint, the time it was held in
 * ft_checkpoint() and the time from that call to durability.  Under
 * --ft coord the image is written in the background: the epoch it saved
 * shows in ft_checkpoint_stat() once written.
 *
 *	ckptapp MB N
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ft.h>
#include <mpi.h>

int
main(int argc, char *argv[])
{
	struct ft_ckpt_stat st;
	struct timespec ts = { 0, 200000 };
	uint64_t prev;
	size_t n, i;
	double *g;
	int rank, k, iters;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 100);
	n = (size_t)atoi(argv[1]) * 1048576 / sizeof(double);
	iters = atoi(argv[2]);
	if ((g = malloc(n * sizeof(*g))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 111);
	for (i = 0; i < n; i++)
		g[i] = 100.0 * exp(-(double)(i / 1024) / 64.0) *
		    sin((double)(i % 1024) / 326.0);
	ft_protect(0, g, n * sizeof(*g));
	for (k = 0; k < iters; k++) {
		g[k % n] += 1.0;
		ft_checkpoint_stat(&st);
		prev = st.epoch;
		if (ft_checkpoint() != 1)
			MPI_Abort(MPI_COMM_WORLD, 1);
		ft_checkpoint_stat(&st);
		for (;;) {
			struct ft_ckpt_stat d;

			ft_checkpoint_stat(&d);
			if (d.epoch > prev && d.durable_epoch >= d.epoch) {
				st.durable_ns = d.durable_ns;
				st.stored = d.stored;
				st.raw = d.raw;
				break;
			}
			nanosleep(&ts, NULL);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			printf("held=%.6f durable=%.6f stored=%llu raw=%llu\n",
			    (double)st.held_ns / 1e9,
			    (double)st.durable_ns / 1e9,
			    (unsigned long long)st.stored,
			    (unsigned long long)st.raw);
	}
	free(g);
	MPI_Finalize();
	return 0;
}
