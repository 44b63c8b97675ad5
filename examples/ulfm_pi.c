/* SPDX-License-Identifier: ISC */
/*
 * ulfm_pi: pi as examples/pi.c computes it, written in the ULFM style,
 * for `ftrun --ft ulfm`: when a rank dies, the survivors agree that the
 * step failed, shrink the communicator, and share the dead rank's work.
 * The interval is cut into CHUNKS pieces summed in their own order, so
 * the answer does not depend on how many ranks computed it.
 * Usage: ulfm_pi [INTERVALS [RANK]]; RANK, if given, dies by SIGKILL
 * before its first reduction, as a crash would strike.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <mpi-ext.h>

#define CHUNKS	64

int
main(int argc, char *argv[])
{
	double part[CHUNKS], all[CHUNKS], h, pi;
	long n = 10000000, i, lo, hi;
	int rank, size, c, ok, victim = -1, failures = 0, world;
	MPI_Comm comm = MPI_COMM_WORLD, smaller;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &world);
	if (argc > 1)
		n = strtol(argv[1], NULL, 10);
	if (argc > 2)
		victim = (int)strtol(argv[2], NULL, 10);
	/* Errors come back to us: a death is not the end of the job. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	h = 1.0 / (double)n;
	for (;;) {
		MPI_Comm_rank(comm, &rank);
		MPI_Comm_size(comm, &size);
		for (c = 0; c < CHUNKS; c++) {
			part[c] = 0;
			if (c % size != rank)
				continue;
			lo = n / CHUNKS * c;
			hi = c == CHUNKS - 1 ? n : n / CHUNKS * (c + 1);
			for (i = lo; i < hi; i++) {
				double x = h * ((double)i + 0.5);

				part[c] += 4.0 / (1.0 + x * x);
			}
		}
		if (world == victim && failures == 0)
			raise(SIGKILL);
		/* Each chunk has one contributor: the sum is exact. */
		ok = MPI_Reduce(part, all, CHUNKS, MPI_DOUBLE, MPI_SUM, 0,
		    comm) == MPI_SUCCESS;
		/* A collective may fail at some ranks only: agree. */
		(void)MPIX_Comm_agree(comm, &ok);
		if (ok)
			break;
		failures++;
		MPIX_Comm_shrink(comm, &smaller);
		if (comm != MPI_COMM_WORLD)
			MPI_Comm_free(&comm);
		comm = smaller;
	}
	if (rank == 0) {
		for (pi = 0, c = 0; c < CHUNKS; c++)
			pi += h * all[c];
		printf("pi is approximately %.16f, error %.2e\n", pi,
		    fabs(pi - M_PI));
		fprintf(stderr, "ulfm_pi: %d rank%s finished the work after %d "
		    "failed step%s\n", size, size == 1 ? "" : "s", failures,
		    failures == 1 ? "" : "s");
	}
	if (comm != MPI_COMM_WORLD)
		MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
