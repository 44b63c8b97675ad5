/* SPDX-License-Identifier: ISC */
/*
 * Shared by the ULFM tests (ulfm_*.c, run with ftrun --ft ulfm):
 * failures are counted per process and summed over the survivors at
 * the end, over a communicator shrunk from MPI_COMM_WORLD; world rank
 * 0 never dies in these tests and prints the verdict.  Processes die
 * by raise(SIGKILL) at chosen points of their program, never after a
 * time.
 */
#ifndef FT_TEST_ULFM_H
#define FT_TEST_ULFM_H

#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MPIX_FT
#error "mpi-ext.h does not define MPIX_FT"
#endif

static int	errs, myrank, nprocs;

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

/* Expect error class want from rc (what a call returned). */
static void __attribute__((unused))
expect(int rc, int want, const char *what)
{
	int cls = rc;

	if (rc != MPI_SUCCESS)
		MPI_Error_class(rc, &cls);
	if (cls != want)
		fail("%s returned class %d, expected %d", what, cls, want);
}

static void __attribute__((unused))
die(void)
{
	fflush(NULL);
	raise(SIGKILL);
}

/* The failed processes of comm this process knows of. */
static int
nfailed(MPI_Comm comm)
{
	MPI_Group g;
	int n;

	if (MPIX_Comm_get_failed(comm, &g) != MPI_SUCCESS)
		return -1;
	MPI_Group_size(g, &n);
	MPI_Group_free(&g);
	return n;
}

/* Wait (making progress) until n failures of comm are known here. */
static void __attribute__((unused))
await_failures(MPI_Comm comm, int n)
{
	while (nfailed(comm) < n)
		;
}

static void __attribute__((unused))
init(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* Sum the survivors' failures; world rank 0 says the verdict. */
static int __attribute__((unused))
finish(void)
{
	MPI_Comm alive;
	int total = 0, rc;

	if ((rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &alive)) != MPI_SUCCESS) {
		fail("the last shrink returned %d", rc);
		total = errs;
	} else {
		if (MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, alive) !=
		    MPI_SUCCESS)
			total = errs + 1;
		MPI_Comm_free(&alive);
	}
	if (myrank == 0) {
		if (total == 0)
			printf(" No Errors\n");
		else
			printf(" Found %d errors\n", total);
		fflush(stdout);
	}
	MPI_Finalize();
	return 0;
}

#endif
