/* SPDX-License-Identifier: ISC */
/*
 * comm_idup: MPI_Comm_idup.  The duplicate is congruent, keeps the
 * topology, and its messages never match the original's nor those of
 * duplicates made alongside by MPI_Comm_dup; attributes are copied at
 * the call, so a change made before the wait does not show; several
 * are in flight at once, on different communicators started in
 * different orders by different ranks; and it is nonblocking: a rank
 * that has started it can receive from a rank that starts it only
 * after a synchronous send to that rank.
 */

#define NAME		"comm_idup"
#include "mtest.h"

static int	copies;	/* calls of count_copy */

static int
count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
    int *flag)
{
	(void)comm;
	(void)keyval;
	(void)extra;
	copies++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

/*
 * Each comm in turn: every rank sends its rank and the comm's index to
 * the next rank on the same tag, and must get the previous rank's
 * message for the same comm: messages never cross communicators.
 */
static void
isolated(MPI_Comm *comms, int n, const char *what)
{
	MPI_Request	reqs[16];
	int		out[8][2], in[8][2], i, size, rank, next, prev;

	for (i = 0; i < n; i++) {
		MPI_Comm_size(comms[i], &size);
		MPI_Comm_rank(comms[i], &rank);
		next = (rank + 1) % size;
		prev = (rank - 1 + size) % size;
		out[i][0] = rank;
		out[i][1] = i;
		in[i][0] = in[i][1] = -1;
		MPI_Isend(out[i], 2, MPI_INT, next, 5, comms[i], &reqs[2 * i]);
	}
	for (i = n - 1; i >= 0; i--) {
		MPI_Comm_size(comms[i], &size);
		MPI_Comm_rank(comms[i], &rank);
		prev = (rank - 1 + size) % size;
		MPI_Irecv(in[i], 2, MPI_INT, prev, 5, comms[i],
		    &reqs[2 * i + 1]);
	}
	MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE);
	for (i = 0; i < n; i++) {
		MPI_Comm_size(comms[i], &size);
		MPI_Comm_rank(comms[i], &rank);
		prev = (rank - 1 + size) % size;
		if (in[i][0] != prev || in[i][1] != i)
			fail("%s: communicator %d got %d %d, expected %d %d",
			    what, i, in[i][0], in[i][1], prev, i);
	}
}

static void
basic(void)
{
	MPI_Request	req;
	MPI_Comm	c[3];
	int		res, sum, one = 1, flag;

	ok(MPI_Comm_idup(MPI_COMM_WORLD, &c[1], &req), "Comm_idup");
	ok(MPI_Wait(&req, MPI_STATUS_IGNORE), "Wait for Comm_idup");
	if (req != MPI_REQUEST_NULL)
		fail("the request was not freed");
	MPI_Comm_compare(MPI_COMM_WORLD, c[1], &res);
	if (res != MPI_CONGRUENT)
		fail("Comm_compare gave %d, expected MPI_CONGRUENT", res);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[1]);
	if (sum != nprocs)
		fail("Allreduce on the duplicate gave %d", sum);
	/* A blocking duplicate in between, and one more idup after. */
	MPI_Comm_dup(MPI_COMM_WORLD, &c[0]);
	MPI_Comm_idup(c[0], &c[2], &req);
	do
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	while (!flag);
	isolated(c, 3, "dup, idup, idup of dup");
	MPI_Comm_free(&c[0]);
	MPI_Comm_free(&c[1]);
	MPI_Comm_free(&c[2]);

	/* MPI_COMM_SELF, and many in a row. */
	MPI_Comm_idup(MPI_COMM_SELF, &c[0], &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Comm_size(c[0], &res);
	if (res != 1)
		fail("idup of MPI_COMM_SELF has size %d", res);
	MPI_Comm_free(&c[0]);
	for (res = 0; res < 40; res++) {
		MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		isolated(c, 1, "one of many");
		MPI_Comm_free(&c[0]);
	}
}

