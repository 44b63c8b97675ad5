/* SPDX-License-Identifier: ISC */
/*
 * group_ops: every group call against lists computed here.  The
 * world's group; MPI_Group_incl, _excl, _range_incl, _range_excl
 * (strides up and down, several ranges); union, intersection and
 * difference (order: the first group's members, then the second's new
 * ones); MPI_Group_compare (IDENT, SIMILAR, UNEQUAL);
 * MPI_Group_translate_ranks (MPI_PROC_NULL, MPI_UNDEFINED); ranks of
 * non-members; MPI_GROUP_EMPTY results; groups of split communicators;
 * and the error classes of bad ranks, duplicates, strides of zero and
 * invalid groups.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"group_ops"
#define TAG_ERRS	32000
#define ANY_ERROR	(-1)
#define MAXP		64

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

/* rc must be an error of class want (any class: ANY_ERROR). */
static void
expect(int rc, int want, const char *what)
{
	int	class = -1;

	if (rc == MPI_SUCCESS) {
		fail("%s: returned MPI_SUCCESS, expected class %d", what,
		    want);
		return;
	}
	MPI_Error_class(rc, &class);
	if (class != want && want != ANY_ERROR)
		fail("%s: returned class %d, expected %d", what, class, want);
}

/* rc must be MPI_SUCCESS. */
static void
ok(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		fail("%s: returned %d", what, rc);
}

/* Is this ft (some checks test ft's own guarantees)? */
static int
is_ft(void)
{
	char	v[MPI_MAX_LIBRARY_VERSION_STRING];
	int	len;

	MPI_Get_library_version(v, &len);
	return strncmp(v, "ft ", 3) == 0;
}

static MPI_Group	world;

/* g must hold exactly the world ranks list[0..n-1], in order. */
static void
check(MPI_Group g, const int *list, int n, const char *what)
{
	int	size = -1, rank = -2, me = MPI_UNDEFINED, i;
	int	idx[MAXP], out[MAXP];

	MPI_Group_size(g, &size);
	MPI_Group_rank(g, &rank);
	for (i = 0; i < n; i++)
		if (list[i] == myrank)
			me = i;
	if (size != n || rank != me) {
		fail("%s: size %d rank %d, expected %d and %d", what, size,
		    rank, n, me);
		return;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	if (n > 0)
		ok(MPI_Group_translate_ranks(g, n, idx, world, out), what);
	for (i = 0; i < n; i++)
		if (out[i] != list[i])
			fail("%s: member %d is world rank %d, expected %d",
			    what, i, out[i], list[i]);
}

static void
compare(MPI_Group a, MPI_Group b, int want, const char *what)
{
	int	res = -1;

	ok(MPI_Group_compare(a, b, &res), what);
	if (res != want)
		fail("%s: compare gave %d, expected %d", what, res, want);
}

/* Is list 0, 1, ..., n-1 (so a group of it is the world's)? */
static int
identity(const int *list, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		if (list[i] != i)
			return 0;
	return n == nprocs;
}

static void
setops(MPI_Group evens, MPI_Group odds, MPI_Group rev)
{
	MPI_Group	g;
	int		list[MAXP] = { 0 }, n = 0, i;

	/* Union: evens, then odds. */
	for (i = 0; i < nprocs; i += 2)
		list[n++] = i;
	for (i = 1; i < nprocs; i += 2)
		list[n++] = i;
	ok(MPI_Group_union(evens, odds, &g), "Group_union(evens, odds)");
	check(g, list, n, "union(evens, odds)");
	compare(g, world, identity(list, n) ? MPI_IDENT : MPI_SIMILAR,
	    "union(evens, odds) vs world");
	MPI_Group_free(&g);
	n = 0;
	for (i = 1; i < nprocs; i += 2)
		list[n++] = i;
	for (i = 0; i < nprocs; i += 2)
		list[n++] = i;
	ok(MPI_Group_union(odds, evens, &g), "Group_union(odds, evens)");
	check(g, list, n, "union(odds, evens)");
	MPI_Group_free(&g);
	ok(MPI_Group_union(world, evens, &g), "Group_union(world, evens)");
	compare(g, world, MPI_IDENT, "union(world, evens) vs world");
	MPI_Group_free(&g);
	ok(MPI_Group_union(rev, evens, &g), "Group_union(rev, evens)");
	compare(g, rev, MPI_IDENT, "union(rev, evens) vs rev");
	MPI_Group_free(&g);
	ok(MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g),
	    "Group_union of empties");
	check(g, list, 0, "union of empties");
	MPI_Group_free(&g);

	/* Intersection keeps the first group's order. */
	ok(MPI_Group_intersection(world, evens, &g),
	    "Group_intersection(world, evens)");
	compare(g, evens, MPI_IDENT, "intersection(world, evens) vs evens");
	MPI_Group_free(&g);
	for (i = nprocs - 1, n = 0; i >= 0; i--)
		if (i % 2 == 0)
			list[n++] = i;
	ok(MPI_Group_intersection(rev, evens, &g),
	    "Group_intersection(rev, evens)");
	check(g, list, n, "intersection(rev, evens)");
	MPI_Group_free(&g);
	ok(MPI_Group_intersection(evens, odds, &g),
	    "Group_intersection(evens, odds)");
	check(g, list, 0, "intersection(evens, odds)");
	compare(g, MPI_GROUP_EMPTY, MPI_IDENT,
	    "intersection(evens, odds) vs empty");
	MPI_Group_free(&g);

	/* Difference too. */
	ok(MPI_Group_difference(world, evens, &g),
	    "Group_difference(world, evens)");
	compare(g, odds, MPI_IDENT, "difference(world, evens) vs odds");
	MPI_Group_free(&g);
	ok(MPI_Group_difference(rev, odds, &g),
	    "Group_difference(rev, odds)");
	check(g, list, n, "difference(rev, odds)");
	MPI_Group_free(&g);
	ok(MPI_Group_difference(evens, world, &g),
	    "Group_difference(evens, world)");
	check(g, list, 0, "difference(evens, world)");
	MPI_Group_free(&g);
	if (nprocs > 1)
		compare(evens, odds, MPI_UNEQUAL, "evens vs odds");
}

