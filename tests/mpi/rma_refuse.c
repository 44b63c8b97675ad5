/* SPDX-License-Identifier: ISC */
/*
 * rma_refuse: windows under each fault-tolerance protocol (ft-mpi(3),
 * One-sided communication).  Under --ft none (FT_PROTO unset or
 * "none") and --ft ulfm every flavor of window is made, used and freed.
 * Under any other protocol each call that makes a window fails on
 * every rank with MPI_ERR_OTHER, leaves the handle alone, and the job
 * goes on: the ranks still reduce together afterwards.  ft's own
 * guarantee, so it reads ft's FT_PROTO.
 */
#define NAME	"rma_refuse"
#include "mtest.h"

int
main(int argc, char **argv)
{
	const char *proto = getenv("FT_PROTO");
	int none = proto == NULL || strcmp(proto, "none") == 0 ||
	    strcmp(proto, "ulfm") == 0;
	MPI_Win win = MPI_WIN_NULL;
	int buf[4] = { 0 }, *mem = NULL, rc[4], i, one = 1, sum = 0;

	init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc[0] = MPI_Win_create(buf, sizeof(buf), 4, MPI_INFO_NULL,
	    MPI_COMM_WORLD, &win);
	if (rc[0] == MPI_SUCCESS) {
		MPI_Win_fence(0, win);
		MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM,
		    win);
		MPI_Win_fence(0, win);
		if (myrank == 0 && buf[0] != nprocs)
			fail("accumulated %d, want %d", buf[0], nprocs);
		MPI_Win_free(&win);
	} else if (win != MPI_WIN_NULL)
		fail("a refused MPI_Win_create set the handle");
	rc[1] = MPI_Win_allocate(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
	    &win);
	if (rc[1] == MPI_SUCCESS)
		MPI_Win_free(&win);
	rc[2] = MPI_Win_allocate_shared(16, 4, MPI_INFO_NULL, MPI_COMM_WORLD,
	    &mem, &win);
	if (rc[2] == MPI_SUCCESS)
		MPI_Win_free(&win);
	rc[3] = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (rc[3] == MPI_SUCCESS)
		MPI_Win_free(&win);
	for (i = 0; i < 4; i++)
		if (none)
			ok(rc[i], "making a window under --ft none");
		else
			expect(rc[i], MPI_ERR_OTHER, "making a window under "
			    "another protocol");
	if (win != MPI_WIN_NULL)
		fail("the handle is not MPI_WIN_NULL at the end");
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (sum != nprocs)
		fail("the job did not go on: sum %d, want %d", sum, nprocs);
	return finish();
}
