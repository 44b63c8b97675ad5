/* SPDX-License-Identifier: ISC */
/*
 * rebuildgate: usage: rebuildgate GATE.  Under --ft ftmpi --comm-mode
 * rebuild --msg-mode nop: every first process prints "rank R ready" once
 * MPI_Init returned (every process has joined the job); then rank 0
 * waits, outside MPI, until the file GATE
 * exists, while the others wait for it in a barrier; a test kills a
 * process (or its host) there.  The barrier then fails everywhere, the
 * survivors recover MPI_COMM_WORLD with MPI_Comm_dup, in which the new
 * process started in the dead one's place joins, and rank 0 prints the
 * size of MPI_COMM_WORLD and an allreduce over it: what a run without
 * failures prints.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <ft.h>
#include <mpi.h>

/* FT-MPI's recovery: a new process joins in it. */
static void
recover(void)
{
	MPI_Comm c;

	if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS)
		MPI_Abort(MPI_COMM_WORLD, 3);
	MPI_Comm_free(&c);
}

int
main(int argc, char *argv[])
{
	int rank, size, one, sum, tries = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (ft_restarted())
		recover();
	else {
		printf("rank %d ready\n", rank);
		fflush(stdout);
		while (rank == 0 && access(argv[1], F_OK) != 0)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		/* A death fails it at least where it is not yet done. */
		if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
			recover();
	}
	one = rank + 1;
	/* It fails where the barrier did not, until recovered. */
	while (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM,
	    MPI_COMM_WORLD) != MPI_SUCCESS) {
		if (++tries > 8)
			MPI_Abort(MPI_COMM_WORLD, 4);
		recover();
	}
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		printf("size %d sum %d\n", size, sum);
	MPI_Finalize();
	return 0;
}
