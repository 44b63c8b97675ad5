/* SPDX-License-Identifier: ISC */
/*
 * topo_cart: Cartesian topologies.  MPI_Dims_create against known
 * factorisations; MPI_Cart_create in 1, 2 and 3 dimensions (ranks
 * beyond the grid get MPI_COMM_NULL), MPI_Cart_get, _rank (periodic
 * wrap-around), _coords, _shift (messages sent along both directions
 * of periodic and bounded dimensions, MPI_PROC_NULL at the edges),
 * _sub (sub-grids of every shape), _map, MPI_Cartdim_get and
 * MPI_Topo_test; duplicates keep the topology, splits do not; and the
 * error classes of misuse (MPI_ERR_TOPOLOGY, MPI_ERR_DIMS,
 * MPI_ERR_RANK, MPI_ERR_ARG).
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"topo_cart"
#define TAG_ERRS	32000
#define ANY_ERROR	(-1)

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

/* rc must be an error of class want (any class: ANY_ERROR). */
static void
expect(int rc, int want, const char *what)
{
	int	class = -1;

	if (rc == MPI_SUCCESS) {
		fail("%s: returned MPI_SUCCESS, expected class %d", what,
		    want);
		return;
	}
	MPI_Error_class(rc, &class);
	if (class != want && want != ANY_ERROR)
		fail("%s: returned class %d, expected %d", what, class, want);
}

/* rc must be MPI_SUCCESS. */
static void
ok(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		fail("%s: returned %d", what, rc);
}

/* Is this ft (some checks test ft's own guarantees)? */
static int
is_ft(void)
{
	char	v[MPI_MAX_LIBRARY_VERSION_STRING];
	int	len;

	MPI_Get_library_version(v, &len);
	return strncmp(v, "ft ", 3) == 0;
}

static void
dims_create(void)
{
	static const struct {
		int	nnodes, ndims, in[4], out[4];
	} t[] = {
		{ 1, 1, { 0 }, { 1 } },
		{ 6, 2, { 0, 0 }, { 3, 2 } },
		{ 7, 2, { 0, 0 }, { 7, 1 } },
		{ 12, 2, { 0, 0 }, { 4, 3 } },
		{ 16, 3, { 0, 0, 0 }, { 4, 2, 2 } },
		{ 24, 3, { 0, 0, 0 }, { 4, 3, 2 } },
		{ 30, 2, { 0, 0 }, { 6, 5 } },
		{ 64, 4, { 0, 0, 0, 0 }, { 4, 4, 2, 2 } },
		{ 12, 3, { 0, 3, 0 }, { 2, 3, 2 } },
		{ 8, 2, { 8, 0 }, { 8, 1 } },
		{ 9, 2, { 3, 3 }, { 3, 3 } },
		{ 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },
	};
	int	d[4], i, j, bad;

	for (i = 0; i < (int)(sizeof(t) / sizeof(t[0])); i++) {
		memcpy(d, t[i].in, sizeof(d));
		ok(MPI_Dims_create(t[i].nnodes, t[i].ndims, d), "Dims_create");
		for (bad = 0, j = 0; j < t[i].ndims; j++)
			if (d[j] != t[i].out[j])
				bad = 1;
		if (bad)
			fail("Dims_create(%d, %d): got %d %d %d %d",
			    t[i].nnodes, t[i].ndims, d[0], d[1], d[2], d[3]);
	}
	/* Our own size, in 2 and 3 dimensions: a product of nprocs. */
	for (j = 2; j <= 3; j++) {
		d[0] = d[1] = d[2] = 0;
		MPI_Dims_create(nprocs, j, d);
		if (d[0] * d[1] * (j == 3 ? d[2] : 1) != nprocs ||
		    d[0] < d[1] || (j == 3 && d[1] < d[2]))
			fail("Dims_create(%d, %d) gave %d %d %d", nprocs, j,
			    d[0], d[1], d[2]);
	}
}

