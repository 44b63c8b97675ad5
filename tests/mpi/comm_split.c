/* SPDX-License-Identifier: ISC */
/*
 * comm_split: MPI_Comm_split and MPI_Comm_split_type.  New ranks follow
 * the keys, ties broken by the parent's order; MPI_UNDEFINED gives
 * MPI_COMM_NULL; every sub-communicator reaches the right processes
 * (checked by sending world ranks around each one) and its messages
 * never match the parent's or a sibling's, with the same tags.  Splits
 * of splits, many splits in a row, and MPI_COMM_TYPE_SHARED (all ranks
 * of a one-host job share a node) are covered too, and bad colors and
 * split types fail with MPI_ERR_ARG.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"comm_split"
#define TAG_ERRS	32000
#define NLOOP		25

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

/* rc must be an error of class want. */
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
	if (class != want)
		fail("%s: returned class %d, expected %d", what, class, want);
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
 * its size and our rank, then a ring of world ranks around it.
 */
static void
check_members(MPI_Comm comm, const int *expect, int n, int tag,
    const char *what)
{
	MPI_Request	req;
	MPI_Status	st;
	int		rank = -1, size = -1, me = -1, i, got = -1;

	for (i = 0; i < n; i++)
		if (expect[i] == myrank)
			me = i;
	MPI_Comm_size(comm, &size);
	MPI_Comm_rank(comm, &rank);
	if (size != n || rank != me) {
		fail("%s: rank %d of %d, expected %d of %d", what, rank, size,
		    me, n);
		return;
	}
	MPI_Isend(&myrank, 1, MPI_INT, (rank + 1) % n, tag, comm, &req);
	MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (got != expect[(rank + n - 1) % n] ||
	    st.MPI_SOURCE != (rank + n - 1) % n)
		fail("%s: rank %d received world rank %d from %d, expected "
		    "%d from %d", what, rank, got, st.MPI_SOURCE,
		    expect[(rank + n - 1) % n], (rank + n - 1) % n);
}

/* Members of a split of the world by color(r), key(r), in order. */
static int
expected(int (*color)(int), int (*key)(int), int c, int *out)
{
	int	i, j, n = 0, t;

	for (i = 0; i < nprocs; i++)
		if (color(i) == c)
			out[n++] = i;
	/* Insertion sort by key; stable, so ties keep world order. */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && key(out[j - 1]) > key(out[j]); j--) {
			t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static int	parity(int r) { return r % 2; }
static int	mod3(int r) { return r % 3; }
static int	zero(int r) { (void)r; return 0; }
static int	neg(int r) { return -r; }
static int	ident(int r) { return r; }
static int	halfkey(int r) { return r / 2; }
static int	notfirst(int r) { return r == 0 ? MPI_UNDEFINED : 1; }

static void
split_one(int (*color)(int), int (*key)(int), const char *what)
{
	MPI_Comm	c;
	int		*members, n;

	members = malloc(sizeof(int) * (size_t)nprocs);
	ok(MPI_Comm_split(MPI_COMM_WORLD, color(myrank), key(myrank), &c),
	    what);
	if (color(myrank) == MPI_UNDEFINED) {
		if (c != MPI_COMM_NULL)
			fail("%s: MPI_UNDEFINED did not give MPI_COMM_NULL",
			    what);
		free(members);
		return;
	}
	n = expected(color, key, color(myrank), members);
	check_members(c, members, n, 4, what);
	MPI_Comm_free(&c);
	free(members);
}

/*
 * Messages on the world, on a split and on its sibling, all with one
 * tag and posted before any receive, each reach only their own.
 */
static void
isolation(void)
{
	MPI_Comm	half, all;
	MPI_Request	req[3];
	int		v[3], got, hrank, hsize, arank;

	MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, myrank, &half);
	MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &all);
	MPI_Comm_rank(half, &hrank);
	MPI_Comm_size(half, &hsize);
	MPI_Comm_rank(all, &arank);
	v[0] = 100 + myrank;
	v[1] = 200 + myrank;
	v[2] = 300 + myrank;
	MPI_Isend(&v[0], 1, MPI_INT, myrank, 6, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(&v[1], 1, MPI_INT, hrank, 6, half, &req[1]);
	MPI_Isend(&v[2], 1, MPI_INT, arank, 6, all, &req[2]);
	MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, all,
	    MPI_STATUS_IGNORE);
	if (got != 300 + myrank)
		fail("isolation: the all-ranks split received %d", got);
	MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, half,
	    MPI_STATUS_IGNORE);
	if (got != 200 + myrank)
		fail("isolation: the half split received %d", got);
	MPI_Recv(&got, 1, MPI_INT, myrank, 6, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	if (got != 100 + myrank)
		fail("isolation: the world received %d", got);
	MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
	MPI_Comm_free(&half);
	MPI_Comm_free(&all);
}

