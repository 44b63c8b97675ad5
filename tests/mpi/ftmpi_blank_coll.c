/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_blank_coll: every collective that lays out a block per rank, on
 * MPI_COMM_WORLD in FT-MPI's mode BLANK (ftrun --ft ftmpi --comm-mode
 * blank), with one hole then two (ft-ftmpi(3)): the holes contribute
 * nothing and receive nothing, and their blocks in the receivers'
 * buffers keep the sentinel they were filled with.  Gather, scatter,
 * allgather, alltoall, their v and w forms, reduce-scatter and
 * reduce-scatter-block, in place where MPI allows it, blocking and
 * nonblocking, with short blocks and long ones (the other algorithms);
 * barrier, bcast, reduce, allreduce, scan and exscan over the live
 * ranks; a hole as root is MPI_ERR_ROOT.
 *
 * Communicators made from one with holes: MPI_Comm_group keeps the
 * holes, MPI_Comm_split, _create and _create_group leave them out, a
 * duplicate keeps them, MPI_Comm_idup and MPI_Cart_create refuse them,
 * MPI_Intercomm_create takes the live members of its local group; the
 * neighbourhood collectives on a ring with holes skip them.
 *
 * Rank 1 dies once the world is split in halves, rank nprocs - 2 after
 * the first recovery and its checks; each once every other live rank
 * told it that it is done (so nothing is in flight to or from it).
 */
#define NAME "ftmpi_blank_coll"
#include "ulfm.h"

#define SENT	(-777)		/* the sentinel of the holes' blocks */
#define MAXP	64

static int	 hole[MAXP];	/* world ranks that are holes */
static MPI_Comm	 comm;		/* the communicator under test */
static int	 nb;		/* the nonblocking forms */

/* What src puts in the block for dst, element k. */
static int
val(int src, int dst, int k)
{
	return src * 100000 + dst * 1000 + k % 1000;
}

