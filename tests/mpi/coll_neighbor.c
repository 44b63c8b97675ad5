/* SPDX-License-Identifier: ISC */
/*
 * coll_neighbor: the neighbourhood collectives, blocking and
 * nonblocking (MPI_Neighbor_allgather, _allgatherv, _alltoall,
 * _alltoallv, _alltoallw and their MPI_Ineighbor_ forms), on Cartesian
 * grids (periodic or not, with periodic dimensions of size 1 and 2
 * where both neighbours are one rank, and without dimensions), on
 * graphs (a ring, with two edges to one rank on 2 ranks, and a star),
 * and on distributed graphs (made adjacent, and made from edges given
 * by their sources).
 *
 * Every rank works out its neighbours itself and checks them against
 * the topology calls, then gathers everyone's destinations: so it
 * knows which block of which neighbour each of its receive blocks must
 * hold.  Cartesian: for each dimension the -1 then the +1 neighbour,
 * and the block a rank sends to its +1 neighbour is that neighbour's
 * block from -1 (MPI 3.1 as corrected by MPI 4.0, annex B.1.1), also
 * when both are the same rank.  Graphs: the k-th edge from a rank to
 * another carries the block the other receives as its k-th from it.
 * Blocks of MPI_PROC_NULL neighbours, and the gaps between blocks, are
 * left untouched.  Also: a derived receive type, several nonblocking
 * ones in flight, truncation, and the error classes of misuse.
 */

#define NAME		"coll_neighbor"
#include "mtest.h"

#define MAXD		16	/* neighbours */
#define GAP		5	/* ints between blocks of the v forms */
#define SENTINEL	(-7)

enum kind { K_CART, K_GRAPH, K_DIST };

/* A topology, the caller's neighbours, and every rank's destinations. */
struct topo {
	const char	*name;
	enum kind	 kind;
	MPI_Comm	 comm;
	int		 rank, size;
	int		 nin, nout;
	int		 in[MAXD], out[MAXD];
	int		*all;	/* size rows: nout, then out[MAXD] */
};

/* Row-major coordinates of r. */
static void
coords_of(int r, int n, const int *dims, int *c)
{
	int	i;

	for (i = n - 1; i >= 0; i--) {
		c[i] = r % dims[i];
		r /= dims[i];
	}
}

static int
rank_of(int n, const int *dims, const int *c)
{
	int	i, r = 0;

	for (i = 0; i < n; i++)
		r = r * dims[i] + c[i];
	return r;
}

/* Gather every rank's destinations over t->comm. */
static void
gather_outs(struct topo *t)
{
	int	row[1 + MAXD], i;

	MPI_Comm_rank(t->comm, &t->rank);
	MPI_Comm_size(t->comm, &t->size);
	if ((t->all = calloc((size_t)t->size, sizeof(row))) == NULL) {
		fail("out of memory");
		exit(1);
	}
	memset(row, 0, sizeof(row));
	row[0] = t->nout;
	for (i = 0; i < t->nout; i++)
		row[1 + i] = t->out[i];
	MPI_Allgather(row, 1 + MAXD, MPI_INT, t->all, 1 + MAXD, MPI_INT,
	    t->comm);
}

static int
cart(struct topo *t, const char *name, int n, const int *dims,
    const int *periods)
{
	int	c[3], e[3], d, k, lo, hi;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->kind = K_CART;
	ok(MPI_Cart_create(MPI_COMM_WORLD, n, dims, periods, 0, &t->comm),
	    name);
	if (t->comm == MPI_COMM_NULL)
		return 0;
	MPI_Comm_rank(t->comm, &t->rank);
	coords_of(t->rank, n, dims, c);
	for (d = 0; d < n; d++)
		for (k = 0; k < 2; k++) {
			memcpy(e, c, sizeof(e));
			e[d] += k == 0 ? -1 : 1;
			if (periods[d])
				e[d] = (e[d] + dims[d]) % dims[d];
			t->in[2 * d + k] = e[d] < 0 || e[d] >= dims[d] ?
			    MPI_PROC_NULL : rank_of(n, dims, e);
			t->out[2 * d + k] = t->in[2 * d + k];
		}
	t->nin = t->nout = 2 * n;
	for (d = 0; d < n; d++) {
		MPI_Cart_shift(t->comm, d, 1, &lo, &hi);
		if (lo != t->in[2 * d] || hi != t->in[2 * d + 1])
			fail("%s: Cart_shift(%d) gave %d %d, expected %d %d",
			    name, d, lo, hi, t->in[2 * d], t->in[2 * d + 1]);
	}
	gather_outs(t);
	return 1;
}

