/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_inter_abort: an intercommunicator in mode ABORT (the info key
 * ft_comm_mode, ft-ftmpi(3)) in a job under --ft ftmpi, SHRINK for the
 * rest: the last rank dies once every rank has set the intercommunicator
 * up, while the others wait on it, and its failure ends the job.  First,
 * the modes an intercommunicator does not take (blank, rebuild, nop) are
 * refused (MPI_ERR_INFO_VALUE); a wrong answer exits 3.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static void
bad(const char *what)
{
	fprintf(stderr, "ftmpi_inter_abort: %s\n", what);
	exit(3);
}

/* Set key=value on c; the error class. */
static int
set(MPI_Comm c, const char *key, const char *value)
{
	MPI_Info info;
	int rc, cls;

	MPI_Info_create(&info);
	MPI_Info_set(info, key, value);
	rc = MPI_Comm_set_info(c, info);
	MPI_Info_free(&info);
	MPI_Error_class(rc, &cls);
	return cls;
}

int
main(int argc, char **argv)
{
	MPI_Comm half, ic;
	MPI_Info info;
	char v[MPI_MAX_INFO_VAL + 1];
	int rank, size, h, low, flag, x;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	h = size / 2;
	low = rank < h;
	MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
	if (MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? h : 0, 1,
	    &ic) != MPI_SUCCESS)
		bad("MPI_Intercomm_create");
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	if (set(ic, "ft_comm_mode", "blank") != MPI_ERR_INFO_VALUE)
		bad("ft_comm_mode blank on an intercommunicator was taken");
	if (set(ic, "ft_comm_mode", "rebuild") != MPI_ERR_INFO_VALUE)
		bad("ft_comm_mode rebuild on an intercommunicator was taken");
	if (set(ic, "ft_msg_mode", "nop") != MPI_ERR_INFO_VALUE)
		bad("ft_msg_mode nop on an intercommunicator was taken");
	if (set(ic, "ft_comm_mode", "abort") != MPI_SUCCESS)
		bad("ft_comm_mode abort on an intercommunicator was refused");
	MPI_Comm_get_info(ic, &info);
	MPI_Info_get(info, "ft_comm_mode", MPI_MAX_INFO_VAL, v, &flag);
	if (!flag || strcmp(v, "abort") != 0)
		bad("MPI_Comm_get_info does not say abort");
	MPI_Info_free(&info);
	(void)MPI_Barrier(MPI_COMM_WORLD);
	if (rank == size - 1) {
		fflush(NULL);
		raise(SIGKILL);
	}
	/* Nobody sends it: the failure must end the wait, and the job. */
	(void)MPI_Recv(&x, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
	bad("the receive on the intercommunicator in mode ABORT ended");
	return 0;
}