static int *
ints(size_t n, int fill)
{
	int *p;
	size_t i;

	if ((p = malloc((n > 0 ? n : 1) * sizeof(*p))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		exit(1);
	}
	for (i = 0; i < n; i++)
		p[i] = fill;
	return p;
}

/* Wait for the nonblocking form's request; rc is what started it. */
static int
done(int rc, MPI_Request *req)
{
	if (rc != MPI_SUCCESS || !nb)
		return rc;
	return MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void
ok(int rc, const char *what, int c)
{
	if (rc != MPI_SUCCESS)
		fail("%s%s (count %d) returned %d", nb ? "I" : "", what, c, rc);
}

/* Check block j of buf (n elements at off): from src, or the sentinel. */
static void
check_block(const int *buf, int off, int n, int src, int dst,
    const char *what, int j)
{
	int k, want;

	for (k = 0; k < n; k++) {
		want = hole[j] ? SENT : val(src, dst, k);
		if (buf[off + k] != want) {
			fail("%s%s: block %d element %d is %d, not %d",
			    nb ? "I" : "", what, j, k, buf[off + k], want);
			return;
		}
	}
}

/* The blocks of a v layout, block j from rank j, and the gaps between. */
static void
check_v(const int *buf, const int *counts, const int *displs, int dst,
    const char *what)
{
	int j, k;

	for (j = 0; j < nprocs; j++) {
		check_block(buf, displs[j], counts[j], j, dst, what, j);
		for (k = 0; k < 3; k++)
			if (buf[displs[j] + counts[j] + k] != SENT)
				fail("%s%s: a gap was written", nb ? "I" : "",
				    what);
	}
}

/* The v forms' layout: block j has c + j elements, a gap of 3 after. */
static void
vlayout(int c, int *counts, int *displs, int *total)
{
	int j, d = 0;

	for (j = 0; j < nprocs; j++) {
		counts[j] = c + j;
		displs[j] = d;
		d += c + j + 3;
	}
	*total = d;
}

static void
gathers(int c, int root)
{
	MPI_Request q;
	int counts[MAXP], displs[MAXP], total, j, k, *s, *r;

	s = ints((size_t)c + nprocs, 0);
	for (k = 0; k < c + nprocs; k++)
		s[k] = val(myrank, root, k);
	r = ints((size_t)nprocs * c, SENT);
	ok(done(nb ? MPI_Igather(s, c, MPI_INT, r, c, MPI_INT, root, comm,
	    &q) : MPI_Gather(s, c, MPI_INT, r, c, MPI_INT, root, comm), &q),
	    "gather", c);
	if (myrank == root)
		for (j = 0; j < nprocs; j++)
			check_block(r, j * c, c, j, root, "gather", j);
	/* In place at the root. */
	for (k = 0; k < nprocs * c; k++)
		r[k] = myrank == root && k / c == root ? val(root, root, k % c) :
		    SENT;
	ok(done(nb ? MPI_Igather(myrank == root ? MPI_IN_PLACE : s, c,
	    MPI_INT, r, c, MPI_INT, root, comm, &q) : MPI_Gather(myrank ==
	    root ? MPI_IN_PLACE : s, c, MPI_INT, r, c, MPI_INT, root, comm),
	    &q), "gather in place", c);
	if (myrank == root)
		for (j = 0; j < nprocs; j++)
			check_block(r, j * c, c, j, root, "gather in place", j);
	free(r);
	vlayout(c, counts, displs, &total);
	r = ints((size_t)total, SENT);
	ok(done(nb ? MPI_Igatherv(s, c + myrank, MPI_INT, r, counts, displs,
	    MPI_INT, root, comm, &q) : MPI_Gatherv(s, c + myrank, MPI_INT, r,
	    counts, displs, MPI_INT, root, comm), &q), "gatherv", c);
	if (myrank == root)
		check_v(r, counts, displs, root, "gatherv");
	free(r);
	free(s);
}

static void
scatters(int c, int root)
{
	MPI_Request q;
	int counts[MAXP], displs[MAXP], total, j, k, *s, *r;

	vlayout(c, counts, displs, &total);
	s = ints((size_t)total + (size_t)nprocs * c, SENT);
	r = ints((size_t)c + nprocs, SENT);
	for (j = 0; j < nprocs; j++)
		for (k = 0; k < c; k++)
			s[j * c + k] = val(root, j, k);
	ok(done(nb ? MPI_Iscatter(s, c, MPI_INT, r, c, MPI_INT, root, comm,
	    &q) : MPI_Scatter(s, c, MPI_INT, r, c, MPI_INT, root, comm), &q),
	    "scatter", c);
	check_block(r, 0, c, root, myrank, "scatter", myrank);
	if (r[c] != SENT)
		fail("scatter wrote past the block");
	/* In place at the root: its own block stays where it is. */
	ok(done(nb ? MPI_Iscatter(s, c, MPI_INT, myrank == root ?
	    MPI_IN_PLACE : r, c, MPI_INT, root, comm, &q) :
	    MPI_Scatter(s, c, MPI_INT, myrank == root ? MPI_IN_PLACE : r, c,
	    MPI_INT, root, comm), &q), "scatter in place", c);
	if (myrank != root)
		check_block(r, 0, c, root, myrank, "scatter in place", myrank);
	for (j = 0; j < nprocs; j++)
		for (k = 0; k < counts[j]; k++)
			s[displs[j] + k] = val(root, j, k);
	for (k = 0; k < c + nprocs; k++)
		r[k] = SENT;
	ok(done(nb ? MPI_Iscatterv(s, counts, displs, MPI_INT, r, c + myrank,
	    MPI_INT, root, comm, &q) : MPI_Scatterv(s, counts, displs,
	    MPI_INT, r, c + myrank, MPI_INT, root, comm), &q), "scatterv", c);
	check_block(r, 0, c + myrank, root, myrank, "scatterv", myrank);
	free(r);
	free(s);
}

static void
allgathers(int c)
{
	MPI_Request q;
	int counts[MAXP], displs[MAXP], total, j, k, *s, *r;

	s = ints((size_t)c + nprocs, 0);
	for (k = 0; k < c + nprocs; k++)
		s[k] = val(myrank, 0, k);
	r = ints((size_t)nprocs * c, SENT);
	ok(done(nb ? MPI_Iallgather(s, c, MPI_INT, r, c, MPI_INT, comm, &q) :
	    MPI_Allgather(s, c, MPI_INT, r, c, MPI_INT, comm), &q),
	    "allgather", c);
	for (j = 0; j < nprocs; j++)
		check_block(r, j * c, c, j, 0, "allgather", j);
	for (k = 0; k < nprocs * c; k++)
		r[k] = k / c == myrank ? val(myrank, 0, k % c) : SENT;
	ok(done(nb ? MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, c,
	    MPI_INT, comm, &q) : MPI_Allgather(MPI_IN_PLACE, 0,
	    MPI_DATATYPE_NULL, r, c, MPI_INT, comm), &q),
	    "allgather in place", c);
	for (j = 0; j < nprocs; j++)
		check_block(r, j * c, c, j, 0, "allgather in place", j);
	free(r);
	vlayout(c, counts, displs, &total);
	r = ints((size_t)total, SENT);
	ok(done(nb ? MPI_Iallgatherv(s, c + myrank, MPI_INT, r, counts,
	    displs, MPI_INT, comm, &q) : MPI_Allgatherv(s, c + myrank, MPI_INT,
	    r, counts, displs, MPI_INT, comm), &q), "allgatherv", c);
	check_v(r, counts, displs, 0, "allgatherv");
	free(r);
	free(s);
}

static void
alltoalls(int c)
{
	MPI_Request q;
	MPI_Datatype types[MAXP];
	int counts[MAXP], displs[MAXP], bdispls[MAXP], total, j, k, *s, *r;

	s = ints((size_t)nprocs * c, 0);
	for (j = 0; j < nprocs; j++)
		for (k = 0; k < c; k++)
			s[j * c + k] = val(myrank, j, k);
	r = ints((size_t)nprocs * c, SENT);
	ok(done(nb ? MPI_Ialltoall(s, c, MPI_INT, r, c, MPI_INT, comm, &q) :
	    MPI_Alltoall(s, c, MPI_INT, r, c, MPI_INT, comm), &q),
	    "alltoall", c);
	for (j = 0; j < nprocs; j++)
		check_block(r, j * c, c, j, myrank, "alltoall", j);
	/* In place: what goes to j starts in block j, a hole's stays. */
	for (j = 0; j < nprocs; j++)
		for (k = 0; k < c; k++)
			r[j * c + k] = hole[j] ? SENT : val(myrank, j, k);
	ok(done(nb ? MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, c,
	    MPI_INT, comm, &q) : MPI_Alltoall(MPI_IN_PLACE, 0,
	    MPI_DATATYPE_NULL, r, c, MPI_INT, comm), &q),
	    "alltoall in place", c);
	for (j = 0; j < nprocs; j++)
		check_block(r, j * c, c, j, myrank, "alltoall in place", j);
	free(r);
	free(s);
	vlayout(c, counts, displs, &total);
	s = ints((size_t)total, 0);
	r = ints((size_t)total, SENT);
	for (j = 0; j < nprocs; j++)
		for (k = 0; k < counts[j]; k++)
			s[displs[j] + k] = val(myrank, j, k);
	/* c elements a block, at the v layout's displacements (gaps
	 * between the blocks); w: the same in bytes. */
	for (j = 0; j < nprocs; j++) {
		counts[j] = c;
		bdispls[j] = displs[j] * (int)sizeof(int);
		types[j] = MPI_INT;
	}
	ok(done(nb ? MPI_Ialltoallv(s, counts, displs, MPI_INT, r, counts,
	    displs, MPI_INT, comm, &q) : MPI_Alltoallv(s, counts, displs,
	    MPI_INT, r, counts, displs, MPI_INT, comm), &q), "alltoallv", c);
	check_v(r, counts, displs, myrank, "alltoallv");
	for (k = 0; k < total; k++)
		r[k] = SENT;
	ok(done(nb ? MPI_Ialltoallw(s, counts, bdispls, types, r, counts,
	    bdispls, types, comm, &q) : MPI_Alltoallw(s, counts, bdispls,
	    types, r, counts, bdispls, types, comm), &q), "alltoallw", c);
	check_v(r, counts, displs, myrank, "alltoallw");
	free(r);
	free(s);
}

