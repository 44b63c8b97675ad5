/* SPDX-License-Identifier: ISC */
/*
 * topo_distgraph: distributed-graph topologies on the graph where rank
 * r has edges to r + 1 and r + 2 (around), of weight 100 r + d, so that
 * on 1 and 2 ranks some edges are self-loops or the same edge twice.
 * MPI_Dist_graph_create_adjacent keeps each rank's lists in the order
 * given; MPI_Dist_graph_create, with the edges given all by rank 0, by
 * their sources, or by their destinations, gives every rank the right
 * edges (compared as multisets of rank and weight) and the same
 * sequence twice.  Weighted, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY;
 * MPI_Topo_test, lists cut short, messages along every edge,
 * duplicates; and the error classes of misuse.
 */

#define NAME		"topo_distgraph"
#include "mtest.h"

#define DEG		2

/* The graph: r -> r + 1 + k for k < DEG, weight 100 r + destination. */
static int
dst(int r, int k)
{
	return (r + 1 + k) % nprocs;
}

static int
src(int r, int k)
{
	return ((r - 1 - k) % nprocs + nprocs) % nprocs;
}

static int
weight(int from, int to)
{
	return 100 * from + to;
}

static int
pair_cmp(const void *a, const void *b)
{
	const int	*x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Are the n (rank, weight) pairs a and b the same multiset? */
static int
same_edges(const int *ranks, const int *weights, const int *wr,
    const int *ww, int n)
{
	int	a[2 * DEG * 2], b[2 * DEG * 2], i;

	for (i = 0; i < n; i++) {
		a[2 * i] = ranks[i];
		a[2 * i + 1] = weights != NULL ? weights[i] : 0;
		b[2 * i] = wr[i];
		b[2 * i + 1] = ww != NULL ? ww[i] : 0;
	}
	qsort(a, (size_t)n, 2 * sizeof(int), pair_cmp);
	qsort(b, (size_t)n, 2 * sizeof(int), pair_cmp);
	return memcmp(a, b, (size_t)n * 2 * sizeof(int)) == 0;
}

/*
 * Check a distributed graph of this file's graph: counts, the edges
 * (in the order given when ordered), the same sequence twice, a short
 * query, and one message along every edge.
 */
static void
inspect(MPI_Comm dg, int weighted, int ordered, const char *what)
{
	MPI_Request	reqs[2 * DEG];
	int		in, out, w, s[DEG], sw[DEG], d[DEG], dw[DEG];
	int		s2[DEG], sw2[DEG], d2[DEG], dw2[DEG];
	int		es[DEG], esw[DEG], ed[DEG], edw[DEG], got[DEG];
	int		status, k;

	MPI_Topo_test(dg, &status);
	if (status != MPI_DIST_GRAPH)
		fail("%s: Topo_test gave %d, expected MPI_DIST_GRAPH", what,
		    status);
	ok(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w),
	    "Dist_graph_neighbors_count");
	if (in != DEG || out != DEG || !w != !weighted) {
		fail("%s: %d in, %d out, weighted %d", what, in, out, w);
		return;
	}
	for (k = 0; k < DEG; k++) {
		es[k] = src(myrank, k);
		esw[k] = weight(es[k], myrank);
		ed[k] = dst(myrank, k);
		edw[k] = weight(myrank, ed[k]);
	}
	memset(sw, -1, sizeof(sw));
	memset(dw, -1, sizeof(dw));
	ok(MPI_Dist_graph_neighbors(dg, DEG, s, weighted ? sw :
	    MPI_UNWEIGHTED, DEG, d, weighted ? dw : MPI_UNWEIGHTED),
	    "Dist_graph_neighbors");
	if (ordered) {
		for (k = 0; k < DEG; k++)
			if (s[k] != es[k] || d[k] != ed[k] || (weighted &&
			    (sw[k] != esw[k] || dw[k] != edw[k])))
				fail("%s: edge %d is %d (%d) in, %d (%d) out",
				    what, k, s[k], sw[k], d[k], dw[k]);
	} else if (!same_edges(s, weighted ? sw : NULL, es,
	    weighted ? esw : NULL, DEG) || !same_edges(d, weighted ? dw :
	    NULL, ed, weighted ? edw : NULL, DEG))
		fail("%s: not the edges of the graph", what);
	MPI_Dist_graph_neighbors(dg, DEG, s2, weighted ? sw2 : MPI_UNWEIGHTED,
	    DEG, d2, weighted ? dw2 : MPI_UNWEIGHTED);
	if (memcmp(s, s2, sizeof(s)) != 0 || memcmp(d, d2, sizeof(d)) != 0 ||
	    (weighted && (memcmp(sw, sw2, sizeof(sw)) != 0 ||
	    memcmp(dw, dw2, sizeof(dw)) != 0)))
		fail("%s: two queries gave different sequences", what);
	/* Lists shorter than the degrees get the first edges. */
	memset(s2, -1, sizeof(s2));
	memset(d2, -1, sizeof(d2));
	ok(MPI_Dist_graph_neighbors(dg, 1, s2, MPI_UNWEIGHTED, 0, d2,
	    MPI_UNWEIGHTED), "Dist_graph_neighbors, short");
	if (s2[0] != s[0] || s2[1] != -1 || d2[0] != -1)
		fail("%s: a short query wrote %d %d / %d", what, s2[0], s2[1],
		    d2[0]);
	for (k = 0; k < DEG; k++) {
		got[k] = -1;
		MPI_Irecv(&got[k], 1, MPI_INT, s[k], 9, dg, &reqs[k]);
	}
	for (k = 0; k < DEG; k++)
		MPI_Isend(&myrank, 1, MPI_INT, d[k], 9, dg, &reqs[DEG + k]);
	MPI_Waitall(2 * DEG, reqs, MPI_STATUSES_IGNORE);
	if (!same_edges(got, NULL, s, NULL, DEG))
		fail("%s: messages did not come from the sources", what);
}