static void
translate(MPI_Group evens, MPI_Group rev)
{
	int	in[MAXP + 2], out[MAXP + 2], i;

	for (i = 0; i < nprocs; i++)
		in[i] = i;
	in[nprocs] = MPI_PROC_NULL;
	ok(MPI_Group_translate_ranks(world, nprocs + 1, in, rev, out),
	    "translate world -> rev");
	for (i = 0; i < nprocs; i++)
		if (out[i] != nprocs - 1 - i)
			fail("translate world -> rev: %d gave %d", i, out[i]);
	if (out[nprocs] != MPI_PROC_NULL)
		fail("translate of MPI_PROC_NULL gave %d", out[nprocs]);
	ok(MPI_Group_translate_ranks(world, nprocs, in, evens, out),
	    "translate world -> evens");
	for (i = 0; i < nprocs; i++)
		if (out[i] != (i % 2 == 0 ? i / 2 : MPI_UNDEFINED))
			fail("translate world -> evens: %d gave %d", i,
			    out[i]);
	ok(MPI_Group_translate_ranks(world, 0, in, evens, out),
	    "translate of no rank");
	if (!is_ft())
		return;		/* Open MPI 4.1 crashes on this one */
	ok(MPI_Group_translate_ranks(world, nprocs, in, MPI_GROUP_EMPTY,
	    out), "translate world -> empty");
	for (i = 0; i < nprocs; i++)
		if (out[i] != MPI_UNDEFINED)
			fail("translate world -> empty: %d gave %d", i,
			    out[i]);
}

/* Groups of split communicators. */
static void
splits(MPI_Group evens)
{
	MPI_Comm	half;
	MPI_Group	g, wg;
	int		res, list[MAXP], n = 0, i;

	MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, 0, &half);
	ok(MPI_Comm_group(half, &g), "Comm_group of a split");
	for (i = myrank % 2; i < nprocs; i += 2)
		list[n++] = i;
	check(g, list, n, "group of a split");
	if (myrank % 2 == 0)
		compare(g, evens, MPI_IDENT, "group of the even split");
	MPI_Group_free(&g);
	MPI_Comm_free(&half);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_compare(wg, world, &res);
	if (res != MPI_IDENT)
		fail("two groups of the world compare %d", res);
	MPI_Group_free(&wg);
}

