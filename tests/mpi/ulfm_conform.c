/* SPDX-License-Identifier: ISC */
/*
 * ulfm_conform: what programs written for Open MPI's ULFM take for
 * granted (ft-ulfm(3), CONFORMANCE), under ftrun --ft ulfm
 * --initial-errhandler mpi_errors_return:
 *  - the names: MPI_ERR_PROC_FAILED and the others without X, and
 *    OMPI_HAVE_MPIX_COMM_{GET_FAILED,ACK_FAILED,ISHRINK} for #if;
 *  - the attribute MPIX_FT on MPI_COMM_WORLD, true (it was the key of
 *    MPI_TAG_UB);
 *  - MPI_INFO_ENV's mpi_initial_errhandler (MPI-4.0);
 *  - a message sent before its sender died is received: the last rank
 *    sends its first message to rank 0 and dies at once; rank 0 waits
 *    until it knows of the death, then receives the message.
 */
#define NAME "ulfm_conform"
#include "ulfm.h"

#if !defined(OMPI_HAVE_MPIX_COMM_GET_FAILED) || \
    !defined(OMPI_HAVE_MPIX_COMM_ACK_FAILED) || \
    !OMPI_HAVE_MPIX_COMM_ISHRINK
#error "mpi-ext.h does not say it has get_failed, ack_failed, ishrink"
#endif

int
main(int argc, char **argv)
{
	char val[MPI_MAX_INFO_VAL + 1];
	int flag = 0, *ft = NULL, x = 0, rc, cls;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	/* Before any collective: this send opens the connection. */
	if (myrank == nprocs - 1 && nprocs > 1) {
		x = 4242;
		MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
		raise(SIGKILL);
	}
	if (myrank == 0 && nprocs > 1) {
		await_failures(MPI_COMM_WORLD, 1);
		rc = MPI_Recv(&x, 1, MPI_INT, nprocs - 1, 7, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) {
			MPI_Error_class(rc, &cls);
			fail("the message sent before the death: class %d",
			    cls);
		} else if (x != 4242)
			fail("the message sent before the death: %d", x);
	}
	if (MPI_ERR_PROC_FAILED != MPIX_ERR_PROC_FAILED ||
	    MPI_ERR_PROC_FAILED_PENDING != MPIX_ERR_PROC_FAILED_PENDING ||
	    MPI_ERR_REVOKED != MPIX_ERR_REVOKED)
		fail("the MPI_ERR_ names differ from the MPIX_ERR_ ones");
	if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, &ft, &flag) !=
	    MPI_SUCCESS || !flag || ft == NULL || *ft != 1)
		fail("MPIX_FT: flag %d, value %d", flag, ft ? *ft : -1);
	flag = 0;
	if (MPI_Info_get(MPI_INFO_ENV, "mpi_initial_errhandler",
	    MPI_MAX_INFO_VAL, val, &flag) != MPI_SUCCESS || !flag ||
	    strcmp(val, "mpi_errors_return") != 0)
		fail("MPI_INFO_ENV mpi_initial_errhandler: flag %d, '%s'",
		    flag, flag ? val : "");
	return finish();
}
