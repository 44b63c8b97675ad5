/* SPDX-License-Identifier: ISC */
/*
 * spawn_multiple: MPI_Comm_spawn_multiple of two commands with
 * different arguments (this program twice, "a" 2 processes and "b"
 * with two arguments 1 process) from rank 0 of MPI_COMM_WORLD as root:
 * the children share one MPI_COMM_WORLD in command order, MPI_APPNUM
 * is the command's index, and each gets its own arguments.  In the
 * first world MPI_Comm_get_parent is MPI_COMM_NULL, and
 * MPI_ERRCODES_IGNORE and MPI_ARGVS_NULL are accepted.
 */

#define NAME	"spawn_multiple"
#include "dyn.h"

static void
parent(char *prog)
{
	char		*cmds[2] = { prog, prog };
	char		*a0[] = { "a", NULL }, *a1[] = { "b", "x y", NULL };
	char		**argvs[2] = { a0, a1 };
	int		 np[2] = { 2, 1 }, codes[3] = { -1, -1, -1 }, i, v;
	MPI_Info	 infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
	MPI_Comm	 kids, none;

	MPI_Comm_get_parent(&none);
	if (none != MPI_COMM_NULL)
		fail("MPI_Comm_get_parent is not MPI_COMM_NULL in the "
		    "first world");
	ok(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0,
	    MPI_COMM_WORLD, &kids, codes), "Comm_spawn_multiple");
	for (i = 0; i < 3; i++)
		if (codes[i] != MPI_SUCCESS)
			fail("errcodes[%d] is %d", i, codes[i]);
	/* Each child says which command it ran. */
	if (myrank == 0)
		for (i = 0; i < 3; i++) {
			MPI_Recv(&v, 1, MPI_INT, i, 3, kids,
			    MPI_STATUS_IGNORE);
			if (v != (i < 2 ? 0 : 1))
				fail("child %d ran command %d", i, v);
		}
	parent_collect(kids);
	MPI_Comm_disconnect(&kids);
	/* No arguments at all, and no error codes wanted. */
	ok(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, np, infos, 0,
	    MPI_COMM_WORLD, &kids, MPI_ERRCODES_IGNORE),
	    "Comm_spawn_multiple with MPI_ARGVS_NULL");
	parent_collect(kids);
	MPI_Comm_disconnect(&kids);
}

static void
child(MPI_Comm par, char **argv)
{
	int	*app, flag, want;

	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
	if (!flag) {
		fail("no MPI_APPNUM");
		return;
	}
	want = argv[1] == NULL ? 0 : strcmp(argv[1], "b") == 0 ? 1 : 0;
	if (*app != want)
		fail("MPI_APPNUM %d, want %d", *app, want);
	if (argv[1] == NULL) {
		/* The MPI_ARGVS_NULL spawn: 2 processes, no arguments. */
		if (nprocs != 2)
			fail("%d processes, want 2", nprocs);
	} else if (nprocs != 3 || (*app == 0 && (myrank > 1 ||
	    strcmp(argv[1], "a") != 0 || argv[2] != NULL)) ||
	    (*app == 1 && (myrank != 2 || argv[2] == NULL ||
	    strcmp(argv[2], "x y") != 0 || argv[3] != NULL)))
		fail("rank %d of %d, command %d: wrong arguments", myrank,
		    nprocs, *app);
	if (argv[1] != NULL)
		MPI_Send(app, 1, MPI_INT, 0, 3, par);
	child_report(par);
	MPI_Comm_disconnect(&par);
	MPI_Comm_get_parent(&par);
	if (par != MPI_COMM_NULL)
		fail("MPI_Comm_get_parent after the disconnect");
}

int
main(int argc, char **argv)
{
	return dyn_main(argc, argv, parent, child);
}
