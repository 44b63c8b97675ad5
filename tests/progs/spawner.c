/* SPDX-License-Identifier: ISC */
/*
 * spawner N [CODE]: rank 0 of a job of one spawns N copies of itself;
 * each copy writes one line to stdout and one to stderr, disconnects
 * from its parent and finalizes; copy 0 then exits with CODE (0 by
 * default), or with CODE "stop" stops itself (SIGSTOP) before
 * MPI_Finalize instead.  The parent prints a line once the spawn is
 * done.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	char		*args[] = { argv[1], argc > 2 ? argv[2] : "0", NULL };
	MPI_Comm	 par, kids;
	int		 rank, size, n = argc > 1 ? atoi(argv[1]) : 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_get_parent(&par);
	if (par == MPI_COMM_NULL) {
		MPI_Comm_spawn(argv[0], args, n, MPI_INFO_NULL, 0,
		    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE);
		printf("parent %d spawned %d\n", rank, n);
		MPI_Comm_disconnect(&kids);
		MPI_Finalize();
		return 0;
	}
	printf("child %d of %d\n", rank, size);
	fprintf(stderr, "child %d says hello on stderr\n", rank);
	fflush(NULL);
	MPI_Comm_disconnect(&par);
	if (rank == 0 && strcmp(argv[2], "stop") == 0)
		raise(SIGSTOP);
	MPI_Finalize();
	return rank == 0 ? atoi(argv[2]) : 0;
}