/* A split of a split: by parity, then by rank / 2 % 2 inside. */
static void
nested(void)
{
	MPI_Comm	half, quarter;
	int		members[64], n = 0, i, hrank;

	MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, nprocs - myrank, &half);
	MPI_Comm_rank(half, &hrank);
	/* half's order is descending world rank; split it by hrank % 2. */
	ok(MPI_Comm_split(half, hrank % 2, 0, &quarter), "split of split");
	for (i = nprocs - 1; i >= 0; i--) {
		int hr;

		if (i % 2 != myrank % 2)
			continue;
		hr = (nprocs - 1 - i) / 2;
		if (hr % 2 == hrank % 2)
			members[n++] = i;
	}
	check_members(quarter, members, n, 8, "split of split");
	MPI_Comm_free(&quarter);
	MPI_Comm_free(&half);
}

/* Many splits in a row, all live at once, each used afterwards. */
static void
many(void)
{
	MPI_Comm	c[NLOOP];
	MPI_Request	req[NLOOP];
	int		i, v[NLOOP], got, rank, size;

	for (i = 0; i < NLOOP; i++)
		MPI_Comm_split(MPI_COMM_WORLD, (myrank + i) % 3, -myrank,
		    &c[i]);
	for (i = 0; i < NLOOP; i++) {
		MPI_Comm_rank(c[i], &rank);
		v[i] = i;
		MPI_Isend(&v[i], 1, MPI_INT, rank, 0, c[i], &req[i]);
	}
	for (i = NLOOP - 1; i >= 0; i--) {
		MPI_Comm_size(c[i], &size);
		MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c[i],
		    MPI_STATUS_IGNORE);
		if (got != i)
			fail("many: split %d received %d", i, got);
	}
	MPI_Waitall(NLOOP, req, MPI_STATUSES_IGNORE);
	for (i = 0; i < NLOOP; i++)
		MPI_Comm_free(&c[i]);
}

static void
split_type(void)
{
	MPI_Comm	c;
	int		members[64], i, res;

	ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
	    MPI_INFO_NULL, &c), "Comm_split_type SHARED");
	/* One host: every rank shares memory with every other. */
	MPI_Comm_compare(c, MPI_COMM_WORLD, &res);
	if (res != MPI_CONGRUENT)
		fail("split_type SHARED: compare with world = %d", res);
	MPI_Comm_free(&c);
	ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
	    nprocs - myrank, MPI_INFO_NULL, &c),
	    "Comm_split_type SHARED, reversed keys");
	for (i = 0; i < nprocs; i++)
		members[i] = nprocs - 1 - i;
	check_members(c, members, nprocs, 2, "split_type, reversed");
	MPI_Comm_free(&c);
	ok(MPI_Comm_split_type(MPI_COMM_WORLD,
	    myrank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
	    MPI_INFO_NULL, &c), "Comm_split_type with MPI_UNDEFINED");
	if (myrank == 0 && c != MPI_COMM_NULL)
		fail("split_type MPI_UNDEFINED did not give MPI_COMM_NULL");
	if (myrank != 0) {
		for (i = 1; i < nprocs; i++)
			members[i - 1] = i;
		check_members(c, members, nprocs - 1, 2,
		    "split_type without rank 0");
		MPI_Comm_free(&c);
	}
}

/* Bad arguments on every rank fail everywhere; nothing is left behind. */
static void
errors(void)
{
	MPI_Comm	c = MPI_COMM_NULL;
	int		rc;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c);
	expect(rc, MPI_ERR_ARG, "Comm_split with color -5");
	rc = MPI_Comm_split_type(MPI_COMM_WORLD, -12345, 0, MPI_INFO_NULL,
	    &c);
	expect(rc, MPI_ERR_ARG, "Comm_split_type with type -12345");
	rc = MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c);
	expect(rc, MPI_ERR_COMM, "Comm_split of MPI_COMM_NULL");
	rc = MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0,
	    MPI_INFO_NULL, &c);
	expect(rc, MPI_ERR_COMM, "Comm_split_type of MPI_COMM_NULL");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	split_one(parity, neg, "split after errors");
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
	split_one(parity, ident, "split by parity");
	split_one(parity, neg, "split by parity, reversed keys");
	split_one(mod3, halfkey, "split mod 3, tied keys");
	split_one(zero, zero, "split, one color, one key");
	split_one(zero, neg, "split, one color, reversed");
	split_one(notfirst, neg, "split without rank 0");
	isolation();
	nested();
	many();
	split_type();
	errors();
	return finish();
}
