/* SPDX-License-Identifier: ISC */
/*
 * vlogdur: what a vlog checkpoint costs the application and how long its
 * image takes to be durable (issue 15).  Each of the ranks of a ring
 * protects a region of MB MiB (random bytes, so that zstd keeps most of
 * them), exchanges a small message with its neighbours an iteration and
 * calls ft_checkpoint(); ftrun's FT_CKPT_EVERY decides which calls save.
 * After each saved one, rank 0 waits (polling ft_checkpoint_stat(), not
 * communicating) until the image is durable: written in --ckpt-dir
 * without a server, held by the server with one.  It prints one line a
 * checkpoint:
 *
 *	held_us DUR_us
 *
 * held: ft_checkpoint() returned after this long (the copy of the
 * regions and the protocol's state); dur: from the call to durable.
 *
 *	vlogdur ITERS MB SERVER(0|1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ft.h>
#include <mpi.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
main(int argc, char *argv[])
{
	struct ft_ckpt_stat st;
	int rank, size, iters, server, i, v = 0, w;
	size_t mb, k;
	uint64_t t0, held, last = 0, seed = 88172645463325252ull;
	uint64_t *reg;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 4)
		MPI_Abort(MPI_COMM_WORLD, 100);
	iters = atoi(argv[1]);
	mb = (size_t)atoi(argv[2]);
	server = atoi(argv[3]);
	if ((reg = malloc(mb << 20)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (k = 0; k < (mb << 20) / 8; k++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		reg[k] = seed + (uint64_t)rank;
	}
	ft_protect(0, reg, mb << 20);
	for (i = 0; i < iters; i++) {
		MPI_Sendrecv(&i, 1, MPI_INT, (rank + 1) % size, 0, &w, 1,
		    MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		v += w;
		reg[(size_t)i % ((mb << 20) / 8)] ^= (uint64_t)w;
		t0 = now_ns();
		if (ft_checkpoint() != 1 || rank != 0)
			continue;
		ft_checkpoint_stat(&st);
		held = st.held_ns;
		for (;;) {
			ft_checkpoint_stat(&st);
			if (server ? st.durable_epoch > last : st.epoch > last)
				break;
			nanosleep(&(struct timespec){ 0, 50000 }, NULL);
		}
		last++;		/* a rank's epochs: 1, 2, 3... */
		printf("%llu %llu\n", (unsigned long long)held / 1000,
		    (unsigned long long)(server ? st.durable_ns :
		    now_ns() - t0) / 1000);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	free(reg);
	MPI_Finalize();
	return v == -1;
}
