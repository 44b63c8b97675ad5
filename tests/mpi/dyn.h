/* SPDX-License-Identifier: ISC */
/*
 * What the tests of dynamic processes (spawn*.c, ports.c) share on top
 * of mtest.h: a spawned world adds its failures up and hands the sum
 * to its parents' rank 0 (child_report), which counts it as its own
 * (parent_collect), so that "No Errors" covers both worlds; only the
 * first world prints it (dyn_main).
 */
#ifndef DYN_H
#define DYN_H

#include "mtest.h"

#define TAG_CHILD_ERRS	32001

/* In a spawned world: send the world's failures to parent rank 0. */
MTEST_FN void
child_report(MPI_Comm parent)
{
	int	total = 0;

	MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (myrank == 0)
		MPI_Send(&total, 1, MPI_INT, 0, TAG_CHILD_ERRS, parent);
}

/* In the parents: add the spawned world's failures to rank 0's. */
MTEST_FN void
parent_collect(MPI_Comm children)
{
	int	e = 0;

	if (myrank != 0)
		return;
	MPI_Recv(&e, 1, MPI_INT, 0, TAG_CHILD_ERRS, children,
	    MPI_STATUS_IGNORE);
	if (e != 0) {
		fprintf(stderr, "%s: the spawned world found %d errors\n",
		    NAME, e);
		errs += e;
	}
}

/*
 * The main of a test that spawns itself: parent(argv[0]) runs in the
 * first world, which prints the verdict, child(parent, argv) in the
 * spawned ones.
 */
MTEST_FN int
dyn_main(int argc, char **argv, void (*parent)(char *),
    void (*child)(MPI_Comm, char **))
{
	MPI_Comm	par;

	init(&argc, &argv);
	MPI_Comm_get_parent(&par);
	if (par == MPI_COMM_NULL) {
		parent(argv[0]);
		return finish();
	}
	child(par, argv);
	MPI_Finalize();
	return errs != 0;
}

#endif
