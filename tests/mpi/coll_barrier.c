/* SPDX-License-Identifier: ISC */
/*
 * coll_barrier: no rank leaves MPI_Barrier before the last one has
 * entered it.  In each trial one rank (a different one each time)
 * enters late, after busy-waiting a few milliseconds; every rank reads
 * the monotonic clock when it leaves, and since ranks on one host share
 * it (MPI_Wtime need not be global), every exit must come after the
 * late rank's entry.
 * Also many barriers in a row, barriers between point-to-point
 * messages, and MPI_Barrier on MPI_COMM_SELF.
 */

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NAME		"coll_barrier"
#define TAG_ERRS	32000

static int	errs;
static int	myrank, nprocs;

static void
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

static void *xmalloc(size_t) __attribute__((unused));

static void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = calloc(1, n > 0 ? n : 1)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", NAME);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	double	 entered, left, t;
	int	 late, i, token, trials;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

	trials = nprocs < 4 ? 4 : nprocs;
	for (i = 0; i < trials; i++) {
		late = i % nprocs;
		MPI_Barrier(MPI_COMM_WORLD);
		entered = 0;
		if (myrank == late) {
			t = now();
			while (now() - t < 0.005)
				;
			entered = now();
		}
		MPI_Barrier(MPI_COMM_WORLD);
		left = now();
		/* Tell everyone when the late rank entered. */
		MPI_Bcast(&entered, 1, MPI_DOUBLE, late, MPI_COMM_WORLD);
		if (left < entered)
			fail("trial %d: left the barrier %.6f s before rank "
			    "%d entered it", i, entered - left, late);
	}

	for (i = 0; i < 300; i++)
		if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
			fail("barrier %d failed", i);

	/* A token around the ring with a barrier between hops. */
	token = 0;
	for (i = 0; i < nprocs; i++) {
		if (nprocs > 1 && myrank == i) {
			if (i > 0)
				MPI_Recv(&token, 1, MPI_INT, i - 1, 1,
				    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			if (i < nprocs - 1)
				MPI_Send(&token, 1, MPI_INT, i + 1, 1,
				    MPI_COMM_WORLD);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (nprocs > 1 && myrank == nprocs - 1 && token != nprocs)
		fail("the token arrived as %d, expected %d", token, nprocs);

	if (MPI_Barrier(MPI_COMM_SELF) != MPI_SUCCESS)
		fail("barrier on MPI_COMM_SELF failed");
	return finish();
}
