/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_rebuild: FT-MPI's REBUILD under ftrun --ft ftmpi --comm-mode
 * rebuild --msg-mode nop.  Every process, first or replacement, runs
 * the sequence ft-ftmpi(3) prescribes: MPI_Init, then MPI_Comm_dup of
 * MPI_COMM_WORLD (a replacement joins the rebuilt world there), and
 * after an error MPI_Comm_dup of MPI_COMM_WORLD again (the survivors'
 * recovery).  Ten steps of an allreduce then a ring exchange; deaths
 * are tied to steps and incarnations:
 *  - rank 1 dies before the allreduce of step 2, and its replacement
 *    dies again during the ring of step 5 (the same rank twice);
 *  - with 4 ranks or more, ranks 2 and 3 die together at step 7.
 * A replacement knows it is one (ft_restarted() is 1), has its old
 * rank in a world of the old size, and is told by the survivors which
 * step to go on with.  Every step's results are checked.
 */
#define NAME "ftmpi_rebuild"
#include <limits.h>
#include <ft.h>

#include "ulfm.h"

static int
incarnation(void)
{
	const char *s = getenv("FT_INCARNATION");

	return s != NULL ? (int)strtol(s, NULL, 10) : 0;
}

/* The survivors' recovery, or a replacement's joining. */
static void
recover(MPI_Comm *work)
{
	int size, rank;

	if (*work != MPI_COMM_NULL)
		MPI_Comm_free(work);
	if (MPI_Comm_dup(MPI_COMM_WORLD, work) != MPI_SUCCESS) {
		fail("MPI_Comm_dup of MPI_COMM_WORLD failed");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_set_errhandler(*work, MPI_ERRORS_RETURN);
	MPI_Comm_size(*work, &size);
	MPI_Comm_rank(*work, &rank);
	if (size != nprocs || rank != myrank)
		fail("rebuilt: size %d rank %d, want %d %d", size, rank,
		    nprocs, myrank);
}

/* One step: 0, or -1 when an operation failed. */
static int
step(MPI_Comm work, int s, int inc)
{
	int sum = -1, in = -1, out, want;

	if (myrank == 1 && s == 2 && inc == 0)
		die();
	if (nprocs >= 4 && (myrank == 2 || myrank == 3) && s == 7 &&
	    inc == 0)
		die();
	out = myrank + s;
	if (MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, work) !=
	    MPI_SUCCESS)
		return -1;
	want = nprocs * (nprocs - 1) / 2 + nprocs * s;
	if (sum != want)
		fail("step %d: allreduce gave %d, want %d", s, sum, want);
	if (myrank == 1 && s == 5 && inc == 1)
		die();
	out = 1000 * s + myrank;
	if (MPI_Sendrecv(&out, 1, MPI_INT, (myrank + 1) % nprocs, 9, &in, 1,
	    MPI_INT, (myrank + nprocs - 1) % nprocs, 9, work,
	    MPI_STATUS_IGNORE) != MPI_SUCCESS)
		return -1;
	if (in != 1000 * s + (myrank + nprocs - 1) % nprocs)
		fail("step %d: the ring gave %d", s, in);
	return 0;
}

int
main(int argc, char **argv)
{
	MPI_Comm work = MPI_COMM_NULL;
	int inc, s = 0, from;

	init(&argc, &argv);
	inc = incarnation();
	if (ft_restarted() != (inc > 0))
		fail("ft_restarted() is %d in incarnation %d",
		    ft_restarted(), inc);
	recover(&work);
	if (inc > 0)
		/* The survivors say where they are. */
		s = INT_MAX;
	for (;;) {
		if (inc > 0 || s > 0) {
			/* Go on together from the earliest step not done. */
			if (MPI_Allreduce(&s, &from, 1, MPI_INT, MPI_MIN,
			    work) != MPI_SUCCESS) {
				recover(&work);
				continue;
			}
			s = from;
		}
		while (s < 10 && step(work, s, inc) == 0)
			s++;
		if (s == 10)
			break;
		recover(&work);
	}
	MPI_Comm_free(&work);
	return finish();
}
