/* SPDX-License-Identifier: ISC */
/*
 * info_env: MPI_INFO_ENV.  It is a valid info object from MPI_Init on,
 * holding the keys of the standard that apply: command (argv[0] as
 * MPI_Init got it), argv (the other arguments, space separated, only
 * when there are some), maxprocs (the size of MPI_COMM_WORLD), host
 * (the processor name), arch (uname's machine), wdir (the working
 * directory) and thread_level (MPI_THREAD_SINGLE after MPI_Init).  It
 * can be read and duplicated; ft refuses to change or free it.
 */

#include <sys/utsname.h>
#include <unistd.h>

#define NAME		"info_env"
#include "mtest.h"

/* The value of key, which must be there and equal want. */
static void
has(const char *key, const char *want)
{
	char	val[MPI_MAX_INFO_VAL + 1];
	int	flag = 0, len = -1;

	ok(MPI_Info_get_valuelen(MPI_INFO_ENV, key, &len, &flag),
	    "Info_get_valuelen");
	if (!flag) {
		fail("MPI_INFO_ENV has no key %s", key);
		return;
	}
	ok(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, val, &flag),
	    "Info_get");
	if (strcmp(val, want) != 0 || len != (int)strlen(want))
		fail("MPI_INFO_ENV %s is \"%s\" (length %d), expected \"%s\"",
		    key, val, len, want);
}

int
main(int argc, char *argv[])
{
	struct utsname	u;
	MPI_Info	dup, info;
	char		want[MPI_MAX_INFO_VAL], key[MPI_MAX_INFO_KEY];
	char		host[MPI_MAX_PROCESSOR_NAME];
	int		n, n2, i, len, flag;

	init(&argc, &argv);

	has("command", argv[0]);
	want[0] = '\0';
	for (i = 1; i < argc; i++) {
		strncat(want, " ", sizeof(want) - strlen(want) - 1);
		strncat(want, argv[i], sizeof(want) - strlen(want) - 1);
	}
	if (argc > 1)
		has("argv", want + 1);
	else {
		MPI_Info_get_valuelen(MPI_INFO_ENV, "argv", &len, &flag);
		if (flag)
			fail("MPI_INFO_ENV has argv without arguments");
	}
	snprintf(want, sizeof(want), "%d", nprocs);
	has("maxprocs", want);
	MPI_Get_processor_name(host, &len);
	has("host", host);
	if (uname(&u) == 0)
		has("arch", u.machine);
	if (getcwd(want, sizeof(want)) != NULL)
		has("wdir", want);
	has("thread_level", "MPI_THREAD_SINGLE");

	/* Readable by key number, and duplicated whole. */
	ok(MPI_Info_get_nkeys(MPI_INFO_ENV, &n), "Info_get_nkeys");
	ok(MPI_Info_dup(MPI_INFO_ENV, &dup), "Info_dup of MPI_INFO_ENV");
	MPI_Info_get_nkeys(dup, &n2);
	if (n2 != n || n < 6)
		fail("MPI_INFO_ENV has %d keys, its duplicate %d", n, n2);
	for (i = 0; i < n; i++) {
		ok(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key), "get_nthkey");
		MPI_Info_get_valuelen(dup, key, &len, &flag);
		if (!flag)
			fail("the duplicate lacks %s", key);
	}
	/* The duplicate is the caller's. */
	ok(MPI_Info_set(dup, "command", "other"), "Info_set on the copy");
	ok(MPI_Info_free(&dup), "Info_free of the duplicate");
	has("command", argv[0]);

	if (is_ft()) {
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		expect(MPI_Info_set(MPI_INFO_ENV, "wdir", "/"), MPI_ERR_INFO,
		    "Info_set on MPI_INFO_ENV");
		expect(MPI_Info_delete(MPI_INFO_ENV, "wdir"), MPI_ERR_INFO,
		    "Info_delete on MPI_INFO_ENV");
		info = MPI_INFO_ENV;
		expect(MPI_Info_free(&info), MPI_ERR_INFO,
		    "Info_free of MPI_INFO_ENV");
		if (info != MPI_INFO_ENV)
			fail("a failed Info_free changed the handle");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
	return finish();
}
