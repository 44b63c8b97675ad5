/* SPDX-License-Identifier: ISC */
/*
 * coll: time collectives, for ft and any other MPI (bench/coll.sh
 * builds it with ftcc and with Open MPI's mpicc).  MPI_Barrier,
 * MPI_Bcast and MPI_Allreduce (MPI_DOUBLE, MPI_SUM) of 8 B, 64 KiB and
 * 1 MiB, and MPI_Alltoall of 1 KiB per pair.  Each case runs a few
 * warm-up iterations, then a timed block; the time of one call is the
 * slowest rank's mean.  Rank 0 prints one line per case:
 *
 *	<op> <bytes> <usec>
 *
 * usage: coll [-o op] [-s scale]
 *	-o op		run only this operation (barrier, bcast, ...)
 *	-s scale	multiply the iteration counts by scale
 */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	myrank, nprocs;
static double	scale = 1.0;
static const char *only;

static int
wanted(const char *op)
{
	return only == NULL || strcmp(only, op) == 0;
}

static int
iterations(size_t bytes)
{
	int n;

	if (bytes <= 64)
		n = 2000;
	else if (bytes <= (64 << 10))
		n = 200;
	else
		n = 30;
	n = (int)(n * scale);
	return n < 2 ? 2 : n;
}

static void
report(const char *op, size_t bytes, double t, int iters)
{
	double mean = t / iters * 1e6, worst;

	MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (myrank == 0) {
		printf("%s %zu %.2f\n", op, bytes, worst);
		fflush(stdout);
	}
}

static void
bench_barrier(void)
{
	int i, iters = iterations(0);
	double t;

	for (i = 0; i < 10; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	report("barrier", 0, MPI_Wtime() - t, iters);
}

static void
bench_bcast(size_t bytes)
{
	int i, iters = iterations(bytes);
	char *buf;
	double t;

	if ((buf = calloc(1, bytes)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < 5; i++)
		MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
	report("bcast", bytes, MPI_Wtime() - t, iters);
	free(buf);
}

static void
bench_allreduce(size_t bytes)
{
	int i, n = (int)(bytes / sizeof(double)), iters = iterations(bytes);
	double *in, *out, t;

	if ((in = calloc((size_t)n, sizeof(double))) == NULL ||
	    (out = calloc((size_t)n, sizeof(double))) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < n; i++)
		in[i] = i + myrank;
	for (i = 0; i < 5; i++)
		MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	report("allreduce", bytes, MPI_Wtime() - t, iters);
	free(in);
	free(out);
}

static void
bench_alltoall(size_t bytes)
{
	int i, iters = iterations(bytes * (size_t)nprocs);
	char *in, *out;
	double t;

	if ((in = calloc((size_t)nprocs, bytes)) == NULL ||
	    (out = calloc((size_t)nprocs, bytes)) == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < 5; i++)
		MPI_Alltoall(in, (int)bytes, MPI_BYTE, out, (int)bytes,
		    MPI_BYTE, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Alltoall(in, (int)bytes, MPI_BYTE, out, (int)bytes,
		    MPI_BYTE, MPI_COMM_WORLD);
	report("alltoall", bytes, MPI_Wtime() - t, iters);
	free(in);
	free(out);
}

int
main(int argc, char *argv[])
{
	static const size_t sizes[] = { 8, 64 << 10, 1 << 20 };
	size_t i;
	int ch;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	while ((ch = getopt(argc, argv, "o:s:")) != -1) {
		switch (ch) {
		case 'o':
			only = optarg;
			break;
		case 's':
			scale = strtod(optarg, NULL);
			if (scale <= 0)
				scale = 1;
			break;
		default:
			if (myrank == 0)
				fprintf(stderr,
				    "usage: coll [-o op] [-s scale]\n");
			MPI_Finalize();
			return 100;
		}
	}
	if (wanted("barrier"))
		bench_barrier();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (wanted("bcast"))
			bench_bcast(sizes[i]);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (wanted("allreduce"))
			bench_allreduce(sizes[i]);
	if (wanted("alltoall"))
		bench_alltoall(1024);
	MPI_Finalize();
	return 0;
}