/* The sum over the live ranks i of val(i, dst, k). */
static int
live_sum(int dst, int k)
{
	int i, sum = 0;

	for (i = 0; i < nprocs; i++)
		if (!hole[i])
			sum += val(i, dst, k);
	return sum;
}

static void
reduce_scatters(int c)
{
	MPI_Request q;
	int counts[MAXP], j, k, off, *s, *r;

	s = ints((size_t)nprocs * (c + nprocs), 0);
	r = ints((size_t)c + nprocs, SENT);
	for (j = 0; j < nprocs; j++)
		for (k = 0; k < c; k++)
			s[j * c + k] = val(myrank, j, k);
	ok(done(nb ? MPI_Ireduce_scatter_block(s, r, c, MPI_INT, MPI_SUM,
	    comm, &q) : MPI_Reduce_scatter_block(s, r, c, MPI_INT, MPI_SUM,
	    comm), &q), "reduce_scatter_block", c);
	for (k = 0; k < c; k++)
		if (r[k] != live_sum(myrank, k)) {
			fail("%sreduce_scatter_block: element %d is %d, not %d",
			    nb ? "I" : "", k, r[k], live_sum(myrank, k));
			break;
		}
	if (r[c] != SENT)
		fail("reduce_scatter_block wrote past the block");
	/* Counts c + j, packed. */
	for (j = 0, off = 0; j < nprocs; off += counts[j], j++) {
		counts[j] = c + j;
		for (k = 0; k < counts[j]; k++)
			s[off + k] = val(myrank, j, k);
	}
	for (k = 0; k < c + nprocs; k++)
		r[k] = SENT;
	ok(done(nb ? MPI_Ireduce_scatter(s, r, counts, MPI_INT, MPI_SUM,
	    comm, &q) : MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM,
	    comm), &q), "reduce_scatter", c);
	for (k = 0; k < c + myrank; k++)
		if (r[k] != live_sum(myrank, k)) {
			fail("%sreduce_scatter: element %d is %d, not %d",
			    nb ? "I" : "", k, r[k], live_sum(myrank, k));
			break;
		}
	if (r[c + myrank] != SENT)
		fail("reduce_scatter wrote past the block");
	free(r);
	free(s);
}