static void
errors(void)
{
	MPI_Group	g, null = MPI_GROUP_NULL;
	int		rc, ranks[4], out[4], i, ranges[1][3], duperr;

	/* Open MPI says MPI_ERR_GROUP for some duplicates. */
	duperr = is_ft() ? MPI_ERR_RANK : ANY_ERROR;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	ranks[0] = nprocs;
	rc = MPI_Group_incl(world, 1, ranks, &g);
	expect(rc, MPI_ERR_RANK, "Group_incl of rank size");
	ranks[0] = -1;
	rc = MPI_Group_incl(world, 1, ranks, &g);
	expect(rc, MPI_ERR_RANK, "Group_incl of rank -1");
	ranks[0] = ranks[1] = 0;
	rc = MPI_Group_incl(world, 2, ranks, &g);
	if (rc == MPI_SUCCESS && !is_ft())
		MPI_Group_free(&g);	/* Open MPI does not check */
	else
		expect(rc, duperr, "Group_incl of rank 0 twice");
	ranks[0] = nprocs;
	rc = MPI_Group_excl(world, 1, ranks, &g);
	expect(rc, MPI_ERR_RANK, "Group_excl of rank size");
	ranks[0] = ranks[1] = 0;
	rc = MPI_Group_excl(world, 2, ranks, &g);
	if (rc == MPI_SUCCESS && !is_ft())
		MPI_Group_free(&g);
	else
		expect(rc, duperr, "Group_excl of rank 0 twice");
	if (is_ft()) {
		/* Open MPI 4.1 crashes on this one. */
		ranks[0] = nprocs;
		rc = MPI_Group_translate_ranks(world, 1, ranks, world, out);
		expect(rc, MPI_ERR_RANK, "Group_translate_ranks of rank size");
	}
	ranges[0][0] = 0;
	ranges[0][1] = nprocs;
	ranges[0][2] = 1;
	rc = MPI_Group_range_incl(world, 1, ranges, &g);
	expect(rc, MPI_ERR_RANK, "Group_range_incl up to rank size");
	rc = MPI_Group_range_excl(world, 1, ranges, &g);
	expect(rc, MPI_ERR_RANK, "Group_range_excl up to rank size");
	ranges[0][1] = 0;
	ranges[0][2] = 0;
	rc = MPI_Group_range_incl(world, 1, ranges, &g);
	if (rc == MPI_SUCCESS)
		fail("Group_range_incl with stride 0 succeeded");

	rc = MPI_Group_size(MPI_GROUP_NULL, &i);
	expect(rc, MPI_ERR_GROUP, "Group_size(MPI_GROUP_NULL)");
	rc = MPI_Group_rank(MPI_GROUP_NULL, &i);
	expect(rc, MPI_ERR_GROUP, "Group_rank(MPI_GROUP_NULL)");
	rc = MPI_Group_free(&null);
	expect(rc, MPI_ERR_GROUP, "Group_free(MPI_GROUP_NULL)");
	rc = MPI_Group_union(world, MPI_GROUP_NULL, &g);
	expect(rc, MPI_ERR_GROUP, "Group_union with MPI_GROUP_NULL");
	rc = MPI_Group_intersection(MPI_GROUP_NULL, world, &g);
	expect(rc, MPI_ERR_GROUP, "Group_intersection with MPI_GROUP_NULL");
	rc = MPI_Group_difference(world, MPI_GROUP_NULL, &g);
	expect(rc, MPI_ERR_GROUP, "Group_difference with MPI_GROUP_NULL");
	rc = MPI_Group_compare(world, MPI_GROUP_NULL, &i);
	expect(rc, MPI_ERR_GROUP, "Group_compare with MPI_GROUP_NULL");
	ranks[0] = 0;
	if (is_ft()) {
		/* Open MPI crashes here. */
		rc = MPI_Group_translate_ranks(world, 1, ranks,
		    MPI_GROUP_NULL, out);
		expect(rc, MPI_ERR_GROUP,
		    "Group_translate_ranks to MPI_GROUP_NULL");
	}
	rc = MPI_Group_incl(MPI_GROUP_NULL, 1, ranks, &g);
	expect(rc, MPI_ERR_GROUP, "Group_incl of MPI_GROUP_NULL");
	rc = MPI_Group_excl(MPI_GROUP_NULL, 1, ranks, &g);
	expect(rc, MPI_ERR_GROUP, "Group_excl of MPI_GROUP_NULL");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void
subsets(void)
{
	MPI_Group	g, h, rev, evens, odds;
	int		list[MAXP], ranks[MAXP], n, i, ranges[3][3];

	for (i = 0; i < nprocs; i++)
		list[i] = i;
	check(world, list, nprocs, "the world's group");
	compare(world, world, MPI_IDENT, "world vs world");

	/* Reversed: incl, and range_incl with stride -1. */
	for (i = 0; i < nprocs; i++)
		ranks[i] = list[i] = nprocs - 1 - i;
	ok(MPI_Group_incl(world, nprocs, ranks, &rev), "Group_incl reversed");
	check(rev, list, nprocs, "incl reversed");
	compare(rev, world, nprocs == 1 ? MPI_IDENT : MPI_SIMILAR,
	    "reversed vs world");
	ranges[0][0] = nprocs - 1;
	ranges[0][1] = 0;
	ranges[0][2] = -1;
	ok(MPI_Group_range_incl(world, 1, ranges, &g), "range_incl -1");
	compare(g, rev, MPI_IDENT, "range_incl -1 vs incl reversed");
	MPI_Group_free(&g);

	/* Evens and odds, four ways each. */
	for (i = n = 0; i < nprocs; i += 2)
		list[n++] = i;
	ok(MPI_Group_incl(world, n, list, &evens), "Group_incl evens");
	check(evens, list, n, "incl evens");
	ranges[0][0] = 0;
	ranges[0][1] = nprocs - 1;
	ranges[0][2] = 2;
	ok(MPI_Group_range_incl(world, 1, ranges, &g), "range_incl evens");
	check(g, list, n, "range_incl evens");
	MPI_Group_free(&g);
	for (i = n = 0; i < nprocs; i += 2)
		ranks[n++] = i;
	ok(MPI_Group_excl(world, n, ranks, &odds), "Group_excl evens");
	for (i = 1, n = 0; i < nprocs; i += 2)
		list[n++] = i;
	check(odds, list, n, "excl evens");
	if (nprocs > 1) {
		ranges[0][0] = 0;
		ranges[0][1] = nprocs - 1;
		ranges[0][2] = 2;
		ok(MPI_Group_range_excl(world, 1, ranges, &g),
		    "range_excl evens");
		check(g, list, n, "range_excl evens");
		MPI_Group_free(&g);
	}

	/* Several ranges: the last rank, then 0..n-2 by 3. */
	n = 0;
	list[n++] = nprocs - 1;
	for (i = 0; i <= nprocs - 2; i += 3)
		list[n++] = i;
	ranges[0][0] = nprocs - 1;
	ranges[0][1] = nprocs - 1;
	ranges[0][2] = 1;
	ranges[1][0] = 0;
	ranges[1][1] = nprocs - 2;
	ranges[1][2] = 3;
	ok(MPI_Group_range_incl(world, nprocs > 1 ? 2 : 1, ranges, &g),
	    "range_incl, two ranges");
	check(g, list, n, "range_incl, two ranges");
	ok(MPI_Group_range_excl(world, nprocs > 1 ? 2 : 1, ranges, &h),
	    "range_excl, two ranges");
	{
		int	k = 0, j, keep;

		for (i = 0; i < nprocs; i++) {
			for (keep = 1, j = 0; j < n; j++)
				if (list[j] == i)
					keep = 0;
			if (keep)
				ranks[k++] = i;
		}
		check(h, ranks, k, "range_excl, two ranges");
	}
	MPI_Group_free(&g);
	MPI_Group_free(&h);

	/* Empty results are MPI_GROUP_EMPTY's equal. */
	ok(MPI_Group_incl(world, 0, ranks, &g), "Group_incl of none");
	check(g, list, 0, "incl of none");
	compare(g, MPI_GROUP_EMPTY, MPI_IDENT, "incl of none vs empty");
	MPI_Group_free(&g);
	for (i = 0; i < nprocs; i++)
		ranks[i] = i;
	ok(MPI_Group_excl(world, nprocs, ranks, &g), "Group_excl of all");
	check(g, list, 0, "excl of all");
	MPI_Group_free(&g);

	setops(evens, odds, rev);
	translate(evens, rev);
	splits(evens);
	MPI_Group_free(&evens);
	MPI_Group_free(&odds);
	MPI_Group_free(&rev);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	if (nprocs > MAXP) {
		if (myrank == 0)
			fprintf(stderr, "%s: at most %d ranks\n", NAME, MAXP);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	ok(MPI_Comm_group(MPI_COMM_WORLD, &world), "Comm_group(world)");
	subsets();
	errors();
	ok(MPI_Group_free(&world), "Group_free(world)");
	if (world != MPI_GROUP_NULL)
		fail("Group_free did not clear the handle");
	return finish();
}
