/* SPDX-License-Identifier: ISC */
/*
 * spawn_nested: a spawned world spawns in its turn.  The first world
 * spawns 2 children; they spawn 1 grandchild from their own
 * MPI_COMM_WORLD (root 1); the grandchild's parents are the children,
 * all three worlds talk over their intercommunicators, and failures
 * go up to the first world.
 */

#define NAME	"spawn_nested"
#include "dyn.h"

int
main(int argc, char **argv)
{
	char		*gen1[] = { "1", NULL }, *gen2[] = { "2", NULL };
	MPI_Comm	 par, kids;
	int		 v, rs, i;

	init(&argc, &argv);
	MPI_Comm_get_parent(&par);
	if (par == MPI_COMM_NULL) {
		ok(MPI_Comm_spawn(argv[0], gen1, 2, MPI_INFO_NULL, 0,
		    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE), "spawn 1");
		v = 0;
		MPI_Bcast(&v, 1, MPI_INT, 0, kids);
		if (v != 12)
			fail("the children sent %d, want 12", v);
		parent_collect(kids);
		MPI_Comm_disconnect(&kids);
		return finish();
	}
	MPI_Comm_remote_size(par, &rs);
	if (strcmp(argv[1], "1") == 0) {
		if (nprocs != 2)
			fail("%d children, want 2", nprocs);
		ok(MPI_Comm_spawn(argv[0], gen2, 1, MPI_INFO_NULL, 1,
		    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE), "spawn 2");
		MPI_Comm_remote_size(kids, &v);
		if (v != 1)
			fail("%d grandchildren, want 1", v);
		MPI_Recv(&v, 1, MPI_INT, 0, 4, kids, MPI_STATUS_IGNORE);
		if (v != 100 + myrank)
			fail("the grandchild sent %d", v);
		/* Child 0 tells the first world what came down. */
		v = 12;
		MPI_Bcast(&v, 1, MPI_INT, myrank == 0 ? MPI_ROOT :
		    MPI_PROC_NULL, par);
		parent_collect(kids);
		MPI_Comm_disconnect(&kids);
	} else {
		if (nprocs != 1 || rs != 2)
			fail("grandchild: %d of %d, %d parents", myrank,
			    nprocs, rs);
		for (i = 0; i < rs; i++) {
			v = 100 + i;
			MPI_Send(&v, 1, MPI_INT, i, 4, par);
		}
	}
	child_report(par);
	MPI_Comm_disconnect(&par);
	MPI_Finalize();
	return errs != 0;
}