/*
 * The collectives without blocks: barrier, bcast, reduce, allreduce,
 * scan and exscan over the live ranks, in rank order; exscan leaves the
 * first live rank's buffer alone.
 */
static void
reductions(int root)
{
	MPI_Request q;
	int v, sum, below, i, first;

	for (i = 0, sum = 0, below = 0, first = -1; i < nprocs; i++)
		if (!hole[i]) {
			sum += i + 1;
			below += i < myrank ? i + 1 : 0;
			if (first < 0)
				first = i;
		}
	ok(done(nb ? MPI_Ibarrier(comm, &q) : MPI_Barrier(comm), &q),
	    "barrier", 0);
	v = myrank == root ? 4242 : SENT;
	ok(done(nb ? MPI_Ibcast(&v, 1, MPI_INT, root, comm, &q) :
	    MPI_Bcast(&v, 1, MPI_INT, root, comm), &q), "bcast", 1);
	if (v != 4242)
		fail("%sbcast gave %d", nb ? "I" : "", v);
	v = SENT;
	i = myrank + 1;
	ok(done(nb ? MPI_Ireduce(&i, &v, 1, MPI_INT, MPI_SUM, root, comm,
	    &q) : MPI_Reduce(&i, &v, 1, MPI_INT, MPI_SUM, root, comm), &q),
	    "reduce", 1);
	if (myrank == root && v != sum)
		fail("%sreduce gave %d, not %d", nb ? "I" : "", v, sum);
	ok(done(nb ? MPI_Iallreduce(&i, &v, 1, MPI_INT, MPI_SUM, comm, &q) :
	    MPI_Allreduce(&i, &v, 1, MPI_INT, MPI_SUM, comm), &q),
	    "allreduce", 1);
	if (v != sum)
		fail("%sallreduce gave %d, not %d", nb ? "I" : "", v, sum);
	ok(done(nb ? MPI_Iscan(&i, &v, 1, MPI_INT, MPI_SUM, comm, &q) :
	    MPI_Scan(&i, &v, 1, MPI_INT, MPI_SUM, comm), &q), "scan", 1);
	if (v != below + myrank + 1)
		fail("%sscan gave %d, not %d", nb ? "I" : "", v,
		    below + myrank + 1);
	v = SENT;
	ok(done(nb ? MPI_Iexscan(&i, &v, 1, MPI_INT, MPI_SUM, comm, &q) :
	    MPI_Exscan(&i, &v, 1, MPI_INT, MPI_SUM, comm), &q), "exscan", 1);
	if (v != (myrank == first ? SENT : below))
		fail("%sexscan gave %d, not %d", nb ? "I" : "", v,
		    myrank == first ? SENT : below);
}