/* Row-major coordinates of rank r in a grid of n dimensions. */
static void
coords_of(int r, int n, const int *dims, int *c)
{
	int	i;

	for (i = n - 1; i >= 0; i--) {
		c[i] = r % dims[i];
		r /= dims[i];
	}
}

/*
 * Along every dimension and for displacements 1, -1 and 2, send our
 * rank to the destination Cart_shift names and check that the message
 * from the source it names is the source's rank.
 */
static void
shifts(MPI_Comm cart, int n, const int *dims, const int *periods)
{
	MPI_Status	st;
	int		d, k, src, dst, got, rank, c[3], e[3];
	static const int disps[] = { 1, -1, 2 };

	MPI_Comm_rank(cart, &rank);
	coords_of(rank, n, dims, c);
	for (d = 0; d < n; d++)
		for (k = 0; k < 3; k++) {
			ok(MPI_Cart_shift(cart, d, disps[k], &src, &dst),
			    "Cart_shift");
			/* Where the destination should be. */
			memcpy(e, c, sizeof(e));
			e[d] += disps[k];
			if (periods[d])
				e[d] = ((e[d] % dims[d]) + dims[d]) % dims[d];
			if (e[d] < 0 || e[d] >= dims[d]) {
				if (dst != MPI_PROC_NULL)
					fail("shift %d by %d: destination %d "
					    "past the edge", d, disps[k], dst);
			} else {
				int	want;

				MPI_Cart_rank(cart, e, &want);
				if (dst != want)
					fail("shift %d by %d: destination %d, "
					    "expected %d", d, disps[k], dst,
					    want);
			}
			got = -1;
			MPI_Sendrecv(&rank, 1, MPI_INT, dst, 40 + k, &got, 1,
			    MPI_INT, src, 40 + k, cart, &st);
			if (src == MPI_PROC_NULL) {
				if (got != -1 || st.MPI_SOURCE != MPI_PROC_NULL)
					fail("shift %d by %d: received %d from "
					    "MPI_PROC_NULL", d, disps[k], got);
			} else if (got != src)
				fail("shift %d by %d: received %d from %d",
				    d, disps[k], got, src);
		}
}

/* Everything a Cartesian communicator should say about itself. */
static void
inspect(MPI_Comm cart, int n, const int *dims, const int *periods,
    const char *what)
{
	int	status, nd, gd[3], gp[3], gc[3], c[3], r, back, size, rank;
	int	i;

	MPI_Topo_test(cart, &status);
	if (status != MPI_CART)
		fail("%s: Topo_test gave %d", what, status);
	MPI_Cartdim_get(cart, &nd);
	if (nd != n)
		fail("%s: Cartdim_get gave %d, expected %d", what, nd, n);
	MPI_Comm_rank(cart, &rank);
	MPI_Comm_size(cart, &size);
	ok(MPI_Cart_get(cart, 3, gd, gp, gc), "Cart_get");
	coords_of(rank, n, dims, c);
	for (i = 0; i < n; i++)
		if (gd[i] != dims[i] || !gp[i] != !periods[i] ||
		    gc[i] != c[i])
			fail("%s: Cart_get dimension %d: %d %d %d, expected "
			    "%d %d %d", what, i, gd[i], gp[i], gc[i], dims[i],
			    periods[i], c[i]);
	for (r = 0; r < size; r++) {
		ok(MPI_Cart_coords(cart, r, 3, gc), "Cart_coords");
		coords_of(r, n, dims, c);
		for (i = 0; i < n; i++)
			if (gc[i] != c[i])
				fail("%s: Cart_coords(%d)[%d] = %d, expected "
				    "%d", what, r, i, gc[i], c[i]);
		ok(MPI_Cart_rank(cart, gc, &back), "Cart_rank");
		if (back != r)
			fail("%s: Cart_rank(Cart_coords(%d)) = %d", what, r,
			    back);
		/* Periodic dimensions wrap around. */
		for (i = 0; i < n; i++)
			if (periods[i]) {
				gc[i] += 3 * dims[i];
				ok(MPI_Cart_rank(cart, gc, &back),
				    "Cart_rank, wrapped");
				gc[i] -= 4 * dims[i];
				ok(MPI_Cart_rank(cart, gc, &back),
				    "Cart_rank, wrapped");
				gc[i] += dims[i];
				if (back != r)
					fail("%s: wrapped Cart_rank gave %d, "
					    "expected %d", what, back, r);
			}
	}
	shifts(cart, n, dims, periods);
}