static void
attributes(void)
{
	MPI_Request	req;
	MPI_Comm	c, d;
	void		*val;
	int		key, flag, a = 1, b = 2;

	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key,
	    NULL);
	MPI_Comm_set_attr(c, key, &a);
	copies = 0;
	MPI_Comm_idup(c, &d, &req);
	if (copies != 1)
		fail("the copy function ran %d times at the call", copies);
	/* Too late for the duplicate. */
	MPI_Comm_set_attr(c, key, &b);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Comm_get_attr(d, key, &val, &flag);
	if (!flag || val != &a)
		fail("the duplicate's attribute is not the one at the call");
	MPI_Comm_get_attr(c, key, &val, &flag);
	if (!flag || val != &b)
		fail("the original's attribute changed");
	MPI_Comm_free(&d);
	MPI_Comm_free(&c);
	MPI_Comm_free_keyval(&key);
}

static void
topology(void)
{
	MPI_Request	req;
	MPI_Comm	cart, d;
	int		dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, gd[2], gp[2];
	int		gc[2], c2[2], status;

	MPI_Dims_create(nprocs, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
	MPI_Comm_idup(cart, &d, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Topo_test(d, &status);
	if (status != MPI_CART)
		fail("idup of a grid has topology %d", status);
	MPI_Cart_get(cart, 2, gd, gp, gc);
	MPI_Cart_get(d, 2, dims, periods, c2);
	if (memcmp(gd, dims, sizeof(gd)) != 0 || !gp[0] != !periods[0] ||
	    !gp[1] != !periods[1] || memcmp(gc, c2, sizeof(gc)) != 0)
		fail("idup of a grid is another grid");
	MPI_Comm_free(&d);
	MPI_Comm_free(&cart);
}

/*
 * Several at once: even ranks start the duplicate of a before that of
 * b, odd ranks the other way round; a and b overlap (a is the world,
 * b the ranks of the same parity), which MPI allows for nonblocking
 * collectives.
 */
static void
overlapping(void)
{
	MPI_Request	reqs[3];
	MPI_Comm	a, b, da, db, ds, all[3];

	MPI_Comm_dup(MPI_COMM_WORLD, &a);
	MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, myrank, &b);
	if (myrank % 2 == 0) {
		MPI_Comm_idup(a, &da, &reqs[0]);
		MPI_Comm_idup(b, &db, &reqs[1]);
	} else {
		MPI_Comm_idup(b, &db, &reqs[1]);
		MPI_Comm_idup(a, &da, &reqs[0]);
	}
	MPI_Comm_idup(MPI_COMM_SELF, &ds, &reqs[2]);
	ok(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE), "Waitall for idups");
	all[0] = da;
	all[1] = db;
	all[2] = ds;
	isolated(all, 3, "overlapping idups");
	MPI_Comm_free(&da);
	MPI_Comm_free(&db);
	MPI_Comm_free(&ds);
	MPI_Comm_free(&a);
	MPI_Comm_free(&b);
}

/*
 * Rank 1 starts the duplicate, then receives from rank 0, which sends
 * synchronously before it starts its own: a duplicate that blocked
 * until every rank had started it would deadlock here.
 */
static void
nonblocking(void)
{
	MPI_Request	req;
	MPI_Comm	d;
	int		v = 42, got = 0;

	if (nprocs < 2)
		return;
	if (myrank == 1) {
		MPI_Comm_idup(MPI_COMM_WORLD, &d, &req);
		MPI_Recv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (got != v)
			fail("received %d", got);
	} else {
		if (myrank == 0)
			MPI_Ssend(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
		MPI_Comm_idup(MPI_COMM_WORLD, &d, &req);
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	isolated(&d, 1, "after a synchronous send");
	MPI_Comm_free(&d);
}

static void
errors(void)
{
	MPI_Request	req;
	MPI_Comm	d;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Comm_idup(MPI_COMM_NULL, &d, &req), MPI_ERR_COMM,
	    "Comm_idup of MPI_COMM_NULL");
	expect(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL), ANY_ERROR,
	    "Comm_idup with a NULL request");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	init(&argc, &argv);
	basic();
	attributes();
	topology();
	overlapping();
	nonblocking();
	errors();
	return finish();
}