/* Every collective, both forms, short and long blocks. */
static void
all(MPI_Comm on)
{
	/* Long enough for the linear gather, the ring allgather and the
	 * pairwise alltoall. */
	static const int counts[] = { 1, 3, 40000 };
	int i, root, dead = -1, v[MAXP];

	memset(v, 0, sizeof(v));
	comm = on;
	for (root = nprocs - 1; root >= 0 && hole[root]; root--)
		;
	for (i = 0; i < nprocs && dead < 0; i++)
		if (hole[i])
			dead = i;
	for (nb = 0; nb < 2; nb++) {
		reductions(root);
		reductions(0);
	}
	for (nb = 0; nb < 2; nb++)
		for (i = 0; i < (int)(sizeof(counts) / sizeof(counts[0]));
		    i++) {
			gathers(counts[i], root);
			gathers(counts[i], 0);
			scatters(counts[i], root);
			allgathers(counts[i]);
			alltoalls(counts[i]);
			reduce_scatters(counts[i]);
		}
	nb = 0;
	expect(MPI_Gather(v, 1, MPI_INT, v, 1, MPI_INT, dead, comm),
	    MPI_ERR_ROOT, "a gather rooted at a hole");
	expect(MPI_Scatterv(v, v, v, MPI_INT, v, 1, MPI_INT, dead, comm),
	    MPI_ERR_ROOT, "a scatterv rooted at a hole");
}

/* How many live ranks below r (r's rank once the holes are out). */
static int
live_below(int r)
{
	int i, n = 0;

	for (i = 0; i < r; i++)
		n += !hole[i];
	return n;
}