static void
grids(void)
{
	MPI_Comm	cart, dup, sub, split;
	int		dims[3], periods[3], remain[3], status, size, rank;
	int		sdims[3], speriods[3], i, n, newrank;

	/* 1-D, periodic, the whole world. */
	dims[0] = nprocs;
	periods[0] = 1;
	ok(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart),
	    "Cart_create 1-D");
	inspect(cart, 1, dims, periods, "1-D ring");
	MPI_Comm_free(&cart);

	/* 2-D, periodic in the first dimension only; reorder allowed. */
	dims[0] = dims[1] = 0;
	MPI_Dims_create(nprocs, 2, dims);
	periods[0] = 1;
	periods[1] = 0;
	ok(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart),
	    "Cart_create 2-D");
	inspect(cart, 2, dims, periods, "2-D");
	ok(MPI_Comm_dup(cart, &dup), "Comm_dup of a Cartesian comm");
	inspect(dup, 2, dims, periods, "dup of 2-D");
	MPI_Comm_free(&dup);
	MPI_Comm_split(cart, 0, 0, &split);
	MPI_Topo_test(split, &status);
	if (status != MPI_UNDEFINED)
		fail("a split of a Cartesian comm has topology %d", status);
	MPI_Comm_free(&split);
	MPI_Comm_free(&cart);

	/* 3-D, periodic in the middle; then every sub-grid. */
	dims[0] = dims[1] = dims[2] = 0;
	MPI_Dims_create(nprocs, 3, dims);
	periods[0] = 0;
	periods[1] = 1;
	periods[2] = 0;
	ok(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart),
	    "Cart_create 3-D");
	inspect(cart, 3, dims, periods, "3-D");
	for (i = 0; i < 8; i++) {
		int	c[3], want = 1;

		for (n = 0; n < 3; n++)
			remain[n] = i >> n & 1;
		ok(MPI_Cart_sub(cart, remain, &sub), "Cart_sub");
		for (n = 0; n < 3; n++)
			if (remain[n]) {
				sdims[want - 1] = dims[n];
				speriods[want - 1] = periods[n];
				want++;
			}
		n = want - 1;
		MPI_Comm_size(sub, &size);
		for (want = 1, rank = 0; rank < n; rank++)
			want *= sdims[rank];
		if (size != want)
			fail("Cart_sub %d: size %d, expected %d", i, size,
			    want);
		/* Our place in the sub-grid: the kept coordinates. */
		MPI_Comm_rank(cart, &rank);
		coords_of(rank, 3, dims, c);
		for (want = 0, rank = 0; rank < 3; rank++)
			if (remain[rank])
				want = want * dims[rank] + c[rank];
		MPI_Comm_rank(sub, &rank);
		if (rank != want)
			fail("Cart_sub %d: rank %d, expected %d", i, rank,
			    want);
		if (n > 0)
			inspect(sub, n, sdims, speriods, "sub-grid");
		else {
			MPI_Cartdim_get(sub, &want);
			if (want != 0)
				fail("Cart_sub to nothing: %d dimensions",
				    want);
		}
		MPI_Comm_free(&sub);
	}
	MPI_Comm_free(&cart);

	/* A grid smaller than the world: the last rank is left out. */
	if (nprocs > 1) {
		dims[0] = nprocs - 1;
		periods[0] = 0;
		ok(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0,
		    &cart), "Cart_create, smaller grid");
		ok(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank),
		    "Cart_map");
		if (myrank == nprocs - 1) {
			if (cart != MPI_COMM_NULL)
				fail("the rank beyond the grid got a comm");
			/* Open MPI 4.1 gets this wrong. */
			if (newrank != MPI_UNDEFINED && is_ft())
				fail("Cart_map gave %d beyond the grid",
				    newrank);
		} else {
			inspect(cart, 1, dims, periods, "smaller grid");
			MPI_Comm_rank(cart, &rank);
			if (newrank != rank)
				fail("Cart_map gave %d, Cart_create %d",
				    newrank, rank);
			MPI_Comm_free(&cart);
		}
	}
	MPI_Topo_test(MPI_COMM_WORLD, &status);
	if (status != MPI_UNDEFINED)
		fail("Topo_test(world) gave %d", status);
}

