/* SPDX-License-Identifier: ISC */
/*
 * ulfm_errh: ULFM's errors through error handlers, under ftrun --ft
 * ulfm --initial-errhandler mpi_errors_return.  MPI_COMM_WORLD starts
 * with MPI_ERRORS_RETURN (so this program never sets it), the three
 * classes have their texts, and a user handler on a communicator is
 * called with MPIX_ERR_PROC_FAILED, then the call returns that code.
 */
#define NAME "ulfm_errh"
#include "ulfm.h"

static int	called, seen;

static void
handler(MPI_Comm *comm, int *code, ...)
{
	(void)comm;
	called++;
	MPI_Error_class(*code, &seen);
}

int
main(int argc, char **argv)
{
	static const struct { int cls; const char *name; } k[] = {
		{ MPIX_ERR_PROC_FAILED, "MPIX_ERR_PROC_FAILED" },
		{ MPIX_ERR_PROC_FAILED_PENDING, "MPIX_ERR_PROC_FAILED_PENDING" },
		{ MPIX_ERR_REVOKED, "MPIX_ERR_REVOKED" },
	};
	MPI_Errhandler eh;
	MPI_Comm c;
	char str[MPI_MAX_ERROR_STRING];
	int i, len, cls, rc, x = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
	if (eh != MPI_ERRORS_RETURN)
		fail("--initial-errhandler mpi_errors_return was not applied");
	MPI_Errhandler_free(&eh);
	for (i = 0; i < 3; i++) {
		if (k[i].cls <= 0 || k[i].cls > MPI_ERR_LASTCODE)
			fail("%s is %d, not in 1..MPI_ERR_LASTCODE", k[i].name,
			    k[i].cls);
		if (MPI_Error_string(k[i].cls, str, &len) != MPI_SUCCESS ||
		    strncmp(str, k[i].name, strlen(k[i].name)) != 0)
			fail("MPI_Error_string(%s) is '%s'", k[i].name, str);
		if (MPI_Error_class(k[i].cls, &cls) != MPI_SUCCESS ||
		    cls != k[i].cls)
			fail("MPI_Error_class(%s) is %d", k[i].name, cls);
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	MPI_Comm_create_errhandler(handler, &eh);
	MPI_Comm_set_errhandler(c, eh);
	MPI_Errhandler_free(&eh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (myrank == nprocs - 1)
		raise(SIGKILL);
	rc = MPI_Recv(&x, 1, MPI_INT, nprocs - 1, 0, c, MPI_STATUS_IGNORE);
	MPI_Error_class(rc, &cls);
	if (cls != MPIX_ERR_PROC_FAILED)
		fail("MPI_Recv from the dead rank returned class %d", cls);
	if (called != 1 || seen != MPIX_ERR_PROC_FAILED)
		fail("the user handler ran %d times, last with class %d",
		    called, seen);
	MPI_Comm_free(&c);
	return finish();
}
