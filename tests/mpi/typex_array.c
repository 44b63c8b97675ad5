/* SPDX-License-Identifier: ISC */
/*
 * typex_array: subarray and distributed-array types on the wire.  Rank
 * 0 holds a global 2-D array of ints whose values name their indices;
 * for every distribution tried (block, cyclic, block-cyclic, none; C and
 * Fortran order; over a grid from MPI_Dims_create), it sends each rank
 * that rank's part through the rank's darray type, each rank checks the
 * elements against the standard's definition, in order, and sends them
 * back, which rank 0 receives through the same type into a second
 * array: the parts must rebuild the whole, each element once.  Then a
 * halo exchange of columns described by subarray types, and the
 * envelope and contents of a darray.
 */
#define NAME	"typex_array"
#include "mtest.h"

#define TAG	5

static int	 dims[2], coords[2];
static int	 gs[2];

/* Does coordinate c of p own index x under distribution dist, darg? */
static int
owns(int dist, int darg, int g, int p, int c, int x)
{
	int	b;

	if (dist == MPI_DISTRIBUTE_BLOCK) {
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
		return x / b == c;
	}
	if (dist == MPI_DISTRIBUTE_CYCLIC) {
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		return x / b % p == c;
	}
	return 1;
}

static int
value(int i, int j)
{
	return i * 1000 + j;
}

