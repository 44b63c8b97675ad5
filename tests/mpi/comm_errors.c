/* SPDX-License-Identifier: ISC */
/*
 * comm_errors: communicator calls under MPI_ERRORS_RETURN return the
 * right error class and leave everything working: MPI_COMM_NULL to
 * every call (MPI_ERR_COMM), MPI_GROUP_NULL (MPI_ERR_GROUP), bad tags
 * for MPI_Comm_create_group (MPI_ERR_TAG).  Errors go to the handler
 * of the communicator they concern, which new communicators inherit.
 * ft's own guarantees are checked too: groups that are not subgroups
 * are refused, freed and garbage handles are errors, not crashes, and
 * an argument error on one rank of a collective creation call makes
 * every rank fail.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME		"comm_errors"
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

/* Is this ft (some checks test ft's own guarantees)? */
static int
is_ft(void)
{
	char	v[MPI_MAX_LIBRARY_VERSION_STRING];
	int	len;

	MPI_Get_library_version(v, &len);
	return strncmp(v, "ft ", 3) == 0;
}

static void
null_comm(void)
{
	MPI_Comm	c;
	MPI_Group	g;
	char		name[MPI_MAX_OBJECT_NAME];
	void		*p;
	int		i, rc, key;

	rc = MPI_Comm_size(MPI_COMM_NULL, &i);
	expect(rc, MPI_ERR_COMM, "Comm_size(MPI_COMM_NULL)");
	rc = MPI_Comm_rank(MPI_COMM_NULL, &i);
	expect(rc, MPI_ERR_COMM, "Comm_rank(MPI_COMM_NULL)");
	rc = MPI_Comm_dup(MPI_COMM_NULL, &c);
	expect(rc, MPI_ERR_COMM, "Comm_dup(MPI_COMM_NULL)");
	rc = MPI_Comm_dup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &c);
	expect(rc, MPI_ERR_COMM, "Comm_dup_with_info(MPI_COMM_NULL)");
	if (is_ft()) {
		/* A freed info handle is not an info object (ft keeps the
		 * set of live ones; other MPIs may not detect this). */
		MPI_Info	inf, stale;

		MPI_Info_create(&inf);
		stale = inf;
		MPI_Info_free(&inf);
		rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, stale, &c);
		expect(rc, MPI_ERR_INFO, "Comm_dup_with_info(freed info)");
		rc = MPI_Comm_set_info(MPI_COMM_WORLD, stale);
		expect(rc, MPI_ERR_INFO, "Comm_set_info(freed info)");
		rc = MPI_Comm_split_type(MPI_COMM_WORLD,
		    MPI_COMM_TYPE_SHARED, 0, stale, &c);
		expect(rc, MPI_ERR_INFO, "Comm_split_type(freed info)");
	}
	rc = MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c);
	expect(rc, MPI_ERR_COMM, "Comm_split(MPI_COMM_NULL)");
	rc = MPI_Comm_create(MPI_COMM_NULL, MPI_GROUP_EMPTY, &c);
	expect(rc, MPI_ERR_COMM, "Comm_create(MPI_COMM_NULL)");
	rc = MPI_Comm_create_group(MPI_COMM_NULL, MPI_GROUP_EMPTY, 0, &c);
	expect(rc, MPI_ERR_COMM, "Comm_create_group(MPI_COMM_NULL)");
	rc = MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &i);
	expect(rc, MPI_ERR_COMM, "Comm_compare(MPI_COMM_NULL, world)");
	rc = MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &i);
	expect(rc, MPI_ERR_COMM, "Comm_compare(world, MPI_COMM_NULL)");
	rc = MPI_Comm_group(MPI_COMM_NULL, &g);
	expect(rc, MPI_ERR_COMM, "Comm_group(MPI_COMM_NULL)");
	rc = MPI_Comm_set_name(MPI_COMM_NULL, "x");
	expect(rc, MPI_ERR_COMM, "Comm_set_name(MPI_COMM_NULL)");
	rc = MPI_Comm_get_name(MPI_COMM_NULL, name, &i);
	expect(rc, MPI_ERR_COMM, "Comm_get_name(MPI_COMM_NULL)");
	rc = MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &p, &i);
	expect(rc, MPI_ERR_COMM, "Comm_get_attr(MPI_COMM_NULL)");
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
	    &key, NULL);
	rc = MPI_Comm_set_attr(MPI_COMM_NULL, key, NULL);
	expect(rc, MPI_ERR_COMM, "Comm_set_attr(MPI_COMM_NULL)");
	rc = MPI_Comm_delete_attr(MPI_COMM_NULL, key);
	expect(rc, MPI_ERR_COMM, "Comm_delete_attr(MPI_COMM_NULL)");
	MPI_Comm_free_keyval(&key);
	rc = MPI_Comm_test_inter(MPI_COMM_NULL, &i);
	expect(rc, MPI_ERR_COMM, "Comm_test_inter(MPI_COMM_NULL)");
	rc = MPI_Topo_test(MPI_COMM_NULL, &i);
	expect(rc, MPI_ERR_COMM, "Topo_test(MPI_COMM_NULL)");
	c = MPI_COMM_NULL;
	rc = MPI_Comm_free(&c);
	expect(rc, MPI_ERR_COMM, "Comm_free(MPI_COMM_NULL)");
}