/* A ring (star == 0) or a star, as a graph; neighbours both ways. */
static int
graph(struct topo *t, const char *name, int star)
{
	int	index[MAXD * 4], edges[MAXD * 8], nb[MAXD], i, e = 0;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->kind = K_GRAPH;
	for (i = 0; i < nprocs; i++) {
		if (!star) {
			edges[e++] = (i - 1 + nprocs) % nprocs;
			edges[e++] = (i + 1) % nprocs;
		} else if (i == 0) {
			for (int j = 1; j < nprocs; j++)
				edges[e++] = j;
		} else
			edges[e++] = 0;
		index[i] = e;
	}
	ok(MPI_Graph_create(MPI_COMM_WORLD, nprocs, index, edges, 0,
	    &t->comm), name);
	t->nin = t->nout = index[myrank] - (myrank > 0 ?
	    index[myrank - 1] : 0);
	for (i = 0; i < t->nin; i++)
		t->in[i] = t->out[i] = edges[index[myrank] - t->nin + i];
	MPI_Graph_neighbors(t->comm, myrank, MAXD, nb);
	if (memcmp(nb, t->in, (size_t)t->nin * sizeof(int)) != 0)
		fail("%s: Graph_neighbors differ", name);
	gather_outs(t);
	return 1;
}

/*
 * The distributed graph r -> r + 1, r + 3 (around): adjacent, or given
 * by the sources, when the order of the lists is the library's.
 */
static int
dist(struct topo *t, const char *name, int adjacent)
{
	int	s[2], d[2], i, w;

	memset(t, 0, sizeof(*t));
	t->name = name;
	t->kind = K_DIST;
	d[0] = (myrank + 1) % nprocs;
	d[1] = (myrank + 3) % nprocs;
	s[0] = (myrank - 1 + 3 * nprocs) % nprocs;
	s[1] = (myrank - 3 + 3 * nprocs) % nprocs;
	if (adjacent)
		ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, s,
		    MPI_UNWEIGHTED, 2, d, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
		    &t->comm), name);
	else
		ok(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &myrank,
		    (int [1]){ 2 }, d, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
		    &t->comm), name);
	MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &w);
	if (t->nin != 2 || t->nout != 2) {
		fail("%s: %d sources, %d destinations", name, t->nin, t->nout);
		t->nin = t->nout = 0;
	}
	MPI_Dist_graph_neighbors(t->comm, 2, t->in, MPI_UNWEIGHTED, 2,
	    t->out, MPI_UNWEIGHTED);
	/* Adjacent: in the order given; else the same, as a multiset. */
	for (i = 0; i < 2; i++)
		if ((adjacent && (t->in[i] != s[i] || t->out[i] != d[i])) ||
		    (!adjacent && ((t->in[i] != s[0] && t->in[i] != s[1]) ||
		    (t->out[i] != d[0] && t->out[i] != d[1]))))
			fail("%s: neighbour %d is %d in, %d out", name, i,
			    t->in[i], t->out[i]);
	gather_outs(t);
	return 1;
}

static void
topo_free(struct topo *t)
{
	free(t->all);
	MPI_Comm_free(&t->comm);
}

/*
 * The block of the source of receive block i that it must hold: on a
 * grid the other direction; on a graph the edge of the same rank (the
 * k-th of them to us, for our k-th from it).
 */
static int
pair(const struct topo *t, int i)
{
	const int	*row;
	int		 k = 0, j, src = t->in[i];

	if (t->kind == K_CART)
		return i ^ 1;
	for (j = 0; j < i; j++)
		k += t->in[j] == src;
	row = t->all + (size_t)src * (1 + MAXD);
	for (j = 0; j < row[0]; j++)
		if (row[1 + j] == t->rank && k-- == 0)
			return j;
	fail("%s: rank %d has no edge to us for our source %d", t->name, src,
	    i);
	return 0;
}

/* What rank r sends in its block j, element e; and how many. */
static int
val(int r, int j, int e)
{
	return (r * 100 + j) * 10 + e;
}

static int
cnt(int r, int j)
{
	return (r + j) % 3 + 1;
}

static int
agcnt(int r)
{
	return r % 3 + 1;
}

