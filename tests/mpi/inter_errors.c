/* SPDX-License-Identifier: ISC */
/*
 * inter_errors: errors around intercommunicators, under
 * MPI_ERRORS_RETURN, with the class the standard gives, and
 * everything still working afterwards.  MPI_COMM_NULL to the new
 * calls, an intracommunicator where an intercommunicator is needed
 * (MPI_Intercomm_merge, the remote-group accessors) and the other way
 * round (the local communicator of MPI_Intercomm_create,
 * MPI_Comm_create_group, every Cartesian, graph and distributed-graph
 * call, the neighbourhood collectives, MPI_Comm_idup, MPI_Scan,
 * MPI_Exscan and their nonblocking forms) are MPI_ERR_COMM.  Collectives on an
 * intercommunicator refuse a root that is neither MPI_ROOT,
 * MPI_PROC_NULL nor a remote rank (MPI_ERR_ROOT), and MPI_IN_PLACE.
 * ft's own guarantees are checked too: a bad argument on one rank of
 * a call that makes a communicator, in either group, makes every rank
 * of both groups fail with its class; a freed intercommunicator is an
 * error, not a crash.
 */

#define NAME	"inter_errors"
#include "inter.h"

static void
null_and_intra(void)
{
	MPI_Comm	c;
	MPI_Group	g;
	int		n;

	expect(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 0,
	    &c), MPI_ERR_COMM, "Intercomm_create(MPI_COMM_NULL)");
	expect(MPI_Intercomm_merge(MPI_COMM_NULL, 0, &c), MPI_ERR_COMM,
	    "Intercomm_merge(MPI_COMM_NULL)");
	expect(MPI_Comm_remote_size(MPI_COMM_NULL, &n), MPI_ERR_COMM,
	    "Comm_remote_size(MPI_COMM_NULL)");
	expect(MPI_Comm_remote_group(MPI_COMM_NULL, &g), MPI_ERR_COMM,
	    "Comm_remote_group(MPI_COMM_NULL)");
	expect(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM,
	    "Intercomm_merge(MPI_COMM_WORLD)");
	expect(MPI_Comm_remote_size(MPI_COMM_SELF, &n), MPI_ERR_COMM,
	    "Comm_remote_size(MPI_COMM_SELF)");
	expect(MPI_Comm_remote_group(MPI_COMM_WORLD, &g), MPI_ERR_COMM,
	    "Comm_remote_group(MPI_COMM_WORLD)");
}

/*
 * The graph and distributed-graph calls, the neighbourhood collectives
 * and MPI_Comm_idup take intracommunicators only too.
 */
static void
graphs(MPI_Comm inter)
{
	MPI_Comm	c;
	MPI_Request	req;
	int		index[1] = { 0 }, edges[1] = { 0 }, one[1] = { 0 };
	int		n, m, w, a = 1, b[2];

	expect(MPI_Graph_create(inter, 1, index, edges, 0, &c), MPI_ERR_COMM,
	    "Graph_create on an intercommunicator");
	expect(MPI_Graph_map(inter, 1, index, edges, &n), MPI_ERR_COMM,
	    "Graph_map on an intercommunicator");
	expect(MPI_Graphdims_get(inter, &n, &m), MPI_ERR_COMM,
	    "Graphdims_get on an intercommunicator");
	expect(MPI_Graph_get(inter, 1, 1, index, edges), MPI_ERR_COMM,
	    "Graph_get on an intercommunicator");
	expect(MPI_Graph_neighbors_count(inter, 0, &n), MPI_ERR_COMM,
	    "Graph_neighbors_count on an intercommunicator");
	expect(MPI_Graph_neighbors(inter, 0, 1, edges), MPI_ERR_COMM,
	    "Graph_neighbors on an intercommunicator");
	expect(MPI_Dist_graph_create_adjacent(inter, 0, one, MPI_UNWEIGHTED,
	    0, one, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c), MPI_ERR_COMM,
	    "Dist_graph_create_adjacent on an intercommunicator");
	expect(MPI_Dist_graph_create(inter, 0, one, one, one, MPI_UNWEIGHTED,
	    MPI_INFO_NULL, 0, &c), MPI_ERR_COMM,
	    "Dist_graph_create on an intercommunicator");
	expect(MPI_Dist_graph_neighbors_count(inter, &n, &m, &w),
	    MPI_ERR_COMM, "Dist_graph_neighbors_count on an intercommunicator");
	expect(MPI_Dist_graph_neighbors(inter, 1, one, one, 1, one, one),
	    MPI_ERR_COMM, "Dist_graph_neighbors on an intercommunicator");
	expect(MPI_Neighbor_allgather(&a, 1, MPI_INT, b, 1, MPI_INT, inter),
	    MPI_ERR_COMM, "Neighbor_allgather on an intercommunicator");
	expect(MPI_Ineighbor_alltoall(&a, 1, MPI_INT, b, 1, MPI_INT, inter,
	    &req), MPI_ERR_COMM, "Ineighbor_alltoall on an intercommunicator");
	expect(MPI_Comm_idup(inter, &c, &req), MPI_ERR_COMM,
	    "Comm_idup on an intercommunicator");
}

