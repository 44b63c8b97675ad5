/* SPDX-License-Identifier: ISC */
/*
 * comm_create: MPI_Comm_create (one group for all, disjoint groups,
 * MPI_GROUP_EMPTY) and MPI_Comm_create_group (called by the members
 * only; two disjoint groups at once with one tag; overlapping calls in
 * turn), MPI_Comm_group and MPI_Comm_compare against the groups used.
 * New communicators hold the group's processes in the group's order
 * and keep their messages apart from the parent's.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"comm_create"
#define TAG_ERRS	32000

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

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
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

/* rc must be MPI_SUCCESS. */
static void
ok(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		fail("%s: returned %d", what, rc);
}

/*
 * Check that comm holds, in order, the world ranks expect[0..n-1]:
 * its size, our rank, its group, then a ring of world ranks around it.
 */
static void
check_members(MPI_Comm comm, const int *expect, int n, int tag,
    const char *what)
{
	MPI_Request	req;
	MPI_Status	st;
	MPI_Group	wg, g;
	int		rank = -1, size = -1, me = -1, i, got = -1, *tr;

	for (i = 0; i < n; i++)
		if (expect[i] == myrank)
			me = i;
	if (me < 0) {
		if (comm != MPI_COMM_NULL)
			fail("%s: a non-member got a communicator", what);
		return;
	}
	if (comm == MPI_COMM_NULL) {
		fail("%s: a member got MPI_COMM_NULL", what);
		return;
	}
	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	if (size != n || rank != me) {
		fail("%s: rank %d of %d, expected %d of %d", what, rank, size,
		    me, n);
		return;
	}
	/* Its group maps to the expected world ranks. */
	tr = malloc(sizeof(int) * 2 * (size_t)n);
	for (i = 0; i < n; i++)
		tr[i] = i;
	MPI_Comm_group(comm, &g);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_translate_ranks(g, n, tr, wg, tr + n);
	for (i = 0; i < n; i++)
		if (tr[n + i] != expect[i])
			fail("%s: rank %d is world rank %d, expected %d",
			    what, i, tr[n + i], expect[i]);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	free(tr);
	MPI_Isend(&myrank, 1, MPI_INT, (rank + 1) % n, tag, comm, &req);
	MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (got != expect[(rank + n - 1) % n])
		fail("%s: rank %d received world rank %d, expected %d", what,
		    rank, got, expect[(rank + n - 1) % n]);
}

/* The group of the world ranks in list, through Group_incl. */
static MPI_Group
group_of(const int *list, int n)
{
	MPI_Group	wg, g;

	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_incl(wg, n, list, &g);
	MPI_Group_free(&wg);
	return g;
}

static void
create(void)
{
	MPI_Comm	c, dup;
	MPI_Group	g, cg;
	int		list[64], n = 0, i, res;

	/* The even ranks, last first. */
	for (i = (nprocs - 1) / 2 * 2; i >= 0; i -= 2)
		list[n++] = i;
	g = group_of(list, n);
	ok(MPI_Comm_create(MPI_COMM_WORLD, g, &c), "Comm_create, evens");
	check_members(c, list, n, 1, "Comm_create, evens reversed");
	if (c != MPI_COMM_NULL) {
		MPI_Comm_group(c, &cg);
		MPI_Group_compare(cg, g, &res);
		if (res != MPI_IDENT)
			fail("the group of the new communicator compares %d",
			    res);
		MPI_Group_free(&cg);
		MPI_Comm_free(&c);
	}
	MPI_Group_free(&g);

	/* All ranks in world order: congruent with the world. */
	for (n = 0; n < nprocs; n++)
		list[n] = n;
	g = group_of(list, n);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	ok(MPI_Comm_create(dup, g, &c), "Comm_create, all ranks");
	MPI_Comm_compare(c, MPI_COMM_WORLD, &res);
	if (res != MPI_CONGRUENT)
		fail("Comm_create of the whole group compares %d", res);
	check_members(c, list, n, 1, "Comm_create, all ranks");
	MPI_Comm_free(&c);
	MPI_Group_free(&g);

	/* Disjoint groups (MPI-2.2): each rank names its parity's. */
	for (i = myrank % 2, n = 0; i < nprocs; i += 2)
		list[n++] = i;
	g = group_of(list, n);
	ok(MPI_Comm_create(dup, g, &c), "Comm_create, disjoint groups");
	check_members(c, list, n, 2, "Comm_create, disjoint groups");
	MPI_Comm_free(&c);
	MPI_Group_free(&g);

	/* Nobody: everyone gets MPI_COMM_NULL. */
	c = MPI_COMM_WORLD;
	ok(MPI_Comm_create(dup, MPI_GROUP_EMPTY, &c),
	    "Comm_create, MPI_GROUP_EMPTY");
	if (c != MPI_COMM_NULL)
		fail("Comm_create of MPI_GROUP_EMPTY gave a communicator");
	MPI_Comm_free(&dup);
}

