/* SPDX-License-Identifier: ISC */
/*
 * topo_graph: graph topologies.  MPI_Graph_create of a ring (two edges
 * to the same rank on 2 ranks, self-loops on 1), a star, a graph of
 * fewer nodes than ranks (the others get MPI_COMM_NULL) and the empty
 * graph; MPI_Topo_test, MPI_Graphdims_get, MPI_Graph_get (whole and
 * cut short), MPI_Graph_neighbors_count and MPI_Graph_neighbors for
 * every node, MPI_Graph_map; messages along every edge; duplicates keep
 * the graph, splits do not; and the error classes of misuse
 * (MPI_ERR_TOPOLOGY, MPI_ERR_RANK, MPI_ERR_ARG), with every rank
 * failing together when one passes a bad graph.
 */

#define NAME		"topo_graph"
#include "mtest.h"

#define MAXN		64

/* A graph as MPI_Graph_create takes it. */
struct graph {
	int	nnodes;
	int	index[MAXN];
	int	edges[4 * MAXN];
};

/* Append node i's neighbours (the nodes are added in order). */
static void
node(struct graph *g, int i, const int *nb, int n)
{
	int	first = i > 0 ? g->index[i - 1] : 0, k;

	for (k = 0; k < n; k++)
		g->edges[first + k] = nb[k];
	g->index[i] = first + n;
	g->nnodes = i + 1;
}

/* Each node i joined to i - 1 and i + 1, around. */
static void
ring(struct graph *g, int n)
{
	int	i, nb[2];

	memset(g, 0, sizeof(*g));
	for (i = 0; i < n; i++) {
		nb[0] = (i - 1 + n) % n;
		nb[1] = (i + 1) % n;
		node(g, i, nb, 2);
	}
}

/* Node 0 joined to every other node. */
static void
star(struct graph *g, int n)
{
	int	i, nb[MAXN] = { 0 };

	memset(g, 0, sizeof(*g));
	for (i = 1; i < n; i++)
		nb[i - 1] = i;
	node(g, 0, nb, n - 1);
	nb[0] = 0;
	for (i = 1; i < n; i++)
		node(g, i, nb, 1);
}

/*
 * Everything a graph communicator says about itself, and one message
 * along each edge: what node r receives, in order from each neighbour,
 * is that neighbour's rank.
 */
static void
inspect(MPI_Comm gc, const struct graph *g, const char *what)
{
	MPI_Request	reqs[4 * MAXN];
	int		status, nn, ne, idx[MAXN], edg[4 * MAXN], cnt, nb[MAXN];
	int		got[MAXN], r, i, first, rank, nreq = 0;

	MPI_Topo_test(gc, &status);
	if (status != MPI_GRAPH)
		fail("%s: Topo_test gave %d, expected MPI_GRAPH", what,
		    status);
	ok(MPI_Graphdims_get(gc, &nn, &ne), "Graphdims_get");
	if (nn != g->nnodes || ne != g->index[g->nnodes - 1])
		fail("%s: Graphdims_get gave %d nodes %d edges", what, nn, ne);
	memset(idx, -1, sizeof(idx));
	memset(edg, -1, sizeof(edg));
	ok(MPI_Graph_get(gc, MAXN, 4 * MAXN, idx, edg), "Graph_get");
	if (memcmp(idx, g->index, (size_t)nn * sizeof(int)) != 0 ||
	    memcmp(edg, g->edges, (size_t)ne * sizeof(int)) != 0)
		fail("%s: Graph_get differs from the graph given", what);
	/* Arrays shorter than the graph get its first entries. */
	if (nn > 1 && ne > 1) {
		memset(idx, -1, sizeof(idx));
		memset(edg, -1, sizeof(edg));
		ok(MPI_Graph_get(gc, 1, 1, idx, edg), "Graph_get, short");
		if (idx[0] != g->index[0] || idx[1] != -1 ||
		    edg[0] != g->edges[0] || edg[1] != -1)
			fail("%s: short Graph_get wrote %d %d / %d %d", what,
			    idx[0], idx[1], edg[0], edg[1]);
	}
	for (r = 0; r < nn; r++) {
		first = r > 0 ? g->index[r - 1] : 0;
		ok(MPI_Graph_neighbors_count(gc, r, &cnt),
		    "Graph_neighbors_count");
		if (cnt != g->index[r] - first)
			fail("%s: node %d has %d neighbours, expected %d",
			    what, r, cnt, g->index[r] - first);
		ok(MPI_Graph_neighbors(gc, r, MAXN, nb), "Graph_neighbors");
		for (i = 0; i < cnt && i < MAXN; i++)
			if (nb[i] != g->edges[first + i])
				fail("%s: neighbour %d of node %d is %d, "
				    "expected %d", what, i, r, nb[i],
				    g->edges[first + i]);
	}
	MPI_Comm_rank(gc, &rank);
	MPI_Graph_neighbors_count(gc, rank, &cnt);
	MPI_Graph_neighbors(gc, rank, MAXN, nb);
	for (i = 0; i < cnt; i++) {
		got[i] = -1;
		MPI_Irecv(&got[i], 1, MPI_INT, nb[i], 7, gc, &reqs[nreq++]);
	}
	for (i = 0; i < cnt; i++)
		MPI_Isend(&rank, 1, MPI_INT, nb[i], 7, gc, &reqs[nreq++]);
	MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
	for (i = 0; i < cnt; i++)
		if (got[i] != nb[i])
			fail("%s: from neighbour %d got %d", what, nb[i],
			    got[i]);
}