/* Calls that take intracommunicators only. */
static void
intra_only(MPI_Comm inter)
{
	MPI_Comm	c;
	MPI_Group	g;
	MPI_Request	req;
	int		dims[1] = { 1 }, periods[1] = { 0 }, coords[1] = { 0 };
	int		remain[1] = { 1 }, n, a = 1, b;

	expect(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 0, &c),
	    MPI_ERR_COMM, "Intercomm_create on an intercommunicator");
	MPI_Comm_group(inter, &g);
	expect(MPI_Comm_create_group(inter, g, 0, &c), MPI_ERR_COMM,
	    "Comm_create_group on an intercommunicator");
	MPI_Group_free(&g);
	expect(MPI_Cart_create(inter, 1, dims, periods, 0, &c), MPI_ERR_COMM,
	    "Cart_create on an intercommunicator");
	expect(MPI_Cart_map(inter, 1, dims, periods, &n), MPI_ERR_COMM,
	    "Cart_map on an intercommunicator");
	expect(MPI_Cartdim_get(inter, &n), MPI_ERR_COMM,
	    "Cartdim_get on an intercommunicator");
	expect(MPI_Cart_get(inter, 1, dims, periods, coords), MPI_ERR_COMM,
	    "Cart_get on an intercommunicator");
	expect(MPI_Cart_rank(inter, coords, &n), MPI_ERR_COMM,
	    "Cart_rank on an intercommunicator");
	expect(MPI_Cart_coords(inter, 0, 1, coords), MPI_ERR_COMM,
	    "Cart_coords on an intercommunicator");
	expect(MPI_Cart_shift(inter, 0, 1, &a, &b), MPI_ERR_COMM,
	    "Cart_shift on an intercommunicator");
	expect(MPI_Cart_sub(inter, remain, &c), MPI_ERR_COMM,
	    "Cart_sub on an intercommunicator");
	ok(MPI_Topo_test(inter, &n), "Topo_test on an intercommunicator");
	if (n != MPI_UNDEFINED)
		fail("Topo_test on an intercommunicator gives %d", n);
	expect(MPI_Scan(&a, &b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM,
	    "Scan on an intercommunicator");
	expect(MPI_Exscan(&a, &b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM,
	    "Exscan on an intercommunicator");
	expect(MPI_Iscan(&a, &b, 1, MPI_INT, MPI_SUM, inter, &req),
	    MPI_ERR_COMM, "Iscan on an intercommunicator");
	expect(MPI_Iexscan(&a, &b, 1, MPI_INT, MPI_SUM, inter, &req),
	    MPI_ERR_COMM, "Iexscan on an intercommunicator");
	graphs(inter);
}

/* Every rank passes the same bad argument: each fails on its own. */
static void
coll_args(MPI_Comm inter)
{
	MPI_Request	req;
	int		a[8] = { 0 }, b[8];

	expect(MPI_Bcast(a, 1, MPI_INT, rs, inter), MPI_ERR_ROOT,
	    "Bcast to the remote size");
	expect(MPI_Bcast(a, 1, MPI_INT, -5, inter), MPI_ERR_ROOT,
	    "Bcast to root -5");
	expect(MPI_Ibcast(a, 1, MPI_INT, rs, inter, &req), MPI_ERR_ROOT,
	    "Ibcast to the remote size");
	expect(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_ANY_SOURCE,
	    inter), MPI_ERR_ROOT, "Gather to MPI_ANY_SOURCE");
	expect(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, rs, inter),
	    MPI_ERR_ROOT, "Reduce to the remote size");
	expect(MPI_Scatterv(a, a, a, MPI_INT, b, 1, MPI_INT, rs + 3, inter),
	    MPI_ERR_ROOT, "Scatterv from beyond the remote size");
	expect(MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, inter),
	    MPI_ERR_BUFFER, "Allreduce with MPI_IN_PLACE");
	expect(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, inter),
	    MPI_ERR_BUFFER, "Allgather with MPI_IN_PLACE");
	expect(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, inter),
	    MPI_ERR_BUFFER, "Alltoall with MPI_IN_PLACE");
	expect(MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM,
	    inter), MPI_ERR_BUFFER, "Reduce_scatter_block with MPI_IN_PLACE");
	expect(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, inter),
	    MPI_ERR_COUNT, "Allreduce of -1 elements");
	expect(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, inter),
	    MPI_ERR_TYPE, "Allreduce of MPI_DATATYPE_NULL");
	expect(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, inter),
	    MPI_ERR_OP, "Allreduce with MPI_OP_NULL");
	expect(MPI_Alltoallw(a, a, a, NULL, b, a, a, NULL, inter),
	    MPI_ERR_ARG, "Alltoallw without datatypes");
	/* And the intercommunicator still works. */
	a[0] = myrank;
	ok(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MAX, inter),
	    "Allreduce after the errors");
}