static void
one_distribution(const int dist[2], const int darg[2], int order,
    const char *what)
{
	MPI_Datatype	 t, *all = NULL;
	MPI_Request	*reqs = NULL;
	int		*g = NULL, *g2 = NULL, *mine, size, n, i, j, k, r, c[2];
	int		 i0;

	MPI_Type_create_darray(nprocs, myrank, 2, gs, dist, darg, dims,
	    order, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Type_size(t, &size);
	n = size / (int)sizeof(int);
	mine = xzalloc((size_t)n * sizeof(int));

	if (myrank == 0) {
		g = xzalloc((size_t)gs[0] * gs[1] * sizeof(int));
		g2 = xzalloc((size_t)gs[0] * gs[1] * sizeof(int));
		all = xzalloc((size_t)nprocs * sizeof(*all));
		reqs = xzalloc((size_t)nprocs * sizeof(*reqs));
		/* Element (i, j) at i * gs[1] + j in C order, else j * gs[0]
		 * + i. */
		for (i = 0; i < gs[0]; i++)
			for (j = 0; j < gs[1]; j++)
				g[order == MPI_ORDER_C ? i * gs[1] + j :
				    j * gs[0] + i] = value(i, j);
		memset(g2, 0xff, (size_t)gs[0] * gs[1] * sizeof(int));
		for (r = 0; r < nprocs; r++) {
			MPI_Type_create_darray(nprocs, r, 2, gs, dist, darg,
			    dims, order, MPI_INT, &all[r]);
			MPI_Type_commit(&all[r]);
			MPI_Isend(g, 1, all[r], r, TAG, MPI_COMM_WORLD,
			    &reqs[r]);
		}
	}
	MPI_Recv(mine, n, MPI_INT, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (myrank == 0)
		MPI_Waitall(nprocs, reqs, MPI_STATUSES_IGNORE);

	/* The standard's type map: the array in its order, ours kept. */
	k = 0;
	for (i0 = 0; i0 < gs[0] * gs[1]; i0++) {
		if (order == MPI_ORDER_C) {
			i = i0 / gs[1];
			j = i0 % gs[1];
		} else {
			i = i0 % gs[0];
			j = i0 / gs[0];
		}
		c[0] = owns(dist[0], darg[0], gs[0], dims[0], coords[0], i);
		c[1] = owns(dist[1], darg[1], gs[1], dims[1], coords[1], j);
		if (!c[0] || !c[1])
			continue;
		if (k >= n || mine[k] != value(i, j)) {
			fail("%s: element %d is %d, expected (%d, %d)", what,
			    k, k < n ? mine[k] : -1, i, j);
			break;
		}
		k++;
	}
	if (k != n && i0 == gs[0] * gs[1])
		fail("%s: %d elements, the definition gives %d", what, n, k);

	/* Back: the parts rebuild the whole array. */
	if (myrank == 0)
		for (r = 0; r < nprocs; r++)
			MPI_Irecv(g2, 1, all[r], r, TAG + 1, MPI_COMM_WORLD,
			    &reqs[r]);
	MPI_Send(mine, n, MPI_INT, 0, TAG + 1, MPI_COMM_WORLD);
	if (myrank == 0) {
		MPI_Waitall(nprocs, reqs, MPI_STATUSES_IGNORE);
		if (memcmp(g, g2, (size_t)gs[0] * gs[1] * sizeof(int)) != 0)
			fail("%s: the parts do not rebuild the array", what);
		for (r = 0; r < nprocs; r++)
			MPI_Type_free(&all[r]);
		free(g);
		free(g2);
		free(all);
		free(reqs);
	}
	free(mine);
	MPI_Type_free(&t);
}

/*
 * Each rank's local rows x (cols + 2) array, with a ghost column on
 * each side, sends its last real column to the right neighbour and its
 * first to the left one; subarray types describe the columns.
 */
static void
halo(void)
{
	MPI_Datatype	col[6];	/* column j of the array */
	int		sizes[2] = { 5, 6 }, sub[2] = { 5, 1 }, st[2];
	int		a[5][6], i, j, left, right;

	left = (myrank + nprocs - 1) % nprocs;
	right = (myrank + 1) % nprocs;
	for (i = 0; i < 5; i++)
		for (j = 0; j < 6; j++)
			a[i][j] = j == 0 || j == 5 ? -1 : myrank * 100 +
			    i * 10 + j;
	st[0] = 0;
	for (j = 0; j < 6; j++) {
		st[1] = j;
		MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C,
		    MPI_INT, &col[j]);
		MPI_Type_commit(&col[j]);
	}
	MPI_Sendrecv(a, 1, col[4], right, TAG + 2, a, 1, col[0], left,
	    TAG + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(a, 1, col[1], left, TAG + 3, a, 1, col[5], right,
	    TAG + 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < 5; i++)
		if (a[i][0] != left * 100 + i * 10 + 4 ||
		    a[i][5] != right * 100 + i * 10 + 1 ||
		    a[i][2] != myrank * 100 + i * 10 + 2) {
			fail("halo: row %d is %d .. %d, expected %d .. %d", i,
			    a[i][0], a[i][5], left * 100 + i * 10 + 4,
			    right * 100 + i * 10 + 1);
			break;
		}
	for (j = 0; j < 6; j++)
		MPI_Type_free(&col[j]);
}

/* A darray says how it was made. */
static void
decode(void)
{
	MPI_Datatype	t, got;
	MPI_Aint	ad[1];
	int		dist[2] = { MPI_DISTRIBUTE_CYCLIC,
			    MPI_DISTRIBUTE_BLOCK };
	int		darg[2] = { 2, MPI_DISTRIBUTE_DFLT_DARG };
	int		ni, na, nd, comb, in[12], want[12];

	MPI_Type_create_darray(nprocs, myrank, 2, gs, dist, darg, dims,
	    MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
	MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_DARRAY || ni != 12 || na != 0 || nd != 1)
		fail("darray envelope: combiner %d, %d %d %d", comb, ni, na,
		    nd);
	else {
		MPI_Type_get_contents(t, 12, 0, 1, in, ad, &got);
		want[0] = nprocs;
		want[1] = myrank;
		want[2] = 2;
		memcpy(want + 3, gs, sizeof(gs));
		memcpy(want + 5, dist, sizeof(dist));
		memcpy(want + 7, darg, sizeof(darg));
		memcpy(want + 9, dims, sizeof(dims));
		want[11] = MPI_ORDER_FORTRAN;
		if (memcmp(in, want, sizeof(want)) != 0 || got != MPI_DOUBLE)
			fail("darray contents are not its arguments");
	}
	MPI_Type_free(&t);
}

int
main(int argc, char *argv[])
{
	int	dist[2], darg[2], r;

	init(&argc, &argv);
	dims[0] = dims[1] = 0;
	MPI_Dims_create(nprocs, 2, dims);
	coords[0] = myrank / dims[1];
	coords[1] = myrank % dims[1];
	gs[0] = dims[0] * 3 + 1;
	gs[1] = dims[1] * 2 + 3;

	dist[0] = dist[1] = MPI_DISTRIBUTE_BLOCK;
	darg[0] = darg[1] = MPI_DISTRIBUTE_DFLT_DARG;
	one_distribution(dist, darg, MPI_ORDER_C, "block, block, C");
	one_distribution(dist, darg, MPI_ORDER_FORTRAN,
	    "block, block, Fortran");
	dist[0] = MPI_DISTRIBUTE_CYCLIC;
	darg[0] = 2;
	one_distribution(dist, darg, MPI_ORDER_C, "cyclic(2), block, C");
	dist[1] = MPI_DISTRIBUTE_CYCLIC;
	darg[1] = MPI_DISTRIBUTE_DFLT_DARG;
	one_distribution(dist, darg, MPI_ORDER_FORTRAN,
	    "cyclic(2), cyclic, Fortran");
	dist[0] = MPI_DISTRIBUTE_BLOCK;
	darg[0] = gs[0];	/* one block: the other ranks have none */
	one_distribution(dist, darg, MPI_ORDER_C, "block(all), cyclic, C");
	/* Not distributed along a dimension of one process. */
	r = dims[0];
	dims[0] = nprocs;
	dims[1] = 1;
	coords[0] = myrank;
	coords[1] = 0;
	dist[0] = MPI_DISTRIBUTE_CYCLIC;
	darg[0] = 3;
	dist[1] = MPI_DISTRIBUTE_NONE;
	darg[1] = MPI_DISTRIBUTE_DFLT_DARG;
	one_distribution(dist, darg, MPI_ORDER_C, "cyclic(3), none, C");
	dims[0] = r;
	dims[1] = nprocs / r;
	halo();
	decode();
	return finish();
}
