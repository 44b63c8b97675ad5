/* SPDX-License-Identifier: ISC */
/*
 * Neighbourhood collectives, blocking and nonblocking, on Cartesian,
 * graph and distributed-graph communicators: each is one round of
 * schedule (op.h) that receives a block from every source and sends
 * one to every destination, on the collective context.
 *
 * The neighbours are in the standard's order.  Cartesian: for each
 * dimension, the rank at -1 then the one at +1 (MPI_Cart_shift with
 * displacement 1), sources and destinations alike; a missing one is
 * MPI_PROC_NULL, whose block is neither sent nor touched.  Graph: the
 * node's edges (MPI_Graph_neighbors), both ways, which needs as many
 * edges back as out (a symmetric adjacency matrix).  Distributed
 * graph: the sources and destinations of MPI_Dist_graph_neighbors.
 *
 * Between two ranks there may be several edges.  On a graph, the k-th
 * block one rank sends the other is the k-th that rank receives from
 * it, as point-to-point order gives.  On a periodic Cartesian dimension
 * of size 1 or 2 both neighbours are the same rank: there the tag says
 * which direction a block was sent in, so that what goes to the +1
 * neighbour arrives as that rank's block from -1, as everywhere else.
 */
#include <stdlib.h>

#include "op.h"

/* A tag range of our own, well clear of coll.c's. */
#define T_NEIGHBOR	64
#define TAG(step)	FT_COLL_TAG(T_NEIGHBOR, (step))

/* The calling rank's neighbours, and how to tag the blocks. */
struct adj {
	int		 nin, nout;
	const int	*in, *out;
	int		 cart;	/* tag by direction */
};

/* How the blocks of a side lie in its buffer. */
enum layout {
	L_ONE = 1,	/* one block for all: the allgather send */
	L_BLOCKS,	/* count elements of type each, one after another */
	L_V,		/* counts[i] elements of type, displs[i] elements in */
	L_W,		/* counts[i] of types[i], bdispls[i] bytes in */
};

/* One side of a neighbourhood collective: the blocks sent or received. */
struct side {
	const char		*what;
	enum layout		 layout;
	const void		*buf;
	int			 count;
	const int		*counts;
	const int		*displs;
	const MPI_Aint		*bdispls;
	MPI_Datatype		 type;
	const MPI_Datatype	*types;
};

/*
 * FT-MPI's BLANK: the schedule runs on the live members of a
 * communicator with holes (s->holes, ftmpi.c), so a neighbour, a rank
 * of the communicator named, becomes a rank among them, and a hole is
 * MPI_PROC_NULL: its blocks are neither sent nor touched.
 */
static int
live_rank(const struct ft_coll_sched *s, int r)
{
	int i;

	if (r == MPI_PROC_NULL)
		return r;
	for (i = 0; i < s->comm->size; i++)
		if (s->comm->world[i] == s->holes->world[r])
			return i;
	return MPI_PROC_NULL;
}

static int
adj_unhole(struct ft_coll_sched *s, struct adj *a)
{
	int *in, *out, i;

	if ((in = ft__coll_tmp(s, (int)((a->nin + a->nout + 1) *
	    sizeof(*in)), NULL)) == NULL)
		return ft__coll_built(s);
	out = in + a->nin;
	for (i = 0; i < a->nin; i++)
		in[i] = live_rank(s, a->in[i]);
	for (i = 0; i < a->nout; i++)
		out[i] = live_rank(s, a->out[i]);
	a->in = in;
	a->out = out;
	return MPI_SUCCESS;
}