static void
adjacent(void)
{
	MPI_Comm	dg, dup;
	int		s[DEG], sw[DEG], d[DEG], dw[DEG], k, in, out, w;

	for (k = 0; k < DEG; k++) {
		s[k] = src(myrank, k);
		sw[k] = weight(s[k], myrank);
		d[k] = dst(myrank, k);
		dw[k] = weight(myrank, d[k]);
	}
	ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, DEG, s, sw, DEG, d,
	    dw, MPI_INFO_NULL, 0, &dg), "Dist_graph_create_adjacent");
	inspect(dg, 1, 1, "adjacent, weighted");
	ok(MPI_Comm_dup(dg, &dup), "Comm_dup of a distributed graph");
	inspect(dup, 1, 1, "duplicate");
	MPI_Comm_free(&dup);
	MPI_Comm_free(&dg);

	ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, DEG, s,
	    MPI_UNWEIGHTED, DEG, d, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &dg),
	    "Dist_graph_create_adjacent, unweighted");
	inspect(dg, 0, 1, "adjacent, unweighted");
	MPI_Comm_free(&dg);

	/* No edges at all, weighted: MPI_WEIGHTS_EMPTY. */
	ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, s,
	    MPI_WEIGHTS_EMPTY, 0, d, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg),
	    "Dist_graph_create_adjacent, no edges");
	MPI_Dist_graph_neighbors_count(dg, &in, &out, &w);
	if (in != 0 || out != 0 || !w)
		fail("no edges: %d in, %d out, weighted %d", in, out, w);
	MPI_Comm_free(&dg);
}

/* The three ways of handing MPI_Dist_graph_create the same graph. */
static void
general(void)
{
	MPI_Info	info;
	MPI_Comm	dg;
	int		*srcs, *degs, *dsts, *ws, n, r, k, e;

	srcs = calloc((size_t)nprocs * DEG, sizeof(int));
	degs = calloc((size_t)nprocs * DEG, sizeof(int));
	dsts = calloc((size_t)nprocs * DEG, sizeof(int));
	ws = calloc((size_t)nprocs * DEG, sizeof(int));
	if (srcs == NULL || degs == NULL || dsts == NULL || ws == NULL) {
		fail("out of memory");
		return;
	}

	/* Rank 0 gives every edge; the others none. */
	n = 0;
	if (myrank == 0)
		for (r = 0, e = 0; r < nprocs; r++, n++) {
			srcs[n] = r;
			degs[n] = DEG;
			for (k = 0; k < DEG; k++, e++) {
				dsts[e] = dst(r, k);
				ws[e] = weight(r, dsts[e]);
			}
		}
	ok(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts,
	    n > 0 ? ws : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg),
	    "Dist_graph_create, all from rank 0");
	inspect(dg, 1, 0, "all from rank 0");
	MPI_Comm_free(&dg);

	/* Each rank gives its out-edges, unweighted, with an info. */
	srcs[0] = myrank;
	degs[0] = DEG;
	for (k = 0; k < DEG; k++)
		dsts[k] = dst(myrank, k);
	MPI_Info_create(&info);
	MPI_Info_set(info, "ft_test", "ignored");
	ok(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, dsts,
	    MPI_UNWEIGHTED, info, 1, &dg), "Dist_graph_create, by sources");
	MPI_Info_free(&info);
	inspect(dg, 0, 0, "by sources");
	MPI_Comm_free(&dg);

	/* Each rank gives its in-edges, one source at a time. */
	for (k = 0; k < DEG; k++) {
		srcs[k] = src(myrank, k);
		degs[k] = 1;
		dsts[k] = myrank;
		ws[k] = weight(srcs[k], myrank);
	}
	ok(MPI_Dist_graph_create(MPI_COMM_WORLD, DEG, srcs, degs, dsts, ws,
	    MPI_INFO_NULL, 0, &dg), "Dist_graph_create, by destinations");
	inspect(dg, 1, 0, "by destinations");
	MPI_Comm_free(&dg);
	free(srcs);
	free(degs);
	free(dsts);
	free(ws);
}