/* Communicators made from MPI_COMM_WORLD with holes. */
static void
makers(void)
{
	MPI_Comm c;
	MPI_Group g, ge;
	MPI_Request q;
	int n, r, sum, want, i, evens[MAXP], ne = 0, dims[1] = { 1 },
	    periods[1] = { 0 };

	MPI_Comm_group(MPI_COMM_WORLD, &g);
	MPI_Group_size(g, &n);
	if (n != nprocs)
		fail("MPI_Comm_group: %d members, not %d", n, nprocs);
	/* Split: odd and even, in reverse order. */
	if (MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, -myrank, &c) !=
	    MPI_SUCCESS)
		fail("MPI_Comm_split");
	else {
		MPI_Comm_size(c, &n);
		MPI_Comm_rank(c, &r);
		for (i = 0, want = 0, sum = 0; i < nprocs; i++)
			if (!hole[i] && i % 2 == myrank % 2) {
				want++;
				sum += i;
			}
		if (n != want)
			fail("MPI_Comm_split: size %d, not %d", n, want);
		for (i = myrank + 1, want = 0; i < nprocs; i++)
			want += !hole[i] && i % 2 == myrank % 2;
		if (r != want)
			fail("MPI_Comm_split: rank %d, not %d", r, want);
		if (MPI_Allreduce(&myrank, &r, 1, MPI_INT, MPI_SUM, c) !=
		    MPI_SUCCESS || r != sum)
			fail("MPI_Comm_split: the allreduce gave %d, not %d",
			    r, sum);
		MPI_Comm_free(&c);
	}
	/* Create from the whole group: the live ones, in order. */
	if (MPI_Comm_create(MPI_COMM_WORLD, g, &c) != MPI_SUCCESS)
		fail("MPI_Comm_create");
	else {
		MPI_Comm_size(c, &n);
		MPI_Comm_rank(c, &r);
		if (n != live_below(nprocs) || r != live_below(myrank))
			fail("MPI_Comm_create: size %d rank %d", n, r);
		if (MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_MAX, c) !=
		    MPI_SUCCESS || sum != nprocs - 1)
			fail("MPI_Comm_create: the allreduce gave %d", sum);
		MPI_Comm_free(&c);
	}
	/* Create_group by the even ranks, holes among them or not. */
	for (i = 0; i < nprocs; i += 2)
		evens[ne++] = i;
	MPI_Group_incl(g, ne, evens, &ge);
	if (myrank % 2 == 0) {
		if (MPI_Comm_create_group(MPI_COMM_WORLD, ge, 5, &c) !=
		    MPI_SUCCESS)
			fail("MPI_Comm_create_group");
		else {
			MPI_Comm_size(c, &n);
			for (i = 0, want = 0; i < nprocs; i += 2)
				want += !hole[i];
			if (n != want)
				fail("MPI_Comm_create_group: size %d, not %d",
				    n, want);
			if (MPI_Barrier(c) != MPI_SUCCESS)
				fail("MPI_Comm_create_group: a barrier");
			MPI_Comm_free(&c);
		}
	}
	MPI_Group_free(&ge);
	MPI_Group_free(&g);
	/* A duplicate keeps the holes. */
	if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS)
		fail("MPI_Comm_dup of a communicator with holes");
	else {
		MPI_Comm_size(c, &n);
		if (n != nprocs)
			fail("MPI_Comm_dup: size %d", n);
		for (i = 0; i < nprocs && !hole[i]; i++)
			;
		expect(MPI_Send(&n, 1, MPI_INT, i, 1, c), MPI_ERR_RANK,
		    "MPI_Comm_dup: a send to a hole");
		comm = c;
		gathers(3, 0);
		allgathers(2);
		MPI_Comm_free(&c);
	}
	expect(MPI_Comm_idup(MPI_COMM_WORLD, &c, &q), MPI_ERR_COMM,
	    "MPI_Comm_idup of a communicator with holes");
	expect(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c),
	    MPI_ERR_COMM, "MPI_Cart_create on a communicator with holes");
}

/*
 * An intercommunicator between the halves, the lower one (half, with
 * the hole rank 1) recovered in mode BLANK: its local group is its live
 * members.
 */
static void
inter(MPI_Comm half, int h)
{
	MPI_Comm ic;
	int low = myrank < h, n, sum, want, i;

	char msg[MPI_MAX_ERROR_STRING];
	int rc, len;

	if ((rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? h : 0,
	    7, &ic)) != MPI_SUCCESS) {
		MPI_Error_string(rc, msg, &len);
		fail("MPI_Intercomm_create from a communicator with holes: "
		    "%s", msg);
		return;
	}
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	MPI_Comm_size(ic, &n);
	if (n != (low ? live_below(h) : nprocs - h))
		fail("the intercommunicator: local size %d", n);
	MPI_Comm_remote_size(ic, &n);
	if (n != (low ? nprocs - h : live_below(h)))
		fail("the intercommunicator: remote size %d", n);
	for (i = 0, want = 0; i < nprocs; i++)
		if (!hole[i] && (i < h) != low)
			want += i;
	if (MPI_Allreduce(&myrank, &sum, 1, MPI_INT, MPI_SUM, ic) !=
	    MPI_SUCCESS || sum != want)
		fail("the intercommunicator: allreduce gave %d, not %d", sum,
		    want);
	MPI_Comm_free(&ic);
}

/*
 * Neighbourhood collectives on a ring (a periodic Cartesian communicator
 * recovered in mode BLANK): a hole neighbour is MPI_PROC_NULL, its
 * block untouched.
 */
