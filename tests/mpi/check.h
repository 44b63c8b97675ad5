/* SPDX-License-Identifier: ISC */
/*
 * The frame of a self-checking MPI test, for the tests that include it
 * after defining NAME.  fail() counts a failure of this rank and
 * prints it (the first 40); finish() adds up every rank's count on
 * rank 0, which prints "No Errors" or how many it found, finalizes and
 * gives the exit status; expect() wants an error of a class (ANY_ERROR:
 * any), ok() wants MPI_SUCCESS; is_ft() says whether the library is
 * ft, for checks of ft's own guarantees.  init() starts MPI and sets
 * myrank and nprocs.
 */
#ifndef FT_TESTS_MPI_CHECK_H
#define FT_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_ERRS	32000
#define ANY_ERROR	(-1)

static int	errs;	/* failures seen by this rank */
static int	myrank, nprocs;

static inline void
init(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
}

static inline void __attribute__((format(printf, 1, 2)))
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

static inline int
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
static inline void
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

static inline void
ok(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		fail("%s: returned %d", what, rc);
}

static inline int
is_ft(void)
{
	char	v[MPI_MAX_LIBRARY_VERSION_STRING];
	int	len;

	MPI_Get_library_version(v, &len);
	return strncmp(v, "ft ", 3) == 0;
}

#endif
