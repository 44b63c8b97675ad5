/* SPDX-License-Identifier: ISC */
/*
 * info_ops: MPI_Info objects.  Create, set (new keys and overwrites),
 * get (whole values, values cut to valuelen, missing keys),
 * get_valuelen, get_nkeys, get_nthkey (keys in the order first set,
 * kept across deletes and overwrites), delete, dup (an independent
 * copy), free (handle cleared); keys and values of the largest allowed
 * lengths; MPI_INFO_NULL accepted by the calls that take hints; and
 * the errors for missing keys, over-long keys and invalid objects.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MPI_ERR_INFO_NOKEY
#define MPI_ERR_INFO_NOKEY	MPI_ERR_ARG	/* until ft has the classes */
#endif
#ifndef MPI_ERR_INFO_KEY
#define MPI_ERR_INFO_KEY	MPI_ERR_ARG
#endif
#ifndef MPI_ERR_INFO_VALUE
#define MPI_ERR_INFO_VALUE	MPI_ERR_ARG
#endif
#ifndef MPI_ERR_INFO
#define MPI_ERR_INFO		MPI_ERR_ARG
#endif

#define NAME		"info_ops"
#define TAG_ERRS	32000
#define ANY_ERROR	(-1)

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

/* info must hold exactly keys[0..n-1] in this order, with values. */
static void
check(MPI_Info info, const char *const *keys, const char *const *vals,
    int n, const char *what)
{
	char	key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
	int	nkeys = -1, i, flag, len;

	ok(MPI_Info_get_nkeys(info, &nkeys), what);
	if (nkeys != n) {
		fail("%s: %d keys, expected %d", what, nkeys, n);
		return;
	}
	for (i = 0; i < n; i++) {
		key[0] = '\0';
		ok(MPI_Info_get_nthkey(info, i, key), what);
		if (strcmp(key, keys[i]) != 0)
			fail("%s: key %d is '%s', expected '%s'", what, i,
			    key, keys[i]);
		flag = 0;
		ok(MPI_Info_get(info, keys[i], MPI_MAX_INFO_VAL, val, &flag),
		    what);
		if (!flag || strcmp(val, vals[i]) != 0)
			fail("%s: '%s' is '%s' (flag %d), expected '%s'",
			    what, keys[i], flag ? val : "", flag, vals[i]);
		flag = 0;
		ok(MPI_Info_get_valuelen(info, keys[i], &len, &flag), what);
		if (!flag || len != (int)strlen(vals[i]))
			fail("%s: valuelen of '%s' is %d (flag %d)", what,
			    keys[i], len, flag);
	}
}

static void
basics(void)
{
	MPI_Info	info, dup;
	char		val[MPI_MAX_INFO_VAL + 1];
	int		flag, len;
	static const char *const k3[] = { "alpha", "beta", "gamma" };
	static const char *const v3[] = { "1", "two", "three 3" };
	static const char *const v3b[] = { "1", "2", "three 3" };
	static const char *const k2[] = { "alpha", "gamma" };
	static const char *const v2[] = { "1", "three 3" };
	static const char *const k2d[] = { "alpha", "gamma", "delta" };
	static const char *const v2d[] = { "1", "three 3", "4" };

	ok(MPI_Info_create(&info), "Info_create");
	check(info, k3, v3, 0, "empty");
	flag = 1;
	ok(MPI_Info_get(info, "alpha", 10, val, &flag), "Info_get, empty");
	if (flag)
		fail("Info_get found a key in an empty object");
	flag = 1;
	MPI_Info_get_valuelen(info, "alpha", &len, &flag);
	if (flag)
		fail("Info_get_valuelen found a key in an empty object");

	MPI_Info_set(info, "alpha", "1");
	MPI_Info_set(info, "beta", "two");
	MPI_Info_set(info, "gamma", "three 3");
	check(info, k3, v3, 3, "three keys");
	/* Overwriting keeps the order. */
	ok(MPI_Info_set(info, "beta", "2"), "Info_set over a value");
	check(info, k3, v3b, 3, "after an overwrite");

	/* Values are cut to valuelen characters. */
	memset(val, 'z', sizeof(val));
	ok(MPI_Info_get(info, "gamma", 4, val, &flag), "Info_get, cut");
	if (!flag || strcmp(val, "thre") != 0)
		fail("Info_get with valuelen 4 gave '%.8s'", val);

	/* Dup is a copy: changes to either stay apart. */
	ok(MPI_Info_dup(info, &dup), "Info_dup");
	check(dup, k3, v3b, 3, "dup");
	ok(MPI_Info_delete(info, "beta"), "Info_delete");
	check(info, k2, v2, 2, "after a delete");
	check(dup, k3, v3b, 3, "dup after a delete in the original");
	MPI_Info_set(info, "delta", "4");
	check(info, k2d, v2d, 3, "a key after a delete");
	ok(MPI_Info_free(&dup), "Info_free dup");
	if (dup != MPI_INFO_NULL)
		fail("Info_free did not clear the handle");
	check(info, k2d, v2d, 3, "original after the dup's free");
	ok(MPI_Info_free(&info), "Info_free");
}

