/* SPDX-License-Identifier: ISC */
/*
 * authpeer: usage: authpeer [FTTEST-OPTION ...]
 * Rank 1 connects to rank 0's listener ($FT_JOB_DIR/r0.sock) with
 * "fttest connect", which uses a key of its own and so a wrong one,
 * and checks that it was refused (exit status 1).  Then ranks 0 and 1
 * exchange a message both ways, to show that the refusal did not hurt
 * the job, and rank 0 prints "No Errors".  Needs 2 ranks or more and
 * fttest in PATH; the options are passed on to fttest.
 */
#include <sys/wait.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char *argv[])
{
	const char *dir;
	char cmd[4096];
	size_t off;
	int rank, size, rc, i, errs = 0, v = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "authpeer: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 100);
	}
	if (rank == 1) {
		if ((dir = getenv("FT_JOB_DIR")) == NULL) {
			fprintf(stderr, "authpeer: FT_JOB_DIR is not set\n");
			MPI_Abort(MPI_COMM_WORLD, 100);
		}
		off = (size_t)snprintf(cmd, sizeof(cmd),
		    "fttest connect unix:%s/r0.sock", dir);
		for (i = 1; i < argc && off < sizeof(cmd); i++)
			off += (size_t)snprintf(cmd + off, sizeof(cmd) - off,
			    " %s", argv[i]);
		rc = system(cmd);
		if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 1) {
			fprintf(stderr, "authpeer: '%s' returned %d, not "
			    "exit status 1\n", cmd, rc);
			errs++;
		} else
			printf("fttest was refused\n");
		v = 42;
		MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
		MPI_Recv(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (v != 43) {
			fprintf(stderr, "authpeer: rank 1 got %d, not 43\n",
			    v);
			errs++;
		}
		MPI_Send(&errs, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
	} else if (rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (v != 42) {
			fprintf(stderr, "authpeer: rank 0 got %d, not 42\n",
			    v);
			errs++;
		}
		v = 43;
		MPI_Send(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
		MPI_Recv(&rc, 1, MPI_INT, 1, 9, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		errs += rc;
		if (errs == 0)
			printf("No Errors\n");
		else
			printf(" Found %d errors\n", errs);
	}
	MPI_Finalize();
	return errs != 0;
}