static int
adj_get(struct ft_coll_sched *s, struct adj *a)
{
	struct ft_mpi_topo *t;
	MPI_Comm comm = s->holes != NULL ? s->holes : s->comm;
	int *nb, d, first, rc;

	if ((rc = ft__mpi_comm_intra(comm, s->call)) != MPI_SUCCESS)
		return rc;
	if ((t = comm->topo) == NULL)
		return ft__mpi_err(comm, MPI_ERR_TOPOLOGY, s->call,
		    "the communicator has no topology");
	memset(a, 0, sizeof(*a));
	switch (t->kind) {
	case MPI_CART:
		if ((nb = ft__coll_tmp(s, (int)(2 * t->ndims * sizeof(int)),
		    NULL)) == NULL)
			return ft__coll_built(s);
		for (d = 0; d < t->ndims; d++)
			if ((rc = MPI_Cart_shift(comm, d, 1, &nb[2 * d],
			    &nb[2 * d + 1])) != MPI_SUCCESS)
				return rc;
		a->nin = a->nout = 2 * t->ndims;
		a->in = a->out = nb;
		a->cart = 1;
		break;
	case MPI_GRAPH:
		if (!t->symmetric)
			return ft__mpi_err(comm, MPI_ERR_TOPOLOGY, s->call,
			    "the graph has edges without as many edges back");
		first = comm->rank > 0 ? t->index[comm->rank - 1] : 0;
		a->nin = a->nout = t->index[comm->rank] - first;
		a->in = a->out = t->edges + first;
		break;
	default:
		a->nin = t->indegree;
		a->nout = t->outdegree;
		a->in = t->sources;
		a->out = t->destinations;
		break;
	}
	return s->holes != NULL ? adj_unhole(s, a) : MPI_SUCCESS;
}

/* How many elements of what block i of a side holds. */
static void
side_elem(const struct side *sd, int i, int *count, MPI_Datatype *type)
{
	*count = sd->layout == L_V || sd->layout == L_W ? sd->counts[i] :
	    sd->count;
	*type = sd->layout == L_W ? sd->types[i] : sd->type;
}

/* Block i of a side (checked): where it is, how many of what. */
static char *
side_block(const struct side *sd, int i, int *count, MPI_Datatype *type)
{
	char *buf = (char *)(uintptr_t)sd->buf;

	side_elem(sd, i, count, type);
	switch (sd->layout) {
	case L_ONE:
		return buf;
	case L_BLOCKS:
		return buf + (MPI_Aint)i * *count * (*type)->extent;
	case L_V:
		return buf + (MPI_Aint)sd->displs[i] * (*type)->extent;
	default:
		return buf + sd->bdispls[i];
	}
}

/* Check every block of a side of n blocks. */
static int
side_check(struct ft_coll_sched *s, const struct side *sd, int n)
{
	MPI_Datatype type;
	int i, count;

	if (sd->buf == MPI_IN_PLACE)
		return ft__mpi_err(s->comm, MPI_ERR_BUFFER, s->call,
		    "MPI_IN_PLACE is not allowed in a neighbourhood "
		    "collective");
	if (n > 0 && ((sd->layout == L_V && (sd->counts == NULL ||
	    sd->displs == NULL)) || (sd->layout == L_W &&
	    (sd->counts == NULL || sd->bdispls == NULL || sd->types == NULL))))
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "NULL %s counts, displacements or datatypes", sd->what);
	for (i = 0; i < n; i++) {
		side_elem(sd, i, &count, &type);
		if (count < 0)
			return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
			    "negative %s count %d for neighbour %d", sd->what,
			    count, i);
		if (!ft__mpi_type_ok(type))
			return ft__mpi_err(s->comm, MPI_ERR_TYPE, s->call,
			    "invalid %s datatype for neighbour %d", sd->what,
			    i);
		/* Derived types may address memory from MPI_BOTTOM. */
		if (sd->buf == NULL && count > 0 && type->predefined &&
		    type->size > 0)
			return ft__mpi_err(s->comm, MPI_ERR_BUFFER, s->call,
			    "NULL %s buffer", sd->what);
	}
	if (sd->layout == L_BLOCKS && n > 0 && sd->count > 0 &&
	    sd->type->extent > 0 && n > PTRDIFF_MAX /
	    ((MPI_Aint)sd->count * sd->type->extent))
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "%d %s blocks of %d elements do not fit in memory", n,
		    sd->what, sd->count);
	return MPI_SUCCESS;
}