/*
 * ft only: a bad argument on one rank of one group fails the call on
 * every rank of both groups, with its class.
 */
static void
agreed(void)
{
	MPI_Comm	local, inter, c = MPI_COMM_NULL;
	MPI_Group	wg;
	int		g, key, lrank, lsize, rleader, r, n, color;

	layout(l, myrank, &g, &key);
	MPI_Comm_split(MPI_COMM_WORLD, g, key, &local);
	MPI_Comm_rank(local, &lrank);
	MPI_Comm_size(local, &lsize);
	rleader = world_of(l, 1 - g, 0);
	/* One rank of group 1 passes no newintercomm. */
	expect(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 1,
	    g == 1 && lrank == lsize - 1 ? NULL : &c), MPI_ERR_ARG,
	    "Intercomm_create, one rank without newintercomm");
	if (c != MPI_COMM_NULL)
		fail("layout %d: a failed Intercomm_create set its result", l);
	/* Both leaders pass a bad tag, a bad peer, a bad remote leader. */
	expect(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, -1,
	    &c), MPI_ERR_TAG, "Intercomm_create with tag -1");
	expect(MPI_Intercomm_create(local, 0, MPI_COMM_NULL, rleader, 1, &c),
	    MPI_ERR_COMM, "Intercomm_create with no peer_comm");
	expect(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, nprocs, 1, &c),
	    MPI_ERR_RANK, "Intercomm_create with remote_leader out of range");
	expect(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, myrank, 1, &c),
	    MPI_ERR_RANK, "Intercomm_create with a local remote_leader");
	expect(MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, rleader, 1,
	    &c), MPI_ERR_RANK, "Intercomm_create with local_leader out of "
	    "range");
	ok(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rleader, 1, &inter),
	    "Intercomm_create after the errors");
	MPI_Comm_rank(inter, &r);
	MPI_Comm_size(inter, &n);

	/* On the intercommunicator: one rank, in group 0 or 1, is wrong. */
	expect(MPI_Intercomm_merge(inter, 0, g == 1 && r == 0 ? NULL : &c),
	    MPI_ERR_ARG, "Intercomm_merge, one rank without a result");
	if (group_size(l, 0) > 1)
		expect(MPI_Intercomm_merge(inter, g == 0 && r == n - 1, &c),
		    MPI_ERR_ARG, "Intercomm_merge, one rank with another "
		    "high");
	expect(MPI_Comm_dup(inter, g == 0 && r == n - 1 ? NULL : &c),
	    MPI_ERR_ARG, "Comm_dup, one rank without a result");
	color = g == 1 && r == n - 1 ? -3 : 0;
	expect(MPI_Comm_split(inter, color, 0, &c), MPI_ERR_ARG,
	    "Comm_split, one rank with color -3");
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	expect(MPI_Comm_create(inter, wg, &c), MPI_ERR_GROUP,
	    "Comm_create with a group beyond the local one");
	MPI_Group_free(&wg);
	/* And all is well afterwards. */
	ok(MPI_Comm_dup(inter, &c), "Comm_dup after the errors");
	ok(MPI_Barrier(c), "Barrier after the errors");
	MPI_Comm_free(&c);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&local);
}

/* ft only: a freed intercommunicator is an error, not a crash. */
static void
stale(MPI_Comm inter)
{
	MPI_Comm	c, old;
	int		n, buf = 0;

	MPI_Comm_dup(inter, &c);
	old = c;
	MPI_Comm_free(&c);
	expect(MPI_Comm_remote_size(old, &n), MPI_ERR_COMM,
	    "Comm_remote_size of a freed intercommunicator");
	expect(MPI_Send(&buf, 1, MPI_INT, 0, 0, old), MPI_ERR_COMM,
	    "Send on a freed intercommunicator");
	expect(MPI_Barrier(old), MPI_ERR_COMM,
	    "Barrier on a freed intercommunicator");
	expect(MPI_Comm_free(&old), MPI_ERR_COMM,
	    "Comm_free of a freed intercommunicator");
}

static void
all(MPI_Comm inter)
{
	intra_only(inter);
	coll_args(inter);
	if (is_ft()) {
		stale(inter);
		agreed();
	}
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	/* New communicators inherit the handler. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	null_and_intra();
	each_layout(-1, all);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return finish();
}
