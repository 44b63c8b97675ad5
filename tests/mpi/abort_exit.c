/* SPDX-License-Identifier: ISC */
/*
 * abort_exit: MPI_Abort ends the whole job with the given error code.
 * Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while every other rank is
 * blocked in an MPI_Recv that no one will ever satisfy; the launcher
 * must exit with status 7.  This program is not self-checking: if
 * MPI_Abort returns, or the blocked ranks survive it, it says so on
 * stderr and exits 1, and the harness must check the exit status (and
 * apply a timeout, since a broken abort can leave ranks hanging).
 * Needs at least two ranks.
 */

#include <mpi.h>
#include <stdio.h>

#define NAME	"abort_exit"

int
main(int argc, char *argv[])
{
	int	rank, size, v = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "%s: needs at least 2 ranks\n", NAME);
		MPI_Finalize();
		return 1;
	}

	if (rank == 1) {
		/*
		 * Wait until rank 0 is at least about to block, so that the
		 * abort has a blocked peer to tear down.
		 */
		MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		MPI_Abort(MPI_COMM_WORLD, 7);
		fprintf(stderr, "%s: rank 1: MPI_Abort returned\n", NAME);
		return 1;
	}
	if (rank == 0)
		MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);

	/* Nobody sends tag 2: only the abort can end this. */
	MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	fprintf(stderr, "%s: rank %d: a receive nobody sent completed\n",
	    NAME, rank);
	MPI_Finalize();
	return 1;
}