static void
errors(void)
{
	MPI_Comm	dg = MPI_COMM_NULL, cart;
	int		s[DEG], w[DEG], d[DEG], one = 1, in, out, wt;
	int		dims[1], periods[1];

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	s[0] = s[1] = d[0] = d[1] = myrank;
	w[0] = w[1] = 1;
	expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, s, w, 0,
	    d, w, MPI_INFO_NULL, 0, &dg), MPI_ERR_ARG,
	    "adjacent with indegree -1");
	s[1] = nprocs;
	expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, DEG, s, w, 0,
	    d, w, MPI_INFO_NULL, 0, &dg), MPI_ERR_RANK,
	    "adjacent with source nprocs");
	s[1] = myrank;
	w[1] = -3;
	expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, DEG, s, w, 0,
	    d, w, MPI_INFO_NULL, 0, &dg), MPI_ERR_ARG,
	    "adjacent with a negative weight");
	w[1] = 1;
	one = -1;
	expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, s, &one, d, w,
	    MPI_INFO_NULL, 0, &dg), MPI_ERR_ARG,
	    "Dist_graph_create with degree -1");
	one = 1;
	s[0] = -4;
	expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, s, &one, d, w,
	    MPI_INFO_NULL, 0, &dg), MPI_ERR_RANK,
	    "Dist_graph_create with source -4");
	s[0] = myrank;
	expect(MPI_Dist_graph_create(MPI_COMM_NULL, 1, s, &one, d, w,
	    MPI_INFO_NULL, 0, &dg), MPI_ERR_COMM,
	    "Dist_graph_create on MPI_COMM_NULL");
	if (is_ft()) {
		/* ft checks handles against the live objects. */
		expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, s, &one, d,
		    MPI_UNWEIGHTED, (MPI_Info)&one, 0, &dg), MPI_ERR_INFO,
		    "Dist_graph_create with a bad info");
		expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s,
		    NULL, 0, d, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg),
		    MPI_ERR_ARG, "adjacent with NULL weights");
		expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s,
		    MPI_UNWEIGHTED, 1, d, w, MPI_INFO_NULL, 0, &dg),
		    MPI_ERR_ARG, "adjacent with MPI_UNWEIGHTED on one side");
		/* Weighted on some ranks only: all of them fail. */
		if (nprocs > 1)
			expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, s,
			    &one, d, myrank == 0 ? MPI_UNWEIGHTED : w,
			    MPI_INFO_NULL, 0, &dg), MPI_ERR_ARG,
			    "Dist_graph_create, MPI_UNWEIGHTED on rank 0 only");
	}
	if (dg != MPI_COMM_NULL)
		fail("a failed constructor set the new communicator");

	expect(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out,
	    &wt), MPI_ERR_TOPOLOGY, "neighbors_count on MPI_COMM_WORLD");
	dims[0] = nprocs;
	periods[0] = 1;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
	MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
	expect(MPI_Dist_graph_neighbors(cart, 1, s, w, 1, d, w),
	    MPI_ERR_TOPOLOGY, "Dist_graph_neighbors on a Cartesian one");
	MPI_Comm_free(&cart);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	adjacent();
	general();
	errors();
	return finish();
}