/* Check receive block i of n ints at p, from the source's block j. */
static void
check_block(const struct topo *t, const char *what, const int *p, int i,
    int n, int j, int space)
{
	int	e, src = t->in[i];

	for (e = 0; e < space; e++) {
		int	want = SENTINEL;

		if (src != MPI_PROC_NULL && e < n)
			want = j < 0 ? val(src, 0, e) : val(src, j, e);
		if (p[e] != want) {
			fail("%s on %s: block %d (from %d) element %d is %d, "
			    "expected %d", what, t->name, i, src, e, p[e],
			    want);
			return;
		}
	}
}

static void
fill(int *p, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		p[i] = SENTINEL;
}

/* Buffers of one run of all five collectives on a topology. */
struct bufs {
	int		 sag[3], rag[MAXD * 3];			/* allgather */
	int		 ragv[MAXD * GAP], rcv[MAXD], rdv[MAXD];
	int		 sa[MAXD * 2], ra[MAXD * 3];		/* alltoall */
	int		 sav[MAXD * 4], rav[MAXD * GAP];	/* v */
	int		 sc[MAXD], sd[MAXD], rc[MAXD], rd[MAXD];
	int		 saw[MAXD * 4], raw[MAXD * GAP];	/* w */
	int		 wsc[MAXD], wrc[MAXD];
	MPI_Aint	 wsd[MAXD], wrd[MAXD];
	MPI_Datatype	 wst[MAXD], wrt[MAXD];
	MPI_Datatype	 vec;
};

static void
bufs_init(const struct topo *t, struct bufs *b)
{
	int	i, e, j, src;

	memset(b, 0, sizeof(*b));
	for (e = 0; e < 3; e++)
		b->sag[e] = val(t->rank, 0, e);
	fill(b->rag, MAXD * 3);
	fill(b->ragv, MAXD * GAP);
	fill(b->ra, MAXD * 3);
	fill(b->rav, MAXD * GAP);
	fill(b->raw, MAXD * GAP);
	for (j = 0; j < t->nout; j++) {
		for (e = 0; e < 2; e++)
			b->sa[j * 2 + e] = val(t->rank, j, e);
		/* v and w blocks, in the reverse order of the neighbours. */
		b->sc[j] = b->wsc[j] = cnt(t->rank, j);
		b->sd[j] = (t->nout - 1 - j) * 4;
		b->wsd[j] = (MPI_Aint)b->sd[j] * (MPI_Aint)sizeof(int);
		b->wst[j] = MPI_INT;
		for (e = 0; e < b->sc[j]; e++)
			b->sav[b->sd[j] + e] = b->saw[b->sd[j] + e] =
			    val(t->rank, j, e);
	}
	for (i = 0; i < t->nin; i++) {
		src = t->in[i];
		b->rcv[i] = src == MPI_PROC_NULL ? 2 : agcnt(src);
		b->rdv[i] = i * GAP;
		b->rc[i] = b->wrc[i] = src == MPI_PROC_NULL ? 2 :
		    cnt(src, pair(t, i));
		b->rd[i] = i * GAP;
		b->wrd[i] = (MPI_Aint)i * GAP * (MPI_Aint)sizeof(int);
		/* w receives one element of a contiguous type. */
		MPI_Type_contiguous(b->wrc[i], MPI_INT, &b->wrt[i]);
		MPI_Type_commit(&b->wrt[i]);
		b->wrc[i] = 1;
	}
	/* alltoall receives 2 ints as one vector: ints 0 and 2 of 3. */
	MPI_Type_vector(2, 1, 2, MPI_INT, &b->vec);
	MPI_Type_commit(&b->vec);
}

static void
bufs_check(const struct topo *t, struct bufs *b, const char *how)
{
	char	what[64];
	int	i, e, src, *p;

	for (i = 0; i < t->nin; i++) {
		src = t->in[i];
		snprintf(what, sizeof(what), "%sallgather", how);
		check_block(t, what, b->rag + i * 3, i, 3, -1, 3);
		snprintf(what, sizeof(what), "%sallgatherv", how);
		check_block(t, what, b->ragv + i * GAP, i, src ==
		    MPI_PROC_NULL ? 0 : agcnt(src), -1, GAP);
		/* The vector left the int between its two alone. */
		p = b->ra + i * 3;
		if (p[1] != SENTINEL || (src == MPI_PROC_NULL ? p[0] !=
		    SENTINEL || p[2] != SENTINEL : p[0] != val(src,
		    pair(t, i), 0) || p[2] != val(src, pair(t, i), 1)))
			fail("%salltoall on %s: block %d (from %d) is %d %d "
			    "%d", how, t->name, i, src, p[0], p[1], p[2]);
		snprintf(what, sizeof(what), "%salltoallv", how);
		check_block(t, what, b->rav + i * GAP, i, src ==
		    MPI_PROC_NULL ? 0 : b->rc[i], src == MPI_PROC_NULL ? 0 :
		    pair(t, i), GAP);
		snprintf(what, sizeof(what), "%salltoallw", how);
		check_block(t, what, b->raw + i * GAP, i, src ==
		    MPI_PROC_NULL ? 0 : b->rc[i], src == MPI_PROC_NULL ? 0 :
		    pair(t, i), GAP);
	}
	/* Nothing past the blocks. */
	for (e = t->nin * 3; e < MAXD * 3; e++)
		if (b->rag[e] != SENTINEL || b->ra[e] != SENTINEL)
			fail("%s on %s: written past the blocks", how,
			    t->name);
	for (i = 0; i < t->nin; i++)
		MPI_Type_free(&b->wrt[i]);
	MPI_Type_free(&b->vec);
}

