/* SPDX-License-Identifier: ISC */
/*
 * Graph and distributed-graph topologies.  Both are made by a split of
 * the parent, as Cartesian ones are, so ranks keep their order and
 * reorder is accepted and ignored; the split also makes every rank fail
 * together when one passes bad arguments.  A graph communicator keeps
 * the whole graph on every rank.  A distributed graph keeps only the
 * caller's edges: MPI_Dist_graph_create_adjacent is given them,
 * MPI_Dist_graph_create sends each edge to both of its ends with an
 * all-to-all over the new communicator, so a rank's sources come in
 * the order of the ranks that named them, then of their lists.
 * Weights are kept, and mean nothing to ft.
 */
#include <limits.h>
#include <stdlib.h>

#include "mpi_impl.h"

/* Arguments of the graph constructors are checked into these. */
struct check {
	int		 err;		/* an MPI error class, or 0 */
	const char	*why;
};

static void
bad(struct check *c, int err, const char *why)
{
	if (c->err == 0) {
		c->err = err;
		c->why = why;
	}
}

/* The communicator's topology of kind, or an error reported. */
static int
topo_of(MPI_Comm comm, int kind, const char *call, struct ft_mpi_topo **t)
{
	int rc;

	*t = NULL;
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS)
		return rc;
	if (comm->topo == NULL || comm->topo->kind != kind)
		return ft__mpi_err(comm, MPI_ERR_TOPOLOGY, call,
		    "the communicator has no %s topology",
		    kind == MPI_GRAPH ? "graph" : "distributed graph");
	*t = comm->topo;
	return MPI_SUCCESS;
}

/* The graph of MPI_Graph_create and MPI_Graph_map, on size ranks. */
static void
check_graph(struct check *c, int size, int nnodes, const int *index,
    const int *edges)
{
	int i, prev = 0;

	if (nnodes < 0)
		bad(c, MPI_ERR_ARG, "negative nnodes");
	else if (nnodes > size)
		bad(c, MPI_ERR_ARG, "the graph has more nodes than the "
		    "communicator has ranks");
	else if (nnodes > 0 && index == NULL)
		bad(c, MPI_ERR_ARG, "NULL index");
	for (i = 0; c->err == 0 && i < nnodes; i++) {
		if (index[i] < prev)
			bad(c, MPI_ERR_ARG, "index is not a running total "
			    "of degrees");
		prev = index[i];
	}
	if (c->err == 0 && prev > 0 && edges == NULL)
		bad(c, MPI_ERR_ARG, "NULL edges");
	for (i = 0; c->err == 0 && i < prev; i++)
		if (edges[i] < 0 || edges[i] >= nnodes)
			bad(c, MPI_ERR_ARG, "an edge leads outside the graph");
}

/*
 * Does every node have as many edges to each other node as that node
 * has back to it?  Self-loops count on both sides at once.
 */
static int
symmetric(int nnodes, const int *index, const int *edges)
{
	int *cnt, i, k, ok = 1;

	if (nnodes == 0)
		return 1;
	if ((cnt = calloc((size_t)nnodes, sizeof(*cnt))) == NULL)
		return -1;
	for (i = 0; ok && i < nnodes; i++) {
		for (k = i > 0 ? index[i - 1] : 0; k < index[i]; k++)
			cnt[edges[k]]++;
		for (k = i > 0 ? index[i - 1] : 0; k < index[i]; k++) {
			int j = edges[k], m, back = 0;

			for (m = j > 0 ? index[j - 1] : 0; m < index[j]; m++)
				back += edges[m] == i;
			if (cnt[j] != back)
				ok = 0;
		}
		for (k = i > 0 ? index[i - 1] : 0; k < index[i]; k++)
			cnt[edges[k]] = 0;
	}
	free(cnt);
	return ok;
}

