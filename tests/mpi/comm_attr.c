/* SPDX-License-Identifier: ISC */
/*
 * comm_attr: attribute caching.  Keyvals with copy and delete
 * functions (called with the right communicator, keyval, value and
 * extra state, on MPI_Comm_dup, MPI_Comm_free, MPI_Comm_set_attr over
 * an old value and MPI_Comm_delete_attr), MPI_COMM_NULL_COPY_FN,
 * MPI_COMM_DUP_FN and MPI_COMM_NULL_DELETE_FN, a failing copy function
 * failing the dup, keyvals freed while attributes still use them, the
 * predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL) on the world and on duplicates, keyval errors,
 * the MPI-1 names, and attributes of MPI_COMM_SELF deleted by
 * MPI_Finalize, newest first.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MPI_ERR_KEYVAL
#define MPI_ERR_KEYVAL	MPI_ERR_ARG	/* until ft has the class */
#endif

#define NAME		"comm_attr"
#define TAG_ERRS	32000
#define ANY_ERROR	(-1)

static int	ncopy, ndelete;		/* calls of the callbacks */
static int	copy_fails;		/* make copy_fn fail */
static int	last_deleted;		/* value of the last delete call */
static MPI_Comm	last_comm;		/* communicator of that call */
static int	extra_state = 42;
static int	self_order[2], nself;	/* MPI_Finalize's deletes */

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

/* Copy: value + 1000, so the copies can be told apart. */
static int
copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
    int *flag)
{
	(void)comm;
	(void)keyval;
	ncopy++;
	if (extra != &extra_state)
		fail("copy_fn: wrong extra state");
	if (copy_fails)
		return MPI_ERR_OTHER;
	*(void **)out = (void *)((char *)in + 1000);
	*flag = 1;
	return MPI_SUCCESS;
}

static int
delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)keyval;
	ndelete++;
	if (extra != &extra_state)
		fail("delete_fn: wrong extra state");
	last_deleted = (int)((char *)val - (char *)0);
	last_comm = comm;
	return MPI_SUCCESS;
}

static int
self_delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm;
	(void)keyval;
	(void)extra;
	if (nself < 2)
		self_order[nself] = (int)((char *)val - (char *)0);
	nself++;
	return MPI_SUCCESS;
}

static void *
v(int i)
{
	return (char *)0 + i;
}

static int
get(MPI_Comm comm, int key, int *flag)
{
	void	*val = NULL;

	*flag = -1;
	ok(MPI_Comm_get_attr(comm, key, &val, flag), "Comm_get_attr");
	return (int)((char *)val - (char *)0);
}