static void
graphs(void)
{
	struct graph	g;
	MPI_Comm	gc, dup, split;
	int		status, newrank, size;

	ring(&g, nprocs);
	ok(MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index, g.edges, 0,
	    &gc), "Graph_create ring");
	inspect(gc, &g, "ring");
	ok(MPI_Graph_map(MPI_COMM_WORLD, g.nnodes, g.index, g.edges,
	    &newrank), "Graph_map");
	if (newrank != myrank)
		fail("Graph_map of the whole ring gave %d", newrank);
	ok(MPI_Comm_dup(gc, &dup), "Comm_dup of a graph");
	inspect(dup, &g, "duplicate of the ring");
	MPI_Comm_free(&dup);
	MPI_Comm_split(gc, 0, myrank, &split);
	MPI_Topo_test(split, &status);
	if (status != MPI_UNDEFINED)
		fail("a split of a graph has topology %d", status);
	MPI_Comm_free(&split);
	MPI_Comm_free(&gc);

	star(&g, nprocs);
	ok(MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index, g.edges, 1,
	    &gc), "Graph_create star");
	inspect(gc, &g, "star");
	MPI_Comm_free(&gc);

	/* A graph of the first nprocs - 1 ranks. */
	if (nprocs > 1) {
		ring(&g, nprocs - 1);
		ok(MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index,
		    g.edges, 0, &gc), "Graph_create, fewer nodes");
		MPI_Graph_map(MPI_COMM_WORLD, g.nnodes, g.index, g.edges,
		    &newrank);
		if (myrank == nprocs - 1) {
			if (gc != MPI_COMM_NULL)
				fail("a rank outside the graph got a "
				    "communicator");
			if (newrank != MPI_UNDEFINED)
				fail("Graph_map outside the graph gave %d",
				    newrank);
		} else {
			if (gc == MPI_COMM_NULL)
				fail("a rank of the graph got "
				    "MPI_COMM_NULL");
			else {
				MPI_Comm_size(gc, &size);
				if (size != nprocs - 1)
					fail("graph of size %d", size);
				inspect(gc, &g, "smaller ring");
				MPI_Comm_free(&gc);
			}
			if (newrank != myrank)
				fail("Graph_map gave %d", newrank);
		}
	}

	/* The empty graph: MPI_COMM_NULL everywhere. */
	gc = MPI_COMM_WORLD;
	ok(MPI_Graph_create(MPI_COMM_WORLD, 0, g.index, g.edges, 0, &gc),
	    "Graph_create, empty");
	if (gc != MPI_COMM_NULL)
		fail("the empty graph gave a communicator");
}

