/* SPDX-License-Identifier: ISC */
/*
 * topo_jacobi: a 2-D Jacobi iteration on a Cartesian communicator.
 * The grid (sizes that do not divide evenly) is split into blocks with
 * MPI_Dims_create and MPI_Cart_create; each step exchanges halo rows
 * and columns with the neighbours MPI_Cart_shift names (MPI_PROC_NULL
 * at the fixed boundary).  Rank 0 gathers the blocks, placed with
 * MPI_Cart_coords, and compares them bit for bit with the same
 * iteration done serially.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"topo_jacobi"
#define TAG_ERRS	32000
#define TAG_BLOCK	100
#define NX		61	/* interior rows */
#define NY		45	/* interior columns */
#define ITERS		60

static int	errs;	/* failures seen by this rank */
static int	myrank, nprocs;

static void
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 40)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int
finish(void)
{
	int	i, e, total = errs;

	if (myrank == 0) {
		for (i = 1; i < nprocs; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, TAG_ERRS, MPI_COMM_WORLD,
			    MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, TAG_ERRS, MPI_COMM_WORLD);
	MPI_Finalize();
	return total != 0;
}

/* The fixed boundary: any smooth, uneven function will do. */
static double
boundary(int i, int j)
{
	return (double)(i * i) / 7.0 + (double)j * 0.5 + (i == 0 ? 10 : 0);
}

/* Where block c of n along a dimension of len points starts, and its size. */
static void
block(int len, int n, int c, int *start, int *count)
{
	*count = len / n + (c < len % n);
	*start = c * (len / n) + (c < len % n ? c : len % n);
}

/* Index of (i, j) in an array with rows of w doubles. */
#define AT(a, w, i, j)	((a)[(size_t)(i) * (size_t)(w) + (size_t)(j)])

/* One Jacobi step over the lx x ly interior of u (rows of ly + 2). */
static void
step(const double *u, double *v, int lx, int ly)
{
	int	i, j, w = ly + 2;

	for (i = 1; i <= lx; i++)
		for (j = 1; j <= ly; j++)
			AT(v, w, i, j) = 0.25 * (AT(u, w, i - 1, j) +
			    AT(u, w, i + 1, j) + AT(u, w, i, j - 1) +
			    AT(u, w, i, j + 1));
}

/* The whole grid, serially, from the same start. */
static double *
serial(void)
{
	double	*u, *v, *t;
	int	i, j, k, w = NY + 2;

	u = calloc((size_t)(NX + 2) * w, sizeof(double));
	v = calloc((size_t)(NX + 2) * w, sizeof(double));
	for (i = 0; i < NX + 2; i++)
		for (j = 0; j < NY + 2; j++)
			if (i == 0 || j == 0 || i == NX + 1 || j == NY + 1)
				AT(u, w, i, j) = AT(v, w, i, j) =
				    boundary(i, j);
	for (k = 0; k < ITERS; k++) {
		step(u, v, NX, NY);
		t = u;
		u = v;
		v = t;
	}
	free(v);
	return u;
}

/* Swap halos with the four neighbours. */
static void
halo(MPI_Comm cart, double *u, int lx, int ly, double *sbuf, double *rbuf)
{
	int	up, down, left, right, i, w = ly + 2;

	MPI_Cart_shift(cart, 0, 1, &up, &down);
	MPI_Cart_shift(cart, 1, 1, &left, &right);
	/* Rows are contiguous. */
	MPI_Sendrecv(&AT(u, w, lx, 1), ly, MPI_DOUBLE, down, 1,
	    &AT(u, w, 0, 1), ly, MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE);
	MPI_Sendrecv(&AT(u, w, 1, 1), ly, MPI_DOUBLE, up, 2,
	    &AT(u, w, lx + 1, 1), ly, MPI_DOUBLE, down, 2, cart,
	    MPI_STATUS_IGNORE);
	/* Columns go through buffers; the edges keep the boundary. */
	for (i = 0; i < lx; i++)
		sbuf[i] = AT(u, w, i + 1, ly);
	MPI_Sendrecv(sbuf, lx, MPI_DOUBLE, right, 3, rbuf, lx, MPI_DOUBLE,
	    left, 3, cart, MPI_STATUS_IGNORE);
	if (left != MPI_PROC_NULL)
		for (i = 0; i < lx; i++)
			AT(u, w, i + 1, 0) = rbuf[i];
	for (i = 0; i < lx; i++)
		sbuf[i] = AT(u, w, i + 1, 1);
	MPI_Sendrecv(sbuf, lx, MPI_DOUBLE, left, 4, rbuf, lx, MPI_DOUBLE,
	    right, 4, cart, MPI_STATUS_IGNORE);
	if (right != MPI_PROC_NULL)
		for (i = 0; i < lx; i++)
			AT(u, w, i + 1, ly + 1) = rbuf[i];
}

int
main(int argc, char *argv[])
{
	MPI_Comm	cart;
	double		*u, *v, *t, *sbuf, *rbuf, *ref, *blk;
	int		dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, c[2];
	int		x0, lx, y0, ly, i, j, k, r, rank, size, w, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Dims_create(nprocs, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
	MPI_Comm_rank(cart, &rank);
	MPI_Comm_size(cart, &size);
	MPI_Cart_coords(cart, rank, 2, c);
	block(NX, dims[0], c[0], &x0, &lx);
	block(NY, dims[1], c[1], &y0, &ly);
	w = ly + 2;

	/* Our block with its halo; the global edge holds the boundary. */
	u = calloc((size_t)(lx + 2) * w, sizeof(double));
	v = calloc((size_t)(lx + 2) * w, sizeof(double));
	sbuf = calloc((size_t)lx + 1, sizeof(double));
	rbuf = calloc((size_t)lx + 1, sizeof(double));
	for (i = 0; i < lx + 2; i++)
		for (j = 0; j < ly + 2; j++) {
			int gi = x0 + i, gj = y0 + j;

			if (gi == 0 || gj == 0 || gi == NX + 1 ||
			    gj == NY + 1)
				AT(u, w, i, j) = AT(v, w, i, j) =
				    boundary(gi, gj);
		}
	for (k = 0; k < ITERS; k++) {
		halo(cart, u, lx, ly, sbuf, rbuf);
		step(u, v, lx, ly);
		t = u;
		u = v;
		v = t;
	}

	/* Gather the blocks on rank 0 of cart and compare. */
	if (rank != 0) {
		for (i = 1; i <= lx; i++)
			MPI_Send(&AT(u, w, i, 1), ly, MPI_DOUBLE, 0, TAG_BLOCK,
			    cart);
	} else {
		ref = serial();
		for (r = 0; r < size; r++) {
			int	rx0, rlx, ry0, rly;

			MPI_Cart_coords(cart, r, 2, c);
			block(NX, dims[0], c[0], &rx0, &rlx);
			block(NY, dims[1], c[1], &ry0, &rly);
			blk = malloc(sizeof(double) * ((size_t)rly + 1));
			for (i = 1; i <= rlx; i++) {
				if (r == 0)
					memcpy(blk, &AT(u, w, i, 1),
					    sizeof(double) * (size_t)rly);
				else
					MPI_Recv(blk, rly, MPI_DOUBLE, r,
					    TAG_BLOCK, cart,
					    MPI_STATUS_IGNORE);
				for (j = 1; j <= rly; j++)
					if (blk[j - 1] != AT(ref, NY + 2,
					    rx0 + i, ry0 + j) && bad++ < 5)
						fail("point (%d, %d) of rank "
						    "%d is %.17g, serially "
						    "%.17g", rx0 + i, ry0 + j,
						    r, blk[j - 1], AT(ref,
						    NY + 2, rx0 + i, ry0 + j));
			}
			free(blk);
		}
		if (bad > 5)
			fail("%d points differ in all", bad);
		/* The iteration did move: not all zero inside. */
		if (AT(ref, NY + 2, 1, 1) == 0.0)
			fail("the serial result did not change");
		free(ref);
	}
	free(u);
	free(v);
	free(sbuf);
	free(rbuf);
	MPI_Comm_free(&cart);
	return finish();
}