/*
 * Build the schedule: receive every block first, then send, all in one
 * round.  Cartesian blocks are tagged with the slot they were sent from
 * (2 * dimension, + 1 going up); the receiver expects, from its -1
 * neighbour, what that rank sent up.
 */
static int
build(struct ft_coll_sched *s, const struct side *snd,
    const struct side *rcv)
{
	struct adj a;
	MPI_Datatype type;
	char *p;
	int i, count, rc;

	if ((rc = adj_get(s, &a)) != MPI_SUCCESS ||
	    (rc = side_check(s, rcv, a.nin)) != MPI_SUCCESS ||
	    (rc = side_check(s, snd, a.nout)) != MPI_SUCCESS)
		return rc;
	for (i = 0; i < a.nin; i++) {
		if (a.in[i] == MPI_PROC_NULL)
			continue;
		p = side_block(rcv, i, &count, &type);
		ft__coll_recv(s, p, count, type, a.in[i],
		    a.cart ? TAG(i ^ 1) : TAG(0));
	}
	for (i = 0; i < a.nout; i++) {
		if (a.out[i] == MPI_PROC_NULL)
			continue;
		p = side_block(snd, i, &count, &type);
		ft__coll_send(s, p, count, type, a.out[i],
		    a.cart ? TAG(i) : TAG(0));
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

/*
 * Run the collective: blocking (nb == 0) on a schedule on the stack,
 * or handed to a new request in *req.
 */
static int
start(MPI_Comm comm, const char *call, const struct side *snd,
    const struct side *rcv, int nb, MPI_Request *req)
{
	struct ft_coll_sched ss, *s = &ss;
	int rc;

	FT_MPI_CHECK_INIT(call);
	if (nb && req == NULL)
		return ft__mpi_err(comm, MPI_ERR_REQUEST, call, "NULL request");
	if (nb && (s = ft__coll_new(comm, call)) == NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
	if (!nb)
		ft__coll_init(s, comm, call);
	if ((rc = build(s, snd, rcv)) == MPI_SUCCESS && nb)
		return ft__coll_post(s, req);
	if (rc == MPI_SUCCESS)
		rc = ft__coll_run(s);
	ft__coll_release(s);
	if (nb)
		free(s);
	return rc;
}

/* Each collective, blocking or not; the public calls name themselves. */
static int
allgather(const char *call, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
    MPI_Comm comm, int nb, MPI_Request *req)
{
	struct side snd = { .what = "send", .layout = L_ONE, .buf = sbuf,
	    .count = scount, .type = stype };
	struct side rcv = { .what = "receive", .layout = L_BLOCKS,
	    .buf = rbuf, .count = rcount, .type = rtype };

	return start(comm, call, &snd, &rcv, nb, req);
}

static int
allgatherv(const char *call, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
    MPI_Datatype rtype, MPI_Comm comm, int nb, MPI_Request *req)
{
	struct side snd = { .what = "send", .layout = L_ONE, .buf = sbuf,
	    .count = scount, .type = stype };
	struct side rcv = { .what = "receive", .layout = L_V, .buf = rbuf,
	    .counts = rcounts, .displs = displs, .type = rtype };

	return start(comm, call, &snd, &rcv, nb, req);
}

static int
alltoall(const char *call, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
    MPI_Comm comm, int nb, MPI_Request *req)
{
	struct side snd = { .what = "send", .layout = L_BLOCKS, .buf = sbuf,
	    .count = scount, .type = stype };
	struct side rcv = { .what = "receive", .layout = L_BLOCKS,
	    .buf = rbuf, .count = rcount, .type = rtype };

	return start(comm, call, &snd, &rcv, nb, req);
}

static int
alltoallv(const char *call, const void *sbuf, const int *scounts,
    const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts,
    const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, int nb,
    MPI_Request *req)
{
	struct side snd = { .what = "send", .layout = L_V, .buf = sbuf,
	    .counts = scounts, .displs = sdispls, .type = stype };
	struct side rcv = { .what = "receive", .layout = L_V, .buf = rbuf,
	    .counts = rcounts, .displs = rdispls, .type = rtype };

	return start(comm, call, &snd, &rcv, nb, req);
}

static int
alltoallw(const char *call, const void *sbuf, const int *scounts,
    const MPI_Aint *sdispls, const MPI_Datatype *stypes, void *rbuf,
    const int *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rtypes,
    MPI_Comm comm, int nb, MPI_Request *req)
{
	struct side snd = { .what = "send", .layout = L_W, .buf = sbuf,
	    .counts = scounts, .bdispls = sdispls, .types = stypes };
	struct side rcv = { .what = "receive", .layout = L_W, .buf = rbuf,
	    .counts = rcounts, .bdispls = rdispls, .types = rtypes };

	return start(comm, call, &snd, &rcv, nb, req);
}

int
PMPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	return allgather("MPI_Neighbor_allgather", sbuf, scount, stype, rbuf,
	    rcount, rtype, comm, 0, NULL);
}

int
PMPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
    MPI_Request *req)
{
	return allgather("MPI_Ineighbor_allgather", sbuf, scount, stype, rbuf,
	    rcount, rtype, comm, 1, req);
}

int
PMPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype,
    MPI_Comm comm)
{
	return allgatherv("MPI_Neighbor_allgatherv", sbuf, scount, stype,
	    rbuf, rcounts, displs, rtype, comm, 0, NULL);
}