static void
ring(MPI_Comm cart)
{
	MPI_Request q;
	int nbr[2], r[2], s[2], k;

	nbr[0] = (myrank - 1 + nprocs) % nprocs;
	nbr[1] = (myrank + 1) % nprocs;
	r[0] = r[1] = SENT;
	if (MPI_Neighbor_allgather(&myrank, 1, MPI_INT, r, 1, MPI_INT,
	    cart) != MPI_SUCCESS)
		fail("MPI_Neighbor_allgather with holes");
	for (k = 0; k < 2; k++)
		if (r[k] != (hole[nbr[k]] ? SENT : nbr[k]))
			fail("MPI_Neighbor_allgather: block %d is %d", k, r[k]);
	/* To the left: my rank; to the right: minus it. */
	s[0] = myrank;
	s[1] = -myrank;
	r[0] = r[1] = SENT;
	if (MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, cart, &q) !=
	    MPI_SUCCESS || MPI_Wait(&q, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		fail("MPI_Ineighbor_alltoall with holes");
	if (r[0] != (hole[nbr[0]] ? SENT : -nbr[0]) ||
	    r[1] != (hole[nbr[1]] ? SENT : nbr[1]))
		fail("MPI_Ineighbor_alltoall: %d %d", r[0], r[1]);
}

/*
 * The victim dies once every other live rank told it that it is done
 * (so nothing is in flight to or from it, and no collective it took
 * part in can fail elsewhere); the others wait until they know.
 */
static void
die_when_done(int victim, int nfail)
{
	int i, x = 0;

	if (myrank == victim) {
		for (i = 0; i < nprocs; i++)
			if (!hole[i] && i != victim && MPI_Recv(&x, 1,
			    MPI_INT, i, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
			    MPI_SUCCESS)
				fail("the word of rank %d", i);
		die();
	}
	if (MPI_Send(&x, 1, MPI_INT, victim, 9, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		fail("the word to rank %d", victim);
	await_failures(MPI_COMM_WORLD, nfail);
}

int
main(int argc, char **argv)
{
	MPI_Comm dup, half, hdup, cart, cdup;
	int second, h, dims[1], periods[1] = { 1 };

	init(&argc, &argv);
	if (nprocs < 4 || nprocs > MAXP) {
		fail("run at 4 to %d ranks", MAXP);
		return finish();
	}
	second = nprocs - 2;
	h = nprocs / 2;
	if (MPI_Comm_split(MPI_COMM_WORLD, myrank < h, myrank, &half) !=
	    MPI_SUCCESS) {
		fail("the split in halves");
		return finish();
	}
	MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
	dims[0] = nprocs;
	if (MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart) !=
	    MPI_SUCCESS) {
		fail("the ring");
		return finish();
	}
	MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
	/* One hole: rank 1, once everyone has its half. */
	die_when_done(1, 1);
	if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS)
		fail("the first recovery");
	MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
	hole[1] = 1;
	all(MPI_COMM_WORLD);
	all(dup);
	MPI_Comm_free(&dup);
	makers();
	/* The lower half recovers its own communicator. */
	if (myrank < h) {
		char msg[MPI_MAX_ERROR_STRING];
		int rc, len;

		if ((rc = MPI_Comm_dup(half, &hdup)) != MPI_SUCCESS) {
			MPI_Error_string(rc, msg, &len);
			fail("the recovery of the lower half: %s", msg);
		}
		MPI_Comm_free(&half);
		half = hdup;
	}
	inter(half, h);
	MPI_Comm_free(&half);
	/* The ring, recovered: a Cartesian communicator with a hole. */
	if (MPI_Comm_dup(cart, &cdup) != MPI_SUCCESS)
		fail("the recovery of the ring");
	else {
		ring(cdup);
		MPI_Comm_free(&cdup);
	}
	MPI_Comm_free(&cart);
	/* Two holes: the second dies once everyone else is done with it. */
	die_when_done(second, 2);
	if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS)
		fail("the second recovery");
	hole[second] = 1;
	all(MPI_COMM_WORLD);
	makers();
	MPI_Comm_free(&dup);
	return finish();
}
