/* SPDX-License-Identifier: ISC */
/*
 * comm_dup: MPI_Comm_dup and MPI_Comm_dup_with_info.  A duplicate has
 * the parent's ranks, a context of its own (messages with the same
 * tags on the parent and on duplicates never match each other, even
 * with wildcards), the parent's error handler and topology, and no
 * name of the parent's.  Long chains and many live duplicates never
 * share a context.  Also MPI_Comm_compare, MPI_Comm_test_inter,
 * MPI_Comm_set_name and _get_name, and MPI_Comm_free (handle cleared,
 * predefined communicators refused).
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"comm_dup"
#define TAG_ERRS	32000
#define NLIVE		12
#define NCYCLE		40

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
 * Each rank sends v to its right neighbour on comm with tag, and checks
 * that what comes from its left is want(left).
 */
static void
ring(MPI_Comm comm, int tag, int base, const char *what)
{
	MPI_Request	req;
	MPI_Status	st;
	int		rank, size, v, got = -1;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	v = base + rank;
	MPI_Isend(&v, 1, MPI_INT, (rank + 1) % size, tag, comm, &req);
	MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, comm, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (got != base + (rank + size - 1) % size || st.MPI_TAG != tag ||
	    st.MPI_SOURCE != (rank + size - 1) % size)
		fail("%s: got %d from %d tag %d, expected %d from %d tag %d",
		    what, got, st.MPI_SOURCE, st.MPI_TAG,
		    base + (rank + size - 1) % size, (rank + size - 1) % size,
		    tag);
}

static void
basics(void)
{
	MPI_Comm	dup, dup2;
	int		rank, size, res, flag;

	ok(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "Comm_dup of world");
	MPI_Comm_rank(dup, &rank);
	MPI_Comm_size(dup, &size);
	if (rank != myrank || size != nprocs)
		fail("dup of world: rank %d size %d", rank, size);
	if (dup == MPI_COMM_WORLD)
		fail("dup of world is MPI_COMM_WORLD");
	MPI_Comm_compare(dup, MPI_COMM_WORLD, &res);
	if (res != MPI_CONGRUENT)
		fail("compare(dup, world) = %d, expected CONGRUENT", res);
	MPI_Comm_compare(dup, dup, &res);
	if (res != MPI_IDENT)
		fail("compare(dup, dup) = %d, expected IDENT", res);
	MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &res);
	if (res != (nprocs == 1 ? MPI_CONGRUENT : MPI_UNEQUAL))
		fail("compare(world, self) = %d", res);
	flag = 1;
	MPI_Comm_test_inter(dup, &flag);
	if (flag)
		fail("Comm_test_inter says the dup is an intercommunicator");

	/* Same tags on both: each message stays on its communicator. */
	ring(dup, 5, 1000, "ring on dup");
	ring(MPI_COMM_WORLD, 5, 2000, "ring on world");

	ok(MPI_Comm_dup(dup, &dup2), "Comm_dup of a dup");
	MPI_Comm_compare(dup2, dup, &res);
	if (res != MPI_CONGRUENT)
		fail("compare(dup2, dup) = %d, expected CONGRUENT", res);
	ring(dup2, 5, 3000, "ring on dup of dup");
	ok(MPI_Comm_free(&dup2), "Comm_free dup2");
	if (dup2 != MPI_COMM_NULL)
		fail("Comm_free did not set the handle to MPI_COMM_NULL");
	ok(MPI_Comm_free(&dup), "Comm_free dup");

	ok(MPI_Comm_dup(MPI_COMM_SELF, &dup), "Comm_dup of self");
	MPI_Comm_size(dup, &size);
	MPI_Comm_rank(dup, &rank);
	if (size != 1 || rank != 0)
		fail("dup of self: rank %d size %d", rank, size);
	MPI_Comm_compare(dup, MPI_COMM_SELF, &res);
	if (res != MPI_CONGRUENT)
		fail("compare(dup of self, self) = %d", res);
	ring(dup, 9, 4000, "ring on dup of self");
	ok(MPI_Comm_free(&dup), "Comm_free dup of self");
}

/*
 * Messages sent before a receive is posted wait as unexpected ones:
 * post them on the world and on several duplicates, all with one tag,
 * then receive them in the other order, with wildcards.
 */
