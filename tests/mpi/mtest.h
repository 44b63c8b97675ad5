/* SPDX-License-Identifier: ISC */
/*
 * The frame of a self-checking MPI test, shared by the tests that
 * include it after defining NAME (inter.h adds what the inter_*.c
 * tests need on top).  init() starts MPI and sets myrank and nprocs;
 * fail() counts a failure of this rank and prints it (the first 40);
 * ok() wants MPI_SUCCESS; expect() wants an error of a class
 * (ANY_ERROR: any); expect_rc() wants a return code of exactly want;
 * is_ft() says whether the library is ft, for checks of ft's own
 * guarantees; finish() waits for every rank, adds the counts up on
 * rank 0, which prints "No Errors" or the total, finalizes and gives
 * the exit status.  xzalloc() and addr() are small conveniences.
 */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_ERRS	32000
#define ANY_ERROR	(-1)
/* A test need not use every helper. */
#define MTEST_FN	static __attribute__((unused))

static int	errs;		/* failures seen by this rank */
static int	myrank, nprocs;

/* MPI_Init, and this rank's place in MPI_COMM_WORLD. */
MTEST_FN void
init(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
}

MTEST_FN void __attribute__((format(printf, 1, 2)))
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

/* rc must be MPI_SUCCESS. */
MTEST_FN void
ok(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		fail("%s: returned %d", what, rc);
}

/* rc must be an error of class want (any class: ANY_ERROR). */
MTEST_FN void
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

/* A call that must have returned exactly want. */
MTEST_FN void
expect_rc(int rc, int want, const char *what)
{
	if (rc != want)
		fail("%s: error class %d, expected %d", what, rc, want);
}

/* Is this ft (some checks test ft's own guarantees)? */
MTEST_FN int
is_ft(void)
{
	char	v[MPI_MAX_LIBRARY_VERSION_STRING];
	int	len;

	MPI_Get_library_version(v, &len);
	return strncmp(v, "ft ", 3) == 0;
}

MTEST_FN int
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

/* n bytes, zeroed; the job ends if there are none to be had. */
MTEST_FN void *
xzalloc(size_t n)
{
	void	*p;

	if ((p = calloc(1, n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

/* The address of p, for a displacement from MPI_BOTTOM. */
MTEST_FN MPI_Aint
addr(const void *p)
{
	MPI_Aint	a;

	MPI_Get_address(p, &a);
	return a;
}

#endif
