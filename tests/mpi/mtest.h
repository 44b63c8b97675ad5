/* SPDX-License-Identifier: ISC */
/*
 * What the self-checking MPI tests of issue 14 (bottom, mprobe, the
 * typex_* tests) share, instead of a copy in each: fail() counts a
 * failure of this rank and prints it (the first 20), finish() waits for
 * every rank, adds the counts up on rank 0, which prints "No Errors" or
 * the total, then finalizes.  A test defines NAME before including it.
 */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MTEST_TAG_ERRS	32000
/* A test need not use every helper. */
#define MTEST_FN	static __attribute__((unused))

static int	errs;		/* failures seen by this rank */
static int	myrank, nranks;

MTEST_FN void __attribute__((format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list	ap;

	if (++errs > 20)
		return;
	fprintf(stderr, "%s: rank %d: ", NAME, myrank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A call that must have returned error class want. */
MTEST_FN void
expect_rc(int rc, int want, const char *what)
{
	if (rc != want)
		fail("%s: error class %d, expected %d", what, rc, want);
}

/* MPI_Init, and this rank's place in MPI_COMM_WORLD. */
MTEST_FN void
start(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
}

MTEST_FN int
finish(void)
{
	int	i, e, total = errs;

	/* Not before every rank is done: a wildcard receive still
	 * running on another rank must not catch an error count. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == 0) {
		for (i = 1; i < nranks; i++) {
			MPI_Recv(&e, 1, MPI_INT, i, MTEST_TAG_ERRS,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			total += e;
		}
		if (total == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	} else
		MPI_Send(&errs, 1, MPI_INT, 0, MTEST_TAG_ERRS,
		    MPI_COMM_WORLD);
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