static void
errors(void)
{
	struct graph	g;
	MPI_Comm	gc, cart;
	int		rc, n, e, nb[4], dims[1], periods[1], idx[2], edg[2];

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	ring(&g, nprocs);

	/* Queries on communicators without a graph. */
	expect(MPI_Graphdims_get(MPI_COMM_WORLD, &n, &e), MPI_ERR_TOPOLOGY,
	    "Graphdims_get on MPI_COMM_WORLD");
	dims[0] = nprocs;
	periods[0] = 0;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
	MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
	expect(MPI_Graph_get(cart, 2, 2, idx, edg), MPI_ERR_TOPOLOGY,
	    "Graph_get on a Cartesian communicator");
	expect(MPI_Graph_neighbors_count(cart, 0, &n), MPI_ERR_TOPOLOGY,
	    "Graph_neighbors_count on a Cartesian communicator");
	MPI_Comm_free(&cart);

	MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index, g.edges, 0, &gc);
	MPI_Comm_set_errhandler(gc, MPI_ERRORS_RETURN);
	expect(MPI_Cart_get(gc, 1, dims, periods, nb), MPI_ERR_TOPOLOGY,
	    "Cart_get on a graph");
	expect(MPI_Graph_neighbors(gc, nprocs, 4, nb), MPI_ERR_RANK,
	    "Graph_neighbors of node nprocs");
	expect(MPI_Graph_neighbors_count(gc, -1, &n), MPI_ERR_RANK,
	    "Graph_neighbors_count of node -1");
	if (is_ft()) {
		expect(MPI_Graph_neighbors(gc, 0, -1, nb), MPI_ERR_ARG,
		    "Graph_neighbors with maxneighbors -1");
		expect(MPI_Graph_get(gc, -1, 2, idx, edg), MPI_ERR_ARG,
		    "Graph_get with maxindex -1");
	}
	MPI_Comm_free(&gc);

	/* Bad graphs, given alike by every rank. */
	gc = MPI_COMM_NULL;
	expect(MPI_Graph_create(MPI_COMM_WORLD, nprocs + 1, g.index, g.edges,
	    0, &gc), MPI_ERR_ARG, "Graph_create with nprocs + 1 nodes");
	expect(MPI_Graph_create(MPI_COMM_WORLD, -1, g.index, g.edges, 0,
	    &gc), MPI_ERR_ARG, "Graph_create with -1 nodes");
	g.edges[1] = nprocs;
	expect(MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index, g.edges,
	    0, &gc), MPI_ERR_ARG, "Graph_create with an edge out of range");
	expect(MPI_Graph_map(MPI_COMM_WORLD, g.nnodes, g.index, g.edges,
	    &n), MPI_ERR_ARG, "Graph_map with an edge out of range");
	ring(&g, nprocs);
	if (nprocs > 1) {
		g.index[0] = g.index[1] + 1;
		expect(MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index,
		    g.edges, 0, &gc), MPI_ERR_ARG,
		    "Graph_create with index going down");
		ring(&g, nprocs);
	}
	if (gc != MPI_COMM_NULL)
		fail("a failed Graph_create set the new communicator");
	expect(MPI_Graph_create(MPI_COMM_NULL, g.nnodes, g.index, g.edges, 0,
	    &gc), MPI_ERR_COMM, "Graph_create on MPI_COMM_NULL");

	/* ft agrees on errors: one rank's bad graph fails every rank. */
	if (is_ft() && nprocs > 1) {
		if (myrank == nprocs - 1)
			g.edges[0] = -5;
		rc = MPI_Graph_create(MPI_COMM_WORLD, g.nnodes, g.index,
		    g.edges, 0, &gc);
		expect(rc, myrank == nprocs - 1 ? MPI_ERR_ARG : ANY_ERROR,
		    "Graph_create, one rank with a bad edge");
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	if (nprocs > MAXN) {
		if (myrank == 0)
			fprintf(stderr, "%s: at most %d ranks\n", NAME, MAXN);
		MPI_Finalize();
		return 1;
	}
	graphs();
	errors();
	return finish();
}
