/* SPDX-License-Identifier: ISC */
/*
 * A Jacobi relaxation that protects its grid and iteration count with
 * ft.h, checkpoints every iteration (ftrun's --ckpt-interval decides
 * which calls save), and restarts from its checkpoint.
 *
 *	ckjacobi N ITERS [GATE]
 *
 * With GATE, rank 0 waits halfway, outside MPI, until the file GATE
 * exists (a test does something to the job there); with
 * FT_TEST_GATE2_AT=K too, at iteration K, until GATE2 exists (GATE
 * with "2" appended).
 * Rank 0 prints the iteration it starts from and the grid's checksum at
 * the end.  With FT_TEST_DIE_AT=K (and FT_TEST_DIE_RANK=R, default the
 * last rank) rank R kills itself with SIGKILL right after the
 * ft_checkpoint() call of iteration K: the fault is tied to progress.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ft.h>
#include <mpi.h>

int
main(int argc, char *argv[])
{
	int rank, size, n, iters, rows, i, j, die_at = -1, die_rank;
	int iter = 0, saved = 0, up, down, gate2 = -1;
	char g2[4096];
	double *g, *t, sum = 0, total = 0;
	const char *s;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: ckjacobi N ITERS [GATE]\n");
		MPI_Abort(MPI_COMM_WORLD, 100);
	}
	n = atoi(argv[1]);
	iters = atoi(argv[2]);
	rows = n / size;
	die_rank = size - 1;
	if ((s = getenv("FT_TEST_DIE_AT")) != NULL)
		die_at = atoi(s);
	if ((s = getenv("FT_TEST_DIE_RANK")) != NULL)
		die_rank = atoi(s);
	if ((s = getenv("FT_TEST_GATE2_AT")) != NULL && argc > 3)
		gate2 = atoi(s);
	snprintf(g2, sizeof(g2), "%s2", argc > 3 ? argv[3] : "");
	/* rows + 2 halo rows of n columns; the top edge is hot. */
	g = calloc((size_t)(rows + 2) * n, sizeof(*g));
	t = calloc((size_t)(rows + 2) * n, sizeof(*t));
	if (rank == 0)
		for (j = 0; j < n; j++)
			g[j] = t[j] = 100.0;
	if (ft_protect(0, &iter, sizeof(iter)) != 0 ||
	    ft_protect(1, g, (size_t)(rows + 2) * n * sizeof(*g)) != 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (ft_restarted()) {
		if (ft_recover() != 0)
			MPI_Abort(MPI_COMM_WORLD, 3);
		/* The checkpoint was taken after iteration iter. */
		iter++;
	}
	if (rank == 0)
		printf("start %d\n", iter);
	up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	for (; iter < iters; iter++) {
		while (rank == 0 && argc > 3 && iter == iters / 2 &&
		    access(argv[3], F_OK) != 0)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		while (rank == 0 && iter == gate2 && access(g2, F_OK) != 0)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		MPI_Sendrecv(&g[n], n, MPI_DOUBLE, up, 0, &g[(rows + 1) * n],
		    n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&g[rows * n], n, MPI_DOUBLE, down, 1, &g[0], n,
		    MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 1; i <= rows; i++)
			for (j = 1; j < n - 1; j++) {
				if (rank == size - 1 && i == rows)
					continue;
				t[i * n + j] = 0.25 * (g[(i - 1) * n + j] +
				    g[(i + 1) * n + j] + g[i * n + j - 1] +
				    g[i * n + j + 1]);
			}
		for (i = 1; i <= rows; i++)
			for (j = 1; j < n - 1; j++)
				if (!(rank == size - 1 && i == rows))
					g[i * n + j] = t[i * n + j];
		if ((saved = ft_checkpoint()) < 0)
			MPI_Abort(MPI_COMM_WORLD, 4);
		if (iter == die_at && rank == die_rank)
			raise(SIGKILL);
	}
	for (i = 1; i <= rows; i++)
		for (j = 0; j < n; j++)
			sum += g[i * n + j];
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("checksum %.17g\n", total);
	free(g);
	free(t);
	MPI_Finalize();
	return 0;
}
