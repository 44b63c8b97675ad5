/*
 * A job that never ends, for ftrun --timeout:
 *   stuck spin   rank 1 computes forever outside MPI; the others wait
 *                for it inside MPI_Recv.
 *   stuck half   ranks 0 and 1 exchange messages forever; the others
 *                wait forever inside MPI_Recv for a message never sent.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
	volatile double x = 0;
	int rank, size, v = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2 || size < 3) {
		fprintf(stderr, "usage: stuck spin|half (3 ranks or more)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(argv[1], "spin") == 0) {
		if (rank == 1)
			for (;;)
				x += 1;
		MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	} else if (rank < 2) {
		for (;;) {
			if (rank == 0) {
				MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE);
				v++;
				MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
			}
		}
	} else
		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