static void
errors(void)
{
	MPI_Comm	cart = MPI_COMM_NULL;
	int		dims[3], periods[3] = { 0, 0, 0 }, c[3], rc, r, s;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Cartdim_get(MPI_COMM_WORLD, &r);
	expect(rc, MPI_ERR_TOPOLOGY, "Cartdim_get(world)");
	rc = MPI_Cart_get(MPI_COMM_WORLD, 3, dims, periods, c);
	expect(rc, MPI_ERR_TOPOLOGY, "Cart_get(world)");
	c[0] = 0;
	rc = MPI_Cart_rank(MPI_COMM_WORLD, c, &r);
	expect(rc, MPI_ERR_TOPOLOGY, "Cart_rank(world)");
	rc = MPI_Cart_coords(MPI_COMM_WORLD, 0, 3, c);
	expect(rc, MPI_ERR_TOPOLOGY, "Cart_coords(world)");
	rc = MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &r, &s);
	expect(rc, MPI_ERR_TOPOLOGY, "Cart_shift(world)");
	rc = MPI_Cart_sub(MPI_COMM_WORLD, periods, &cart);
	expect(rc, MPI_ERR_TOPOLOGY, "Cart_sub(world)");
	rc = MPI_Cart_rank(MPI_COMM_NULL, c, &r);
	expect(rc, MPI_ERR_COMM, "Cart_rank(MPI_COMM_NULL)");

	dims[0] = 0;
	rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
	expect(rc, is_ft() ? MPI_ERR_DIMS : ANY_ERROR,
	    "Cart_create with a dimension of 0");
	dims[0] = nprocs + 1;
	rc = MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
	expect(rc, is_ft() ? MPI_ERR_ARG : ANY_ERROR,
	    "Cart_create with more points than ranks");
	rc = MPI_Dims_create(nprocs * 3 + 1, 2, (dims[0] = 3, dims[1] = 0,
	    dims));
	expect(rc, MPI_ERR_DIMS, "Dims_create with an indivisible size");
	rc = MPI_Dims_create(nprocs, -1, dims);
	expect(rc, is_ft() ? MPI_ERR_DIMS : ANY_ERROR,
	    "Dims_create with ndims -1");

	dims[0] = nprocs;
	ok(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart),
	    "Cart_create, bounded line");
	MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
	rc = MPI_Cart_coords(cart, -1, 1, c);
	expect(rc, MPI_ERR_RANK, "Cart_coords of rank -1");
	/* Open MPI 4.1 checks neither of these. */
	if (is_ft()) {
		rc = MPI_Cart_coords(cart, nprocs, 1, c);
		expect(rc, MPI_ERR_RANK, "Cart_coords of rank size");
		rc = MPI_Cart_shift(cart, 1, 1, &r, &s);
		expect(rc, MPI_ERR_ARG, "Cart_shift in direction 1 of 1");
	}
	c[0] = nprocs;
	rc = MPI_Cart_rank(cart, c, &r);
	expect(rc, is_ft() ? MPI_ERR_ARG : ANY_ERROR,
	    "Cart_rank past the edge of a bounded line");
	MPI_Comm_free(&cart);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	dims_create();
	grids();
	errors();
	return finish();
}
