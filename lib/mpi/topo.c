/* SPDX-License-Identifier: ISC */
/*
 * Cartesian topologies: balanced dimensions, Cartesian communicators
 * (made by a split of the parent, so ranks keep their order: reorder is
 * accepted and ignored), conversions between ranks and coordinates,
 * shifts, and sub-grids.  Ranks are laid out in row-major order, the
 * last dimension varying fastest, as the standard says.  The topology
 * object of every kind is freed and copied here; graph.c makes the
 * graph ones.
 */
#include <stdlib.h>

#include "mpi_impl.h"

void
ft__mpi_topo_free(struct ft_mpi_topo *t)
{
	if (t == NULL)
		return;
	free(t->dims);
	free(t->periods);
	free(t->coords);
	free(t->index);
	free(t->edges);
	free(t->sources);
	free(t->sourceweights);
	free(t->destinations);
	free(t->destweights);
	free(t);
}

/* A Cartesian topology of ndims dimensions, coordinates of rank. */
static struct ft_mpi_topo *
topo_new(int ndims, const int *dims, const int *periods, int rank)
{
	struct ft_mpi_topo *t;
	size_t n = ndims > 0 ? (size_t)ndims : 1;
	int i;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->dims = calloc(n, sizeof(int));
	t->periods = calloc(n, sizeof(int));
	t->coords = calloc(n, sizeof(int));
	if (t->dims == NULL || t->periods == NULL || t->coords == NULL) {
		ft__mpi_topo_free(t);
		return NULL;
	}
	t->kind = MPI_CART;
	t->ndims = ndims;
	for (i = 0; i < ndims; i++) {
		t->dims[i] = dims[i];
		t->periods[i] = periods[i] != 0;
	}
	for (i = ndims - 1; i >= 0; i--) {
		t->coords[i] = rank % dims[i];
		rank /= dims[i];
	}
	return t;
}

/* A copy of n ints at p into *out (NULL stays NULL); -1 when out of memory. */
static int
ints_dup(int **out, const int *p, int n)
{
	*out = NULL;
	if (p == NULL)
		return 0;
	if ((*out = calloc(n > 0 ? (size_t)n : 1, sizeof(int))) == NULL)
		return -1;
	if (n > 0)
		memcpy(*out, p, (size_t)n * sizeof(int));
	return 0;
}

struct ft_mpi_topo *
ft__mpi_topo_dup(const struct ft_mpi_topo *t)
{
	struct ft_mpi_topo *n;
	int bad;

	if ((n = calloc(1, sizeof(*n))) == NULL)
		return NULL;
	*n = *t;
	bad = ints_dup(&n->dims, t->dims, t->ndims) |
	    ints_dup(&n->periods, t->periods, t->ndims) |
	    ints_dup(&n->coords, t->coords, t->ndims) |
	    ints_dup(&n->index, t->index, t->nnodes) |
	    ints_dup(&n->edges, t->edges, t->nedges) |
	    ints_dup(&n->sources, t->sources, t->indegree) |
	    ints_dup(&n->sourceweights, t->sourceweights, t->indegree) |
	    ints_dup(&n->destinations, t->destinations, t->outdegree) |
	    ints_dup(&n->destweights, t->destweights, t->outdegree);
	if (bad) {
		ft__mpi_topo_free(n);
		return NULL;
	}
	return n;
}

/* The communicator's Cartesian topology, or an error reported. */
static int
cart_of(MPI_Comm comm, const char *call, struct ft_mpi_topo **t)
{
	int rc;

	*t = NULL;
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS)
		return rc;
	if (comm->topo == NULL || comm->topo->kind != MPI_CART)
		return ft__mpi_err(comm, MPI_ERR_TOPOLOGY, call,
		    "the communicator has no Cartesian topology");
	*t = comm->topo;
	return MPI_SUCCESS;
}

static int
int_cmp_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x < y) - (x > y);
}

