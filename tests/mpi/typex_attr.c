/* SPDX-License-Identifier: ISC */
/*
 * typex_attr: attributes and names of datatypes.  Keyvals with copy and
 * delete functions that count their calls: MPI_Type_set_attr over a
 * value deletes the old one, MPI_Type_dup copies through the copy
 * function (MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN, one of our own that
 * refuses), MPI_Type_free of the last handle deletes, a freed keyval
 * lives on for the attributes still set with it, a failing delete
 * function makes the call fail; attributes on predefined types; bad
 * keyvals (one of a communicator among them).  Names: the predefined
 * ones, Fortran types included, set and got, not copied by
 * MPI_Type_dup.  Every rank runs it alone, then they compare counts.
 */
#define NAME	"typex_attr"
#include "mtest.h"

static int	ncopy, ndelete, refuse_delete;

static int
copy_fn(MPI_Datatype t, int keyval, void *extra, void *in, void *out,
    int *flag)
{
	(void)t;
	(void)keyval;
	ncopy++;
	if (extra != NULL)
		return MPI_ERR_OTHER;	/* refuses to copy */
	*(void **)out = (char *)in + 1;
	*flag = 1;
	return MPI_SUCCESS;
}

static int
delete_fn(MPI_Datatype t, int keyval, void *val, void *extra)
{
	(void)t;
	(void)keyval;
	(void)val;
	(void)extra;
	ndelete++;
	return refuse_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void
attrs(void)
{
	MPI_Datatype	 t, u, d, d2;
	char		 v[4];
	void		*got;
	int		 k1, k2, k3, flag, rc, ck;

	MPI_Type_create_keyval(copy_fn, delete_fn, &k1, NULL);
	MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k2,
	    NULL);
	MPI_Type_create_keyval(copy_fn, delete_fn, &k3, v);	/* refuses */
	MPI_Type_contiguous(2, MPI_INT, &t);

	flag = 1;
	MPI_Type_get_attr(t, k1, &got, &flag);
	if (flag)
		fail("an attribute never set is found");
	MPI_Type_set_attr(t, k1, &v[0]);
	MPI_Type_set_attr(t, k1, &v[1]);
	if (ndelete != 1)
		fail("setting over a value ran %d delete functions, not 1",
		    ndelete);
	MPI_Type_get_attr(t, k1, &got, &flag);
	if (!flag || got != &v[1])
		fail("MPI_Type_get_attr: flag %d, not the value set", flag);
	MPI_Type_set_attr(t, k2, &v[2]);

	/* Dup: k1 copies (value + 1), k2 is the same value. */
	ncopy = 0;
	MPI_Type_dup(t, &d);
	MPI_Type_get_attr(d, k1, &got, &flag);
	if (ncopy != 1 || !flag || got != &v[2])
		fail("MPI_Type_dup: copy function ran %d times, value %p",
		    ncopy, got);
	MPI_Type_get_attr(d, k2, &got, &flag);
	if (!flag || got != &v[2])
		fail("MPI_TYPE_DUP_FN: the duplicate has another value");

	/*
	 * A copy function that fails makes MPI_Type_dup fail, and what
	 * was copied before (the newest attribute first) is deleted.
	 */
	MPI_Type_contiguous(1, MPI_INT, &u);
	MPI_Type_set_attr(u, k3, &v[3]);
	MPI_Type_set_attr(u, k1, &v[0]);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	d2 = MPI_DATATYPE_NULL;
	ndelete = 0;
	rc = MPI_Type_dup(u, &d2);
	if (rc != MPI_ERR_OTHER || d2 != MPI_DATATYPE_NULL)
		fail("MPI_Type_dup with a refusing copy function: %d", rc);
	if (ndelete != 1)
		fail("the attribute copied before the refusal was not "
		    "deleted (%d delete calls)", ndelete);
	MPI_Type_delete_attr(u, k3);
	MPI_Type_free(&u);

	/* Delete, free: the last handle runs the delete functions. */
	ndelete = 0;
	MPI_Type_delete_attr(d, k1);
	MPI_Type_delete_attr(d, k1);	/* not set: no error, no call */
	if (ndelete != 1)
		fail("MPI_Type_delete_attr ran %d delete functions", ndelete);
	MPI_Type_free_keyval(&k1);
	if (k1 != MPI_KEYVAL_INVALID)
		fail("MPI_Type_free_keyval left the keyval");
	ndelete = 0;
	MPI_Type_free(&t);	/* k1 is still set on t */
	if (ndelete != 1)
		fail("MPI_Type_free ran %d delete functions, not 1", ndelete);

	/* A delete function that fails makes the call fail. */
	MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_fn, &k1, NULL);
	MPI_Type_set_attr(d, k1, &v[0]);
	refuse_delete = 1;
	rc = MPI_Type_delete_attr(d, k1);
	MPI_Type_get_attr(d, k1, &got, &flag);
	if (rc != MPI_ERR_OTHER || !flag)
		fail("a failing delete function: %d, attribute %s", rc,
		    flag ? "kept" : "gone");
	rc = MPI_Type_free(&d);
	if (rc != MPI_ERR_OTHER || d == MPI_DATATYPE_NULL)
		fail("MPI_Type_free with a failing delete function: %d", rc);
	refuse_delete = 0;
	MPI_Type_free(&d);

	/* Predefined types take attributes too. */
	MPI_Type_set_attr(MPI_DOUBLE, k2, &v[0]);
	MPI_Type_get_attr(MPI_DOUBLE, k2, &got, &flag);
	if (!flag || got != &v[0])
		fail("an attribute of MPI_DOUBLE");
	MPI_Type_delete_attr(MPI_DOUBLE, k2);

	/* Bad keyvals. */
	expect_rc(MPI_Type_set_attr(MPI_INT, k3 + 1000, &v[0]), MPI_ERR_KEYVAL,
	    "an unknown keyval");
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
	    MPI_COMM_NULL_DELETE_FN, &ck, NULL);
	expect_rc(MPI_Type_get_attr(MPI_INT, ck, &got, &flag), MPI_ERR_KEYVAL,
	    "a communicator's keyval on a type");
	expect_rc(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, &v[0]),
	    MPI_ERR_KEYVAL, "a type's keyval on a communicator");
	MPI_Comm_free_keyval(&ck);
	MPI_Type_free_keyval(&k2);
	expect_rc(MPI_Type_set_attr(MPI_INT, k2, &v[0]), MPI_ERR_KEYVAL,
	    "MPI_KEYVAL_INVALID");
	expect_rc(MPI_Type_get_attr(MPI_DATATYPE_NULL, k3, &got, &flag),
	    MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
	MPI_Type_free_keyval(&k1);
	MPI_Type_free_keyval(&k3);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void
names(void)
{
	static const struct {
		MPI_Datatype	 t;
		const char	*name;
	} predef[] = {
		{ MPI_INT, "MPI_INT" }, { MPI_DOUBLE, "MPI_DOUBLE" },
		{ MPI_INTEGER, "MPI_INTEGER" }, { MPI_REAL, "MPI_REAL" },
		{ MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION" },
		{ MPI_COMPLEX, "MPI_COMPLEX" }, { MPI_LOGICAL, "MPI_LOGICAL" },
		{ MPI_CHARACTER, "MPI_CHARACTER" },
		{ MPI_2INTEGER, "MPI_2INTEGER" },
		{ MPI_INTEGER8, "MPI_INTEGER8" }, { MPI_REAL16, "MPI_REAL16" },
		{ MPI_DOUBLE_INT, "MPI_DOUBLE_INT" },
	};
	MPI_Datatype	t, d;
	char		name[MPI_MAX_OBJECT_NAME];
	size_t		i;
	int		len;

	for (i = 0; i < sizeof(predef) / sizeof(predef[0]); i++) {
		MPI_Type_get_name(predef[i].t, name, &len);
		if (strcmp(name, predef[i].name) != 0 ||
		    len != (int)strlen(predef[i].name))
			fail("the name of %s is '%s'", predef[i].name, name);
	}
	MPI_Type_contiguous(3, MPI_REAL, &t);
	MPI_Type_get_name(t, name, &len);
	if (len != 0)
		fail("a new type is named '%s'", name);
	MPI_Type_set_name(t, "three reals");
	MPI_Type_dup(t, &d);
	MPI_Type_get_name(d, name, &len);
	if (len != 0)
		fail("MPI_Type_dup copied the name '%s'", name);
	MPI_Type_get_name(t, name, &len);
	if (strcmp(name, "three reals") != 0)
		fail("the name set is '%s'", name);
	MPI_Type_free(&t);
	MPI_Type_free(&d);
}

int
main(int argc, char *argv[])
{
	int	counts[2], all[2];

	init(&argc, &argv);
	attrs();
	names();
	/* Every rank saw the same callbacks. */
	counts[0] = ncopy;
	counts[1] = ndelete;
	MPI_Allreduce(counts, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (all[0] != nprocs * ncopy || all[1] != nprocs * ndelete)
		fail("the ranks counted different callbacks");
	return finish();
}
