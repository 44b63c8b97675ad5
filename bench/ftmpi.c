/* SPDX-License-Identifier: ISC */
/*
 * FT-MPI's costs, run by bench/ftmpi.sh.  Rank 0 prints one line per
 * figure, in microseconds:
 *
 *	dup <usec>	one MPI_Comm_dup of MPI_COMM_WORLD, no failure (median
 *			of reps, each after a barrier); any MPI, so that Open
 *			MPI's is measured by the same source
 *	recover <usec>	with "kill" as argument (ftrun --ft ftmpi): from the
 *			last act of the last rank before raise(SIGKILL) (a
 *			synchronous send of the time to rank 0) until rank
 *			0's MPI_Comm_dup of MPI_COMM_WORLD returns the
 *			recovered world: under SHRINK the survivors', under
 *			REBUILD with the new process in (it is started, runs
 *			MPI_Init and joins in that time)
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef FT_MPI_H
#include <ft.h>
#endif

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	MPI_Comm c;
	double t[200], t0 = 0, t1;
	int rank, size, i, reps = 100, kill_ = argc > 1 &&
	    strcmp(argv[1], "kill") == 0;

	MPI_Init(&argc, &argv);
#ifdef FT_MPI_H
	if (ft_restarted()) {
		/* A new process of REBUILD: it joins, and that is all. */
		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		MPI_Comm_free(&c);
		MPI_Finalize();
		return 0;
	}
#endif
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < reps; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t[i] = now_us();
		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		t[i] = now_us() - t[i];
		MPI_Comm_free(&c);
	}
	qsort(t, (size_t)reps, sizeof(t[0]), cmp);
	if (rank == 0)
		printf("dup %.1f\n", t[reps / 2]);
	if (kill_ && size > 1) {
		if (rank == size - 1) {
			t0 = now_us();
			MPI_Ssend(&t0, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
			raise(SIGKILL);
		}
		/* No time from it (it died first): no figure this run. */
		if (rank == 0 && MPI_Recv(&t0, 1, MPI_DOUBLE, size - 1, 1,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			t0 = 0;
		/* Fails once the death is known (or waits for it). */
		while (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS)
			;
		if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS)
			return 1;
		t1 = now_us();
		if (rank == 0 && t0 > 0)
			printf("recover %.1f\n", t1 - t0);
		MPI_Comm_free(&c);
	}
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