/* A copy of n ints, or NULL (with n == 0 a valid empty array). */
static int *
ints(const int *p, int n)
{
	int *q;

	if ((q = calloc(n > 0 ? (size_t)n : 1, sizeof(*q))) != NULL && n > 0)
		memcpy(q, p, (size_t)n * sizeof(*q));
	return q;
}

int
PMPI_Graph_create(MPI_Comm comm, int nnodes, const int *index,
    const int *edges, int reorder, MPI_Comm *newcomm)
{
	static const char call[] = "MPI_Graph_create";
	struct check c = { 0, "" };
	struct ft_mpi_topo *t;
	int rc, sym;

	(void)reorder;
	FT_MPI_CHECK_INIT(call);
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS ||
	    (rc = ft__mpi_ftmpi_whole(comm, call)) != MPI_SUCCESS)
		return rc;
	if (newcomm == NULL)
		bad(&c, MPI_ERR_ARG, "NULL newcomm");
	check_graph(&c, comm->size, nnodes, index, edges);
	/* The first nnodes ranks are the graph; the others get NULL. */
	if ((rc = ft__mpi_comm_split(comm, c.err == 0 && comm->rank < nnodes ?
	    0 : MPI_UNDEFINED, comm->rank, c.err, c.why, call, newcomm)) !=
	    MPI_SUCCESS || *newcomm == MPI_COMM_NULL)
		return rc;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		goto nomem;
	(*newcomm)->topo = t;
	t->kind = MPI_GRAPH;
	t->nnodes = nnodes;
	t->nedges = index[nnodes - 1];
	if ((t->index = ints(index, nnodes)) == NULL ||
	    (t->edges = ints(edges, t->nedges)) == NULL ||
	    (sym = symmetric(nnodes, index, edges)) < 0)
		goto nomem;
	t->symmetric = sym;
	return MPI_SUCCESS;
nomem:
	(void)MPI_Comm_free(newcomm);
	return ft__mpi_err(comm, MPI_ERR_NO_MEM, call, "out of memory");
}

int
PMPI_Graph_map(MPI_Comm comm, int nnodes, const int *index, const int *edges,
    int *newrank)
{
	struct check c = { 0, "" };
	int rc;

	FT_MPI_CHECK_INIT("MPI_Graph_map");
	if ((rc = ft__mpi_comm_intra(comm, "MPI_Graph_map")) != MPI_SUCCESS)
		return rc;
	if (newrank == NULL)
		bad(&c, MPI_ERR_ARG, "NULL newrank");
	check_graph(&c, comm->size, nnodes, index, edges);
	if (c.err != 0)
		return ft__mpi_err(comm, c.err, "MPI_Graph_map", "%s", c.why);
	*newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

int
PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	struct ft_mpi_topo *t;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Graphdims_get");
	if ((rc = topo_of(comm, MPI_GRAPH, "MPI_Graphdims_get", &t)) !=
	    MPI_SUCCESS)
		return rc;
	if (nnodes == NULL || nedges == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Graphdims_get",
		    "NULL argument");
	*nnodes = t->nnodes;
	*nedges = t->nedges;
	return MPI_SUCCESS;
}

/* Copy the first n of the m ints at p into out (n < 0 is an error). */
static int
copy_out(MPI_Comm comm, const char *call, int *out, const int *p, int m,
    int n, const char *what)
{
	if (n < 0)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "negative %s %d",
		    what, n);
	if (n > m)
		n = m;
	if (n > 0 && out == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, call, "NULL array for "
		    "%s %d", what, n);
	if (n > 0)
		memcpy(out, p, (size_t)n * sizeof(*out));
	return MPI_SUCCESS;
}

/* The standard lets the arrays be shorter: only their room is filled. */
int
PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int *index,
    int *edges)
{
	struct ft_mpi_topo *t;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Graph_get");
	if ((rc = topo_of(comm, MPI_GRAPH, "MPI_Graph_get", &t)) !=
	    MPI_SUCCESS ||
	    (rc = copy_out(comm, "MPI_Graph_get", index, t->index, t->nnodes,
	    maxindex, "maxindex")) != MPI_SUCCESS)
		return rc;
	return copy_out(comm, "MPI_Graph_get", edges, t->edges, t->nedges,
	    maxedges, "maxedges");
}