static void
callbacks(void)
{
	MPI_Comm	dup, dup2;
	int		key, nullkey, dupkey, flag, val, rc;

	ok(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &extra_state),
	    "Comm_create_keyval");
	ok(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
	    MPI_COMM_NULL_DELETE_FN, &nullkey, NULL),
	    "Comm_create_keyval, null functions");
	ok(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN,
	    &dupkey, NULL), "Comm_create_keyval, MPI_COMM_DUP_FN");
	if (key == nullkey || key == dupkey || nullkey == dupkey)
		fail("three keyvals are not distinct");

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	val = get(dup, key, &flag);
	if (flag != 0)
		fail("an attribute never set was found");
	ok(MPI_Comm_set_attr(dup, key, v(7)), "Comm_set_attr");
	ok(MPI_Comm_set_attr(dup, nullkey, v(8)), "Comm_set_attr, nullkey");
	ok(MPI_Comm_set_attr(dup, dupkey, v(9)), "Comm_set_attr, dupkey");
	val = get(dup, key, &flag);
	if (!flag || val != 7)
		fail("get after set: flag %d value %d", flag, val);
	val = get(MPI_COMM_WORLD, key, &flag);
	if (flag != 0)
		fail("an attribute of the dup was found on the world");

	/* Set over a value: the old one is deleted first. */
	ndelete = 0;
	ok(MPI_Comm_set_attr(dup, key, v(17)), "Comm_set_attr again");
	if (ndelete != 1 || last_deleted != 7 || last_comm != dup)
		fail("set over a value: %d deletes, last of %d", ndelete,
		    last_deleted);
	val = get(dup, key, &flag);
	if (!flag || val != 17)
		fail("get after a second set: flag %d value %d", flag, val);

	/* Dup: copy_fn's value, none for nullkey, the same for dupkey. */
	ncopy = 0;
	ok(MPI_Comm_dup(dup, &dup2), "Comm_dup with attributes");
	if (ncopy != 1)
		fail("Comm_dup called copy_fn %d times", ncopy);
	val = get(dup2, key, &flag);
	if (!flag || val != 1017)
		fail("copied attribute: flag %d value %d", flag, val);
	val = get(dup2, nullkey, &flag);
	if (flag)
		fail("MPI_COMM_NULL_COPY_FN attribute was copied");
	val = get(dup2, dupkey, &flag);
	if (!flag || val != 9)
		fail("MPI_COMM_DUP_FN attribute: flag %d value %d", flag,
		    val);

	/* Free: the delete function sees each value it owns. */
	ndelete = 0;
	ok(MPI_Comm_free(&dup2), "Comm_free with attributes");
	if (ndelete != 1 || last_deleted != 1017)
		fail("Comm_free: %d deletes, last of %d", ndelete,
		    last_deleted);

	/* Delete_attr calls it; then the attribute is gone. */
	ndelete = 0;
	ok(MPI_Comm_delete_attr(dup, key), "Comm_delete_attr");
	if (ndelete != 1 || last_deleted != 17 || last_comm != dup)
		fail("Comm_delete_attr: %d deletes, last of %d", ndelete,
		    last_deleted);
	val = get(dup, key, &flag);
	if (flag)
		fail("a deleted attribute was found");

	/* A failing copy function fails the dup. */
	MPI_Comm_set_attr(dup, key, v(3));
	MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
	copy_fails = 1;
	dup2 = MPI_COMM_NULL;
	rc = MPI_Comm_dup(dup, &dup2);
	copy_fails = 0;
	if (rc == MPI_SUCCESS)
		fail("Comm_dup succeeded though copy_fn failed");
	else if (dup2 != MPI_COMM_NULL)
		fail("a failed Comm_dup set newcomm");

	/*
	 * A keyval freed while an attribute uses it: the handle is
	 * cleared, the attribute's delete function still runs.
	 */
	ok(MPI_Comm_free_keyval(&key), "Comm_free_keyval in use");
	if (key != MPI_KEYVAL_INVALID)
		fail("Comm_free_keyval did not clear the keyval");
	ndelete = 0;
	ok(MPI_Comm_free(&dup), "Comm_free after Comm_free_keyval");
	if (ndelete != 1 || last_deleted != 3)
		fail("freed keyval: %d deletes, last of %d", ndelete,
		    last_deleted);
	MPI_Comm_free_keyval(&nullkey);
	MPI_Comm_free_keyval(&dupkey);
}

static void
predefined(void)
{
	MPI_Comm	dup;
	int		*p, flag, i;
	static const int keys[] = { MPI_TAG_UB, MPI_HOST, MPI_IO,
	    MPI_WTIME_IS_GLOBAL };

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	for (i = 0; i < 4; i++) {
		p = NULL;
		flag = 0;
		ok(MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i], &p, &flag),
		    "Comm_get_attr of a predefined key");
		if (!flag || p == NULL) {
			fail("predefined key %d: flag %d", keys[i], flag);
			continue;
		}
		if (keys[i] == MPI_TAG_UB && *p < 32767)
			fail("MPI_TAG_UB is %d", *p);
		if (keys[i] == MPI_WTIME_IS_GLOBAL && *p != 0 && *p != 1)
			fail("MPI_WTIME_IS_GLOBAL is %d", *p);
		if (keys[i] == MPI_HOST && *p != MPI_PROC_NULL &&
		    (*p < 0 || *p >= nprocs))
			fail("MPI_HOST is %d", *p);
		if (keys[i] == MPI_IO && *p != MPI_PROC_NULL &&
		    *p != MPI_ANY_SOURCE && (*p < 0 || *p >= nprocs))
			fail("MPI_IO is %d", *p);
	}
	/* Duplicates carry them too. */
	p = NULL;
	MPI_Comm_get_attr(dup, MPI_TAG_UB, &p, &flag);
	if (!flag || p == NULL || *p < 32767)
		fail("MPI_TAG_UB on a dup: flag %d", flag);
	/* The MPI-1 name of the same call. */
	p = NULL;
	ok(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag), "Attr_get");
	if (!flag || p == NULL || *p < 32767)
		fail("Attr_get(MPI_TAG_UB): flag %d", flag);
	MPI_Comm_free(&dup);
}