static void
limits(void)
{
	MPI_Info	info;
	char		*key, *val, *got;
	int		flag, len, rc;

	key = malloc(MPI_MAX_INFO_KEY + 2);
	val = malloc(MPI_MAX_INFO_VAL + 2);
	got = malloc(MPI_MAX_INFO_VAL + 2);
	/* The longest: buffers of MPI_MAX_INFO_KEY and _VAL hold them. */
	memset(key, 'k', MPI_MAX_INFO_KEY - 1);
	key[MPI_MAX_INFO_KEY - 1] = '\0';
	memset(val, 'v', MPI_MAX_INFO_VAL - 1);
	val[MPI_MAX_INFO_VAL - 1] = '\0';
	MPI_Info_create(&info);
	ok(MPI_Info_set(info, key, val), "Info_set, longest key and value");
	ok(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, got, &flag),
	    "Info_get, longest");
	if (!flag || strcmp(got, val) != 0)
		fail("the longest value did not come back whole");
	MPI_Info_get_valuelen(info, key, &len, &flag);
	if (!flag || len != MPI_MAX_INFO_VAL - 1)
		fail("valuelen of the longest value is %d", len);
	MPI_Info_get_nthkey(info, 0, got);
	if (strcmp(got, key) != 0)
		fail("the longest key did not come back whole");

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	key[MPI_MAX_INFO_KEY - 1] = 'k';
	key[MPI_MAX_INFO_KEY] = '\0';
	rc = MPI_Info_set(info, key, "x");
	expect(rc, MPI_ERR_INFO_KEY, "Info_set with a key too long");
	key[MPI_MAX_INFO_KEY - 1] = '\0';
	rc = MPI_Info_set(info, "", "x");
	expect(rc, is_ft() ? MPI_ERR_INFO_KEY : ANY_ERROR,
	    "Info_set with an empty key");
	val[MPI_MAX_INFO_VAL - 1] = 'v';
	val[MPI_MAX_INFO_VAL] = '\0';
	rc = MPI_Info_set(info, "k", val);
	expect(rc, MPI_ERR_INFO_VALUE, "Info_set with a value too long");
	val[MPI_MAX_INFO_VAL - 1] = '\0';
	rc = MPI_Info_delete(info, "nokey");
	expect(rc, MPI_ERR_INFO_NOKEY, "Info_delete of a missing key");
	/* Open MPI says MPI_ERR_INFO_NOKEY, MPICH and ft MPI_ERR_ARG. */
	rc = MPI_Info_get_nthkey(info, 1, got);
	expect(rc, is_ft() ? MPI_ERR_ARG : ANY_ERROR,
	    "Info_get_nthkey past the end");
	rc = MPI_Info_get_nthkey(info, -1, got);
	expect(rc, MPI_ERR_ARG, "Info_get_nthkey(-1)");
	rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &len);
	expect(rc, is_ft() ? MPI_ERR_INFO : ANY_ERROR,
	    "Info_get_nkeys(MPI_INFO_NULL)");
	rc = MPI_Info_set(MPI_INFO_NULL, "a", "b");
	expect(rc, is_ft() ? MPI_ERR_INFO : ANY_ERROR,
	    "Info_set(MPI_INFO_NULL)");
	{
		const char	*k1[1], *v1[1];

		k1[0] = key;
		v1[0] = val;
		check(info, k1, v1, 1, "after errors");
	}
	MPI_Info_free(&info);
	rc = MPI_Info_free(&info);
	expect(rc, is_ft() ? MPI_ERR_INFO : ANY_ERROR,
	    "Info_free(MPI_INFO_NULL)");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	free(key);
	free(val);
	free(got);
}

/* Calls that take hints accept MPI_INFO_NULL and real objects alike. */
static void
hints(void)
{
	MPI_Comm	c;
	MPI_Info	info, used;
	int		size;

	MPI_Info_create(&info);
	MPI_Info_set(info, "no_locks", "true");
	ok(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c),
	    "Comm_dup_with_info");
	MPI_Comm_size(c, &size);
	if (size != nprocs)
		fail("dup_with_info has size %d", size);
	ok(MPI_Comm_set_info(c, info), "Comm_set_info");
	ok(MPI_Comm_get_info(c, &used), "Comm_get_info");
	ok(MPI_Info_free(&used), "Info_free of Comm_get_info's object");
	MPI_Comm_free(&c);
	ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info,
	    &c), "Comm_split_type with hints");
	MPI_Comm_free(&c);
	ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
	    MPI_INFO_NULL, &c), "Comm_split_type with MPI_INFO_NULL");
	MPI_Comm_free(&c);
	MPI_Info_free(&info);
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	basics();
	limits();
	hints();
	return finish();
}