int
PMPI_Dims_create(int nnodes, int ndims, int *dims)
{
	int *f, fixed = 1, nfree = 0, rem, p, i, j, k;

	FT_MPI_CHECK_INIT("MPI_Dims_create");
	if (ndims < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS,
		    "MPI_Dims_create", "negative ndims %d", ndims);
	if (nnodes <= 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Dims_create", "nnodes %d is not positive", nnodes);
	if (ndims > 0 && dims == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Dims_create", "NULL dims");
	for (i = 0; i < ndims; i++) {
		if (dims[i] < 0)
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS,
			    "MPI_Dims_create", "dims[%d] is negative", i);
		if (dims[i] == 0)
			nfree++;
		else if (nnodes % dims[i] != 0 ||
		    nnodes / dims[i] % fixed != 0)
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS,
			    "MPI_Dims_create", "%d nodes do not divide into "
			    "the given dimensions", nnodes);
		else
			fixed *= dims[i];
	}
	rem = nnodes / fixed;
	if (nfree == 0) {
		if (rem != 1)
			return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_DIMS,
			    "MPI_Dims_create", "the dimensions given hold %d "
			    "nodes, not %d", fixed, nnodes);
		return MPI_SUCCESS;
	}
	if ((f = calloc((size_t)nfree, sizeof(*f))) == NULL)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
		    "MPI_Dims_create", "out of memory");
	for (i = 0; i < nfree; i++)
		f[i] = 1;
	/*
	 * Give each prime factor, largest first, to the free dimension
	 * that is smallest so far: this keeps them as close as it can.
	 * The factors come out smallest first, so collect them, then
	 * walk them backwards.
	 */
	{
		int primes[32], np = 0;

		for (p = 2; (long long)p * p <= rem; p++)
			while (rem % p == 0) {
				primes[np++] = p;
				rem /= p;
			}
		if (rem > 1)
			primes[np++] = rem;
		for (j = np - 1; j >= 0; j--) {
			for (k = 0, i = 1; i < nfree; i++)
				if (f[i] < f[k])
					k = i;
			f[k] *= primes[j];
		}
	}
	qsort(f, (size_t)nfree, sizeof(*f), int_cmp_desc);
	for (i = j = 0; i < ndims; i++)
		if (dims[i] == 0)
			dims[i] = f[j++];
	free(f);
	return MPI_SUCCESS;
}

int
PMPI_Cart_create(MPI_Comm comm, int ndims, const int *dims,
    const int *periods, int reorder, MPI_Comm *newcomm)
{
	const char *why = "";
	long long n = 1;
	int err = 0, i, rc;

	(void)reorder;
	FT_MPI_CHECK_INIT("MPI_Cart_create");
	if ((rc = ft__mpi_comm_intra(comm, "MPI_Cart_create")) !=
	    MPI_SUCCESS ||
	    (rc = ft__mpi_ftmpi_whole(comm, "MPI_Cart_create")) != MPI_SUCCESS)
		return rc;
	if (newcomm == NULL || (ndims > 0 && (dims == NULL ||
	    periods == NULL))) {
		err = MPI_ERR_ARG;
		why = "NULL argument";
	} else if (ndims < 0) {
		err = MPI_ERR_DIMS;
		why = "negative ndims";
	} else
		for (i = 0; i < ndims && err == 0; i++) {
			if (dims[i] <= 0) {
				err = MPI_ERR_DIMS;
				why = "a dimension is not positive";
			} else if ((n *= dims[i]) > comm->size) {
				err = MPI_ERR_ARG;
				why = "the grid has more points than the "
				    "communicator has ranks";
			}
		}
	/* The first ranks make the grid; the others get MPI_COMM_NULL. */
	if ((rc = ft__mpi_comm_split(comm, err == 0 && comm->rank < n ? 0 :
	    MPI_UNDEFINED, comm->rank, err, why, "MPI_Cart_create",
	    newcomm)) != MPI_SUCCESS || *newcomm == MPI_COMM_NULL)
		return rc;
	if (((*newcomm)->topo = topo_new(ndims, dims, periods,
	    (*newcomm)->rank)) == NULL) {
		(void)MPI_Comm_free(newcomm);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Cart_create",
		    "out of memory");
	}
	return MPI_SUCCESS;
}