static void
bad_groups(void)
{
	MPI_Comm	half, c;
	MPI_Group	wg;
	int		rc;

	rc = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c);
	expect(rc, MPI_ERR_GROUP, "Comm_create with MPI_GROUP_NULL");
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	rc = MPI_Comm_create_group(MPI_COMM_WORLD, wg, -1, &c);
	expect(rc, MPI_ERR_TAG, "Comm_create_group with tag -1");
	/* Open MPI checks neither of these. */
	if (is_ft()) {
		rc = MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0,
		    &c);
		expect(rc, MPI_ERR_GROUP,
		    "Comm_create_group with MPI_GROUP_NULL");
	}
	if (nprocs > 1 && is_ft()) {
		/* The world's group is not a subgroup of a half. */
		MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, 0, &half);
		rc = MPI_Comm_create(half, wg, &c);
		expect(rc, MPI_ERR_GROUP, "Comm_create with a larger group");
		MPI_Comm_free(&half);
	}
	MPI_Group_free(&wg);
}

/* Errors go to the handler of the communicator they concern. */
static void
handlers(void)
{
	MPI_Errhandler	eh;
	MPI_Comm	ret, sub;
	int		rc, buf = 0;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_dup(MPI_COMM_WORLD, &ret);
	MPI_Comm_set_errhandler(ret, MPI_ERRORS_RETURN);
	rc = MPI_Send(&buf, 1, MPI_INT, nprocs, 0, ret);
	expect(rc, MPI_ERR_RANK, "Send to rank size on a RETURN dup");
	MPI_Comm_split(ret, 0, -myrank, &sub);
	MPI_Comm_get_errhandler(sub, &eh);
	if (eh != MPI_ERRORS_RETURN)
		fail("a split of a RETURN communicator is not RETURN");
	rc = MPI_Send(&buf, 1, MPI_INT, -7, 0, sub);
	expect(rc, MPI_ERR_RANK, "Send to rank -7 on its split");
	MPI_Comm_free(&sub);
	MPI_Comm_free(&ret);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* ft only: freed and garbage handles are errors, not crashes. */
static void
stale_handles(void)
{
	static union {
		char	bytes[512];
		double	align;
	} junk;
	MPI_Comm	c, stale, garbage;
	MPI_Group	g, gstale, ggarbage;
	int		i, rc, buf = 0;

	memset(junk.bytes, 0xa5, sizeof(junk.bytes));
	garbage = (MPI_Comm)(void *)junk.bytes;
	ggarbage = (MPI_Group)(void *)junk.bytes;
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	stale = c;
	MPI_Comm_free(&c);
	rc = MPI_Comm_size(stale, &i);
	expect(rc, MPI_ERR_COMM, "Comm_size of a freed communicator");
	rc = MPI_Send(&buf, 1, MPI_INT, 0, 0, stale);
	expect(rc, MPI_ERR_COMM, "Send on a freed communicator");
	rc = MPI_Comm_free(&stale);
	expect(rc, MPI_ERR_COMM, "Comm_free twice");
	rc = MPI_Comm_dup(stale, &c);
	expect(rc, MPI_ERR_COMM, "Comm_dup of a freed communicator");
	rc = MPI_Comm_size(garbage, &i);
	expect(rc, MPI_ERR_COMM, "Comm_size of a garbage handle");
	rc = MPI_Recv(&buf, 1, MPI_INT, 0, 0, garbage, MPI_STATUS_IGNORE);
	expect(rc, MPI_ERR_COMM, "Recv on a garbage handle");
	rc = MPI_Comm_split(garbage, 0, 0, &c);
	expect(rc, MPI_ERR_COMM, "Comm_split of a garbage handle");
	rc = MPI_Comm_set_errhandler(garbage, MPI_ERRORS_RETURN);
	expect(rc, MPI_ERR_COMM, "Comm_set_errhandler on a garbage handle");

	MPI_Comm_group(MPI_COMM_WORLD, &g);
	gstale = g;
	MPI_Group_free(&g);
	rc = MPI_Group_size(gstale, &i);
	expect(rc, MPI_ERR_GROUP, "Group_size of a freed group");
	rc = MPI_Group_free(&gstale);
	expect(rc, MPI_ERR_GROUP, "Group_free twice");
	rc = MPI_Group_size(ggarbage, &i);
	expect(rc, MPI_ERR_GROUP, "Group_size of a garbage handle");
	rc = MPI_Comm_create(MPI_COMM_WORLD, ggarbage, &c);
	expect(rc, MPI_ERR_GROUP, "Comm_create with a garbage group");
}

/*
 * ft only: a bad argument on one rank of a collective creation call
 * fails it on every rank (elsewhere the others might hang).
 */
static void
agreed_errors(void)
{
	MPI_Comm	c = MPI_COMM_NULL;
	MPI_Group	wg;
	int		rc, size;

	rc = MPI_Comm_split(MPI_COMM_WORLD, myrank == nprocs - 1 ? -3 : 0,
	    0, &c);
	expect(rc, MPI_ERR_ARG, "Comm_split, one rank with color -3");
	if (c != MPI_COMM_NULL)
		fail("a failed Comm_split set newcomm");
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	rc = MPI_Comm_create(MPI_COMM_WORLD, myrank == 0 ? MPI_GROUP_NULL :
	    wg, &c);
	expect(rc, MPI_ERR_GROUP, "Comm_create, rank 0 with MPI_GROUP_NULL");
	MPI_Group_free(&wg);
	rc = MPI_Comm_dup(MPI_COMM_WORLD, myrank == nprocs - 1 ? NULL : &c);
	expect(rc, MPI_ERR_ARG, "Comm_dup, last rank with NULL newcomm");
	/* And all is well afterwards. */
	ok(MPI_Comm_dup(MPI_COMM_WORLD, &c), "Comm_dup after the errors");
	MPI_Comm_size(c, &size);
	if (size != nprocs)
		fail("dup after the errors has size %d", size);
	MPI_Comm_free(&c);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	/* Errors without a valid communicator go to the world's (or in
	 * MPI-4 to MPI_COMM_SELF's) handler: set both. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	null_comm();
	bad_groups();
	handlers();
	if (is_ft()) {
		stale_handles();
		agreed_errors();
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return finish();
}