/* The edges of node rank: *first in t->edges, *n of them. */
static int
node_edges(MPI_Comm comm, const char *call, const struct ft_mpi_topo *t,
    int rank, int *first, int *n)
{
	if (rank < 0 || rank >= t->nnodes)
		return ft__mpi_err(comm, MPI_ERR_RANK, call,
		    "invalid rank %d in a graph of %d nodes", rank,
		    t->nnodes);
	*first = rank > 0 ? t->index[rank - 1] : 0;
	*n = t->index[rank] - *first;
	return MPI_SUCCESS;
}

int
PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	struct ft_mpi_topo *t;
	int first, rc;

	FT_MPI_CHECK_INIT("MPI_Graph_neighbors_count");
	if ((rc = topo_of(comm, MPI_GRAPH, "MPI_Graph_neighbors_count",
	    &t)) != MPI_SUCCESS)
		return rc;
	if (nneighbors == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG,
		    "MPI_Graph_neighbors_count", "NULL argument");
	return node_edges(comm, "MPI_Graph_neighbors_count", t, rank, &first,
	    nneighbors);
}

int
PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
    int *neighbors)
{
	struct ft_mpi_topo *t;
	int first, n, rc;

	FT_MPI_CHECK_INIT("MPI_Graph_neighbors");
	if ((rc = topo_of(comm, MPI_GRAPH, "MPI_Graph_neighbors", &t)) !=
	    MPI_SUCCESS ||
	    (rc = node_edges(comm, "MPI_Graph_neighbors", t, rank, &first,
	    &n)) != MPI_SUCCESS)
		return rc;
	return copy_out(comm, "MPI_Graph_neighbors", neighbors,
	    t->edges + first, n, maxneighbors, "maxneighbors");
}

/* Distributed graphs ------------------------------------------------ */

/*
 * One side of a rank's edges: n ranks and their weights (an array,
 * MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY).  *weighted is set on the first
 * side checked, and the second must agree with it.
 */
static void
check_side(struct check *c, int size, int n, const int *ranks,
    const int *weights, int *weighted, const char *what)
{
	int i, w = weights != MPI_UNWEIGHTED;

	if (n < 0) {
		bad(c, MPI_ERR_ARG, what);
		return;
	}
	if (*weighted < 0)
		*weighted = w;
	else if (*weighted != w)
		bad(c, MPI_ERR_ARG, "MPI_UNWEIGHTED for only some of the "
		    "weights");
	if (n > 0 && ranks == NULL)
		bad(c, MPI_ERR_ARG, "NULL array of ranks");
	if (n > 0 && w && (weights == NULL || weights == MPI_WEIGHTS_EMPTY))
		bad(c, MPI_ERR_ARG, "no weights for a weighted graph");
	for (i = 0; c->err == 0 && i < n; i++) {
		if (ranks[i] < 0 || ranks[i] >= size)
			bad(c, MPI_ERR_RANK, "a rank outside the communicator");
		else if (w && weights[i] < 0)
			bad(c, MPI_ERR_ARG, "a negative weight");
	}
}

/*
 * The common start of both constructors: check what the caller found
 * (c), agree on it, make the new communicator with an empty
 * distributed-graph topology.
 */
static int
dist_new(MPI_Comm comm, const char *call, MPI_Info info, MPI_Comm *newcomm,
    struct check *c, int weighted)
{
	struct ft_mpi_topo *t;
	int rc;