static void
run(const struct topo *t)
{
	MPI_Request	reqs[5];
	struct bufs	*b;
	int		i;

	if ((b = malloc(sizeof(*b))) == NULL) {
		fail("out of memory");
		return;
	}
	bufs_init(t, b);
	ok(MPI_Neighbor_allgather(b->sag, 3, MPI_INT, b->rag, 3, MPI_INT,
	    t->comm), "Neighbor_allgather");
	ok(MPI_Neighbor_allgatherv(b->sag, agcnt(t->rank), MPI_INT, b->ragv,
	    b->rcv, b->rdv, MPI_INT, t->comm), "Neighbor_allgatherv");
	ok(MPI_Neighbor_alltoall(b->sa, 2, MPI_INT, b->ra, 1, b->vec,
	    t->comm), "Neighbor_alltoall");
	ok(MPI_Neighbor_alltoallv(b->sav, b->sc, b->sd, MPI_INT, b->rav,
	    b->rc, b->rd, MPI_INT, t->comm), "Neighbor_alltoallv");
	ok(MPI_Neighbor_alltoallw(b->saw, b->wsc, b->wsd, b->wst, b->raw,
	    b->wrc, b->wrd, b->wrt, t->comm), "Neighbor_alltoallw");
	bufs_check(t, b, "");

	/* The same, all five in flight at once. */
	bufs_init(t, b);
	ok(MPI_Ineighbor_allgather(b->sag, 3, MPI_INT, b->rag, 3, MPI_INT,
	    t->comm, &reqs[0]), "Ineighbor_allgather");
	ok(MPI_Ineighbor_allgatherv(b->sag, agcnt(t->rank), MPI_INT,
	    b->ragv, b->rcv, b->rdv, MPI_INT, t->comm, &reqs[1]),
	    "Ineighbor_allgatherv");
	ok(MPI_Ineighbor_alltoall(b->sa, 2, MPI_INT, b->ra, 1, b->vec,
	    t->comm, &reqs[2]), "Ineighbor_alltoall");
	ok(MPI_Ineighbor_alltoallv(b->sav, b->sc, b->sd, MPI_INT, b->rav,
	    b->rc, b->rd, MPI_INT, t->comm, &reqs[3]), "Ineighbor_alltoallv");
	ok(MPI_Ineighbor_alltoallw(b->saw, b->wsc, b->wsd, b->wst, b->raw,
	    b->wrc, b->wrd, b->wrt, t->comm, &reqs[4]),
	    "Ineighbor_alltoallw");
	/* Waited for in reverse order. */
	for (i = 4; i >= 0; i--)
		ok(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE), "Wait");
	bufs_check(t, b, "nonblocking ");
	free(b);
}