static void
create_group(void)
{
	MPI_Comm	c, c2;
	MPI_Group	g;
	MPI_Request	req;
	int		list[64], n = 0, i, h = (nprocs + 1) / 2, v, got;

	/*
	 * Only the first half calls, in reverse order; the others are
	 * busy with a message of their own on the world meanwhile.
	 */
	for (i = h - 1; i >= 0; i--)
		list[n++] = i;
	if (myrank < h) {
		g = group_of(list, n);
		ok(MPI_Comm_create_group(MPI_COMM_WORLD, g, 9, &c),
		    "Comm_create_group, first half");
		check_members(c, list, n, 3, "Comm_create_group, first half");
		MPI_Comm_free(&c);
		MPI_Group_free(&g);
	}
	v = myrank;
	MPI_Isend(&v, 1, MPI_INT, nprocs - 1 - myrank, 9, MPI_COMM_WORLD,
	    &req);
	MPI_Recv(&got, 1, MPI_INT, nprocs - 1 - myrank, 9, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (got != nprocs - 1 - myrank)
		fail("create_group: the world message was %d", got);

	/* Two disjoint groups at once, with the same tag. */
	for (i = myrank % 2, n = 0; i < nprocs; i += 2)
		list[n++] = i;
	g = group_of(list, n);
	ok(MPI_Comm_create_group(MPI_COMM_WORLD, g, 4, &c),
	    "Comm_create_group, disjoint");
	check_members(c, list, n, 3, "Comm_create_group, disjoint");
	MPI_Group_free(&g);

	/*
	 * Overlapping groups in turn on the same parent: ranks 0..h-1,
	 * then 1..nprocs-1 (over c's parent, the world).
	 */
	for (n = 0; n < h; n++)
		list[n] = n;
	if (myrank < h) {
		g = group_of(list, n);
		ok(MPI_Comm_create_group(MPI_COMM_WORLD, g, 4, &c2),
		    "Comm_create_group, overlapping 1");
		check_members(c2, list, n, 5, "overlapping 1");
		MPI_Comm_free(&c2);
		MPI_Group_free(&g);
	}
	for (n = 0; n < nprocs - 1; n++)
		list[n] = n + 1;
	if (myrank > 0) {
		g = group_of(list, n);
		ok(MPI_Comm_create_group(MPI_COMM_WORLD, g, 4, &c2),
		    "Comm_create_group, overlapping 2");
		check_members(c2, list, n, 5, "overlapping 2");
		MPI_Comm_free(&c2);
		MPI_Group_free(&g);
	}

	/* A member of nothing gets MPI_COMM_NULL, at once. */
	c2 = MPI_COMM_WORLD;
	ok(MPI_Comm_create_group(c, MPI_GROUP_EMPTY, 0, &c2),
	    "Comm_create_group, MPI_GROUP_EMPTY");
	if (c2 != MPI_COMM_NULL)
		fail("Comm_create_group of MPI_GROUP_EMPTY gave a "
		    "communicator");
	MPI_Comm_free(&c);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (nprocs > 64) {
		if (myrank == 0)
			fprintf(stderr, "%s: at most 64 ranks\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	create();
	create_group();
	return finish();
}