int
PMPI_Cart_map(MPI_Comm comm, int ndims, const int *dims, const int *periods,
    int *newrank)
{
	long long n = 1;
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Cart_map");
	if ((rc = ft__mpi_comm_intra(comm, "MPI_Cart_map")) != MPI_SUCCESS)
		return rc;
	if (newrank == NULL || (ndims > 0 && (dims == NULL ||
	    periods == NULL)))
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_map",
		    "NULL argument");
	if (ndims < 0)
		return ft__mpi_err(comm, MPI_ERR_DIMS, "MPI_Cart_map",
		    "negative ndims %d", ndims);
	for (i = 0; i < ndims; i++) {
		if (dims[i] <= 0)
			return ft__mpi_err(comm, MPI_ERR_DIMS, "MPI_Cart_map",
			    "dims[%d] is not positive", i);
		if ((n *= dims[i]) > comm->size)
			return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_map",
			    "the grid has more points than the "
			    "communicator has ranks");
	}
	*newrank = comm->rank < n ? comm->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

int
PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	struct ft_mpi_topo *t;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Cartdim_get");
	if ((rc = cart_of(comm, "MPI_Cartdim_get", &t)) != MPI_SUCCESS)
		return rc;
	if (ndims == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cartdim_get",
		    "NULL argument");
	*ndims = t->ndims;
	return MPI_SUCCESS;
}

int
PMPI_Cart_get(MPI_Comm comm, int maxdims, int *dims, int *periods,
    int *coords)
{
	struct ft_mpi_topo *t;
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Cart_get");
	if ((rc = cart_of(comm, "MPI_Cart_get", &t)) != MPI_SUCCESS)
		return rc;
	if (maxdims < t->ndims)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_get",
		    "maxdims %d is less than the %d dimensions", maxdims,
		    t->ndims);
	if (t->ndims > 0 && (dims == NULL || periods == NULL ||
	    coords == NULL))
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_get",
		    "NULL argument");
	for (i = 0; i < t->ndims; i++) {
		dims[i] = t->dims[i];
		periods[i] = t->periods[i];
		coords[i] = t->coords[i];
	}
	return MPI_SUCCESS;
}

int
PMPI_Cart_rank(MPI_Comm comm, const int *coords, int *rank)
{
	struct ft_mpi_topo *t;
	int i, c, r = 0, rc;

	FT_MPI_CHECK_INIT("MPI_Cart_rank");
	if ((rc = cart_of(comm, "MPI_Cart_rank", &t)) != MPI_SUCCESS)
		return rc;
	if (rank == NULL || (t->ndims > 0 && coords == NULL))
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_rank",
		    "NULL argument");
	for (i = 0; i < t->ndims; i++) {
		c = coords[i];
		if (t->periods[i])
			c = (c % t->dims[i] + t->dims[i]) % t->dims[i];
		else if (c < 0 || c >= t->dims[i])
			return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_rank",
			    "coordinate %d is %d, outside 0..%d", i, c,
			    t->dims[i] - 1);
		r = r * t->dims[i] + c;
	}
	*rank = r;
	return MPI_SUCCESS;
}

int
PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int *coords)
{
	struct ft_mpi_topo *t;
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Cart_coords");
	if ((rc = cart_of(comm, "MPI_Cart_coords", &t)) != MPI_SUCCESS)
		return rc;
	if (rank < 0 || rank >= comm->size)
		return ft__mpi_err(comm, MPI_ERR_RANK, "MPI_Cart_coords",
		    "invalid rank %d in a communicator of size %d", rank,
		    comm->size);
	if (maxdims < t->ndims)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_coords",
		    "maxdims %d is less than the %d dimensions", maxdims,
		    t->ndims);
	if (t->ndims > 0 && coords == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_coords",
		    "NULL argument");
	for (i = t->ndims - 1; i >= 0; i--) {
		coords[i] = rank % t->dims[i];
		rank /= t->dims[i];
	}
	return MPI_SUCCESS;
}