static void
topologies(void)
{
	struct topo	t;
	int		dims[3], periods[3];

	dims[0] = nprocs;
	periods[0] = 1;
	if (cart(&t, "periodic ring", 1, dims, periods))
		run(&t), topo_free(&t);
	periods[0] = 0;
	if (cart(&t, "line", 1, dims, periods))
		run(&t), topo_free(&t);
	dims[0] = dims[1] = 0;
	MPI_Dims_create(nprocs, 2, dims);
	periods[0] = 1;
	periods[1] = 0;
	if (cart(&t, "2-d grid", 2, dims, periods))
		run(&t), topo_free(&t);
	/* Both neighbours of dimension 0 are the rank itself. */
	dims[0] = 1;
	dims[1] = nprocs;
	periods[0] = periods[1] = 1;
	if (cart(&t, "1 x n torus", 2, dims, periods))
		run(&t), topo_free(&t);
	/* Dimensions of size 2, periodic: one rank both ways. */
	if (nprocs % 2 == 0) {
		dims[0] = 2;
		dims[1] = nprocs / 2;
		dims[2] = 1;
		periods[0] = periods[1] = periods[2] = 1;
		if (cart(&t, "2 x n/2 x 1 torus", 3, dims, periods))
			run(&t), topo_free(&t);
	}
	/* No dimensions: rank 0 alone, without neighbours. */
	if (cart(&t, "0-d grid", 0, dims, periods))
		run(&t), topo_free(&t);
	if (graph(&t, "ring graph", 0))
		run(&t), topo_free(&t);
	if (graph(&t, "star graph", 1))
		run(&t), topo_free(&t);
	if (dist(&t, "adjacent distributed graph", 1))
		run(&t), topo_free(&t);
	if (dist(&t, "distributed graph", 0))
		run(&t), topo_free(&t);
}

static void
errors(void)
{
	struct topo	t;
	MPI_Request	req;
	MPI_Comm	g;
	int		sbuf[4 * MAXD], rbuf[4 * MAXD], counts[MAXD];
	int		displs[MAXD], index[2], edges[1], rc, i;

	memset(sbuf, 0, sizeof(sbuf));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT,
	    MPI_COMM_WORLD), MPI_ERR_TOPOLOGY,
	    "Neighbor_allgather without a topology");
	expect(MPI_Ineighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT,
	    MPI_COMM_WORLD, &req), MPI_ERR_TOPOLOGY,
	    "Ineighbor_alltoall without a topology");
	expect(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT,
	    MPI_COMM_NULL), MPI_ERR_COMM, "Neighbor_alltoall on NULL");

	graph(&t, "ring graph", 0);
	MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
	expect(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, rbuf, 1,
	    MPI_INT, t.comm), ANY_ERROR, "Neighbor_allgather in place");
	expect(MPI_Neighbor_alltoall(sbuf, -1, MPI_INT, rbuf, 1, MPI_INT,
	    t.comm), MPI_ERR_COUNT, "Neighbor_alltoall with count -1");
	expect(MPI_Neighbor_alltoall(sbuf, 1, MPI_DATATYPE_NULL, rbuf, 1,
	    MPI_INT, t.comm), MPI_ERR_TYPE,
	    "Neighbor_alltoall of MPI_DATATYPE_NULL");
	for (i = 0; i < MAXD; i++) {
		counts[i] = 1;
		displs[i] = i;
	}
	counts[1] = -2;
	expect(MPI_Neighbor_alltoallv(sbuf, counts, displs, MPI_INT, rbuf,
	    counts, displs, MPI_INT, t.comm), MPI_ERR_COUNT,
	    "Neighbor_alltoallv with count -2");
	counts[1] = 1;
	if (is_ft()) {
		expect(MPI_Ineighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1,
		    MPI_INT, t.comm, NULL), MPI_ERR_REQUEST,
		    "Ineighbor_allgather with a NULL request");
		expect(MPI_Neighbor_alltoallv(sbuf, NULL, displs, MPI_INT,
		    rbuf, counts, displs, MPI_INT, t.comm), MPI_ERR_ARG,
		    "Neighbor_alltoallv with NULL counts");
	}
	/* Two ints into room for one: truncated, and then all is well. */
	rc = MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 1, MPI_INT,
	    t.comm);
	expect(rc, MPI_ERR_TRUNCATE, "Neighbor_alltoall, truncated");
	run(&t);
	topo_free(&t);

	/* A graph whose edge 0 -> 1 has no edge back. */
	if (nprocs > 1) {
		index[0] = 1;
		for (i = 1; i < nprocs && i < 2; i++)
			index[i] = 1;
		edges[0] = 1;
		ok(MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &g),
		    "Graph_create, one-way edge");
		if (g != MPI_COMM_NULL) {
			MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
			expect(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf,
			    1, MPI_INT, g), MPI_ERR_TOPOLOGY,
			    "Neighbor_allgather on a one-way graph");
			MPI_Comm_free(&g);
		}
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	if (nprocs > MAXD / 2 + 1) {
		if (myrank == 0)
			fprintf(stderr, "%s: at most %d ranks\n", NAME,
			    MAXD / 2 + 1);
		MPI_Finalize();
		return 1;
	}
	topologies();
	errors();
	return finish();
}