	if ((rc = ft__mpi_ftmpi_whole(comm, call)) != MPI_SUCCESS)
		return rc;
	if (info != MPI_INFO_NULL && !ft__mpi_info_ok(info))
		bad(c, MPI_ERR_INFO, "invalid info object");
	if (newcomm == NULL)
		bad(c, MPI_ERR_ARG, "NULL newcomm");
	if ((rc = ft__mpi_comm_split(comm, 0, comm->rank, c->err, c->why,
	    call, newcomm)) != MPI_SUCCESS)
		return rc;
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		(void)MPI_Comm_free(newcomm);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	t->kind = MPI_DIST_GRAPH;
	t->weighted = weighted;
	(*newcomm)->topo = t;
	return MPI_SUCCESS;
}

/* Give t its edges: copies of n ranks and weights (or none) a side. */
static int
dist_set(struct ft_mpi_topo *t, int nin, const int *in, const int *inw,
    int nout, const int *out, const int *outw)
{
	t->indegree = nin;
	t->outdegree = nout;
	if ((t->sources = ints(in, nin)) == NULL ||
	    (t->destinations = ints(out, nout)) == NULL)
		return -1;
	if (!t->weighted)
		return 0;
	if ((t->sourceweights = nin > 0 ? ints(inw, nin) : ints(NULL, 0)) ==
	    NULL || (t->destweights = nout > 0 ? ints(outw, nout) :
	    ints(NULL, 0)) == NULL)
		return -1;
	return 0;
}

int
PMPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree,
    const int *sources, const int *sourceweights, int outdegree,
    const int *destinations, const int *destweights, MPI_Info info,
    int reorder, MPI_Comm *newcomm)
{
	static const char call[] = "MPI_Dist_graph_create_adjacent";
	struct check c = { 0, "" };
	int rc, weighted = -1;

	(void)reorder;
	FT_MPI_CHECK_INIT(call);
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS)
		return rc;
	check_side(&c, comm->size, indegree, sources, sourceweights,
	    &weighted, "negative indegree");
	check_side(&c, comm->size, outdegree, destinations, destweights,
	    &weighted, "negative outdegree");
	if ((rc = dist_new(comm, call, info, newcomm, &c, weighted == 1)) !=
	    MPI_SUCCESS)
		return rc;
	if (dist_set((*newcomm)->topo, indegree, sources, sourceweights,
	    outdegree, destinations, destweights) != 0) {
		(void)MPI_Comm_free(newcomm);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	return MPI_SUCCESS;
}

/*
 * What MPI_Dist_graph_create sends each rank: for every edge it has an
 * end at, a record of three ints: REC_OUT or REC_IN, the other end,
 * the weight.
 */
#define REC_OUT		0
#define REC_IN		1
#define REC_INTS	3

/*
 * Spread the n edges given here (sources, degrees, destinations and
 * weights as the caller passed them, already checked) to both their
 * ends over nc, and give nc's topology what reaches this rank.  Every
 * rank also sends every other its weighted flag, and they must agree.
 */