int
PMPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype,
    MPI_Comm comm, MPI_Request *req)
{
	return allgatherv("MPI_Ineighbor_allgatherv", sbuf, scount, stype,
	    rbuf, rcounts, displs, rtype, comm, 1, req);
}

int
PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	return alltoall("MPI_Neighbor_alltoall", sbuf, scount, stype, rbuf,
	    rcount, rtype, comm, 0, NULL);
}

int
PMPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm,
    MPI_Request *req)
{
	return alltoall("MPI_Ineighbor_alltoall", sbuf, scount, stype, rbuf,
	    rcount, rtype, comm, 1, req);
}

int
PMPI_Neighbor_alltoallv(const void *sbuf, const int *scounts,
    const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts,
    const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
	return alltoallv("MPI_Neighbor_alltoallv", sbuf, scounts, sdispls,
	    stype, rbuf, rcounts, rdispls, rtype, comm, 0, NULL);
}

int
PMPI_Ineighbor_alltoallv(const void *sbuf, const int *scounts,
    const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts,
    const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
	return alltoallv("MPI_Ineighbor_alltoallv", sbuf, scounts, sdispls,
	    stype, rbuf, rcounts, rdispls, rtype, comm, 1, req);
}

int
PMPI_Neighbor_alltoallw(const void *sbuf, const int *scounts,
    const MPI_Aint *sdispls, const MPI_Datatype *stypes, void *rbuf,
    const int *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rtypes,
    MPI_Comm comm)
{
	return alltoallw("MPI_Neighbor_alltoallw", sbuf, scounts, sdispls,
	    stypes, rbuf, rcounts, rdispls, rtypes, comm, 0, NULL);
}

int
PMPI_Ineighbor_alltoallw(const void *sbuf, const int *scounts,
    const MPI_Aint *sdispls, const MPI_Datatype *stypes, void *rbuf,
    const int *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rtypes,
    MPI_Comm comm, MPI_Request *req)
{
	return alltoallw("MPI_Ineighbor_alltoallw", sbuf, scounts, sdispls,
	    stypes, rbuf, rcounts, rdispls, rtypes, comm, 1, req);
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