static void
isolation(void)
{
	MPI_Comm	c[NLIVE + 1];
	MPI_Request	req[NLIVE + 1];
	MPI_Status	st;
	int		i, v[NLIVE + 1], got, right, left;

	right = (myrank + 1) % nprocs;
	left = (myrank + nprocs - 1) % nprocs;
	c[0] = MPI_COMM_WORLD;
	for (i = 1; i <= NLIVE; i++)
		ok(MPI_Comm_dup(c[i - 1], &c[i]), "Comm_dup in a chain");
	for (i = 0; i <= NLIVE; i++) {
		v[i] = i * 100 + myrank;
		MPI_Isend(&v[i], 1, MPI_INT, right, 77, c[i], &req[i]);
	}
	for (i = NLIVE; i >= 0; i--) {
		got = -1;
		MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c[i],
		    &st);
		if (got != i * 100 + left)
			fail("chain: communicator %d received %d, expected "
			    "%d", i, got, i * 100 + left);
	}
	MPI_Waitall(NLIVE + 1, req, MPI_STATUSES_IGNORE);
	for (i = NLIVE; i >= 1; i--)
		MPI_Comm_free(&c[i]);
}

/* Create and free many: new ones never match the live ones' messages. */
static void
churn(void)
{
	MPI_Comm	keep, c;
	MPI_Request	req;
	int		i, v, got;

	MPI_Comm_dup(MPI_COMM_WORLD, &keep);
	for (i = 0; i < NCYCLE; i++) {
		v = i;
		/* A message on keep waits while c comes and goes. */
		MPI_Isend(&v, 1, MPI_INT, myrank, 3, keep, &req);
		MPI_Comm_dup(keep, &c);
		ring(c, 3, 10000 * i, "ring on a short-lived dup");
		MPI_Comm_free(&c);
		got = -1;
		MPI_Recv(&got, 1, MPI_INT, myrank, 3, keep, MPI_STATUS_IGNORE);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (got != i)
			fail("churn %d: received %d on the kept dup", i, got);
	}
	MPI_Comm_free(&keep);
}

static void
handlers_and_names(void)
{
	MPI_Errhandler	eh;
	MPI_Comm	dup, dup2;
	MPI_Info	info;
	char		name[MPI_MAX_OBJECT_NAME], longname[200];
	int		len, rc, buf = 0;

	MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
	if (strcmp(name, "MPI_COMM_WORLD") != 0 || len != 14)
		fail("world is named '%s' (%d)", name, len);
	MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
	if (strcmp(name, "MPI_COMM_SELF") != 0 || len != 13)
		fail("self is named '%s' (%d)", name, len);

	/* The parent's handler is inherited. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_get_errhandler(dup, &eh);
	if (eh != MPI_ERRORS_RETURN)
		fail("the dup did not inherit MPI_ERRORS_RETURN");
	rc = MPI_Send(&buf, 1, MPI_INT, nprocs, 1, dup);
	expect(rc, MPI_ERR_RANK, "Send to rank size on the dup");

	MPI_Comm_set_name(dup, "my dup");
	MPI_Comm_get_name(dup, name, &len);
	if (strcmp(name, "my dup") != 0 || len != 6)
		fail("dup is named '%s' (%d), expected 'my dup'", name, len);
	MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
	if (strcmp(name, "MPI_COMM_WORLD") != 0)
		fail("naming the dup renamed world to '%s'", name);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ok(MPI_Comm_set_name(dup, longname), "Comm_set_name, long name");
	MPI_Comm_get_name(dup, name, &len);
	if (len < 1 || len > MPI_MAX_OBJECT_NAME - 1 ||
	    (size_t)len != strlen(name) || name[0] != 'x')
		fail("a long name came back with length %d", len);

	/* dup_with_info: hints are accepted and ignored. */
	MPI_Info_create(&info);
	MPI_Info_set(info, "ft_hint", "true");
	ok(MPI_Comm_dup_with_info(dup, info, &dup2), "Comm_dup_with_info");
	MPI_Info_free(&info);
	MPI_Comm_get_errhandler(dup2, &eh);
	if (eh != MPI_ERRORS_RETURN)
		fail("dup_with_info did not inherit MPI_ERRORS_RETURN");
	ring(dup2, 1, 500, "ring on dup_with_info");
	MPI_Comm_free(&dup2);
	ok(MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2),
	    "Comm_dup_with_info, MPI_INFO_NULL");
	ring(dup2, 1, 600, "ring on dup_with_info (MPI_INFO_NULL)");
	MPI_Comm_free(&dup2);

	/* Predefined communicators cannot be freed. */
	dup2 = MPI_COMM_WORLD;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Comm_free(&dup2);
	expect(rc, MPI_ERR_COMM, "Comm_free of MPI_COMM_WORLD");
	dup2 = MPI_COMM_SELF;
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rc = MPI_Comm_free(&dup2);
	expect(rc, MPI_ERR_COMM, "Comm_free of MPI_COMM_SELF");
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	dup2 = MPI_COMM_NULL;
	rc = MPI_Comm_free(&dup2);
	expect(rc, MPI_ERR_COMM, "Comm_free of MPI_COMM_NULL");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	ring(MPI_COMM_WORLD, 2, 700, "ring on world after failed frees");
	MPI_Comm_free(&dup);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	basics();
	isolation();
	churn();
	handlers_and_names();
	return finish();
}
