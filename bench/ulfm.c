/* SPDX-License-Identifier: ISC */
/*
 * ULFM's costs, run by bench/ulfm.sh under ftrun --ft ulfm.  Rank 0
 * prints one line per figure, in microseconds:
 *
 *	agree <usec>		one MPIX_Comm_agree, no failure (median of reps)
 *	shrink <usec>		one MPIX_Comm_shrink, no failure
 *	revoke <usec>		from MPIX_Comm_revoke at rank 0 until every
 *				rank saw MPIX_ERR_REVOKED and told rank 0
 *	detect <usec>		from a process's last act before raise(SIGKILL)
 *				(a synchronous send of the time to rank 0, so
 *				one message delay is counted in) until a
 *				receive from it at rank 0 returns
 *				MPIX_ERR_PROC_FAILED (same host: one clock)
 *	agree_after <usec>	the first agree after that death
 *	shrink_after <usec>	the first shrink after it
 *
 * Each "no failure" figure is the median over reps calls, each started
 * after a barrier; the others are single events, which bench/ulfm.sh
 * repeats over whole runs.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int
main(int argc, char **argv)
{
	MPI_Comm c, s;
	double *t, t0, dead_at;
	int rank, size, reps, i, k, flag, x;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	reps = argc > 1 ? atoi(argv[1]) : 20;
	if (reps < 1)
		reps = 1;
	t = calloc((size_t)reps, sizeof(*t));
	for (i = 0; i < reps; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = now_us();
		flag = 1;
		MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
		t[i] = now_us() - t0;
	}
	if (rank == 0)
		printf("agree %.1f\n", median(t, reps));
	for (i = 0; i < reps; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = now_us();
		MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
		t[i] = now_us() - t0;
		MPI_Comm_free(&s);
	}
	if (rank == 0)
		printf("shrink %.1f\n", median(t, reps));
	for (i = 0; i < reps; i++) {
		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			t0 = now_us();
			MPIX_Comm_revoke(c);
			for (k = 1; k < size; k++)
				MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 7,
				    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			t[i] = now_us() - t0;
		} else {
			MPI_Recv(&x, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE);
			MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
		}
		MPI_Comm_free(&c);
	}
	if (rank == 0 && size > 1)
		printf("revoke %.1f\n", median(t, reps));
	if (size < 2) {
		MPI_Finalize();
		return 0;
	}
	/* The last rank dies; rank 0 learns of it in a receive. */
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == size - 1) {
		/* Synchronous: an eager message from a process that dies
		 * may be lost (ULFM allows it), and its time with it. */
		dead_at = now_us();
		MPI_Ssend(&dead_at, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
		raise(SIGKILL);
	}
	if (rank == 0) {
		MPI_Recv(&dead_at, 1, MPI_DOUBLE, size - 1, 8, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (MPI_Recv(&x, 1, MPI_INT, size - 1, 9, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE) != MPI_SUCCESS)
			printf("detect %.1f\n", now_us() - dead_at);
	}
	t0 = now_us();
	flag = 1;
	MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
	if (rank == 0)
		printf("agree_after %.1f\n", now_us() - t0);
	t0 = now_us();
	MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
	if (rank == 0)
		printf("shrink_after %.1f\n", now_us() - t0);
	MPI_Comm_free(&s);
	free(t);
	MPI_Finalize();
	return 0;
}