static int
dist_spread(MPI_Comm nc, const char *call, int n, const int *sources,
    const int *degrees, const int *dests, const int *weights, int weighted)
{
	struct ft_mpi_topo *t = nc->topo;
	int *scnt, *sdsp, *rcnt, *rdsp, *sbuf = NULL, *rbuf = NULL;
	int *in = NULL, *inw = NULL, *out = NULL, *outw = NULL;
	int size = nc->size, i, j, k, e, nin = 0, nout = 0, rc;

	scnt = calloc((size_t)size * 4, sizeof(int));
	if (scnt == NULL)
		return ft__mpi_err(nc, MPI_ERR_NO_MEM, call, "out of memory");
	sdsp = scnt + size;
	rcnt = sdsp + size;
	rdsp = rcnt + size;
	/* Counts first, as pairs: ints for the rank, our weighted flag. */
	{
		int *pairs, *got;

		if ((pairs = calloc((size_t)size * 4, sizeof(int))) == NULL) {
			rc = ft__mpi_err(nc, MPI_ERR_NO_MEM, call,
			    "out of memory");
			goto done;
		}
		got = pairs + 2 * size;
		for (i = e = 0; i < n; i++)
			for (j = 0; j < degrees[i]; j++, e++) {
				pairs[2 * sources[i]] += REC_INTS;
				pairs[2 * dests[e]] += REC_INTS;
			}
		for (i = 0; i < size; i++)
			pairs[2 * i + 1] = weighted;
		rc = MPI_Alltoall(pairs, 2, MPI_INT, got, 2, MPI_INT, nc);
		for (i = 0; rc == MPI_SUCCESS && i < size; i++) {
			scnt[i] = pairs[2 * i];
			rcnt[i] = got[2 * i];
			if (got[2 * i + 1] != weighted)
				rc = ft__mpi_err(nc, MPI_ERR_ARG, call,
				    "MPI_UNWEIGHTED on only some ranks");
		}
		free(pairs);
		if (rc != MPI_SUCCESS)
			goto done;
	}
	for (i = 0, j = k = 0; i < size; i++) {
		sdsp[i] = j;
		rdsp[i] = k;
		if (scnt[i] > INT_MAX - j || rcnt[i] > INT_MAX - k) {
			rc = ft__mpi_err(nc, MPI_ERR_COUNT, call, "too many "
			    "edges for an int to count");
			goto done;
		}
		j += scnt[i];
		k += rcnt[i];
	}
	sbuf = calloc(j > 0 ? (size_t)j : 1, sizeof(int));
	rbuf = calloc(k > 0 ? (size_t)k : 1, sizeof(int));
	if (sbuf == NULL || rbuf == NULL) {
		rc = ft__mpi_err(nc, MPI_ERR_NO_MEM, call, "out of memory");
		goto done;
	}
	/* Fill in edge order; sdsp moves along and is set back after. */
	for (i = e = 0; i < n; i++)
		for (j = 0; j < degrees[i]; j++, e++) {
			int *p = sbuf + sdsp[sources[i]], w = weighted ?
			    weights[e] : 0;

			p[0] = REC_OUT;
			p[1] = dests[e];
			p[2] = w;
			sdsp[sources[i]] += REC_INTS;
			p = sbuf + sdsp[dests[e]];
			p[0] = REC_IN;
			p[1] = sources[i];
			p[2] = w;
			sdsp[dests[e]] += REC_INTS;
		}
	for (i = 0; i < size; i++)
		sdsp[i] -= scnt[i];
	if ((rc = MPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT, rbuf, rcnt, rdsp,
	    MPI_INT, nc)) != MPI_SUCCESS)
		goto done;
	for (i = 0; i < k; i += REC_INTS)
		*(rbuf[i] == REC_IN ? &nin : &nout) += 1;
	in = calloc((size_t)nin + 1, sizeof(int));
	inw = calloc((size_t)nin + 1, sizeof(int));
	out = calloc((size_t)nout + 1, sizeof(int));
	outw = calloc((size_t)nout + 1, sizeof(int));
	if (in == NULL || inw == NULL || out == NULL || outw == NULL) {
		rc = ft__mpi_err(nc, MPI_ERR_NO_MEM, call, "out of memory");
		goto done;
	}
	for (i = nin = nout = 0; i < k; i += REC_INTS) {
		if (rbuf[i] == REC_IN) {
			in[nin] = rbuf[i + 1];
			inw[nin++] = rbuf[i + 2];
		} else {
			out[nout] = rbuf[i + 1];
			outw[nout++] = rbuf[i + 2];
		}
	}
	if (dist_set(t, nin, in, inw, nout, out, outw) != 0)
		rc = ft__mpi_err(nc, MPI_ERR_NO_MEM, call, "out of memory");
done:
	free(in);
	free(inw);
	free(out);
	free(outw);
	free(sbuf);
	free(rbuf);
	free(scnt);
	return rc;
}

