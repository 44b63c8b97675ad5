/* SPDX-License-Identifier: ISC */
/*
 * Jacobi iteration on an N x N grid split by rows over the ranks: each
 * step exchanges one halo row with each neighbour and reduces the
 * residual.  Prints the residual every 100 steps and a checksum at the
 * end, the same for any number of ranks and any failures survived.
 * Usage: jacobi [N [STEPS]]  (default 256 1000)
 *
 * Its state is the number of steps done and its rows of the grid: it
 * protects them (ft.h) and calls ft_checkpoint() after every step, so
 * a job run with --ckpt-dir (and --ft coord) goes on from its last
 * checkpoint after a failure.  Elsewhere these calls cost nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ft.h>
#include <mpi.h>

int
main(int argc, char *argv[])
{
	int rank, size, n = 256, steps = 1000, rows, first, i, j, s, done = 0;
	double *u, *v, local, resid, sum, gsum;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		n = atoi(argv[1]);
	if (argc > 2)
		steps = atoi(argv[2]);
	if (n < size || n < 3 || steps < 1) {
		if (rank == 0)
			fprintf(stderr, "jacobi: need N >= ranks, N >= 3\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	/* Rows [first, first + rows) are ours, plus a halo row each side. */
	rows = n / size + (rank < n % size);
	first = rank * (n / size) + (rank < n % size ? rank : n % size);
	u = calloc((size_t)(rows + 2) * n, sizeof(*u));
	v = calloc((size_t)(rows + 2) * n, sizeof(*v));
	if (u == NULL || v == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	/* Fixed boundary: 1 on the top edge, 0 elsewhere. */
	if (first == 0)
		for (j = 0; j < n; j++)
			u[1 * n + j] = v[1 * n + j] = 1.0;
	/* The state a checkpoint keeps: steps done, our rows and halo. */
	if (ft_protect(0, &done, sizeof(done)) != 0 ||
	    ft_protect(1, u, (size_t)(rows + 2) * n * sizeof(*u)) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (ft_restarted() && ft_recover() != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (s = done + 1; s <= steps; s++) {
		int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
		int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
		double *t;

		MPI_Sendrecv(&u[1 * n], n, MPI_DOUBLE, up, 0,
		    &u[(rows + 1) * n], n, MPI_DOUBLE, down, 0,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u[rows * n], n, MPI_DOUBLE, down, 1,
		    &u[0], n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		local = 0;
		for (i = 1; i <= rows; i++) {
			int g = first + i - 1;

			for (j = 0; j < n; j++) {
				if (g == 0 || g == n - 1 || j == 0 ||
				    j == n - 1) {
					v[i * n + j] = u[i * n + j];
					continue;
				}
				v[i * n + j] = 0.25 * (u[(i - 1) * n + j] +
				    u[(i + 1) * n + j] + u[i * n + j - 1] +
				    u[i * n + j + 1]);
				local += fabs(v[i * n + j] - u[i * n + j]);
			}
		}
		t = u;
		u = v;
		v = t;
		MPI_Allreduce(&local, &resid, 1, MPI_DOUBLE, MPI_SUM,
		    MPI_COMM_WORLD);
		if (rank == 0 && s % 100 == 0)
			printf("step %d residual %.10e\n", s, resid);
		done = s;
		(void)ft_protect(1, u, (size_t)(rows + 2) * n * sizeof(*u));
		if (ft_checkpoint() < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	sum = 0;
	for (i = 1; i <= rows; i++)
		for (j = 0; j < n; j++)
			sum += u[i * n + j] * (double)(first + i) * (j + 1);
	MPI_Reduce(&sum, &gsum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("jacobi: %d x %d, %d steps, checksum %.6e\n", n, n,
		    steps, gsum);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