/* Move coordinate c of dimension d by disp: a rank or MPI_PROC_NULL. */
static int
shifted(const struct ft_mpi_topo *t, int d, long long disp)
{
	long long c = t->coords[d] + disp, r = 0;
	int i;

	if (t->periods[d])
		c = (c % t->dims[d] + t->dims[d]) % t->dims[d];
	else if (c < 0 || c >= t->dims[d])
		return MPI_PROC_NULL;
	for (i = 0; i < t->ndims; i++)
		r = r * t->dims[i] + (i == d ? c : t->coords[i]);
	return (int)r;
}

int
PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *src, int *dst)
{
	struct ft_mpi_topo *t;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Cart_shift");
	if ((rc = cart_of(comm, "MPI_Cart_shift", &t)) != MPI_SUCCESS)
		return rc;
	if (src == NULL || dst == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_shift",
		    "NULL argument");
	if (direction < 0 || direction >= t->ndims)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Cart_shift",
		    "direction %d is not one of the %d dimensions",
		    direction, t->ndims);
	*dst = shifted(t, direction, disp);
	*src = shifted(t, direction, -(long long)disp);
	return MPI_SUCCESS;
}

int
PMPI_Cart_sub(MPI_Comm comm, const int *remain, MPI_Comm *newcomm)
{
	struct ft_mpi_topo *t;
	const char *why = "";
	int dims[64], periods[64], i, n = 0, color = 0, err = 0, rc;

	FT_MPI_CHECK_INIT("MPI_Cart_sub");
	if ((rc = cart_of(comm, "MPI_Cart_sub", &t)) != MPI_SUCCESS ||
	    (rc = ft__mpi_ftmpi_whole(comm, "MPI_Cart_sub")) != MPI_SUCCESS)
		return rc;
	if (newcomm == NULL || (t->ndims > 0 && remain == NULL)) {
		err = MPI_ERR_ARG;
		why = "NULL argument";
	} else if (t->ndims > (int)FT_NELEM(dims)) {
		err = MPI_ERR_DIMS;
		why = "too many dimensions";
	} else
		/*
		 * Ranks that agree on the dropped coordinates share a
		 * sub-grid; keeping the parent's order keeps row-major
		 * order within it.
		 */
		for (i = 0; i < t->ndims; i++)
			if (remain[i]) {
				dims[n] = t->dims[i];
				periods[n++] = t->periods[i];
			} else
				color = color * t->dims[i] + t->coords[i];
	if ((rc = ft__mpi_comm_split(comm, color, comm->rank, err, why,
	    "MPI_Cart_sub", newcomm)) != MPI_SUCCESS)
		return rc;
	if (((*newcomm)->topo = topo_new(n, dims, periods,
	    (*newcomm)->rank)) == NULL) {
		(void)MPI_Comm_free(newcomm);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Cart_sub",
		    "out of memory");
	}
	return MPI_SUCCESS;
}

int
PMPI_Topo_test(MPI_Comm comm, int *status)
{
	FT_MPI_CHECK_INIT("MPI_Topo_test");
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, "MPI_Topo_test",
		    "invalid communicator");
	if (status == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Topo_test",
		    "NULL argument");
	*status = comm->topo != NULL ? comm->topo->kind : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Dims_create = PMPI_Dims_create
#pragma weak MPI_Cart_create = PMPI_Cart_create
#pragma weak MPI_Cart_map = PMPI_Cart_map
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
#pragma weak MPI_Cart_get = PMPI_Cart_get
#pragma weak MPI_Cart_rank = PMPI_Cart_rank
#pragma weak MPI_Cart_coords = PMPI_Cart_coords
#pragma weak MPI_Cart_shift = PMPI_Cart_shift
#pragma weak MPI_Cart_sub = PMPI_Cart_sub
#pragma weak MPI_Topo_test = PMPI_Topo_test