int
PMPI_Dist_graph_create(MPI_Comm comm, int n, const int *sources,
    const int *degrees, const int *destinations, const int *weights,
    MPI_Info info, int reorder, MPI_Comm *newcomm)
{
	static const char call[] = "MPI_Dist_graph_create";
	struct check c = { 0, "" };
	int i, total = 0, rc, weighted = -1;

	(void)reorder;
	FT_MPI_CHECK_INIT(call);
	if ((rc = ft__mpi_comm_intra(comm, call)) != MPI_SUCCESS)
		return rc;
	if (n < 0)
		bad(&c, MPI_ERR_ARG, "negative n");
	else if (n > 0 && (sources == NULL || degrees == NULL))
		bad(&c, MPI_ERR_ARG, "NULL sources or degrees");
	for (i = 0; c.err == 0 && i < n; i++) {
		if (sources[i] < 0 || sources[i] >= comm->size)
			bad(&c, MPI_ERR_RANK, "a source outside the "
			    "communicator");
		else if (degrees[i] < 0)
			bad(&c, MPI_ERR_ARG, "a negative degree");
		else if (degrees[i] > INT_MAX / (2 * REC_INTS) - total)
			/* Each edge is two records, maybe to one rank. */
			bad(&c, MPI_ERR_ARG, "too many edges");
		else
			total += degrees[i];
	}
	if (c.err == 0)
		check_side(&c, comm->size, total, destinations, weights,
		    &weighted, "");
	if ((rc = dist_new(comm, call, info, newcomm, &c, weighted == 1)) !=
	    MPI_SUCCESS)
		return rc;
	if ((rc = dist_spread(*newcomm, call, n, sources, degrees,
	    destinations, weights, weighted == 1)) != MPI_SUCCESS)
		(void)MPI_Comm_free(newcomm);
	return rc;
}

int
PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
    int *weighted)
{
	struct ft_mpi_topo *t;
	int rc;

	FT_MPI_CHECK_INIT("MPI_Dist_graph_neighbors_count");
	if ((rc = topo_of(comm, MPI_DIST_GRAPH,
	    "MPI_Dist_graph_neighbors_count", &t)) != MPI_SUCCESS)
		return rc;
	if (indegree == NULL || outdegree == NULL || weighted == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG,
		    "MPI_Dist_graph_neighbors_count", "NULL argument");
	*indegree = t->indegree;
	*outdegree = t->outdegree;
	*weighted = t->weighted;
	return MPI_SUCCESS;
}

/*
 * Arrays shorter than the degrees get the first edges only, as the
 * standard says; weights are written only for a weighted graph, into a
 * real array.
 */
int
PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int *sources,
    int *sourceweights, int maxoutdegree, int *destinations,
    int *destweights)
{
	static const char call[] = "MPI_Dist_graph_neighbors";
	struct ft_mpi_topo *t;
	int rc, wi, wo;

	FT_MPI_CHECK_INIT(call);
	if ((rc = topo_of(comm, MPI_DIST_GRAPH, call, &t)) != MPI_SUCCESS)
		return rc;
	wi = t->weighted && sourceweights != MPI_UNWEIGHTED &&
	    sourceweights != MPI_WEIGHTS_EMPTY;
	wo = t->weighted && destweights != MPI_UNWEIGHTED &&
	    destweights != MPI_WEIGHTS_EMPTY;
	if ((rc = copy_out(comm, call, sources, t->sources, t->indegree,
	    maxindegree, "maxindegree")) != MPI_SUCCESS ||
	    (wi && (rc = copy_out(comm, call, sourceweights,
	    t->sourceweights, t->indegree, maxindegree, "maxindegree")) !=
	    MPI_SUCCESS) ||
	    (rc = copy_out(comm, call, destinations, t->destinations,
	    t->outdegree, maxoutdegree, "maxoutdegree")) != MPI_SUCCESS)
		return rc;
	if (wo)
		return copy_out(comm, call, destweights, t->destweights,
		    t->outdegree, maxoutdegree, "maxoutdegree");
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Graph_create = PMPI_Graph_create
#pragma weak MPI_Graph_map = PMPI_Graph_map
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
#pragma weak MPI_Graph_get = PMPI_Graph_get
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