static void
mpi1_names(void)
{
	MPI_Comm	dup;
	int		key, flag, val;

	ok(MPI_Keyval_create(copy_fn, delete_fn, &key, &extra_state),
	    "Keyval_create");
	ok(MPI_Attr_put(MPI_COMM_WORLD, key, v(5)), "Attr_put");
	ncopy = 0;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	val = get(dup, key, &flag);
	if (ncopy != 1 || !flag || val != 1005)
		fail("Attr_put then dup: %d copies, value %d", ncopy, val);
	ndelete = 0;
	ok(MPI_Attr_delete(MPI_COMM_WORLD, key), "Attr_delete");
	if (ndelete != 1 || last_deleted != 5 || last_comm != MPI_COMM_WORLD)
		fail("Attr_delete: %d deletes, last of %d", ndelete,
		    last_deleted);
	MPI_Comm_free(&dup);
	ok(MPI_Keyval_free(&key), "Keyval_free");
}

static void
errors(void)
{
	void	*p;
	int	key, badkey, flag, rc, kverr;

	/* Open MPI says MPI_ERR_OTHER where MPICH and ft say KEYVAL. */
	kverr = is_ft() ? MPI_ERR_KEYVAL : ANY_ERROR;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
	    &key, NULL);
	badkey = key;
	MPI_Comm_free_keyval(&key);
	rc = MPI_Comm_set_attr(MPI_COMM_WORLD, badkey, v(1));
	expect(rc, kverr, "Comm_set_attr with a freed keyval");
	rc = MPI_Comm_get_attr(MPI_COMM_WORLD, badkey, &p, &flag);
	expect(rc, kverr, "Comm_get_attr with a freed keyval");
	rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, badkey);
	expect(rc, kverr, "Comm_delete_attr with a freed keyval");
	rc = MPI_Comm_free_keyval(&badkey);
	expect(rc, kverr, "Comm_free_keyval twice");
	rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, v(1));
	expect(rc, kverr, "Comm_set_attr of MPI_TAG_UB");
	key = MPI_TAG_UB;
	rc = MPI_Comm_free_keyval(&key);
	expect(rc, kverr, "Comm_free_keyval of MPI_TAG_UB");
	rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &p, &flag);
	expect(rc, kverr, "Comm_get_attr of MPI_KEYVAL_INVALID");
	rc = MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &p, &flag);
	expect(rc, MPI_ERR_COMM, "Comm_get_attr on MPI_COMM_NULL");
	rc = MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, v(1));
	expect(rc, MPI_ERR_COMM, "Comm_set_attr on MPI_COMM_NULL");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char *argv[])
{
	int	key1, key2, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	callbacks();
	predefined();
	mpi1_names();
	errors();
	/* MPI_Finalize deletes these, newest first. */
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_fn, &key1,
	    NULL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_fn, &key2,
	    NULL);
	MPI_Comm_set_attr(MPI_COMM_SELF, key1, v(1));
	MPI_Comm_set_attr(MPI_COMM_SELF, key2, v(2));
	rc = finish();
	if (nself != 2 || self_order[0] != 2 || self_order[1] != 1) {
		fprintf(stderr, "%s: rank %d: MPI_Finalize made %d deletes "
		    "on MPI_COMM_SELF, values %d then %d\n", NAME, myrank,
		    nself, self_order[0], self_order[1]);
		return 1;
	}
	return rc;
}
